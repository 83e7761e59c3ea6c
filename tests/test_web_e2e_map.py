"""The battle map end to end in headless chromium, at 1366 × 768 and at 390 × 844 (W-20 … W-22).

The demo War (seed 7): it is Jackal's Turn (7 AP) and the fallen player plays Jackal. The Host
and the player each have their own browser. The map shows a token per combatant where the state
has it; a tap on a token targets it; a tap on the ground (or the form, or the arrow keys) plans a
move whose cost the server decides before anything is sent; the confirmed move reaches the other
browser live; a Knock Back slides along its path with a trail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from a11y import assert_accessible
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from test_web_e2e import (
    FALLEN,
    WAR,
    LiveServer,
    Seat,
    e2e_fixtures,
)

from tableside.encounter.log import Command
from tableside.store import table_audience
from tableside.web.auth import Principal
from tableside.web.demo import DemoLinks, create_demo

DESKTOP, PHONE = (1366, 768), (390, 844)
SIZES = pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
TOKENS = """
return Object.fromEntries([...document.querySelectorAll('#map [data-combatant]')]
  .filter(t => t.classList.contains('token'))
  .map(t => [t.getAttribute('data-combatant'), {transform: t.getAttribute('transform'),
    label: t.getAttribute('aria-label'), classes: t.getAttribute('class'),
    shape: t.getAttribute('data-shape'),
    text: document.querySelector('#map [data-label-for="' + t.getAttribute('data-combatant') +
      '"]').textContent}]));
"""
STATE = "return state;"
LISTEN = """
window.mapHeard = [];
for (const kind of ['target', 'move'])
  document.addEventListener('tableside:' + kind, e => window.mapHeard.push([kind, e.detail]));
"""
# The point of the page (relative to the map's centre) where the map draws (x, y) inches.
AT = """
const svg = document.getElementById('map'), r = svg.getBoundingClientRect();
const p = new DOMPoint(arguments[0], arguments[1]).matrixTransform(svg.getScreenCTM());
return [p.x - (r.left + r.width / 2), p.y - (r.top + r.height / 2)];
"""
SIDEWAYS = "return document.documentElement.scrollWidth - document.documentElement.clientWidth;"


class Person(Seat):
    def find(self, element_id: str) -> WebElement:
        return self.driver.find_element(By.ID, element_id)

    def tokens(self) -> dict[str, dict[str, str]]:
        found: dict[str, dict[str, str]] = self.driver.execute_script(TOKENS)
        return found

    def state(self) -> dict[str, Any]:
        found: dict[str, Any] = self.driver.execute_script(STATE)
        return found

    def token(self, name: str) -> WebElement:
        return self.driver.find_element(By.CSS_SELECTOR, f'#map .token[data-combatant="{name}"]')

    def tap_ground(self, x: float, y: float) -> None:
        """A real pointer's tap on the map at (x, y) inches."""
        svg = self.find("map")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", svg)
        dx, dy = self.driver.execute_script(AT, x, y)
        ActionChains(self.driver).move_to_element_with_offset(
            svg, int(dx), int(dy)
        ).click().perform()

    def wait(self, what: str, check: Callable[[Any], Any]) -> None:
        """Seat.wait with a check that reads this Person's helpers."""
        super().wait(what, check)

    def heard(self) -> list[list[Any]]:
        found: list[list[Any]] = self.driver.execute_script("return window.mapHeard;")
        return found


@dataclass
class Map:
    server: LiveServer
    demo: DemoLinks
    host: Person
    player: Person  # the fallen player: Warrior, Jackal, Deceiver, Brute

    def host_command(self, kind: str, args: dict[str, Any]) -> None:
        self.host_command_in(self.demo.encounter_id, kind, args)

    def host_command_in(self, encounter_id: int, kind: str, args: dict[str, Any]) -> None:
        host = Principal(self.demo.table_id, None)
        self.server.table.execute(host, encounter_id, Command(kind, args), None)


server, browsers = e2e_fixtures("map", "host", "fallen")


def open_map(server: LiveServer, browsers: tuple[WebDriver, WebDriver], size: Any) -> Map:
    """A new demo table; the Host and the fallen player open the War's page at ``size``."""
    demo = create_demo(server.table)
    host, player = Person("Host", browsers[0]), Person(FALLEN, browsers[1])
    for seat in (host, player):
        seat.driver.set_window_size(*size)
    host.driver.get(server.base + demo.host_page)
    player.driver.get(server.base + demo.player_links[FALLEN])
    player.driver.find_element(By.LINK_TEXT, WAR).click()
    for seat in (host, player):
        seat.wait("the War", lambda s: s.text("revision") == "9")
        seat.wait("the map", lambda s: len(s.tokens()) == 8)
        seat.driver.execute_script(LISTEN)
        seat.mark()
    return Map(server, demo, host, player)


def translate(position: list[float]) -> str:
    return f"translate({position[0]:g} {position[1]:g})"


def at_state_positions(seat: Person) -> bool:
    tokens, rows = seat.tokens(), seat.state()["combatants"]
    return all(tokens[r["id"]]["transform"] == translate(r["position"]) for r in rows)


@SIZES
def test_the_map_shows_every_combatant_where_the_state_has_it(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver], size: Any
) -> None:
    m = open_map(server, browsers, size)
    for seat in (m.host, m.player):
        tokens, rows = seat.tokens(), seat.state()["combatants"]
        assert sorted(tokens) == sorted(r["id"] for r in rows)
        assert at_state_positions(seat)
        # side by shape as well as colour, elevation as a label, an accessible name
        assert {tokens[r["id"]]["shape"] for r in rows if r["side"] == "holy"} == {"circle"}
        assert {tokens[r["id"]]["shape"] for r in rows if r["side"] == "fallen"} == {"diamond"}
        assert "↑2″" in tokens["Deceiver"]["text"] and "↑1″" in tokens["Guardian"]["text"]
        assert tokens["Jackal"]["label"] == "Jackal, fallen, at 8, 2, current Turn, acting"
        assert tokens["Deceiver"]["label"].startswith("Deceiver, fallen, at 8, 4, elevation 2")
        assert "current" in tokens["Jackal"]["classes"]
        assert seat.driver.execute_script(SIDEWAYS) <= 0, "the page scrolls sideways"
        assert_accessible(seat.driver, ["#map-part"])


@SIZES
def test_tapping_a_token_or_enter_on_it_targets_it(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver], size: Any
) -> None:
    player = open_map(server, browsers, size).player
    player.driver.execute_script(
        "arguments[0].scrollIntoView({block: 'center'});", player.find("map")
    )
    player.token("Watcher").click()
    player.wait("the target", lambda s: ["target", {"id": "Watcher"}] in s.heard())
    assert "targeted" in player.tokens()["Watcher"]["classes"]
    assert player.tokens()["Watcher"]["label"].endswith(", target")
    player.token("Brute").send_keys(Keys.ENTER)
    player.wait("the keyboard's target", lambda s: ["target", {"id": "Brute"}] in s.heard())
    assert "targeted" not in player.tokens()["Watcher"]["classes"]


@SIZES
def test_w20_a_move_tapped_on_the_map_shows_its_cost_first_and_reaches_the_host(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver], size: Any
) -> None:
    m = open_map(server, browsers, size)
    player = m.player
    player.tap_ground(5.6, 2.2)  # snapped to the half inch: 5.5, 2 (2.5 inches: 3 AP)
    player.wait("the cost", lambda s: s.find("map-confirm").text == "Move here (3 AP)")
    assert player.text("map-status") == "Jackal to 5.5, 2: 2.5″, 3 AP, 4 AP left."
    assert m.host.text("revision") == "9"  # nothing sent before the confirmation
    player.find("map-confirm").click()
    for seat in (m.host, m.player):
        seat.wait("the move", lambda s: s.text("revision") == "10")
        seat.wait(
            "Jackal on the map", lambda s: s.tokens()["Jackal"]["transform"] == translate([5.5, 2])
        )
        assert seat.same_page()
    # sent once, by the play panel: a second send from the map would be refused as stale (W-14)
    assert player.text("error") == ""
    _info, records = server.table.store.load(m.demo.encounter_id)
    assert [r.command.kind for r in records[-2:] if r.command] != ["move", "move"]
    assert [
        "move",
        {"id": "Jackal", "to": [5.5, 2, 0], "args": {"id": "Jackal", "to": [5.5, 2, 0]}},
    ] in player.heard()


def test_w20_the_move_form_and_the_arrow_keys_plan_a_move_on_the_phone(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    m = open_map(server, browsers, PHONE)
    player = m.player
    for box, value in (("map-x", "8"), ("map-y", "5"), ("map-z", "1")):
        player.find(box).clear()
        player.find(box).send_keys(value)
    player.find("map-check").click()
    player.wait("the cost", lambda s: s.find("map-confirm").text == "Move here (4 AP)")
    player.find("map-cancel").click()
    player.token("Jackal").send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    player.wait("the cost", lambda s: s.find("map-confirm").text == "Move here (2 AP)")
    assert player.text("map-status").startswith("Jackal to 6, 2: 2″, 2 AP")
    player.find("map-confirm").click()
    m.host.wait("the move", lambda s: s.tokens()["Jackal"]["transform"] == translate([6, 2]))


def test_w20_a_refused_move_says_why_and_the_host_may_place_instead(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    m = open_map(server, browsers, DESKTOP)
    player, host = m.player, m.host
    player.driver.execute_script(
        "document.dispatchEvent(new CustomEvent('tableside:actor', {detail: {id: 'Warrior'}}));"
    )
    player.tap_ground(7, 0)
    player.wait("the refusal", lambda s: "is not possible" in s.text("map-status"))
    assert player.text("map-status") == (
        "Warrior to 7, 0 is not possible: Warrior cannot Move for 1 AP: it is Jackal's Turn and "
        "Warrior has 0 AP and 0 Readied AP."
    )
    assert not player.find("map-confirm").is_displayed()
    assert not player.driver.find_elements(By.ID, "map-place")  # the Host's only
    host.driver.execute_script(
        "document.dispatchEvent(new CustomEvent('tableside:actor', {detail: {id: 'Herald'}}));"
    )
    host.tap_ground(2, 0)
    host.wait("the refusal", lambda s: "is not possible" in s.text("map-status"))
    host.find("map-place").click()
    player.wait("Herald placed", lambda s: s.tokens()["Herald"]["transform"] == translate([2, 0]))


def test_a_player_cannot_move_anothers_character(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    m = open_map(server, browsers, DESKTOP)
    player = m.player
    player.driver.execute_script(
        "document.dispatchEvent(new CustomEvent('tableside:actor', {detail: {id: 'Watcher'}}));"
    )
    player.tap_ground(1, 2)
    player.wait(
        "the map's refusal", lambda s: s.text("map-status") == "Watcher is not yours to move."
    )
    statuses = player.driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1], body = {id: 'Watcher', to: [1, 2, 0]};
        Promise.all([fetch(api + '/move-cost', {method: 'POST', headers: auth,
                                                 body: JSON.stringify(body)}),
                     fetch(api + '/commands', {method: 'POST', headers: auth,
                       body: JSON.stringify({kind: 'move', args: body})})])
          .then(rs => Promise.all(rs.map(r => r.json().then(j => [r.status, j.error]))))
          .then(done);
        """
    )
    error = (
        "A player may act only for its own characters, and 'Watcher' (the move command's "
        "id) is not one of them."
    )
    assert statuses == [[403, error], [403, error]]
    assert m.host.text("revision") == "9"


WATCH_MESSENGER = """
window.mapSeen = [];
new MutationObserver(() => {
  const t = document.querySelector('#map .token[data-combatant="Messenger"]');
  const seen = t && t.getAttribute('transform');
  if (seen && !window.mapSeen.includes(seen)) window.mapSeen.push(seen);
}).observe(document.getElementById('map'), {subtree: true, childList: true, attributes: true});
"""
REDUCED = {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}
FULL = {"features": [{"name": "prefers-reduced-motion", "value": "no-preference"}]}


@pytest.mark.parametrize("reduced", [False, True], ids=["motion", "reduced-motion"])
def test_a_knock_back_slides_along_its_path_with_a_trail_unless_motion_is_reduced(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver], reduced: bool
) -> None:
    m = open_map(server, browsers, DESKTOP)
    player = m.player
    player.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", REDUCED if reduced else FULL)
    try:
        player.driver.execute_script(WATCH_MESSENGER)
        m.host_command(
            "apply_effect",
            {"id": "Messenger", "effect": "knock_back", "amount": 2, "origin": [0, 4, 0]},
        )
        player.wait(
            "the trail",
            lambda s: bool(
                s.driver.find_elements(By.CSS_SELECTOR, '#map .trail[data-combatant="Messenger"]')
            ),
        )
        assert player.text("map-status") == "Knock Back: Messenger to 0, 8."
        player.wait("the end of the slide", at_state_positions)
        assert player.tokens()["Messenger"]["transform"] == translate([0, 8])
        seen = player.driver.execute_script("return window.mapSeen;")
        between = [t for t in seen if t not in (translate([0, 6]), translate([0, 8]))]
        assert (between == []) is reduced, seen
    finally:
        player.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", FULL)


def test_w22_the_acting_combatant_has_its_reach_ring_and_can_be_dragged(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    m = open_map(server, browsers, DESKTOP)
    player = m.player
    player.wait(
        "Jackal's reach",
        lambda s: bool(
            s.driver.find_elements(By.CSS_SELECTOR, '#map .reach[data-ring="Melee Range"][r="3"]')
        ),
    )
    svg = player.find("map")
    player.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", svg)
    start, end = (player.driver.execute_script(AT, *p) for p in ((8, 2), (7, 4)))
    ActionChains(player.driver).move_to_element_with_offset(
        svg, int(start[0]), int(start[1])
    ).click_and_hold().move_by_offset(10, 10).move_to_element_with_offset(
        svg, int(end[0]), int(end[1])
    ).release().perform()
    player.wait("the cost", lambda s: s.find("map-confirm").text == "Move here (3 AP)")
    assert player.text("map-status").startswith("Jackal to 7, 4: 2.24″, 3 AP")
    after = player.driver.find_element(By.CSS_SELECTOR, "#map .plan .reach-after")
    assert (after.get_attribute("cx"), after.get_attribute("cy"), after.get_attribute("r")) == (
        "7",
        "4",
        "3",
    )
    assert player.heard() == []  # a drag targets nobody


FIGHT = "Ambush at the mill"
HEROES = "The heroes' player"


@SIZES
def test_w20_a_realm_of_strife_move_costs_movement_and_the_down_are_grey(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver], size: Any
) -> None:
    """The demo fight: Sera (the heroes' player's, Movement 6) has the first Turn of the ambush;
    the Goblins' values are secret to the player, who still sees one down (W-2)."""
    demo = create_demo(server.table)
    table_audience.set_secret(server.table.store, demo.fight_id, "Goblin-1", True)
    host, player = Person("Host", browsers[0]), Person(HEROES, browsers[1])
    for seat in (host, player):
        seat.driver.set_window_size(*size)
    host.driver.get(server.base + demo.fight_page)
    player.driver.get(server.base + demo.fight_links[HEROES])
    player.driver.find_element(By.LINK_TEXT, FIGHT).click()
    for seat in (host, player):
        seat.wait("the map", lambda s: len(s.tokens()) == 5)
    assert player.tokens()["Sera"]["label"] == "Sera, heroes, at 0, 3, current Turn, acting"
    assert player.tokens()["Troll"]["shape"] == "diamond"
    assert player.state()["models"][2]["hp"] == "secret"
    player.tap_ground(3, 3)
    player.wait("the cost", lambda s: s.find("map-confirm").text == "Move here (3″ of Movement)")
    assert player.text("map-status") == "Sera to 3, 3: 3″, 3″ of Movement, 3″ of Movement left."
    player.find("map-difficult").click()
    player.wait(
        "the cost on difficult terrain",
        lambda s: s.find("map-confirm").text == "Move here (6″ of Movement)",
    )
    player.find("map-confirm").click()
    host.wait("Sera's move", lambda s: s.tokens()["Sera"]["transform"] == translate([3, 3]))
    Map(server, demo, host, player).host_command_in(
        demo.fight_id, "host_set", {"id": "Goblin-1", "field": "hp", "value": 0}
    )
    player.wait("Goblin-1 down", lambda s: "defeated" in s.tokens()["Goblin-1"]["classes"])
    assert player.state()["models"][2]["hp"] == "down"
    assert player.tokens()["Goblin-1"]["label"] == "Goblin-1, monsters, at 6, 0, defeated"
    assert player.driver.execute_script(SIDEWAYS) <= 0, "the page scrolls sideways"
    assert_accessible(player.driver, ["#map-part"])


def test_a_spiritual_dominion_is_drawn_where_the_war_has_it_m15(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    m = open_map(server, browsers, PHONE)
    m.host_command("dominion", {"id": "Ward", "center": [4, 3, 0], "radius": 1.5})
    player = m.player
    # One read in the page: the map may be drawn again between two WebDriver calls.
    read = """
        const area = document.querySelector('#map [data-dominion="Ward"]');
        const circle = area && area.querySelector('circle');
        return circle && ['cx', 'cy', 'r'].map((k) => circle.getAttribute(k))
            .concat([area.getAttribute('aria-label')]);
    """
    player.wait("the Dominion", lambda s: bool(s.driver.execute_script(read)))
    assert player.driver.execute_script(read) == [
        "4", "3", "1.5",
        "Spiritual Dominion Ward at 4, 3, radius 1.5″: Strikes cannot pass through it",
    ]  # fmt: skip
    assert player.driver.execute_script(SIDEWAYS) <= 0, "the page scrolls sideways"
    assert_accessible(player.driver, ["#map-part"])
