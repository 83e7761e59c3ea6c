"""The map as the stage (issue 24, docs/web.md W-60 … W-68) in headless chromium, both sizes.

The demo War (seed 7, Jackal's Turn, the fallen player plays Jackal) and a Realm of Strife melee
of six models an inch apart. The Host and a player each have their own browser.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from test_web_e2e import FALLEN, HOLY, WAR, LiveServer, Seat, e2e_fixtures

from tableside.encounter.log import Command
from tableside.store import table_audience
from tableside.store.layers import Area, layers
from tableside.web.auth import Principal
from tableside.web.demo import DemoLinks, create_demo

pytestmark = pytest.mark.slow
DESKTOP, PHONE = (1366, 768), (390, 844)
SIZES = pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
RECT = """const r = document.querySelector(arguments[0]).getBoundingClientRect();
return {left: r.left, top: r.top, width: r.width, height: r.height, bottom: r.bottom,
  right: r.right, inner: innerHeight, wide: innerWidth};"""
SHOW_MAP = "document.getElementById('map').scrollIntoView({block: 'center'});"
VIEW = "return document.getElementById('map').getAttribute('viewBox').split(' ').map(Number);"
# where (x, y) inches are on the screen (viewport pixels)
SCREEN = """const svg = document.getElementById('map');
const p = new DOMPoint(arguments[0], arguments[1]).matrixTransform(svg.getScreenCTM());
return [p.x, p.y];"""
# every drawn word and token body of the map whose boxes cross (half a pixel of slack)
CROSSING = """
const parts = [...document.querySelectorAll('#map .token-label:not(.tucked) .name, ' +
  '#map .token-label .elevation, #map .token .body, #map .plan .cost, #map .ring-label')]
  .map(n => { const r = n.getBoundingClientRect(), g = n.closest('[data-label-for]');
    return {name: (g ? g.dataset.labelFor : n.closest('[data-combatant]') ?
      n.closest('[data-combatant]').dataset.combatant : '') + ' ' + n.getAttribute('class'),
      body: n.classList.contains('body'), r: r}; });
const out = [];
for (let i = 0; i < parts.length; i++) for (let j = i + 1; j < parts.length; j++) {
  const a = parts[i], b = parts[j], p = a.r, q = b.r;
  if (a.body && b.body) continue;
  if (p.left < q.right - 0.5 && q.left < p.right - 0.5 && p.top < q.bottom - 0.5 &&
      q.top < p.bottom - 0.5) out.push(a.name + ' / ' + b.name);
}
return {crossing: out, names: document.querySelectorAll('#map .token-label:not(.tucked) .name')
  .length, tokens: document.querySelectorAll('#map .token').length};
"""
LISTEN = """window.raw = [];
for (const k of ['record', 'moved', 'map'])
  source.addEventListener(k, e => window.raw.push(k + ' ' + e.data));"""
FETCH = """const done = arguments[arguments.length - 1];
const [method, path, body, type] = arguments;
const data = type === 'png' ? Uint8Array.from(atob(body), c => c.charCodeAt(0)) : body;
fetch(api + path, {method: method, headers: {'X-CSRF-Token': boot.csrf,
  'Content-Type': type === 'png' ? 'image/png' : 'application/json'}, body: data})
  .then(r => r.text().then(t => done([r.status, t])));"""
MELEE = (
    ("Mara", "Aldric", "heroes", (0, 0)), ("Brann", "Sera", "heroes", (1, 0)),
    ("Troll", "Cave Troll", "monsters", (2, 0)), ("Goblin", "Goblin", "monsters", (0, 1)),
    ("Goblin_2", "Goblin", "monsters", (1, 1)), ("Goblin_3", "Goblin", "monsters", (2, 1)),
)  # fmt: skip


class Person(Seat):
    def wait(self, what: str, check: Callable[[Any], Any]) -> None:
        """Seat.wait with a check that reads this Person's helpers."""
        super().wait(what, check)

    def rect(self, selector: str) -> dict[str, float]:
        found: dict[str, float] = self.driver.execute_script(RECT, selector)
        return found

    def view(self) -> list[float]:
        found: list[float] = self.driver.execute_script(VIEW)
        return found

    def screen(self, x: float, y: float) -> tuple[float, float]:
        p = self.driver.execute_script(SCREEN, x, y)
        return float(p[0]), float(p[1])

    def tap(self, x: float, y: float) -> None:
        """A real pointer's tap at (x, y) inches (the map in view)."""
        self.at(x, y).click().perform()

    def at(self, x: float, y: float) -> ActionChains:
        """A pointer over (x, y) inches of the map."""
        self.driver.execute_script(SHOW_MAP)
        px, py = self.screen(x, y)  # viewport pixels (an element's "centre" is its part in view)
        chain = ActionChains(self.driver)
        chain.w3c_actions.pointer_action.move_to_location(int(px), int(py))  # type: ignore[no-untyped-call]
        return chain

    def drag(self, name: str, start: tuple[float, float], end: tuple[float, float]) -> None:
        """A real pointer's drag of a token from ``start`` to ``end`` (inches), in two steps."""
        token = self.driver.find_element(By.CSS_SELECTOR, f'#map .token[data-combatant="{name}"]')
        sx, sy = self.screen(*start)
        tx, ty = self.screen(*end)
        ActionChains(self.driver).move_to_element(token).click_and_hold().move_by_offset(
            int((tx - sx) / 2), 0
        ).move_by_offset(int((tx - sx) / 2), int(ty - sy)).release().perform()

    def call(self, method: str, path: str, body: str, kind: str = "json") -> tuple[int, str]:
        found = self.driver.execute_async_script(FETCH, method, path, body, kind)
        return int(found[0]), str(found[1])

    def tokens(self) -> list[str]:
        found: list[str] = self.driver.execute_script(
            "return [...document.querySelectorAll('#map .token')].map(t => t.dataset.combatant);"
        )
        return found


server, browsers = e2e_fixtures("stage", "host", "player")


def open_war(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver], size: Any, player: str = FALLEN
) -> tuple[DemoLinks, Person, Person]:
    demo = create_demo(server.table)
    host, seat = Person("Host", browsers[0]), Person(player, browsers[1])
    for s in (host, seat):
        s.driver.set_window_size(*size)
    host.driver.get(server.base + demo.host_page)
    seat.driver.get(server.base + demo.player_links[player])
    seat.driver.find_element(By.LINK_TEXT, WAR).click()
    for s in (host, seat):
        s.wait("the War", lambda p: p.text("revision") == "9")
        s.wait("the map", lambda p: len(p.tokens()) == 8)
        s.driver.execute_script("localStorage.clear();")
    return demo, host, seat


@SIZES
def test_w60_the_map_is_the_stage_in_view_on_load(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver], size: Any
) -> None:
    _demo, _host, player = open_war(server, browsers, size)
    box, panel, turn = player.rect("#map"), player.rect("#play-panel"), player.rect("#turn-head")
    assert box["top"] >= 0 and box["top"] < box["inner"] / 2
    assert box["bottom"] <= box["inner"] + 1, box  # the whole map in the first screen
    if size == DESKTOP:
        assert box["width"] >= box["wide"] / 2 and box["left"] < 20
        assert panel["left"] >= box["right"]  # the play panel beside it
    else:
        assert box["width"] >= 0.9 * box["wide"]  # full width
    # whose Turn it is and the actions, in the first screen too (a phone: the bottom sheet)
    assert turn["bottom"] < turn["inner"] and player.rect("#actions")["top"] < turn["inner"]


@SIZES
def test_w61_wheel_buttons_keys_and_fingers_zoom_and_pan_and_the_view_is_kept(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver], size: Any
) -> None:
    demo, _host, player = open_war(server, browsers, size)
    d = player.driver
    fit = player.view()
    player.driver.find_element(By.CSS_SELECTOR, "button[aria-label='Zoom in']").click()
    zoomed = player.view()
    assert zoomed[2] == pytest.approx(fit[2] / 1.25, rel=1e-3)
    d.find_element(By.CSS_SELECTOR, "button[aria-label='Zoom out']").click()
    assert player.view()[2] == pytest.approx(fit[2], rel=1e-3)
    svg = d.find_element(By.ID, "map")
    ActionChains(d).scroll_from_origin(ScrollOrigin.from_element(svg), 0, -200).perform()
    player.wait("the wheel's zoom", lambda p: p.view()[2] < fit[2] * 0.9)
    wheel = player.view()
    svg.send_keys(Keys.SHIFT, Keys.ARROW_RIGHT)  # Shift+→ pans an eighth of the view
    assert player.view()[0] == pytest.approx(wheel[0] + wheel[2] / 8, rel=1e-3)
    svg.send_keys("+")
    assert player.view()[2] == pytest.approx(wheel[2] / 1.25, rel=1e-3)
    # two fingers spread apart: a pinch zooms in
    before = player.view()
    mx, my = player.screen(4, 3)
    touch = [{"x": mx - 30, "y": my, "id": 1}, {"x": mx + 30, "y": my, "id": 2}]
    d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": touch})
    for step in range(1, 6):
        spread = [{"x": mx - 30 - 12 * step, "y": my, "id": 1},
                  {"x": mx + 30 + 12 * step, "y": my, "id": 2}]  # fmt: skip
        d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": spread})
    d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    player.wait("the pinch", lambda p: p.view()[2] < before[2] * 0.8)
    kept = player.view()
    # a live update and a reload keep the view; Fit goes back to the fight
    host = Principal(demo.table_id, None)
    server.table.execute(
        host, demo.encounter_id, Command("move", {"id": "Jackal", "to": [7, 2, 0]}), None
    )
    player.wait("the move", lambda p: p.text("revision") == "10")
    assert player.view() == pytest.approx(kept, rel=1e-3)
    stored = d.execute_script("return JSON.stringify(localStorage);")
    d.refresh()
    player.wait("the map again", lambda p: len(p.tokens()) == 8)
    assert player.view() == pytest.approx(kept, rel=1e-3), stored
    d.find_element(By.CSS_SELECTOR, "button[aria-label='Fit']").click()
    assert player.view() == pytest.approx(fit, abs=1)


def melee(server: LiveServer, demo: DemoLinks) -> int:
    """A Realm of Strife melee of six models an inch apart; NPCs decide for themselves."""
    host = Principal(demo.table_id, None)
    web = server.table
    fight = web.create_encounter(host, demo.table_id, "strife-combat", "Melee", 3)
    table_audience.set_decision_settings(
        web.store, fight.id, table_audience.DecisionSettings(npcs_decide="auto")
    )
    for cid, model, side, (x, y) in MELEE:
        args = {"id": cid, "model": model, "side": side, "position": [x, y, 0]}
        web.execute(host, fight.id, Command("add", args), None)
    web.execute(host, fight.id, Command("start", {"ambush": "heroes"}), None)
    return fight.id


@SIZES
def test_w63_no_two_labels_cross_in_a_six_model_melee_and_w62_names_are_the_fights(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver], size: Any
) -> None:
    demo, host, _player = open_war(server, browsers, size)
    fight = melee(server, demo)
    host.driver.get(server.base + f"/tables/{demo.table_id}/encounters/{fight}")
    host.wait("the melee", lambda p: len(p.tokens()) == 6)
    found = host.driver.execute_script(CROSSING)
    assert found["crossing"] == [] and found["tokens"] == 6, found
    # two of a kind are Goblin 1, 2 and 3 on the map (initials inside, names placed or on focus)
    names = host.driver.execute_script(
        "return [...document.querySelectorAll('#map .token-label .name')].map(n => n.textContent);"
    )
    assert {"Goblin 1", "Goblin 2", "Goblin 3"} <= set(names), names
    # the log names the combatant, not its sheet ("Goblin attacks Goblin" was the bug)
    current = server.table.state(fight, Principal(demo.table_id, None))["current"]
    attack = {"attacker": current, "attacks": [{"defender": "Goblin_2"}]}
    server.table.execute(Principal(demo.table_id, None), fight, Command("attack", attack), None)
    host.wait("the attack in the log", lambda p: any("Goblin 2" in line for line in p.log()))
    said = [line for line in host.log() if "Goblin 2" in line]
    assert said and said[0].startswith(current), said


@SIZES
def test_w64_the_ruler_reads_inches_tap_to_tap(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver], size: Any
) -> None:
    _demo, _host, player = open_war(server, browsers, size)
    player.driver.find_element(By.CSS_SELECTOR, "button[aria-label='Ruler']").click()
    player.tap(1, 1)
    player.tap(4, 5)
    player.wait("the reading", lambda p: p.text("map-status").startswith("Ruler: 5″"))
    assert player.driver.find_element(By.ID, "map").get_attribute("data-ruler") == "5"


def test_w64_the_ruler_from_a_token_reads_the_engines_price_along_its_path(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    """From Jackal (the player's, its Turn) the ruler asks …/move-cost as a drag does (W-20)."""
    demo, _host, player = open_war(server, browsers, PHONE)
    player.driver.find_element(By.CSS_SELECTOR, "button[aria-label='Ruler']").click()
    player.tap(8, 2)  # Jackal's token
    player.tap(5, 2)
    player.wait("the price", lambda p: "its move there" in p.text("map-status"))
    said = player.text("map-status")
    assert said.startswith("Ruler: 3″ from Jackal to 5, 2; its move there: 3″ along its path, ")
    assert said.endswith(", 3 AP.")  # 1 AP an inch (M-40)
    svg = player.driver.find_element(By.ID, "map")
    assert svg.get_attribute("data-ruler") == "3" and svg.get_attribute("data-ruler-path") == "3"
    assert player.driver.find_elements(By.CSS_SELECTOR, "#map .ruler polyline.priced")
    assert server.table.store.encounter(demo.encounter_id).revision == 9  # nothing was sent
    player.tap(2, 2)  # from the ground: the straight line only, no price
    player.tap(2, 5)
    player.wait("the line", lambda p: p.text("map-status") == "Ruler: 3″ from 2, 2 to 2, 5.")
    assert svg.get_attribute("data-ruler-path") is None


def test_w65_a_background_the_host_uploads_is_seen_by_a_player(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    _demo, host, player = open_war(server, browsers, DESKTOP)
    out = io.BytesIO()
    Image.new("RGB", (60, 30), (80, 110, 60)).save(out, "PNG")
    png = base64.b64encode(out.getvalue()).decode()
    status, text = player.call("PUT", "/background?width=12", png, "png")
    assert status == 403 and "Host" in json.loads(text)["error"]
    status, text = host.call("PUT", "/background?width=12&x=-1&y=-1", png, "png")
    assert status == 200, text
    image = "#map image.backdrop"
    player.wait("the background", lambda p: p.driver.find_elements(By.CSS_SELECTOR, image))
    shown = player.driver.find_element(By.CSS_SELECTOR, image)
    assert shown.get_attribute("width") == "12" and shown.get_attribute("height") == "6"
    host.call("DELETE", "/background", "")
    player.wait("gone", lambda p: not p.driver.find_elements(By.CSS_SELECTOR, image))


def test_w66_a_fogged_npc_is_not_in_the_players_dom_nor_stream(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    demo, host, player = open_war(server, browsers, PHONE, player=HOLY)
    player.driver.execute_script(LISTEN)
    status, text = host.call(
        "PUT", "/fog", json.dumps({"areas": [{"x": 7, "y": -1, "w": 2, "h": 2}]})
    )
    assert status == 200, text
    player.wait("the Warrior gone", lambda p: "Warrior" not in p.tokens())
    assert "Warrior" in host.tokens()  # the Host sees it, under a shaded area
    # it moves within the fog: the record is not streamed to the player
    server.table.execute(
        Principal(demo.table_id, None), demo.encounter_id,
        Command("host_set", {"id": "Warrior", "field": "position", "value": [8, 0.5, 0]}), None,
    )  # fmt: skip
    player.wait("the table moved on", lambda p: p.text("revision") == "10")
    raw = player.driver.execute_script("return window.raw.join('\\n');")
    assert "Warrior" not in raw
    player.driver.refresh()
    player.wait("the map", lambda p: len(p.tokens()) == 7)
    assert '"Warrior"' not in player.driver.page_source
    assert 'data-combatant="Warrior"' not in player.driver.page_source


def test_w67_a_ping_is_seen_by_everyone(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    _demo, host, player = open_war(server, browsers, DESKTOP)
    player.at(3, 3).click_and_hold().pause(0.9).release().perform()
    host.wait("the ping", lambda p: p.driver.find_elements(By.CSS_SELECTOR, "#map .ping"))
    ping = host.driver.find_element(By.CSS_SELECTOR, "#map .ping")
    assert ping.get_attribute("transform") == "translate(3 3)" or "translate(" in str(
        ping.get_attribute("transform")
    )
    assert ping.get_attribute("data-ping") == FALLEN


@SIZES
def test_w68_dragging_a_token_prices_the_move_and_one_tap_confirms_it(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver], size: Any
) -> None:
    _demo, host, player = open_war(server, browsers, size)
    player.drag("Jackal", (8, 2), (5.5, 2))
    player.wait("the cost", lambda p: p.text("map-confirm").startswith("Move here ("))
    assert host.text("revision") == "9"  # nothing sent before the tap
    player.driver.find_element(By.ID, "map-confirm").click()
    host.wait("the move", lambda p: p.text("revision") == "10")
    moved = server.table.state(_demo.encounter_id, Principal(_demo.table_id, None))
    jackal = next(c for c in moved["combatants"] if c["id"] == "Jackal")
    assert jackal["position"][0] == pytest.approx(5.5, abs=0.5)


def test_w68_the_host_drags_any_token_to_place_it(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    demo, host, _player = open_war(server, browsers, DESKTOP)
    host.drag("Brute", (8, 6), (10, 6))
    host.wait(
        "the place button", lambda p: p.driver.find_element(By.ID, "map-place").is_displayed()
    )
    host.driver.find_element(By.ID, "map-place").click()
    host.wait("placed", lambda p: p.text("revision") == "10")
    state = server.table.state(demo.encounter_id, Principal(demo.table_id, None))
    brute = next(c for c in state["combatants"] if c["id"] == "Brute")
    assert brute["position"][:2] == pytest.approx([10, 6], abs=0.5)


def test_w66_the_hosts_fog_tools_rectangle_brush_and_reveal(
    server: LiveServer, browsers: tuple[WebDriver, WebDriver]
) -> None:
    demo, host, _player = open_war(server, browsers, DESKTOP)
    host.driver.execute_script("document.getElementById('map-host').open = true;")
    host.driver.find_element(By.ID, "fog-rect").click()
    host.tap(0.1, 5.1)
    host.tap(2.1, 6.2)  # corners on the half inch: 0, 5 to 2, 6
    host.driver.find_element(By.ID, "fog-brush").click()
    sx, _sy = host.screen(3, 3)
    tx, _ty = host.screen(6, 3)
    host.at(3, 3).click_and_hold().move_by_offset(int((tx - sx) / 2), 0).move_by_offset(
        int((tx - sx) / 2), 0
    ).release().perform()

    def areas() -> list[Area]:
        return list(layers(server.table.store, demo.encounter_id).fog)

    host.wait("the fog stored", lambda _p: len(areas()) >= 3)
    assert areas()[0] == Area(0, 5, 2, 1)
    assert all(a.w == 2 and a.h == 2 and a.y == 2 for a in areas()[1:])  # the brush's squares
    host.driver.find_element(By.ID, "fog-reveal").click()
    host.tap(1, 5.5)
    host.wait("revealed", lambda _p: Area(0, 5, 2, 1) not in areas())
