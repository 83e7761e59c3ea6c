"""Answers compressed for a client that accepts it (issue 26, W-70).

The fight page, the set-up pages and the API's larger answers travel gzipped (starlette's
``GZipMiddleware``, 1 KB and up, zlib's level 6); answers under 1 KB and live streams
(``text/event-stream``) are sent as they are, and a client that does not accept gzip gets every
answer plain.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tableside.web import create_app
from tableside.web.demo import DemoLinks, create_demo

PLAIN = {"Accept-Encoding": "identity"}
GZIP = {"Accept-Encoding": "gzip"}


@pytest.fixture
def demo() -> Iterator[tuple[TestClient, DemoLinks]]:
    with tempfile.TemporaryDirectory() as tmp, TestClient(create_app(f"sqlite:///{tmp}/z.db")) as c:
        yield c, create_demo(c.app.state.table)  # type: ignore[attr-defined]


def unsealed(page: str) -> str:
    """A page without its CSP nonces (new for every answer)."""
    return re.sub(r'nonce="[^"]*"', "", page)


def test_w70_the_fight_page_travels_gzipped_to_a_browser(
    demo: tuple[TestClient, DemoLinks],
) -> None:
    client, links = demo
    client.get(links.host_page, headers=GZIP)  # the Host's cookie, then the page
    page = links.host_page.split("?")[0]
    zipped = client.get(page, headers=GZIP)
    plain = client.get(page, headers=PLAIN)
    assert zipped.status_code == plain.status_code == 200
    assert zipped.headers["content-encoding"] == "gzip" and "content-encoding" not in plain.headers
    assert unsealed(zipped.text) == unsealed(plain.text)  # the same page
    sent = zipped.num_bytes_downloaded
    assert sent * 3 < len(plain.content), (sent, len(plain.content))  # 170 KB: about 48 KB
    assert zipped.headers["x-content-type-options"] == "nosniff"  # the other headers kept


def test_w70_small_answers_and_clients_without_gzip_get_them_plain(
    demo: tuple[TestClient, DemoLinks],
) -> None:
    client, links = demo
    token = re.sub(r".*token=", "", links.host_page)
    auth = {"Authorization": f"Bearer {token}", **GZIP}
    state = client.get(f"/api/encounters/{links.encounter_id}", headers=auth)
    assert state.status_code == 200 and state.headers["content-encoding"] == "gzip"
    small = client.get(f"/api/encounters/{links.encounter_id}/settings", headers=auth)
    assert small.status_code == 200 and len(small.content) < 1024
    assert "content-encoding" not in small.headers
    missing = client.get("/api/encounters/999999", headers=auth)
    assert missing.status_code in (403, 404) and "content-encoding" not in missing.headers
