"""M-13: ``best_faces`` is optimal — compared with brute force over every spread of Adjustments.

The brute force is independent of the engine: face categories (M-6, M-19), epic locks (M-9),
the legal spreads (M-12) and the adjuster's interest (M-13, M-20 … M-22) are all recomputed here
from the rulings, vectorised with numpy. An interest is encoded as one integer whose order is the
lexicographic order of the M-13 key: ``net · 10000 + 12 Effects · 100 − Falter``. The Striker
maximises it, the Defender minimises it; a Check's roller maximises net Passes, the opponent
minimises them. Values are compared, never faces: ties are broken by the engine's own rule.

The exhaustive test covers every multiset of 7 faces (31,824), k = 1 … 3, both sides (M-13's
issue: "compares it with brute force over every spread of Adjustments for every multiset of 7
dice, k = 1…3, both sides"). Seeded random samples cover Surprised and Exposed (M-19), ignored
Stops (M-20), Ranged Strikes (M-27), Checks, and k up to 5 on 8 and 9 dice (M-7).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt
import pytest

from tableside.dice import Side
from tableside.majesty.adjust import Objective, best_faces
from tableside.majesty.checks import CheckObjective
from tableside.majesty.rolls import EXPOSED, PLAIN, SURPRISED, Reading, Tally, face_bounds
from tableside.majesty.strike import StrikeObjective

IntArray = npt.NDArray[np.int64]
KeyFn = Callable[[IntArray], IntArray]

FACES = 12
# Categories as the rulings name them (M-6, M-8): independent of tableside.majesty.rolls.Category.
ONE, NEGATIVE, NEUTRAL, POSITIVE, TWELVE = range(5)
# Encoded keys never reach these: |net| ≤ 2 · 9 dice, 12 Effects and Falter ≤ 9.
NEVER_HIGH = 10**9
NEVER_LOW = -(10**9)
# Elements of one (multisets × spreads × dice) block of the vectorised brute force.
BLOCK = 3_000_000


def category_table(*, elevens_are_twelves: bool, lows_are_neutral: bool) -> IntArray:
    """Category of each face 1 … 12 (index 0 unused), read straight from M-6 and M-19."""
    table = np.full(FACES + 1, NEUTRAL, dtype=np.int64)
    for face in range(1, FACES + 1):
        if face == 12 or (face == 11 and elevens_are_twelves):
            table[face] = TWELVE
        elif face >= 9:
            table[face] = POSITIVE
        elif face >= 4 or lows_are_neutral:
            table[face] = NEUTRAL
        else:
            table[face] = ONE if face == 1 else NEGATIVE
    return table


PLAIN_TABLE = category_table(elevens_are_twelves=False, lows_are_neutral=False)
SURPRISED_TABLE = category_table(elevens_are_twelves=True, lows_are_neutral=False)  # M-19
EXPOSED_TABLE = category_table(elevens_are_twelves=True, lows_are_neutral=True)  # M-19


@dataclass(frozen=True)
class Counts:
    """Category counts over the last axis of an array of faces."""

    positives: IntArray
    twelves: IntArray
    ones: IntArray
    negatives: IntArray

    @classmethod
    def of(cls, faces: IntArray, table: IntArray) -> Counts:
        categories = table[faces]

        def count(category: int) -> IntArray:
            return np.asarray(np.count_nonzero(categories == category, axis=-1), dtype=np.int64)

        return cls(count(POSITIVE), count(TWELVE), count(ONE), count(NEGATIVE))


def strike_key(table: IntArray, ignore_stops: int, melee: bool) -> KeyFn:
    """The Striker's M-13 interest (M-20 … M-22, M-27), encoded; the Defender minimises it."""

    def key(faces: IntArray) -> IntArray:
        c = Counts.of(faces, table)
        pairs = np.minimum(c.twelves, c.ones)  # M-8: 12s and 1s pair one for one
        twelve_effects = c.twelves - pairs  # M-21
        hits = c.positives + c.twelves + twelve_effects  # M-20
        all_stops = c.negatives + c.ones
        ignored: IntArray = np.minimum(ignore_stops, all_stops)  # M-20: an ignored 1 still pairs
        stops = all_stops - ignored
        falter = c.ones - pairs if melee else np.zeros_like(pairs)  # M-22, M-27
        return (hits - stops) * 10_000 + twelve_effects * 100 - falter

    return key


def check_key(table: IntArray) -> KeyFn:
    """A Check's net Passes (M-8, M-31): the roller maximises it, the opponent minimises it."""

    def key(faces: IntArray) -> IntArray:
        c = Counts.of(faces, table)
        pairs = np.minimum(c.twelves, c.ones)
        return c.positives + 2 * c.twelves - pairs - c.negatives - c.ones

    return key


def lock_bounds(naturals: IntArray, table: IntArray) -> tuple[IntArray, IntArray]:
    """Lowest and highest face each die may reach (M-9 locks judged on the natural roll, M-12)."""
    c = Counts.of(naturals, table)
    pairs = np.minimum(c.twelves, c.ones)
    epic_strike = (c.twelves - pairs >= 2)[:, None]
    epic_defense = (c.ones - pairs >= 2)[:, None]
    categories = table[naturals]
    low = np.where(epic_strike & (categories == TWELVE), naturals, 1)
    high = np.where(epic_defense & (categories == ONE), naturals, FACES)
    return low.astype(np.int64), high.astype(np.int64)


@cache
def spreads(dice: int, budget: int) -> IntArray:
    """Every spread of at most ``budget`` Adjustments over ``dice`` dice: delta vectors, L1 ≤ k."""
    rows: list[tuple[int, ...]] = []

    def extend(prefix: tuple[int, ...], left: int) -> None:
        if len(prefix) == dice:
            rows.append(prefix)
            return
        for delta in range(-left, left + 1):
            extend((*prefix, delta), left - abs(delta))

    extend((), budget)
    return np.array(rows, dtype=np.int64)


def test_m12_spread_counts() -> None:
    # Lattice points of the L1 ball: 7 dice, k ≤ 3 → 575 spreads (the count).
    assert len(spreads(7, 3)) == 575
    assert [len(spreads(7, k)) for k in (0, 1, 2)] == [1, 15, 113]
    assert len(spreads(9, 5)) == 22_363
    assert len({tuple(row) for row in spreads(8, 4).tolist()}) == len(spreads(8, 4))


@dataclass(frozen=True)
class BruteForce:
    """Best encoded key per natural roll and budget: the maximum and the minimum."""

    highest: dict[int, IntArray]
    lowest: dict[int, IntArray]


def brute_force(
    naturals: IntArray, budgets: Sequence[int], table: IntArray, key: KeyFn
) -> BruteForce:
    """Try every legal spread of at most k Adjustments on every natural roll (M-9, M-12)."""
    count, dice = naturals.shape
    deltas = spreads(dice, max(budgets))
    sizes = np.abs(deltas).sum(axis=1)
    low, high = lock_bounds(naturals, table)
    highest = {k: np.empty(count, dtype=np.int64) for k in budgets}
    lowest = {k: np.empty(count, dtype=np.int64) for k in budgets}
    step = max(1, BLOCK // (len(deltas) * dice))
    for start in range(0, count, step):
        end = min(count, start + step)
        final = naturals[start:end, None, :] + deltas[None, :, :]
        legal = np.all(
            (final >= low[start:end, None, :]) & (final <= high[start:end, None, :]), axis=2
        )
        keys = key(np.clip(final, 1, FACES))  # clipped faces are illegal and masked out below
        for k in budgets:
            allowed = legal & (sizes <= k)[None, :]
            highest[k][start:end] = np.where(allowed, keys, NEVER_LOW).max(axis=1)
            lowest[k][start:end] = np.where(allowed, keys, NEVER_HIGH).min(axis=1)
    return BruteForce(highest, lowest)


def assert_best_is_optimal(
    naturals: IntArray,
    budget: int,
    reading: Reading,
    table: IntArray,
    objective: Objective,
    key: KeyFn,
    expected: IntArray,
    bounds: Sequence[tuple[tuple[int, int], ...]] | None = None,
) -> None:
    """Run ``best_faces`` on every natural roll; check it is legal and reaches ``expected``."""
    rows = [tuple(int(face) for face in row) for row in naturals.tolist()]
    engine_bounds = bounds if bounds is not None else [face_bounds(row, reading) for row in rows]
    finals = np.array(
        [
            best_faces(row, row_bounds, reading, budget, objective)
            for row, row_bounds in zip(rows, engine_bounds, strict=True)
        ],
        dtype=np.int64,
    )
    assert finals.shape == naturals.shape
    low, high = lock_bounds(naturals, table)
    used = np.abs(finals - naturals).sum(axis=1)
    legal = (used <= budget) & np.all((finals >= low) & (finals <= high), axis=1)
    bad = np.flatnonzero(~legal)
    assert bad.size == 0, "illegal spreads (M-9, M-12): " + "; ".join(
        f"{rows[i]} → {tuple(finals[i].tolist())} with k={budget}" for i in bad[:5]
    )
    got = key(finals)
    wrong = np.flatnonzero(got != expected)
    assert wrong.size == 0, f"{wrong.size} suboptimal (M-13), e.g. " + "; ".join(
        f"{rows[i]} k={budget}: best_faces → {tuple(finals[i].tolist())} key {got[i]}, "
        f"brute force {expected[i]}"
        for i in wrong[:5]
    )


# --- cross-checks of the brute force's own pieces -----------------------------------------------


@pytest.mark.parametrize(
    ("reading", "table"),
    [(PLAIN, PLAIN_TABLE), (SURPRISED, SURPRISED_TABLE), (EXPOSED, EXPOSED_TABLE)],
    ids=["plain", "surprised", "exposed"],
)
def test_m6_m19_category_tables_agree_with_reading(reading: Reading, table: IntArray) -> None:
    for face in range(1, FACES + 1):
        assert int(reading.category(face)) == int(table[face]), face


def encode(key: tuple[int, ...]) -> int:
    net, twelve_effects, minus_falter = key
    return net * 10_000 + twelve_effects * 100 + minus_falter


@pytest.mark.parametrize("ignore_stops", [0, 1, 2, 5])
@pytest.mark.parametrize("melee", [True, False], ids=["melee", "ranged"])
@pytest.mark.parametrize(
    ("reading", "table"),
    [(PLAIN, PLAIN_TABLE), (SURPRISED, SURPRISED_TABLE), (EXPOSED, EXPOSED_TABLE)],
    ids=["plain", "surprised", "exposed"],
)
def test_m13_encoded_interest_agrees_with_strike_and_check_objectives(
    reading: Reading, table: IntArray, melee: bool, ignore_stops: int
) -> None:
    rng = np.random.default_rng(13)
    rolls = rng.integers(1, FACES + 1, size=(400, 7))
    mine = strike_key(table, ignore_stops, melee)(rolls)
    striker = StrikeObjective(Side.STRIKER, ignore_stops, melee)
    defender = StrikeObjective(Side.DEFENDER, ignore_stops, melee)
    for row, value in zip(rolls.tolist(), mine.tolist(), strict=True):
        tally = Tally.of(tuple(row), reading)
        assert encode(striker(tally)) == value, row
        assert tuple(-part for part in defender(tally)) == striker(tally), row
    if reading == PLAIN:
        nets = check_key(table)(rolls)
        for row, net in zip(rolls.tolist(), nets.tolist(), strict=True):
            tally = Tally.of(tuple(row), PLAIN)
            assert CheckObjective(Side.ROLLER)(tally) == (net,)
            assert CheckObjective(Side.OPPONENT)(tally) == (-net,)


# --- every multiset of 7 dice -------------------------------------------------------------------


@dataclass(frozen=True)
class Exhaustive:
    """Every multiset of 7 faces, its engine bounds and the brute-force optimum for k = 1 … 3."""

    naturals: IntArray
    bounds: list[tuple[tuple[int, int], ...]]
    best: BruteForce


@pytest.fixture(scope="module")
def exhaustive() -> Exhaustive:
    rows = list(itertools.combinations_with_replacement(range(1, FACES + 1), 7))
    naturals = np.array(rows, dtype=np.int64)
    best = brute_force(naturals, (1, 2, 3), PLAIN_TABLE, strike_key(PLAIN_TABLE, 0, True))
    return Exhaustive(naturals, [face_bounds(row, PLAIN) for row in rows], best)


def test_m9_face_bounds_match_epic_locks_on_every_7_dice_multiset(exhaustive: Exhaustive) -> None:
    assert len(exhaustive.naturals) == 31_824
    for reading, table in ((PLAIN, PLAIN_TABLE), (SURPRISED, SURPRISED_TABLE)):
        low, high = lock_bounds(exhaustive.naturals, table)
        for i, row in enumerate(exhaustive.naturals.tolist()):
            engine = face_bounds(tuple(row), reading)
            expected = tuple(zip(low[i].tolist(), high[i].tolist(), strict=True))
            assert engine == expected, (row, reading)


@pytest.mark.parametrize("budget", [1, 2, 3])
@pytest.mark.parametrize("side", [Side.STRIKER, Side.DEFENDER])
def test_m13_best_matches_brute_force_on_every_7_dice_multiset(
    exhaustive: Exhaustive, side: Side, budget: int
) -> None:
    best = exhaustive.best
    expected = best.highest[budget] if side == Side.STRIKER else best.lowest[budget]
    assert_best_is_optimal(
        exhaustive.naturals,
        budget,
        PLAIN,
        PLAIN_TABLE,
        StrikeObjective(side, ignore_stops=0, melee=True),
        strike_key(PLAIN_TABLE, 0, True),
        expected,
        exhaustive.bounds,
    )


# --- seeded random samples ----------------------------------------------------------------------

# Faces 1, 11 and 12 come up more often, so Epic rolls (M-9) and 12/1 pairs (M-8) are common.
EPIC_WEIGHTS = np.array([4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 4], dtype=np.float64)


def random_rolls(seed: int, count: int, dice: int) -> IntArray:
    """``count`` seeded natural rolls of ``dice`` dice, in rolled order; half biased to 1/11/12."""
    rng = np.random.default_rng(seed)
    uniform = rng.integers(1, FACES + 1, size=(count - count // 2, dice))
    biased = rng.choice(
        np.arange(1, FACES + 1), size=(count // 2, dice), p=EPIC_WEIGHTS / EPIC_WEIGHTS.sum()
    )
    return np.concatenate([uniform, biased]).astype(np.int64)


def check_sample(
    naturals: IntArray,
    budgets: Sequence[int],
    reading: Reading,
    table: IntArray,
    objective: Objective,
    key: KeyFn,
    maximise: bool,
) -> None:
    best = brute_force(naturals, budgets, table, key)
    for budget in budgets:
        expected = best.highest[budget] if maximise else best.lowest[budget]
        assert_best_is_optimal(naturals, budget, reading, table, objective, key, expected)


SAMPLE = 1_000
STRIKE_SIDES = pytest.mark.parametrize("side", [Side.STRIKER, Side.DEFENDER])


@STRIKE_SIDES
def test_m13_m19_surprised_best_matches_brute_force(side: Side) -> None:
    check_sample(
        random_rolls(1901, SAMPLE, 7),
        (1, 2, 3),
        SURPRISED,
        SURPRISED_TABLE,
        StrikeObjective(side, 0, True),
        strike_key(SURPRISED_TABLE, 0, True),
        maximise=side == Side.STRIKER,
    )


@STRIKE_SIDES
def test_m13_m19_exposed_best_matches_brute_force(side: Side) -> None:
    check_sample(
        random_rolls(1902, SAMPLE, 7),
        (1, 2, 3),
        EXPOSED,
        EXPOSED_TABLE,
        StrikeObjective(side, 0, True),
        strike_key(EXPOSED_TABLE, 0, True),
        maximise=side == Side.STRIKER,
    )


@pytest.mark.parametrize("ignore_stops", [1, 2])
@STRIKE_SIDES
def test_m13_m20_ignore_stops_best_matches_brute_force(side: Side, ignore_stops: int) -> None:
    check_sample(
        random_rolls(2000 + ignore_stops, SAMPLE, 7),
        (1, 2, 3),
        PLAIN,
        PLAIN_TABLE,
        StrikeObjective(side, ignore_stops, True),
        strike_key(PLAIN_TABLE, ignore_stops, True),
        maximise=side == Side.STRIKER,
    )


@STRIKE_SIDES
def test_m13_m27_ranged_best_matches_brute_force(side: Side) -> None:
    check_sample(
        random_rolls(2700, SAMPLE, 7),
        (1, 2, 3),
        PLAIN,
        PLAIN_TABLE,
        StrikeObjective(side, 0, False),
        strike_key(PLAIN_TABLE, 0, False),
        maximise=side == Side.STRIKER,
    )


@pytest.mark.parametrize("side", [Side.ROLLER, Side.OPPONENT])
def test_m13_m31_check_best_matches_brute_force(side: Side) -> None:
    check_sample(
        random_rolls(3100, SAMPLE, 7),
        (1, 2, 3),
        PLAIN,
        PLAIN_TABLE,
        CheckObjective(side),
        check_key(PLAIN_TABLE),
        maximise=side == Side.ROLLER,
    )


@pytest.mark.parametrize("dice", [8, 9])
@STRIKE_SIDES
def test_m7_m13_more_dice_and_budget_5_best_matches_brute_force(side: Side, dice: int) -> None:
    # Boon keeps more than 7 dice when too few non-1s can be discarded (M-7).
    check_sample(
        random_rolls(700 + dice, 200, dice),
        (1, 2, 3, 4, 5),
        PLAIN,
        PLAIN_TABLE,
        StrikeObjective(side, 0, True),
        strike_key(PLAIN_TABLE, 0, True),
        maximise=side == Side.STRIKER,
    )
