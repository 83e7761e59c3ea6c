"""The web table end to end in a real headless browser (Debian's chromium, driven by Selenium).

A real uvicorn server runs in a thread on a free loopback port against a temporary SQLite file;
the Host and two players each have their own browser (separate processes and profiles, so
nothing is shared but the server). Without chromium and chromedriver these tests are skipped,
except under CI (``$CI`` set), where they fail: ``.ci/run`` installs both.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from patience import PAGE_WAIT
from selenium import webdriver
from selenium.common.exceptions import (
    JavascriptException,
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
    WebDriverException,
)
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.wait import WebDriverWait
from test_store_support import in_ci

from tableside.encounter.log import Command
from tableside.web import create_app
from tableside.web.auth import Principal
from tableside.web.demo import DemoLinks, create_demo
from tableside.web.table import WebTable

CHROMIUM = os.environ.get("TABLESIDE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("TABLESIDE_CHROMEDRIVER", "/usr/bin/chromedriver")
CHROME_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
WAIT = PAGE_WAIT  # a ceiling only: a passing run waits far less (see patience.py)
WAR = "Skirmish at the ford"  # the demo War's name (tableside.web.demo)
HOLY, FALLEN = "The holy player", "The fallen player"  # the demo's seats
# A page being replaced (a reload) answers these for a moment: try again.
PASSING = (JavascriptException, NoSuchElementException, StaleElementReferenceException)
# Read the page in one script each, so that no element is replaced halfway through a read.
READ_TEXT = "return document.getElementById(arguments[0]).textContent.trim();"
# The log's text lines: each card's plain sentence, its dice and its breakdown (behind Details).
READ_LOG = "return [...document.querySelectorAll('#log .line')].map(d => d.textContent.trim());"
# The log's cards: the plain sentence, the dice chips' classes and texts, undone or not.
READ_CARDS = """
return [...document.querySelectorAll('#log > article')].map(c => ({
  say: c.querySelector('.say').textContent.trim(), kind: c.dataset.kind,
  revision: Number(c.dataset.revision), undone: c.classList.contains('undone'),
  hidden: c.classList.contains('hidden-roll'),
  chips: [...c.querySelectorAll('.dice .chip')].map(x => x.className.replace('chip ', '')),
  lines: [...c.querySelectorAll('.line')].map(x => x.textContent.trim())}));
"""
# The character cards: each card's fields (data-field → data-value) with its id and position.
READ_COMBATANTS = """
return [...document.querySelectorAll('#cards > li')].map(c => Object.fromEntries([
  ['id', c.dataset.combatant], ['position', c.dataset.position || ''],
  ...[...c.querySelectorAll('[data-field]')].map(f => [f.dataset.field, f.dataset.value])]));
"""


def browser_paths() -> tuple[str, str]:
    """Chromium and chromedriver, or skip (fail under CI) when either is missing."""
    found = [shutil.which(p) for p in (CHROMIUM, CHROMEDRIVER)]
    if found[0] and found[1]:
        return found[0], found[1]
    missing = " and ".join(p for p, f in zip((CHROMIUM, CHROMEDRIVER), found, strict=True) if not f)
    if in_ci():
        pytest.fail(f"{missing} missing, and CI must run the browser tests (see .ci/run).")
    pytest.skip(f"no browser: {missing} missing (apt-get install chromium chromium-driver)")


class LiveServer:
    """The web table served by uvicorn in a thread on a free loopback port."""

    def __init__(self, store_url: str) -> None:
        self.app = create_app(store_url)
        self.table: WebTable = self.app.state.table
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        port = self.socket.getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        config = uvicorn.Config(
            self.app, log_level="warning", timeout_graceful_shutdown=2, lifespan="on"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + WAIT
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the web table server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(WAIT)
        self.socket.close()


def open_browser(chromium: str, chromedriver: str, profile: Path) -> WebDriver:
    """A headless chromium with its own fresh profile (its own cookies, storage and cache)."""
    options = Options()
    options.binary_location = chromium
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for flag in (*CHROME_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,1400"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(chromedriver))
    driver.set_page_load_timeout(WAIT)
    return driver


class BrowserPool:
    """Headless chromiums kept for the xdist worker's whole session (issue 23).

    Starting chromium is the slowest part of a browser test's set-up, so a chromium handed back
    is kept and lent again to the next module that asks, after a reset: every cookie and the
    cache cleared, media emulation and blocked URLs undone, its console read empty, the window at
    the laptop size on ``about:blank``. The page keeps nothing else in the browser (no storage),
    and each module's server listens on a port of its own (another origin). ``conftest.py`` quits
    them all when the session ends.
    """

    def __init__(self) -> None:
        self.idle: list[WebDriver] = []
        self.lent: list[WebDriver] = []
        self.folder: tempfile.TemporaryDirectory[str] | None = None
        self.opened = 0

    def take(self, chromium: str, chromedriver: str) -> WebDriver:
        """A reset kept chromium, or a new one with a fresh profile."""
        while self.idle:
            driver = self.idle.pop()
            try:
                reset_browser(driver)
            except WebDriverException:
                quit_quietly(driver)
                continue
            self.lent.append(driver)
            return driver
        if self.folder is None:
            self.folder = tempfile.TemporaryDirectory()
        self.opened += 1
        driver = open_browser(chromium, chromedriver, Path(self.folder.name) / str(self.opened))
        self.lent.append(driver)
        return driver

    def give_back(self, driver: WebDriver) -> None:
        """Keep a lent chromium for the next module."""
        self.lent.remove(driver)
        self.idle.append(driver)

    def quit_all(self) -> None:
        """Quit every kept chromium and remove their profiles."""
        for driver in (*self.idle, *self.lent):
            quit_quietly(driver)
        self.idle, self.lent = [], []
        if self.folder is not None:
            self.folder.cleanup()
            self.folder = None


def reset_browser(driver: WebDriver) -> None:
    """A kept chromium as a new one: no cookies, no cache, no emulation, an empty console."""
    driver.get("about:blank")
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})
    driver.set_window_size(1280, 1400)
    driver.get_log("browser")  # type: ignore[attr-defined]


def quit_quietly(driver: WebDriver) -> None:
    """Quit a chromium that may be gone already."""
    with suppress(WebDriverException):
        driver.quit()


BROWSERS = BrowserPool()


@contextmanager
def chromiums(*names: str) -> Iterator[list[WebDriver]]:
    """A headless chromium per name, each with its own profile, from the worker's kept ones
    (:class:`BrowserPool`; skipped without chromium, failed under CI)."""
    chromium, chromedriver = browser_paths()
    drivers: list[WebDriver] = []
    try:
        for _name in names:
            drivers.append(BROWSERS.take(chromium, chromedriver))
        yield drivers
    finally:
        for driver in drivers:
            BROWSERS.give_back(driver)


@contextmanager
def live_server(name: str) -> Iterator[LiveServer]:
    """The web table served on a new SQLite file ``<name>.db`` (skipped without a browser)."""
    browser_paths()
    with tempfile.TemporaryDirectory() as tmp, LiveServer(f"sqlite:///{tmp}/{name}.db") as live:
        yield live


def e2e_fixtures(
    name: str, *people: str, axe: bool = False, size: tuple[int, int] | None = None
) -> tuple[Any, Any]:
    """A browser test module's ``server`` and ``browsers`` fixtures (module-scoped).

    ``server``: the web table on a new ``<name>.db`` (:func:`live_server`); ``browsers``: one
    chromium per person (:func:`chromiums`), at ``size`` when given; ``axe``: skipped, or failed
    under CI, without axe-core (the module checks accessibility).
    """

    @pytest.fixture(scope="module", name="server")
    def server_fixture() -> Iterator[LiveServer]:
        with live_server(name) as live:
            yield live

    @pytest.fixture(scope="module", name="browsers")
    def browsers_fixture(server: LiveServer) -> Iterator[tuple[WebDriver, ...]]:
        if axe:
            from a11y import axe_source

            axe_source()
        with chromiums(*people) as drivers:
            for driver in drivers:
                if size is not None:
                    driver.set_window_size(*size)
            yield tuple(drivers)

    return server_fixture, browsers_fixture


@dataclass
class Seat:
    """One person at the table: a name and their own browser."""

    name: str
    driver: WebDriver

    def text(self, element_id: str) -> str:
        return str(self.driver.execute_script(READ_TEXT, element_id))

    def log(self) -> list[str]:
        """The log's lines, read at one instant (the script may be adding lines)."""
        lines: list[str] = self.driver.execute_script(READ_LOG)
        return lines

    def cards(self) -> list[dict[str, Any]]:
        """The log's cards, read at one instant."""
        cards: list[dict[str, Any]] = self.driver.execute_script(READ_CARDS)
        return cards

    def combatant(self, name: str) -> dict[str, str]:
        """One character card's shown fields (``data-field`` → value), read at one instant.

        A field the card hides (an empty one: no Poison, a Stance not taken) is absent.
        """
        rows: list[dict[str, str]] = self.driver.execute_script(READ_COMBATANTS)
        for row in rows:
            if row.get("id") == name:
                return row
        raise AssertionError(f"{name} has no character card on {self.name}'s page")

    def position(self, name: str) -> list[float]:
        return [float(x) for x in json.loads(self.combatant(name)["position"])]

    def send(self, kind: str, args: str) -> None:
        """Fill in the Host's advanced command box and send it (typing and clicking)."""
        self.open_advanced()
        kind_box = self.driver.find_element(By.ID, "kind")
        kind_box.clear()
        kind_box.send_keys(kind)
        args_box = self.driver.find_element(By.ID, "args")
        args_box.clear()
        args_box.send_keys(args)
        self.driver.find_element(By.ID, "send").click()

    def open_advanced(self) -> None:
        """Open the Host's advanced box (any command as JSON), if it is closed."""
        box = self.driver.find_element(By.ID, "advanced")
        if box.get_attribute("open") is None:
            box.find_element(By.TAG_NAME, "summary").click()

    def click(self, element_id: str) -> None:
        """Click a button (scrolled into view first, as a person would)."""
        button = self.driver.find_element(By.ID, element_id)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
        button.click()

    def move_to(self, point: tuple[float, float, float]) -> None:
        """The play panel's Move for the acting character, from its buttons (issue 12)."""
        self.click("act-move")
        for axis, value in zip("xyz", point, strict=True):
            box = self.driver.find_element(By.ID, f"q-{axis}")
            box.clear()
            box.send_keys(f"{value:g}")
        self.click("q-move")

    def wait(self, what: str, check: Callable[[Seat], Any]) -> None:
        """Wait until ``check(self)`` is true (no reload: the page updates itself)."""
        waiting = WebDriverWait(self.driver, WAIT, poll_frequency=0.05, ignored_exceptions=PASSING)
        try:
            waiting.until(lambda _d: check(self))
        except TimeoutException as error:
            console = self.console()
            raise AssertionError(
                f"{self.name}'s page never showed {what}; its console: {console}"
            ) from error

    def console(self) -> list[str]:
        """The page's console messages and script errors so far (for a failing test's report)."""
        try:
            entries: list[dict[str, Any]] = self.driver.get_log("browser")  # type: ignore[attr-defined]
        except WebDriverException:
            return []
        return [str(entry.get("message", "")) for entry in entries]

    def mark(self) -> None:
        """Mark this page, so that a reload (a new page) would be noticed."""
        self.driver.execute_script("window.tablesideMark = 'same page';")

    def same_page(self) -> bool:
        return bool(self.driver.execute_script("return window.tablesideMark === 'same page';"))


SUGGESTED = "return document.querySelector('#decision-panels .options button.suggested');"
PANELS = "return document.querySelectorAll('#decision-panels .decision').length;"
# The Host's card (issue 21): every question's suggested option picked (a player's question
# is not preset), then true, ready for its one Apply; false on a player's page.
HOST_CARD_SUGGESTED = """
const card = document.querySelector('#decision-panels .decision-card');
if (!card) return false;
for (const b of card.querySelectorAll('.options button.suggested[aria-pressed="false"]'))
  b.click();
return true;
"""


def take_suggestions(seat: Seat, expected: int = 2) -> None:
    """``seat`` answers ``expected`` decisions on its page, each with its suggestion (issue 11).

    A player presses each suggested option; the Host's card (issue 21) has its questions preset
    to their suggestions, and its *Apply* sends them all at once.
    """

    def panels(count: int) -> Callable[[Seat], bool]:
        return lambda s: bool(s.driver.execute_script(PANELS) == count)

    left = expected
    while left > 0:
        seat.wait("a decision", panels(left))
        if seat.driver.execute_script(HOST_CARD_SUGGESTED):  # the Host's card: picked, Apply
            seat.driver.find_element(By.CSS_SELECTOR, ".decision-card .apply").click()
            seat.wait("the answers taken", panels(0))
            left = 0
            continue
        seat.driver.execute_script(SUGGESTED).click()
        seat.wait("the answer taken", panels(left - 1))
        left -= 1


@dataclass
class Table:
    """The demo table as three people see it: the Host and one player per side."""

    server: LiveServer
    demo: DemoLinks
    host: Seat
    holy: Seat  # Herald, Watcher, Guardian, Messenger
    fallen: Seat  # Warrior, Jackal, Deceiver, Brute

    @property
    def everyone(self) -> tuple[Seat, Seat, Seat]:
        return (self.host, self.holy, self.fallen)


server, browsers = e2e_fixtures("e2e", "host", "holy", "fallen")


@pytest.fixture
def table(server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]) -> Table:
    """A new demo table; the Host opens the War's page, each player joins by their link."""
    demo = create_demo(server.table)
    host, holy, fallen = (Seat(n, d) for n, d in zip(("Host", HOLY, FALLEN), browsers, strict=True))
    host.driver.get(server.base + demo.host_page)  # the token is exchanged for a cookie (W-11)
    for seat in (holy, fallen):
        seat.driver.get(server.base + demo.player_links[seat.name])
        assert f"You are {seat.name}" in seat.driver.find_element(By.TAG_NAME, "body").text
        assert "token" not in seat.driver.current_url and "/join/" not in seat.driver.current_url
        seat.driver.find_element(By.LINK_TEXT, WAR).click()
    seats = Table(server, demo, host, holy, fallen)
    for seat in seats.everyone:
        seat.wait("the War", lambda s: s.driver.find_element(By.TAG_NAME, "h1").text == WAR)
        assert "token" not in seat.driver.current_url
        assert seat.text("revision") == "9"
        seat.mark()
    return seats


CURRENT = "return document.querySelector('#order li[aria-current=step]').textContent;"


def test_each_person_sees_the_war_with_their_own_role_w23(table: Table) -> None:
    """W-23: the header names the game in words and who I am; no revision is shown."""
    assert "you are the Host" in table.host.driver.find_element(By.CSS_SELECTOR, "header").text
    assert table.host.driver.find_elements(By.ID, "undo")
    for seat in (table.holy, table.fallen):
        assert seat.name in seat.driver.find_element(By.CSS_SELECTOR, "header").text
        assert not seat.driver.find_elements(By.ID, "undo")
    for seat in table.everyone:
        header = seat.driver.find_element(By.CSS_SELECTOR, "header").text
        assert "Allies of Majesty — War" in header
        body = seat.driver.find_element(By.TAG_NAME, "body").text
        assert "majesty-war" not in body and "revision" not in body.lower()
        assert seat.driver.execute_script(CURRENT) == "1Jackal7 AP"  # Segment 1, 7 AP
        assert seat.combatant("Watcher")["endurance"] == "60"


def test_a_strike_by_one_player_is_seen_live_by_the_others(table: Table) -> None:
    fallen = table.fallen
    fallen.wait("Jackal acting", lambda s: s.driver.find_element(By.ID, "p-actor")
                .get_attribute("value") == "Jackal")  # fmt: skip
    fallen.move_to((4, 2, 0))
    fallen.wait("the move", lambda s: s.text("revision") == "10")
    fallen.wait("the Watcher aimed at", lambda s: s.driver.find_element(By.ID, "p-target")
                .get_attribute("value") == "Watcher")  # fmt: skip
    fallen.driver.find_element(By.ID, "p-path").send_keys("3,2,0")
    fallen.click("roll")
    take_suggestions(table.holy)  # the Watcher's Obstruction and Adjustments (issue 11, D-8)
    for seat in table.everyone:
        seat.wait("the Strike", lambda s: s.text("revision") == "13")
        seat.wait("the Wear", lambda s: s.combatant("Watcher")["endurance"] == "50")
        log = seat.log()
        assert any(line.startswith("record 11: strike ") and "Watcher" in line for line in log)
        said = seat.cards()[-1]["say"]
        assert said.startswith("Jackal strikes Watcher with a Club: 3 Hits, 1 Stop → Watcher "
                               "takes 10 Wear (E)"), said  # fmt: skip
        at = log.index("strike_resolved Jackal → Watcher with Club  [M-20]")
        assert log[at + 1 : at + 5] == [
            "Precision 1 · Guard 2 · Force 5",
            "rolled 11 8 4 9 12 2 4 → final 11 8 4 9 11 2 4 (defender 12→11)",
            "3 hits, 1 stops → 2 hits uncanceled, 0 stops",
            "Watcher takes 10 E Wear: Endurance 50, Resolve 40, Passion 40, normal",
        ]
        assert any(line.startswith("wear_taken") and "Watcher" in line for line in log)
        assert seat.text("error") == ""
        assert seat.same_page(), f"{seat.name}'s page was reloaded"
    live = table.holy.cards()
    table.holy.driver.refresh()  # W-24: one renderer, the same cards on load as live
    table.holy.wait("the reloaded page", lambda s: not s.same_page())
    assert table.holy.cards() == live


def test_a_host_undo_is_seen_by_all(table: Table) -> None:
    fallen, host = table.fallen, table.host
    fallen.wait("Jackal acting", lambda s: s.driver.find_element(By.ID, "p-actor")
                .get_attribute("value") == "Jackal")  # fmt: skip
    fallen.move_to((4, 2, 0))
    for seat in table.everyone:
        seat.wait("the move", lambda s: s.position("Jackal") == [4, 2, 0])
    host.driver.find_element(By.ID, "undo").click()
    for seat in table.everyone:
        seat.wait("the undo", lambda s: s.text("revision") == "11")
        seat.wait("Jackal back", lambda s: s.position("Jackal") == [8, 2, 0])
        cards = seat.cards()
        assert cards[-1]["say"] == "Undo: Jackal's Move is taken back"
        assert [c["revision"] for c in cards if c["undone"]] == [10]  # struck out
        assert seat.same_page(), f"{seat.name}'s page was reloaded"


def test_a_player_acting_for_anothers_character_is_refused_on_the_page(table: Table) -> None:
    holy = table.holy
    assert not holy.driver.find_elements(By.ID, "kind")  # no JSON box for players (issue 12)
    send = "post('/commands', {kind: arguments[0], args: arguments[1]});"  # as a script could
    holy.driver.execute_script(send, "strike", {"striker": "Jackal", "defender": "Watcher"})
    holy.wait("the refusal", lambda s: "'Jackal'" in s.text("error"))
    assert holy.text("error").endswith(".")
    holy.driver.execute_script(send, "stance", {"id": "Warrior"})
    holy.wait("the second refusal", lambda s: "'Warrior'" in s.text("error"))
    time.sleep(0.5)  # room for a wrongly written record to reach the pages
    for seat in table.everyone:
        assert seat.text("revision") == "9"
        assert seat.cards()[-1]["revision"] == 9
    assert table.server.table.store.encounter(table.demo.encounter_id).revision == 9
    holy.wait("the pickers", lambda s: s.driver.find_elements(By.CSS_SELECTOR,
              "#p-actor option[value=Watcher]"))  # fmt: skip
    Select(holy.driver.find_element(By.ID, "p-actor")).select_by_value("Watcher")
    holy.click("act-stance")  # their own character, from its button: allowed, the error clears
    holy.click("q-stance")
    for seat in table.everyone:
        seat.wait("the stance", lambda s: s.combatant("Watcher").get("stance") == "true")
    assert holy.text("error") == ""


def test_w14_a_stale_undo_on_the_page_is_refused_refreshed_and_explained(table: Table) -> None:
    host, eid = table.host, table.demo.encounter_id
    host.driver.execute_script("source.close();")  # the Host's page stops hearing the table
    who = Principal(table.demo.table_id, None)
    table.server.table.execute(who, eid, Command("stance", {"id": "Herald"}), None)
    assert host.text("revision") == "9"
    host.driver.find_element(By.ID, "undo").click()  # sent with revision 9: always exact
    host.wait("the 409", lambda s: "The table moved on: 1 new record since revision 9" in
              s.text("error"))  # fmt: skip
    assert "undo was not applied" in host.text("error")
    host.wait("the state read again", lambda s: s.text("revision") == "10")
    assert table.server.table.store.encounter(eid).revision == 10
    assert host.same_page()


def test_a_hidden_host_command_updates_the_players_tables_without_a_reload(table: Table) -> None:
    """Issue 12: after a hidden Host roll, the players' tables stayed stale until a reload."""
    host = table.host
    host.open_advanced()
    host.driver.find_element(By.ID, "hidden").click()
    host.send("stance", '{"id": "Watcher"}')
    for seat in table.everyone:
        seat.wait("the stance", lambda s: s.combatant("Watcher").get("stance") == "true")
        seat.wait("the revision", lambda s: s.text("revision") == "10")
        assert seat.same_page(), f"{seat.name}'s page was reloaded"
    for seat in (table.holy, table.fallen):
        assert not [card for card in seat.cards() if card["revision"] == 10]
    hidden = [card for card in host.cards() if card["revision"] == 10]
    assert hidden[0]["hidden"] and "Hidden from players" in hidden[0]["say"]
