"""Screenshots of the Host's set-up pages and of a secret NPC on a player's page (docs/web.md).

Serves the web table on a free loopback port against a temporary SQLite file, and in headless
chromium the Host creates a table, a War (seed 7), imports examples/herald.json, adds a secret
NPC by the form (after one refused try) and a player's seat; the player opens the fight. Saves
PNGs under docs/screenshots/ (run: ``.venv/bin/python scripts/setup_screenshots.py``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser tests' server and browser helpers
sys.path.insert(0, str(ROOT / "scripts"))

from screenshots import shoot  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from test_web_e2e import CHROMEDRIVER, CHROMIUM, LiveServer, Seat, open_browser  # noqa: E402
from test_web_e2e_setup import body, fill, submit  # noqa: E402

HERALD = ROOT / "examples" / "herald.json"
BOSS = {"name": "Boss", "might": "47", "swiftness": "37", "control": "33", "endurance": "4321",
        "resolve": "3142", "passion": "1732", "x": "1"}  # fmt: skip
WAR = "Ford at dusk"


def host_sets_up(host: Seat, base: str, saved: list[Path]) -> str:
    """The Host's part; returns the player's join link."""
    host.driver.get(base + "/")
    fill(host.driver, "new-table", {"name": "Friday night"})
    saved.append(shoot(host.driver, "setup-home.png"))
    submit(host.driver, "new-table")
    host.wait("the Host link", lambda s: "keep it secret" in body(s))
    saved.append(shoot(host.driver, "setup-host-link.png"))
    host.driver.find_element(By.ID, "continue").click()
    host.wait("the table page", lambda s: "You are the Host" in body(s))
    fill(host.driver, "new-encounter", {"name": WAR, "seed": "7"})
    submit(host.driver, "new-encounter")
    host.wait("the set-up page", lambda s: "Import a character" in body(s))
    host.driver.find_element(By.ID, "import-file").send_keys(str(HERALD))
    document = host.driver.find_element(By.ID, "import-document")
    host.wait("the file read", lambda _s: "Herald" in str(document.get_property("value")))
    submit(host.driver, "import-form")
    host.wait("Herald added", lambda s: "Herald" in s.text("setup-combatants"))
    bad = '{"format": "tableside/majesty-character", "version": 1, "name": "Boss",\n'
    fill(host.driver, "import-form", {"document": bad + ' "attributes": {"might": -3}}'})
    submit(host.driver, "import-form")
    host.wait("the refusal", lambda s: "attributes" in s.text("error"))
    saved.append(shoot(host.driver, "setup-form-error.png"))
    fill(host.driver, "character-form", BOSS)
    side = host.driver.find_element(By.CSS_SELECTOR, "#character-form [name='side']")
    Select(side).select_by_value("fallen")
    submit(host.driver, "character-form")
    host.wait("Boss added", lambda s: "Boss" in s.text("setup-combatants"))
    saved.append(shoot(host.driver, "setup-encounter.png"))
    host.driver.find_element(By.LINK_TEXT, "the table").click()
    host.wait("the table page", lambda s: "Players" in body(s))
    fill(host.driver, "new-player", {"name": "Ann"})
    host.driver.find_element(By.CSS_SELECTOR, "#new-player input[value='Herald']").click()
    saved.append(shoot(host.driver, "setup-table.png"))
    submit(host.driver, "new-player")
    host.wait("the join link", lambda s: "Share this link" in body(s))
    link: str = host.driver.find_element(By.CSS_SELECTOR, "#secret-link a").text
    return link


def main() -> int:
    """Take the screenshots and list them."""
    saved: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp, LiveServer(f"sqlite:///{tmp}/setup.db") as live:
        drivers = [open_browser(CHROMIUM, CHROMEDRIVER, Path(tmp) / who) for who in "hp"]
        try:
            host, player = Seat("Host", drivers[0]), Seat("Ann", drivers[1])
            join = host_sets_up(host, live.base, saved)
            player.driver.get(join)
            player.driver.find_element(By.LINK_TEXT, WAR).click()
            player.wait("the fight", lambda s: s.combatant("Boss")["endurance"] == "unknown")
            saved.append(shoot(player.driver, "player-secret-npc.png"))
        finally:
            for driver in drivers:
                driver.quit()
    for path in saved:
        sys.stdout.write(f"{path.relative_to(ROOT)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
