"""Whole fights simulated per second: the 4-against-4 War and the Realm of Strife ambush.

Baseline (same process, same runs): each run through the plain engine with full records, i.e.
``Encounter.from_records`` on the exported log, the run's seed, then ``Encounter.execute`` of
every policy command (full Strike reports, a log record per command, the events folded again).
Then ``tableside.simulate.simulate`` on 1 worker and on 2 worker processes (wall clock; the report
is the same on both). The files are examples/war_4v4.json and examples/strife_ambush.json.
Each figure is the best of ``--repeat`` timings (the machine may be shared); next to the wall-clock
rate, the CPU milliseconds per run of this process and its worker processes together, and the
load average, show how much the other jobs on the machine held the workers back.

Last, ``--clean`` runs of the War are each played ``--clean-repeat`` times in this process and the
shortest time of each run is kept: other jobs can only add time, so the sum of the minima moves
far less with the load than the rates above (the figure docs/simulate.md compares).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from tableside.encounter.engine import Encounter
from tableside.encounter.policy import WarPolicy
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.war.game import MajestyWar
from tableside.simulate import run_seed, simulate
from tableside.simulate.games import StrifeSim
from tableside.simulate.runs import load_start, play_run, simulation_for
from tableside.store.formats import parse_encounter

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SEED = 1


def engine_runs(document: dict[str, Any], runs: int) -> None:
    """Baseline: every run through the plain engine, full records, Rest rule as simulated."""
    doc, records = parse_encounter(document)
    war = doc.game == "majesty-war"
    policy: Callable[[Any], Any] = WarPolicy(rest=True) if war else StrifeSim().next_command
    for run in range(runs):
        game = MajestyWar() if war else StrifeFight()
        encounter: Encounter[Any] = Encounter.from_records(game, doc.seed, records)
        encounter.seed = run_seed(SEED, run)
        while not encounter.state.ended:
            encounter.execute(policy(encounter.state))


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the worker processes)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def best_seconds(work: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The shortest wall-clock time of ``repeat`` calls of ``work``, and that call's CPU time."""
    timings = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), cpu_seconds()
        work()
        timings.append((time.perf_counter() - start, cpu_seconds() - cpu))
    return min(timings)


def timed(label: str, work: Callable[[], object], runs: int, baseline: float | None,
          repeat: int) -> float:  # fmt: skip
    """Time ``work`` and print runs per second (and the ratio to the baseline)."""
    wall, cpu = best_seconds(work, repeat)
    rate = runs / wall
    ratio = "" if baseline is None else f"  x{rate / baseline:.2f} baseline"
    print(f"  {label:<32} {runs:>5} runs {rate:>7,.1f} /s  CPU {1000 * cpu / runs:5.1f} ms/run"
          f"{ratio}")  # fmt: skip
    return rate


def bench(name: str, runs: int, repeat: int) -> None:
    """Baseline, then the simulation on 1 and 2 workers, for one example file."""
    document = json.loads((EXAMPLES / name).read_text("utf-8"))
    print(f"{name}:")
    baseline = timed("baseline: engine, full records", lambda: engine_runs(document, runs), runs,
                     None, repeat)  # fmt: skip
    for workers in (1, 2):
        work = partial(simulate, document, runs, seed=SEED, workers=workers)
        label = f"simulate, {workers} worker{'s' if workers > 1 else ''}"
        timed(label, work, runs, baseline, repeat)


def clean_ms_per_run(name: str, runs: int, repeat: int) -> float:
    """Milliseconds per run: each run's shortest wall-clock time of ``repeat``, averaged."""
    start = load_start(json.loads((EXAMPLES / name).read_text("utf-8")))
    sim = simulation_for(start, rest=True)
    total = 0.0
    for run in range(runs):
        shortest = float("inf")
        for _ in range(repeat):
            began = time.perf_counter()
            play_run(sim, start, SEED, run, 100)
            shortest = min(shortest, time.perf_counter() - began)
        total += shortest
    return 1000 * total / runs


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wars", type=int, default=100, help="War runs per measurement")
    parser.add_argument("--fights", type=int, default=200, help="fight runs per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="timings per figure (best kept)")
    parser.add_argument("--clean", type=int, default=30, help="War runs timed one by one")
    parser.add_argument("--clean-repeat", type=int, default=9, help="timings of each (least kept)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    bench("war_4v4.json", args.wars, args.repeat)
    bench("strife_ambush.json", args.fights, args.repeat)
    clean = clean_ms_per_run("war_4v4.json", args.clean, args.clean_repeat)
    print(f"war_4v4.json, {args.clean} runs one by one, least of {args.clean_repeat} each: "
          f"{clean:.2f} ms per run, {1000 / clean:.1f} Wars/s on one core")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
