"""Casting in a Realm of Strife fight (S-14, S-15).

A Power's plan, targets, rolls, blocks and cost, and a Power combined with an attack.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from tableside.dice import Rng
from tableside.encounter.strife import forced
from tableside.encounter.strife.acts import take_reactions
from tableside.encounter.strife.args import CONTACT, CastArgs
from tableside.encounter.strife.reactions import declare_reaction
from tableside.encounter.strife.state import Model, condition_json
from tableside.encounter.strife.turns import FightRules, Pending, use_element
from tableside.encounter.war.args import parse_args
from tableside.errors import RulesError
from tableside.majesty.geometry import distance
from tableside.strife import reactions as react
from tableside.strife.attack import AttackSetup
from tableside.strife.casting import (
    CastDice,
    CastResult,
    CastSetup,
    CombinedResult,
    CombinedSetup,
    Power,
    SpiritPortion,
    cast_on_roll,
    cast_with_dice,
    roll_cast,
    roll_combined,
    spell_power_share,
)
from tableside.strife.catalog import (
    TARGETS_MAX,
    Catalog,
    PowerEntry,
    PowerRoll,
    PowerTargets,
    Resource,
)
from tableside.strife.conditions import condition
from tableside.strife.hit import D100
from tableside.strife.loadout import loadout
from tableside.strife.report import cast_dict, combined_dict
from tableside.strife.turns import TurnElement


def combined_power(
    game: FightRules, pair: tuple[Model, Model], name: str, setup: AttackSetup
) -> CastPlan:
    """The catalogue's combined power an attack carries, checked against the attack (SA-66).

    It rides the main-hand attack only (the Combat page: skill-based attacks apply to the main
    hand), a touch power only a melee attack, a ranged one a ranged attack within its range.
    """
    attacker, defender = pair
    entry = game.catalog.power(name)
    if entry.roll != PowerRoll.COMBINED:
        raise RulesError(
            f"{entry.name} makes a casting roll of its own: cast it; only a combined power rides "
            "an attack (S-9, SA-66)."
        )
    held = loadout(game.catalog, attacker.sheet).weapons
    if held and setup.weapon.name != held[0].name:
        raise RulesError(
            f"{entry.name} rides the main-hand attack ({held[0].name}), not the "
            f"{setup.weapon.name} (SA-66)."
        )
    if entry.touch == setup.ranged:
        kind = "a melee" if entry.touch else "a ranged"
        raise RulesError(
            f"{entry.name} rides {kind} attack, not one with {setup.weapon.name} (SA-66)."
        )
    gap = distance(attacker.position, defender.position)
    if not entry.touch and gap > float(entry.range):
        raise RulesError(
            f'{defender.id} is {gap:.1f}" away, beyond the range of {entry.name} '
            f'({float(entry.range):g}") (SA-66).'
        )
    power = Power(entry.name, entry.element, entry.damage, entry.blockable, entry.dodge_allowed)
    return CastPlan(power, entry, False, False, entry.resistible, entry.cost, entry.resource)


def resolve_combined(
    game: FightRules,
    p: Pending,
    pair: tuple[Model, Model],
    name: str,
    setup: AttackSetup,
    rng: Rng,
) -> None:
    """A physical attack with a spirit portion on the same hit roll (S-9, SA-18, SA-66).

    The power's cost is spent first (even if the attack misses); both portions' damage comes
    off the defender's HP; the weapon's conditions apply as for any attack.
    """
    attacker, defender = pair
    plan = combined_power(game, pair, name, setup)
    spend_cost(p, p.model(attacker.id), plan)
    combined = CombinedSetup(setup, SpiritPortion(plan.power), resists=plan.resists)
    result = roll_combined(combined, rng)
    p.emit("combined_resolved", "S-9", attacker=attacker.id, defender=defender.id,
           result=combined_dict(result) if p.describe else None)  # fmt: skip
    apply_combined(p, attacker.id, defender.id, result)


def apply_combined(p: Pending, attacker: str, defender: str, result: CombinedResult) -> None:
    """Spend the defender's reaction, deal both portions' damage, put conditions on (S-9)."""
    reaction = result.setup.attack.reaction
    if reaction is not None:
        failed = (
            result.reaction is not None
            and result.reaction.verdict.value == "failure"
            and reaction.family == react.Family.PARRY
        )
        p.emit("reaction_spent", "S-4", id=defender, failed_parry=failed, reason="reaction")
    dealt = sum(d.total for d in (result.physical_damage, result.spirit_damage) if d is not None)
    if dealt:
        hp = max(0, p.model(defender).sheet.hp - dealt)
        p.emit("hp_set", "S-14", id=defender, hp=hp, damage=dealt, source=attacker)
    for inflicted in result.inflicted:
        who = attacker if inflicted.target == "attacker" else defender
        p.emit("condition_added", "S-23", id=who, condition=condition_json(inflicted.condition))


@dataclass(frozen=True, slots=True)
class CastPlan:
    """What a cast does, from the catalogue's power and the command's own fields (SA-60).

    ``entry`` is the catalogue's power (None for a power typed by hand).
    """

    power: Power
    entry: PowerEntry | None
    separate_rolls: bool
    instant: bool
    resists: bool
    cost: int
    resource: Resource | None


def cast_plan(catalog: Catalog, args: CastArgs) -> CastPlan:
    """The power cast: the catalogue's, with the command's explicit fields over it (SA-60)."""
    entry = catalog.find_power(args.power)
    if entry is None:
        if args.element is None:
            known = ", ".join(e.name for e in catalog.powers.values()) or "none"
            raise RulesError(
                f"{args.power!r} is not a power of the catalogue (known: {known}); a power "
                "typed by hand needs its element (SA-60)."
            )
        power = Power(args.power, args.element, args.damage)
        return CastPlan(power, None, args.separate_rolls, args.instant, args.resists,
                        args.cost or 0, args.resource)  # fmt: skip
    if entry.roll == PowerRoll.COMBINED:
        raise RulesError(
            f"{entry.name} is the spirit portion of a weapon attack (S-9): make it with attack "
            "and its power, not with cast (SA-60)."
        )
    power = Power(entry.name, args.element or entry.element,
                  args.damage if args.damage is not None else entry.damage,
                  entry.blockable, entry.dodge_allowed)  # fmt: skip
    separate = args.separate_rolls or entry.targets == PowerTargets.SEPARATE_ROLLS
    cost = entry.cost if args.cost is None else args.cost
    resource = args.resource or entry.resource
    instant = args.instant or entry.timing == "instant"
    return CastPlan(power, entry, separate, instant, args.resists and entry.resistible, cost,
                    resource)  # fmt: skip


def offensive(plan: CastPlan) -> bool:
    """An offensive power: the catalogue's flag; typed by hand, one dealing damage (SA-91)."""
    if plan.entry is not None:
        return plan.entry.offensive
    return plan.power.damage is not None


def check_power_targets(p: Pending, caster: Model, plan: CastPlan, targets: Sequence[str]) -> None:
    """A catalogue power's targets: how many, and each within its range (SA-60, SA-61).

    A touch power needs base contact (1"); a ranged one its range in inches, and an offensive
    ranged power cannot target a model in base contact (the Combat page: "unless otherwise
    stated"; SA-61).
    """
    entry = plan.entry
    if entry is None:
        return
    most = entry.max_targets or (1 if entry.targets == PowerTargets.ONE else TARGETS_MAX)
    if len(targets) > most:
        raise RulesError(
            f"{entry.name} reaches at most {most} target(s), not {len(targets)} (SA-60)."
        )
    for name in targets:
        target = p.model(name)
        gap = distance(caster.position, target.position)
        if entry.touch:
            if gap > CONTACT and target.id != caster.id:
                raise RulesError(
                    f"{entry.name} is a touch power: {caster.id} must be in base contact with "
                    f'{target.id}, {gap:.1f}" away (SA-60).'
                )
            continue
        far = gap  # a projectile (Missile-type) power counts inches through water twice (SA-76)
        if entry.blockable or entry.dodge_allowed:
            far = forced.water_gap(caster, target, gap)
        if far > float(entry.range):
            raise RulesError(
                f'{target.id} is {far:.1f}" away, beyond the range of {entry.name} '
                f'({float(entry.range):g}") (SA-60).'
            )
        if entry.offensive and target.id != caster.id and gap <= CONTACT:
            raise RulesError(
                f"{caster.id} cannot cast {entry.name} on {target.id}: offensive ranged powers "
                "cannot be used against a target in base contact (SA-61)."
            )


def do_cast(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Cast a power (S-8); spell power is shared among the targets hit (S-15)."""
    args = parse_args(CastArgs, raw, "cast")
    caster = p.model(args.caster)
    plan = cast_plan(game.catalog, args)
    use_element(p, caster.id, TurnElement.INSTANT if plan.instant else TurnElement.ACTION)
    check_power_targets(p, caster, plan, args.targets)
    if offensive(plan):  # a Taunted caster's offensive power aims only at its taunter (SA-91)
        forced.check_taunted_targets(p.state, caster, args.targets, "power")
    take_reactions(p, caster.id, args.targets, True, args.reactions, rng)  # SA-96
    spend_cost(p, caster, plan)
    rolls = cast_rolls(game, p, caster, args, plan, rng)
    hit = sum(1 for r in rolls if r.damage is not None)
    share = spell_power_share(args.spell_power, hit, plan.separate_rolls) if hit else 0
    results = []
    for name, first in zip(args.targets, rolls, strict=True):
        result = first
        if first.damage is not None and share:
            result = cast_with_share(first, share)
        results.append(result)
        p.emit("cast_resolved", "S-8", caster=caster.id, target=name,
               result=cast_dict(result) if p.describe else None,
               spell_power=share)  # fmt: skip
        if result.damage is not None and result.damage.total:
            hp = max(0, p.model(name).sheet.hp - result.damage.total)
            p.emit("hp_set", "S-8", id=name, hp=hp, damage=result.damage.total, source=caster.id)
    if plan.entry is not None and plan.entry.effects:
        power_effects(p, caster, plan.entry, list(zip(args.targets, results, strict=True)), rng)


def power_effects(
    p: Pending,
    caster: Model,
    entry: PowerEntry,
    results: Sequence[tuple[str, CastResult]],
    rng: Rng,
) -> None:
    """A power's effects on each target it hit and no Block stopped (S-8 steps 2 and 3, SA-62).

    Guaranteed effects are put on at once; a % effect rolls a d100 (≤ its chance applies it),
    target by target after every target's damage, in the listed order.
    """
    source = f"{caster.id}'s {entry.name}"
    for name, result in results:
        stopped = result.reaction is not None and result.reaction.effect.stopped
        if not result.outcome.succeeds or stopped or p.model(name).down:
            continue
        for effect in entry.effects:
            if effect.chance is not None:
                natural = rng.roll(D100)
                applied = natural <= effect.chance
                p.emit("effect_rolled", "SA-62", id=name, name=effect.name,
                       chance=effect.chance, roll=natural, applied=applied)  # fmt: skip
                if not applied:
                    continue
            item = condition(effect.name, source, effect.rounds, effect.until)
            p.emit("condition_added", "SA-62", id=name, condition=condition_json(item))


def cast_rolls(
    game: FightRules, p: Pending, caster: Model, args: CastArgs, plan: CastPlan, rng: Rng
) -> list[CastResult]:
    """Each target's cast: one casting roll for all unless separate rolls (SA-49).

    A one-roll power over several targets is one casting roll, so a miscast (or a critical)
    is the cast's, met by every target; each target still resists, Blocks and takes damage on
    its own dice.
    """
    reactions = cast_blocks(game, p, plan, args)

    def setup(target: str) -> CastSetup:
        return CastSetup(caster.sheet, p.model(target).sheet, plan.power, resists=plan.resists,
                         reaction=reactions.get(target), ruleset=game.ruleset,
                         caster_submerged=caster.submerged,  # S-16, SA-76
                         target_submerged=p.model(target).submerged)  # fmt: skip

    if plan.separate_rolls:
        return [roll_cast(setup(t), rng) for t in args.targets]
    first = roll_cast(setup(args.targets[0]), rng)
    return [first, *(cast_on_roll(setup(t), first.natural, rng) for t in args.targets[1:])]


def cast_blocks(
    game: FightRules, p: Pending, plan: CastPlan, args: CastArgs
) -> dict[str, react.Reaction]:
    """Each Blocking target's Block of a blockable power (S-8 step 1b, S-10, SA-23, SA-68).

    Only a blockable (Missile-type) power can be Blocked, only by one of its targets, each with
    its round's Reaction (spent here); an improvised Block uses a weapon the target holds.
    """
    found: dict[str, react.Reaction] = {}
    for name, kind in args.blocks.items():
        if name not in args.targets:
            raise RulesError(f"{name} is not a target of this {plan.power.name}.")
        if not plan.power.blockable:
            raise RulesError(
                f"{plan.power.name} cannot be Blocked: only a blockable (Missile-type) power "
                "can (S-8, S-10)."
            )
        target = p.model(name)
        reaction = declare_reaction(game, p, target, kind)
        if reaction is not None:
            found[name] = reaction
            p.emit("reaction_spent", "S-4", id=name, failed_parry=False, reason="reaction")
    return found


def spend_cost(p: Pending, caster: Model, plan: CastPlan) -> None:
    """Spend the power's cost from the caster's resource, miscast or not (SA-49)."""
    if not plan.cost:
        return
    if plan.resource is None:
        raise RulesError(f"A cost of {plan.cost} needs the resource it is paid from.")
    pools = caster.sheet.resources
    pool = pools.get(plan.resource)
    have = 0 if pool is None else pool.current
    if pool is None or have < plan.cost:
        raise RulesError(
            f"{caster.id} has {have} {plan.resource.value}, not the {plan.cost} "
            f"{plan.power.name} costs (SA-49)."
        )
    after = {**pools, plan.resource: pool.model_copy(update={"current": have - plan.cost})}
    spent = {k.value: v.model_dump(mode="json") for k, v in after.items()}
    p.emit("resources_set", "SA-49", id=caster.id, resources=spent, spent=plan.cost)


def cast_with_share(first: CastResult, share: int) -> CastResult:
    """The same casting roll and dice with the target's spell-power share added (S-15)."""
    rolls = () if first.damage is None else first.damage.rolls
    reaction = None if first.reaction is None else first.reaction.test.natural
    dice = CastDice(first.natural, reaction, rolls)
    return cast_with_dice(replace(first.setup, spell_power=share), dice)
