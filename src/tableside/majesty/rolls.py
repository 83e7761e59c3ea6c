"""Every Allies of Majesty roll: 7d12, Boon/Bane (M-7), epic parts (M-8), Epic rolls (M-9).

A roll is read die by die into five categories; what a category means (Hit or Pass, Stop or Fail)
is the roll kind's business. The reading changes under Surprised and Exposed (M-19).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cache

from tableside.dice import Rng
from tableside.errors import RulesError

BASE_DICE = 7
FACES = 12


class Category(IntEnum):
    """What a die counts as once read (M-6, M-8, M-19)."""

    ONE = 0  # an epic negative: a negative that cancels a 12's extra
    NEGATIVE = 1  # an ordinary negative (Stop / Fail)
    NEUTRAL = 2  # Miss / Neutral
    POSITIVE = 3  # an ordinary positive (Hit / Pass)
    TWELVE = 4  # an epic positive: a positive with one extra while unpaired


@dataclass(frozen=True, slots=True)
class Reading:
    """How faces are read: plain (M-6), Surprised or Exposed (M-19)."""

    elevens_are_twelves: bool = False
    lows_are_neutral: bool = False

    def category(self, face: int) -> Category:
        """Return the category of one die face (1–12)."""
        if not 1 <= face <= FACES:
            raise RulesError(f"A d12 cannot show {face}; faces run from 1 to 12.")
        return face_categories(self)[face]

    def faces_of(self, category: Category) -> range:
        """Return the contiguous faces that read as ``category`` (empty when none do)."""
        return _faces_of(self, category)


def _read(reading: Reading, face: int) -> Category:
    if face >= 12 or (face == 11 and reading.elevens_are_twelves):
        return Category.TWELVE
    if face >= 9:
        return Category.POSITIVE
    if face >= 4 or reading.lows_are_neutral:
        return Category.NEUTRAL
    return Category.ONE if face == 1 else Category.NEGATIVE


@cache
def face_categories(reading: Reading) -> tuple[Category, ...]:
    """Category of every face 0..12 (index 0 unused), computed once per reading."""
    return (Category.NEUTRAL, *(_read(reading, face) for face in range(1, FACES + 1)))


@cache
def _faces_of(reading: Reading, category: Category) -> range:
    members = [face for face in range(1, FACES + 1) if _read(reading, face) == category]
    return range(members[0], members[-1] + 1) if members else range(0)


PLAIN = Reading()
SURPRISED = Reading(elevens_are_twelves=True)
EXPOSED = Reading(elevens_are_twelves=True, lows_are_neutral=True)


@dataclass(frozen=True, slots=True)
class Tally:
    """Counts of a roll's categories; everything a result depends on (M-8)."""

    positives: int = 0
    twelves: int = 0
    ones: int = 0
    negatives: int = 0

    @classmethod
    def of(cls, faces: tuple[int, ...], reading: Reading) -> Tally:
        """Tally the given faces under ``reading``."""
        counts = [0] * len(Category)
        table = face_categories(reading)
        for face in faces:
            if not 1 <= face <= FACES:
                raise RulesError(f"A d12 cannot show {face}; faces run from 1 to 12.")
            counts[table[face]] += 1
        return cls(
            positives=counts[Category.POSITIVE],
            twelves=counts[Category.TWELVE],
            ones=counts[Category.ONE],
            negatives=counts[Category.NEGATIVE],
        )

    @property
    def pairs(self) -> int:
        """12s and 1s that cancel each other's epic parts one for one (M-8)."""
        return min(self.twelves, self.ones)

    @property
    def unpaired_twelves(self) -> int:
        """12s whose extra positive stands (M-8)."""
        return self.twelves - self.pairs

    @property
    def unpaired_ones(self) -> int:
        """1s whose epic negative stands (M-8)."""
        return self.ones - self.pairs

    @property
    def total_positive(self) -> int:
        """Positives, counting the extra of each unpaired 12 (M-8)."""
        return self.positives + self.twelves + self.unpaired_twelves

    @property
    def total_negative(self) -> int:
        """Negatives, each 1 included (M-8)."""
        return self.negatives + self.ones

    @property
    def net(self) -> int:
        """Net result: positives minus negatives (M-8)."""
        return self.total_positive - self.total_negative


def net_boon(boon: int, bane: int) -> int:
    """Cancel Boon and Bane one for one (M-7); positive = Boon, negative = Bane."""
    for label, value in (("Boon", boon), ("Bane", bane)):
        if value < 0:
            raise RulesError(f"{label} cannot be negative, got {value}.")
    return boon - bane


def dice_to_roll(boon_net: int) -> int:
    """How many d12 a roll with this net Boon/Bane rolls (M-7)."""
    return BASE_DICE + abs(boon_net)


def discard_indices(rolled: tuple[int, ...], boon_net: int) -> tuple[int, ...]:
    """Which rolled dice Boon/Bane discards (M-7), as sorted indices into ``rolled``.

    Boon:n drops the n lowest dice that are not 1s, Bane:n the n highest that are not 12s; fewer
    are dropped when fewer are eligible. Among equal faces the later-rolled die goes first.
    """
    if boon_net > 0:
        eligible = [i for i, face in enumerate(rolled) if face != 1]
        eligible.sort(key=lambda i: (rolled[i], -i))
    else:
        eligible = [i for i, face in enumerate(rolled) if face != FACES]
        eligible.sort(key=lambda i: (-rolled[i], -i))
    return tuple(sorted(eligible[: abs(boon_net)]))


@dataclass(frozen=True, slots=True)
class NaturalRoll:
    """Every die rolled, the discarded ones and the natural roll that remains (M-7)."""

    rolled: tuple[int, ...]
    discarded: tuple[int, ...]
    boon_net: int

    @property
    def natural(self) -> tuple[int, ...]:
        """The kept dice in the order rolled: the natural roll."""
        dropped = set(self.discarded)
        return tuple(face for i, face in enumerate(self.rolled) if i not in dropped)

    @property
    def discarded_faces(self) -> tuple[int, ...]:
        """The faces of the discarded dice, in the order rolled."""
        return tuple(self.rolled[i] for i in self.discarded)


def natural_roll_from(rolled: tuple[int, ...], boon_net: int) -> NaturalRoll:
    """Build the natural roll from dice already rolled (checks count and faces)."""
    expected = dice_to_roll(boon_net)
    if len(rolled) != expected:
        raise RulesError(
            f"This roll needs {expected} dice ({_boon_words(boon_net)}) but {len(rolled)} "
            f"were given: {', '.join(map(str, rolled))}."
        )
    for face in rolled:
        if not 1 <= face <= FACES:
            raise RulesError(f"A d12 cannot show {face}; faces run from 1 to 12.")
    return NaturalRoll(rolled, discard_indices(rolled, boon_net), boon_net)


def roll_natural(rng: Rng, boon_net: int) -> NaturalRoll:
    """Roll 7d12 plus Boon/Bane extras with ``rng`` and discard per M-7."""
    rolled = tuple(rng.roll(FACES) for _ in range(dice_to_roll(boon_net)))
    return natural_roll_from(rolled, boon_net)


def _boon_words(boon_net: int) -> str:
    if boon_net > 0:
        return f"7 plus Boon:{boon_net}"
    if boon_net < 0:
        return f"7 plus Bane:{-boon_net}"
    return "no Boon or Bane"


@dataclass(frozen=True, slots=True)
class EpicState:
    """Epic roll flags judged on the natural roll (M-9)."""

    unpaired_twelves: int
    unpaired_ones: int

    @classmethod
    def of(cls, natural: tuple[int, ...], reading: Reading) -> EpicState:
        """Judge the natural roll."""
        tally = Tally.of(natural, reading)
        return cls(tally.unpaired_twelves, tally.unpaired_ones)

    @property
    def positive(self) -> bool:
        """Epic positive roll (Epic Strike): natural 12s may not be adjusted down."""
        return self.unpaired_twelves >= 2

    @property
    def negative(self) -> bool:
        """Epic negative roll (Epic Defense): natural 1s may not be adjusted up."""
        return self.unpaired_ones >= 2


def face_bounds(natural: tuple[int, ...], reading: Reading) -> tuple[tuple[int, int], ...]:
    """Per die, the lowest and highest face Adjustments may reach (M-9 locks, M-12 range)."""
    epic = EpicState.of(natural, reading)
    table = face_categories(reading)
    bounds = []
    for face in natural:
        category = table[face]
        low = face if epic.positive and category == Category.TWELVE else 1
        high = face if epic.negative and category == Category.ONE else FACES
        bounds.append((low, high))
    return tuple(bounds)


def adjustments_from_advantage(advantage: int) -> int:
    """Translate an advantage into Adjustments (M-10): 1→1, 3→2, 6→3, 10→4, +5 → +1."""
    if advantage < 1:
        return 0
    if advantage < 10:
        return 1 if advantage < 3 else 2 if advantage < 6 else 3
    return 4 + (advantage - 10) // 5
