"""Attacking in a Realm of Strife fight (S-7 … S-17).

An Action of up to four attacks under the 4-3-2 rule, an Attack of Opportunity on offer, and
Impale (a Reaction to a foe's Move into melee range).

Each attack's setup is built here (:func:`attack_setup`: equipment, training, reach, range,
penalties, the Reaction declared with it) and rolled by ``tableside.strife.attack``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from tableside.dice import Rng, ScriptedRng
from tableside.encounter.strife import forced
from tableside.encounter.strife.acts import take_reactions
from tableside.encounter.strife.args import CONTACT, AooArgs, AttackArgs, AttackItem, ImpaleArgs
from tableside.encounter.strife.cast import resolve_combined
from tableside.encounter.strife.dice import AttackStages, Entered, entered_dice
from tableside.encounter.strife.reactions import declare_reaction
from tableside.encounter.strife.state import Model, condition_json
from tableside.encounter.strife.turns import FightRules, Pending, use_element
from tableside.encounter.war.args import parse_args
from tableside.errors import RulesError
from tableside.majesty.geometry import distance
from tableside.strife import reactions as react
from tableside.strife.attack import (
    AttackResult,
    AttackSetup,
    resolve_impale,
    roll_attack,
    roll_attack_in_stages,
)
from tableside.strife.casting import combined_damage_setup
from tableside.strife.catalog import Weapon
from tableside.strife.limits import PlannedAttack, check_4_3_2
from tableside.strife.loadout import effective_ac, loadout
from tableside.strife.penalties import PenaltyContext, attack_range, usable_reach
from tableside.strife.records import Part
from tableside.strife.report import attack_dict, stat_test_dict
from tableside.strife.turns import TurnElement


def do_aoo(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Take an Attack of Opportunity on offer; the first one spends the Reaction (S-4, S-18)."""
    args = parse_args(AooArgs, raw, "aoo")
    forced.check_taunted_targets(p.state, p.model(args.attacker), [args.target], "aoo")  # SA-91
    offer = next((o for o in p.state.offers if (o.attacker, o.target, o.weapon)
                  == (args.attacker, args.target, args.weapon)), None)  # fmt: skip
    if offer is None:
        raise RulesError(
            f"{args.attacker} has no Attack of Opportunity with {args.weapon} on {args.target}."
        )
    if args.attacker not in p.state.aoo.used:
        if not p.state.rounds.can_react(args.attacker):
            raise RulesError(f"{args.attacker} has already used its Reaction this round (S-4).")
        p.emit("reaction_spent", "S-4", id=args.attacker, failed_parry=False, reason="AoO")
    p.emit("aoo_used", "S-18", attacker=args.attacker, weapon=args.weapon, target=args.target)
    item = AttackItem(defender=args.target, weapon=args.weapon)
    resolve_attack(game, p, p.model(args.attacker), item, rng, free_attack=True)


def do_attack(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """An Action of attacks: 4-3-2 for player characters (S-17); the Action ends the Turn."""
    args = parse_args(AttackArgs, raw, "attack")
    attacker = p.model(args.attacker)
    use_element(p, attacker.id, TurnElement.ACTION)
    # A model that holds no weapon names one with each attack (SA-45): no default is needed.
    args = args.model_copy(update={"attacks": default_weapons(game, attacker, args.attacks)})
    planned = [PlannedAttack(a.defender, planned_weapon(game, attacker, a)) for a in args.attacks]
    forced.check_shield_blows(game.catalog, attacker, args.attacks)  # SA-73
    forced.check_taunted_targets(p.state, attacker, [a.defender for a in args.attacks])  # SA-71
    check_allowance(
        game,
        attacker,
        [w.weapon for w, a in zip(planned, args.attacks, strict=True) if not a.shield_blow],
    )
    if sum(1 for a in args.attacks if a.power is not None) > 1:
        raise RulesError(
            "Only one attack of an Action carries a power: the main-hand attack (SA-66)."
        )
    check_4_3_2(planned, npc=attacker.sheet.npc)
    entered = physical_dice(args, rng)
    take_reactions(p, attacker.id, [a.defender for a in args.attacks], False, args.reactions,
                   rng)  # SA-96  # fmt: skip
    for index, item in enumerate(args.attacks):
        if p.model(item.defender).down:
            continue
        stages = None if entered is None else (entered, index)
        resolve_attack(game, p, p.model(attacker.id), item, rng, stages=stages)
        if item.thrown:  # the weapon leaves the hand (SA-72)
            forced.throw_away(p, attacker.id, planned[index].weapon, item.defender)
    if entered is not None:
        entered.finish()


def physical_dice(args: AttackArgs, rng: Rng) -> Entered | None:
    """The Action's physical dice entered stage by stage, or None: all from ``rng`` (D-6)."""
    if not args.physical:
        if args.rolled:
            raise RulesError("rolled gives dice, but physical names nobody who rolls them.")
        return None
    if isinstance(rng, ScriptedRng):
        raise RulesError(
            "Give physical dice either all at once (dice) or stage by stage (physical and "
            "rolled), not both."
        )
    return entered_dice(args.physical, args.rolled, len(args.attacks))


def check_allowance(game: FightRules, attacker: Model, weapons: Sequence[str]) -> None:
    """An Action's attacks: one with each weapon held (main hand, off hand), each once (SA-46).

    A model with no weapon equipped makes one attack. ``extra_attacks`` on the sheet (skills,
    abilities, enchants) adds attacks, with any weapon held; 4-3-2 stays the ceiling for a
    player character (S-17).
    """
    held = [w.name for w in loadout(game.catalog, attacker.sheet).weapons]
    extra = attacker.sheet.extra_attacks
    allowed = max(1, len(held)) + extra
    if len(weapons) > allowed:
        listed = " and ".join(held) or "no weapon equipped"
        raise RulesError(
            f"{attacker.id} may make {allowed} attack(s) in one Action (one with each weapon "
            f"held: {listed}; {extra} extra), not {len(weapons)} (SA-46)."
        )
    if extra == 0:
        names = [game.catalog.weapon(w).name for w in weapons]
        twice = next((w for w in names if names.count(w) > max(1, held.count(w))), None)
        if twice is not None:
            raise RulesError(
                f"{attacker.id} attacks with its {twice} once per Action; a second attack "
                "needs a second weapon or an ability that grants one (SA-46)."
            )


def default_weapons(
    game: FightRules, m: Model, items: Sequence[AttackItem]
) -> tuple[AttackItem, ...]:
    """Each attack that names no weapon takes the next weapon held (SA-92).

    "If an off hand weapon is equipped, a regular attack may also be made with the off-hand
    weapon": the weapons held are taken in order (main hand, off hand), skipping those the
    Action's other attacks name; once all are taken (attacks granted beyond them, SA-46), the
    main hand again. A Shield Blow strikes with the shield (SA-73); a model holding no weapon
    names one with each attack (SA-45).
    """
    held = [w.name for w in loadout(game.catalog, m.sheet).weapons]
    if not held:
        return tuple(items)
    taken = [game.catalog.weapon(i.weapon).name for i in items
             if i.weapon is not None and not i.shield_blow]  # fmt: skip
    out = []
    for item in items:
        if item.weapon is None and not item.shield_blow:
            free = [w for w in dict.fromkeys(held) if taken.count(w) < held.count(w)]
            chosen = free[0] if free else held[0]
            taken.append(chosen)
            item = item.model_copy(update={"weapon": chosen})
        out.append(item)
    return tuple(out)


def planned_weapon(game: FightRules, m: Model, item: AttackItem) -> str:
    """The weapon an attack item names: the shield for a Shield Blow (SA-73), else its own."""
    if item.shield_blow:
        return forced.shield_blow_weapon(game.catalog, m.sheet).name
    return game.catalog.weapon(item.weapon or _default_weapon(game, m)).name


def _default_weapon(game: FightRules, m: Model) -> str:
    weapons = loadout(game.catalog, m.sheet).weapons
    if not weapons:
        raise RulesError(f"{m.id} has no weapon equipped; name one with the attack.")
    return weapons[0].name


def resolve_attack(
    game: FightRules,
    p: Pending,
    attacker: Model,
    item: AttackItem,
    rng: Rng,
    free_attack: bool = False,
    stages: tuple[Entered, int] | None = None,
) -> None:
    """Roll one attack with the defender's reaction and apply damage and conditions.

    ``stages``: the Action's physical dice and this attack's index in it (D-6); None: every
    die from ``rng``.
    """
    defender = p.model(item.defender)
    setup = attack_setup(game, p, attacker, item, free_attack)
    if item.power is not None:
        if stages is not None:
            raise RulesError(
                "A combined attack's dice come from the stream or typed at once (dice), not "
                "stage by stage (physical)."
            )
        resolve_combined(game, p, (attacker, defender), item.power, setup, rng)
        return
    if stages is None:
        result = roll_attack(setup, rng)
    else:
        entered, index = stages
        source = AttackStages(entered, rng, index, setup, attacker.id, defender.id, item.precision)
        result = roll_attack_in_stages(setup, source)
    p.emit("attack_resolved", "S-7", attacker=attacker.id, defender=defender.id,
           result=attack_dict(result) if p.describe else None)  # fmt: skip
    apply_attack(p, attacker.id, defender.id, result)
    forced.crushing_injury(p, attacker.id, defender.id, item.crushing_injury, result)  # SA-74


def attack_setup(
    game: FightRules, p: Pending, attacker: Model, item: AttackItem, free_attack: bool = False
) -> AttackSetup:
    """One attack's setup from the fight's state: weapon, reach, reaction, AC (S-7, S-10 … S-14).

    Refuses an attack on oneself, out of reach (unless ``free_attack``) or with a reaction that
    cannot be declared. The fight and the web table's odds both build attacks here.
    """
    defender = p.model(item.defender)
    if defender.id == attacker.id:
        raise RulesError(f"{attacker.id} cannot attack itself.")
    if item.shield_blow:  # the shield is held: it strikes (S-16, SA-73)
        weapon = forced.shield_blow_weapon(game.catalog, attacker.sheet)
    else:
        weapon = game.catalog.weapon(item.weapon or _default_weapon(game, attacker))
        check_held(game, attacker, weapon)
    context = penalty_context(game, attacker, weapon, item.thrown)
    context = replace(context, underwater=defender.submerged)  # S-16, SA-76
    check_ranged_contact(attacker, defender, weapon, context.thrown)
    if not free_attack:
        check_reach(attacker, defender, weapon, context)
    reaction = declare_reaction(game, p, defender, item.reaction, item)
    setup = AttackSetup(attacker.sheet, defender.sheet, weapon, precision=item.precision,
                        hit_modifiers=(*(Part("modifier", m) for m in item.modifiers),
                                       *forced.situational_parts(item.situational)),
                        defender_ac=effective_ac(game.catalog, defender.sheet).value,
                        reaction=reaction, ruleset=game.ruleset, context=context)  # fmt: skip
    if item.combined_damage:
        if item.power is not None:
            raise RulesError(
                "An attack is either a combined attack with a power (its portions apart) or "
                "Combined Damage without portions, not both (S-9)."
            )
        return combined_damage_setup(setup, item.combined_damage)  # lowest AC/Resistance (S-9)
    return setup


def penalty_context(
    game: FightRules, attacker: Model, weapon: Weapon, thrown: bool = False
) -> PenaltyContext:
    """The S-16 circumstances of an attack from the fight's state (SA-47, SA-69).

    Moving and shooting counts the whole inches the attacker moved this Turn; a shooter above
    the ground (z > 0) is flying unless it climbed there (SA-90); holding a weapon in each hand
    is dual wielding, whichever hand attacks; ``thrown`` throws the weapon. Whether the
    defender is under water is set by the caller (SA-76).
    """
    held = loadout(game.catalog, attacker.sheet).weapons
    other = None
    if len(held) == 2:  # the attacking hand is the first holding this weapon
        other = held[1] if held[0].name == weapon.name else held[0]
    return PenaltyContext(
        inches_moved=int(attacker.moved),
        flying=forced.flying(attacker),  # SA-77, SA-90
        other_hand=other,
        thrown=thrown,
    )


def check_ranged_contact(
    attacker: Model, defender: Model, weapon: Weapon, thrown: bool = False
) -> None:
    """No ranged or thrown attack on a target in base contact, unless otherwise stated (SA-48)."""
    if (weapon.ranged or thrown) and distance(attacker.position, defender.position) <= CONTACT:
        act = (
            f"throw {weapon.name} at {defender.id}"
            if thrown
            else f"shoot {defender.id} with {weapon.name}"
        )
        raise RulesError(
            f"{attacker.id} cannot {act}: ranged attacks cannot be used against a target in "
            "base contact (SA-48)."
        )


def check_held(game: FightRules, attacker: Model, weapon: Weapon) -> None:
    """An armed model attacks only with a weapon it holds (SA-45).

    A model with no weapon equipped may name a catalogue weapon (its natural weapons, or an
    improvised one), as before.
    """
    held = loadout(game.catalog, attacker.sheet).weapons
    if held and weapon.name not in {w.name for w in held}:
        names = " and ".join(w.name for w in held)
        raise RulesError(f"{attacker.id} does not hold a {weapon.name}: it holds {names} (SA-45).")


def check_reach(
    attacker: Model, defender: Model, weapon: Weapon, context: PenaltyContext | None = None
) -> None:
    """Melee needs base contact (plus the weapon's Reach); ranged, the weapon's range (SA-37).

    Untrained, a weapon has no Reach: base contact only (S-24). Thrown, its range is the
    Thrown range (halved untrained), or STR / 2 for an item not made to be thrown (S-16, SA-69).
    """
    gap = distance(attacker.position, defender.position)
    context = context or PenaltyContext()
    if weapon.ranged or context.thrown:
        gap = forced.water_gap(attacker, defender, gap)  # through water, 2 an inch (SA-76)
        limit = attack_range(attacker.sheet, weapon, context) or Fraction(0)
        what = f"{weapon.name} thrown" if context.thrown else weapon.name
        if gap > limit:
            raise RulesError(
                f'{defender.id} is {gap:.1f}" away, beyond the range of {what} ({float(limit):g}").'
            )
    elif gap > CONTACT + (reach := usable_reach(attacker.sheet, weapon)):
        untrained = "" if reach == weapon.reach else ", untrained: S-24"
        raise RulesError(
            f"{attacker.id} must be in base contact with {defender.id} to attack with "
            f'{weapon.name} (Reach {reach}{untrained}); the distance is {gap:.1f}".'
        )


def apply_attack(p: Pending, attacker: str, defender: str, result: AttackResult) -> None:
    """Spend the reaction, deal damage, put conditions on (S-7, S-10 … S-14, S-23)."""
    if result.setup.reaction is not None:
        failed = (
            result.reaction is not None
            and result.reaction.verdict.value == "failure"
            and (result.setup.reaction.family == react.Family.PARRY)
        )
        p.emit("reaction_spent", "S-4", id=defender, failed_parry=failed, reason="reaction")
    if result.total_damage:
        hp = max(0, p.model(defender).sheet.hp - result.total_damage)
        p.emit("hp_set", "S-14", id=defender, hp=hp, damage=result.total_damage, source=attacker)
    for inflicted in result.inflicted:
        who = attacker if inflicted.target == "attacker" else defender
        p.emit("condition_added", "S-23", id=who, condition=condition_json(inflicted.condition))


def do_impale(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Impale: the foe just moved into melee range; an Initiative test, then an attack (S-13).

    Declared after the foe's Move and before any other roll of its Turn (SA-64): a Reaction of
    the impaler's; on a passed Initiative test a regular main-hand attack with the impaling
    weapon, +1 damage per whole straight-line inch of that Move (SA-22). The foe then goes on.
    """
    args = parse_args(ImpaleArgs, raw, "impale")
    impaler, target = p.model(args.impaler), p.model(args.target)
    weapon = game.catalog.weapon(args.weapon or _default_weapon(game, impaler))
    inches = impale_window(p, impaler, target, weapon)
    if not p.state.rounds.can_react(impaler.id):
        raise RulesError(f"{impaler.id} has already used its Reaction this round (S-4).")
    react.impale(impaler.sheet, weapon)  # an Impale weapon its wielder is trained with
    item = AttackItem(defender=target.id, weapon=weapon.name, reaction=args.reaction)
    setup = attack_setup(game, p, impaler, item)
    setup = replace(setup, context=replace(setup.context, inches_moved=0, flying=False))
    p.emit("reaction_spent", "S-13", id=impaler.id, failed_parry=False, reason="Impale")
    result = resolve_impale(setup, inches, rng)
    p.emit("test_resolved", "S-13", id=impaler.id, purpose=f'Impale Initiative test ({inches}")',
           result=stat_test_dict(result.test) if p.describe else None)  # fmt: skip
    if result.attack is None:
        return
    p.emit("attack_resolved", "S-13", attacker=impaler.id, defender=target.id,
           result=attack_dict(result.attack) if p.describe else None, impale=inches)  # fmt: skip
    apply_attack(p, impaler.id, target.id, result.attack)


def impale_window(p: Pending, impaler: Model, target: Model, weapon: Weapon) -> int:
    """The whole straight-line inches of the Move an Impale answers (S-13, SA-22, SA-64).

    Refused unless ``target`` is the model whose Turn it is, its last Turn element was a Move
    with nothing after it, and that Move brought it from beyond the impaling weapon's melee
    range (base contact plus Reach) into it.
    """
    last = p.state.last_move
    if last is None or last[0] != target.id or p.state.current != target.id:
        raise RulesError(
            f"An Impale answers a Move just made, before any other roll: {target.id} has not "
            "just moved (S-13)."
        )
    if impaler.side == target.side:
        raise RulesError(f"{impaler.id} cannot Impale {target.id}, a model of its own side.")
    reach = CONTACT + usable_reach(impaler.sheet, weapon)
    before = distance(last[1], impaler.position)
    after = distance(target.position, impaler.position)
    if after > reach or before <= reach:
        where = "did not come into" if after > reach else "was already within"
        raise RulesError(
            f"{target.id} {where} the melee range of {impaler.id}'s {weapon.name} ({reach:g}\") "
            "with this Move, so it cannot be impaled (S-13)."
        )
    return int(last[2])
