"""Join links the group's phones can open (issue 25, W-80 … W-82).

W-80: shared links use ``TABLESIDE_PUBLIC_URL`` (``serve --public-url``, or the LAN address
found when listening on 0.0.0.0), else the address the Host's browser used. W-81: a link on a
loopback address comes with a warning saying why a phone cannot open it and how to fix it.
W-82: the LAN address is read from the computer's own name.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tableside.cli import serve_cmds
from tableside.errors import DataError
from tableside.web import create_app, public


def created(client: TestClient) -> str:
    return client.post("/tables", data={"name": "Friday"}).text


def test_w80_w81_links_use_the_public_url_and_warn_on_loopback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'p.db'}")) as client:
        monkeypatch.setenv(public.PUBLIC_URL_ENV, "http://127.0.0.1:8000")
        page = created(client)
        assert 'href="http://127.0.0.1:8000/join/' in page
        assert 'id="reach"' in page and "this computer only (127.0.0.1)" in page
        monkeypatch.setenv(public.PUBLIC_URL_ENV, "http://192.168.1.20:8000")
        page = created(client)
        assert re.search(r'href="http://192\.168\.1\.20:8000/join/[^"]+"', page)
        assert 'id="reach"' not in page


def test_w81_loopback_hosts_are_named() -> None:
    assert public.loopback_host("http://localhost:8000/join/x") == "localhost"
    assert public.loopback_host("http://[::1]:8000/join/x") == "::1"
    assert public.loopback_host("http://127.0.0.2/join/x") == "127.0.0.2"
    assert public.loopback_host("http://10.0.0.7:8000/join/x") is None
    assert public.reach_warning("https://table.example/join/x") == ""


def test_w80_w82_serve_picks_the_public_url_or_the_lan_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # set (empty: unset to the pages) so that the test's end removes what serve wrote there
    monkeypatch.setenv(public.PUBLIC_URL_ENV, "")
    assert serve_cmds.shared_base("127.0.0.1", 8000, None) == "http://127.0.0.1:8000"
    monkeypatch.setattr(public, "lan_address", lambda: "192.168.1.20")
    assert serve_cmds.shared_base("0.0.0.0", 8000, None) == "http://192.168.1.20:8000"
    assert serve_cmds.shared_base("0.0.0.0", 8000, "http://table.lan:9000/") == (
        "http://table.lan:9000"
    )
    assert os.environ[public.PUBLIC_URL_ENV] == "http://table.lan:9000"
    with pytest.raises(DataError, match="--public-url must be an http"):
        serve_cmds.shared_base("0.0.0.0", 8000, "table.lan")
    monkeypatch.setattr(public, "lan_address", lambda: None)
    os.environ[public.PUBLIC_URL_ENV] = ""
    assert serve_cmds.shared_base("0.0.0.0", 8000, None) == "http://127.0.0.1:8000"


def test_w80_no_public_url_is_left_behind() -> None:
    assert not os.environ.get(public.PUBLIC_URL_ENV)  # the tests above cleaned up


def test_w82_the_lan_address_is_never_loopback() -> None:
    found = public.lan_address()
    assert found is None or public.loopback_host(f"http://{found}/") is None
