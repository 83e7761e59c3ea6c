"""The map's pan and zoom frame rate with 40 tokens on a phone-sized viewport (W-61, issue 24).

Serves a Realm of Strife fight of 40 models (a grid 1.5 inches apart, both sides, names placed,
health rings) on a temporary SQLite file, opens the Host's page in headless chromium (Debian's
``chromium`` and ``chromium-driver``) at 390 × 844, and measures ``requestAnimationFrame``
intervals in the page while, once a frame, the map is

- zoomed by the mouse wheel (a ``WheelEvent`` at the map's centre, in and out), and
- panned by a pointer dragging the ground (``pointerdown``, a ``pointermove`` a frame, ``up``).

Baseline (the same page, the same process, just before): frames with nothing dispatched, the
browser's own frame rate here. The ratio is the interaction's frame rate over the baseline's; a
ratio near 1 means pan and zoom cost no frames. ``work`` is the handlers' own time per frame
(JavaScript, measured around each dispatch), and ``p95`` the 95th percentile frame interval.

Run: ``.venv/bin/python bench/map_frames.py [--frames 240] [--tokens 40]``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser tests' server and browser helpers

from test_web_e2e import CHROMEDRIVER, CHROMIUM, LiveServer, open_browser  # noqa: E402

from tableside.encounter.log import Command  # noqa: E402
from tableside.web.auth import Principal  # noqa: E402

FRAMES = """
const [n, mode, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const svg = document.getElementById('map'), r = svg.getBoundingClientRect();
const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
const times = [], work = [];
let i = 0, x = cx;
if (mode === 'pan') svg.dispatchEvent(new PointerEvent('pointerdown', {pointerId: 7,
  clientX: x, clientY: cy, bubbles: true, isPrimary: true}));
function frame(t) {
  times.push(t);
  const w0 = performance.now();
  if (mode === 'zoom') svg.dispatchEvent(new WheelEvent('wheel', {deltaY: (i % 60 < 30 ? -1 : 1)
    * 40, clientX: cx, clientY: cy, bubbles: true, cancelable: true}));
  if (mode === 'pan') { x += (i % 60 < 30 ? 4 : -4); svg.dispatchEvent(new PointerEvent(
    'pointermove', {pointerId: 7, clientX: x, clientY: cy, bubbles: true, isPrimary: true})); }
  work.push(performance.now() - w0);
  if (++i < n) requestAnimationFrame(frame);
  else { if (mode === 'pan') svg.dispatchEvent(new PointerEvent('pointerup', {pointerId: 7,
    clientX: x, clientY: cy, bubbles: true, isPrimary: true}));
    done({times: times, work: work, tokens: document.querySelectorAll('#map .token').length}); }
}
requestAnimationFrame(frame);
"""


def fight(live: LiveServer, tokens: int) -> str:
    """A fight of ``tokens`` models; the Host's page path."""
    table_id, host_token = live.table.create_table("Bench")
    host = Principal(table_id, None)
    found = live.table.create_encounter(host, table_id, "strife-combat", "Forty", 5)
    for k in range(tokens):
        side, model = ("heroes", "Aldric") if k % 2 else ("monsters", "Goblin")
        args = {"id": f"{model}_{k + 1}", "model": model, "side": side,
                "position": [1.5 * (k % 8), 1.5 * (k // 8), 0]}  # fmt: skip
        live.table.execute(host, found.id, Command("add", args), None)
    return f"/tables/{table_id}/encounters/{found.id}?token={host_token}"


def figures(found: dict[str, Any]) -> tuple[float, float, float]:
    """Frames a second, the 95th percentile interval (ms) and the handlers' mean work (ms)."""
    times = found["times"]
    gaps = sorted(b - a for a, b in itertools.pairwise(times))
    fps = 1000 * len(gaps) / (times[-1] - times[0])
    work = sum(found["work"]) / len(found["work"])
    return fps, gaps[int(0.95 * (len(gaps) - 1))], work


def main() -> None:
    """Print the baseline's and each interaction's frame rate, and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=240)
    parser.add_argument("--tokens", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, LiveServer(f"sqlite:///{tmp}/b.db") as live:
        driver = open_browser(CHROMIUM, CHROMEDRIVER, Path(tmp) / "profile")
        try:
            driver.set_window_size(390, 844)
            driver.set_script_timeout(60)
            driver.get(live.base + fight(live, args.tokens))
            driver.execute_script("document.getElementById('map').scrollIntoView();")
            base = figures(driver.execute_async_script(FRAMES, args.frames, "idle"))
            print(f"{args.tokens} tokens, 390 × 844, {args.frames} frames each")
            print(f"baseline (nothing dispatched): {base[0]:6.1f} frames/s, p95 {base[1]:5.1f} ms")
            for mode in ("zoom", "pan"):
                found = driver.execute_async_script(FRAMES, args.frames, mode)
                fps, p95, work = figures(found)
                print(f"{mode:4} ({found['tokens']} tokens drawn): {fps:6.1f} frames/s, "
                      f"p95 {p95:5.1f} ms, work {work:5.2f} ms/frame, "
                      f"ratio {fps / base[0]:4.2f}")  # fmt: skip
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
