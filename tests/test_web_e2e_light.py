"""The light fight page in real browsers (issue 26, W-73 … W-75): what travels on a first and a
repeat load, and the older log on request.

A War with a long log (300 records: moves, Strikes with their decisions, Turns) is opened by the
Host and by a player, each in their own chromium, at the laptop size (1366 × 768) and the phone
size (390 × 844). The bytes that travel are read from the page's Performance API: the
navigation's and every resource's ``transferSize`` (headers and the encoded body; a file taken
from the browser's cache counts 0), once the page has made its requests. A first load (the
cache emptied) must stay within 60 KB and a repeat load (the scripts and styles cached, W-73)
within 15 KB. Then the log: the page shows the last 50 records; "Older records" and scrolling to
the top draw the ones before with the same renderer, and a player's older records hold no
secret value of the secret NPC (W-74).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import suppress
from typing import Any

import pytest
from a11y import assert_accessible
from selenium.webdriver.common.by import By
from test_web_e2e import WAR, LiveServer, Seat, chromiums, live_server

from tableside.encounter.log import Command
from tableside.errors import TablesideError
from tableside.store import table_audience, tables
from tableside.web.auth import Principal
from tableside.web.demo import DemoLinks, create_demo
from tableside.web.table import WebTable

pytestmark = pytest.mark.slow
DESKTOP, PHONE = (1366, 768), (390, 844)
FIRST_MOST, REPEAT_MOST = 60_000, 15_000  # bytes on the wire (issue 26)
RECORDS = 300
# Every request of the page so far: the document's, then each resource's (name, bytes on the
# wire, bytes of the encoded body).
TRAVELLED = """
const nav = performance.getEntriesByType('navigation')[0];
return [[nav.name, nav.transferSize, nav.encodedBodySize],
        ...performance.getEntriesByType('resource').map(
          r => [r.name, r.transferSize, r.encodedBodySize])];
"""
CARDS = "return [...document.querySelectorAll('#log-box article')].map(c => +c.dataset.revision);"
SCROLLED = "document.getElementById('log-box').scrollTop = 0; " + CARDS
DETAILS = (
    "return [...document.querySelectorAll('#log-box article pre.json')].map(p => p.textContent);"
)


def long_war(table: WebTable, links: DemoLinks, records: int) -> None:
    """The demo's War played on to ``records`` records: moves, Strikes (their decisions taken
    as suggested) and Turns, in a fixed order (the seed fixes the dice)."""
    host = Principal(links.table_id, None)
    eid = links.encounter_id
    for tried in range(3 * records):
        if table.store.encounter(eid).revision >= records:
            return
        state = table.state(eid, host)
        rows = state["combatants"]
        me = next(r for r in rows if r["id"] == state["current"])
        foes = [r for r in rows if r["side"] != me["side"] and r["status"] == "normal"]
        try:
            if foes and tried % 4 == 1:
                strike(table, host, eid, me["id"], foes[tried % len(foes)])
            else:
                table.execute(host, eid, Command("next"), None)
        except TablesideError:
            table.execute(host, eid, Command("next"), None)
    raise AssertionError("the War did not reach its records")


def strike(table: WebTable, host: Principal, eid: int, striker: str, foe: dict[str, Any]) -> None:
    """``striker`` moves beside ``foe`` (if it can) and Strikes it; every decision as suggested."""
    x, y, z = foe["position"]
    with suppress(TablesideError):  # too far, or no AP: the Strike is refused, the Turn passes
        table.execute(host, eid, Command("move", {"id": striker, "to": [x + 1, y, z]}), None)
    args = {"striker": striker, "defender": foe["id"]}
    answer = table.execute(host, eid, Command("strike", args), None)
    while "pending" in answer:
        asked = {p["id"]: p["suggested"] for p in answer["pending"]}
        answer = table.answer_decisions(host, eid, asked)


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with live_server("light") as live:
        yield live


@pytest.fixture(scope="module")
def war(server: LiveServer) -> DemoLinks:
    """The demo with its War at 300 records; the Watcher (a holy NPC) secret from players."""
    demo = create_demo(server.table)
    table_audience.set_secret(server.table.store, demo.encounter_id, "Watcher", True)
    long_war(server.table, demo, RECORDS)
    return demo


@pytest.fixture(scope="module")
def seats(server: LiveServer, war: DemoLinks) -> Iterator[tuple[Seat, Seat]]:
    """The Host and the fallen player, each in their own chromium, on the War's page."""
    with chromiums("host", "fallen") as drivers:
        host, fallen = Seat("Host", drivers[0]), Seat("The fallen player", drivers[1])
        host.driver.get(server.base + war.host_page)
        fallen.driver.get(server.base + war.player_links["The fallen player"])
        fallen.driver.find_element(By.LINK_TEXT, WAR).click()
        yield host, fallen
        for seat in (host, fallen):
            seat.driver.get("about:blank")  # the live streams end before the server stops


def settled(seat: Seat) -> list[list[Any]]:
    """The page's requests once it has drawn its log and cards and made no new request."""
    seat.wait("the log", lambda s: len(s.driver.execute_script(CARDS)) > 0)
    seat.wait("the cards", lambda s: s.combatant("Jackal"))
    seen: list[list[Any]] = []

    def quiet(s: Seat) -> bool:
        nonlocal seen
        now: list[list[Any]] = s.driver.execute_script(TRAVELLED)
        same = len(now) == len(seen)
        seen = now
        return same and s.driver.execute_script("return document.readyState") == "complete"

    seat.wait("no new request", quiet)
    return seen


def loads(seat: Seat, url: str) -> tuple[int, int, list[list[Any]]]:
    """The bytes of a first load (the browser's cache emptied) and of a repeat load."""
    seat.driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    seat.driver.get(url)
    first = settled(seat)
    seat.driver.get("about:blank")
    seat.driver.get(url)
    repeat = settled(seat)
    return sum(e[1] for e in first), sum(e[1] for e in repeat), first + repeat


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["laptop", "phone"])
def test_w73_the_fight_page_travels_in_60_kb_first_and_15_kb_again(
    seats: tuple[Seat, Seat], size: tuple[int, int]
) -> None:
    for seat in seats:
        seat.driver.set_window_size(*size)
        url = seat.driver.current_url.split("?")[0]
        first, repeat, requests = loads(seat, url)
        said = f"{seat.name} at {size}: first {first} B, repeat {repeat} B; {requests}"
        print(said)
        assert first <= FIRST_MOST and repeat <= REPEAT_MOST, said
        files = [e for e in requests if "/static/" in e[0]]
        assert files and all(e[2] < e[1] or e[1] == 0 for e in files), files  # gzipped or cached
        assert len(seat.driver.execute_script(CARDS)) == 50  # the last records only (W-74)


def test_w74_older_records_appear_on_request_and_hold_no_secret(
    server: LiveServer, war: DemoLinks, seats: tuple[Seat, Seat]
) -> None:
    """The button, then scrolling to the top, draw every older record in order with the one
    renderer; a player's cards carry exactly their redacted records (the Watcher's values
    concealed), nothing of the Host's."""
    host, fallen = seats
    store = server.table.store
    seat = next(s for s in tables.seats(store, war.table_id) if s.name == fallen.name)
    logs = {
        host.name: server.table.log(Principal(war.table_id, None), war.encounter_id),
        fallen.name: server.table.log(Principal(war.table_id, seat), war.encounter_id),
    }
    for person in seats:
        person.driver.set_window_size(*DESKTOP)
        person.driver.get(person.driver.current_url.split("?")[0])
        person.wait("the log", lambda s: len(s.driver.execute_script(CARDS)) == 50)
        newest = person.driver.execute_script(CARDS)
        person.click("log-older")  # the button
        person.wait("older records", lambda s: len(s.driver.execute_script(CARDS)) > 50)
        # then scrolling to the top, again and again: each time the page before is drawn
        person.wait("the first record", lambda s: s.driver.execute_script(SCROLLED)[0] == 1)
        shown = person.driver.execute_script(CARDS)
        assert shown[-50:] == newest
        assert shown == [r["revision"] for r in logs[person.name]]  # all, in order, none twice
        assert not person.driver.find_element(By.ID, "log-older").is_displayed()  # the start
        assert "this is the start" in person.text("log-older-said")
        assert_accessible(person.driver, [".older-row"])
        drawn = [json.loads(j) for j in person.driver.execute_script(DETAILS)]
        wanted = [
            {k: r[k] for k in ("command", "events", "data") if k in r} for r in logs[person.name]
        ]
        assert drawn == wanted  # exactly the viewer's records, as the stream would send them
    older = json.dumps(logs[fallen.name][:-50])
    assert '"secret"' in older and older != json.dumps(logs[host.name][:-50])  # W-1 concealed
