"""Screenshots of the map as the stage (issue 24, docs/web.md W-60 … W-68), both sizes.

Serves the demo table on a temporary SQLite file and opens it in headless chromium (Debian's
``chromium`` and ``chromium-driver``), each person in their own browser, and saves under
docs/screenshots/ at 1366 × 768 and at 390 × 844 (one screen each):

- ``stage-war-<size>.png``: the fallen player's War page on load: the map, Jackal's Turn and
  the actions in the first screen (on a phone the play panel's bottom sheet under the map);
- ``stage-host-<size>.png``: the Host's page of a Realm of Strife melee of six models an inch
  apart (Goblin 1, 2 and 3 named for this fight, labels placed), with a background image, a
  fogged rectangle and a ruler reading;
- ``stage-player-<size>.png``: the same melee for the heroes' player: the Goblin under the fog is
  not drawn at all.

The dice are seeded, so the pictures are the same on every run.
"""

from __future__ import annotations

import base64
import io
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser tests' server and browser helpers

from PIL import Image, ImageDraw  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from test_web_e2e import CHROMEDRIVER, CHROMIUM, FALLEN, WAR, LiveServer, open_browser  # noqa: E402
from test_web_e2e_stage import MELEE, Person  # noqa: E402

from tableside.encounter.log import Command  # noqa: E402
from tableside.store import tables  # noqa: E402
from tableside.web.auth import Principal  # noqa: E402
from tableside.web.demo import create_demo  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
SIZES = {"desktop": (1366, 768), "phone": (390, 844)}


def backdrop() -> str:
    """A small made-up floor plan (PNG, base64): stone flags and a wall."""
    img = Image.new("RGB", (240, 160), (196, 184, 160))
    draw = ImageDraw.Draw(img)
    for x in range(0, 240, 20):
        for y in range(0, 160, 20):
            draw.rectangle((x + 1, y + 1, x + 18, y + 18), outline=(160, 150, 128))
    draw.rectangle((0, 0, 239, 12), fill=(90, 80, 70))
    out = io.BytesIO()
    img.save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


def settle(driver: WebDriver) -> None:
    """Wait for the page's fetches and drawing, then put the page at its top."""
    time.sleep(1.2)
    driver.execute_script("window.scrollTo(0, 0);")


def main() -> None:
    """Take the pictures."""
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, LiveServer(f"sqlite:///{tmp}/s.db") as live:
        demo = create_demo(live.table)
        host_id = Principal(demo.table_id, None)
        web = live.table
        fight = web.create_encounter(host_id, demo.table_id, "strife-combat", "Melee", 3)
        tables.set_decision_settings(
            web.store, fight.id, tables.DecisionSettings(npcs_decide="auto")
        )
        for cid, model, side, (x, y) in MELEE:
            args = {"id": cid, "model": model, "side": side, "position": [x, y, 0]}
            web.execute(host_id, fight.id, Command("add", args), None)
        web.execute(host_id, fight.id, Command("start", {"ambush": "heroes"}), None)
        _seat, token = web.add_player(
            host_id, demo.table_id, "The heroes' player", ("Mara", "Brann")
        )
        drivers = [open_browser(CHROMIUM, CHROMEDRIVER, Path(tmp) / n) for n in ("h", "p")]
        try:
            host, player = Person("Host", drivers[0]), Person(FALLEN, drivers[1])
            for size, dims in SIZES.items():
                for d in drivers:
                    d.set_window_size(*dims)
                player.driver.get(live.base + demo.player_links[FALLEN])
                player.driver.find_element(By.LINK_TEXT, WAR).click()
                player.driver.execute_script("localStorage.clear();")
                settle(player.driver)
                player.driver.save_screenshot(str(OUT / f"stage-war-{size}.png"))
                host.driver.get(live.base + f"/tables/{demo.table_id}/encounters/{fight.id}"
                                f"?token={demo.host_page.split('token=')[1]}")  # fmt: skip
                host.driver.execute_script("localStorage.clear();")
                settle(host.driver)
                host.call("PUT", "/background?width=12&x=-3&y=-3", backdrop(), "png")
                fog = {"areas": [{"x": 1.5, "y": 0.5, "w": 1, "h": 1}]}
                host.call("PUT", "/fog", json.dumps(fog))
                host.driver.refresh()
                settle(host.driver)
                for _ in range(2):  # closer on the melee
                    host.driver.find_element(
                        By.CSS_SELECTOR, "button[aria-label='Zoom in']"
                    ).click()
                host.driver.find_element(By.CSS_SELECTOR, "button[aria-label='Ruler']").click()
                host.tap(0, 0)
                host.tap(2, 4)
                settle(host.driver)
                host.driver.save_screenshot(str(OUT / f"stage-host-{size}.png"))
                player.driver.get(live.base + f"/join/{token}")
                player.driver.find_element(By.LINK_TEXT, "Melee").click()
                settle(player.driver)
                for _ in range(2):
                    player.driver.find_element(
                        By.CSS_SELECTOR, "button[aria-label='Zoom in']"
                    ).click()
                player.driver.save_screenshot(str(OUT / f"stage-player-{size}.png"))
                host.call("PUT", "/fog", json.dumps({"areas": []}))
                host.call("DELETE", "/background", "")
        finally:
            for d in drivers:
                d.quit()
    print(f"saved stage-*.png under {OUT}")


if __name__ == "__main__":
    main()
