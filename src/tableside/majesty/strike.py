"""The whole Strike (M-14 … M-29): cost, range, Adjustments, resolution, effects, Wear, Epics.

``resolve_strike`` is a pipeline of small deciding steps; it records everything in an immutable
:class:`StrikeResult` and makes no strings beyond labels: renderers describe it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from tableside.dice import Adjustment, Rng, Side
from tableside.errors import RulesError, require_non_negative
from tableside.majesty.adjust import AdjustPass, run_passes
from tableside.majesty.catalog import Effect, EffectType
from tableside.majesty.character import Attribute, Character, Status, WearKind
from tableside.majesty.geometry import (
    MELEE_RANGE,
    Reach,
    check_reach,
    path_length,
)
from tableside.majesty.rolls import (
    EXPOSED,
    PLAIN,
    SURPRISED,
    EpicState,
    NaturalRoll,
    Reading,
    Tally,
    adjustments_from_advantage,
    face_bounds,
    natural_roll_from,
    net_boon,
    roll_natural,
)
from tableside.majesty.ruleset import FullStanceRule
from tableside.majesty.strike_types import (
    Adjusting,
    DefenderState,
    Effects,
    Outcome,
    Placement,
    Rated,
    StrikeCost,
    StrikeObjective,
    StrikeOptions,
    StrikeResult,
    StrikeSetup,
)
from tableside.majesty.wear import Part, WearLine, deal_wear

# The Strike's steps, and its values (which lived here and are imported from here still).
__all__ = [
    "Adjusting",
    "DefenderState",
    "Effects",
    "Outcome",
    "Placement",
    "Rated",
    "StrikeCost",
    "StrikeObjective",
    "StrikeOptions",
    "StrikeResult",
    "StrikeSetup",
    "check_range",
    "defensive_wear",
    "effective_force",
    "effective_guard",
    "effective_precision",
    "mode_owner",
    "passion_triggers",
    "plan_adjustments",
    "resolve_strike",
    "roll_strike",
    "strike_cost",
    "strike_effects",
    "strike_reading",
    "strike_wear",
    "strike_with_dice",
]

# --- validating and costing -------------------------------------------------------------------


def _check_options(setup: StrikeSetup) -> None:
    opts = setup.options
    counts = {
        "Boon": opts.boon,
        "Bane": opts.bane,
        "ignore Stops": opts.ignore_stops,
        "Striker raw Adjustments": opts.striker_adjustments,
        "Defender raw Adjustments": opts.defender_adjustments,
        "Inspiration tokens": opts.inspiration,
        "Obstruction tokens": opts.obstruction,
        "12 Effects already this Turn": opts.twelve_effects_this_turn,
    }
    require_non_negative(counts)
    _check_weapon_use(setup)


def _check_weapon_use(setup: StrikeSetup) -> None:
    weapon = setup.weapon
    if setup.options.ranged and weapon.ranged_range is None:
        raise RulesError(f"{weapon.name} cannot make a Ranged Strike; it has no range.")
    if setup.melee and not weapon.melee:
        raise RulesError(f"{weapon.name} is a Ranged-only weapon and cannot make a Melee Strike.")
    for maneuver in setup.maneuvers:
        if maneuver.melee_only and setup.options.ranged:
            raise RulesError(f"The Maneuver {maneuver.name} works only with a Melee Strike.")
        if maneuver.ranged_only and setup.melee:
            raise RulesError(f"The Maneuver {maneuver.name} works only with a Ranged Strike.")


def strike_cost(setup: StrikeSetup) -> StrikeCost:
    """AP cost and movement allowance (M-14, M-29); Exertion is the normal AP cost."""
    normal = (2 if setup.options.two_ap else 3) + sum(m.ap_cost for m in setup.maneuvers)
    movement = (1.0 if setup.options.two_ap else 2.0) + sum(m.movement for m in setup.maneuvers)
    if normal < 1:
        raise RulesError(f"A Strike costs at least 1 AP; these Maneuvers bring it to {normal}.")
    stance = 1 if setup.options.striker_in_stance else 0
    return StrikeCost(normal + stance, max(0.0, movement), normal)


def check_range(setup: StrikeSetup, cost: StrikeCost) -> Reach | None:
    """Refuse a Strike whose path never brings the Defender into range (M-15, M-27)."""
    placement = setup.placement
    if placement is None:
        return None
    moved = path_length(placement.path)
    if moved > cost.movement + 1e-9:
        raise RulesError(
            f"The Strike's movement path is {moved:.2f}\" long but this Strike allows only "
            f'{cost.movement:g}" (M-14).'
        )
    if setup.options.ranged:
        return _check_ranged(setup, placement)
    reach = check_reach(placement.path, placement.target, None, MELEE_RANGE, placement.dominions)
    if not reach.in_range:
        raise RulesError(_out_of_range("A Melee Strike", 'within 3"', reach, placement))
    return reach


def _check_ranged(setup: StrikeSetup, placement: Placement) -> Reach:
    limit = float(setup.weapon.ranged_range or 0)
    reach = check_reach(placement.path, placement.target, MELEE_RANGE, limit, placement.dominions)
    if not reach.in_range:
        band = f'beyond 3" and within {limit:g}"'
        raise RulesError(
            _out_of_range(f"{setup.weapon.name}'s Ranged Strike", band, reach, placement)
        )
    return reach


def _out_of_range(what: str, band: str, reach: Reach, placement: Placement) -> str:
    blocked = " with no Spiritual Dominion between" if placement.dominions else ""
    span = (
        f'{reach.closest:.1f}"'
        if abs(reach.farthest - reach.closest) < 0.05
        else f'{reach.closest:.1f}" to {reach.farthest:.1f}"'
    )
    return (
        f"{what} needs the Defender {band}{blocked} at some point of its movement, "
        f"but the distance is {span} (M-15)."
    )


# --- effective values -------------------------------------------------------------------------


def effective_precision(setup: StrikeSetup) -> Rated:
    """Striker's Precision with Maneuver and other modifiers (M-18, M-29)."""
    parts = [Part("Precision", setup.striker.war.precision)]
    parts += [Part(m.name, m.precision) for m in setup.maneuvers if m.precision]
    if setup.options.precision:
        parts.append(Part("Precision modifier", setup.options.precision))
    return Rated(sum(p.amount for p in parts), tuple(parts))


def effective_guard(setup: StrikeSetup) -> Rated:
    """Defender's Guard: stance, modifiers, Grappled halves, Bound/Exposed/Defeated zero (M-17)."""
    state = setup.defender_state
    parts = [Part("Guard", setup.defender.war.guard)]
    parts += _stance_parts(setup)
    parts += [Part(m.name, m.guard) for m in setup.maneuvers if m.guard]
    if setup.options.guard:
        parts.append(Part("Guard modifier", setup.options.guard))
    value = sum(p.amount for p in parts)
    zeroed = state.bound or state.exposed or setup.defender.status == Status.DEFEATED
    if zeroed:
        parts.append(Part("Bound, Exposed or Defeated: Guard 0", -value))
        value = 0
    elif state.grappled:
        halved = value // 2
        parts.append(Part("Grappled: Guard halved", halved - value))
        value = halved
    return Rated(value, tuple(parts))


def _stance_parts(setup: StrikeSetup) -> list[Part]:
    state = setup.defender_state
    if state.surprised or not (state.defensive_stance or state.full_defensive_stance):
        return []
    if state.full_defensive_stance:
        if setup.ruleset.full_defensive_stance == FullStanceRule.GUARD_PLUS_5:
            return [Part("Full Defensive Stance", 5)]
        return []
    return [Part("Defensive Stance", 3)]


def effective_force(setup: StrikeSetup) -> Rated:
    """Striker's Force with ±Force modifiers (M-26, M-29); never below 0."""
    parts = [Part("Force", setup.striker.war.force)]
    parts += [Part(m.name, m.force) for m in setup.maneuvers if m.force]
    if setup.options.force:
        parts.append(Part("Force modifier", setup.options.force))
    return Rated(max(0, sum(p.amount for p in parts)), tuple(parts))


# --- who adjusts ------------------------------------------------------------------------------


def _raw_sources(setup: StrikeSetup) -> tuple[list[Part], list[Part]]:
    opts = setup.options
    striker = [Part(m.name, m.striker_adjustments) for m in setup.maneuvers]
    defender = [Part(m.name, m.defender_adjustments) for m in setup.maneuvers]
    striker.append(Part("raw Adjustments", opts.striker_adjustments))
    defender.append(Part("raw Adjustments", opts.defender_adjustments))
    if setup.melee and opts.superiority >= 1:
        influence = 1 + opts.superiority // 7
        striker.append(Part(f"Melee Influence (superiority {opts.superiority})", influence))
    if _newer_full_stance(setup):
        defender.append(Part("Full Defensive Stance", 1))
    keep = [p for p in striker if p.amount], [p for p in defender if p.amount]
    return keep


def _newer_full_stance(setup: StrikeSetup) -> bool:
    state = setup.defender_state
    guard_zeroed = state.bound or state.exposed or setup.defender.status == Status.DEFEATED
    return (
        state.full_defensive_stance
        and not state.surprised
        and not guard_zeroed
        and setup.ruleset.full_defensive_stance == FullStanceRule.DEFENSIVE_ADJUSTMENT
    )


def plan_adjustments(setup: StrikeSetup, precision: Rated, guard: Rated) -> Adjusting:
    """Advantage → Adjustments, raw sources cancel, tokens after (M-10, M-11, M-18)."""
    advantage = precision.value - guard.value
    translated = adjustments_from_advantage(abs(advantage))
    striker_raw, defender_raw = _raw_sources(setup)
    striker_total = (translated if advantage > 0 else 0) + sum(p.amount for p in striker_raw)
    defender_total = (translated if advantage < 0 else 0) + sum(p.amount for p in defender_raw)
    surplus = striker_total - defender_total
    why = f"Precision {precision.value} vs Guard {guard.value}, raw sources (M-10, M-11, M-18)"
    passes = []
    if surplus:
        side = Side.STRIKER if surplus > 0 else Side.DEFENDER
        passes.append(AdjustPass(side, abs(surplus), why))
    tokens = ((Side.STRIKER, setup.options.inspiration, "Inspiration token (M-11)"),
              (Side.DEFENDER, setup.options.obstruction, "Obstruction token (M-11)"))  # fmt: skip
    passes += [AdjustPass(side, n, label) for side, n, label in tokens if n]
    return Adjusting(advantage, translated, tuple(striker_raw), tuple(defender_raw), tuple(passes))


# --- rolling and adjusting --------------------------------------------------------------------


def strike_reading(setup: StrikeSetup) -> Reading:
    """Exposed and Surprised change how faces read (M-19)."""
    if setup.defender_state.reads_exposed:
        return EXPOSED
    return SURPRISED if setup.defender_state.surprised else PLAIN


def _adjust(
    setup: StrikeSetup, natural: tuple[int, ...], reading: Reading, adjusting: Adjusting
) -> tuple[tuple[int, ...], tuple[Adjustment, ...]]:
    ignore, melee = _ignore_stops(setup), setup.melee
    return run_passes(
        natural, face_bounds(natural, reading), reading, adjusting.passes, setup.options.mode,
        setup.options.steps, lambda side: StrikeObjective(side, ignore, melee),
        mode_owner(setup, adjusting),
    )  # fmt: skip


def mode_owner(setup: StrikeSetup, adjusting: Adjusting) -> Side | None:
    """Whose choice the Adjustment mode is: None (every pass's), or one side's (D-9)."""
    if not setup.options.mode_by_surplus:
        return None
    return adjusting.main.side if adjusting.main is not None else Side.STRIKER


def _ignore_stops(setup: StrikeSetup) -> int:
    return setup.options.ignore_stops + sum(m.ignore_stops for m in setup.maneuvers)


# --- effects ----------------------------------------------------------------------------------


def passion_triggers(difference: int) -> int:
    """Passion Effect triggers from Passion − Resolve (M-25): 1 at ≥ 1, 2 at ≥ 40, 3 at ≥ 80."""
    if difference <= 0:
        return 0
    return 3 if difference >= 80 else 2 if difference >= 40 else 1


def _twelve_fired(setup: StrikeSetup, unpaired: int) -> int:
    twelve = setup.weapon.twelve_effect
    if twelve is None:
        return 0
    fired = unpaired
    if twelve.max_per_strike is not None:
        fired = min(fired, twelve.max_per_strike)
    if twelve.max_per_turn is not None:
        fired = min(fired, max(0, twelve.max_per_turn - setup.options.twelve_effects_this_turn))
    return fired


@dataclass
class _EffectSum:
    ap: int = 0
    falter: list[Part] = field(default_factory=list)
    exertion: int = 0
    flats: list[tuple[WearKind | None, Part]] = field(default_factory=list)
    percents: list[tuple[WearKind | None, Part]] = field(default_factory=list)

    def add(self, effect: Effect, times: int, tier: int, label: str) -> None:
        amount = effect.amount * times * (tier if effect.per_target_tier else 1)
        if effect.type == EffectType.AP:
            self.ap += amount
        elif effect.type == EffectType.FALTER:
            self.falter.append(Part(label, amount))
        elif effect.type == EffectType.EXERTION:
            self.exertion += amount
        elif effect.type == EffectType.WEAR_FLAT:
            self.flats.append((effect.wear_kind, Part(label, amount)))
            if effect.percent:
                self.percents.append((effect.wear_kind, Part(f"{label} (own %)", effect.percent)))
        else:
            self.percents.append((effect.wear_kind, Part(label, amount)))


def strike_effects(setup: StrikeSetup, outcome: Outcome) -> Effects:
    """12 Effects (M-21), Passion Effects (M-25) and Falter / Knock Back riders (M-20, M-29)."""
    total = _EffectSum()
    tier = setup.defender.tier
    fired = _twelve_fired(setup, outcome.twelve_effects)
    if fired and setup.weapon.twelve_effect is not None:
        total.add(setup.weapon.twelve_effect.effect, fired, tier, f"{setup.weapon.name} 12 Effect")
    triggers = _passion(setup)
    applied = _passion_applies(setup, outcome, triggers)
    if applied and setup.weapon.passion_effect is not None:
        total.add(setup.weapon.passion_effect, applied, tier, f"{setup.weapon.name} Passion Effect")
    knock_back = _riders(setup, outcome, total)
    return Effects(
        fired, triggers, applied, total.ap, tuple(total.falter), total.exertion, knock_back,
        tuple(total.flats), tuple(total.percents),
    )  # fmt: skip


def _passion(setup: StrikeSetup) -> int:
    difference = setup.striker.referenced(Attribute.PASSION) - setup.defender.referenced(
        Attribute.RESOLVE
    )
    return passion_triggers(difference)


def _passion_applies(setup: StrikeSetup, outcome: Outcome, triggers: int) -> int:
    effect = setup.weapon.passion_effect
    if effect is None or triggers == 0:
        return 0
    needed = outcome.uncanceled_hits if effect.type.wear_type else outcome.hits
    return triggers if needed >= 1 else 0


def _riders(setup: StrikeSetup, outcome: Outcome, total: _EffectSum) -> float:
    if outcome.hits < 1:
        return 0.0
    for maneuver in setup.maneuvers:
        if maneuver.falter:
            total.falter.append(Part(maneuver.name, maneuver.falter))
        if maneuver.falter_per_hit:
            total.falter.append(
                Part(f"{maneuver.name} per Hit", maneuver.falter_per_hit * outcome.hits)
            )
    return sum(m.knock_back for m in setup.maneuvers)


# --- Wear -------------------------------------------------------------------------------------


def strike_wear(
    setup: StrikeSetup, outcome: Outcome, force: Rated, effects: Effects
) -> tuple[WearLine, ...]:
    """Wear of every kind the Strike deals (M-26); the weapon's kind first."""
    main = setup.weapon.wear_kind
    flats = [Part(m.name, m.wear_flat) for m in setup.maneuvers if m.wear_flat]
    percents = (
        [Part(setup.weapon.name, setup.weapon.wear_percent)] if setup.weapon.wear_percent else []
    )
    percents += [Part(m.name, m.wear_percent) for m in setup.maneuvers if m.wear_percent]
    if setup.options.wear_flat:
        flats.append(Part("flat Wear", setup.options.wear_flat))
    if setup.options.wear_percent:
        percents.append(Part("% Wear", setup.options.wear_percent))
    kinds = [main, *sorted({k for k, _ in effects.flats + effects.percents if k and k != main})]
    lines = []
    for kind in kinds:
        extra_flats = [p for k, p in effects.flats if (k or main) == kind]
        extra_percents = [p for k, p in effects.percents if (k or main) == kind]
        own_flats = flats + extra_flats if kind == main else extra_flats
        own_percents = percents + extra_percents if kind == main else extra_percents
        base = None if kind == main else 0
        line = deal_wear(kind, outcome.uncanceled_hits, force.value, tuple(own_flats),
                         tuple(own_percents), base)  # fmt: skip
        lines.append(line)
    return tuple(lines)


def defensive_wear(setup: StrikeSetup, outcome: Outcome) -> tuple[int, WearLine | None]:
    """Defensive Hits = floor(uncanceled Stops / 2), melee only (M-23, M-27)."""
    if not setup.melee:
        return 0, None
    hits = outcome.uncanceled_stops // 2
    if hits < 1:
        return 0, None
    weapon = setup.defender_weapon
    percents = (Part(weapon.name, weapon.wear_percent),) if weapon.wear_percent else ()
    line = deal_wear(weapon.wear_kind, hits, setup.defender.war.force, (), percents)
    return hits, line


# --- consequences -----------------------------------------------------------------------------


def _apply_to_defender(
    setup: StrikeSetup, epic: EpicState, wear: tuple[WearLine, ...]
) -> tuple[Character, bool]:
    after = setup.defender
    for line in wear:
        after = after.take_wear(line.kind, line.amount)
    lowered = epic.unpaired_twelves == 3
    if lowered:
        after = after.lower_status()
    if epic.unpaired_twelves >= 4:
        after = after.defeat_by_epic()
    return after, lowered


def _apply_to_striker(
    setup: StrikeSetup, epic: EpicState, wear: WearLine | None
) -> tuple[Character, bool]:
    after = setup.striker
    if wear is not None:
        after = after.take_wear(wear.kind, wear.amount)
    if not setup.melee:
        return after, False
    lowered = epic.unpaired_ones == 3
    if lowered:
        after = after.lower_status()
    if epic.unpaired_ones >= 4:
        after = after.defeat_by_epic()
    return after, lowered


def _rulings(setup: StrikeSetup, result_bits: dict[str, bool]) -> tuple[str, ...]:
    return _rulings_for(
        setup.options.boon != setup.options.bane,
        setup.placement is not None,
        setup.defender_state.surprised or setup.defender_state.reads_exposed,
        result_bits["defensive"],
        result_bits["epic"],
        setup.options.ranged,
        bool(setup.maneuvers) or setup.options.superiority > 0,
    )


@cache
def _rulings_for(
    boon_bane: bool, placed: bool, reading: bool, defensive: bool, epic: bool, ranged: bool,
    maneuvers: bool,
) -> tuple[str, ...]:  # fmt: skip
    """The rulings a Strike used, from the seven facts that decide the conditional ones."""
    used = ["M-6", "M-8", "M-9", "M-10", "M-11", "M-12", "M-13", "M-14", "M-17", "M-18",
            "M-20", "M-21", "M-22", "M-25", "M-26", "M-28"]  # fmt: skip
    conditional = {
        "M-2": True,
        "M-7": boon_bane,
        "M-15": placed,
        "M-19": reading,
        "M-23": defensive,
        "M-24": epic,
        "M-27": ranged,
        "M-29": maneuvers,
    }
    used += [rid for rid, on in conditional.items() if on]
    return tuple(sorted(set(used), key=lambda r: int(r.split("-")[1])))


# --- the pipeline -----------------------------------------------------------------------------


def roll_strike(setup: StrikeSetup, rng: Rng) -> StrikeResult:
    """Roll the dice with ``rng`` (Boon/Bane extras included) and resolve the Strike."""
    _check_options(setup)
    cost = strike_cost(setup)
    reach = check_range(setup, cost)
    roll = roll_natural(rng, net_boon(setup.options.boon, setup.options.bane))
    return resolve_strike(setup, roll, cost, reach)


def strike_with_dice(setup: StrikeSetup, rolled: tuple[int, ...]) -> StrikeResult:
    """Resolve the Strike from dice already rolled (physical dice typed in, in order rolled)."""
    _check_options(setup)
    cost = strike_cost(setup)
    reach = check_range(setup, cost)
    roll = natural_roll_from(rolled, net_boon(setup.options.boon, setup.options.bane))
    return resolve_strike(setup, roll, cost, reach)


def resolve_strike(
    setup: StrikeSetup, roll: NaturalRoll, cost: StrikeCost, reach: Reach | None
) -> StrikeResult:
    """Adjust and resolve a Strike whose natural roll is known."""
    precision, guard, force = (
        effective_precision(setup),
        effective_guard(setup),
        effective_force(setup),
    )
    adjusting = plan_adjustments(setup, precision, guard)
    reading = strike_reading(setup)
    natural = roll.natural
    epic = EpicState.of(natural, reading)
    final, adjustments = _adjust(setup, natural, reading, adjusting)
    outcome = Outcome.of(Tally.of(final, reading), _ignore_stops(setup), setup.melee)
    effects = strike_effects(setup, outcome)
    wear = strike_wear(setup, outcome, force, effects)
    defensive_hits, striker_wear = defensive_wear(setup, outcome)
    defender_after, defender_lowered = _apply_to_defender(setup, epic, wear)
    striker_after, striker_lowered = _apply_to_striker(setup, epic, striker_wear)
    epic_consequence = epic.unpaired_twelves >= 3 or (setup.melee and epic.unpaired_ones >= 3)
    bits = {"defensive": defensive_hits > 0, "epic": epic_consequence}
    return StrikeResult(
        setup, cost, reach, precision, guard, force, adjusting, roll, reading, epic, adjustments,
        final, outcome, effects, wear, defensive_hits, striker_wear, defender_lowered,
        striker_lowered, defender_after, striker_after, _rulings(setup, bits),
    )  # fmt: skip
