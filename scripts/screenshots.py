"""Screenshots of the web table's main views, for docs/web.md (run: make screenshots).

Serves the demo table (``tableside serve --demo``'s War) on a free loopback port against a
temporary SQLite file, opens it in headless chromium (Debian's ``chromium`` and
``chromium-driver``) as the Host and as the holy player, has the fallen player's Jackal close in
and Strike the Watcher, and saves PNGs under docs/screenshots/. The dice are the demo's seeded
dice, so the pictures are the same on every run.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser tests' server and browser helpers

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from test_web_e2e import (  # noqa: E402
    CHROMEDRIVER,
    CHROMIUM,
    FALLEN,
    HOLY,
    WAR,
    LiveServer,
    Seat,
    open_browser,
)

from tableside.web.demo import create_demo  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
WIDTH = 1700


def shoot(driver: WebDriver, name: str) -> Path:
    """Save the whole page (the window grown to the page's height) as docs/screenshots/name."""
    driver.execute_script("const log = document.getElementById('log');"
                          "if (log) log.scrollTop = log.scrollHeight;")  # fmt: skip
    for _ in range(2):  # again once the new width has settled the page's height
        height = int(driver.execute_script("return document.documentElement.scrollHeight;"))
        driver.set_window_size(WIDTH, height + 150)
    path = OUT / name
    if not driver.save_screenshot(str(path)):
        raise RuntimeError(f"chromium saved no screenshot for {name}")
    driver.set_window_size(WIDTH, 1000)
    return path


def main() -> int:
    """Take the screenshots and list them."""
    OUT.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp, LiveServer(f"sqlite:///{tmp}/demo.db") as live:
        demo = create_demo(live.table)
        drivers = [open_browser(CHROMIUM, CHROMEDRIVER, Path(tmp) / who) for who in "hpf"]
        try:
            host, holy, fallen = (
                Seat(n, d) for n, d in zip(("Host", HOLY, FALLEN), drivers, strict=True)
            )
            host.driver.get(live.base + demo.host_page)
            for seat in (holy, fallen):
                seat.driver.get(live.base + demo.player_links[seat.name])
            saved.append(shoot(holy.driver, "join-page.png"))
            for seat in (holy, fallen):
                seat.driver.find_element(By.LINK_TEXT, WAR).click()
                seat.wait("the War", lambda s: s.text("revision") == "9")
            saved.append(shoot(host.driver, "host-war.png"))
            saved.append(shoot(holy.driver, "player-page.png"))
            fallen.send("move", '{"id": "Jackal", "to": [4, 2, 0]}')
            fallen.wait("the move", lambda s: s.text("revision") == "10")
            fallen.send(
                "strike", '{"striker": "Jackal", "defender": "Watcher", "path": [[3, 2, 0]]}'
            )
            for seat in (host, holy):
                seat.wait("the Strike", lambda s: s.combatant("Watcher")["endurance"] == "50")
            saved.append(shoot(host.driver, "after-strike.png"))
            holy.send("stance", '{"id": "Jackal"}')  # not the holy player's: refused
            holy.wait("the refusal", lambda s: "'Jackal'" in s.text("error"))
            saved.append(shoot(holy.driver, "player-refused.png"))
        finally:
            for driver in drivers:
                driver.quit()
    for path in saved:
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
