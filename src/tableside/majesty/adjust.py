"""Making Adjustments (M-12, M-13): explicit, none, or the provably best spread.

``best`` is exact: a dynamic programme over the dice keeps, for every reachable category tally,
the fewest Adjustments that reach it; the adjuster's objective is then maximised over those
tallies. Ties go to the fewest Adjustments, then to the lowest die index (M-13).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from tableside.dice import Adjustment, Side
from tableside.errors import RulesError, TooManyAdjustmentsError
from tableside.majesty.rolls import Category, Reading, Tally, face_categories

Objective = Callable[[Tally], tuple[int, ...]]
TallyKey = tuple[int, int, int, int]  # positives, twelves, ones, negatives
Bounds = tuple[tuple[int, int], ...]


class AdjustMode(StrEnum):
    """Who chooses the Adjustments (M-13)."""

    BEST = "best"
    NONE = "none"
    EXPLICIT = "explicit"


@dataclass(frozen=True, slots=True)
class AdjustPass:
    """A batch of Adjustments one side may make, and why it has them."""

    side: Side
    count: int
    why: str


@dataclass(frozen=True, slots=True)
class Step:
    """An explicit Adjustment named by the caller: die index, +1 or −1, and optionally a side."""

    die: int
    delta: int
    side: Side | None = None


def nearest_face(face: int, low: int, high: int, span: range) -> int | None:
    """The face of ``span`` between ``low`` and ``high`` nearest to ``face`` (None: none is)."""
    if not span:
        return None
    lo, hi = max(span.start, low), min(span.stop - 1, high)
    return None if lo > hi else min(max(face, lo), hi)


@lru_cache(maxsize=8192)
def _options(
    face: int, bound: tuple[int, int], reading: Reading, budget: int
) -> tuple[tuple[int, int], ...]:
    """(target face, cost) of the nearest face of each category one die can reach."""
    low, high = bound
    options = []
    for category in Category:
        target = nearest_face(face, low, high, reading.faces_of(category))
        if target is None:
            continue
        cost = abs(target - face)
        if cost <= budget:
            options.append((target, cost))
    return tuple(options)


def _packing(dice: int) -> tuple[int, dict[Category, int]]:
    """Base and per-category units that pack a tally of ``dice`` dice into one int.

    A tally (positives, twelves, ones, negatives) of at most ``dice`` dice is the number
    ``((positives·B + twelves)·B + ones)·B + negatives`` with ``B = dice + 1``, so adding a die's
    category to a tally is adding its unit; the packing is one to one.
    """
    base = dice + 1
    units = {
        Category.POSITIVE: base**3,
        Category.TWELVE: base**2,
        Category.ONE: base,
        Category.NEGATIVE: 1,
        Category.NEUTRAL: 0,
    }
    return base, units


def _unpack(packed: int, base: int) -> TallyKey:
    rest, negatives = divmod(packed, base)
    rest, ones = divmod(rest, base)
    positives, twelves = divmod(rest, base)
    return (positives, twelves, ones, negatives)


def _packed_tables(
    faces: tuple[int, ...], bounds: Bounds, reading: Reading, budget: int
) -> list[dict[int, int]]:
    """:func:`_suffix_tables` with every tally packed by :func:`_packing`."""
    _, units = _packing(len(faces))
    category = face_categories(reading)
    tables: list[dict[int, int]] = [{} for _ in faces] + [{0: 0}]
    for i in range(len(faces) - 1, -1, -1):
        table, following = tables[i], tables[i + 1]
        for target, cost in _options(faces[i], bounds[i], reading, budget):
            unit, room = units[category[target]], budget - cost
            for tally, used in following.items():
                if used > room:
                    continue
                key, total = tally + unit, used + cost
                if total < table.get(key, budget + 1):
                    table[key] = total
    return tables


def _suffix_tables(
    faces: tuple[int, ...], bounds: Bounds, reading: Reading, budget: int
) -> list[dict[TallyKey, int]]:
    """tables[i]: every tally dice i.. can reach, with the fewest Adjustments that reach it."""
    base, _ = _packing(len(faces))
    packed = _packed_tables(faces, bounds, reading, budget)
    return [{_unpack(key, base): used for key, used in table.items()} for table in packed]


class _Scores(dict[int, tuple[int, ...]]):
    """Memoised objective values of packed tallies of ``dice`` dice, kept across searches."""

    def __init__(self, objective: Objective, dice: int) -> None:
        super().__init__()
        self.objective, self.base = objective, dice + 1

    def __missing__(self, tally: int) -> tuple[int, ...]:
        value = self.objective(Tally(*_unpack(tally, self.base)))
        self[tally] = value
        return value


@lru_cache(maxsize=256)
def _scores(objective: Objective, dice: int) -> _Scores:
    """The memo of one objective's values (an objective is a pure function of the tally)."""
    return _Scores(objective, dice)


@lru_cache(maxsize=65536)
def best_faces(
    faces: tuple[int, ...],
    bounds: Bounds,
    reading: Reading,
    budget: int,
    objective: Objective,
) -> tuple[int, ...]:
    """Final faces after the adjuster's best use of at most ``budget`` Adjustments."""
    if budget == 1:
        return _one_step(faces, bounds, reading, objective)
    return _searched(faces, bounds, reading, budget, objective)


def _searched(
    faces: tuple[int, ...],
    bounds: Bounds,
    reading: Reading,
    budget: int,
    objective: Objective,
) -> tuple[int, ...]:
    """:func:`best_faces` by the dynamic programme, for any budget."""
    tables = _packed_tables(faces, bounds, reading, budget)
    scores = _scores(objective, len(faces))
    best, cost = max((scores[t], -c) for t, c in tables[0].items())
    return _choose(faces, bounds, reading, budget, scores, tables, best, -cost)


def _one_step(
    faces: tuple[int, ...], bounds: Bounds, reading: Reading, objective: Objective
) -> tuple[int, ...]:
    """:func:`best_faces` with one Adjustment, the usual case, without the programme's tables.

    The only spreads are the roll itself and each single step of one die into a neighbouring
    category. The programme keeps the roll when nothing scores better (fewest Adjustments), and
    otherwise its walk from the lowest index takes the first die, and that die's lowest target,
    whose step reaches the best score: so does this.
    """
    _, units = _packing(len(faces))
    category = face_categories(reading)
    scores = _scores(objective, len(faces))
    here = [units[category[face]] for face in faces]
    start = sum(here)
    steps = [
        (i, target, start - here[i] + units[category[target]])
        for i, face in enumerate(faces)
        for target, cost in sorted(_options(face, bounds[i], reading, 1))
        if cost == 1
    ]
    if not steps:
        return faces
    best = max(scores[tally] for _, _, tally in steps)
    if scores[start] >= best:
        return faces
    die, target = next((i, target) for i, target, tally in steps if scores[tally] == best)
    return (*faces[:die], target, *faces[die + 1 :])


def _choose(
    faces: tuple[int, ...],
    bounds: Bounds,
    reading: Reading,
    budget: int,
    scores: _Scores,
    tables: list[dict[int, int]],
    best: tuple[int, ...],
    cost: int,
) -> tuple[int, ...]:
    """Walk the dice from the lowest index, giving each the largest move that stays optimal."""
    _, units = _packing(len(faces))
    category = face_categories(reading)
    prefix, spent = 0, 0
    chosen = []
    for i, face in enumerate(faces):
        options = sorted(_options(face, bounds[i], reading, budget), key=lambda o: (-o[1], o[0]))
        for target, step_cost in options:
            head = prefix + units[category[target]]
            if _completes(head, cost - spent - step_cost, tables[i + 1], scores, best):
                chosen.append(target)
                prefix, spent = head, spent + step_cost
                break
    return tuple(chosen)


def _completes(
    head: int, room: int, table: dict[int, int], scores: _Scores, best: tuple[int, ...]
) -> bool:
    """Whether some tail within ``room`` more Adjustments completes ``head`` to the best score."""
    return any(used <= room and scores[head + tail] == best for tail, used in table.items())


def steps_between(die: int, start: int, end: int, side: Side, why: str) -> list[Adjustment]:
    """The unit Adjustments that move one die from ``start`` to ``end`` (M-12)."""
    direction = 1 if end > start else -1
    return [
        Adjustment(die, face, face + direction, side, why) for face in range(start, end, direction)
    ]


def apply_best(
    faces: tuple[int, ...],
    bounds: Bounds,
    reading: Reading,
    adjust_pass: AdjustPass,
    objective: Objective,
) -> tuple[tuple[int, ...], list[Adjustment]]:
    """Apply the best spread of one pass; return the new faces and the Adjustments made."""
    if adjust_pass.count <= 0:
        return faces, []
    final = best_faces(faces, bounds, reading, adjust_pass.count, objective)
    made: list[Adjustment] = []
    for die, (start, end) in enumerate(zip(faces, final, strict=True)):
        if start != end:
            made += steps_between(die, start, end, adjust_pass.side, f"best: {adjust_pass.why}")
    return final, made


def apply_explicit(
    faces: tuple[int, ...],
    bounds: Bounds,
    adjust_pass: AdjustPass,
    steps: Sequence[Step],
) -> tuple[tuple[int, ...], list[Adjustment]]:
    """Apply Adjustments named by the caller, refusing any the rules forbid (M-9, M-12)."""
    if len(steps) > adjust_pass.count:
        raise RulesError(
            f"The {adjust_pass.side} named {len(steps)} Adjustments but has only "
            f"{adjust_pass.count} ({adjust_pass.why})."
        )
    current = list(faces)
    made: list[Adjustment] = []
    for step in steps:
        _check_step(current, bounds, step)
        start = current[step.die]
        current[step.die] = start + step.delta
        made.append(
            Adjustment(step.die, start, start + step.delta, adjust_pass.side, adjust_pass.why)
        )
    return tuple(current), made


def _check_step(current: list[int], bounds: Bounds, step: Step) -> None:
    if not 0 <= step.die < len(current):
        raise RulesError(
            f"There is no die {step.die + 1} to adjust; the roll keeps {len(current)} dice."
        )
    if step.delta not in (1, -1):
        raise RulesError(f"An Adjustment moves a die by 1 up or down, not by {step.delta}.")
    face = current[step.die] + step.delta
    low, high = bounds[step.die]
    if not 1 <= face <= 12:
        raise RulesError(
            f"Die {step.die + 1} cannot be adjusted to {face}; faces stay within 1–12."
        )
    if not low <= face <= high:
        raise RulesError(
            f"Die {step.die + 1} cannot be adjusted to {face}: it is locked by an Epic roll (M-9)."
        )


def _check_public(faces: tuple[int, ...], bounds: Bounds, steps: Sequence[Step]) -> None:
    """Refuse a step off the dice before the steps are counted (W-52).

    The faces are public, the count may not be: a refusal for a face never depends on how many
    Adjustments a side has.
    """
    current = list(faces)
    for step in steps:
        _check_step(current, bounds, step)
        current[step.die] += step.delta


def _explicit_by_side(
    passes: Sequence[AdjustPass], steps: Sequence[Step]
) -> dict[Side, list[Step]]:
    """Group explicit steps by side (unnamed steps belong to the first pass's side)."""
    default = passes[0].side if passes else None
    grouped: dict[Side, list[Step]] = {}
    places: dict[Side | None, list[int]] = {}
    for place, step in enumerate(steps):
        side = step.side or default
        places.setdefault(side, []).append(place)
        if side is not None:
            grouped.setdefault(side, []).append(step)
    if None in places:
        first = places[None][0]
        raise TooManyAdjustmentsError(
            f"Die {steps[first].die + 1} was named for an Adjustment but nobody may adjust "
            "this roll.",
            None, len(places[None]), 0, tuple(places[None]),
        )  # fmt: skip
    for side, named in grouped.items():
        allowed = sum(p.count for p in passes if p.side == side)
        if len(named) > allowed:
            raise TooManyAdjustmentsError(
                f"The {side} named {len(named)} Adjustments but may make only {allowed} "
                "on this roll (M-11, M-12).",
                str(side), len(named), allowed, tuple(places[side][allowed:]),
            )  # fmt: skip
    return grouped


def run_passes(
    faces: tuple[int, ...],
    bounds: Bounds,
    reading: Reading,
    passes: Sequence[AdjustPass],
    mode: AdjustMode,
    steps: Sequence[Step],
    objective_for: Callable[[Side], Objective],
    owner: Side | None = None,
) -> tuple[tuple[int, ...], tuple[Adjustment, ...]]:
    """Apply every pass in order (the surplus side first, then tokens) in the chosen mode.

    With an ``owner``, the mode and steps are that side's choice: its passes follow them, and
    the other side's passes (its tokens, spent to be used) are made ``best`` for it (D-9).
    Without one, the mode governs every pass.
    """
    if mode == AdjustMode.NONE and owner is None:
        return faces, ()
    if owner is not None and mode == AdjustMode.EXPLICIT:
        _refuse_other_side(owner, steps)
    if mode == AdjustMode.EXPLICIT:
        _check_public(faces, bounds, steps)
    own = [p for p in passes if owner is None or p.side == owner]
    grouped = _explicit_by_side(own, steps) if mode == AdjustMode.EXPLICIT else {}
    made: list[Adjustment] = []
    for adjust_pass in passes:
        pass_mode = mode if owner is None or adjust_pass.side == owner else AdjustMode.BEST
        if pass_mode == AdjustMode.NONE:
            continue
        if pass_mode == AdjustMode.BEST:
            objective = objective_for(adjust_pass.side)
            faces, step = apply_best(faces, bounds, reading, adjust_pass, objective)
        else:
            queue = grouped.get(adjust_pass.side, [])
            mine, grouped[adjust_pass.side] = queue[: adjust_pass.count], queue[adjust_pass.count :]
            faces, step = apply_explicit(faces, bounds, adjust_pass, mine)
        made += step
    return faces, tuple(made)


def _refuse_other_side(owner: Side, steps: Sequence[Step]) -> None:
    """Explicit steps are the owner's: steps naming the other side are refused (D-9)."""
    others = [step for step in steps if step.side is not None and step.side != owner]
    if others:
        side = others[0].side
        named = sum(1 for step in others if step.side == side)
        raise RulesError(
            f"The {side} named {named} Adjustments but may make only 0 here: the {owner} "
            f"chooses the Adjustments of this roll, and the {side}'s tokens are used to its "
            "best (M-13, D-9)."
        )
