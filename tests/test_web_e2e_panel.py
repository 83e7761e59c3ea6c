"""The play panel end to end (issue 12): a War Cycle and a Realm of Strife round from its buttons.

The Host and two players each have their own headless chromium against a real server, at the
desktop size (1366 × 768) and at the phone size (390 × 844). Nobody types JSON: every command
comes from the panel's buttons and pickers. The panel follows the live Turn (its heading and the
tab's title, W-17), aims at the nearest enemy (W-17), shows each action's cost before it is sent
(W-18), resets its options after every command (W-18) and speaks odds in plain words, or says
why a player gets none (W-19). Its parts are checked with axe-core (tests/a11y.py).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import pytest
from a11y import assert_accessible
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select
from test_web_e2e import (
    FALLEN,
    HOLY,
    PANELS,
    WAR,
    LiveServer,
    e2e_fixtures,
)
from test_web_e2e_decisions import DESKTOP, PHONE, Person

from tableside.encounter.log import Command
from tableside.store import table_audience
from tableside.web.auth import Principal
from tableside.web.demo import create_demo

SIZES = {"desktop": DESKTOP, "phone": PHONE}
# the panel's controls smaller than a fingertip (44 × 44 px; a checkbox counts by its label)
SMALL = """
return [...document.querySelectorAll(
    '#play-panel button, #play-panel select, #play-panel input, #play-panel summary')]
  .filter(e => e.offsetParent !== null)
  .map(e => e.type === 'checkbox' ? e.closest('label') : e)
  .filter(e => { const r = e.getBoundingClientRect(); return r.height < 44 || r.width < 44; })
  .map(e => e.tagName + '#' + e.id);
"""
# the panel's controls with no name a screen reader could say
UNLABELLED = """
return [...document.querySelectorAll('#play-panel select, #play-panel input')]
  .filter(e => !e.labels || e.labels.length === 0).map(e => e.id);
"""
# the panel's checkboxes whose words start on a line below the box (a label that wrapped)
BESIDE = """
return [...document.querySelectorAll('#play-panel label.check')]
  .filter(l => l.offsetParent !== null)
  .filter(l => {
    const box = l.querySelector('input[type=checkbox]').getBoundingClientRect();
    const words = document.createRange(); words.selectNodeContents(l);
    words.setStartAfter(l.querySelector('input[type=checkbox]'));
    const first = [...words.getClientRects()].find(r => r.width > 0);
    return first && first.top >= box.bottom;
  }).map(l => l.textContent.trim());
"""
# the character cards' values with no bar that wrapped onto a second line (e.g. "Long Sword")
WRAPPED = """
return [...document.querySelectorAll('#cards .field .value:last-child')]
  .filter(v => v.getBoundingClientRect().height >
    1.5 * v.previousElementSibling.getBoundingClientRect().height)
  .map(v => v.textContent);
"""
FITS = """
const page = document.documentElement, panel = document.getElementById('play-panel');
return page.scrollWidth <= page.clientWidth + 0.5 &&
  panel.getBoundingClientRect().right <= window.innerWidth + 0.5;
"""


class Player(Person):
    """A seat that plays from the panel only."""

    def value(self, element_id: str) -> str:
        return str(self.find(element_id).get_attribute("value") or "")

    def title(self) -> str:
        return str(self.driver.title)

    def pick(self, select_id: str, value: str) -> None:
        self.wait(f"{value} in {select_id}", lambda s: value in s.choices(select_id))
        Select(self.find(select_id)).select_by_value(value)

    def choices(self, select_id: str) -> list[str]:
        return [o.get_attribute("value") or "" for o in Select(self.find(select_id)).options]

    def acting(self, who: str) -> None:
        self.wait(f"{who} acting", lambda s: s.value("p-actor") == who)

    def revision(self) -> int:
        return int(self.driver.execute_script("return state.revision;"))

    def fits(self) -> bool:
        return bool(self.driver.execute_script(FITS))

    def check_the_panel(self) -> None:
        """Nothing sideways, fingertip-sized controls, a label on every one (a checkbox beside its
        words), axe-core clean."""
        assert self.fits(), f"{self.name}'s page scrolls sideways"
        assert self.driver.execute_script(SMALL) == []
        assert self.driver.execute_script(UNLABELLED) == []
        assert self.driver.execute_script(BESIDE) == []  # each box on its words' first line
        assert_accessible(self.driver, ["#play-panel"])


server, browsers = e2e_fixtures("panel", "host", "holy", "fallen", axe=True)


def seats(browsers: tuple[WebDriver, WebDriver, WebDriver], size: str) -> list[Player]:
    found = [Player(n, d) for n, d in zip(("Host", HOLY, FALLEN), browsers, strict=True)]
    for seat in found:
        seat.size(SIZES[size])
    return found


ANSWER = """
const panel = document.querySelector('#decision-panels .decision');
if (!panel) return false;
const b = panel.querySelector('.options button.suggested') ||
  panel.querySelector('.options button');
if (!b) return false;
b.click(); return true;
"""


def answer_all(seat: Player, count: int) -> None:
    """``seat`` answers ``count`` decisions, each with its suggestion (or its first option)."""
    for left in range(count, 0, -1):
        seat.wait("a decision", script_is(PANELS, left))
        seat.wait("a button to press", lambda s: s.driver.execute_script(ANSWER))
        seat.wait("the answer taken", script_is(PANELS, left - 1))


def script_is(script: str, value: object) -> Callable[[Any], bool]:
    """A wait's check: the page's ``script`` returns ``value``."""
    return lambda s: bool(s.driver.execute_script(script) == value)


def text_starts(element_id: str, start: str) -> Callable[[Any], bool]:
    """A wait's check: the element's text starts with ``start`` (the tab's title: ``title``)."""
    if element_id == "title":
        return lambda s: str(s.driver.title).startswith(start)
    return lambda s: str(s.text(element_id)).startswith(start)


def since(seat: Player, revision: int) -> float:
    """Seconds until ``seat``'s page shows a revision after ``revision`` (click to screen)."""
    start = time.monotonic()
    seat.wait("the new record", lambda s: s.revision() > revision)
    return time.monotonic() - start


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_w17_w18_a_war_cycle_from_the_buttons(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver], size: str
) -> None:
    """W-17, W-18: Strike, Move, Stance, Rest and End the Turn through a whole Cycle."""
    host, holy, fallen = seats(browsers, size)
    demo = create_demo(server.table)
    host.driver.get(server.base + demo.host_page)
    for seat in (holy, fallen):
        seat.driver.get(server.base + demo.player_links[seat.name])
        seat.driver.find_element(By.LINK_TEXT, WAR).click()
    everyone = (host, holy, fallen)
    for seat in everyone:
        seat.wait("the panel", lambda s: s.choices("p-actor") != [])
    # W-17: the Turn is the fallen player's (Jackal's), by name elsewhere
    fallen.wait("its Turn", lambda s: s.text("turn-head") == "Your Turn — Jackal, 7 AP")
    assert fallen.title().startswith("Your Turn — Jackal, 7 AP")
    for seat in (host, holy):
        seat.wait("Jackal's Turn", lambda s: s.title().startswith("Jackal's Turn"))
    assert not holy.driver.find_elements(By.ID, "kind")  # no JSON box for a player
    assert host.driver.find_elements(By.ID, "kind")  # the Host's advanced tool
    fallen.acting("Jackal")
    # W-17: the nearest enemy, though an ally (the Warrior, 2" away) is nearer
    fallen.wait("the nearest enemy", lambda s: s.value("p-target") == "Watcher")
    assert "ally" in Select(fallen.find("p-target")).options[0].text
    assert "Speed" in fallen.text("p-values") and "Guard" in fallen.text("p-values")
    fallen.check_the_panel()
    # Move: its AP shown before it is sent (W-18)
    fallen.click("act-move")
    for axis, value in zip("xyz", (4, 2, 0), strict=True):
        fallen.type(f"q-{axis}", str(value))
    fallen.wait("the Move's cost", lambda s: s.text("move-cost") == "(4 AP)")
    before = holy.revision()
    fallen.click("q-move")
    seconds = since(holy, before)
    fallen.wait("3 AP left", lambda s: s.text("turn-head") == "Your Turn — Jackal, 3 AP")
    # Strike with a Maneuver: the odds in words, the cost, then every option reset (W-18)
    fallen.wait("Strike chosen again", lambda s: s.find("act-strike").get_attribute(
        "aria-pressed") == "true")  # fmt: skip
    box = fallen.driver.find_element(By.CSS_SELECTOR, "#p-maneuvers input[value='Piercing Thrust']")
    fallen.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", box)
    box.click()
    fallen.type("p-path", "3,2,0")
    fallen.wait("the odds", lambda s: " to deal Wear, " in s.text("odds-summary"))
    fallen.wait("the Strike's AP", lambda s: s.text("roll-cost") == "(3 AP)")
    fallen.click("roll")
    answer_all(holy, 2)  # the Watcher's Obstruction and Adjustments (issue 11, D-8)
    for seat in everyone:
        seat.wait("the Strike", lambda s: any("Jackal → Watcher" in x for x in s.log()))
    assert not box.is_selected() and fallen.value("p-path") == ""
    fallen.click("q-next")
    # the Watcher's Turn: Stance and Rest from the holy player's buttons
    holy.wait("its Turn", lambda s: s.title().startswith("Your Turn — Watcher, 7 AP"))
    fallen.wait("the Watcher's Turn", lambda s: s.title().startswith("Watcher's Turn"))
    holy.acting("Watcher")
    holy.click("act-stance")
    holy.click("q-stance")
    holy.wait("in stance", lambda s: "Leave Defensive Stance" in s.text("q-stance"))
    holy.click("act-rest")
    holy.type("q-ap", "2")
    holy.wait("the Rest's cost", lambda s: s.text("cost-rest") == "(2 AP)")
    holy.click("q-rest")
    holy.wait("5 AP left", lambda s: s.text("turn-head") == "Your Turn — Watcher, 5 AP")
    assert holy.value("q-ap") == "1"  # reset (W-18)
    holy.check_the_panel()
    # the rest of the Cycle: each Turn ended by whoever plays it
    plays = {**dict.fromkeys(("Herald", "Watcher", "Guardian", "Messenger"), holy),
             **dict.fromkeys(("Warrior", "Jackal", "Deceiver", "Brute"), fallen)}  # fmt: skip
    host_view = Principal(demo.table_id, None)
    while (now := server.table.state(demo.encounter_id, host_view))["cycle"] == 1:
        who, turn = now["current"], now["turn"]
        seat = plays[who]
        seat.wait(f"{who}'s Turn", text_starts("turn-head", f"Your Turn — {who}"))
        seat.acting(who)
        seat.click("q-next")
        host.wait("the next Turn", script_is(f"return state.turn !== {turn};", True))
    for seat in everyone:
        seat.wait("Cycle 2", lambda s: s.driver.execute_script("return state.cycle;") == 2)
        assert seat.text("error") == ""
    host.check_the_panel()
    print(f"\n{size}: Move click to the other player's screen {1000 * seconds:.0f} ms")


def fight(server: LiveServer) -> tuple[int, int, str, dict[str, str]]:
    """Aldric (the holy player's) and Sera (the fallen player's) against a Cave Troll (NPC)."""
    web = server.table
    table_id, host_token = web.create_table("Troll bridge")
    who = Principal(table_id, None)
    info = web.create_encounter(who, table_id, "strife-combat", "The troll", 5)
    roster: list[dict[str, Any]] = [
        {"id": "Aldric", "model": "Aldric", "side": "heroes"},
        {"id": "Sera", "model": "Sera", "side": "heroes", "position": [0, 6, 0]},
        {"id": "Troll", "model": "Cave Troll", "side": "monsters", "position": [1, 0, 0]},
    ]
    for args in roster:
        web.execute(who, info.id, Command("add", args), None)
    web.set_settings(who, info.id, {"npcs_decide": "auto"})  # the Troll decides by itself
    links = {}
    for name, chars in ((HOLY, ("Aldric",)), (FALLEN, ("Sera",))):
        _seat, token = web.add_player(who, table_id, name, chars)
        links[name] = token
    return table_id, info.id, host_token, links


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_w17_w19_a_realm_of_strife_round_from_the_buttons(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver], size: str
) -> None:
    """W-17 … W-19: the Host starts the fight; Attack, Move, Cast, Disengage, End the Turn."""
    host, holy, fallen = seats(browsers, size)
    table_id, eid, host_token, links = fight(server)
    page = f"{server.base}/tables/{table_id}/encounters/{eid}"
    host.driver.get(f"{page}?token={host_token}")
    for seat in (holy, fallen):
        seat.driver.get(f"{page}?token={links[seat.name]}")
    for seat in (host, holy, fallen):
        seat.wait("the panel", lambda s: s.choices("p-actor") != [])
        seat.wait("not started", lambda s: s.text("turn-head") == "The fight has not started")
    host.driver.find_element(By.CSS_SELECTOR, "#host-tools summary").click()  # the Host's tools
    host.click("h-start")
    host.wait("started", lambda s: s.text("turn-head") != "The fight has not started")
    assert host.driver.execute_script(WRAPPED) == []  # a card's Weapons on one line
    state = server.table.state
    order = state(eid, Principal(table_id, None))["order"]
    plays = {"Aldric": holy, "Sera": fallen, "Troll": host}
    for who in order:
        seat = plays[who]
        seat.wait(f"{who}'s Turn", text_starts("title", f"Your Turn — {who}"))
        seat.acting(who)
        if who == "Aldric":  # Attack: the nearest enemy; no odds on a secret NPC, and why (W-19)
            seat.wait("the Troll aimed at", lambda s: s.value("p-target") == "Troll")
            seat.wait("why no odds", lambda s: "its values are secret" in s.text("odds-summary"))
            assert seat.text("cost-attack") == "(Action)"
            assert "AC" in seat.text("p-values") and "Dodge" in seat.text("p-values")
            seat.find("p-precision").click()
            seat.click("roll")
            seat.wait(
                "the attack",
                lambda s: any(x.startswith("attack_resolved Aldric → ") for x in s.log()),
            )
            assert not seat.find("p-precision").is_selected()  # reset (W-18)
            seat.wait("the Action used", lambda s: s.text("cost-attack") == "(Action (used))")
        elif who == "Sera":  # Move, then Cast a power of the catalogue
            seat.click("act-move")
            seat.type("q-y", "5")
            seat.wait("the Move's cost", lambda s: s.text("move-cost").startswith("(Move, 1.0"))
            seat.click("q-move")
            seat.wait("the Move used", lambda s: s.text("cost-move").startswith("(Move (used)"))
            seat.click("act-cast")
            seat.pick("q-power", "Arcane Missile")
            seat.wait("the Cast's cost", lambda s: s.text("cast-cost") == "(Action, 2 Spirit)")
            assert seat.value("p-target") == "Troll"
            seat.click("q-cast")
            seat.wait("the cast", lambda s: any("Arcane Missile" in x for x in s.log()))
        else:  # the Host's Troll Disengages from Aldric
            seat.click("act-move")
            seat.type("q-x", "2.5")
            seat.click("act-disengage")
            seat.wait("its cost", lambda s: s.text("cost-disengage") == "(Action)")
            seat.click("q-disengage")
            where = "return rowsOf(state).find(r => r.id === 'Troll').position[0];"
            seat.wait("the Troll away", script_is(where, 2.5))
        seat.check_the_panel()
        seat.click("q-next")
    for seat in (host, holy, fallen):
        seat.wait("round 2", lambda s: s.driver.execute_script("return state.round;") == 2)
        assert seat.text("error") == ""
    troll = state(eid, Principal(table_id, None))["models"][2]
    assert troll["hp"] < 60 and math.isclose(troll["position"][0], 2.5)
    assert table_audience.hidden_seqs(server.table.store, eid) == frozenset()


def test_w17_the_map_s_events_drive_the_panel(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """W-17: ``tableside:target`` sets the target, ``tableside:move`` sends a Move, and the
    panel announces the acting character with ``tableside:actor``."""
    _host, _holy, fallen = seats(browsers, "desktop")
    demo = create_demo(server.table)
    fallen.driver.get(server.base + demo.player_links[FALLEN])
    fallen.driver.find_element(By.LINK_TEXT, WAR).click()
    fallen.acting("Jackal")
    heard: Any = fallen.driver.execute_script(
        "window.heard = []; document.addEventListener('tableside:actor', "
        "e => window.heard.push(e.detail.id)); return window.heard;"
    )
    assert heard == []
    fallen.pick("p-actor", "Warrior")
    fallen.wait("the actor announced", lambda s: s.driver.execute_script(
        "return window.heard;") == ["Warrior"])  # fmt: skip
    fallen.pick("p-actor", "Jackal")
    fallen.driver.execute_script("document.dispatchEvent(new CustomEvent('tableside:target', "
                                 "{detail: {id: 'Herald'}}));")  # fmt: skip
    fallen.wait("the Herald aimed at", lambda s: s.value("p-target") == "Herald")
    fallen.driver.execute_script("document.dispatchEvent(new CustomEvent('tableside:move', "
                                 "{detail: {id: 'Jackal', to: [6, 2, 0]}}));")  # fmt: skip
    fallen.wait("the move", lambda s: s.text("turn-head") == "Your Turn — Jackal, 5 AP")
    assert server.table.store.encounter(demo.encounter_id).revision == 10
