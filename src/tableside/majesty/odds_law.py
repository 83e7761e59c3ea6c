"""The law of a roll's final tally: exact weights, and Monte Carlo samples of the same law.

A roll's result (for a Strike or a Check) depends only on the final tally after every `best`
pass and on the natural roll's unpaired 12s and 1s (M-8, M-9, M-13). ``roll_law`` groups every
rolled sequence of 7+n d12 into classes (final tally, natural U12, natural U1) with exact
integer weights over 12^(7+n); ``sample_law`` draws classes with the same law from a seeded
numpy Generator.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Protocol

import numpy as np

from tableside.majesty.adjust import Objective, best_faces
from tableside.majesty.odds_order import Pass, order_law
from tableside.majesty.odds_tables import (
    I64,
    KeptLaw,
    best_table,
    count_codes,
    counts_of_size,
    kept_law,
    kept_rolls,
    multinomials_of,
    natural_table,
    objective_ranks,
    tally_index,
)
from tableside.majesty.rolls import BASE_DICE, FACES, EpicState, Reading, Tally, face_bounds


@dataclass(frozen=True, slots=True)
class PassSpec:
    """One `best` pass: the adjuster's interest (M-13) and its number of Adjustments."""

    objective: Objective
    budget: int


@dataclass(frozen=True)
class RollLaw:
    """Classes of rolls and their weights; how runs of the kept law map onto classes.

    Class ``c`` is final tally ``ALL_TALLIES[tally[c]]`` with natural ``unpaired_twelves[c]``
    and ``unpaired_ones[c]``; ``weight[c]`` rolled sequences out of ``total`` fall into it.
    A run of the kept law falls into class ``run_class[r]``, or, when the order of its dice
    matters (several passes), into the classes ``mixed_class[mixed_start[i]:mixed_start[i+1]]``
    with weights ``mixed_weight`` (``run_class[r] = -1 - i``). Long natural rolls (more than 7
    dice, M-7) fall into ``long_class``.
    """

    tally: I64
    unpaired_twelves: I64
    unpaired_ones: I64
    weight: I64
    total: int
    boon_net: int
    run_class: I64
    long_class: I64
    mixed_start: I64
    mixed_class: I64
    mixed_weight: I64

    def __len__(self) -> int:
        return len(self.tally)


def run_weights(law: KeptLaw) -> I64:
    """Rolled sequences per run: per-arrangement count × arrangements of its dice."""
    counts = kept_rolls().counts[law.run_kept].astype(np.int64)
    rows = np.arange(len(counts))
    counts[rows, np.maximum(law.run_face - 1, 0)] += law.run_extra
    return np.asarray(multinomials_of(counts, counts.sum(axis=1)) * law.run_each, dtype=np.int64)


class LawStore(Protocol):
    """Somewhere outside the rules that keeps computed laws (``simulate.disk_cache``)."""

    def load(self, key: str) -> RollLaw | None:
        """A kept law, or None."""
        ...

    def save(self, key: str, law: RollLaw) -> None:
        """Keep a law."""
        ...


STORE: LawStore | None = None  # installed by whoever may do I/O (the rules package does none)


@lru_cache(maxsize=128)
def roll_law(reading: Reading, passes: tuple[PassSpec, ...], boon_net: int) -> RollLaw:
    """Exact law of (final tally, natural U12, natural U1) for the passes in order (M-7 … M-13).

    With a :data:`STORE` installed, a law computed once is read back instead of recomputed.
    """
    store = STORE
    if store is None:
        return _roll_law(reading, passes, boon_net)
    key = repr((reading, passes, boon_net))
    law = store.load(key)
    if law is None:
        law = _roll_law(reading, passes, boon_net)
        store.save(key, law)
    return law


def _roll_law(reading: Reading, passes: tuple[PassSpec, ...], boon_net: int) -> RollLaw:
    law = kept_law(boon_net)
    natural = natural_table(reading)
    if len(passes) <= 1:
        final = _single_pass_tallies(reading, passes)
        runs = np.arange(len(law.run_kept), dtype=np.int64)
        entry_tally = final[law.run_kept].astype(np.int64)
        entry_weight = run_weights(law)
    else:
        ordered = order_law(reading, law, tuple(_pass(p) for p in passes))
        runs, entry_tally, entry_weight = ordered.run, ordered.tally.astype(np.int64), ordered.count
    rows = law.run_kept[runs]
    twelves = natural.unpaired_twelves[rows].astype(np.int64)
    ones = natural.unpaired_ones[rows].astype(np.int64)
    long_rows = [_long_roll(faces, reading, passes) for faces in law.long_faces]
    entry_tally = np.concatenate([entry_tally, [t for t, _, _ in long_rows]]).astype(np.int64)
    twelves = np.concatenate([twelves, [u for _, u, _ in long_rows]]).astype(np.int64)
    ones = np.concatenate([ones, [u for _, _, u in long_rows]]).astype(np.int64)
    entry_weight = np.concatenate([entry_weight, law.long_weights]).astype(np.int64)
    code = (entry_tally * 16 + twelves) * 16 + ones
    unique, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    weight = np.bincount(inverse, weights=entry_weight, minlength=len(unique))
    entries = len(runs)
    run_class, mixed_start, mixed_class, mixed_weight = _run_classes(
        runs, inverse[:entries], entry_weight[:entries], len(law.run_kept)
    )
    return RollLaw(
        entry_tally[first], twelves[first], ones[first], np.rint(weight).astype(np.int64),
        law.total, boon_net, run_class, inverse[entries:].astype(np.int64), mixed_start,
        mixed_class, mixed_weight,
    )  # fmt: skip


def _run_classes(runs: I64, classes: I64, weights: I64, n_runs: int) -> tuple[I64, I64, I64, I64]:
    """Run → class, or the mixture of classes of a run whose result depends on the order."""
    order = np.lexsort((classes, runs))
    runs, classes, weights = runs[order], classes[order], weights[order]
    per_run = np.bincount(runs, minlength=n_runs)
    run_class = np.full(n_runs, -1, dtype=np.int64)
    single = per_run == 1
    start = np.concatenate([[0], np.cumsum(per_run)])
    run_class[single] = classes[start[:-1][single]]
    mixed = np.flatnonzero(per_run > 1)
    run_class[mixed] = -1 - np.arange(len(mixed))
    pieces = [np.arange(start[r], start[r + 1]) for r in mixed]
    taken = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
    mixed_start = np.concatenate([[0], np.cumsum(per_run[mixed])]).astype(np.int64)
    return run_class, mixed_start, classes[taken], weights[taken]


def _single_pass_tallies(reading: Reading, passes: tuple[PassSpec, ...]) -> I64:
    if not passes:
        return natural_table(reading).tally.astype(np.int64)
    return best_table(reading, passes[0].objective, passes[0].budget).tally.astype(np.int64)


@cache
def _pass(spec: PassSpec) -> Pass:
    return Pass(objective_ranks(spec.objective), spec.budget)


def _long_roll(
    faces: tuple[int, ...], reading: Reading, passes: tuple[PassSpec, ...]
) -> tuple[int, int, int]:
    """A natural roll of more than 7 dice (all 1s or all 12s): through the engine itself."""
    epic = EpicState.of(faces, reading)
    bounds = face_bounds(faces, reading)
    final = faces
    for spec in passes:
        final = best_faces(final, bounds, reading, spec.budget, spec.objective)
    return tally_index(Tally.of(final, reading)), epic.unpaired_twelves, epic.unpaired_ones


# --- Monte Carlo ----------------------------------------------------------------------------------


@cache
def pair_table() -> tuple[I64, I64, I64]:
    """Ordered 4 dice → multiset id, ordered 3 dice → multiset id, (id4, id3) → kept row."""
    kept = kept_rolls()
    four, three = counts_of_size(4), counts_of_size(3)
    lut4 = _ordered_to_multiset(4, four)
    lut3 = _ordered_to_multiset(3, three)
    union = four[:, None, :].astype(np.int64) + three[None, :, :].astype(np.int64)
    pair = kept.index(count_codes(union.reshape(-1, FACES))).reshape(len(four), len(three))
    return lut4, lut3, pair


def _ordered_to_multiset(dice: int, multisets: np.ndarray) -> I64:
    """For every ordered roll of ``dice`` d12 (base-12 number), its multiset's row."""
    ordered = np.arange(FACES**dice, dtype=np.int64)
    digits = (ordered[:, None] // FACES ** np.arange(dice, dtype=np.int64)[None, :]) % FACES
    counts = np.zeros((len(ordered), FACES), dtype=np.int64)
    for column in digits.T:
        counts[np.arange(len(ordered)), column] += 1
    codes = count_codes(multisets)
    order = np.argsort(codes)
    found = np.searchsorted(codes[order], count_codes(counts))
    return np.asarray(order[found], dtype=np.int64)


_DIE_CODE = np.int64(16) ** np.arange(FACES, dtype=np.int64)
CHUNK = 1 << 21
# Up to 10 rolled dice (Boon/Bane 3) a roll's multiset is found by two table look-ups: the face
# counts of faces 1–6 and of faces 7–12 (base 11) give each half's size and rank, which number
# the multisets of 7+n dice. Beyond 10 dice a binary search among the rolled multisets is used.
_HALF = FACES // 2
_BASE = 11
_FAST_DICE = _BASE - 1


@cache
def _half_tables() -> tuple[I64, I64]:
    """Per base-11 code of counts over 6 faces: the half's size and its rank among that size."""
    size = np.zeros(_BASE**_HALF, dtype=np.int64)
    rank = np.zeros(_BASE**_HALF, dtype=np.int64)
    for total in range(_FAST_DICE + 1):
        rows = counts_of_size(total, _HALF).astype(np.int64)
        codes = rows @ (_BASE ** np.arange(_HALF, dtype=np.int64))
        size[codes] = total
        rank[codes] = np.arange(len(rows))
    return size, rank


def _half_count(total: I64 | int) -> I64:
    """Multisets of ``total`` dice over 6 faces: C(total + 5, 5)."""
    n = np.asarray(total, dtype=np.int64)
    return np.asarray((n + 1) * (n + 2) * (n + 3) * (n + 4) * (n + 5) // 120, dtype=np.int64)


def _split_index(low: I64, high: I64, dice: int) -> I64:
    """A number 0 … (multisets of ``dice`` d12) − 1 from the two halves' base-11 codes."""
    size, rank = _half_tables()
    low_size = size[low]
    counts = _half_count(np.arange(dice + 1)) * _half_count(dice - np.arange(dice + 1))
    offset = np.concatenate([[0], np.cumsum(counts)])
    return np.asarray(
        offset[low_size] + rank[low] * _half_count(dice - low_size) + rank[high], dtype=np.int64
    )


@cache
def _group_codes(dice: int) -> tuple[I64, I64]:
    """For every ordered roll of ``dice`` d12 (base-12 number): its two half codes (base 11)."""
    ordered = np.arange(FACES**dice, dtype=np.int64)
    low = np.zeros(len(ordered), dtype=np.int64)
    high = np.zeros(len(ordered), dtype=np.int64)
    for position in range(dice):
        face = (ordered // FACES**position) % FACES
        low += np.where(face < _HALF, _BASE ** np.minimum(face, _HALF - 1), 0)
        high += np.where(face >= _HALF, _BASE ** np.maximum(face - _HALF, 0), 0)
    return low, high


@lru_cache(maxsize=8)
def _split_runs(boon_net: int) -> I64:
    """The kept-law run of every multiset of 7+n rolled dice, numbered by ``_split_index``."""
    law = kept_law(boon_net)
    dice = BASE_DICE + abs(boon_net)
    counts = (law.rolled_codes[:, None] // _DIE_CODE[None, :]) % 16
    weights = _BASE ** np.arange(_HALF, dtype=np.int64)
    index = _split_index(counts[:, :_HALF] @ weights, counts[:, _HALF:] @ weights, dice)
    runs = np.empty(len(index), dtype=np.int64)
    runs[index] = law.rolled_run
    return runs


def sample_runs(boon_net: int, rng: np.random.Generator, n: int) -> I64:
    """Runs of the kept law of ``n`` seeded rolls of 7+n d12 (``-1 - i``: long roll i)."""
    dice = BASE_DICE + abs(boon_net)
    if boon_net == 0:
        lut4, lut3, pair = pair_table()
        rolled = rng.integers(0, FACES**BASE_DICE, size=n, dtype=np.int64)
        high, low = np.divmod(rolled, FACES**3)
        return np.asarray(pair[lut4[high], lut3[low]], dtype=np.int64)
    if dice <= _FAST_DICE:
        low = np.zeros(n, dtype=np.int64)
        high = np.zeros(n, dtype=np.int64)
        for part in (dice - dice // 2, dice // 2):  # 4+4, 5+4, 5+5 dice
            group_low, group_high = _group_codes(part)
            rolled = rng.integers(0, FACES**part, size=n, dtype=np.int64)
            low += group_low[rolled]
            high += group_high[rolled]
        return _split_runs(boon_net)[_split_index(low, high, dice)]
    law = kept_law(boon_net)
    faces = rng.integers(0, FACES, size=(n, dice), dtype=np.int8)
    codes = _DIE_CODE[faces].sum(axis=1)
    return np.asarray(law.rolled_run[np.searchsorted(law.rolled_codes, codes)], dtype=np.int64)


def sample_law(law: RollLaw, rng: np.random.Generator, n: int) -> I64:
    """Counts per class of ``n`` seeded rolls (vectorised, in chunks)."""
    counts = np.zeros(len(law), dtype=np.int64)
    cumulative = _mixed_cumulative(law)
    left = n
    while left > 0:
        size = min(CHUNK, left)
        runs = sample_runs(law.boon_net, rng, size)
        classes = _classes_of(law, cumulative, runs, rng)
        counts += np.bincount(classes, minlength=len(law))
        left -= size
    return counts


def _mixed_cumulative(law: RollLaw) -> np.ndarray:
    """Per mixed run i, cumulative probabilities shifted by i (one increasing array)."""
    if not len(law.mixed_weight):
        return np.zeros(0)
    starts = law.mixed_start
    owner = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
    totals = np.bincount(owner, weights=law.mixed_weight)
    cumulative = np.cumsum(law.mixed_weight) - np.repeat(
        np.concatenate([[0], np.cumsum(totals)[:-1]]), np.diff(starts)
    )
    return np.asarray(owner + cumulative / totals[owner], dtype=np.float64)


def _classes_of(law: RollLaw, cumulative: np.ndarray, runs: I64, rng: np.random.Generator) -> I64:
    classes = np.empty(len(runs), dtype=np.int64)
    short = runs >= 0
    classes[~short] = law.long_class[-1 - runs[~short]]
    found = law.run_class[runs[short]]
    mixed = found < 0
    if mixed.any():
        which = -1 - found[mixed]
        spot = np.searchsorted(cumulative, which + rng.random(len(which)), side="right")
        found[mixed] = law.mixed_class[np.minimum(spot, law.mixed_start[which + 1] - 1)]
    classes[short] = found
    return classes


def clear_caches() -> None:
    """Forget the laws and sampling tables of this module (cold-start measurements)."""
    for cached in (roll_law, _pass, pair_table, _half_tables, _group_codes, _split_runs):
        cached.cache_clear()


__all__ = ["PassSpec", "RollLaw", "clear_caches", "roll_law", "sample_law", "sample_runs"]
