"""Stat tests (S-1), stat roll-offs (S-2, S-20) and Initiative Scores (S-3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from tableside.dice import Rng
from tableside.errors import RulesError
from tableside.strife.records import Part, nonzero, total
from tableside.strife.ruleset import STANDARD, StrifeRuleset
from tableside.strife.size import CreatureSize, size_difference

D20 = 20
TEST_TARGET = 20  # a stat test succeeds when its total is greater than this (S-1)


def check_d20(natural: int, what: str = "d20") -> None:
    """Refuse a face a d20 cannot show."""
    if not 1 <= natural <= D20:
        raise RulesError(f"A {what} shows 1 to 20, not {natural}.")


@dataclass(frozen=True, slots=True)
class StatTest:
    """One stat test: 1d20 + stat + advantage − disadvantage, success above 20 (S-1).

    Attributes:
        natural: The d20 as rolled.
        stat: The stat (or derived test value, e.g. Block = STR − 10) with its label.
        parts: Advantages (positive) and disadvantages (negative), labelled.
        total: natural + stat + parts.
        success: Whether the test passed.
        automatic: ``"natural_1"`` or ``"natural_20"`` when the die alone decided, else None.
    """

    natural: int
    stat: Part
    parts: tuple[Part, ...]
    total: int
    success: bool
    automatic: str | None

    @property
    def critical(self) -> bool:
        """A natural 20 (Critical Block, Critical Parry: S-10, S-11)."""
        return self.natural == D20


def stat_test_with_natural(natural: int, stat: Part, parts: Sequence[Part] = ()) -> StatTest:
    """Resolve a stat test whose d20 is known (S-1).

    Raises:
        RulesError: ``natural`` is not a d20 face.
    """
    check_d20(natural)
    kept = nonzero(parts)
    value = natural + stat.amount + total(kept)
    if natural == 1:
        return StatTest(natural, stat, kept, value, False, "natural_1")
    if natural == D20:
        return StatTest(natural, stat, kept, value, True, "natural_20")
    return StatTest(natural, stat, kept, value, value > TEST_TARGET, None)


def stat_test(rng: Rng, stat: Part, parts: Sequence[Part] = ()) -> StatTest:
    """Roll 1d20 with ``rng`` and resolve the stat test (S-1)."""
    return stat_test_with_natural(rng.roll(D20), stat, parts)


# --- roll-offs --------------------------------------------------------------------------------


class Winner(StrEnum):
    """Who won a roll-off."""

    ACTING = "acting"
    OPPOSING = "opposing"


@dataclass(frozen=True, slots=True)
class Contestant:
    """One side of a roll-off: a label, the stat, advantages and the creature size (S-2)."""

    label: str
    stat: Part
    parts: tuple[Part, ...] = ()
    size: CreatureSize = CreatureSize.MEDIUM


@dataclass(frozen=True, slots=True)
class RollOffSide:
    """One side's roll in a roll-off."""

    label: str
    natural: int
    stat: Part
    parts: tuple[Part, ...]
    total: int


@dataclass(frozen=True, slots=True)
class RollOff:
    """A stat roll-off: higher total wins, ties go to the acting side (S-2)."""

    acting: RollOffSide
    opposing: RollOffSide
    winner: Winner
    tie: bool
    ruleset: str


def _side(contestant: Contestant, natural: int, size_part: Part | None) -> RollOffSide:
    check_d20(natural, f"roll-off d20 of {contestant.label}")
    parts = nonzero((*contestant.parts, *(() if size_part is None else (size_part,))))
    value = natural + contestant.stat.amount + total(parts)
    return RollOffSide(contestant.label, natural, contestant.stat, parts, value)


def _size_parts(
    acting: Contestant, opposing: Contestant, ruleset: StrifeRuleset
) -> tuple[Part | None, Part | None]:
    """The capped size difference goes to the larger side as an advantage (S-20, SA-3)."""
    difference = size_difference(acting.size, opposing.size, ruleset)
    if difference > 0:
        return Part("size difference", difference), None
    if difference < 0:
        return None, Part("size difference", -difference)
    return None, None


def roll_off_with_naturals(
    acting: Contestant,
    opposing: Contestant,
    naturals: tuple[int, int],
    ruleset: StrifeRuleset = STANDARD,
) -> RollOff:
    """Resolve a roll-off whose two d20s (acting side first) are known (S-2, S-20)."""
    acting_size, opposing_size = _size_parts(acting, opposing, ruleset)
    first = _side(acting, naturals[0], acting_size)
    second = _side(opposing, naturals[1], opposing_size)
    winner = Winner.OPPOSING if second.total > first.total else Winner.ACTING
    return RollOff(first, second, winner, first.total == second.total, ruleset.name)


def roll_off(
    rng: Rng, acting: Contestant, opposing: Contestant, ruleset: StrifeRuleset = STANDARD
) -> RollOff:
    """Roll both d20s (acting side first) and resolve the roll-off (S-2)."""
    naturals = (rng.roll(D20), rng.roll(D20))
    return roll_off_with_naturals(acting, opposing, naturals, ruleset)


# --- Initiative -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InitiativeEntry:
    """One model's Initiative Score: 1d20 + Initiative stat + modifiers (S-3)."""

    name: str
    side: str
    initiative: int
    natural: int
    parts: tuple[Part, ...]
    score: int


@dataclass(frozen=True, slots=True)
class TieBreak:
    """A seeded roll-off among models tied on score and Initiative stat (S-3)."""

    rounds: tuple[tuple[tuple[str, int], ...], ...]  # each re-roll: (name, d20) per model

    @property
    def names(self) -> tuple[str, ...]:
        """The models that were tied."""
        return tuple(name for name, _ in self.rounds[0])


@dataclass(frozen=True, slots=True)
class InitiativeOrder:
    """Models in Turn Order (highest score first) and the tie-break roll-offs used (S-3, S-4)."""

    entries: tuple[InitiativeEntry, ...]
    tie_breaks: tuple[TieBreak, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """Model names in Turn Order."""
        return tuple(e.name for e in self.entries)


def initiative_with_natural(
    name: str, side: str, initiative: int, natural: int, parts: Sequence[Part] = ()
) -> InitiativeEntry:
    """An Initiative Score from a known d20 (S-3)."""
    check_d20(natural, f"Initiative d20 of {name}")
    kept = nonzero(parts)
    return InitiativeEntry(
        name, side, initiative, natural, kept, natural + initiative + total(kept)
    )


def roll_initiative(
    rng: Rng, name: str, side: str, initiative: int, parts: Sequence[Part] = ()
) -> InitiativeEntry:
    """Roll a model's Initiative Score as it joins the combat (S-3)."""
    return initiative_with_natural(name, side, initiative, rng.roll(D20), parts)


def order_initiative(entries: Sequence[InitiativeEntry], rng: Rng) -> InitiativeOrder:
    """Sort by score, Initiative stat, then a seeded roll-off among the tied (S-3, SA-24).

    Tied groups are broken from the highest score down; within a group every model rolls a d20
    in the order given, and the models still tied re-roll among themselves.
    """
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise RulesError(f"Each model in a Turn Order needs its own name; got {names}.")
    key = sorted({(e.score, e.initiative) for e in entries}, reverse=True)
    ordered: list[InitiativeEntry] = []
    breaks: list[TieBreak] = []
    for score, stat in key:
        group = [e for e in entries if (e.score, e.initiative) == (score, stat)]
        if len(group) > 1:
            group, rounds = _break_tie(group, rng)
            breaks.append(TieBreak(tuple(rounds)))
        ordered += group
    return InitiativeOrder(tuple(ordered), tuple(breaks))


_Round = tuple[tuple[str, int], ...]


def _break_tie(
    group: list[InitiativeEntry], rng: Rng
) -> tuple[list[InitiativeEntry], list[_Round]]:
    rolls = tuple(rng.roll(D20) for _ in group)
    rows: list[_Round] = [tuple((e.name, r) for e, r in zip(group, rolls, strict=True))]
    ordered: list[InitiativeEntry] = []
    for face in sorted(set(rolls), reverse=True):
        tied = [e for e, r in zip(group, rolls, strict=True) if r == face]
        if len(tied) > 1:
            tied, more = _break_tie(tied, rng)
            rows += more
        ordered += tied
    return ordered, rows
