"""Screenshots of the play form: a player's Strike being aimed and the Host's attack (docs/web.md).

Serves the web table on a free loopback port against a temporary SQLite file (the browser tests'
:class:`LiveServer`, a real uvicorn server in this process) and opens it in headless chromium
(Debian's ``chromium`` and ``chromium-driver``):

- ``play-strike.png``: the demo War (seed 7) as the fallen player, whose Jackal holds the Turn:
  Jackal moves in with the page's Move button, aims at the Watcher along a path with a Maneuver,
  the exact odds show, physical dice are typed, ``best``'s suggestion shows (M-13) and *Change*
  opens its explicit steps;
- ``play-attack.png``: a Realm of Strife fight begun with an ambush as the Host: Aldric's attack
  on the Goblin, its odds and the preview of typed d100 and damage dice (S-7).

Nothing is accepted, so the pictures show the form, not the result. The dice are typed and the
encounters' seeds recorded, so the pictures are the same on every run. Run:
``.venv/bin/python scripts/play_screenshots.py`` (or ``make screenshots``).
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
from selenium.webdriver.support.select import Select  # noqa: E402
from test_web_e2e import CHROMEDRIVER, CHROMIUM, FALLEN, WAR, LiveServer, open_browser  # noqa: E402
from test_web_e2e_play import Person, fight_table, options, target_texts  # noqa: E402

from tableside.web.demo import create_demo  # noqa: E402

STRIKE_DICE = "9, 4, 12, 3, 8, 1, 10"
MANEUVER = "Piercing Thrust"
ATTACK_DICE = "70, 8"


def refused(seat: Person) -> None:
    """Stop with the page's own refusal, if it shows one (the pictures would show it too)."""
    error = seat.text("error")
    if error:
        raise RuntimeError(f"The page refused a step: {error}")


def aim_a_strike(player: Person, base: str, link: str) -> None:
    """The fallen player opens the War, moves Jackal in and aims at the Watcher with dice."""
    player.driver.get(base + link)
    player.driver.find_element(By.LINK_TEXT, WAR).click()
    player.wait("the War", lambda s: s.text("revision") == "9")
    player.wait("the pickers", lambda _s: "Jackal" in options(player, "p-actor"))
    Select(player.find("p-actor")).select_by_value("Jackal")
    player.type("q-to", "4,2,0")
    player.find("q-move").click()
    player.wait("the move", lambda s: s.text("revision") == "10")
    player.wait('Watcher 4" away', lambda _s: 'Watcher (4")' in target_texts(player))
    Select(player.find("p-target")).select_by_value("Watcher")
    Select(player.find("p-weapon")).select_by_index(0)
    player.type("p-path", "3,2,0")
    player.wait("the odds", lambda s: s.text("odds-summary").startswith("P(Defeat)"))
    plain = player.text("odds-summary")
    player.driver.find_element(By.CSS_SELECTOR, f"#p-maneuvers input[value='{MANEUVER}']").click()
    player.wait(f"the odds with {MANEUVER}", lambda s: s.text("odds-summary") != plain)
    refused(player)
    player.type("my-dice", STRIKE_DICE)
    player.find("use-dice").click()
    player.wait(
        "the suggestion", lambda s: player.find("suggestion").is_displayed() or s.text("error")
    )
    refused(player)
    player.find("change").click()


def aim_an_attack(host: Person, base: str, fight: tuple[int, int, str]) -> None:
    """The Host opens the ambush fight and previews Aldric's attack on the Goblin with dice."""
    table_id, encounter_id, token = fight
    host.driver.get(f"{base}/tables/{table_id}/encounters/{encounter_id}?token={token}")
    host.wait("the fight", lambda s: s.text("whose") == "Ambush round (heroes): Aldric's Turn")
    host.wait("the pickers", lambda _s: "Aldric" in options(host, "p-actor"))
    Select(host.find("p-actor")).select_by_value("Aldric")
    host.wait("the target", lambda _s: target_texts(host) == ['Goblin (1")'])
    host.wait("the odds", lambda s: s.text("odds-summary").startswith("P(defeat)"))
    host.type("my-dice", ATTACK_DICE)
    host.find("use-dice").click()
    host.wait("the preview", lambda s: host.find("suggestion").is_displayed() or s.text("error"))
    refused(host)


def main() -> int:
    """Take the screenshots and list them."""
    saved: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp, LiveServer(f"sqlite:///{tmp}/play.db") as live:
        demo = create_demo(live.table)
        fight = fight_table(live)
        drivers = [open_browser(CHROMIUM, CHROMEDRIVER, Path(tmp) / who) for who in "ph"]
        try:
            player, host = Person(FALLEN, drivers[0]), Person("Host", drivers[1])
            aim_a_strike(player, live.base, demo.player_links[FALLEN])
            saved.append(shoot(player.driver, "play-strike.png"))
            aim_an_attack(host, live.base, fight)
            saved.append(shoot(host.driver, "play-attack.png"))
        finally:
            for driver in drivers:
                driver.quit()
    for path in saved:
        sys.stdout.write(f"{path.relative_to(ROOT)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
