"""The tables behind the odds, against the engine's own pieces (M-6 … M-13)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from builders import defender_adjusts, strike_setup, striker_adjusts

from tableside.dice import Side
from tableside.dice.laws import Distribution
from tableside.majesty.adjust import _options, _suffix_tables
from tableside.majesty.odds import strike_odds
from tableside.majesty.odds_tables import (
    CHILD,
    STATES,
    TALLIES,
    kept_rolls,
    min_costs,
    natural_table,
    objective_ranks,
    pass_outputs,
    state_options,
    tally_index,
)
from tableside.majesty.rolls import (
    EXPOSED,
    PLAIN,
    SURPRISED,
    Category,
    Reading,
    Tally,
    face_bounds,
)
from tableside.majesty.strike import DefenderState, StrikeObjective

READINGS = pytest.mark.parametrize(
    "reading", [PLAIN, SURPRISED, EXPOSED], ids=["plain", "surprised", "exposed"]
)


def test_m6_tallies_are_numbered_by_size() -> None:
    assert len(TALLIES) == 330
    sizes = TALLIES.sum(axis=1)
    assert (np.diff(sizes) >= 0).all()
    for i, row in enumerate(TALLIES.tolist()):
        assert tally_index(Tally(*row)) == i
        for category in Category:
            child = int(CHILD[category, i])
            if category == Category.NEUTRAL:
                assert child == i
            elif child >= 0:
                assert int(TALLIES[child].sum()) == sum(row) + 1


@READINGS
def test_m9_m12_options_of_every_die_state_equal_the_engine(reading: Reading) -> None:
    options = state_options(reading)
    bounds = {0: (1, 12), 1: (11, 12), 2: (12, 12), 3: (1, 1)}
    for s, (face, lock) in enumerate(STATES):
        engine = set(_options(face, bounds[lock], reading, 99))
        mine = {
            (int(options.target[s, c]), int(options.cost[s, c]))
            for c in range(5)
            if options.cost[s, c] < 10_000
        }
        assert mine == engine, (face, lock)
        ranked = [int(c) for c in options.preference[s] if c >= 0]
        costs = [int(options.cost[s, c]) for c in ranked]
        assert costs == sorted(costs, reverse=True)  # the largest move first (adjust._choose)


@READINGS
def test_m9_natural_die_states_carry_the_epic_locks_of_face_bounds(reading: Reading) -> None:
    table = natural_table(reading)
    faces = kept_rolls().faces
    for row in np.random.default_rng(9).choice(len(faces), size=400, replace=False).tolist():
        natural = tuple(int(f) for f in faces[row])
        lows_highs = face_bounds(natural, reading)
        states = [STATES[s] for s in table.states[row].tolist()]
        for (face, lock), (low, high), original in zip(states, lows_highs, natural, strict=True):
            assert face == original
            assert (low, high) == {0: (1, 12), 1: (11, 12), 2: (12, 12), 3: (1, 1)}[lock]


@READINGS
def test_m12_min_costs_equal_the_engine_suffix_tables(reading: Reading) -> None:
    faces = kept_rolls().faces
    rows = np.random.default_rng(12).choice(len(faces), size=200, replace=False)
    table = natural_table(reading)
    costs = min_costs(table.states[rows], reading)
    for column, row in enumerate(rows.tolist()):
        natural = tuple(int(f) for f in faces[row])
        engine = _suffix_tables(natural, face_bounds(natural, reading), reading, 6)[0]
        mine = {
            tuple(int(x) for x in TALLIES[t]): int(costs[t, column])
            for t in range(len(TALLIES))
            if costs[t, column] <= 6
        }
        assert mine == engine, natural


def test_m13_order_free_test_is_sound_on_samples() -> None:
    # Where pass_outputs says every optimal spread leaves one multiset, every order of the dice
    # leaves that multiset under the engine's `best` (checked on a few multisets).
    from tableside.majesty.adjust import best_faces

    objective = StrikeObjective(Side.STRIKER, 0, True)
    table = natural_table(PLAIN)
    outputs = pass_outputs(table.states, PLAIN, objective_ranks(objective), 2)
    faces = kept_rolls().faces
    counts = kept_rolls().counts.astype(np.int64)
    orders = np.array([_multinomial(tuple(int(f) for f in row)) for row in faces.tolist()])
    candidates = np.flatnonzero(outputs.unique & (orders <= 420) & (counts[:, 1:11].sum(1) > 3))
    rng = np.random.default_rng(13)
    for row in rng.choice(candidates, size=8, replace=False).tolist():
        natural = tuple(int(f) for f in faces[row])
        bounds = face_bounds(natural, PLAIN)
        finals = set()
        for order in itertools.permutations(range(7)):
            rolled = tuple(natural[i] for i in order)
            ordered_bounds = tuple(bounds[i] for i in order)
            finals.add(tuple(sorted(best_faces(rolled, ordered_bounds, PLAIN, 2, objective))))
        assert len(finals) == 1, natural


def _multinomial(faces: tuple[int, ...]) -> int:
    result = math.factorial(len(faces))
    for face in set(faces):
        result //= math.factorial(faces.count(face))
    return result


@pytest.mark.parametrize(
    "setup",
    [
        strike_setup(**striker_adjusts(2)),
        strike_setup(boon=3, state=DefenderState(exposed=True), **defender_adjusts(4)),
        strike_setup(bane=2, weapon="Bow", ranged=True, **striker_adjusts(10)),
    ],
    ids=["k2", "m7-boon3-exposed-defender-k4", "m7-bane2-ranged-k10"],
)
def test_probabilities_sum_to_exactly_one(setup: object) -> None:
    odds = strike_odds(setup)  # type: ignore[arg-type]
    laws: list[Distribution] = [
        odds.net, odds.uncanceled_hits, odds.uncanceled_stops, odds.twelve_effects,
        odds.striker_falter, odds.defensive_hits, odds.wear_to_striker,
        *(law for _, law in odds.wear),
    ]  # fmt: skip
    for law in laws:
        assert law.total == 1
        assert all(isinstance(p, Fraction) and p > 0 for p in law.probabilities)
    for chances in (odds.epic, odds.defender_status, odds.striker_status):
        assert sum(p for _, p in chances.items()) == 1
    assert odds.net.at_least(0) + odds.net.at_most(-1) == 1
    assert odds.uncanceled_hits.mean == odds.net.mean + odds.uncanceled_stops.mean
