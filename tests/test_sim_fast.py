"""The simulation's fast paths give the engine's results exactly (issue 5).

* ``StreamRng`` draws numpy's dice in plain Python: compared die by die with ``SeededRng.stream``
  (``Generator.integers``) for many seeds, streams and die sizes, including sizes where Lemire's
  method rejects a word a quarter of the time.
* Command arguments validated once are kept only for identical plain values.
* ``best`` (M-13) packs tallies into ints and keeps objective values across searches: compared
  with a direct search over every spread of Adjustments (brute force).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tableside.dice import SeededRng, Side
from tableside.encounter.war.args import Args, RestArgs, StrikeArgs, cached_args, parse_args
from tableside.errors import TablesideError
from tableside.majesty.adjust import (
    _one_step,
    _packing,
    _searched,
    _suffix_tables,
    _unpack,
    best_faces,
)
from tableside.majesty.rolls import EXPOSED, PLAIN, SURPRISED, Reading, Tally, face_bounds
from tableside.majesty.strike import StrikeObjective
from tableside.simulate.runs import MAX_SIDES, SimulationError, StreamRng

SIDES = (12, 12, 12, 6, 20, 100, 2, 3, 1, 12, 3 * 2**30, 2**31 + 1, MAX_SIDES, 12, 1_000_000)


@pytest.mark.parametrize("seed", [0, 1, 2026, 2**62 + 12345])
@pytest.mark.parametrize("stream", [0, 5, 4096])
def test_stream_rng_rolls_numpys_dice_for_every_size(seed: int, stream: int) -> None:
    ours, numpys = StreamRng(seed, stream), SeededRng.stream(seed, stream)
    for sides in SIDES * 4:
        assert ours.roll(sides) == numpys.roll(sides), (seed, stream, sides)


def test_stream_rng_rejection_path_matches_numpy() -> None:
    # With 3·2**30 faces a quarter of the 32-bit words are rejected; 400 dice hit it often.
    ours, numpys = StreamRng(77, 3), SeededRng.stream(77, 3)
    assert [ours.roll(3 * 2**30) for _ in range(400)] == [
        numpys.roll(3 * 2**30) for _ in range(400)
    ]


@pytest.mark.parametrize("sides", [0, -3, MAX_SIDES + 1])
def test_stream_rng_refuses_a_die_it_cannot_draw(sides: int) -> None:
    with pytest.raises(SimulationError, match=f"not {sides}"):
        StreamRng(1, 1).roll(sides)


@given(st.tuples(*(st.integers(0, 9) for _ in range(4))))
def test_tally_packing_is_one_to_one(tally: tuple[int, int, int, int]) -> None:
    base, units = _packing(9)
    packed = sum(count * units[c] for count, c in zip(tally, units, strict=False))
    assert _unpack(packed, base) == tally


def spreads(
    faces: tuple[int, ...], bounds: tuple[tuple[int, int], ...], budget: int
) -> list[tuple[int, ...]]:
    """Every final roll at most ``budget`` Adjustments away, within the locks (M-9, M-12)."""
    ranges = [range(low, high + 1) for low, high in bounds]
    return [
        final
        for final in itertools.product(*ranges)
        if sum(abs(a - b) for a, b in zip(final, faces, strict=True)) <= budget
    ]


def cost(faces: tuple[int, ...], final: tuple[int, ...]) -> int:
    return sum(abs(a - b) for a, b in zip(faces, final, strict=True))


readings = st.sampled_from([PLAIN, SURPRISED, EXPOSED])
rolls = st.tuples(*(st.integers(1, 12) for _ in range(4)))


@settings(max_examples=60, deadline=None)
@given(rolls, readings, st.integers(0, 3), st.sampled_from(list(Side)), st.integers(0, 2))
def test_m12_m13_best_is_optimal_and_cheapest_against_brute_force(
    faces: tuple[int, ...], reading: Reading, budget: int, side: Side, ignore: int
) -> None:
    """M-13: no spread scores better; none as good uses fewer Adjustments; tallies agree (M-12)."""
    objective = StrikeObjective(side, ignore, True)
    bounds = face_bounds(faces, reading)
    final = best_faces(faces, bounds, reading, budget, objective)
    every = spreads(faces, bounds, budget)
    score = objective(Tally.of(final, reading))
    assert final in every
    assert score == max(objective(Tally.of(f, reading)) for f in every)
    assert cost(faces, final) == min(
        cost(faces, f) for f in every if objective(Tally.of(f, reading)) == score
    )
    table = _suffix_tables(faces, bounds, reading, budget)[0]
    reached: dict[tuple[int, int, int, int], int] = {}
    for f in every:
        t = Tally.of(f, reading)
        key = (t.positives, t.twelves, t.ones, t.negatives)
        reached[key] = min(reached.get(key, budget + 1), cost(faces, f))
    assert table == reached


objectives = st.builds(
    StrikeObjective, st.sampled_from(list(Side)), st.integers(0, 2), st.booleans()
)


@settings(max_examples=400, deadline=None)
@given(st.tuples(*(st.integers(1, 12) for _ in range(7))), readings, objectives)
def test_m13_one_adjustment_shortcut_equals_the_programme(
    faces: tuple[int, ...], reading: Reading, objective: StrikeObjective
) -> None:
    """M-13: with one Adjustment, the shortcut picks the programme's spread, ties included."""
    bounds = face_bounds(faces, reading)
    assert _one_step(faces, bounds, reading, objective) == _searched(
        faces, bounds, reading, 1, objective
    )


@pytest.mark.parametrize("side", list(Side))
def test_m13_one_adjustment_shortcut_on_every_four_dice_roll(side: Side) -> None:
    """M-13: every roll of 4d12 read plainly, one Adjustment: shortcut = programme."""
    objective = StrikeObjective(side, 0, True)
    for faces in itertools.product(range(1, 13), repeat=4):
        bounds = face_bounds(faces, PLAIN)
        assert _one_step(faces, bounds, PLAIN, objective) == _searched(
            faces, bounds, PLAIN, 1, objective
        ), faces


RAW_ARGS: list[tuple[type[Args], dict[str, object]]] = [
    (RestArgs, {"id": "Herald", "ap": 1}),
    (RestArgs, {"id": "Herald", "ap": True}),
    (RestArgs, {"id": "Herald", "ap": 1.0}),
    (RestArgs, {"id": "Herald", "ap": 1.5}),
    (RestArgs, {"id": "Herald", "ap": 9}),
    (RestArgs, {"id": "Herald", "ap": "2"}),
    (RestArgs, {"id": "Herald"}),
    (StrikeArgs, {"striker": "Herald", "defender": "Warrior"}),
    (StrikeArgs, {"striker": "Herald", "defender": "Warrior", "ranged": True}),
    (StrikeArgs, {"striker": "Herald", "defender": "Warrior", "boon": 1, "bane": None}),
    (StrikeArgs, {"striker": "Herald", "defender": "Warrior", "maneuvers": ["Feint"]}),
    (StrikeArgs, {"striker": "Herald", "defender": "Warrior", "surprise": 1}),
]


def outcome_of(
    parse: Callable[[type[Args], dict[str, object], str], Args],
    model: type[Args],
    raw: dict[str, object],
) -> tuple[str, object]:
    """The validated arguments, or the refusal's sentence."""
    try:
        return "ok", parse(model, dict(raw), "rest")
    except TablesideError as error:
        return "refused", str(error)


def test_validated_arguments_are_kept_only_for_identical_plain_values() -> None:
    """Kept arguments equal a fresh validation; 1, 1.0 and True are validated apart."""
    for _ in range(2):
        for model, raw in RAW_ARGS:
            fresh = outcome_of(parse_args, model, raw)
            assert outcome_of(cached_args, model, raw) == fresh, raw
    first = cached_args(StrikeArgs, {"striker": "Herald", "defender": "Warrior"}, "strike")
    again = cached_args(StrikeArgs, {"striker": "Herald", "defender": "Warrior"}, "strike")
    assert first is again
