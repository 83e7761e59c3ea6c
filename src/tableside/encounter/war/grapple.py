"""Grappling and Entangling (M-37).

Who holds whom, breaking free, the Grappler's 2-AP Strike on the one it holds and a Grappled
elohim swung as a weapon.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from tableside.dice import Rng
from tableside.dice import Side as AdjustSide
from tableside.encounter.war.args import (
    IdArgs,
    StrikeArgs,
    cached_args,
)
from tableside.encounter.war.pending import (
    Pending,
    Rules,
    add_exertion,
    clip,
    deal_wear,
    require_awake,
    require_free,
    run_check,
    spend_ap,
)
from tableside.encounter.war.state import Combatant, WarState
from tableside.errors import RulesError
from tableside.majesty import special
from tableside.majesty.adjust import Step
from tableside.majesty.catalog import Weapon
from tableside.majesty.character import Attribute, WearKind
from tableside.majesty.checks import CheckSetup
from tableside.majesty.strike import (
    StrikeResult,
    StrikeSetup,
)
from tableside.majesty.wear import Part


def grappling(state: WarState, who: str) -> list[Combatant]:
    """Everyone ``who`` is Grappling (M-37); the Entangled are held by a source, not by it."""
    return [
        c
        for c in state.combatants.values()
        if c.grappled_by == who and c.entangled_strength is None
    ]


def holder_might(state: WarState, grappler: str) -> int:
    """The Grappler's Might against each one it holds: split evenly when it holds two (M-37)."""
    might = state.get(grappler).character.referenced(Attribute.MIGHT)
    return special.grappler_might(might, len(grappling(state, grappler)))


def check_grappler_target(
    state: WarState, striker: Combatant, defender: Combatant, held: list[Combatant]
) -> None:
    """A Grappler may Strike others only with 40 more Might than each one it holds (M-37).

    Holding two, its Might is split evenly between them (M-37, A-36).
    """
    if not held or defender in held:
        return
    might = holder_might(state, striker.id)
    for grappled in held:
        options = special.grappler_options(might, grappled.character.referenced(Attribute.MIGHT))
        if not options.strike_others:
            raise RulesError(
                f"{striker.id} is Grappling {grappled.id} and may Strike another Target only "
                "with at least 40 more Might (M-37)."
            )


def check_grapple(p: Pending, grappler: Combatant, target: Combatant) -> None:
    """One more Grapple: a second only with 40 more Might than the one held, never a third."""
    if grappler.id == target.id:
        raise RulesError(f"{grappler.id} cannot Grapple itself.")
    require_free(grappler, "Grapple")
    held = [h for h in grappling(p.state, grappler.id) if h.id != target.id]
    if not held:
        return
    might = grappler.character.referenced(Attribute.MIGHT)
    why = special.second_grapple_allowed(
        might, [h.character.referenced(Attribute.MIGHT) for h in held]
    )
    if why is not None:
        raise RulesError(
            f"{grappler.id} (Might {might}) cannot Grapple {target.id} as well as "
            f"{', '.join(h.id for h in held)}: {why} (M-37, A-36)."
        )


def release(p: Pending, who: str) -> None:
    """No longer Grappled or Entangled (M-37)."""
    c = p.combatant(who)
    p.emit("condition_set", "M-37", id=who, name="grappled_by", value=None)
    if c.entangled_strength is not None:
        p.emit("condition_set", "M-37", id=who, name="entangled_strength", value=None)


def do_break_free(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """3 AP and 3 Exertion per attempt; a Might Check against the Grappler (M-37)."""
    args = cached_args(IdArgs, raw, "break_free")
    c = p.combatant(args.id)
    if c.grappled_by is None:
        raise RulesError(f"{c.id} is not Grappled or Entangled.")
    require_awake(c, "break free")
    held_against(p, c)  # refuse before spending anything
    spend_ap(p, c.id, special.BREAK_FREE_AP, "break free")
    add_exertion(p, c.id, special.BREAK_FREE_EXERTION, True, "break free")
    setup = special.break_free_check(c.character.referenced(Attribute.MIGHT), held_against(p, c))
    if special.breaks_free(run_check(p, c.id, setup, rng, "break free Might Check", "M-37")):
        release(p, c.id)


def held_against(p: Pending, c: Combatant) -> int:
    """What breaking free is a Check against: the Grappler's Might or the source's strength.

    Entangled: the Entangling source's strength (Bind: its Resolve Allotment, M-37, A-38).
    Grappled: the Grappler's Might, split when it holds two (A-36).
    """
    if c.entangled_strength is not None:
        return c.entangled_strength
    holder = p.state.combatants.get(c.grappled_by or "")
    if holder is None:
        raise RulesError(
            f"{c.id} is held by {clip(c.grappled_by or '')!r}, which is no combatant and has no "
            "strength to break free against; apply entangled with its strength as --amount "
            "(M-37, A-38)."
        )
    return holder_might(p.state, holder.id)


# Strike options that belong to a Strike Roll, by their command-line names (M-37, A-35).
NOT_IN_GRAPPLER_STRIKE = {
    "maneuvers": "--maneuver", "ranged": "--ranged", "path": "--path",
    "full_defensive_stance": "--full-defensive-stance", "ignore_stops": "--ignore-stops",
    "superiority": "--superiority", "interpose": "interpose",
}  # fmt: skip


def grappler_strike(
    game: Rules, p: Pending, args: StrikeArgs, striker: Combatant, defender: Combatant,
    rng: Rng,
) -> None:  # fmt: skip
    """The Grappler's 2-AP Strike on the one it Grapples: a Might vs Might Check (M-37, A-35).

    Its net Passes are the Strike's Hits (Wear by the Grappler's Force and weapon, M-26); it
    costs 2 AP and 2 Exertion and keeps the Grapple.
    """
    for name, option in NOT_IN_GRAPPLER_STRIKE.items():
        if getattr(args, name):
            raise RulesError(
                f"{striker.id}'s 2-AP Strike on {defender.id}, whom it Grapples, is a Might Check, "
                f"not a Strike Roll: {option} does not apply (M-37, A-35)."
            )
    weapon = game.catalog.weapon(args.weapon or striker.character.weapon)
    spend_ap(p, striker.id, special.GRAPPLE_STRIKE_AP, "Strike")
    setup = grappler_check(p.state, args, striker, defender)
    result = run_check(p, striker.id, setup, rng, f"Grappler's Strike on {defender.id}", "M-37")
    flats = (Part("flat Wear", args.wear_flat),) if args.wear_flat else ()
    percents = tuple(
        Part(label, amount)
        for label, amount in ((weapon.name, weapon.wear_percent), ("% Wear", args.wear_percent))
        if amount
    )
    line = special.grapple_strike_wear(
        weapon.wear_kind,
        special.grapple_strike_hits(result),
        striker.character.war.force,
        flats,
        percents,
    )
    deal_wear(p, defender.id, line.kind.value, line.amount, "Grappler's Strike", "M-37")
    add_exertion(p, striker.id, special.GRAPPLE_STRIKE_EXERTION, True, "Grappler's Strike")


def grappler_check(
    state: WarState, args: StrikeArgs, striker: Combatant, defender: Combatant
) -> CheckSetup:
    """The Grappler's Strike's Might Check with the Strike's Boon, tokens and Adjustments."""
    return replace(
        special.grapple_strike_check(
            holder_might(state, striker.id), defender.character.referenced(Attribute.MIGHT)
        ),
        boon=args.boon, bane=args.bane, raw_for=args.striker_adjustments,
        raw_against=args.defender_adjustments, inspiration=args.inspiration,
        obstruction=args.obstruction, mode=args.mode, steps=check_steps(args),
    )  # fmt: skip


def check_steps(args: StrikeArgs) -> tuple[Step, ...]:
    """A Strike's explicit Adjustments on a Check: the Striker rolls, the Defender opposes."""
    sides = {"striker": AdjustSide.ROLLER, "defender": AdjustSide.OPPONENT, None: None}
    return tuple(Step(s.die, s.delta, sides[s.side]) for s in args.steps)


@dataclass(frozen=True)
class BodyWeapon:
    """A Strike made with a Grappled elohim as the weapon (M-37, A-37)."""

    setup: StrikeSetup
    body: str
    defeated: bool
    body_endurance: int
    target_endurance: int


def body_weapon(
    p: Pending, setup: StrikeSetup, body_id: str, striker: Combatant, defender: Combatant
) -> BodyWeapon:
    """Swing a Grappled elohim at another Target: 80 more Might, WearE, +3 Force if Defeated."""
    body = p.combatant(body_id)
    if body.grappled_by != striker.id:
        raise RulesError(f"{striker.id} is not Grappling {body.id}, so it cannot Strike with it.")
    if body.id == defender.id:
        raise RulesError(
            f"{striker.id} cannot Strike {body.id} with {body.id}; its 2-AP Strike on the one it "
            "Grapples is --two-ap (M-37, A-35)."
        )
    might = holder_might(p.state, striker.id)
    if not special.grappler_options(
        might, body.character.referenced(Attribute.MIGHT)
    ).use_as_weapon:
        raise RulesError(
            f"{striker.id} (Might {might}) needs at least {special.BODY_WEAPON_MARGIN} more Might "
            f"than {body.id} to Strike with it as a weapon (M-37)."
        )
    if setup.options.ranged:
        raise RulesError(f"A Strike with {body.id} as the weapon is a Melee Strike, not Ranged.")
    weapon = Weapon(name=f"{body.id} (Grappled)", wear_kind=WearKind.E)
    force = setup.options.force + (special.DEFEATED_BODY_FORCE if body.defeated else 0)
    return BodyWeapon(
        replace(setup, weapon=weapon, options=replace(setup.options, force=force)),
        body.id,
        body.defeated,
        body.character.current_endurance,
        defender.character.current_endurance,
    )


def body_collision(p: Pending, body: BodyWeapon, result: StrikeResult, target: str) -> None:
    """A non-Defeated body used as a weapon: collision WearE to it and the Target (M-37, M-35).

    The body counts the Strike's Hits regardless of Stops, the Target only uncanceled Hits;
    both at the collision Force of their Endurances before the Strike (A-37).
    """
    if body.defeated:
        return
    wear = special.body_weapon_wear(
        body.body_endurance,
        body.target_endurance,
        result.outcome.hits,
        result.outcome.uncanceled_hits,
    )
    deal_wear(p, body.body, "E", wear.grappled, "used as a weapon (collision)", "M-37")
    deal_wear(p, target, "E", wear.struck, f"struck with {body.body} (collision)", "M-37")
