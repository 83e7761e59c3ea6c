"""Tables behind the exact odds: tallies, die states, every multiset of kept dice, M-7 weights.

Everything here is exact integer arithmetic on numpy arrays and is cached per reading (M-19),
Boon/Bane (M-7) or objective (M-13). ``tableside.majesty.odds`` builds distributions on top.

* A **tally** counts a roll's positives, twelves, ones and negatives (``rolls.Tally``); the
  tallies of up to 7 dice are numbered 0 … 329, ordered by size so that the tallies of the first
  ``i`` dice are a prefix.
* A **die state** is a face with its M-9 lock: unlocked, a natural 11 read as a 12 under an Epic
  positive roll (it may still move between 11 and 12), a natural 12 under one, or a natural 1
  under an Epic negative roll. Per state and category (M-6) the nearest face of that category
  and its distance: the options of ``adjust._options``.
* ``min_costs`` is the dynamic programme of ``adjust._suffix_tables`` run on many rolls at once:
  for every roll, the fewest Adjustments that reach every tally.
* A **kept law** gives, for a net Boon/Bane, the number of rolled sequences of 7+n d12 whose M-7
  discards keep each multiset of 7 dice, split by how many discarded dice share the kept roll's
  boundary face (that is what the order of the kept dice depends on).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np
import numpy.typing as npt

from tableside.errors import RulesError
from tableside.majesty.adjust import nearest_face
from tableside.majesty.rolls import BASE_DICE, FACES, Category, Reading, Tally

I8 = npt.NDArray[np.int8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
Objective = Callable[[Tally], tuple[int, ...]]

INF = 10_000  # an unreachable tally's cost; twice it still fits int16
MAX_NET_BOON = 6  # 12^13 rolled sequences keep every weight exact in float64 sums (< 2^53)

# --- tallies ------------------------------------------------------------------------------------

# Tally components in the order of rolls.Tally: positives, twelves, ones, negatives.
COMPONENT = {Category.POSITIVE: 0, Category.TWELVE: 1, Category.ONE: 2, Category.NEGATIVE: 3}


def _tally_rows(most: int = BASE_DICE) -> list[tuple[int, int, int, int]]:
    rows = []
    for size in range(most + 1):
        for p in range(size + 1):
            for t in range(size + 1 - p):
                for o in range(size + 1 - p - t):
                    rows.append((p, t, o, size - p - t - o))
    return rows


def _prefix_sizes() -> tuple[int, ...]:
    # tallies of at most i dice (the 4 counted categories plus any neutrals): C(i + 4, 4)
    return tuple(math.comb(i + 4, 4) for i in range(BASE_DICE + 1))


TALLIES: I16 = np.array(_tally_rows(), dtype=np.int16)
# Natural rolls keep up to 7 + 6 dice (M-7 with too few dice to discard): their tallies extend
# the list (the first 330 rows are TALLIES).
ALL_TALLIES: I16 = np.array(_tally_rows(BASE_DICE + 6), dtype=np.int16)
N_TALLIES = len(TALLIES)  # 330
PREFIX = _prefix_sizes()
TALLY_SIZE: I16 = TALLIES.sum(axis=1).astype(np.int16)


def _index_grid() -> I16:
    grid = np.full((BASE_DICE + 1,) * 4, -1, dtype=np.int16)
    for i, (p, t, o, n) in enumerate(TALLIES.tolist()):
        grid[p, t, o, n] = i
    return grid


INDEX_GRID = _index_grid()


def tally_index(tally: Tally) -> int:
    """The row of a tally in ``ALL_TALLIES`` (the same as in ``TALLIES`` up to 7 dice)."""
    return _ALL_INDEX[(tally.positives, tally.twelves, tally.ones, tally.negatives)]


_ALL_INDEX = {tuple(row): i for i, row in enumerate(ALL_TALLIES.tolist())}


def _children() -> I16:
    """CHILD[c, T]: the tally T plus one die of category c (-1 past 7 dice)."""
    child = np.full((len(Category), N_TALLIES), -1, dtype=np.int16)
    for category in Category:
        for i, row in enumerate(TALLIES.tolist()):
            if category == Category.NEUTRAL:
                child[category, i] = i
                continue
            grown = list(row)
            grown[COMPONENT[category]] += 1
            if sum(grown) <= BASE_DICE:
                child[category, i] = INDEX_GRID[tuple(grown)]
    return child


CHILD = _children()


def _sums() -> I16:
    """ADD[a, b]: the tally a + b (-1 past 7 counted dice)."""
    total = TALLIES[:, None, :] + TALLIES[None, :, :]
    fits = total.sum(axis=2) <= BASE_DICE
    clipped = np.minimum(total, BASE_DICE)
    found = INDEX_GRID[clipped[..., 0], clipped[..., 1], clipped[..., 2], clipped[..., 3]]
    return np.where(fits, found, -1).astype(np.int16)


ADD = _sums()


@cache
def objective_ranks(objective: Objective) -> I32:
    """The adjuster's interest (M-13) of every tally, as ranks that keep the engine's order."""
    keys = [objective(Tally(*map(int, row))) for row in TALLIES.tolist()]
    order = {key: rank for rank, key in enumerate(sorted(set(keys)))}
    return np.array([order[key] for key in keys], dtype=np.int32)


# --- die states ---------------------------------------------------------------------------------

UNLOCKED, LOCK_11, LOCK_12, LOCK_1 = range(4)
_LOCK_BOUNDS = {UNLOCKED: (1, FACES), LOCK_11: (11, FACES), LOCK_12: (FACES, FACES), LOCK_1: (1, 1)}


def _compact_states() -> tuple[tuple[int, int], ...]:
    """The 16 (face, lock) pairs a die can be in: any unlocked face and the four locked ones."""
    unlocked = tuple((face, UNLOCKED) for face in range(1, FACES + 1))
    return (*unlocked, (11, LOCK_11), (12, LOCK_11), (12, LOCK_12), (1, LOCK_1))


STATES = _compact_states()
N_STATES = len(STATES)  # 16: counts of a multiset of ≤ 7 dice fit 3 bits each, 48 bits in all
STATE_FACE: I8 = np.array([face for face, _ in STATES], dtype=np.int8)


def state_of(face: int, lock: int) -> int:
    """The compact number of a die state."""
    return STATES.index((face, lock))


@dataclass(frozen=True)
class StateOptions:
    """Per die state and category: the nearest reachable face and its cost (M-12, M-9 locks)."""

    cost: I16  # [16, 5], INF where the category cannot be reached
    target: I8  # [16, 5], the face moved to (0 where unreachable)
    target_state: I8  # [16, 5], the die state moved to (the lock travels with the die)
    preference: I8  # [16, 5], categories in the engine's tie order (-1 pads)


@cache
def state_options(reading: Reading) -> StateOptions:
    """The options of ``adjust._options`` for every die state, ordered as ``adjust._choose``."""
    cost = np.full((N_STATES, len(Category)), INF, dtype=np.int16)
    target = np.zeros((N_STATES, len(Category)), dtype=np.int8)
    target_state = np.zeros((N_STATES, len(Category)), dtype=np.int8)
    preference = np.full((N_STATES, len(Category)), -1, dtype=np.int8)
    for s, (face, lock) in enumerate(STATES):
        low, high = _LOCK_BOUNDS[lock]
        reachable = []
        for category in Category:
            goal = nearest_face(face, low, high, reading.faces_of(category))
            if goal is None:
                continue
            cost[s, category] = abs(goal - face)
            target[s, category] = goal
            target_state[s, category] = state_of(goal, lock)
            reachable.append((-abs(goal - face), goal, int(category)))
        for rank, (_, _, chosen) in enumerate(sorted(reachable)):
            preference[s, rank] = chosen
    return StateOptions(cost, target, target_state, preference)


def natural_states(faces: I8, reading: Reading) -> I8:
    """Die states of natural rolls (rows of faces, 0 pads), locked by their Epic flags (M-9)."""
    categories = category_table(reading)[faces]
    real = faces > 0
    twelves = np.count_nonzero((categories == Category.TWELVE) & real, axis=1)
    ones = np.count_nonzero((categories == Category.ONE) & real, axis=1)
    pairs = np.minimum(twelves, ones)
    positive = (twelves - pairs >= 2)[:, None]
    negative = (ones - pairs >= 2)[:, None]
    lock = np.where(
        positive & (categories == Category.TWELVE),
        np.where(faces == 11, LOCK_11, LOCK_12),
        np.where(negative & (categories == Category.ONE), LOCK_1, UNLOCKED),
    )
    return _STATE_LOOKUP[lock, faces]


def _state_lookup() -> I8:
    table = np.zeros((4, FACES + 1), dtype=np.int8)
    for s, (face, lock) in enumerate(STATES):
        table[lock, face] = s
    table[UNLOCKED, 0] = -1  # padding
    return table


_STATE_LOOKUP = _state_lookup()


@cache
def category_table(reading: Reading) -> I8:
    """Category of faces 0 … 12 (0 is padding, read as neutral)."""
    table = [int(Category.NEUTRAL)] + [int(reading.category(f)) for f in range(1, FACES + 1)]
    return np.array(table, dtype=np.int8)


def min_costs(states: I8, reading: Reading) -> I16:
    """For rows of up to 7 die states (-1 pads), the fewest Adjustments reaching every tally.

    The vectorised form of ``adjust._suffix_tables`` with no budget cap (the budget only masks).
    The result is tally-major: ``[330, rows]``.
    """
    options = state_options(reading)
    rows, dice = states.shape
    costs = np.where(
        (states >= 0)[:, :, None], options.cost[np.maximum(states, 0)], _PAD_COST[None, None, :]
    ).astype(np.int16)
    costs = np.ascontiguousarray(costs.transpose(1, 2, 0))  # [dice, category, rows]
    table = np.zeros((1, rows), dtype=np.int16)
    for i in range(dice):
        size = PREFIX[i]
        grown = np.full((PREFIX[i + 1], rows), INF, dtype=np.int16)
        for category in Category:
            step = table + costs[i, category][None, :]
            targets = CHILD[category, :size]
            grown[targets] = np.minimum(grown[targets], step)
        table = np.minimum(grown, INF)
    full = np.full((N_TALLIES, rows), INF, dtype=np.int16)
    full[: len(table)] = table
    return full


_PAD_COST = np.array([INF, INF, 0, INF, INF], dtype=np.int16)  # a padding die stays "neutral"


@dataclass(frozen=True)
class Best:
    """The adjuster's best reachable tally per roll, its interest and its least cost."""

    tally: I16
    score: I32
    cost: I16


def best_of(costs: I16, ranks: I32, budget: int) -> Best:
    """Best interest within ``budget`` Adjustments, then the fewest Adjustments (M-13).

    ``costs`` is tally-major (``[330, rows]``, as ``min_costs`` makes it).
    """
    order = np.argsort(-ranks, kind="stable")
    reachable = costs[order] <= budget
    first = reachable.argmax(axis=0)
    tally = order[first]
    score = ranks[tally]
    columns = np.arange(costs.shape[1])
    tie = reachable & (ranks[order][:, None] == score[None, :])
    cost = np.where(tie, costs[order], INF).min(axis=0)
    del columns
    return Best(tally.astype(np.int16), score.astype(np.int32), cost.astype(np.int16))


@dataclass(frozen=True)
class Outputs:
    """One pass on many rolls: best interest, least cost and the span of what it leaves.

    ``lowest`` / ``highest``: the least and greatest compact multiset code of the final die states
    over every optimal spread.
    """

    best: Best
    lowest: I64
    highest: I64

    @property
    def unique(self) -> npt.NDArray[np.bool_]:
        """Rolls on which every optimal spread leaves the same multiset (order-free)."""
        return np.asarray(self.lowest == self.highest)


STATE_BITS = 3  # multisets of up to 7 die states: 3 bits per state, 48 bits in all
_CODE_SPAN = 1 << (STATE_BITS * N_STATES)
_CHUNK = 8192


def pass_outputs(states: I8, reading: Reading, ranks: I32, budget: int) -> Outputs:
    """The least and greatest multiset of final die states among the optimal spreads.

    A dynamic programme over the dice like ``min_costs`` whose value is the pair (cost, code of
    the final dice), minimised lexicographically (and once with the code negated): an optimal
    spread reaches a best tally at its least cost, so it is a least-cost spread of that tally.
    When both ends agree, every order of the dice leaves the same multiset (M-13 ties only
    change which of identical outcomes is taken).
    """
    parts = [_outputs_chunk(states[i : i + _CHUNK], reading, ranks, budget)
             for i in range(0, len(states), _CHUNK)]  # fmt: skip
    return Outputs(
        Best(
            *(
                np.concatenate([getattr(p.best, f) for p in parts])
                for f in ("tally", "score", "cost")
            )
        ),
        np.concatenate([p.lowest for p in parts]),
        np.concatenate([p.highest for p in parts]),
    )


def _outputs_chunk(states: I8, reading: Reading, ranks: I32, budget: int) -> Outputs:
    options = state_options(reading)
    rows, dice = states.shape
    real = (states >= 0)[:, :, None]
    safe = np.maximum(states, 0)
    cost = np.where(real, options.cost[safe], _PAD_COST[None, None, :]).astype(np.int64)
    unit = np.where(real, np.int64(1) << (STATE_BITS * options.target_state[safe]), 0)
    low, high = _keyed_costs(cost, unit.astype(np.int64), dice, rows)
    costs = np.minimum(low >> 48, INF).astype(np.int16)
    best = best_of(costs, ranks, budget)
    optimal = (ranks[:, None] == best.score[None, :]) & (costs == best.cost[None, :])
    mask = (1 << 48) - 1
    lowest = np.where(optimal, low & mask, _CODE_SPAN).min(axis=0)
    highest = np.where(optimal, _CODE_SPAN - 1 - (high & mask), -1).max(axis=0)
    return Outputs(best, lowest.astype(np.int64), highest.astype(np.int64))


def _keyed_costs(cost: I64, unit: I64, dice: int, rows: int) -> tuple[I64, I64]:
    """Tally-major tables of min (cost, code) and min (cost, −code) keys (cost above bit 48)."""
    never = np.int64(INF) << 48
    cost_t = cost.transpose(1, 2, 0)  # [dice, category, rows]
    unit_t = unit.transpose(1, 2, 0)
    tables = []
    for sign in (1, -1):
        table = np.zeros((1, rows), dtype=np.int64)
        if sign < 0:
            table += _CODE_SPAN - 1
        for i in range(dice):
            size = PREFIX[i]
            grown = np.full((PREFIX[i + 1], rows), never, dtype=np.int64)
            for category in Category:
                step = table + ((cost_t[i, category] << 48) + sign * unit_t[i, category])[None, :]
                targets = CHILD[category, :size]
                grown[targets] = np.minimum(grown[targets], step)
            table = np.minimum(grown, never)
        full = np.full((N_TALLIES, rows), never, dtype=np.int64)
        full[: len(table)] = table
        tables.append(full)
    return tables[0], tables[1]


# --- every multiset of 7 kept dice --------------------------------------------------------------


@cache
def counts_of_size(size: int, faces: int = FACES) -> I8:
    """Every multiset of ``size`` dice over ``faces`` faces, as rows of counts per face."""
    if faces == 1:
        return np.array([[size]], dtype=np.int8)
    blocks = []
    for first in range(size, -1, -1):
        rest = counts_of_size(size - first, faces - 1)
        blocks.append(np.column_stack([np.full(len(rest), first, dtype=np.int8), rest]))
    return np.concatenate(blocks).astype(np.int8)


_RADIX = 16  # counts of up to 15 dice per face; 12 faces fit 48 bits
_WEIGHTS: I64 = _RADIX ** np.arange(FACES, dtype=np.int64)


def count_codes(counts: npt.NDArray[np.integer]) -> I64:
    """One integer per multiset (4 bits per face count)."""
    return np.asarray(counts.astype(np.int64) @ _WEIGHTS, dtype=np.int64)


def faces_of_counts(counts: I8) -> I8:
    """Sorted faces of each multiset (rows of counts of a common total)."""
    size = int(counts[0].sum()) if len(counts) else 0
    faces = np.repeat(np.tile(np.arange(1, FACES + 1, dtype=np.int8), len(counts)), counts.ravel())
    return faces.reshape(len(counts), size)


@dataclass(frozen=True)
class KeptRolls:
    """Every multiset of 7 dice: counts, sorted faces and its code (sorted ascending)."""

    counts: I8
    faces: I8
    codes: I64

    def index(self, codes: I64) -> I64:
        """Row of each code (every code must be one of a multiset of 7 dice)."""
        return np.asarray(np.searchsorted(self.codes, codes), dtype=np.int64)


@cache
def kept_rolls() -> KeptRolls:
    """The 31,824 multisets of 7 d12 in code order."""
    counts = counts_of_size(BASE_DICE)
    codes = count_codes(counts)
    order = np.argsort(codes)
    counts = counts[order]
    return KeptRolls(counts, faces_of_counts(counts), codes[order])


_FACT = [math.factorial(n) for n in range(21)]


def multinomials(counts: I8) -> I64:
    """Number of ordered rolls of each multiset: n! / ∏ count!."""
    total = int(counts[0].sum())
    denominators = np.ones(len(counts), dtype=np.int64)
    fact = np.array(_FACT[: total + 1], dtype=np.int64)
    for column in counts.T:
        denominators *= fact[column]
    return np.asarray(_FACT[total] // denominators, dtype=np.int64)


# --- Boon/Bane discards (M-7) -------------------------------------------------------------------


@dataclass(frozen=True)
class KeptLaw:
    """How 7+n rolled d12 reduce to kept dice under net Boon/Bane ``boon_net`` (M-7).

    ``weights[i]``: rolled sequences whose natural roll is kept multiset ``i`` of ``kept_rolls``.
    ``long_faces`` / ``long_weights``: the rare natural rolls of more than 7 dice (more 1s than a
    Boon may discard, or 12s for a Bane). ``runs`` split ``weights`` for the order of the kept
    dice: run r keeps multiset ``run_kept[r]`` and discarded ``run_extra[r]`` dice of face
    ``run_face[r]`` that the natural roll also shows; every arrangement of the kept dice plus
    those extra dice (dropping the last ``run_extra`` of that face, the later-rolled ones) comes
    from exactly ``run_each[r]`` rolled sequences. ``rolled_codes`` (sorted) are the codes of
    every multiset of 7+n rolled dice and ``rolled_run`` its run (``-1 - i`` for long roll i).
    """

    boon_net: int
    weights: I64
    long_faces: tuple[tuple[int, ...], ...]
    long_weights: tuple[int, ...]
    run_kept: I64
    run_extra: I64
    run_face: I64
    run_each: I64
    rolled_codes: I64
    rolled_run: I64

    @property
    def total(self) -> int:
        """12^(7+n): every rolled sequence."""
        return int(FACES ** (BASE_DICE + abs(self.boon_net)))


@lru_cache(maxsize=16)
def kept_law(boon_net: int) -> KeptLaw:
    """The M-7 law of the natural roll for net Boon (> 0) or Bane (< 0)."""
    if abs(boon_net) > MAX_NET_BOON:
        raise RulesError(
            f"Exact odds cover net Boon or Bane up to {MAX_NET_BOON}, not {abs(boon_net)}."
        )
    kept = kept_rolls()
    if boon_net == 0:
        weights = multinomials(kept.counts)
        rows = np.arange(len(weights), dtype=np.int64)
        zeros = np.zeros(len(weights), dtype=np.int64)
        return KeptLaw(0, weights, (), (), rows, zeros, zeros, np.ones_like(weights), kept.codes,
                       rows)  # fmt: skip
    n = abs(boon_net)
    rolled = counts_of_size(BASE_DICE + n)
    remaining, extra, face = _discard(rolled, boon_net)
    sizes = remaining.sum(axis=1)
    short = sizes == BASE_DICE
    index = kept.index(count_codes(remaining[short]))
    # sequences per arrangement of the relevant dice: C(7+n, 7+j) · multinomial(n−j; other discards)
    others = rolled[short].astype(np.int64) - remaining[short]
    rows = np.arange(len(others))
    others[rows, np.maximum(face[short] - 1, 0)] -= extra[short]
    each = multinomials_of(others, n - extra[short])
    each *= np.array([math.comb(BASE_DICE + n, BASE_DICE + j) for j in range(n + 1)])[extra[short]]
    whole = multinomials(rolled)
    weights = np.bincount(index, weights=whole[short], minlength=len(kept.codes))
    run_kept, run_extra, run_face, run_each, run_of = _runs(index, extra[short], face[short], each)
    long_faces, long_weights, long_of = _long_rolls(remaining[~short], whole[~short])
    rolled_run = np.empty(len(rolled), dtype=np.int64)
    rolled_run[short] = run_of
    rolled_run[~short] = -1 - long_of
    codes = count_codes(rolled)
    order = np.argsort(codes)
    law = KeptLaw(
        boon_net, np.rint(weights).astype(np.int64), long_faces, long_weights, run_kept,
        run_extra, run_face, run_each, codes[order], rolled_run[order],
    )  # fmt: skip
    if int(law.weights.sum()) + sum(long_weights) != law.total:
        raise AssertionError("M-7 weights do not add up")  # pragma: no cover
    return law


def multinomials_of(counts: I64, totals: I64) -> I64:
    """Multinomials: total! / ∏ count! per row, with per-row totals."""
    fact = np.array(_FACT, dtype=np.int64)
    denominators = np.prod(fact[counts], axis=1)
    return np.asarray(fact[totals] // denominators, dtype=np.int64)


def _discard(rolled: I8, boon_net: int) -> tuple[I64, I64, I64]:
    """Apply M-7 to rows of counts; also the boundary face shared by kept and discarded dice."""
    kept = rolled.astype(np.int64)
    faces = range(2, FACES + 1) if boon_net > 0 else range(FACES - 1, 0, -1)
    left = np.full(len(kept), abs(boon_net), dtype=np.int64)
    last_face = np.zeros(len(kept), dtype=np.int64)
    last_take = np.zeros(len(kept), dtype=np.int64)
    for face in faces:
        take = np.minimum(kept[:, face - 1], left)
        kept[:, face - 1] -= take
        left -= take
        touched = take > 0
        last_face[touched] = face
        last_take[touched] = take[touched]
    rows = np.arange(len(kept))
    shared = (last_face > 0) & (kept[rows, np.maximum(last_face - 1, 0)] > 0)
    extra = np.where(shared, last_take, 0)
    return kept, extra, np.where(shared, last_face, 0)


def _runs(index: I64, extra: I64, face: I64, each: I64) -> tuple[I64, I64, I64, I64, I64]:
    """Group rolled multisets by (kept multiset, extra count, face); add their per-order counts.

    Also returns the run of every rolled multiset.
    """
    key = (index * 16 + extra) * 16 + face
    unique, inverse = np.unique(key, return_inverse=True)
    total = np.bincount(inverse.ravel(), weights=each).round().astype(np.int64)
    return unique // 256, (unique // 16) % 16, unique % 16, total, inverse.ravel()


def _long_rolls(
    counts: I64, weights: I64
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], I64]:
    merged: dict[tuple[int, ...], int] = {}
    rows = []
    for row, weight in zip(counts.tolist(), weights.tolist(), strict=True):
        faces = tuple(f for f, c in enumerate(row, start=1) for _ in range(c))
        merged[faces] = merged.get(faces, 0) + int(weight)
        rows.append(faces)
    keys = tuple(sorted(merged))
    which = np.array([keys.index(faces) for faces in rows], dtype=np.int64)
    return keys, tuple(merged[k] for k in keys), which


# --- the natural roll of every kept multiset ------------------------------------------------------


@dataclass(frozen=True)
class NaturalTable:
    """Per kept multiset under one reading: die states, natural tally, U12/U1, tally costs."""

    states: I8
    tally: I16
    unpaired_twelves: I8
    unpaired_ones: I8
    costs: I16


@cache
def natural_table(reading: Reading) -> NaturalTable:
    """Everything about the 31,824 natural rolls of 7 dice that does not depend on the setup."""
    kept = kept_rolls()
    categories = category_table(reading)[kept.faces]
    count = [np.count_nonzero(categories == c, axis=1) for c in Category]
    pairs = np.minimum(count[Category.TWELVE], count[Category.ONE])
    tally = INDEX_GRID[
        count[Category.POSITIVE], count[Category.TWELVE], count[Category.ONE],
        count[Category.NEGATIVE],
    ]  # fmt: skip
    states = natural_states(kept.faces, reading)
    return NaturalTable(
        states,
        tally.astype(np.int16),
        (count[Category.TWELVE] - pairs).astype(np.int8),
        (count[Category.ONE] - pairs).astype(np.int8),
        min_costs(states, reading),
    )


@lru_cache(maxsize=256)
def best_table(reading: Reading, objective: Objective, budget: int) -> Best:
    """The best policy's tally for every natural roll of 7 dice (one pass of ``budget``)."""
    return best_of(natural_table(reading).costs, objective_ranks(objective), budget)
