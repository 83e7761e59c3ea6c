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
from tableside.web import create_app
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


def test_w24_a_players_boot_log_is_their_redacted_log(demo: tuple[TestClient, DemoLinks]) -> None:
    client, links = demo
    table = client.app.state.table  # type: ignore[attr-defined]
    host = Principal(links.table_id, None)
    eid = links.encounter_id
    table_audience.set_secret(table.store, eid, "Watcher", True)
    table.execute(host, eid, Command("stance", {"id": "Herald"}), None, hidden=True)
    table.execute(host, eid, Command("move", {"id": "Jackal", "to": [4, 2, 0]}), None)
    html, boot = page_of(client, links.player_links["The fallen player"])
    log = client.get(f"/api/encounters/{eid}/log").json()["records"]
    assert boot["log"] == log  # the same records, redacted the same way as the API and stream
    assert [r["revision"] for r in boot["log"]][-2:] == [9, 11]  # the hidden stance is not there
    watcher = next(c for c in boot["state"]["combatants"] if c["id"] == "Watcher")
    assert watcher["endurance"] == "secret"
    assert watcher["wear"] == {"E": "secret", "R": "secret", "P": "secret"}  # the bars: unknown
    shown = re.sub(r"<script.*?</script>", "", html, flags=re.S)  # what the page shows
    assert "majesty-war" not in shown and "revision" not in shown.replace('id="revision"', "")
    assert "Allies of Majesty — War" in shown  # W-23: the game in words
