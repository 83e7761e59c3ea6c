"""The fast Realm of Strife simulator against the full engine, in one process (issue 15).

Prints, for ``examples/strife_ambush.json`` under the documented Strife policy: fights per
second of ``--engine full`` (``simulate(..., engine="full", workers=1)``) and of ``--engine
fast`` (``simulate(..., engine="fast", workers=1)``) with their ratio, wall clock and CPU time
of this process (the machine may be shared: CPU time is the steadier figure). The fast engine
is timed cold (its attack laws computed in this call) and warm (laws known), then the first
attack law in this process is timed alone.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from tableside.simulate import fast_strife, simulate
from tableside.simulate.runs import load_start

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def line(label: str, runs: int, wall: float, cpu: float, base: float | None) -> float:
    """Print one rate; return runs per CPU second."""
    rate = runs / cpu
    ratio = "" if base is None else f"  x{rate / base:,.1f} full (CPU)"
    print(f"  {label:<30} {runs:>7} runs  {runs / wall:>10,.1f} /s wall  {rate:>10,.1f} /s CPU"
          f"{ratio}")  # fmt: skip
    return rate


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", type=int, default=300, help="fights on the full engine")
    parser.add_argument("--fast", type=int, default=20000, help="fights on the fast engine")
    args = parser.parse_args()
    document = json.loads((EXAMPLES / "strife_ambush.json").read_text("utf-8"))
    print(f"strife_ambush.json, policy strife, one worker; load {os.getloadavg()[0]:.2f}")
    state = load_start(document).state
    began = time.perf_counter()
    laws = fast_strife.Batch(state).laws
    ms = 1000 * (time.perf_counter() - began)
    print(f"  {len(laws.table)} attack laws computed in {ms:.1f} ms"
          " (first in this process)")  # fmt: skip
    fast_strife._KNOWN.clear()
    fast_strife._LAWS.clear()

    def play(engine: str, runs: int) -> Callable[[], object]:
        return lambda: simulate(document, runs, seed=2026, workers=1, engine=engine)

    base = line("full engine", args.full, *timed(play("full", args.full)), None)
    line("fast engine, cold", args.fast, *timed(play("fast", args.fast)), base)
    line("fast engine, laws known", args.fast, *timed(play("fast", args.fast)), base)


if __name__ == "__main__":
    main()
