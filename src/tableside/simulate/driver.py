"""Running many runs on several processes and merging them in run order.

Runs are cut into chunks of consecutive run numbers; each worker process receives the starting
state once (its initializer), plays whole chunks and sends back one :class:`Tally` per chunk.
Tallies hold exact integer sums, so merging them gives the same report, bit for bit, for one
worker or many.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from tableside.limits import CYCLES_MAX, RUNS_MAX, WORKERS_MAX
from tableside.simulate.games import SimGame
from tableside.simulate.runs import (
    SimulationError,
    Start,
    check_playable,
    load_start,
    play_run,
    simulation_for,
)
from tableside.simulate.summary import Setup, report
from tableside.simulate.tally import Tally

DEFAULT_CAP = 100  # Cycles (War) or rounds (Realm of Strife)
MAX_RUNS = RUNS_MAX  # W-7
MAX_WORKERS = WORKERS_MAX
CHUNKS_PER_WORKER = 8
MAX_CHUNK = 64
Progress = Callable[[int], None]
ENGINES = ("fast", "full")


@dataclass(frozen=True)
class Plan:
    """Everything a worker needs (picklable): the start, the policy option, seed and cap."""

    start: Start
    rest: bool
    seed: int
    cap: int

    def sim(self) -> SimGame[Any]:
        """The game's simulation."""
        return simulation_for(self.start, self.rest)


_WORKER_PLAN: list[tuple[Plan, SimGame[Any]]] = []


def _init_worker(plan: Plan) -> None:
    _WORKER_PLAN[:] = [(plan, plan.sim())]


def _chunk_in_worker(first: int, count: int) -> Tally:
    plan, sim = _WORKER_PLAN[0]
    return play_chunk(sim, plan, first, count)


def play_chunk(sim: SimGame[Any], plan: Plan, first: int, count: int) -> Tally:
    """Runs ``first`` … ``first + count − 1``, tallied."""
    tally = Tally(sim.sides(plan.start.state), len(sim.measures))
    for run in range(first, first + count):
        tally.add(play_run(sim, plan.start, plan.seed, run, plan.cap)[0])
    return tally


def chunks(runs: int, workers: int) -> list[tuple[int, int]]:
    """(first run, count) pairs covering 0 … runs−1 in order, about 8 per worker."""
    size = max(1, min(MAX_CHUNK, math.ceil(runs / (workers * CHUNKS_PER_WORKER))))
    return [(first, min(size, runs - first)) for first in range(0, runs, size)]


def run_all(plan: Plan, runs: int, workers: int, progress: Progress | None) -> Tally:
    """Every run tallied, on ``workers`` processes (1: in this process)."""
    pieces = chunks(runs, workers)
    if workers == 1:
        sim = plan.sim()
        tally = Tally(sim.sides(plan.start.state), len(sim.measures))
        for first, count in pieces:
            tally.merge(play_chunk(sim, plan, first, count))
            if progress is not None:
                progress(count)
        return tally
    with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(plan,)) as pool:
        futures = [pool.submit(_chunk_in_worker, first, count) for first, count in pieces]
        try:
            report_progress(futures, pieces, progress)
            return merged(futures)
        except BaseException:  # a refused run or Ctrl-C: drop the chunks not yet started
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def report_progress(
    futures: list[Future[Tally]], pieces: list[tuple[int, int]], progress: Progress | None
) -> None:
    """Tell ``progress`` how many runs each chunk held, as chunks finish."""
    if progress is None:
        return
    sizes = {future: count for future, (_, count) in zip(futures, pieces, strict=True)}
    for future in as_completed(futures):
        progress(sizes[future])


def merged(futures: list[Future[Tally]]) -> Tally:
    """The chunks' tallies merged, in run order (the first refusal in run order is raised)."""
    tally = futures[0].result()
    for future in futures[1:]:
        tally.merge(future.result())
    return tally


def require_counts(runs: int, workers: int, cap: int, unit: str) -> None:
    """Refuse impossible numbers of runs, workers or a cap."""
    if not 1 <= runs <= MAX_RUNS:
        raise SimulationError(f"The number of runs must be 1 to {MAX_RUNS:,}, got {runs}.")
    if not 1 <= workers <= MAX_WORKERS:
        raise SimulationError(f"The number of workers must be 1 to {MAX_WORKERS}, got {workers}.")
    if cap < 1:
        raise SimulationError(f"The cap on {unit}s must be at least 1, got {cap}.")
    if cap > CYCLES_MAX:
        raise SimulationError(f"The cap on {unit}s must be at most {CYCLES_MAX:,}, got {cap}.")


def choose_seed(start: Start, seed: int | None) -> int:
    """The base seed: the one given, else the encounter's own (which must not be negative)."""
    chosen = start.seed if seed is None else seed
    if chosen < 0:
        raise SimulationError(f"The base seed must be zero or positive, got {chosen}.")
    return chosen


def choose_cap(game: str, max_cycles: int | None, max_rounds: int | None) -> int:
    """The cap on the clock; a War takes --max-cycles, a Realm of Strife fight --max-rounds."""
    war = game == "majesty-war"
    wrong, right = ("--max-rounds", "--max-cycles") if war else ("--max-cycles", "--max-rounds")
    if (max_rounds if war else max_cycles) is not None:
        raise SimulationError(f"{wrong} does not apply to a {game} encounter; use {right}.")
    given = max_cycles if war else max_rounds
    return DEFAULT_CAP if given is None else given


def choose_rest(game: str, rest: bool | None) -> bool:
    """The War policy's Rest rule: on unless turned off; a Realm of Strife fight has none."""
    if game != "majesty-war" and rest is not None:
        raise SimulationError(f"--rest/--no-rest applies to a War, not to a {game} encounter.")
    return rest is not False


def simulate(
    document: Any,
    runs: int,
    *,
    file: str = "-",
    seed: int | None = None,
    workers: int = 1,
    max_cycles: int | None = None,
    max_rounds: int | None = None,
    rest: bool | None = None,
    progress: Progress | None = None,
    engine: str = "full",
) -> dict[str, Any]:
    """Simulate an exported encounter ``runs`` times and return the report (JSON-ready).

    ``engine`` "full" plays every run through the rules engine; "fast" plays a War on the fast
    simulator (docs/simulate.md, "The fast engine") and a Realm of Strife fight on its own fast
    simulator ("The fast engine for Realm of Strife", F-8 … F-11) when they support the
    encounter, else on the full engine (the report then says why under "fallback").

    Raises:
        TablesideError: A bad document, an ended or one-sided encounter, impossible counts, a
            cap that does not fit the game, or a run whose policy command was refused.
    """
    start = load_start(document)
    cap = choose_cap(start.game, max_cycles, max_rounds)
    plan = Plan(start, choose_rest(start.game, rest), choose_seed(start, seed), cap)
    if engine not in ENGINES:
        raise SimulationError(f"The engine must be one of {', '.join(ENGINES)}, got {engine!r}.")
    sim = plan.sim()
    require_counts(runs, workers, cap, sim.unit)
    check_playable(sim, start)
    if sim.clock(start.state) > cap:
        raise SimulationError(
            f"The encounter is already in {sim.unit} {sim.clock(start.state)}, past the cap {cap}."
        )
    if engine == "fast":  # numba and the kernels, when first needed (W-75)
        from tableside.simulate.fast import run_fast, why_not_fast
        from tableside.simulate.fast_strife_compiled import why_not_kernel
    fallback = why_not_fast(start.game, start.state) if engine == "fast" else None
    if engine == "fast" and fallback is None:
        tally = run_fast(start.state, plan.rest, plan.seed, cap, runs, min(workers, runs),
                         progress)  # fmt: skip
    else:
        tally = run_all(plan, runs, min(workers, runs), progress)
    setup = Setup(file, start.game, start.name, sim.unit, sim.measures, runs, plan.seed, cap,
                  sim.policy)  # fmt: skip
    result = report(setup, tally)
    if engine == "fast" and fallback is None:
        result["engine"] = "fast"
        declined = why_not_kernel(start.game, start.state)
        if declined is not None:
            result["kernel_fallback"] = declined
    elif engine == "fast":
        result["engine"], result["fallback"] = "full", fallback
    return result


def default_workers() -> int:
    """One worker per CPU."""
    return os.cpu_count() or 1
