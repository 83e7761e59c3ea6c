"""Builders for the Realm of Strife tests: plain sheets, catalogue items, attacks from dice.

A default sheet is deliberately plain: STR 12 gives a Strength damage modifier of 0 (S-14), AGIL
and STR 12 give Block and Parry test values of +2, crit chance 0 % means no Critical Hits, the
critical-miss and miscast ranges are the default 1–5, AC 20 and Dodge 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from tableside.errors import TablesideError
from tableside.strife.attack import AttackDice, AttackResult, AttackSetup, attack_with_dice
from tableside.strife.catalog import (
    Combatant,
    Element,
    Shield,
    Stats,
    Weapon,
    WeaponAttributes,
    builtin_catalog,
)
from tableside.strife.size import CreatureSize, WeaponSize

TRAINED = ("Swords", "Shields", "Axes", "Spears", "Polearms", "Daggers", "Bows", "Bludgeons",
           "Natural", "Light Armour")  # fmt: skip


def sheet(
    name: str = "Fighter",
    *,
    strength: int = 12,
    agility: int = 12,
    intellect: int = 10,
    wisdom: int = 10,
    stamina: int = 10,
    initiative: int = 5,
    movement: int = 5,
    ac: int = 20,
    dodge: int = 0,
    crit: int = 0,
    cast_crit: int = 0,
    critical_miss: int = 5,
    miscast: int = 5,
    hp: int = 20,
    absorption: int = 0,
    size: CreatureSize = CreatureSize.MEDIUM,
    npc: bool = False,
    proficiencies: Sequence[str] = TRAINED,
    skills: Sequence[str] = (),
    resistances: Mapping[Element, int] | None = None,
    aquatic: bool = False,
) -> Combatant:
    """A plain sheet; name only what the test is about."""
    return Combatant(
        name=name,
        npc=npc,
        size=size,
        stats=Stats(STR=strength, AGIL=agility, INT=intellect, WIS=wisdom, STAM=stamina),
        initiative=initiative,
        movement=movement,
        ac=ac,
        dodge=dodge,
        crit_chance=crit,
        cast_crit_chance=cast_crit,
        critical_miss_chance=critical_miss,
        miscast_chance=miscast,
        hp=hp,
        hp_max=max(hp, 1),
        absorption=absorption,
        proficiencies=tuple(proficiencies),
        skills=tuple(skills),
        resistances=dict(resistances or {}),
        aquatic=aquatic,
    )


def weapon(name: str) -> Weapon:
    """A weapon from the built-in catalogue."""
    return builtin_catalog().weapon(name)


def shield(name: str) -> Shield:
    """A shield from the built-in catalogue."""
    return builtin_catalog().shield(name)


def custom_weapon(
    name: str = "Test Blade",
    *,
    damage: str = "1d8",
    size: WeaponSize = WeaponSize.M,
    group: str = "Swords",
    ranged: bool = False,
    **attributes: Any,
) -> Weapon:
    """A weapon made for one test, attributes as keyword arguments."""
    return Weapon(
        name=name,
        group=group,
        size=size,
        damage=damage,
        ranged=ranged,
        range=24 if ranged else None,
        attributes=WeaponAttributes(**attributes),
    )


def attack(
    hit: int | tuple[int, ...],
    *,
    reaction_die: int | None = None,
    damage: tuple[int, ...] = (),
    effects: tuple[int, ...] = (),
    ward_off: tuple[int, int] | None = None,
    attacker: Combatant | None = None,
    defender: Combatant | None = None,
    weapon_used: Weapon | None = None,
    **options: Any,
) -> AttackResult:
    """An attack resolved from typed-in dice (every die given must be used)."""
    setup = AttackSetup(
        attacker=attacker or sheet("Attacker"),
        defender=defender or sheet("Defender"),
        weapon=weapon_used or custom_weapon(),
        **options,
    )
    naturals = hit if isinstance(hit, tuple) else (hit,)
    dice = AttackDice(naturals, reaction_die, ward_off, damage, effects)
    return attack_with_dice(setup, dice)


def refused(call: Any, *args: Any, match: str = "", **kwargs: Any) -> str:
    """Assert the call raises a TablesideError (matching ``match``); return its message."""
    with pytest.raises(TablesideError, match=match) as info:
        call(*args, **kwargs)
    return str(info.value)
