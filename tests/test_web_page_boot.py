"""The fight page's boot data: the records and state exactly as the viewer may read them (W-24).

The page renders its log from the records in its boot data with the same function as streamed
records, so the boot data must carry what ``GET …/log`` gives the same viewer: a hidden Host
command is not in a player's, and a secret combatant's numbers are concealed (W-1 … W-16).
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tableside.encounter.log import Command
from tableside.store import table_audience
from tableside.web import create_app, log_page
from tableside.web.auth import Principal
from tableside.web.demo import DemoLinks, create_demo

BOOT = re.compile(r'<script type="application/json" id="boot">(.*?)</script>', re.S)


@pytest.fixture
def demo() -> Iterator[tuple[TestClient, DemoLinks]]:
    with tempfile.TemporaryDirectory() as tmp, TestClient(create_app(f"sqlite:///{tmp}/b.db")) as c:
        yield c, create_demo(c.app.state.table)  # type: ignore[attr-defined]


def page_of(client: TestClient, link: str) -> tuple[str, dict[str, Any]]:
    """A player's War page (entered by the join link) and its boot data."""
    table_page = client.get(link)
    war = next(p for p in re.findall(r'href="([^"]+)"', table_page.text) if "/encounters/" in p)
    page = client.get(war)
    assert page.status_code == 200, page.text
    found = BOOT.search(page.text)
    assert found is not None
    boot: dict[str, Any] = json.loads(found.group(1))
    return page.text, boot


def secret_watcher_page(client: TestClient, links: DemoLinks) -> tuple[str, dict[str, Any]]:
    """The Watcher made secret, a hidden Host Stance and a Move; the fallen player's War page."""
    table = client.app.state.table  # type: ignore[attr-defined]
    host = Principal(links.table_id, None)
    eid = links.encounter_id
    table_audience.set_secret(table.store, eid, "Watcher", True)
    table.execute(host, eid, Command("stance", {"id": "Herald"}), None, hidden=True)
    table.execute(host, eid, Command("move", {"id": "Jackal", "to": [4, 2, 0]}), None)
    return page_of(client, links.player_links["The fallen player"])


def test_w24_a_players_boot_log_is_their_redacted_log(demo: tuple[TestClient, DemoLinks]) -> None:
    client, links = demo
    eid = links.encounter_id
    html, boot = secret_watcher_page(client, links)
    log = client.get(f"/api/encounters/{eid}/log").json()["records"]
    assert boot["log"] == log  # the same records, redacted the same way as the API and stream
    assert [r["revision"] for r in boot["log"]][-2:] == [9, 11]  # the hidden stance is not there
    watcher = next(c for c in boot["state"]["combatants"] if c["id"] == "Watcher")
    assert watcher["endurance"] == "secret"
    assert watcher["wear"] == {"E": "secret", "R": "secret", "P": "secret"}  # the bars: unknown
    shown = re.sub(r"<script.*?</script>", "", html, flags=re.S)  # what the page shows
    assert "majesty-war" not in shown and "revision" not in shown.replace('id="revision"', "")
    assert "Allies of Majesty — War" in shown  # W-23: the game in words


def test_w74_the_boot_holds_the_last_records_and_older_pages_are_the_same_redacted_log(
    demo: tuple[TestClient, DemoLinks], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The boot data holds the last records (5 here, 50 served); ``GET …/log?before=&limit=``
    gives the ones before, page by page: together exactly the viewer's log, redacted as the
    stream (a hidden Host command absent, the secret Watcher's values concealed)."""
    monkeypatch.setattr(log_page, "BOOT_RECORDS", 5)
    client, links = demo
    eid = links.encounter_id
    _html, boot = secret_watcher_page(client, links)
    whole = client.get(f"/api/encounters/{eid}/log").json()
    assert whole["more"] is False and len(whole["records"]) == 10
    assert boot["log"] == whole["records"][-5:] and boot["older"] is True
    pages: list[dict[str, Any]] = []
    before = boot["log"][0]["revision"]
    while True:
        page = client.get(f"/api/encounters/{eid}/log", params={"before": before, "limit": 2})
        assert page.status_code == 200, page.text
        pages = page.json()["records"] + pages
        if not page.json()["more"]:
            break
        before = page.json()["records"][0]["revision"]
    assert pages + boot["log"] == whole["records"]  # none twice, none missing, in order
    assert 10 not in [r["revision"] for r in pages + boot["log"]]  # the hidden stance
    assert "secret" in json.dumps(whole["records"])  # the Watcher's values concealed
    first = client.get(f"/api/encounters/{eid}/log", params={"before": 1, "limit": 5}).json()
    assert first == {"records": [], "more": False}


@pytest.mark.parametrize(
    "query", ["before=0", "before=x", "limit=0", "limit=201", "before=1e3", "limit=-1"]
)
def test_w74_a_bad_page_of_the_log_is_refused_naming_it(
    demo: tuple[TestClient, DemoLinks], query: str
) -> None:
    client, links = demo
    token = re.sub(r".*token=", "", links.host_page)
    r = client.get(
        f"/api/encounters/{links.encounter_id}/log?{query}",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 422 and query.split("=")[0] in r.json()["error"], r.text
