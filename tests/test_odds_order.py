"""Several Adjustment passes (tokens after the main pass): the order of the dice matters.

M-13 breaks ties by the lowest die index, so which die a pass moves depends on the order of the
natural roll, and a later pass starts from those faces: the engine's result can differ between
two orders of the same dice. ``odds_order`` computes the law over every order; here it is
compared, run by run, with the engine resolving every distinct order of the dice.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from builders import character, defender_adjusts, strike_setup, striker_adjusts

from tableside.dice import Side
from tableside.majesty.odds import _strike_plan, simulate_strikes, strike_odds
from tableside.majesty.odds_law import PassSpec, roll_law
from tableside.majesty.odds_order import Pass, order_law
from tableside.majesty.odds_tables import (
    ALL_TALLIES,
    KeptLaw,
    kept_law,
    kept_rolls,
    objective_ranks,
)
from tableside.majesty.rolls import FACES, PLAIN, SURPRISED, Reading, Tally, discard_indices
from tableside.majesty.strike import DefenderState, Outcome, StrikeSetup, strike_with_dice

Key = tuple[int, int, int]


def engine_keys(setup: StrikeSetup, rolled_multiset: tuple[int, ...]) -> Counter[Key]:
    """The engine's (net, 12 Effects, Falter) over every distinct order of the rolled dice."""
    keys: Counter[Key] = Counter()
    for rolled in set(itertools.permutations(rolled_multiset)):
        o = strike_with_dice(setup, rolled).outcome
        keys[(o.net, o.twelve_effects, o.striker_falter)] += 1
    return keys


def law_keys(
    reading: Reading, law: KeptLaw, specs: tuple[PassSpec, ...], runs: list[int]
) -> dict[int, Counter[Key]]:
    """The walk's (net, 12 Effects, Falter) per run, restricted to ``runs``."""
    sub = replace(
        law,
        run_kept=law.run_kept[runs], run_extra=law.run_extra[runs],
        run_face=law.run_face[runs], run_each=law.run_each[runs],
    )  # fmt: skip
    passes = tuple(Pass(objective_ranks(s.objective), s.budget) for s in specs)
    found = order_law(reading, sub, passes)
    first = specs[0].objective
    ignore, melee = first.ignore_stops, first.melee  # type: ignore[attr-defined]
    keys: dict[int, Counter[Key]] = {}
    for run, tally, count in zip(found.run, found.tally, found.count, strict=True):
        o = Outcome.of(Tally(*map(int, ALL_TALLIES[tally])), ignore, melee)
        keys.setdefault(runs[int(run)], Counter())[(o.net, o.twelve_effects, o.striker_falter)] += (
            int(count)
        )
    return keys


def normalised(counter: Counter[Key]) -> dict[Key, Fraction]:
    total = sum(counter.values())
    return {k: Fraction(v, total) for k, v in counter.items()}


def run_of(law: KeptLaw, faces: tuple[int, ...]) -> int:
    """The run of the kept law that a rolled multiset falls into."""
    counts = np.bincount(np.array(faces) - 1, minlength=FACES).astype(np.int64)
    code = int(counts @ (16 ** np.arange(FACES, dtype=np.int64)))
    return int(law.rolled_run[np.searchsorted(law.rolled_codes, code)])


def test_m13_two_orders_of_the_same_dice_can_end_differently() -> None:
    # Defender 3 then the Striker's Inspiration token, Surprised (11s read as 12s, M-19)
    setup = strike_setup(state=DefenderState(surprised=True), inspiration=1, **defender_adjusts(3))
    keys = engine_keys(setup, (3, 3, 3, 3, 5, 5, 11))
    assert len(keys) > 1


CASES = [
    # (reading, setup, rolled multisets whose every order is resolved)
    ("surprised-defender3-inspiration1", SURPRISED,
     lambda: strike_setup(state=DefenderState(surprised=True), inspiration=1,
                          **defender_adjusts(3)),
     [(3, 3, 3, 3, 5, 5, 11), (4, 4, 4, 4, 4, 4, 9), (5, 5, 5, 5, 5, 10, 10),
      (4, 4, 4, 9, 9, 9, 9)]),
    ("plain-striker1-inspiration1-obstruction3", PLAIN,
     lambda: strike_setup(inspiration=1, obstruction=3, weapon="Axe", **striker_adjusts(1)),
     [(3, 8, 10, 10, 11, 12, 12), (2, 2, 3, 6, 7, 7, 7)]),
    ("surprised-striker1-inspiration1-obstruction3", SURPRISED,
     lambda: strike_setup(state=DefenderState(surprised=True), inspiration=1, obstruction=3,
                          **striker_adjusts(1)),
     [(1, 3, 5, 8, 11, 12, 12), (3, 3, 8, 8, 8, 11, 12)]),
    ("m7-boon1-striker2-obstruction1", PLAIN,
     lambda: strike_setup(boon=1, obstruction=1, **striker_adjusts(2)),
     [(6, 6, 6, 8, 8, 8, 3, 6), (2, 9, 9, 8, 8, 3, 3, 2), (4, 4, 4, 4, 4, 4, 9, 4)]),
    ("m7-bane1-defender2-inspiration2", PLAIN,
     lambda: strike_setup(bane=1, inspiration=2, **defender_adjusts(2)),
     [(9, 9, 9, 9, 3, 3, 3, 9), (11, 11, 8, 8, 8, 2, 2, 8)]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("reading", "make", "multisets"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_m13_m7_walk_over_every_order_equals_the_engine(
    reading: Reading, make: object, multisets: list[tuple[int, ...]]
) -> None:
    setup = make()  # type: ignore[operator]
    plan = _strike_plan(setup)
    assert len(plan.specs) >= 2 and plan.reading == reading
    law = kept_law(plan.boon_net)
    runs = [run_of(law, faces) for faces in multisets]
    walked = law_keys(reading, law, plan.specs, runs)
    for faces, run in zip(multisets, runs, strict=True):
        assert normalised(walked[run]) == normalised(engine_keys(setup, faces)), faces


def test_m7_the_kept_order_under_boon_is_not_uniform() -> None:
    # Among equal faces the later-rolled die is discarded: 5 7 5 keeps (5, 7) twice as often.
    kept: Counter[tuple[int, ...]] = Counter()
    for rolled in set(itertools.permutations((5, 7, 5))):
        dropped = discard_indices(rolled, 1)
        kept[tuple(face for i, face in enumerate(rolled) if i not in dropped)] += 1
    assert kept == {(5, 7): 2, (7, 5): 1}


MULTI = {
    "plain": lambda: strike_setup(
        weapon="Axe", obstruction=1, defender=character("Warrior", endurance=25),
        **striker_adjusts(2),
    ),
}  # fmt: skip


def test_m11_multi_pass_law_is_a_law_and_monte_carlo_agrees() -> None:
    setup = MULTI["plain"]()
    odds = strike_odds(setup)
    assert [(p.side, p.count) for p in odds.passes] == [(Side.STRIKER, 2), (Side.DEFENDER, 1)]
    for law in (odds.net, odds.uncanceled_hits, odds.wear[0][1], odds.twelve_effects):
        assert law.total == 1
    plan = _strike_plan(setup)
    roll = roll_law(plan.reading, plan.specs, 0)
    assert (roll.run_class < 0).any()  # some multisets end differently by order
    n = 400_000
    mc = simulate_strikes(setup, n, seed=11)
    for value, p in odds.net.items():
        se = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(float(mc.net.p(value)) - float(p)) <= 5 * se + 1e-12, value
    assert abs(float(mc.defeat - odds.defeat)) <= 5 * (float(odds.defeat) / n) ** 0.5 + 1e-9


def test_m7_natural_runs_cover_every_rolled_sequence() -> None:
    for boon_net in (2, -1):
        law = kept_law(boon_net)
        weight = roll_law(PLAIN, (), boon_net).weight
        assert int(weight.sum()) == 12 ** (7 + abs(boon_net))
        assert len(law.rolled_codes) == len(set(law.rolled_codes.tolist()))
        assert (law.run_kept < len(kept_rolls().codes)).all()
