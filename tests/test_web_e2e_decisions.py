"""Decisions on the page end to end (issue 11): each choice made by its owner, in its own browser.

The Host and two players each have their own headless chromium against a real server. The
demo War (seed 7): the fallen player plays Jackal, the holy player the Watcher. A Realm of
Strife fight of our own: the holy player's Aldric, the fallen player's Sera and a Goblin that no
seat plays (an NPC, the Host's). Every page is checked with axe-core (tests/a11y.py), and the
pages at the phone size (390 × 844) for sideways overflow of the decisions' parts.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from a11y import assert_accessible, axe_source
from selenium.common.exceptions import ElementNotInteractableException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select
from test_web_e2e import FALLEN, HOLY, WAIT, WAR, LiveServer, Seat, browser_paths, chromiums

from tableside.encounter.log import Command
from tableside.store import table_audience
from tableside.web.auth import Principal
from tableside.web.demo import create_demo

DESKTOP, PHONE = (1366, 768), (390, 844)
READ_PANELS = """
return [...document.querySelectorAll('#decision-panels .decision')].map(d => ({
  kind: d.dataset.kind, title: d.querySelector('h3').textContent,
  prompt: d.querySelector('.prompt').textContent,
  dice: [...d.querySelectorAll('.dice')].map(p => p.textContent),
  buttons: [...d.querySelectorAll('.options button')].map(b => b.textContent),
  suggested: [...d.querySelectorAll('.options button.suggested')].map(b => b.textContent),
  note: [...d.querySelectorAll('.note')].map(p => p.textContent).join(' ')}));
"""
FIND = """
const [kind, start] = arguments;
const panel = document.querySelector('#decision-panels .decision[data-kind="' + kind + '"]');
if (!panel) return null;
return [...panel.querySelectorAll('.options button')].find(
  x => [].concat(start).some(s => x.textContent.startsWith(s))) || null;
"""
OVERFLOW = """
return [...document.querySelectorAll(
    '#decisions, #decisions *, #settings, .modifiers, #decision-status')]
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
  .map(e => e.tagName + '#' + e.id + '.' + e.className);
"""


PAGE_FITS = """
const page = document.documentElement;
return page.scrollWidth <= page.clientWidth + 0.5;
"""


class Person(Seat):
    def wait(self, what: str, check: Callable[[Any], Any]) -> None:
        """Seat.wait with a check that reads this Person's helpers."""
        super().wait(what, check)

    def find(self, element_id: str) -> Any:
        return self.driver.find_element(By.ID, element_id)

    def type(self, element_id: str, text: str) -> None:
        box = self.find(element_id)
        box.clear()
        box.send_keys(text)

    def panels(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.driver.execute_script(READ_PANELS)
        return found

    def choose(self, kind: str, start: str | tuple[str, ...]) -> None:
        """Answer a decision as a person would: focus its button, press Enter (the keyboard)."""

        def press(seat: Person) -> bool:
            button = seat.driver.execute_script(FIND, kind, list(start) if isinstance(
                start, tuple) else start)  # fmt: skip
            if button is None:
                return False
            try:
                button.send_keys(Keys.ENTER)  # focus and Enter: a keyboard user's answer
            except ElementNotInteractableException:
                return False  # being replaced: look again
            return True

        self.wait(f"the {kind} option {start!r} answered", press)

    def click_apply(self) -> None:
        """The Apply of the Host's card (its questions' picks sent together, issue 21)."""
        button = self.driver.find_element(By.CSS_SELECTOR, ".decision-card .apply")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
        button.click()

    def size(self, width_height: tuple[int, int]) -> None:
        self.driver.set_window_size(*width_height)

    def overflow(self) -> list[str]:
        found: list[str] = self.driver.execute_script(OVERFLOW)
        return found

    def page_fits(self) -> bool:
        """Issue 12: the whole page never scrolls sideways (wide tables scroll in their box)."""
        fits: bool = self.driver.execute_script(PAGE_FITS)
        return fits


@dataclass
class Table:
    server: LiveServer
    table_id: int
    war: int
    host: Person
    holy: Person  # Herald, Watcher, Guardian, Messenger (War); Aldric (fight)
    fallen: Person  # Warrior, Jackal, Deceiver, Brute (War); Sera (fight)

    @property
    def everyone(self) -> tuple[Person, Person, Person]:
        return (self.host, self.holy, self.fallen)


@pytest.fixture(scope="module")
def browsers() -> Iterator[tuple[WebDriver, WebDriver, WebDriver]]:
    axe_source()
    with chromiums("host", "holy", "fallen") as drivers:
        for driver in drivers:
            driver.set_window_size(*DESKTOP)
        yield drivers[0], drivers[1], drivers[2]


@pytest.fixture
def db() -> Iterator[str]:
    browser_paths()
    with tempfile.TemporaryDirectory() as tmp:
        yield f"sqlite:///{tmp}/decisions.db"


@pytest.fixture
def server(db: str) -> Iterator[LiveServer]:
    with LiveServer(db) as live:
        yield live


def seat_up(server: LiveServer, browsers: tuple[WebDriver, ...]) -> Table:
    """The demo table; the Host and both players open the War's page in their own browser."""
    demo = create_demo(server.table)
    host, holy, fallen = (Person(n, d) for n, d in zip(("Host", HOLY, FALLEN), browsers,
                                                       strict=True))  # fmt: skip
    for seat in (host, holy, fallen):
        seat.size(DESKTOP)
    host.driver.get(server.base + demo.host_page)
    for seat in (holy, fallen):
        seat.driver.get(server.base + demo.player_links[seat.name])
        seat.driver.find_element(By.LINK_TEXT, WAR).click()
    for seat in (host, holy, fallen):
        seat.wait("the War", lambda s: s.text("revision") == "9")
        seat.wait("no decision", lambda s: s.text("waiting").startswith("Nobody is deciding"))
    return Table(server, demo.table_id, demo.encounter_id, host, holy, fallen)


def jackal_strikes_watcher(fallen: Person, boon: int = 0) -> None:
    """The fallen player closes in with Jackal and Strikes the Watcher from the page."""
    fallen.wait("the pickers", lambda s: "Jackal" in options(s, "p-actor"))
    Select(fallen.find("p-actor")).select_by_value("Jackal")
    fallen.move_to((4, 2, 0))
    fallen.wait("the move", lambda s: s.text("revision") == "10")
    fallen.wait("the Watcher in reach", lambda s: "Watcher" in options(s, "p-target"))
    Select(fallen.find("p-target")).select_by_value("Watcher")
    fallen.type("p-path", "3,2,0")
    if boon:
        fallen.type("p-boon", str(boon))
    fallen.find("roll").click()


def options(seat: Person, select_id: str) -> list[str]:
    return [o.get_attribute("value") or "" for o in Select(seat.find(select_id)).options]


def take_the_watchers_choices(holy: Person) -> None:
    """The holy player answers the Watcher's Obstruction (none) and Adjustments (best)."""
    holy.wait("the Obstruction", lambda s: any(p["kind"] == "obstruction" for p in s.panels()))
    holy.choose("obstruction", "No Obstruction token")  # issue 21: plain words
    holy.wait("the Adjustments", lambda s: any(p["kind"] == "adjustments" for p in s.panels()))
    holy.choose("adjustments", "Best for Watcher")


def resolved(seat: Person) -> bool:
    return any(line.startswith("strike_resolved Jackal → Watcher") for line in seat.log())


def test_d8_the_defenders_player_chooses_the_adjustments_on_their_own_screen(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """M-10, M-13, D-8: the Watcher has the surplus, so its player chooses its Adjustments."""
    table = seat_up(server, browsers)
    holy, fallen, host = table.holy, table.fallen, table.host
    jackal_strikes_watcher(fallen)
    fallen.wait("its Strike waiting", lambda s: "waits for" in s.text("decision-status"))
    for seat in table.everyone:
        seat.wait("the banner", lambda s: "aiting for Watcher's Adjustments" in s.text("waiting"))
        assert "The holy player" in seat.text("waiting")
    assert fallen.panels() == []  # not the Striker's choice
    holy.wait("both panels", lambda s: len(s.panels()) == 2)
    adjust = next(p for p in holy.panels() if p["kind"] == "adjustments")
    assert adjust["title"] == "Your decision: Watcher's Adjustments"
    assert adjust["dice"][0].startswith("Dice rolled")
    # issue 21: the options in the game's words, never JSON
    assert [b.split(":")[0].removesuffix(" (suggested)") for b in adjust["buttons"]] == [
        "Best for Watcher", "No Adjustments", "Choose dice…"]  # fmt: skip
    assert adjust["suggested"] and adjust["suggested"][0].startswith("Best for Watcher")
    assert all("final dice:" in d for d in adjust["dice"][1:]) and len(adjust["dice"]) >= 3
    host.wait("the Host's view of every decision", lambda s: len(s.panels()) == 2)
    assert host.panels()[0]["title"].startswith("Answer for Watcher's player")
    assert_accessible(holy.driver)
    take_the_watchers_choices(holy)
    for seat in table.everyone:
        seat.wait("the Strike", resolved)
        seat.wait("the banner cleared", lambda s: s.text("waiting").startswith("Nobody"))
        assert any(" by a player, resolved" in line for line in seat.log())
    assert table.server.table.store.encounter(table.war).revision == 13  # move, request, 2 answers


def test_d4_a_players_boon_is_proposed_and_the_host_approves_it_at_phone_size(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """D-4: a player's Boon 1 is a proposal; it applies once the Host approves it."""
    table = seat_up(server, browsers)
    holy, fallen, host = table.holy, table.fallen, table.host
    for seat in table.everyone:
        seat.size(PHONE)
    assert "propose to the Host" in fallen.text("p-modifiers-set")
    assert not host.driver.find_elements(By.ID, "propose-note")
    jackal_strikes_watcher(fallen, boon=1)
    fallen.wait("the proposal waiting", lambda s: "the Host's approval" in s.text(
        "decision-status"))  # fmt: skip
    host.wait("the approval", lambda s: any(p["kind"] == "approve" for p in s.panels()))
    approve = next(p for p in host.panels() if p["kind"] == "approve")
    assert approve["title"] == "Approve boon 1?"  # issue 21: what is proposed, in the title
    assert "Jackal's Strike on Watcher proposes boon 1" in approve["prompt"]
    assert "boon 1" in approve["prompt"] and approve["buttons"][0].startswith("Approve boon 1")
    for seat in table.everyone:
        assert seat.overflow() == [], seat.name
        assert seat.page_fits(), seat.name
        assert_accessible(seat.driver)
    host.choose("approve", "Approve")
    host.click_apply()  # issue 21: the Host's card sends its answers with one Apply
    take_the_watchers_choices(holy)
    for seat in table.everyone:
        seat.wait("the Strike", resolved)
    # the Strike no longer waits: the line that said so goes (D-3)
    fallen.wait("no stale waiting line", lambda s: s.text("decision-status") == "")
    log = host.log()
    at = next(i for i, x in enumerate(log) if x.startswith("strike_resolved Jackal → Watcher"))
    assert any(x.startswith("Boon/Bane +1: discarded ") for x in log[at:])  # the Boon applied


def test_d5_a_deadline_passes_and_the_suggestion_is_taken(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """D-5: the Host sets 5 s to decide on the page; nobody answers; the suggestions stand."""
    table = seat_up(server, browsers)
    host, fallen, holy = table.host, table.fallen, table.holy
    host.driver.find_element(By.CSS_SELECTOR, "#settings summary").click()
    host.type("s-timeout", "5")
    Select(host.find("s-npcs")).select_by_value("ask")
    Select(host.find("s-hidden")).select_by_value("host")  # issue 21: the Host decides hidden
    host.find("s-save").click()
    host.wait("the settings saved", lambda s: s.text("s-saved") == "Saved.")
    settings = table_audience.decision_settings(table.server.table.store, table.war)
    assert settings.decision_timeout == 5
    assert settings.hidden_asks == "host"
    assert_accessible(host.driver)
    jackal_strikes_watcher(fallen)
    holy.wait("the countdown", lambda s: " s left" in s.text("waiting"))
    started = time.monotonic()
    for seat in table.everyone:
        seat.wait("the Strike by the deadline", resolved)
        assert any("by the deadline: the suggestion" in line for line in seat.log())
    assert time.monotonic() - started < WAIT
    assert holy.panels() == []


def test_d2_a_pending_decision_survives_a_restart_and_the_page_shows_it_again(
    db: str, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """D-2: the server stops while the Watcher's choice is pending; after it starts again on
    the same store the page shows the same decision, and answering it resolves the Strike."""
    with LiveServer(db) as first:
        table = seat_up(first, browsers)
        jackal_strikes_watcher(table.fallen)
        table.holy.wait("both panels", lambda s: len(s.panels()) == 2)
        before = table.holy.panels()
        paths = {s.name: s.driver.current_url.removeprefix(first.base) for s in table.everyone}
    with LiveServer(db) as second:
        assert second.base != first.base
        for seat in table.everyone:
            seat.driver.get(second.base + paths[seat.name])
            seat.wait("the banner again", lambda s: "Waiting for Watcher's" in s.text("waiting"))
        table.holy.wait("the panels again", lambda s: s.panels() == before)
        take_the_watchers_choices(table.holy)
        for seat in table.everyone:
            seat.wait("the Strike", resolved)


# -- Realm of Strife: an NPC attacks a player's model, who parries on their own screen -------


def strife_table(server: LiveServer, holy: Person, fallen: Person, host: Person) -> int:
    """A fight: the holy player's Aldric, the fallen player's Sera, an NPC Goblin on its Turn."""
    web = server.table
    table_id, host_token = web.create_table("Mill")
    who = Principal(table_id, None)
    info = web.create_encounter(who, table_id, "strife-combat", "Goblin at the mill", 5)
    roster: list[dict[str, Any]] = [
        {"id": "Aldric", "model": "Aldric", "side": "heroes"},
        {"id": "Sera", "model": "Sera", "side": "heroes", "position": [0, 2, 0]},
        {"id": "Goblin", "model": "Goblin", "side": "monsters", "position": [1, 0, 0]},
    ]
    for args in roster:
        web.execute(who, info.id, Command("add", args), None)
    web.execute(who, info.id, Command("start", {}), None)
    for _ in range(3):
        if web.state(info.id, who)["current"] == "Goblin":
            break
        web.execute(who, info.id, Command("next", {}), None)
    assert web.state(info.id, who)["current"] == "Goblin"
    links = {}
    for name, chars in ((HOLY, ("Aldric",)), (FALLEN, ("Sera",))):
        _seat, token = web.add_player(who, table_id, name, chars)
        links[name] = token
    page = f"/tables/{table_id}/encounters/{info.id}"
    host.driver.get(f"{server.base}{page}?token={host_token}")
    for seat in (holy, fallen):
        seat.driver.get(f"{server.base}{page}?token={links[seat.name]}")
    return info.id


def test_d7_an_npc_attacks_and_the_defenders_player_chooses_parry(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """S-4, S-10 … S-13, D-7: the Goblin (the Host's) attacks Aldric; Aldric's player parries."""
    host, holy, fallen = (Person(n, d) for n, d in zip(("Host", HOLY, FALLEN), browsers,
                                                       strict=True))  # fmt: skip
    for seat in (host, holy, fallen):
        seat.size(PHONE if seat is holy else DESKTOP)
    fight = strife_table(server, holy, fallen, host)
    table_audience.set_secret(
        server.table.store, fight, "Goblin", False
    )  # the odds follow its values
    for seat in (host, holy, fallen):
        seat.wait("the fight", lambda s: "Goblin's Turn" in s.text("whose"))
    host.wait("the pickers", lambda s: "Goblin" in options(s, "p-actor"))
    Select(host.find("p-actor")).select_by_value("Goblin")
    host.wait("the target", lambda s: "Aldric" in options(s, "p-target"))
    Select(host.find("p-target")).select_by_value("Aldric")
    host.find("roll").click()
    for seat in (host, holy, fallen):
        seat.wait("the banner", lambda s: "Waiting for Aldric's Reaction" in s.text("waiting"))
    holy.wait("the Reaction", lambda s: any(p["kind"] == "reaction" for p in s.panels()))
    reaction = next(p for p in holy.panels() if p["kind"] == "reaction")
    parry = next(b for b in reaction["buttons"] if b.startswith("Parry"))
    assert " % to be hit" in parry
    assert any(b.startswith("No Reaction") or b.startswith("no Reaction")
               for b in reaction["buttons"])  # fmt: skip
    assert len(reaction["suggested"]) == 1
    assert fallen.panels() == []  # Sera's player has nothing to decide
    assert holy.overflow() == [] and holy.page_fits()
    assert_accessible(holy.driver)
    holy.choose("reaction", "Parry")
    for seat in (host, holy, fallen):
        seat.wait("the attack", lambda s: any(x.startswith("parry with ") for x in s.log()))
        seat.wait("the banner cleared", lambda s: s.text("waiting").startswith("Nobody"))
    assert table_audience.hidden_seqs(server.table.store, fight) == frozenset()


def test_d6_the_roller_enters_the_dice_of_its_stage(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """D-6: physical dice stage by stage: Aldric's player types the d20 of Aldric's Parry."""
    host, holy, fallen = (Person(n, d) for n, d in zip(("Host", HOLY, FALLEN), browsers,
                                                       strict=True))  # fmt: skip
    strife_table(server, holy, fallen, host)
    for seat in (host, holy):
        seat.wait("the fight", lambda s: "Goblin's Turn" in s.text("whose"))
    parry = {"defender": "Aldric", "reaction": "parry"}  # the Host may decide anything (D-4)
    attack = {"attacker": "Goblin", "attacks": [parry], "physical": ["Aldric"]}
    host.send("attack", json.dumps(attack))  # the Host's advanced tool: Aldric rolls physically
    holy.wait("the dice", lambda s: any(p["kind"] == "dice" for p in s.panels()))
    dice = next(p for p in holy.panels() if p["kind"] == "dice")
    assert dice["title"].startswith("Your decision: Aldric's dice") and "1d20" in dice["prompt"]
    box = holy.driver.find_element(By.CSS_SELECTOR, ".decision[data-kind='dice'] input.die")
    assert box.get_attribute("max") == "20"
    assert_accessible(holy.driver)
    box.send_keys("17", Keys.ENTER)  # the keyboard sends the form
    for seat in (host, holy):
        seat.wait("the typed d20", lambda s: any(x.startswith("parry with Long Sword: d20 17")
                                                 for x in s.log()))  # fmt: skip


def test_the_page_waits_while_someone_decides_in_words(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """D-3: another command while the fight waits is refused on the page, saying for whom."""
    table = seat_up(server, browsers)
    jackal_strikes_watcher(table.fallen)
    table.holy.wait("both panels", lambda s: len(s.panels()) == 2)
    table.fallen.find("q-next").click()
    table.fallen.wait("the refusal", lambda s: s.text("error").startswith(
        "The fight is waiting for"))  # fmt: skip
    assert "Watcher's player" in table.fallen.text("error")
    assert table.server.table.store.encounter(table.war).revision == 11


def test_d1_w24_the_page_writes_request_and_answer_records_in_words(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """D-1, W-24: a request and its answers in words, by the one renderer of live and loaded."""
    table = seat_up(server, browsers)
    attack = {"kind": "attack", "args": {"attacker": "Goblin"}, "dice": None}
    asked = [{"kind": "reaction", "combatant": "Aldric"}, {"kind": "approve", "combatant": None}]
    records: list[dict[str, Any]] = [
        {"revision": 20, "kind": "request", "seq": 5, "command": attack, "events": [],
         "data": {"requests": asked}, "hidden": False},
        {"revision": 21, "kind": "answer", "seq": 5, "command": attack, "events": [],
         "data": {"answer": {"request": "5.0", "value": None, "by": "seat:3"},
                  "requests": [{"kind": "dice", "combatant": "Aldric"}]}, "hidden": False},
    ]  # fmt: skip
    answers: list[tuple[Any, str, str | None]] = [
        (True, "host", "resolved"),
        ({"mode": "best"}, "timeout", None),
        ([3, 17], "cli", "withdrawn"),
        ("parry", "seat:1", None),
    ]
    for value, by, outcome in answers:
        data: dict[str, Any] = {"answer": {"request": "5.1", "value": value, "by": by}}
        data["requests"] = []
        if outcome:
            data["outcome"] = outcome
        records.append({"revision": 22, "kind": "answer", "seq": 5, "command": attack,
                        "events": [], "data": data, "hidden": False})  # fmt: skip
    cards: list[list[str]] = table.host.driver.execute_script(
        "return arguments[0].map(r => lines(r));", records
    )
    said = [card[0] for card in cards]  # W-24: the plain sentence first, the same live or not
    assert said == [
        "Goblin's attack waits for a decision: Aldric's Reaction, the Host's approval",
        "Decision: none, decided by a player; now waiting for Aldric's dice",
        "Decision: yes, decided by the Host",
        "Decision: best, decided by the deadline (the suggestion)",
        "Decision: 3, 17, decided by the command line — Goblin's attack is withdrawn",
        "Decision: parry, decided by a player",
    ]
    # the record's technical line stays behind the card's Details
    assert cards[0][1] == "record 20: attack (command 5) waits for Aldric (reaction), the Host " \
        "(approve)"  # fmt: skip
    assert cards[3][1] == ('record 22: answer (attack, command 5): {"mode":"best"} by the '
                           "deadline: the suggestion")  # fmt: skip


def test_issue21_d4_hidden_asks_host_both_screens_say_the_host_decides(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Item 2, the setting: with ``hidden_asks: host`` a hidden Strike on the Watcher puts its
    questions on the Host's card; the holy player's banner says the Host decides them and it
    gets no panel of its own."""
    table = seat_up(server, browsers)
    web, host = table.server.table, Principal(table.table_id, None)
    web.set_settings(host, table.war, {"hidden_asks": "host", "npcs_decide": "ask"})
    web.execute(host, table.war, Command("move", {"id": "Jackal", "to": [4.0, 2.0, 0.0]}), None)
    strike = Command("strike", {"striker": "Jackal", "defender": "Watcher",
                                "path": [[3.0, 2.0, 0.0]]})  # fmt: skip
    sent = web.execute(host, table.war, strike, None, hidden=True)
    assert "pending" in sent, sent
    table.holy.wait("the banner", lambda s: "Watcher's Obstruction tokens: the Host"
                    in s.text("waiting"))  # fmt: skip
    assert table.holy.panels() == []
    table.host.wait("the Host's card", lambda s: {p["kind"] for p in s.panels()}
                    >= {"obstruction", "adjustments"})  # fmt: skip
    assert "Watcher's Obstruction tokens: the Host" in table.host.text("waiting")
    assert_accessible(table.holy.driver)
