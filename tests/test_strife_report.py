"""The JSON-ready views of Realm of Strife results (documented in docs/strife.md)."""

from __future__ import annotations

import json

from strife_builders import attack, custom_weapon, sheet, shield

from tableside.strife.attack import AttackSetup
from tableside.strife.casting import (
    CastDice,
    CastSetup,
    CombinedDice,
    CombinedSetup,
    Power,
    SpiritPortion,
    cast_with_dice,
    combined_with_dice,
)
from tableside.strife.catalog import Element
from tableside.strife.checks import Contestant, roll_off_with_naturals, stat_test_with_natural
from tableside.strife.reactions import block
from tableside.strife.records import Part
from tableside.strife.report import (
    attack_dict,
    cast_dict,
    combined_dict,
    roll_off_dict,
    stat_test_dict,
)

ATTACK_KEYS = {"natural", "modified", "outcome", "reaction", "damage", "effects", "rulings"}
DAMAGE_KEYS = {
    "dice",
    "rolls",
    "strength_modifier",
    "flat",
    "crit_multiplier",
    "absorbed",
    "total",
    "parts",
}
OUTCOMES = {"critical_miss", "auto_miss", "critical_hit", "hit", "dodge", "armor_save"}


def test_attack_dict_has_the_documented_keys_and_is_json() -> None:
    defender = sheet("Defender", strength=14)
    result = attack(
        50,
        reaction_die=13,
        defender=defender,
        reaction=block(defender, shield("Kite Shield")),
        weapon_used=custom_weapon(damage="1d8+1", crushing_blow=2),
    )
    data = json.loads(json.dumps(attack_dict(result)))
    assert set(data) >= ATTACK_KEYS
    assert data["outcome"] in OUTCOMES
    assert {"kind", "roll", "total", "result"} <= set(data["reaction"])
    assert (data["reaction"]["kind"], data["reaction"]["roll"]) == ("block", 13)
    assert set(data["damage"]) >= DAMAGE_KEYS
    assert data["damage"]["total"] == sum(p["amount"] for p in data["damage"]["parts"]) == 4
    assert data["rulings"] == ["S-1", "S-7", "S-10", "S-14"]


def test_a_miss_has_null_reaction_and_damage() -> None:
    data = attack_dict(attack(10))
    assert (data["outcome"], data["reaction"], data["damage"], data["effects"]) == (
        "armor_save",
        None,
        None,
        [],
    )


def test_critical_miss_lists_the_vulnerable_condition_as_an_effect() -> None:
    effects = attack_dict(attack(2))["effects"]
    assert effects[0]["kind"] == "condition" and effects[0]["name"] == "Vulnerable"
    assert effects[0]["target"] == "attacker" and effects[0]["automated"] is False


def test_cast_dict() -> None:
    setup = CastSetup(sheet("Mage"), sheet("Target"), Power("Bolt", Element.ARCANE, "1d6"))
    data = json.loads(json.dumps(cast_dict(cast_with_dice(setup, CastDice(40, damage=(3,))))))
    assert {"natural", "modified", "outcome", "reaction", "damage", "rulings"} <= set(data)
    assert (data["outcome"], data["damage"]["total"]) == ("success", 3)


def test_combined_dict() -> None:
    setup = CombinedSetup(
        AttackSetup(sheet("A"), sheet("D"), custom_weapon()),
        SpiritPortion(Power("Shock", Element.LIGHTNING, "1d4")),
    )
    result = combined_with_dice(setup, CombinedDice((50,), damage=(2,), spirit_damage=(3,)))
    data = json.loads(json.dumps(combined_dict(result)))
    assert (data["outcome"], data["physical_damage"]["total"], data["spirit_damage"]["total"]) == (
        "both",
        2,
        3,
    )
    assert "S-9" in data["rulings"]


def test_stat_test_and_roll_off_dicts() -> None:
    test = stat_test_dict(stat_test_with_natural(12, Part("STR", 9)))
    assert (test["natural"], test["total"], test["success"], test["rulings"]) == (
        12,
        21,
        True,
        ["S-1"],
    )
    roll = roll_off_dict(
        roll_off_with_naturals(
            Contestant("A", Part("INIT", 3)), Contestant("B", Part("INIT", 3)), (9, 9)
        )
    )
    assert (roll["winner"], roll["tie"], roll["acting"]["total"]) == ("acting", True, 12)
