"""``--engine fast``: batches of runs on :mod:`fast_war`, tallied like the full engine's runs.

Runs are cut into batches of ``BATCH`` consecutive run numbers; batch ``k`` draws one key from
``numpy.random.Generator(PCG64(SeedSequence(seed, spawn_key=(FAST_KEY, k))))`` and each of its
runs draws from its own stream of that key (``fast_kernel.uniform``), so a report depends only
on (file, seed, runs, policy, cap), never on the number of workers. The
fast engine's runs are not the full engine's runs (no per-command dice streams): they agree in
law, not run by run (tests/test_simulate_fast.py).
"""

from __future__ import annotations

import pickle
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from tableside.encounter.war.state import WarState
from tableside.majesty.catalog import builtin_catalog
from tableside.simulate import fast_strife, fast_strife_compiled
from tableside.simulate.fast_war import Batch, side_name, unsupported
from tableside.simulate.stats import Moments
from tableside.simulate.tally import Tally

BATCH = 8192
FAST_KEY = 15  # spawn-key tag of the fast engine's generators (issue 15)
_KNOWN: dict[bytes, Batch] = {}  # the last batch per start state in this process


def why_not_fast(game: str, state: Any) -> str | None:
    """Why ``--engine fast`` must use the full engine here (None: it need not)."""
    if game == "strife-combat":
        return fast_strife.why_not(state)
    if game != "majesty-war":
        return f"the fast path does not cover {game}"
    return unsupported(state, builtin_catalog())


def batches(runs: int) -> list[tuple[int, int]]:
    """(first run, count) of every batch."""
    return [(first, min(BATCH, runs - first)) for first in range(0, runs, BATCH)]


def generator(seed: int, first: int) -> np.random.Generator:
    """The generator of the batch starting at run ``first``."""
    sequence = np.random.SeedSequence(seed, spawn_key=(FAST_KEY, first // BATCH))
    return np.random.Generator(np.random.PCG64(sequence))


def moments(values: Any) -> Moments:
    """Exact count, sum and sum of squares of whole numbers."""
    array = np.asarray(values, dtype=np.int64)
    return Moments(int(array.size), int(array.sum()), int((array * array).sum()))


def play_batch(state: WarState, rest: bool, seed: int, cap: int, first: int, count: int) -> Tally:
    """Runs ``first`` … ``first + count − 1`` on the fast engine, tallied."""
    key = pickle.dumps(state)
    batch = Batch(state, count, _KNOWN.get(key))
    _KNOWN.clear()
    _KNOWN[key] = batch
    batch.play(cap, rest, generator(seed, first))
    return tally_of(batch)


def tally_of(batch: Batch) -> Tally:
    """The batch's runs as a :class:`Tally` (what ``Tally.add`` would count run by run)."""
    ids = batch.roster.ids
    sides = {
        who: side_name(int(code)) or ""
        for who, code in zip(ids, batch.roster.side.tolist(), strict=True)
    }
    tally = Tally(sides, 3)
    finished = batch.ended
    tally.runs = batch.n
    tally.commands = moments(batch.commands)
    tally.unfinished = int((~finished).sum())
    tally.clock = moments(batch.cycle[finished])
    ends, counts = np.unique(batch.cycle[finished], return_counts=True)
    tally.clocks = Counter(dict(zip(ends.tolist(), counts.tolist(), strict=True)))
    winners = batch.winner[finished]
    tally.draws = int((winners < 0).sum())
    tally.wins = Counter({side_name(code) or "": int((winners == code).sum()) for code in (0, 1)
                          if (winners == code).any()})  # fmt: skip
    fallen = batch.fallen()
    tally.fallen = Counter({who: int(fallen[:, i].sum()) for i, who in enumerate(ids)
                            if fallen[:, i].any()})  # fmt: skip
    for i, who in enumerate(ids):
        tally.losses[who] = [moments(batch.taken[:, i, k]) for k in range(3)]
    for code in (0, 1):
        name = side_name(code) or ""
        if name in tally.side_losses:
            members = batch.roster.side == code
            totals = batch.taken[:, members].sum(axis=1)
            tally.side_losses[name] = [moments(totals[:, k]) for k in range(3)]
    return tally


def run_fast(state: Any, rest: bool, seed: int, cap: int, runs: int, workers: int,
             progress: Any = None) -> Tally:  # fmt: skip
    """Every run on the fast engine, batches on ``workers`` processes, merged in run order.

    With several workers this process is one of them: ``workers − 1`` new processes take
    batches from the first, this one (already started, its forms and tables known) plays from the
    last every batch no process has started yet.
    """
    if not isinstance(state, WarState):
        return fast_strife_compiled.run_any(state, seed, cap, runs, workers, progress)
    pieces = batches(runs)
    if workers <= 1 or len(pieces) == 1:
        tallies: list[Tally] = []
        for first, count in pieces:
            tallies.append(play_batch(state, rest, seed, cap, first, count))
            if progress is not None:
                progress(count)
    else:
        done: list[Tally | None] = [None] * len(pieces)
        with ProcessPoolExecutor(min(workers - 1, len(pieces) - 1)) as pool:
            futures = [pool.submit(play_batch, state, rest, seed, cap, first, count)
                       for first, count in pieces]  # fmt: skip
            for k in reversed(range(len(pieces))):
                if futures[k].cancel():
                    done[k] = play_batch(state, rest, seed, cap, *pieces[k])
                    if progress is not None:
                        progress(pieces[k][1])
            for k, future in enumerate(futures):
                if done[k] is None:
                    done[k] = future.result()
                    if progress is not None:
                        progress(pieces[k][1])
        tallies = [tally for tally in done if tally is not None]
    total = tallies[0]
    for more in tallies[1:]:
        total.merge(more)
    return total
