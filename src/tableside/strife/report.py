"""Plain-data views of Realm of Strife results (JSON-ready dicts; documented in docs/strife.md).

These functions only turn immutable results into dictionaries of JSON types; text is made by
renderers elsewhere.
"""

from __future__ import annotations

from typing import Any

from tableside.strife.attack import AttackResult, AttackSetup, EffectRoll, Inflicted, ReactionRoll
from tableside.strife.casting import CastResult, CombinedResult
from tableside.strife.checks import RollOff, RollOffSide, StatTest
from tableside.strife.conditions import Condition
from tableside.strife.damage import Damage
from tableside.strife.records import Part

ATTACK_SCHEMA = "tableside/strife-attack"
CAST_SCHEMA = "tableside/strife-cast"
COMBINED_SCHEMA = "tableside/strife-combined-attack"
TEST_SCHEMA = "tableside/strife-stat-test"
ROLL_OFF_SCHEMA = "tableside/strife-roll-off"
SCHEMA_VERSION = 1


def parts(items: tuple[Part, ...]) -> list[dict[str, Any]]:
    """Labelled parts as ``{label, amount}``."""
    return [{"label": p.label, "amount": p.amount} for p in items]


def stat_test_dict(test: StatTest) -> dict[str, Any]:
    """A stat test (S-1)."""
    return {
        "schema": TEST_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "natural": test.natural,
        "stat": {"label": test.stat.label, "amount": test.stat.amount},
        "parts": parts(test.parts),
        "total": test.total,
        "success": test.success,
        "automatic": test.automatic,
        "rulings": ["S-1"],
    }


def _side(side: RollOffSide) -> dict[str, Any]:
    return {
        "label": side.label,
        "natural": side.natural,
        "stat": {"label": side.stat.label, "amount": side.stat.amount},
        "parts": parts(side.parts),
        "total": side.total,
    }


def roll_off_dict(roll: RollOff) -> dict[str, Any]:
    """A stat roll-off (S-2, S-20)."""
    sized = any(p.label == "size difference" for p in (*roll.acting.parts, *roll.opposing.parts))
    return {
        "schema": ROLL_OFF_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "ruleset": roll.ruleset,
        "acting": _side(roll.acting),
        "opposing": _side(roll.opposing),
        "winner": roll.winner.value,
        "tie": roll.tie,
        "rulings": ["S-2", "S-20"] if sized else ["S-2"],
    }


def reaction_dict(roll: ReactionRoll | None) -> dict[str, Any] | None:
    """``{kind, roll, total, result, …}`` of a Block or Parry, or None."""
    if roll is None:
        return None
    return {
        "kind": roll.reaction.kind.value,
        "items": list(roll.reaction.items),
        "roll": roll.test.natural,
        "parts": parts((roll.test.stat, *roll.test.parts)),
        "total": roll.test.total,
        "result": roll.verdict.value,
        "stopped": roll.effect.stopped,
        "disarmed": roll.effect.disarm or roll.knocked_away,
        "item_damaged": roll.effect.item_damaged or roll.item_damaged,
    }


def damage_dict(damage: Damage | None) -> dict[str, Any] | None:
    """``{dice, rolls, strength_modifier, flat, crit_multiplier, absorbed, total, parts}``."""
    if damage is None:
        return None
    return {
        "dice": damage.dice,
        "rolls": list(damage.rolls),
        "basis": damage.basis.value,
        "strength_modifier": damage.strength_modifier,
        "flat": damage.flat,
        "crushing_blow": damage.crushing_blow,
        "crit_multiplier": damage.crit_multiplier,
        "absorbed": damage.absorbed,
        "total": damage.total,
        "parts": parts(damage.parts),
    }


def condition_dict(item: Condition) -> dict[str, Any]:
    """A condition with its source and duration (S-23)."""
    return {
        "name": item.name,
        "source": item.source,
        "rounds_left": item.rounds_left,
        "until": item.until,
        "automated": item.automated,
        "stacks": item.stacks,
    }


def effects_list(
    rolls: tuple[EffectRoll, ...], inflicted: tuple[Inflicted, ...], damaged: tuple[str, ...]
) -> list[dict[str, Any]]:
    """% effect rolls, conditions inflicted and damaged items, in that order."""
    found: list[dict[str, Any]] = [
        {
            "kind": "percent",
            "name": r.name,
            "chance": r.chance,
            "roll": r.roll,
            "applied": r.applied,
        }
        for r in rolls
    ]
    found += [
        {"kind": "condition", "target": i.target, **condition_dict(i.condition)} for i in inflicted
    ]
    found += [{"kind": "item_damaged", "item": name} for name in damaged]
    return found


def attack_dict(result: AttackResult) -> dict[str, Any]:
    """A physical attack (S-7 …) in the stable JSON schema."""
    setup = result.setup
    return {
        "schema": ATTACK_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        **attack_setup_dict(setup),
        "ward_off": None if result.ward_off is None else roll_off_dict(result.ward_off),
        "warded_off": result.warded_off,
        "naturals": list(result.hit_naturals),
        "natural": result.natural,
        "modifiers": parts(result.modifiers),
        "modified": result.modified,
        "ac": setup.ac,
        "dodge": setup.defender.dodge,
        "outcome": None if result.outcome is None else result.outcome.value,
        "reaction": reaction_dict(result.reaction),
        "damage": damage_dict(result.damage),
        "effects": effects_list(result.effect_rolls, result.inflicted, result.damaged_items),
        "rulings": list(result.rulings),
    }


def cast_dict(result: CastResult) -> dict[str, Any]:
    """A cast (S-8) in the stable JSON schema."""
    setup, rule = result.setup, result.rule
    return {
        "schema": CAST_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "ruleset": setup.ruleset.name,
        "caster": setup.caster.name,
        "target": setup.target.name,
        "power": setup.power.name,
        "element": setup.power.element.value,
        "natural": result.natural,
        "modifiers": parts(result.modifiers),
        "modified": result.modified,
        "resistance": rule.resistance,
        "resists": rule.resists,
        "outcome": result.outcome.value,
        "reaction": reaction_dict(result.reaction),
        "damage": damage_dict(result.damage),
        "effects": [],
        "rulings": list(result.rulings),
    }


def combined_dict(result: CombinedResult) -> dict[str, Any]:
    """A combined attack (S-9): one natural, two portions."""
    verdict, attack = result.verdict, result.setup.attack
    return {
        "schema": COMBINED_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "ruleset": attack.ruleset.name,
        "attacker": attack.attacker.name,
        "defender": attack.defender.name,
        "weapon": attack.weapon.name,
        "power": result.setup.spirit.power.name,
        "ward_off": None if result.ward_off is None else roll_off_dict(result.ward_off),
        "naturals": list(result.hit_naturals),
        "natural": result.natural,
        "physical_modifiers": parts(result.physical_modifiers),
        "spirit_modifiers": parts(result.spirit_modifiers),
        "outcome": None if verdict is None else verdict.overall.value,
        "physical_outcome": None if verdict is None else verdict.physical.value,
        "spirit_outcome": None if verdict is None else verdict.spirit.value,
        "physical_stopped": result.physical_stopped,
        "spirit_stopped": result.spirit_stopped,
        "reaction": reaction_dict(result.reaction),
        "physical_damage": damage_dict(result.physical_damage),
        "spirit_damage": damage_dict(result.spirit_damage),
        "effects": effects_list(result.effect_rolls, result.inflicted, ()),
        "rulings": list(result.rulings),
    }


def attack_setup_dict(setup: AttackSetup) -> dict[str, Any]:
    """Who attacks whom with what, as an attack's JSON and its odds' JSON both say it."""
    return {
        "ruleset": setup.ruleset.name,
        "attacker": setup.attacker.name,
        "defender": setup.defender.name,
        "weapon": setup.weapon.name,
        "ranged": setup.ranged,
        "precision": setup.precision,
    }
