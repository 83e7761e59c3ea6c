"""Screenshots of the fight page, on a desktop and on a phone, for the README and docs/web.md.

Serves the demo table (``tableside serve --demo``: its War and its Realm of Strife fight) on a
free loopback port against a temporary SQLite file, opens it in headless chromium (Debian's
``chromium`` and ``chromium-driver``) as the Host and as each War player, and at 1366 × 768 and
at 390 × 844 saves under docs/screenshots/:

- ``war-host-<size>.png``: the Host's page of the War, Jackal's Turn;
- ``decision-<size>.png``: the holy player's page while the fallen player's Jackal (moved in
  with the play panel's Move) Strikes the Watcher: the Watcher's Obstruction waits for them;
- ``fight-<size>.png``: the fallen player's page once the holy player took both suggestions
  (the Obstruction and the Adjustments): the Strike's roll card in the log (on a phone, the
  one screen around it);
- ``map-<size>.png``: the same page's map (one screen);
- ``strife-<size>.png``: the Host's page of the Realm of Strife fight (the heroes' ambush);

and ``join-page.png`` (desktop): a player's link opens the table's encounters. A desktop shot is
one screen; a phone shot the first two screens. The dice are the demo's seeded dice, so the
pictures are the same on every run.
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
    PANELS,
    WAR,
    LiveServer,
    Seat,
    open_browser,
    take_suggestions,
)

from tableside.web.demo import create_demo  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
SIZES = {"desktop": (1366, 768), "phone": (390, 844)}
SCREENS = {"desktop": 2, "phone": 2}  # how many screens of the page a picture shows
PRESSED = "return document.getElementById('act-strike').getAttribute('aria-pressed');"
LOG_END = "const log = document.getElementById('log'); if (log) log.scrollTop = log.scrollHeight;"
TOP = "window.scrollTo(0, 0);"
SHOW = "document.querySelector(arguments[0]).scrollIntoView({block: arguments[1]});"


def shoot(
    driver: WebDriver,
    name: str,
    size: str = "desktop",
    show: str = "",
    block: str = "start",
    screens: int = 0,
) -> Path:
    """Save what ``driver`` shows (``screens``, or ``size``'s, screens) as docs/screenshots/name.

    The window is sized first and the log scrolled to its newest card; the page is scrolled to
    its top, or brings ``show`` (a CSS selector) to ``block`` (start, center, end) when given.
    Returns the saved file.
    """
    width, height = SIZES[size]
    wanted = height * (screens or SCREENS[size])
    driver.set_window_size(width, wanted)
    inner = int(driver.execute_script("return window.innerHeight;"))
    driver.set_window_size(width, 2 * wanted - inner)  # the page gets ``wanted``, not the window
    driver.execute_script(LOG_END)
    if show:
        driver.execute_script(SHOW, show, block)
    else:
        driver.execute_script(TOP)
    path = OUT / name
    if not driver.save_screenshot(str(path)):
        raise RuntimeError(f"chromium saved no screenshot for {name}")
    driver.set_window_size(width, height)
    return path


def war(live: LiveServer, drivers: list[WebDriver], size: str, saved: list[Path]) -> None:
    """A new demo table at ``size``: the War's pages before, during and after Jackal's Strike."""
    demo = create_demo(live.table)
    host, holy, fallen = (Seat(n, d) for n, d in zip(("Host", HOLY, FALLEN), drivers, strict=True))
    for seat in (host, holy, fallen):
        seat.driver.set_window_size(*SIZES[size])
    host.driver.get(live.base + demo.host_page)
    for seat in (holy, fallen):
        seat.driver.get(live.base + demo.player_links[seat.name])
        if size == "desktop" and seat is holy:
            saved.append(shoot(holy.driver, "join-page.png", screens=1))
        seat.driver.find_element(By.LINK_TEXT, WAR).click()
    for seat in (host, holy, fallen):
        seat.wait("the War", lambda s: s.text("revision") == "9")
    saved.append(shoot(host.driver, f"war-host-{size}.png", size))
    fallen.move_to((4, 2, 0))
    fallen.wait("the move", lambda s: s.text("revision") == "10")
    fallen.wait("the Strike again", lambda s: s.driver.execute_script(PRESSED) == "true")
    fallen.driver.find_element(By.ID, "p-path").send_keys("3,2,0")
    aimed = "return document.getElementById('p-target').value"
    fallen.wait("the Watcher aimed at", lambda s: s.driver.execute_script(aimed) == "Watcher")
    fallen.click("roll")
    holy.wait("a decision", lambda s: s.driver.execute_script(PANELS) == 2)
    saved.append(shoot(holy.driver, f"decision-{size}.png", size))
    take_suggestions(holy)  # the Watcher's Obstruction and Adjustments (issue 11, D-8)
    for seat in (host, holy, fallen):
        seat.wait("the Strike", lambda s: s.text("revision") == "13")
    if size == "phone":  # the roll card, far down on a phone's one column: its screen
        card = "#log > article:last-of-type"
        saved.append(shoot(fallen.driver, "fight-phone.png", size, card, "center", screens=1))
    else:
        saved.append(shoot(fallen.driver, "fight-desktop.png", size))
    saved.append(shoot(fallen.driver, f"map-{size}.png", size, "#map-part", screens=1))
    host.driver.get(live.base + demo.fight_page)
    host.wait("the fight", lambda s: "Ambush" in s.text("whose"))
    host.wait("the odds", lambda s: not s.text("odds-summary").startswith("Choose"))
    saved.append(shoot(host.driver, f"strife-{size}.png", size))


def main() -> int:
    """Take the screenshots and list them."""
    OUT.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp, LiveServer(f"sqlite:///{tmp}/demo.db") as live:
        drivers = [open_browser(CHROMIUM, CHROMEDRIVER, Path(tmp) / who) for who in "hpf"]
        try:
            for size in SIZES:
                war(live, drivers, size, saved)
        finally:
            for driver in drivers:
                driver.quit()
    for path in saved:
        sys.stdout.write(f"{path.relative_to(ROOT)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
