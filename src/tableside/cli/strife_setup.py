"""A Realm of Strife attack built from the options of ``strife attack`` and ``odds attack``."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from tableside.cli.parsing import InputError
from tableside.cli.strife_args import (
    find_model,
    labelled,
    load_catalog,
    non_negative,
    parse_ruleset,
    percent,
    with_values,
)
from tableside.errors import RulesError
from tableside.limits import MODIFIER_MAX, MODIFIERS_MAX, shown
from tableside.strife import reactions
from tableside.strife.attack import (
    AttackSetup,
    check_attack,
)
from tableside.strife.catalog import (
    Catalog,
    Combatant,
    Weapon,
)
from tableside.strife.loadout import effective_ac
from tableside.strife.penalties import PenaltyContext, WeaponUse
from tableside.strife.reactions import Family, Reaction
from tableside.strife.records import Part
from tableside.strife.size import WeaponSize, parse_weapon_size

REACTION_NAMES = (
    "block", "parry", "combined-parry", "block-and-parry", "improvised-block",
    "improvised-parry", "ward-off",
)  # fmt: skip


# --- attack pieces ----------------------------------------------------------------------------


def held_weapon(catalog: Catalog, sheet: Combatant, name: str | None, hand: str) -> Weapon:
    """A named weapon, or the sheet's main- or off-hand weapon."""
    chosen = name or (sheet.main_hand if hand == "main" else sheet.off_hand)
    if chosen is None:
        raise InputError(f"{sheet.name} has no {hand}-hand weapon; name one with --weapon.")
    return catalog.weapon(chosen)


def penalty_context(
    catalog: Catalog, attacker: Combatant, weapon: Weapon, moved: int, flying: bool,
    thrown: bool, underwater: bool, other_hand: str | None, dual: bool,
) -> PenaltyContext:  # fmt: skip
    """The S-16 circumstances of the attack."""
    non_negative(moved, "--moved")
    if other_hand is not None and dual:
        raise InputError("Give either --other-hand or --dual-wielding, not both.")
    other = None if other_hand is None else catalog.weapon(other_hand)
    if dual:
        main = (attacker.main_hand or "").lower()
        name = attacker.off_hand if weapon.name.lower() == main else attacker.main_hand
        if name is None:
            raise InputError(
                f"{attacker.name} has no other equipped weapon for --dual-wielding; name one "
                "with --other-hand."
            )
        other = catalog.weapon(name)
    return PenaltyContext(
        inches_moved=moved, flying=flying, other_hand=other, thrown=thrown, underwater=underwater
    )


def check_distance(setup: AttackSetup, use: WeaponUse, distance: float | None) -> None:
    """Refuse a melee weapon beyond its Reach, a ranged one in contact or beyond its range."""
    if distance is None:
        return
    non_negative(distance, "--distance")
    weapon = setup.weapon
    if not setup.ranged:
        if distance > use.reach:
            reach = f"Reach {use.reach}" if use.reach else "base contact"
            raise RulesError(
                f'{weapon.name} is a melee weapon ({reach}) and cannot attack at {distance:g}"; '
                "use --thrown to throw it."
            )
        return
    if distance == 0:
        raise RulesError("A ranged or thrown attack cannot target a model in base contact.")
    if use.range is not None and distance > use.range:
        raise RulesError(
            f"{setup.defender.name} at {distance:g}\" is beyond {weapon.name}'s range of "
            f'{float(use.range):g}" (S-16).'
        )


@dataclass(frozen=True, slots=True)
class ReactionChoice:
    """The reaction options as typed."""

    kind: str | None
    shield: str | None = None
    weapon: str | None = None
    off_weapon: str | None = None
    item: str | None = None
    item_size: str | None = None
    use: str | None = None
    advantage: tuple[int, ...] = ()


def build_reaction(
    choice: ReactionChoice, catalog: Catalog, defender: Combatant
) -> Reaction | None:
    """The declared reaction, built from the defender's equipment (S-10 … S-13)."""
    if choice.kind is None:
        extra = [name for name, value in (
            ("--shield", choice.shield), ("--reaction-weapon", choice.weapon),
            ("--reaction-off-weapon", choice.off_weapon), ("--item", choice.item),
            ("--item-size", choice.item_size), ("--reaction-use", choice.use),
            ("--reaction-advantage", choice.advantage or None)) if value is not None]  # fmt: skip
        if extra:
            raise InputError(f"{extra[0]} belongs to a declared reaction; add --reaction.")
        return None
    kind = choice.kind.lower().replace("_", "-")
    if kind not in REACTION_NAMES:
        raise InputError(
            f"Unknown reaction {choice.kind!r}; known reactions: {', '.join(REACTION_NAMES)}."
        )
    reaction = _declare(kind, choice, catalog, defender)
    if not choice.advantage:
        return reaction
    if reaction.family is None:
        raise InputError("--reaction-advantage applies to a Block or Parry test, not a Ward-off.")
    added = labelled(choice.advantage, "reaction advantage")
    return replace(reaction, advantage=(*reaction.advantage, *added))


def _shield_of(choice: ReactionChoice, catalog: Catalog, defender: Combatant) -> Any:
    name = choice.shield or defender.shield
    if name is None:
        raise InputError(f"{defender.name} has no shield; name one with --shield.")
    return catalog.shield(name)


def _declare(kind: str, choice: ReactionChoice, catalog: Catalog, defender: Combatant) -> Reaction:
    weapon = choice.weapon
    if kind == "block":
        return reactions.block(defender, _shield_of(choice, catalog, defender))
    if kind == "parry":
        return reactions.parry(defender, _defender_weapon(catalog, defender, weapon, "main"))
    if kind == "combined-parry":
        main = _defender_weapon(catalog, defender, weapon, "main")
        off = _defender_weapon(catalog, defender, choice.off_weapon, "off")
        return reactions.combined_parry(defender, main, off)
    if kind == "block-and-parry":
        shield = _shield_of(choice, catalog, defender)
        parrying = _defender_weapon(catalog, defender, weapon, "main")
        return reactions.block_and_parry(defender, shield, parrying, _use(choice.use, defender))
    if kind == "improvised-block":
        item, size = _improvised_item(choice, catalog, defender)
        return reactions.improvised_block(item, size)
    if kind == "improvised-parry":
        return reactions.improvised_parry(_defender_weapon(catalog, defender, weapon, "main"))
    return reactions.ward_off(defender, _defender_weapon(catalog, defender, weapon, "main"))


def _defender_weapon(catalog: Catalog, defender: Combatant, name: str | None, hand: str) -> Weapon:
    chosen = name or (defender.main_hand if hand == "main" else defender.off_hand)
    if chosen is None:
        option = "--reaction-weapon" if hand == "main" else "--reaction-off-weapon"
        raise InputError(f"{defender.name} has no {hand}-hand weapon; name one with {option}.")
    return catalog.weapon(chosen)


def _use(text: str | None, defender: Combatant) -> Family:
    if text is None:
        return Family.PARRY if defender.stats.AGIL > defender.stats.STR else Family.BLOCK
    try:
        return Family(text.lower())
    except ValueError:
        raise InputError(f"--reaction-use is block or parry, not {text!r}.") from None


def _improvised_item(
    choice: ReactionChoice, catalog: Catalog, defender: Combatant
) -> tuple[str, WeaponSize]:
    name = choice.item or defender.main_hand
    if name is None:
        raise InputError(f"{defender.name} holds nothing to block with; name it with --item.")
    if choice.item_size is not None:
        return name, parse_weapon_size(choice.item_size)
    known = catalog.weapons.get(name.lower()) or catalog.shields.get(name.lower())
    if known is None:
        raise InputError(f"Give --item-size (S, M, L or XL) for the improvised item {name!r}.")
    return known.name, known.size


def defender_ac(catalog: Catalog, defender: Combatant, ac: int | None) -> int:
    """``--ac`` or the defender's effective AC with armour (S-16)."""
    if ac is not None:
        non_negative(ac, "--ac")
        return ac
    return effective_ac(catalog, defender).value


def build_attack_setup(o: dict[str, Any]) -> AttackSetup:
    """The AttackSetup that ``strife attack`` and ``odds attack`` build from their options."""
    catalogue = load_catalog(o["catalog"])
    catalogue, striker = find_model(catalogue, o["attacker"])
    catalogue, target = find_model(catalogue, o["defender"])
    target_ac = defender_ac(catalogue, target, o["ac"])
    striker = with_values(
        striker,
        crit_chance=percent(o["crit"], "--crit"),
        critical_miss_chance=percent(o["critical_miss"], "--critical-miss"),
    )
    target = with_values(target, dodge=percent(o["dodge"], "--dodge"))
    used = attack_weapon(catalogue, striker, o)
    choice = ReactionChoice(
        o["reaction"], o["shield"], o["reaction_weapon"], o["reaction_off_weapon"], o["item"],
        o["item_size"], o["reaction_use"], tuple(o["reaction_advantage"] or ()),
    )  # fmt: skip
    context = penalty_context(
        catalogue, striker, used, o["moved"], o["flying"], o["thrown"], o["underwater"],
        o["other_hand"], o["dual_wielding"],
    )  # fmt: skip
    setup = AttackSetup(
        attacker=striker,
        defender=target,
        weapon=used,
        context=context,
        precision=o["precision"],
        hit_modifiers=(
            *labelled(o["modifier"], "modifier"),
            *(Part(k, v) for k, v in named_modifiers(o.get("situational")).items()),
        ),
        damage_bonuses=labelled(o["damage_bonus"], "damage bonus"),
        defender_ac=target_ac,
        reaction=build_reaction(choice, catalogue, target),
        ruleset=parse_ruleset(o["ruleset"]),
    )
    check_distance(setup, check_attack(setup), o["distance"])
    return setup


def attack_weapon(catalogue: Catalog, striker: Combatant, o: dict[str, Any]) -> Weapon:
    """The attack's weapon: ``--weapon`` (default: the main hand), or the shield (SA-73)."""
    if not o.get("shield_blow"):
        return held_weapon(catalogue, striker, o["weapon"], "main")
    if o["weapon"] is not None or o["thrown"]:
        raise InputError("--shield-blow strikes with the shield: give no --weapon or --thrown.")
    from tableside.encounter.strife.forced import shield_blow_weapon

    return shield_blow_weapon(catalogue, striker)


def named_modifiers(given: list[str] | None) -> dict[str, int]:
    """``--situational 'cover=-20'`` options as {name: amount} (SA-75); bad ones exit 2."""
    found: dict[str, int] = {}
    for text in given or ():
        name, sep, amount = text.rpartition("=")
        value = int(amount) if re.fullmatch(r"[+-]?\d{1,3}", amount.strip()) else None
        if not sep or not name.strip() or value is None or abs(value) > MODIFIER_MAX:
            raise InputError(
                "--situational takes a name and a whole number from -100 to 100 like "
                f"'high ground=10', not {shown(text)}."
            )
        found[name.strip()] = value
    if len(found) > MODIFIERS_MAX:
        raise InputError(f"--situational names at most {MODIFIERS_MAX} modifiers.")
    return found
