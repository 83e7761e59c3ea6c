"""The fight page's log, character cards, header and layout in real browsers (W-23 … W-25).

The Host and the two demo players each have their own headless chromium against a real server,
at the desktop size (1366 × 768) and the phone size (390 × 844): a Strike's roll card reaches
every browser live with its plain sentence and dice chips and reads the same after a reload (one
renderer, W-24); the Host's undo strikes it out; a secret NPC's attack on a player's character
is told truthfully, with no concealed value anywhere in the page (W-25); the cards show Wear, HP,
Falter and AP; the connection badge follows the server; nothing scrolls sideways; axe-core finds
no WCAG 2.1 A/AA violation.
"""

from __future__ import annotations

import json
import tempfile
from typing import Any

import pytest
from a11y import assert_accessible
from fastapi.testclient import TestClient
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from test_web_e2e import (
    FALLEN,
    HOLY,
    WAR,
    LiveServer,
    Seat,
    e2e_fixtures,
    take_suggestions,
)
from test_web_secrets import strife_ambush

from tableside.web.demo import DemoLinks, create_demo

DESKTOP, PHONE = (1366, 768), (390, 844)
SIZES = pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
PAGE_FITS = """
const page = document.documentElement;
return page.scrollWidth <= page.clientWidth + 0.5;
"""
# The visible controls smaller than 44 px high (touch targets), by tag and id or class.
SMALL_TARGETS = """
return [...document.querySelectorAll('button, select, summary, nav a, ' +
    'input:not([type=checkbox]):not([type=radio]):not([type=hidden])')]
  .filter(e => e.offsetParent !== null && e.getBoundingClientRect().height < 43.5)
  .map(e => e.tagName + '#' + e.id + '.' + e.className);
"""
TOP = "return document.querySelector(arguments[0]).getBoundingClientRect().top + scrollY;"
LEFT = "return document.querySelector(arguments[0]).getBoundingClientRect().left;"
BADGE = "return document.getElementById('connection').textContent;"
LIVE_REGION = "const l = document.getElementById('log'); return [l.role, l.ariaLive];"


server, browsers = e2e_fixtures("log", "host", "holy", "fallen")


def seat_up(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver], size: tuple[int, int]
) -> tuple[DemoLinks, Seat, Seat, Seat]:
    """A new demo table; the Host and both players open the War at ``size``."""
    demo = create_demo(server.table)
    host, holy, fallen = (Seat(n, d) for n, d in zip(("Host", HOLY, FALLEN), browsers, strict=True))
    for seat in (host, holy, fallen):
        seat.driver.set_window_size(*size)
    host.driver.get(server.base + demo.host_page)
    for seat in (holy, fallen):
        seat.driver.get(server.base + demo.player_links[seat.name])
        seat.driver.find_element(By.LINK_TEXT, WAR).click()
    for seat in (host, holy, fallen):
        seat.wait("the War", lambda s: s.text("revision") == "9")
        seat.wait("the stream", lambda s: s.driver.execute_script(BADGE) == "Live")
        seat.mark()
    return demo, host, holy, fallen


def fits(seat: Seat) -> bool:
    return bool(seat.driver.execute_script(PAGE_FITS))


@SIZES
def test_w24_a_strikes_roll_card_reaches_every_browser_and_reads_the_same_on_reload(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver], size: tuple[int, int]
) -> None:
    """W-24: the card in plain words with its chips, live in all three browsers, the same card
    after a reload; the Host's undo strikes it out everywhere (issue 12, The log)."""
    _demo, host, holy, fallen = seat_up(server, browsers, size)
    assert fallen.driver.execute_script(LIVE_REGION) == ["log", "polite"]
    fallen.move_to((4, 2, 0))  # from the play panel's buttons (a player has no JSON box)
    fallen.wait("the move", lambda s: s.text("revision") == "10")
    assert fallen.cards()[-1]["say"] == (
        "Jackal spends 4 AP (Move), 3 AP left; Jackal moves to (4, 2, 0), 4″"
    )
    pressed = 'return document.getElementById("act-strike").getAttribute("aria-pressed")'
    fallen.wait("the Strike again", lambda s: s.driver.execute_script(pressed) == "true")
    fallen.driver.find_element(By.ID, "p-path").send_keys("3,2,0")
    aimed = 'return document.getElementById("p-target").value'
    fallen.wait("Watcher aimed at", lambda s: s.driver.execute_script(aimed) == "Watcher")
    fallen.click("roll")
    take_suggestions(holy)  # the Watcher's Obstruction and Adjustments (issue 11, D-8)
    for seat in (host, holy, fallen):
        seat.wait("the Strike", lambda s: s.text("revision") == "13")
        card = seat.cards()[-1]
        assert card["say"].startswith(
            "Jackal strikes Watcher with a Club: 3 Hits, 1 Stop → Watcher takes 10 Wear (E)"
        ), card
        # rolled 11 8 4 9 12 2 4, the defender moved the 12 to 11 (D-8)
        assert card["chips"] == ["hit", "miss", "miss", "hit", "hit adjusted", "stop", "miss"]
        assert card["lines"][1].startswith("11✓ (Hit)8· (Miss)")  # a symbol and a word each
        assert "12→11✓ by Watcher (Hit, adjusted by Watcher)" in card["lines"][1]
        assert "secret" not in " ".join(card["lines"])
        assert seat.combatant("Watcher")["endurance"] == "50"
        assert seat.same_page() and fits(seat), seat.name
    live = holy.cards()
    holy.driver.refresh()
    holy.wait("the reloaded page", lambda s: not s.same_page())
    holy.wait("the log", lambda s: len(s.cards()) == len(live))
    assert holy.cards() == live  # one renderer: the same cards on load as live
    host.driver.find_element(By.ID, "undo").click()
    for seat in (host, holy, fallen):
        seat.wait("the undo", lambda s: s.text("revision") == "14")
        cards = seat.cards()
        assert cards[-1]["say"] == "Undo: Jackal's Strike is taken back"
        assert [c["revision"] for c in cards if c["undone"]] == [11, 12, 13], seat.name
        assert cards[-2]["say"].startswith("Undone: Jackal strikes Watcher")
        assert_accessible(seat.driver)


@SIZES
def test_w25_a_secret_npcs_attack_on_a_players_character_is_told_truthfully(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver], size: tuple[int, int]
) -> None:
    """Issue 12, fix first: the player reads what happened to Aldric's Parry, in words, and no
    concealed value of the secret Brute (HP 4321, AC 83) is anywhere in the page (W-1, W-25)."""
    client = TestClient(server.app)
    eid, host, token, _state = strife_ambush(client)
    player = Seat("Al", browsers[1])
    player.driver.set_window_size(*size)
    player.driver.get(server.base + "/join/" + token["Authorization"].removeprefix("Bearer "))
    player.driver.find_element(By.LINK_TEXT, "Ambush").click()
    player.wait("the fight", lambda s: "Aldric's Turn" in s.text("whose"))
    assert "Realm of Strife — Combat" in player.driver.find_element(By.TAG_NAME, "header").text
    url = f"/api/encounters/{eid}/commands"
    assert client.post(url, headers=host, json={"kind": "next", "args": {}}).status_code == 200
    attack = {"attacker": "Brute", "attacks": [{"defender": "Aldric", "reaction": "parry"}]}
    r = client.post(url, headers=host, json={"kind": "attack", "args": attack})
    assert r.status_code == 200, r.text
    records = client.get(f"/api/encounters/{eid}/log", headers=token).json()["records"]
    event = next(e for e in records[-1]["events"] if e["kind"] == "attack_resolved")
    truth = event["data"]["result"]["reaction"]
    player.wait("the attack", lambda s: s.cards()[-1]["say"].startswith("Brute attacks Aldric"))
    card = player.cards()[-1]
    said = card["say"]
    assert "Aldric's parry " + truth["result"] in said, said
    assert " vs AC 30 " in said  # the player's own AC
    for flag in ("stopped", "disarmed", "item_damaged"):
        assert (flag.replace("_", " ") in said) == (truth[flag] is True), said
    assert "secret" not in " ".join(card["lines"]) and "secret" not in said
    brute = player.combatant("Brute")
    assert brute["hp"] == "unknown" and brute["ac"] == "unknown"
    player.driver.refresh()  # the boot data: the same card, and no concealed value
    player.wait("the reloaded log", lambda s: s.cards() and s.cards()[-1]["say"] == said)
    source = player.driver.page_source
    assert "4321" not in source
    boot = json.loads(player.driver.execute_script("return document.getElementById('boot').text;"))
    assert 4321 not in numbers(boot) and 83 not in numbers(boot)
    assert fits(player)
    assert_accessible(player.driver)


def numbers(value: Any) -> list[Any]:
    """Every number in a JSON value."""
    if isinstance(value, dict):
        return [n for v in value.values() for n in numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in numbers(v)]
    return [value] if isinstance(value, int | float) and not isinstance(value, bool) else []


CHANGED = """
const s = JSON.parse(JSON.stringify(state));
const j = s.combatants.find(c => c.id === 'Jackal');
Object.assign(j, {falter: 2, poison: 3, stance: true, exposed: true, endurance: 45,
  wear: {E: 15, R: 0, P: 0}, timed: [{name: 'Rage', source: 'Passion', ends: null}]});
show(s);
"""
READ_CARD = """
const c = document.querySelector('#cards > li[data-combatant="' + arguments[0] + '"]');
return {text: c.innerText, mine: c.classList.contains('mine'),
  first: c === document.querySelector('#cards > li'),
  width: c.querySelector('.fill') && c.querySelector('.fill').style.width};
"""


def test_the_cards_show_wear_falter_ap_and_the_viewers_own_first(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 12, The rest of the page: Wear bars with numbers, Status, Falter, Poison, AP,
    Stance, conditions and timed effects with when they end; empty fields hidden; mine first."""
    _demo, _host, _holy, fallen = seat_up(server, browsers, DESKTOP)
    jackal = fallen.combatant("Jackal")
    assert jackal["endurance"] == "60" and jackal["ap"] == "7" and jackal["status"] == "normal"
    assert "falter" not in jackal and "poison" not in jackal and "stance" not in jackal
    assert fallen.driver.execute_script(READ_CARD, "Warrior")["first"]  # the fallen player's
    assert not fallen.driver.execute_script(READ_CARD, "Watcher")["mine"]
    fallen.driver.execute_script(CHANGED)
    jackal = fallen.combatant("Jackal")
    assert (jackal["falter"], jackal["poison"], jackal["stance"]) == ("2", "3", "true")
    card = fallen.driver.execute_script(READ_CARD, "Jackal")
    assert "45 / 60" in card["text"] and card["width"] == "75%"
    assert "Exposed" in card["text"] and "Rage (Passion), until its next Turn" in card["text"]
    assert "Turn now" in card["text"] and card["mine"]


def test_w23_the_phone_page_is_one_column_play_first_with_touch_sized_controls(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Mobile first: at 390 × 844 the map, the play panel (its bottom sheet), the cards and the
    log follow one another (W-60), nothing scrolls sideways, and every control is at least 44 px
    high; at 1366 × 768 the map is the left column, the play panel, cards and log the right."""
    _demo, _host, _holy, fallen = seat_up(server, browsers, PHONE)
    tops = [fallen.driver.execute_script(TOP, s) for s in ("#map", "#play", "#cards", "#log")]
    assert tops == sorted(tops), tops
    assert fits(fallen) and fallen.driver.execute_script(SMALL_TARGETS) == []
    fallen.driver.set_window_size(*DESKTOP)
    fallen.wait("two columns", lambda s: s.driver.execute_script(LEFT, "#characters") > 600)
    assert fallen.driver.execute_script(LEFT, "#map") < 100 and fits(fallen)
    assert fallen.driver.execute_script(LEFT, "#play") > 600


def test_the_connection_badge_follows_the_server(browsers: tuple[WebDriver, ...]) -> None:
    """Issue 12: the badge says Live, then Reconnecting… and Offline when the server stops."""
    host = Seat("Host", browsers[0])
    with tempfile.TemporaryDirectory() as tmp:
        live = LiveServer(f"sqlite:///{tmp}/badge.db").__enter__()
        try:
            demo = create_demo(live.table)
            host.driver.get(live.base + demo.host_page)
            host.wait("the stream", lambda s: s.driver.execute_script(BADGE) == "Live")
        finally:
            live.__exit__(None, None, None)
        host.wait("the lost stream", lambda s: s.driver.execute_script(BADGE) != "Live")
        assert host.driver.execute_script(BADGE) in ("Reconnecting…", "Offline: still trying")
        host.wait("offline", lambda s: s.driver.execute_script(BADGE).startswith("Offline"))
