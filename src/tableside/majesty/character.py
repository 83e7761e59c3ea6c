"""Characters (M-1 … M-5): Basic Attributes, Wear, Status, derived War Attributes."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from typing import Any

from tableside.errors import RulesError

WEAR_FLOOR = -40  # M-1: no current value goes below −40


class Attribute(StrEnum):
    """The six Basic Attributes (M-1)."""

    MIGHT = "might"
    SWIFTNESS = "swiftness"
    CONTROL = "control"
    ENDURANCE = "endurance"
    RESOLVE = "resolve"
    PASSION = "passion"


class WearKind(StrEnum):
    """Wear lowers current Endurance, Resolve or Passion (M-1)."""

    E = "E"
    R = "R"
    P = "P"

    @property
    def attribute(self) -> Attribute:
        """The Basic Attribute this Wear lowers."""
        return WEAR_ATTRIBUTE[self]


WEAR_ATTRIBUTE = {
    WearKind.E: Attribute.ENDURANCE,
    WearKind.R: Attribute.RESOLVE,
    WearKind.P: Attribute.PASSION,
}
ATTRIBUTE_WEAR = {attribute: kind for kind, attribute in WEAR_ATTRIBUTE.items()}


class Status(StrEnum):
    """The Status ladder (M-3)."""

    NORMAL = "normal"
    WEAKENED = "weakened"
    DEFEATED = "defeated"


class Side(StrEnum):
    """Which side an elohim fights on (ties in the War Scroll go to the holy side, M-40)."""

    HOLY = "holy"
    FALLEN = "fallen"


@dataclass(frozen=True, slots=True)
class Attributes:
    """Natural values of the six Basic Attributes."""

    might: int
    swiftness: int
    control: int
    endurance: int
    resolve: int
    passion: int

    def get(self, attribute: Attribute) -> int:
        """Return one attribute's value."""
        return int(getattr(self, _FIELD[attribute]))


@dataclass(frozen=True, slots=True)
class WarOverrides:
    """Sheet overrides of derived War Attributes (M-2); None means derive it."""

    force: int | None = None
    guard: int | None = None
    precision: int | None = None
    stamina: int | None = None
    spp: int | None = None
    speed: int | None = None


@dataclass(frozen=True, slots=True)
class Wear:
    """Wear taken so far, by kind."""

    E: int = 0
    R: int = 0
    P: int = 0

    def of(self, kind: WearKind) -> int:
        """Return the Wear of one kind."""
        return int(getattr(self, _FIELD[kind]))

    def plus(self, kind: WearKind, amount: int) -> Wear:
        """Return this Wear with ``amount`` more of ``kind``."""
        if kind == WearKind.E:
            return Wear(self.E + amount, self.R, self.P)
        if kind == WearKind.R:
            return Wear(self.E, self.R + amount, self.P)
        return Wear(self.E, self.R, self.P + amount)


# Field names by enum member, read once: an enum's ``.value`` is a slow descriptor.
_FIELD: dict[Attribute | WearKind, str] = {
    **{attribute: attribute.value for attribute in Attribute},
    **{kind: kind.value for kind in WearKind},
}


SPEED_STEPS = (
    (7, 8), (14, 9), (22, 10), (30, 11), (39, 12), (48, 13), (58, 14), (68, 15), (79, 16),
    (90, 17), (102, 18), (114, 19), (127, 20), (140, 21), (154, 22), (168, 23), (183, 24),
    (198, 25), (214, 26), (230, 27), (247, 28), (264, 29),
)  # fmt: skip


def speed_from_swiftness(swiftness: int) -> int:
    """Speed by threshold (M-2); past 264, +1 per further 18 Swiftness."""
    if swiftness >= 264:
        return 29 + (swiftness - 264) // 18
    speed = 7
    for threshold, value in SPEED_STEPS:
        if swiftness >= threshold:
            speed = value
    return speed


@dataclass(frozen=True)
class Character:
    """An Allies of Majesty character: natural attributes plus what has happened to it."""

    name: str
    natural: Attributes
    wear: Wear = field(default_factory=Wear)
    overrides: WarOverrides = field(default_factory=WarOverrides)
    tier: int = 1
    magnitude: int = 1
    weapon: str = "Staff"
    side: Side = Side.HOLY
    exertion: int = 0
    status_lowered: int = 0  # active timed lowerings of Status (M-3 b, M-24)
    defeated_by_epic: bool = False  # M-24: Defeated whatever its Wear

    def __post_init__(self) -> None:
        for attribute in Attribute:
            if self.natural.get(attribute) < 0:
                raise RulesError(
                    f"{self.name}'s natural {attribute.value.capitalize()} cannot be negative, "
                    f"got {self.natural.get(attribute)}."
                )
        for label, value in (("Tier", self.tier), ("Magnitude", self.magnitude)):
            if value < 1:
                raise RulesError(f"{self.name}'s {label} must be at least 1, got {value}.")

    def current(self, attribute: Attribute) -> int:
        """Current value: natural less Wear of its kind, never below −40 (M-1)."""
        return self.currents[attribute]

    @cached_property
    def currents(self) -> dict[Attribute, int]:
        """Every current value (see :meth:`current`), worked out once per character.

        Field by field (read through the enums, a Strike's reports spent a tenth of their
        time here: issue 21, item 8; ``tests/test_character_currents.py`` checks it against
        the rule read attribute by attribute).
        """
        n, w = self.natural, self.wear
        return {
            Attribute.MIGHT: max(WEAR_FLOOR, n.might),
            Attribute.SWIFTNESS: max(WEAR_FLOOR, n.swiftness),
            Attribute.CONTROL: max(WEAR_FLOOR, n.control),
            Attribute.ENDURANCE: max(WEAR_FLOOR, n.endurance - w.E),
            Attribute.RESOLVE: max(WEAR_FLOOR, n.resolve - w.R),
            Attribute.PASSION: max(WEAR_FLOOR, n.passion - w.P),
        }

    def referenced(self, attribute: Attribute) -> int:
        """The value used when rules reference it: Weakened caps it at half natural (M-3)."""
        value = self.currents[attribute]
        if self.status is Status.WEAKENED:
            value = min(value, self.natural.get(attribute) // 2)
        return value

    @cached_property
    def threshold_weakened(self) -> bool:
        """M-3 (a): one of E/R/P at ≤ 1/3 of natural and another at ≤ 1/2 of natural."""
        currents, n = self.currents, self.natural
        vitals = (
            (currents[Attribute.ENDURANCE], n.endurance),
            (currents[Attribute.RESOLVE], n.resolve),
            (currents[Attribute.PASSION], n.passion),
        )
        for i, (cur_a, nat_a) in enumerate(vitals):
            if 3 * cur_a > nat_a:
                continue
            for j, (cur_b, nat_b) in enumerate(vitals):
                if i != j and 2 * cur_b <= nat_b:
                    return True
        return False

    @cached_property
    def status(self) -> Status:
        """Status from Wear, thresholds and timed lowerings (M-1, M-3, M-24)."""
        currents = self.currents
        if (
            self.defeated_by_epic
            or min(
                currents[Attribute.ENDURANCE],
                currents[Attribute.RESOLVE],
                currents[Attribute.PASSION],
            )
            <= 0
        ):
            return Status.DEFEATED
        sources = int(self.threshold_weakened) + self.status_lowered
        if sources >= 2:
            return Status.DEFEATED
        return Status.WEAKENED if sources == 1 else Status.NORMAL

    @property
    def current_endurance(self) -> int:
        """Current Endurance."""
        return self.current(Attribute.ENDURANCE)

    @property
    def current_resolve(self) -> int:
        """Current Resolve."""
        return self.current(Attribute.RESOLVE)

    @property
    def current_passion(self) -> int:
        """Current Passion."""
        return self.current(Attribute.PASSION)

    @cached_property
    def war(self) -> WarAttributes:
        """Derived War Attributes (M-2), after overrides."""
        return WarAttributes.of(self)

    def take_wear(self, kind: WearKind, amount: int) -> Character:
        """Return the character after ``amount`` Wear of ``kind`` (current floors at −40)."""
        return self._changed(False, wear=self.wear.plus(kind, amount))

    def defeat_by_epic(self) -> Character:
        """Defeated whatever its Wear, current Endurance set to −40 (M-24)."""
        floor_wear = self.natural.endurance - WEAR_FLOOR
        return self._changed(False, wear=replace(self.wear, E=floor_wear), defeated_by_epic=True)

    def lower_status(self) -> Character:
        """Add a timed lowering of Status by one rung (M-3 b)."""
        return self._changed(False, status_lowered=self.status_lowered + 1)

    def with_status_lowered(self, lowered: int) -> Character:
        """The character with ``lowered`` active timed lowerings of Status (M-3 b)."""
        return self._changed(False, status_lowered=lowered)

    def with_exertion(self, exertion: int) -> Character:
        """The character with this much Exertion (M-4); Status and War Attributes are unchanged."""
        return self._changed(True, exertion=exertion)

    def _changed(self, keep_derived: bool, **changes: Any) -> Character:
        """A copy with ``changes`` to fields that were already checked (no new natural values).

        Derived values cached on this character (current values, Status, War Attributes) are
        carried over only when ``keep_derived`` says the changes cannot alter them.
        """
        values = self.__dict__.copy()
        for name in _EXERTION_DEPENDENT if keep_derived else _CACHED:
            values.pop(name, None)
        values.update(changes)
        copy = object.__new__(type(self))
        copy.__dict__.update(values)
        return copy


# Every value Character caches, and those Exertion can change (none: it enters no derived value).
_CACHED = frozenset(name for name, value in vars(Character).items()
                    if isinstance(value, cached_property))  # fmt: skip
_EXERTION_DEPENDENT = _CACHED - {"currents", "threshold_weakened", "status", "war"}


@dataclass(frozen=True, slots=True)
class WarAttributes:
    """Force, Guard, Precision, Stamina, SPP and Speed (M-2)."""

    force: int
    guard: int
    precision: int
    stamina: int
    spp: int
    speed: int

    @classmethod
    def of(cls, character: Character) -> WarAttributes:
        """Derive from the character's referenced Basic Attributes, then apply overrides."""
        ref = character.referenced
        might, control = ref(Attribute.MIGHT), ref(Attribute.CONTROL)
        derived = {
            "force": 3 + might // 14,
            "guard": (2 * might + control) // 40,
            "precision": control // 14,
            "stamina": 3 + ref(Attribute.ENDURANCE) // 10,
            "spp": ref(Attribute.PASSION) // 20,
            "speed": speed_from_swiftness(ref(Attribute.SWIFTNESS)),
        }
        for name in derived:
            override = getattr(character.overrides, name)
            if override is not None:
                derived[name] = override
        return cls(**derived)
