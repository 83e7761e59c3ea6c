"""The Strike's values (M-14 … M-29): its setup, options, cost, outcome, effects and result.

:mod:`tableside.majesty.strike` decides a Strike; these are the immutable values it takes and
makes, kept apart so that the pipeline stays short.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tableside.dice import Adjustment, Side
from tableside.errors import RulesError
from tableside.majesty.adjust import AdjustMode, AdjustPass, Step
from tableside.majesty.catalog import Maneuver, Weapon
from tableside.majesty.character import Character, Status, WearKind
from tableside.majesty.geometry import (
    Dominion,
    Point,
    Reach,
)
from tableside.majesty.rolls import (
    EpicState,
    NaturalRoll,
    Reading,
    Tally,
)
from tableside.majesty.ruleset import STANDARD, Ruleset
from tableside.majesty.wear import Part, WearLine


@dataclass(frozen=True, slots=True)
class DefenderState:
    """The Defender's conditions that matter to a Strike (M-17, M-19)."""

    defensive_stance: bool = False
    full_defensive_stance: bool = False
    grappled: bool = False  # or Entangled
    bound: bool = False
    exposed: bool = False
    surprised: bool = False  # Surprised by this Striker

    @property
    def reads_exposed(self) -> bool:
        """Exposed, or Bound: "while Bound, the elohim is also Exposed" (M-36, M-19)."""
        return self.exposed or self.bound


@dataclass(frozen=True, slots=True)
class Placement:
    """Where the Strike happens: the Striker's movement path, the Defender, any Dominions."""

    path: tuple[Point, ...]
    target: Point
    dominions: tuple[Dominion, ...] = ()

    def __post_init__(self) -> None:
        if not self.path:
            raise RulesError("A Strike's movement path needs at least the Striker's position.")
        points = [*self.path, self.target, *(d.center for d in self.dominions)]
        for point in points:
            if len(point) != 3 or not all(math.isfinite(c) for c in point):
                raise RulesError(f"A position needs three finite coordinates, got {point}.")
        for dominion in self.dominions:
            if not (math.isfinite(dominion.radius) and dominion.radius > 0):
                raise RulesError(f"A Dominion's radius must be positive, got {dominion.radius}.")

    @classmethod
    def at_distance(cls, inches: float) -> Placement:
        """The Striker stands ``inches`` from the Defender and does not move."""
        return cls(((0.0, 0.0, 0.0),), (float(inches), 0.0, 0.0))


@dataclass(frozen=True, slots=True)
class StrikeOptions:
    """Everything about one Strike that is not a character, weapon or Maneuver."""

    ranged: bool = False
    two_ap: bool = False
    striker_in_stance: bool = False
    boon: int = 0
    bane: int = 0
    precision: int = 0
    guard: int = 0
    force: int = 0
    wear_flat: int = 0
    wear_percent: int = 0
    ignore_stops: int = 0
    striker_adjustments: int = 0
    defender_adjustments: int = 0
    inspiration: int = 0
    obstruction: int = 0
    superiority: int = 0
    twelve_effects_this_turn: int = 0
    mode: AdjustMode = AdjustMode.BEST
    steps: tuple[Step, ...] = ()
    # The mode and steps are the choice of the side that adjusts first (the surplus, else the
    # Striker); the other side's tokens are used to its best (a War's Strike, D-9).
    mode_by_surplus: bool = False


@dataclass(frozen=True, slots=True)
class StrikeSetup:
    """A Strike to resolve."""

    striker: Character
    defender: Character
    weapon: Weapon
    defender_weapon: Weapon
    maneuvers: tuple[Maneuver, ...] = ()
    defender_state: DefenderState = field(default_factory=DefenderState)
    options: StrikeOptions = field(default_factory=StrikeOptions)
    placement: Placement | None = None
    ruleset: Ruleset = STANDARD

    @property
    def melee(self) -> bool:
        """A Melee Strike (not Ranged)."""
        return not self.options.ranged


@dataclass(frozen=True, slots=True)
class StrikeCost:
    """AP, movement allowance and Exertion of the Strike (M-14)."""

    ap: int
    movement: float
    exertion: int


@dataclass(frozen=True, slots=True)
class Rated:
    """An effective value and the labelled parts that made it."""

    value: int
    parts: tuple[Part, ...]


@dataclass(frozen=True, slots=True)
class StrikeObjective:
    """The adjuster's interest on a Strike (M-13), as a key to maximise."""

    side: Side
    ignore_stops: int
    melee: bool

    def __call__(self, tally: Tally) -> tuple[int, ...]:
        """Striker: (net, 12 Effects, −Falter); Defender: the mirror image."""
        outcome = Outcome.of(tally, self.ignore_stops, self.melee)
        key = (outcome.net, outcome.twelve_effects, -outcome.striker_falter)
        return key if self.side == Side.STRIKER else tuple(-k for k in key)


@dataclass(frozen=True, slots=True)
class Outcome:
    """Hits and Stops on the final dice (M-20, M-21, M-22)."""

    hits: int
    stops: int
    ignored_stops: int
    twelve_effects: int
    striker_falter: int

    @classmethod
    def of(cls, tally: Tally, ignore_stops: int, melee: bool) -> Outcome:
        """Read a tally: Hits, Stops less ignored ones, unpaired 12s, unpaired 1s."""
        stops = tally.total_negative
        ignored = min(ignore_stops, stops)
        falter = tally.unpaired_ones if melee else 0
        return cls(tally.total_positive, stops - ignored, ignored, tally.unpaired_twelves, falter)

    @property
    def net(self) -> int:
        """Hits − Stops."""
        return self.hits - self.stops

    @property
    def uncanceled_hits(self) -> int:
        """Hits left after Stops cancel them."""
        return max(0, self.net)

    @property
    def uncanceled_stops(self) -> int:
        """Stops left after cancelling every Hit."""
        return max(0, -self.net)


@dataclass(frozen=True, slots=True)
class Adjusting:
    """Who adjusts, how many, and why (M-10, M-11, M-18)."""

    advantage: int
    translated: int
    striker_raw: tuple[Part, ...]
    defender_raw: tuple[Part, ...]
    passes: tuple[AdjustPass, ...]

    @property
    def main(self) -> AdjustPass | None:
        """The pass left after cancellation (None when nobody adjusts before tokens)."""
        main = self.passes[0] if self.passes else None
        return main if main is not None and "token" not in main.why else None


@dataclass(frozen=True, slots=True)
class Effects:
    """What the 12 Effects, Passion Effects and riders produce."""

    twelve_fired: int
    passion_triggers: int
    passion_applied: int
    ap_gained: int
    defender_falter: tuple[Part, ...]
    defender_exertion: int
    knock_back: float
    flats: tuple[tuple[WearKind | None, Part], ...]
    percents: tuple[tuple[WearKind | None, Part], ...]


@dataclass(frozen=True, slots=True)
class StrikeResult:
    """Everything a Strike did and why."""

    setup: StrikeSetup
    cost: StrikeCost
    reach: Reach | None
    precision: Rated
    guard: Rated
    force: Rated
    adjusting: Adjusting
    roll: NaturalRoll
    reading: Reading
    epic: EpicState
    adjustments: tuple[Adjustment, ...]
    final: tuple[int, ...]
    outcome: Outcome
    effects: Effects
    wear: tuple[WearLine, ...]
    defensive_hits: int
    wear_to_striker: WearLine | None
    defender_lowered: bool
    striker_lowered: bool
    defender_after: Character
    striker_after: Character
    rulings: tuple[str, ...]

    @property
    def epic_kind(self) -> str | None:
        """Return "strike" for an Epic Strike, "defense" for an Epic Defense (M-9)."""
        if self.epic.positive:
            return "strike"
        return "defense" if self.epic.negative else None

    @property
    def striker_falter(self) -> int:
        """Falter the Striker suffers from unpaired 1s (M-22, M-27)."""
        return self.outcome.striker_falter

    @property
    def defender_falter(self) -> int:
        """Falter the Defender suffers from 12 Effects, Passion Effects and riders."""
        return sum(p.amount for p in self.effects.defender_falter)

    @property
    def defender_status_change(self) -> str | None:
        """null, "lowered_1_cycle" or "defeated" (M-24, M-1)."""
        return _status_change(self.setup.defender, self.defender_after, self.defender_lowered)

    @property
    def striker_status_change(self) -> str | None:
        """null, "lowered_1_cycle" or "defeated" (M-24, M-23)."""
        return _status_change(self.setup.striker, self.striker_after, self.striker_lowered)


def _status_change(before: Character, after: Character, lowered: bool) -> str | None:
    if after.status == Status.DEFEATED and before.status != Status.DEFEATED:
        return "defeated"
    return "lowered_1_cycle" if lowered else None
