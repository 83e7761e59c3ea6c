"""Rules the fast Strife engine plays since issue 26, against the full engine (F-72 … F-74).

For each of the agreement tests' three fights
(``tests/test_simulate_agreement_strife_rules.py``): ``bound`` (Feared, Taunted, Controlled,
Exhaustion at the start), ``instants`` (a Sprint's Whole Turn, an instant used this Turn and one
owed) and ``torrent`` (Arcane Torrent, one casting roll over three Goblins): fights per second of
``simulate(..., engine="full", workers=1)`` (what ``engine="fast"`` played before: it fell back
to the full engine) and of ``engine="fast"`` warm (laws and tables built, and the kernel
compiled, by a first call), with the ratio, in this process; which fast path played (the
kernel, or the Python path and why). CPU time is the steadier figure on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the agreement tests' fights

from fast_strife_rate import line  # noqa: E402
from test_simulate_agreement_strife_rules import FIGHTS  # noqa: E402
from timing import timed  # noqa: E402

from tableside.simulate import simulate  # noqa: E402
from tableside.simulate.fast_strife_compiled import why_not_kernel  # noqa: E402
from tableside.simulate.runs import load_start  # noqa: E402


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", type=int, default=300, help="fights on the full engine")
    parser.add_argument("--fast", type=int, default=20000, help="fights on the fast engine")
    args = parser.parse_args()
    print(f"policy strife, one worker; load {os.getloadavg()[0]:.2f}")
    for name, fight in FIGHTS.items():
        document = fight()
        kernel = why_not_kernel("strife-combat", load_start(document).state)
        path = "kernel" if kernel is None else f"Python fast path ({kernel})"
        print(f"{name}: {path}")

        def play(engine: str, runs: int, document: object = document) -> Callable[[], object]:
            return lambda: simulate(document, runs, seed=2026, workers=1, engine=engine)

        base = line("full engine", args.full, *timed(play("full", args.full)), None)
        report = simulate(document, 200, seed=1, workers=1, engine="fast")  # laws, tables
        assert report["engine"] == "fast" and "fallback" not in report, report.get("fallback")
        line("fast engine, warm", args.fast, *timed(play("fast", args.fast)), base)
    print(f"  load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
