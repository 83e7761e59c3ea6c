"""The fast Realm of Strife simulator against the full engine, in one process (issue 15).

Prints, for ``examples/strife_ambush.json`` under the documented Strife policy: fights per
second of ``--engine full`` (``simulate(..., engine="full", workers=1)``), of ``--engine fast``
(``simulate(..., engine="fast", workers=1)``: the compiled kernel, F-50) timed cold (its attack
laws and tables built in this call) and warm, and of the Python fast path it replaced (warm),
each with its ratio to the full engine; wall clock and CPU time of this process (the machine may
be shared: CPU time is the steadier figure). Then the first attack law in this process alone,
and, in fresh processes, the kernel's first call (loaded from numba's disk cache) and, with
``--compile``, a compilation from scratch (an empty ``NUMBA_CACHE_DIR``).

Then a fight with casters (F-60): Ilsa (``examples/strife_caster.json``, knowing Birds of Prey
then Arcane Missile) and Sera against three Goblins: the full engine, the Python fast path (which
played casters before F-60) and the kernel, each with its ratio to the full engine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from timing import timed, workers_line

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.strife.fight import StrifeFight
from tableside.simulate import fast_strife, fast_strife_compiled, fast_strife_laws, simulate
from tableside.simulate.runs import load_start
from tableside.store.formats import encounter_document

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
FIRST_CALL = """
import json, sys, time
began, cpu = time.perf_counter(), time.process_time()
from tableside.simulate import fast_strife_compiled
from tableside.simulate.runs import load_start
imported = time.perf_counter() - began
state = load_start(json.loads(open(sys.argv[1], encoding="utf-8").read())).state
work, _ = fast_strife_compiled.compiled(state)
wall, cpu = time.perf_counter(), time.process_time()
work.play(1, 0, 1, 100)
print(json.dumps([imported, time.perf_counter() - wall, time.process_time() - cpu]))
"""


def line(label: str, runs: int, wall: float, cpu: float, base: float | None) -> float:
    """Print one rate; return runs per CPU second."""
    rate = runs / cpu
    ratio = "" if base is None else f"  x{rate / base:,.1f} full (CPU)"
    print(f"  {label:<34} {runs:>7} runs  {runs / wall:>10,.1f} /s wall  {rate:>10,.1f} /s CPU"
          f"{ratio}")  # fmt: skip
    return rate


def first_call(cache: str | None = None) -> None:
    """The kernel's first call in a fresh process (from numba's disk cache, or compiled)."""
    env = dict(os.environ)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    path = str(EXAMPLES / "strife_ambush.json")
    done = subprocess.run([sys.executable, "-c", FIRST_CALL, path], env=env, check=True,
                          capture_output=True, text=True)  # fmt: skip
    imported, wall, cpu = json.loads(done.stdout)
    what = "compiled from scratch" if cache is not None else "loaded from numba's disk cache"
    print(
        f"  kernel's first call in a fresh process, {what}: {1000 * wall:,.0f} ms wall,"
        f" {1000 * cpu:,.0f} ms CPU (imports before it: {1000 * imported:,.0f} ms)"
    )


def caster_fight() -> dict[str, Any]:
    """Ilsa (Birds of Prey, then Arcane Missile) and Sera against three Goblins (F-60)."""
    ilsa = json.loads((EXAMPLES / "strife_caster.json").read_text("utf-8"))
    ilsa["powers"] = ["Birds of Prey", "Arcane Missile"]
    encounter: Encounter[Any] = Encounter(StrifeFight(), 5)
    for who, side, x, y, kind in (
        ("Ilsa", "heroes", 0, 0, {"sheet": ilsa}),
        ("Sera", "heroes", 0, 3, {"model": "Sera"}),
        ("Goblin-1", "monsters", 9, 0, {"model": "Goblin"}),
        ("Goblin-2", "monsters", 9, 3, {"model": "Goblin"}),
        ("Goblin-3", "monsters", 9, -3, {"model": "Goblin"}),
    ):
        encounter.execute(Command("add", {"id": who, "side": side,
                                          "position": [x, y, 0.0], **kind}))  # fmt: skip
    return encounter_document("casters", "strife-combat", encounter.seed, encounter.records)


def casters(full: int, python: int, fast: int) -> None:
    """The caster fight on the full engine, the Python fast path and the kernel (F-60)."""
    document = caster_fight()
    state = load_start(document).state
    print(f"casters (Ilsa, Sera against three Goblins); load {os.getloadavg()[0]:.2f}")

    def play(engine: str, runs: int) -> Callable[[], object]:
        return lambda: simulate(document, runs, seed=2026, workers=1, engine=engine)

    base = line("full engine", full, *timed(play("full", full)), None)
    line("Python fast path (before F-60)", python,
         *timed(lambda: fast_strife.run_fast(state, 2026, 100, python, 1)), base)  # fmt: skip
    report = simulate(document, 1000, seed=1, workers=1, engine="fast")  # laws, tables, compile
    assert "kernel_fallback" not in report, report["kernel_fallback"]
    line("kernel, warm (F-60)", fast, *timed(play("fast", fast)), base)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", type=int, default=300, help="fights on the full engine")
    parser.add_argument("--fast", type=int, default=200000, help="fights on the kernel")
    parser.add_argument("--python", type=int, default=10000, help="fights, Python fast path")
    parser.add_argument("--two", type=int, default=4_000_000, help="fights on 1, then 2 workers")
    parser.add_argument("--compile", action="store_true", help="time a fresh compilation too")
    parser.add_argument("--casters-only", action="store_true", help="only the caster fight")
    args = parser.parse_args()
    if args.casters_only:
        casters(args.full, args.python, args.fast)
        return
    document = json.loads((EXAMPLES / "strife_ambush.json").read_text("utf-8"))
    print(f"strife_ambush.json, policy strife, one worker; load {os.getloadavg()[0]:.2f}")
    first_call()
    if args.compile:
        with tempfile.TemporaryDirectory() as cache:
            first_call(cache)
    state = load_start(document).state
    began = time.perf_counter()
    laws = fast_strife.Batch(state).laws
    ms = 1000 * (time.perf_counter() - began)
    print(f"  {len(laws.table)} attack laws computed in {ms:.1f} ms"
          " (first in this process)")  # fmt: skip
    fast_strife._KNOWN.clear()
    fast_strife_laws._LAWS.clear()

    def play(engine: str, runs: int) -> Callable[[], object]:
        return lambda: simulate(document, runs, seed=2026, workers=1, engine=engine)

    def python(runs: int) -> Callable[[], object]:
        return lambda: fast_strife.run_fast(state, 2026, 100, runs, 1)

    base = line("full engine", args.full, *timed(play("full", args.full)), None)
    fast_strife._KNOWN.clear()
    fast_strife_laws._LAWS.clear()
    fast_strife_compiled._KNOWN.clear()
    line("kernel, cold (laws, tables)", args.fast, *timed(play("fast", args.fast)), base)
    line("kernel, warm", args.fast, *timed(play("fast", args.fast)), base)
    line("Python fast path, laws known", args.python, *timed(python(args.python)), base)

    def on(workers: int, seed: int) -> Callable[[], object]:
        return lambda: simulate(document, args.two, seed=seed, workers=workers, engine="fast")

    one = workers_line("kernel, 1 worker, seed 3", args.two, on(1, 3), None)
    workers_line("kernel, 2 workers, seed 4", args.two, on(2, 4), one)
    print(f"  load {os.getloadavg()[0]:.2f}")
    casters(args.full, args.python, args.fast)


if __name__ == "__main__":
    main()
