"""The fast War simulator against the full engine, in one process (issue 15).

Prints, for ``examples/war_4v4.json`` under the documented policy (``war+rest``): Wars per
second of ``--engine full`` (``simulate(..., engine="full", workers=1)``) and of ``--engine
fast`` (``simulate(..., engine="fast", workers=1)``) with their ratio, wall clock and CPU time
of this process (the machine may be shared: CPU time is the steadier figure). The fast engine
is timed twice: cold (this process's first call: the compiled kernel loaded from numba's disk
cache, Strike tables built or read from the disk cache, forms built) and warm (all known).
Then one worker and two workers (``--workers 2``) on the same number of new runs (a new seed
each), with the ratio of their wall-clock rates and the CPU time of this process and its worker
process, which shows whether two cores were free; then imports and one fast run in a fresh process
(the compiled kernel loaded from numba's cache; ``--compile`` also times a fresh compilation,
paid once per installation), and the cold
start of one exact Strike law (``strike_odds``) and of one Strike table, in fresh processes,
with and without the disk cache. Last, the same full-against-fast figures for ``war_4v4.json``
with every condition the fast engine plays since issue 26 (F-55 … F-58): Stances, Readied and
carried AP, Exposed, Surprised, Bound and Asleep combatants; and for ``war_4v4.json`` with three
Spiritual Dominions (F-65, F-66: a Strike through one is refused and gives way to a Rest or the
end of the Turn), played by the fast engine since issue 26. ``--dominions`` prints only those.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from timing import timed, workers_line

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.war import MajestyWar
from tableside.simulate import simulate
from tableside.store.formats import encounter_document, parse_encounter

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DOMINIONS = ((4.0, 1.0, 0.0, 0.8), (0.0, 4.0, 1.0, 1.5), (6.5, 6.0, 0.0, 1.0))  # x, y, z, radius


def line(label: str, runs: int, wall: float, cpu: float, base: float | None) -> float:
    """Print one rate; return runs per CPU second."""
    rate = runs / cpu
    ratio = "" if base is None else f"  x{rate / base:,.0f} full (CPU)"
    print(f"  {label:<26} {runs:>6} runs  {runs / wall:>9,.1f} /s wall  {rate:>9,.1f} /s CPU"
          f"{ratio}")  # fmt: skip
    return rate


COLD = """
import time, sys
from tableside.majesty.odds import strike_odds
from tableside.majesty.character import Attributes, Character, Side
from tableside.majesty.catalog import builtin_catalog
from tableside.majesty.strike import StrikeSetup
from tableside.simulate.fast_laws import strike_table
catalog = builtin_catalog()
a = Character("A", Attributes(42, 31, 30, 60, 40, 40), weapon="Sword")
d = Character("D", Attributes(56, 22, 40, 60, 40, 40), weapon="Axe", side=Side.FALLEN)
setup = StrikeSetup(a, d, catalog.weapon("Sword"), catalog.weapon("Axe"))
began = time.perf_counter()
{call}(setup)
print(f"{{1000 * (time.perf_counter() - began):.1f}}")
"""


def cold_ms(call: str, cache: str | None) -> float:
    """Milliseconds of the first ``call`` in a fresh process (``cache``: TABLESIDE_CACHE)."""
    env = dict(os.environ)
    if cache is None:
        env["TABLESIDE_CACHE"] = "off"
    else:
        env["TABLESIDE_CACHE"] = cache
    out = subprocess.run([sys.executable, "-c", COLD.format(call=call)], env=env,
                         capture_output=True, text=True, check=True)  # fmt: skip
    return float(out.stdout.strip())


KERNEL = """
import json, time
began = time.perf_counter()
import numpy as np
from tableside.simulate.fast_war import Batch
from tableside.simulate.runs import load_start
state = load_start(json.loads(open({path!r}, encoding="utf-8").read())).state
Batch(state, 1).play(100, True, np.random.default_rng(1))
print(f"{{1000 * (time.perf_counter() - began):.1f}}")
"""


def kernel_ms(numba_cache: str | None) -> float:
    """Milliseconds of imports and one War run on the fast engine in a fresh process.

    ``numba_cache``: a fresh NUMBA_CACHE_DIR (the kernel is compiled: the one-time cost).
    """
    env = dict(os.environ)
    if numba_cache is not None:
        env["NUMBA_CACHE_DIR"] = numba_cache
    code = KERNEL.format(path=str(EXAMPLES / "war_4v4.json"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)  # fmt: skip
    return float(out.stdout.strip())


def with_conditions(document: dict[str, object]) -> dict[str, object]:
    """``war_4v4.json`` begun, with Stances, Readied and carried AP, Exposed, Surprised, Bound
    and Asleep combatants (F-55 … F-58), as the engine applies them."""
    _, records = parse_encounter(document)
    encounter = Encounter.from_records(MajestyWar(), int(str(document["seed"])), records)
    encounter.execute(Command("next"))
    first = encounter.state.order[encounter.state.turn].combatant
    effect = [("Watcher", "exposed", {}), ("Brute", "surprised", {"by": "Guardian"}),
              ("Jackal", "bound", {}), ("Messenger", "asleep", {})]  # fmt: skip
    for command in [
        Command("carry_over", {"id": first, "ap": 1}),
        Command("stand_ready", {"id": first, "ap": 2, "uses": ["Strike"]}),
        Command("stance", {"id": "Herald", "on": True, "full": True}),
        Command("stance", {"id": "Warrior", "on": True}),
        *(Command("apply_effect", {"id": who, "effect": e, **more}) for who, e, more in effect),
    ]:
        encounter.execute(command)
    title = "war_4v4 with conditions"
    return encounter_document(title, "majesty-war", encounter.seed, encounter.records)


def with_dominions(document: dict[str, object]) -> dict[str, object]:
    """``war_4v4.json`` with three Spiritual Dominions (F-65, F-66): one between the lines,
    one around the Guardian, one at the Brute (``tests/test_simulate_agreement_dominions.py``)."""
    _, records = parse_encounter(document)
    encounter = Encounter.from_records(MajestyWar(), int(str(document["seed"])), records)
    for i, (x, y, z, radius) in enumerate(DOMINIONS):
        encounter.execute(Command("dominion", {"id": f"D{i}", "center": [x, y, z],
                                               "radius": radius}))  # fmt: skip
    title = "war_4v4 with Dominions"
    return encounter_document(title, "majesty-war", encounter.seed, encounter.records)


def full_and_fast(title: str, document: dict[str, object], args: argparse.Namespace) -> None:
    """Wars per CPU second of the full engine, then the fast one (first call, warm), one worker."""
    print(title)
    wall, cpu = timed(lambda: simulate(document, args.full, seed=1, workers=1, engine="full"))
    base = line("full engine, 1 worker", args.full, wall, cpu, None)
    reports: list[dict[str, object]] = []

    def fast() -> None:
        reports.append(simulate(document, args.fast, seed=2, workers=1, engine="fast"))

    for label in ("fast, 1 worker, first call", "fast, 1 worker, warm"):
        wall, cpu = timed(fast)
        assert reports[-1]["engine"] == "fast", reports[-1].get("fallback")  # played, no fallback
        line(label, args.fast, wall, cpu, base)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", type=int, default=100, help="War runs on the full engine")
    parser.add_argument("--fast", type=int, default=32768, help="War runs on the fast engine")
    parser.add_argument("--two", type=int, default=1_000_000, help="War runs on 1, then 2 workers")
    parser.add_argument("--compile", action="store_true", help="also time a fresh compilation")
    parser.add_argument("--dominions", action="store_true", help="only the Dominions' figures")
    args = parser.parse_args()
    document = json.loads((EXAMPLES / "war_4v4.json").read_text("utf-8"))
    if args.dominions:
        print(f"load average {os.getloadavg()[0]:.2f}")
        full_and_fast("war_4v4.json with three Spiritual Dominions", with_dominions(document), args)
        print(f"load average {os.getloadavg()[0]:.2f}")
        return
    print(f"war_4v4.json, policy war+rest; load average {os.getloadavg()[0]:.2f}")
    wall, cpu = timed(lambda: simulate(document, args.full, seed=1, workers=1, engine="full"))
    base = line("full engine, 1 worker", args.full, wall, cpu, None)
    rates = []
    for label in ("fast, 1 worker, first call", "fast, 1 worker, warm"):
        wall, cpu = timed(lambda: simulate(document, args.fast, seed=2, workers=1, engine="fast"))
        rates.append(line(label, args.fast, wall, cpu, base))

    # Two cores against one on the same work: as many runs, a new seed each (new forms and
    # tables are met at the same pace); the warm figure above replays runs already played.
    def on(workers: int, seed: int) -> Callable[[], object]:
        return lambda: simulate(document, args.two, seed=seed, workers=workers, engine="fast")

    one = workers_line("fast, 1 worker, seed 3", args.two, on(1, 3), None)
    workers_line("fast, 2 workers, seed 4", args.two, on(2, 4), one)
    print(f"  fresh process, imports + 1 run, kernel cached: {kernel_ms(None):.0f} ms")
    if args.compile:
        with tempfile.TemporaryDirectory() as folder:
            print(f"  fresh process, imports + 1 run, kernel compiled: {kernel_ms(folder):.0f} ms")
    for call in ("strike_odds", "strike_table"):
        for cache, label in ((None, "no disk cache"), ("", "disk cache")):
            if cache == "":
                cold_ms(call, cache)  # fill the cache
            print(f"  first {call} in a process, {label}: {cold_ms(call, cache):.1f} ms")
    full_and_fast("war_4v4.json with Stances, Readied/carried AP, Exposed, Surprised, Bound, "
                  "Asleep", with_conditions(document), args)  # fmt: skip
    full_and_fast("war_4v4.json with three Spiritual Dominions", with_dominions(document), args)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
