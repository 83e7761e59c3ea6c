"""Other Special Effects (M-34 … M-39): Falter, Knock Back, Bound, Grappled, Poison, Surprise.

Pure functions over plain numbers and 3D points (inches, centre to centre, as in
:mod:`tableside.majesty.geometry`); the War applies what they return to live combatants.

Readings this module had to choose (proposed addenda to ``docs/rulings-addenda.md``):

- **Collision reach** (M-35): elohim bases are 1" wide, so a Knocked Back elohim collides with
  another elohim whose centre comes within ``reach`` = 1" of its moving centre (exactly 1",
  bases touching, counts). It stops at the first point of its path within reach; the inches left
  to travel are the path length after that point. An elohim already within reach at the start
  collides at once only if the path closes in on it (moving away from a touching base is free).
  Whole inches are counted with a 1e-9" tolerance for floating-point noise.
- **Avoiding a collision** (M-35): the seed says "If that Fails", so the collision happens only
  when the Swiftness Check's outcome is a failure (M-31, ≤ 0 net Passes); a partial success
  avoids it. An avoided elohim is passed by: the next one along the path may still be hit
  (:func:`path_collisions`).
- **Knock Back Falter cap** (M-35): "no more than the amount of Knock Back" is the full Knock
  Back D, even when a collision stops the movement early. The collided elohim's Control Check
  has Difficulty 0 and its Falter is not capped by distance (only by F:7, M-34).
- **Breaking free** (M-37) needs a successful Might Check (≥ 3 net Passes or an Epic success);
  a partial success does not break free.
- **Entangled and incapacitated** (M-34): an Entangled elohim converts F:# like a Grappled one
  (the seed treats the two as one condition), as does any "otherwise incapacitated" elohim.
- **Bound and Grappled restrictions** (M-36, M-37) are an allowed-action set; combined
  conditions allow only what every one allows, and the worst Guard rule wins.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from tableside.errors import RulesError, require_non_negative
from tableside.majesty.character import WEAR_FLOOR, WearKind
from tableside.majesty.checks import (
    SUCCESS_AT,
    CheckKind,
    CheckOutcome,
    CheckResult,
    CheckSetup,
    factor_value,
)
from tableside.majesty.geometry import Point, distance
from tableside.majesty.scroll import (
    ScrollPoint,
    Segment,
    StandReady,
    next_activation,
    one_cycle_later,
)
from tableside.majesty.wear import Part, WearLine, deal_wear

# --- M-34 Falter ------------------------------------------------------------------------------

FALTER_CAP = 7
WEAR_PER_EXCESS_FALTER = 3  # each converted point: 3 WearR and 3 WearP
FALTER_CYCLE_REMOVED_BY = ("Release Bondage", "Loose Evil")


@dataclass(frozen=True, slots=True)
class FalterResult:
    """Falter after an infliction and what converted into Wear (M-34).

    Attributes:
        falter: the F:# now held (0 … 7).
        converted: Falter points turned into Wear.
        wear_r: WearR to apply (3 × converted).
        wear_p: WearP to apply (3 × converted).
    """

    falter: int
    converted: int
    wear_r: int
    wear_p: int


def inflict_falter(current: int, amount: int, converts_all: bool) -> FalterResult:
    """Add F:amount to F:current, capped at F:7, excess → 3 WearR + 3 WearP per point (M-34).

    Args:
        current: the F:# already held (0 … 7).
        amount: the F:# inflicted (one Strike's Falter is one application).
        converts_all: the victim is F:1 Cycle, Bound, Grappled, Asleep or Defeated
            (:func:`falter_converts_all`): every incoming point and the current F:# convert.

    Example: F:6 receives F:7 → F:7, 6 excess → 18 WearR and 18 WearP.
    """
    require_non_negative({"Current Falter": current, "Falter inflicted": amount})
    if current > FALTER_CAP:
        raise RulesError(f"Falter cannot exceed F:{FALTER_CAP}, got a current F:{current}.")
    total = current + amount
    falter = 0 if converts_all else min(FALTER_CAP, total)
    converted = total - falter
    wear = WEAR_PER_EXCESS_FALTER * converted
    return FalterResult(falter, converted, wear, wear)


def falter_converts_all(
    *,
    falter_cycle: bool = False,
    bound: bool = False,
    grappled: bool = False,
    entangled: bool = False,
    asleep: bool = False,
    defeated: bool = False,
    incapacitated: bool = False,
) -> bool:
    """True when the elohim cannot accumulate F:# and all of it converts to Wear (M-34)."""
    return any((falter_cycle, bound, grappled, entangled, asleep, defeated, incapacitated))


def waste_ap(falter: int, ap: int) -> tuple[int, int]:
    """Falter wastes AP as they arrive (M-34).

    Returns:
        (AP kept, Falter left).
    """
    require_non_negative({"Falter": falter, "AP": ap})
    wasted = min(falter, ap)
    return ap - wasted, falter - wasted


def waste_ready(ready: StandReady, falter: int) -> tuple[StandReady, int]:
    """A Faltering elohim Standing Ready turns Readied AP into Falter first (M-34, M-41).

    Returns:
        (the Stand Ready with fewer AP, Falter left).
    """
    kept, left = waste_ap(falter, ready.ap)
    return replace(ready, ap=kept), left


def extend_falter_cycle(current_end: ScrollPoint | None, inflicted_at: ScrollPoint) -> ScrollPoint:
    """End of F:1 Cycle after an infliction: one Cycle after the latest one (M-34, M-39).

    Re-infliction extends the duration and never stacks.
    """
    end = one_cycle_later(inflicted_at)
    return end if current_end is None else max(current_end, end)


# --- M-35 Knock Back --------------------------------------------------------------------------

COLLISION_REACH = 1.0  # inches: 1"-wide bases → centres within 1" collide
BASE_COLLISION_FORCE = 3  # M-35: the minimum Force, taken by the higher Endurance
_EPSILON = 1e-9


def _require_inches(label: str, inches: float) -> None:
    if not math.isfinite(inches) or inches < 0:
        raise RulesError(f"{label} must be a non-negative number of inches, got {inches}.")


def _whole_inches(inches: float) -> int:
    return math.floor(inches + _EPSILON)


def knock_back_destination(source: Point, target: Point, inches: float) -> Point:
    """Where a Knock Back of ``inches`` moves ``target``: straight away from ``source`` (M-35).

    Raises:
        RulesError: if ``inches`` is negative or the source and target share a point (no
            direction to push in).
    """
    _require_inches("Knock Back", inches)
    gap = distance(source, target)
    if gap == 0:
        raise RulesError(f"A Knock Back source at {source} has no direction to push its target.")
    scale = inches / gap
    return (
        target[0] + (target[0] - source[0]) * scale,
        target[1] + (target[1] - source[1]) * scale,
        target[2] + (target[2] - source[2]) * scale,
    )


def knock_back_difficulty(inches: float, extra: int = 0) -> int:
    """Control Check Difficulty: 1 per whole 3" Knocked Back, plus the effect's own (M-35)."""
    _require_inches("Knock Back", inches)
    return _whole_inches(inches / 3) + extra


def knock_back_falter(passes_short: int, inches: float) -> int:
    """F:# from a Knock Back: Passes short, but no more than the whole inches (M-35)."""
    require_non_negative({"Passes short": passes_short})
    _require_inches("Knock Back", inches)
    return min(passes_short, _whole_inches(inches))


@dataclass(frozen=True, slots=True)
class Collision:
    """A Knocked Back elohim meeting another (M-35).

    Attributes:
        other: id of the elohim collided with.
        point: where the Knocked Back elohim's centre stops.
        inches_left: path length still to travel from ``point``.
    """

    other: str
    point: Point
    inches_left: float


def _entry_distance(start: Point, end: Point, centre: Point, reach: float) -> float | None:
    """Distance along start→end at which the moving centre first comes within ``reach``."""
    length = distance(start, end)
    if length == 0:
        return None
    unit = tuple((e - s) / length for s, e in zip(start, end, strict=True))
    offset = tuple(s - c for s, c in zip(start, centre, strict=True))
    b = sum(u * w for u, w in zip(unit, offset, strict=True))
    c = sum(w * w for w in offset) - reach * reach
    if c <= 0:
        return 0.0 if b < 0 else None  # already within reach: only closing in collides
    disc = b * b - c
    if disc < 0:
        return None
    entry = -b - math.sqrt(disc)
    return entry if 0 <= entry <= length + _EPSILON else None


def path_collisions(
    start: Point, end: Point, others: Mapping[str, Point], reach: float = COLLISION_REACH
) -> tuple[Collision, ...]:
    """Every elohim the path start→end would meet, nearest along the path first (M-35).

    The first one collides unless it avoids (Swiftness Check); then the next one may, and so on.
    Ties in distance go by id.
    """
    if not math.isfinite(reach) or reach <= 0:
        raise RulesError(f"Collision reach must be a positive number of inches, got {reach}.")
    length = distance(start, end)
    found: list[tuple[float, str]] = []
    for other, centre in others.items():
        entry = _entry_distance(start, end, centre, reach)
        if entry is not None:
            found.append((min(entry, length), other))
    return tuple(_collision_at(start, end, other, at) for at, other in sorted(found))


def barrier_collision(
    start: Point, end: Point, centre: Point, radius: float, name: str
) -> Collision | None:
    """Where the path start→end first meets a Barrier of ``radius`` around ``centre`` (A-42)."""
    entry = _entry_distance(start, end, centre, radius)
    if entry is None:
        return None
    return _collision_at(start, end, name, min(entry, distance(start, end)))


def _collision_at(start: Point, end: Point, other: str, at: float) -> Collision:
    length = distance(start, end)
    t = at / length
    point = (
        start[0] + (end[0] - start[0]) * t,
        start[1] + (end[1] - start[1]) * t,
        start[2] + (end[2] - start[2]) * t,
    )
    return Collision(other, point, max(0.0, length - at))


def first_collision(
    start: Point, end: Point, others: Mapping[str, Point], reach: float = COLLISION_REACH
) -> Collision | None:
    """The first elohim (by distance along the path) the Knocked Back elohim meets (M-35).

    Args:
        start: the Knocked Back elohim's centre before moving.
        end: where the Knock Back would take it (:func:`knock_back_destination`).
        others: other elohim by id (leave out the moving one; the source may stay, it is
            moved away from).
        reach: centre-to-centre distance that counts as a collision (1" bases → 1").

    Returns:
        The collision (stop point and inches left), or None for a clear path.
    """
    found = path_collisions(start, end, others, reach)
    return found[0] if found else None


@dataclass(frozen=True, slots=True)
class CollisionWear:
    """WearE from a collision (M-35).

    Attributes:
        knocked: WearE to the Knocked Back elohim.
        other: WearE to the one collided with (or a Barrier).
        hits: whole inches still to travel.
        force_lower: Force per Hit against the lower Endurance.
    """

    knocked: int
    other: int
    hits: int
    force_lower: int


def _require_endurance(label: str, endurance: int) -> None:
    if endurance < WEAR_FLOOR:
        raise RulesError(f"{label} cannot be below {WEAR_FLOOR} (M-1), got {endurance}.")


def collision_force(endurance_a: int, endurance_b: int) -> tuple[int, int]:
    """Collision Force per Hit against a and against b (M-35).

    The lower Endurance takes 3 + E_high // 10 − E_low // 10, the higher 3; equal Endurance: 3
    each. A Barrier passes its Resolve strength as Endurance.
    """
    _require_endurance("Endurance", endurance_a)
    _require_endurance("Endurance", endurance_b)
    lower_force = BASE_COLLISION_FORCE + max(endurance_a, endurance_b) // 10
    lower_force -= min(endurance_a, endurance_b) // 10
    if endurance_a == endurance_b:
        return BASE_COLLISION_FORCE, BASE_COLLISION_FORCE
    if endurance_a < endurance_b:
        return lower_force, BASE_COLLISION_FORCE
    return BASE_COLLISION_FORCE, lower_force


def collision_wear(
    knocked_endurance: int, other_endurance: int, inches_left: float
) -> CollisionWear:
    """WearE to both elohim of a collision; Hits = whole inches left (M-35).

    Example: E 45 knocked into E 80 with 4.5" left → Force 7 × 4 = 28 and 3 × 4 = 12.
    """
    _require_inches("Inches left", inches_left)
    hits = _whole_inches(inches_left)
    knocked_force, other_force = collision_force(knocked_endurance, other_endurance)
    lower = max(knocked_force, other_force)
    return CollisionWear(knocked_force * hits, other_force * hits, hits, lower)


def knock_back_check(control: int, inches: float, extra: int = 0) -> CheckSetup:
    """The Knocked Back elohim's unopposed Control Check, Difficulty D // 3 + extra (M-35)."""
    require_non_negative({"Control": control})
    difficulty = knock_back_difficulty(inches, extra)
    return CheckSetup(CheckKind.ATTRIBUTE, factor_value(control), difficulty=difficulty)


def avoid_collision_check(swiftness: int) -> CheckSetup:
    """The collided elohim's unopposed Swiftness Check to avoid, Difficulty 0 (M-35)."""
    require_non_negative({"Swiftness": swiftness})
    return CheckSetup(CheckKind.ATTRIBUTE, factor_value(swiftness))


def collision_control_check(control: int) -> CheckSetup:
    """The collided elohim's unopposed Control Check after failing to avoid (M-35)."""
    require_non_negative({"Control": control})
    return CheckSetup(CheckKind.ATTRIBUTE, factor_value(control))


def avoids_collision(result: CheckResult) -> bool:
    """The Swiftness Check avoids the collision unless it fails (M-35, M-31)."""
    return result.outcome != CheckOutcome.FAILURE


def knock_back_falter_of(result: CheckResult, inches: float) -> int:
    """F:# for the Knocked Back elohim from its Control Check (M-35)."""
    return knock_back_falter(result.passes_short, inches)


# --- M-36 Bound, M-37 Grappled / Entangled ----------------------------------------------------


class Act(StrEnum):
    """What an elohim may try to do (M-36, M-37)."""

    MOVE = "move"
    STRIKE = "strike"
    DEFENSIVE_STANCE = "defensive stance"
    OTHER_ACTION = "other action"
    SPEAK = "speak"
    SPIRITUAL_EFFECT = "spiritual effect"
    SING = "sing"
    REST = "rest"
    BREAK_FREE = "break free"


class GuardRule(StrEnum):
    """How a condition changes Guard (M-17, M-36, M-37); later members are worse."""

    NORMAL = "normal"
    HALVED = "halved"
    ZERO = "zero"


_GUARD_ORDER = (GuardRule.NORMAL, GuardRule.HALVED, GuardRule.ZERO)
_ALWAYS = frozenset({Act.SPEAK, Act.SPIRITUAL_EFFECT, Act.SING, Act.REST})


@dataclass(frozen=True, slots=True)
class Restrictions:
    """What a condition leaves an elohim able to do (M-36, M-37)."""

    allowed: frozenset[Act]
    guard: GuardRule
    exposed: bool

    def allows(self, act: Act) -> bool:
        """True when ``act`` is permitted."""
        return act in self.allowed

    def guard_value(self, guard: int) -> int:
        """Guard under this condition: unchanged, halved (rounded down) or 0."""
        if self.guard == GuardRule.ZERO:
            return 0
        return guard // 2 if self.guard == GuardRule.HALVED else guard


UNRESTRICTED = Restrictions(frozenset(Act), GuardRule.NORMAL, exposed=False)


def bound_restrictions() -> Restrictions:
    """Bound: Guard 0, Exposed; only speak, Spiritual Effects, Sing and Rest (M-36)."""
    return Restrictions(_ALWAYS, GuardRule.ZERO, exposed=True)


def grappled_restrictions() -> Restrictions:
    """Grappled or Entangled: Guard halved and most actions barred (M-37).

    It may speak, use Spiritual Effects, Sing, Rest and try to break free; it may not Move,
    Strike, take Defensive Stance or perform other actions.
    """
    return Restrictions(_ALWAYS | {Act.BREAK_FREE}, GuardRule.HALVED, exposed=False)


def combine_restrictions(*conditions: Restrictions) -> Restrictions:
    """Several conditions at once: only what all allow, the worst Guard rule, any Exposed."""
    if not conditions:
        return UNRESTRICTED
    allowed = UNRESTRICTED.allowed
    guard = GuardRule.NORMAL
    for condition in conditions:
        allowed &= condition.allowed
        guard = max(guard, condition.guard, key=_GUARD_ORDER.index)
    exposed = any(c.exposed for c in conditions)
    return Restrictions(frozenset(allowed), guard, exposed)


BREAK_FREE_AP = 3  # M-37: per attempt
BREAK_FREE_EXERTION = 3  # M-37: per attempt
GRAPPLE_STRIKE_AP = 2  # M-37: the Grappler Strikes the Grappled as a 2-AP Strike
GRAPPLE_STRIKE_EXERTION = 2  # M-37, M-14: Exertion += the Strike's normal AP cost
STRIKE_OTHERS_MARGIN = 40  # M-37
BODY_WEAPON_MARGIN = 80  # M-37
DEFEATED_BODY_FORCE = 3  # M-37: a Defeated body used as a weapon adds +3 Force


@dataclass(frozen=True, slots=True)
class GrapplerOptions:
    """What the Grappler's Might margin over the Grappled allows (M-37).

    Attributes:
        strike_others: may Strike other Targets (Carrying penalties apply), margin ≥ 40.
        hold_second: may Grapple a second Target, Might split between them, margin ≥ 40.
        use_as_weapon: may Strike others using the Grappled as a weapon, margin ≥ 80.
    """

    strike_others: bool
    hold_second: bool
    use_as_weapon: bool


def grappler_options(grappler_might: int, grappled_might: int) -> GrapplerOptions:
    """Options from the Grappler's Might margin (M-37); pass split Might when holding two."""
    require_non_negative({"Grappler's Might": grappler_might, "Grappled Might": grappled_might})
    margin = grappler_might - grappled_might
    wide = margin >= STRIKE_OTHERS_MARGIN
    return GrapplerOptions(wide, wide, margin >= BODY_WEAPON_MARGIN)


def grappler_may_strike(options: GrapplerOptions, target_is_grappled: bool) -> bool:
    """The Grappler may Strike the Grappled, and others only with a margin of 40 (M-37)."""
    return target_is_grappled or options.strike_others


def split_might(might: int) -> int:
    """Might the Grappler brings against each of two Grappled elohim: split evenly (M-37)."""
    require_non_negative({"Might": might})
    return might // 2


MAX_HELD = 2  # M-37: a Grappler may hold a second Target, never a third


def grappler_might(might: int, holding: int) -> int:
    """The Grappler's Might against each one it holds: split evenly when it holds two (M-37)."""
    require_non_negative({"Might": might, "Grappled elohim held": holding})
    return split_might(might) if holding >= MAX_HELD else might


def second_grapple_allowed(grappler_might_now: int, held_mights: Sequence[int]) -> str | None:
    """Why the Grappler may not take one more Grapple, or None when it may (M-37, A-36).

    Args:
        grappler_might_now: its Might holding only those it holds now (not yet split).
        held_mights: the Might of each elohim it already holds.
    """
    if len(held_mights) >= MAX_HELD:
        return f"it already holds {MAX_HELD} elohim"
    for held in held_mights:
        if not grappler_options(grappler_might_now, held).hold_second:
            return f"it needs at least {STRIKE_OTHERS_MARGIN} more Might than the one it holds"
    return None


def break_free_check(might: int, holder_might: int) -> CheckSetup:
    """Opposed Might Check to break free (M-37).

    Args:
        might: the Grappled or Entangled elohim's Might.
        holder_might: the Grappler's Might, or the entangling source's strength (for Bind,
            its Resolve Allotment).
    """
    require_non_negative({"Might": might, "Holder's Might": holder_might})
    return CheckSetup(CheckKind.ATTRIBUTE, factor_value(might), opposing=factor_value(holder_might))


def breaks_free(result: CheckResult) -> bool:
    """Only a successful Might Check breaks free; a partial success does not (M-37, M-31)."""
    return result.outcome == CheckOutcome.SUCCESS


def grapple_strike_check(grappler_might: int, grappled_might: int) -> CheckSetup:
    """The Grappler's 2-AP Strike on the Grappled: Might vs Might Check (M-37)."""
    require_non_negative({"Grappler's Might": grappler_might, "Grappled Might": grappled_might})
    return CheckSetup(
        CheckKind.ATTRIBUTE, factor_value(grappler_might), opposing=factor_value(grappled_might)
    )


def grapple_strike_hits(result: CheckResult) -> int:
    """Hits of the Grappler's Strike: its Might Check's net Passes (M-37, A-35).

    A failed Check (0 or fewer net Passes, or three unpaired natural 1s, M-33) deals nothing; an
    Epic success (three unpaired natural 12s) counts at least a success's 3 Passes.
    """
    if result.outcome == CheckOutcome.FAILURE:
        return 0
    if result.automatic == CheckOutcome.SUCCESS:
        return max(result.net, SUCCESS_AT)
    return max(0, result.net)


def grapple_strike_wear(
    kind: WearKind,
    hits: int,
    force: int,
    flats: tuple[Part, ...] = (),
    percents: tuple[Part, ...] = (),
) -> WearLine:
    """The Grappler's Strike's Wear: Hits × Force by the Wear rules of a Strike (M-26, A-35)."""
    require_non_negative({"Hits": hits, "Force": force})
    return deal_wear(kind, hits, force, flats, percents)


@dataclass(frozen=True, slots=True)
class BodyWeaponWear:
    """Extra collision WearE when a non-Defeated Grappled elohim is used as a weapon (M-37)."""

    grappled: int
    struck: int


def body_weapon_wear(
    grappled_endurance: int, struck_endurance: int, hits_regardless: int, uncanceled_hits: int
) -> BodyWeaponWear:
    """Extra collision WearE when Striking with a non-Defeated Grappled elohim (M-37).

    Both take the collision Force of M-35: the Grappled per Hit regardless of Stops, the Struck
    Target per uncanceled Hit only.
    """
    require_non_negative({"Hits": hits_regardless, "Uncanceled Hits": uncanceled_hits})
    grappled_force, struck_force = collision_force(grappled_endurance, struck_endurance)
    return BodyWeaponWear(grappled_force * hits_regardless, struck_force * uncanceled_hits)


# --- M-38 Poison ------------------------------------------------------------------------------


def poison_tick(poison: int) -> tuple[int, int]:
    """At the start of the victim's Turn: Exertion += Poison, then Poison halves (M-38).

    Returns:
        (Exertion gained, Poison left); Poison:7 gives +7, +3, +1, then it is cured.
    """
    require_non_negative({"Poison": poison})
    return poison, poison // 2


def add_poison(current: int, amount: int) -> int:
    """New Poison adds to the current Poison:# (M-38)."""
    require_non_negative({"Current Poison": current, "Poison added": amount})
    return current + amount


def is_poisoned(poison: int) -> bool:
    """Poisoned until Poison:# is 0 (M-38)."""
    require_non_negative({"Poison": poison})
    return poison > 0


# --- Surprise (M-19, M-39) --------------------------------------------------------------------

SURPRISE_ENDS = "just before the victim's next Activation"


def surprise_end(
    scroll: Sequence[Segment], cycle: int, victim: str, now: ScrollPoint
) -> ScrollPoint | None:
    """When Surprise on ``victim`` ends: just before its next Activation (M-39).

    Returns:
        The end point in this Cycle's Scroll, or None when the victim has no later Turn this
        Cycle (then it ends just before its first Turn of the next Cycle).
    """
    return next_activation(scroll, cycle, victim, after=now)
