"""The fight page on a phone (390 × 844) as a player meets it (W-37 … W-39).

A player's phone shows the play panel first: the decisions' part keeps out of the way while
nobody decides (W-37) and is framed on top only when the viewer has something to decide; a
map token's name stays clear of its rings (W-38); the Strike button says its AP at once, before
the odds come (W-39). The demo War of ``test_web_e2e_decisions`` (the fallen player's Jackal,
the holy player's Watcher), each person in their own headless chromium.
"""

from __future__ import annotations

from typing import Any

import test_web_e2e_decisions
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from test_web_e2e import LiveServer
from test_web_e2e_decisions import (
    PHONE,
    Person,
    jackal_strikes_watcher,
    seat_up,
    take_the_watchers_choices,
)

from tableside.web.demo import create_demo

# test_web_e2e_decisions' fixtures: three browsers and a live server on a new database
browsers = test_web_e2e_decisions.browsers
db = test_web_e2e_decisions.db
server = test_web_e2e_decisions.server

RECT = """
const r = document.querySelector(arguments[0]).getBoundingClientRect();
return {top: r.top, bottom: r.bottom, height: r.height};
"""
# every token's drawn rings (current Turn, acting, target) against its name's box, in px
RINGS_AND_NAMES = """
return [...document.querySelectorAll('#map .token')].map(g => {
  const id = g.dataset.combatant;
  const name = document.querySelector('#map [data-label-for="' + id + '"] .name')
    .getBoundingClientRect();
  const rings = [...g.querySelectorAll('.turn-ring, .actor-ring, .target-ring')]
    .map(c => c.getBoundingClientRect().bottom);
  return {id: id, name_top: name.top, ring_bottom: rings.length ? Math.max(...rings) : null};
});
"""
# the names' and the elevation labels' boxes that cross another label's (in px)
LABELS_CROSSING = """
const boxes = [...document.querySelectorAll(
    '#map .token-label .name, #map .token-label .elevation')]
  .map(t => [t.closest('[data-label-for]').dataset.labelFor + ' ' + t.getAttribute('class'),
    t.getBoundingClientRect()]);
const crossing = [];
for (const [a, r] of boxes) for (const [b, q] of boxes)
  if (a < b && r.left < q.right - 0.5 && q.left < r.right - 0.5 && r.top < q.bottom - 0.5 &&
      q.top < r.bottom - 0.5) crossing.push(a + ' / ' + b);
return crossing;
"""
# every control a finger taps, outside the map and the Turn order's strip (it scrolls sideways)
SMALL = """
return [...document.querySelectorAll('a, button, select, input, summary, textarea')]
  .filter(e => e.offsetParent !== null && !e.closest('svg, #order'))
  .map(e => e.type === 'checkbox' || e.type === 'radio' ? (e.closest('label') || e) : e)
  .filter(e => { const r = e.getBoundingClientRect(); return r.height < 44 || r.width < 44; })
  .map(e => e.tagName + ' ' + e.textContent.trim().slice(0, 30));
"""
PAGE_FITS = """
const page = document.documentElement;
return page.scrollWidth <= page.clientWidth + 0.5;
"""


def rect(seat: Person, selector: str) -> dict[str, float]:
    found: dict[str, float] = seat.driver.execute_script(RECT, selector)
    return found


def phones(server: LiveServer, browsers: tuple[WebDriver, ...]) -> test_web_e2e_decisions.Table:
    table = seat_up(server, browsers)
    for seat in (table.holy, table.fallen):
        seat.size(PHONE)
    return table


def test_w37_on_a_phone_the_decisions_keep_out_of_the_way_until_the_viewer_decides(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """W-37: nobody deciding: no block above the play panel; the viewer's own: framed on top."""
    table = phones(server, browsers)
    holy, fallen = table.holy, table.fallen
    for seat in (holy, fallen):
        assert seat.text("waiting").startswith("Nobody is deciding")  # still said, to a reader
        assert rect(seat, "#waiting")["height"] <= 1, "'Nobody is deciding' takes a phone's room"
        assert rect(seat, "#decisions")["height"] < 8
        assert seat.page_fits()
    jackal_strikes_watcher(fallen)
    holy.wait("both panels", lambda s: len(s.panels()) == 2)
    box, play = rect(holy, "#decisions"), rect(holy, "#play-panel")
    assert box["height"] > 100 and box["bottom"] <= play["top"], "the decision is not on top"
    assert "yours" in (holy.find("decisions").get_attribute("class") or "")
    assert holy.page_fits()
    # the Striker's player is told in one line whom the fight waits for, not a framed block
    fallen.wait("the banner", lambda s: "aiting for Watcher's" in s.text("waiting"))
    assert 0 < rect(fallen, "#waiting")["height"] < 120
    assert "yours" not in (fallen.find("decisions").get_attribute("class") or "")
    take_the_watchers_choices(holy)
    for seat in (holy, fallen):
        seat.wait("the banner cleared", lambda s: s.text("waiting").startswith("Nobody"))
        seat.wait("the block gone", lambda s: rect(s, "#decisions")["height"] < 8)


def test_w38_a_tokens_name_is_drawn_below_its_rings_on_a_phone(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """W-38: the current Turn's ring (and the acting and target rings) never cross the name."""
    table = phones(server, browsers)
    fallen = table.fallen
    fallen.wait("Jackal ringed", lambda s: s.driver.find_elements(By.CSS_SELECTOR,
                "#map .token.current .turn-ring"))  # fmt: skip
    watcher = fallen.driver.find_element(By.CSS_SELECTOR, '#map .token[data-combatant="Watcher"]')
    fallen.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", watcher)
    watcher.click()  # tapped: the target, ringed red
    fallen.wait("a target ringed", lambda s: s.driver.find_elements(By.CSS_SELECTOR,
                "#map .token .target-ring"))  # fmt: skip
    tokens: list[dict[str, Any]] = fallen.driver.execute_script(RINGS_AND_NAMES)
    ringed = [t for t in tokens if t["ring_bottom"] is not None]
    assert {t["id"] for t in ringed} >= {"Jackal", "Watcher"}
    for token in ringed:
        assert token["name_top"] >= token["ring_bottom"] - 0.5, token
    assert fallen.driver.execute_script(LABELS_CROSSING) == []  # Watcher's name, Guardian's ↑1"


NO_ODDS = "No odds: the server cannot be reached."  # play.js, when the odds request fails


def test_w39_the_strike_button_says_its_ap_before_the_odds_come(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """W-39 (M-14): 3 AP at once from the state, +1 for a Maneuver that costs one, no odds."""
    table = phones(server, browsers)
    fallen = table.fallen
    driver: Any = fallen.driver
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/odds"]})  # the odds never come
    try:
        fallen.driver.refresh()
        fallen.wait("Jackal acting", lambda s: s.find("p-actor").get_attribute("value") == "Jackal")
        fallen.wait("the Strike's cost", lambda s: s.text("cost-strike") == "(3 AP)")
        assert fallen.text("roll-cost") == "(3 AP)"
        disarm = fallen.driver.find_element(
            By.XPATH, "//fieldset[@id='p-maneuvers']//label[contains(., '(+1 AP)')]/input"
        )
        fallen.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", disarm)
        disarm.click()
        fallen.wait("the Maneuver's AP", lambda s: s.text("roll-cost") == "(4 AP)")
        # no odds came: still the prompt, or (the 250 ms debounce over on a slow machine) the
        # blocked request's failure said; never a law
        summary = fallen.text("odds-summary")
        assert summary.startswith("Choose") or summary == NO_ODDS, summary
    finally:
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})


def test_every_control_on_the_phone_page_is_a_fingertip_wide(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver, WebDriver]
) -> None:
    """Issue 12's 44 px targets, the whole page: the jump links (Play, Map, Log) were 38 px."""
    table = phones(server, browsers)
    fallen = table.fallen
    fallen.wait("the panel", lambda s: s.find("p-actor").get_attribute("value") == "Jackal")
    assert fallen.driver.execute_script(SMALL) == []
    assert fallen.page_fits()
    # the Realm of Strife fight's page too: its map's "difficult terrain" box was 31 px tall
    demo = create_demo(server.table)
    heroes = next(link for name, link in demo.fight_links.items() if "hero" in name)
    fallen.driver.get(server.base + heroes)
    fallen.driver.get(f"{server.base}/tables/{demo.table_id}/encounters/{demo.fight_id}")
    fallen.wait("the fight's panel", lambda s: s.find("p-actor").get_attribute("value") != "")
    assert fallen.driver.execute_script(SMALL) == []
    assert fallen.page_fits()
