"""``tableside strife attack | cast | test | rolloff``: JSON, seeds, physical dice, bad input.

The models are the built-in catalogue's: Aldric (STR 16 → +1 damage, crit 5 %, Long Sword 1d8
with Parry 2, Kite Shield Block 4, effective AC 30 with armour, Dodge 5), Goblin (small, AC 8,
Dodge 10, Spear 1d8 with Ward-off), Sera (Dagger 1d4, crit 12 %, cast crit 8 %, AC 13 with
armour, Dodge 15), Cave Troll (huge, STR 20 → +3, Troll Club 2d6+2 with 20 % Knocked Down) and
Oak Door (10 HP, Absorption 50 %).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clirun import refusal, run_cli

ATTACK_KEYS = {
    "natural", "naturals", "modified", "modifiers", "outcome", "reaction", "damage", "effects",
    "rulings", "seed", "ward_off", "warded_off", "ac", "dodge", "ruleset",
}  # fmt: skip
REACTION_KEYS = {"kind", "items", "roll", "parts", "total", "result", "stopped"}
DAMAGE_KEYS = {"dice", "rolls", "basis", "strength_modifier", "crit_multiplier", "total", "parts"}


def run(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    return run_cli(capsys, monkeypatch, "strife", *args)


def as_json(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    code, out, err = run([*args, "--json"], capsys, monkeypatch)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


Run = tuple[pytest.CaptureFixture[str], pytest.MonkeyPatch]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Run:
    return capsys, monkeypatch


def attack(cli: Run, *args: str) -> dict[str, Any]:
    return as_json(["attack", *args], *cli)


def damage_parts(data: dict[str, Any]) -> list[tuple[str, int]]:
    return [(p["label"], p["amount"]) for p in data["damage"]["parts"]]


# --- JSON and seeds ---------------------------------------------------------------------------


def test_attack_json_has_the_documented_keys(cli: Run) -> None:
    data = attack(cli, "Goblin", "Aldric", "--reaction", "block", "--seed", "7")
    assert data.keys() >= ATTACK_KEYS
    assert data["schema"] == "tableside/strife-attack"
    assert data["seed"] == 7
    assert data["outcome"] in {
        "critical_miss", "auto_miss", "critical_hit", "hit", "dodge", "armor_save",
    }  # fmt: skip
    assert data["reaction"].keys() >= REACTION_KEYS
    assert isinstance(data["effects"], list)
    assert data["rulings"][0] == "S-1" and "S-7" in data["rulings"]


def test_damage_json_has_its_parts(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--dice", "hit=50 damage=6")
    assert data["damage"].keys() >= DAMAGE_KEYS
    assert sum(p["amount"] for p in data["damage"]["parts"]) == data["damage"]["total"]
    assert data["seed"] is None  # physical dice: no seed


def test_same_seed_same_attack(cli: Run) -> None:
    args = ["Cave Troll", "Sera", "--reaction", "combined-parry", "--seed", "42"]
    first = attack(cli, *args)
    assert first == attack(cli, *args)
    assert first["seed"] == 42


def test_default_seed_is_1_and_recorded(cli: Run) -> None:
    assert attack(cli, "Aldric", "Goblin")["seed"] == 1
    assert as_json(["test", "--stat", "5"], *cli)["seed"] == 1


def test_same_seed_same_cast_test_and_rolloff(cli: Run) -> None:
    for args in (
        ["cast", "Sera", "Goblin", "--power-damage", "2d6", "--seed", "9"],
        ["cast", "Sera", "Goblin", "--combined", "--power-damage", "1d6", "--seed", "9"],
        ["test", "Aldric", "--stat", "STR", "--seed", "9"],
        ["rolloff", "Aldric", "Goblin", "--stat", "INIT", "--seed", "9"],
    ):
        assert as_json(args, *cli) == as_json(args, *cli)


# --- physical dice: every outcome -------------------------------------------------------------


def test_critical_miss_makes_the_attacker_vulnerable(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--dice", "hit=3")
    assert (data["natural"], data["outcome"], data["damage"]) == (3, "critical_miss", None)
    conditions = [e for e in data["effects"] if e["kind"] == "condition"]
    assert [(c["target"], c["name"]) for c in conditions] == [("attacker", "Vulnerable")]


def test_auto_miss_when_the_modified_roll_is_0_or_less(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--modifier", "-30", "--modifier", "-30",
                  "--dice", "hit=50")  # fmt: skip
    assert (data["natural"], data["modified"], data["outcome"]) == (50, -10, "auto_miss")
    assert [m["amount"] for m in data["modifiers"]] == [-30, -30]


def test_critical_hit_doubles_the_whole_total(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--dice", "hit=97 damage=5")
    assert data["outcome"] == "critical_hit"
    assert damage_parts(data) == [("1d8", 5), ("Strength", 1), ("critical ×2", 6)]
    assert (data["damage"]["total"], data["damage"]["crit_multiplier"]) == (12, 2)


def test_crit_override(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--crit", "20", "--dice", "hit=81 damage=1")
    assert data["outcome"] == "critical_hit"
    assert attack(cli, "Aldric", "Goblin", "--dice", "hit=81 damage=1")["outcome"] == "hit"


def test_dodge(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--dice", "hit=8")
    assert (data["natural"], data["dodge"], data["outcome"]) == (8, 10, "dodge")


def test_armor_save_with_an_ac_override(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--ac", "50", "--dice", "hit=40")
    assert (data["ac"], data["outcome"], data["damage"]) == (50, "armor_save", None)


def test_hit_with_strength_and_a_damage_bonus(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--damage-bonus", "2", "--dice", "hit=50 damage=6")
    assert data["outcome"] == "hit"
    assert damage_parts(data) == [("1d8", 6), ("Strength", 1), ("damage bonus", 2)]
    assert data["damage"]["total"] == 9


def test_armour_counts_in_the_defenders_ac(cli: Run) -> None:
    # Aldric: AC 10 + Chain Hauberk 15 + Plate Helm 6 − 1 untrained = 30 (S-16).
    assert attack(cli, "Goblin", "Aldric", "--dice", "hit=30")["outcome"] == "armor_save"
    data = attack(cli, "Goblin", "Aldric", "--dice", "hit=31 damage=4")
    assert (data["ac"], data["outcome"], data["damage"]["total"]) == (30, "hit", 4)


def test_precision_attack_keeps_the_lower_natural(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--precision", "--dice", "hit=97,40 damage=6")
    assert (data["naturals"], data["natural"], data["outcome"]) == ([97, 40], 40, "hit")
    assert data["precision"] is True


def test_successful_parry_stops_the_hit(cli: Run) -> None:
    # d20 19 + (AGIL 8 − 10) + Long Sword Parry 2 + size difference 2 (medium vs small) = 21.
    data = attack(cli, "Goblin", "Aldric", "--reaction", "parry", "--dice", "hit=60 reaction=19")
    assert data["outcome"] == "hit"
    reaction = data["reaction"]
    assert (reaction["kind"], reaction["roll"], reaction["total"]) == ("parry", 19, 21)
    assert (reaction["result"], reaction["stopped"]) == ("success", True)
    assert [p["amount"] for p in reaction["parts"]] == [-2, 2, 2]
    assert data["damage"] is None
    assert "S-11" in data["rulings"]


def test_failed_parry_lets_full_damage_through(cli: Run) -> None:
    data = attack(cli, "Goblin", "Aldric", "--reaction", "parry",
                  "--dice", "hit=60 reaction=18 damage=5")  # fmt: skip
    assert (data["reaction"]["total"], data["reaction"]["result"]) == (20, "failure")
    assert (data["damage"]["basis"], data["damage"]["total"]) == ("full", 5)


def test_successful_block_leaves_minimum_damage(cli: Run) -> None:
    # d20 15 + (STR 16 − 10) + Kite Shield 4 + size difference 2 = 27; no damage dice (SA-8).
    data = attack(cli, "Goblin", "Aldric", "--reaction", "block", "--dice", "hit=60 reaction=15")
    reaction = data["reaction"]
    assert (reaction["kind"], reaction["total"], reaction["result"]) == ("block", 27, "success")
    assert data["damage"]["basis"] == "minimum"
    assert data["damage"]["rolls"] == []
    assert data["damage"]["total"] == 1
    assert "S-10" in data["rulings"]


def test_block_against_a_melee_crit_damages_the_shield(cli: Run) -> None:
    data = attack(cli, "Goblin", "Aldric", "--reaction", "block", "--dice", "hit=97 reaction=15")
    assert data["outcome"] == "critical_hit"
    assert data["reaction"]["item_damaged"] is True
    assert (data["damage"]["basis"], data["damage"]["total"]) == ("minimum", 2)
    assert {"kind": "item_damaged", "item": "Kite Shield"} in data["effects"]


def test_ward_off_stops_the_attack_before_its_hit_roll(cli: Run) -> None:
    # Aldric 3 + Initiative 4 + size 2 = 9 against Goblin 15 + 6 = 21.
    data = attack(cli, "Aldric", "Goblin", "--reaction", "ward-off", "--dice", "ward=3,15")
    assert (data["warded_off"], data["outcome"], data["natural"]) == (True, None, None)
    assert data["ward_off"]["winner"] == "opposing"


def test_ward_off_tie_goes_to_the_attacker(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--reaction", "ward-off",
                  "--dice", "ward=7,7 hit=50 damage=6")  # fmt: skip
    ward = data["ward_off"]
    assert (ward["acting"]["total"], ward["opposing"]["total"]) == (13, 13)
    assert (ward["tie"], ward["winner"], data["outcome"]) == (True, "acting", "hit")


def test_percent_effect_applies_and_is_a_condition(cli: Run) -> None:
    data = attack(cli, "Cave Troll", "Sera", "--dice", "hit=50 damage=3,4 effects=10")
    assert damage_parts(data) == [("2d6", 7), ("2d6+2 flat", 2), ("Strength", 3)]
    percent, condition = data["effects"]
    assert percent == {"kind": "percent", "name": "Knocked Down", "chance": 20, "roll": 10,
                       "applied": True}  # fmt: skip
    assert (condition["target"], condition["name"]) == ("defender", "Knocked Down")


def test_absorption(cli: Run) -> None:
    data = attack(cli, "Aldric", "Oak Door", "--dice", "hit=50 damage=6")
    assert (data["damage"]["absorbed"], data["damage"]["total"]) == (5, 2)


def test_penalties_enter_the_modified_roll(cli: Run) -> None:
    data = attack(cli, "Sera", "Goblin", "--weapon", "Short Bow", "--moved", "2", "--flying",
                  "--distance", "10", "--dice", "hit=60 damage=2")  # fmt: skip
    assert [m["amount"] for m in data["modifiers"]] == [-10, -5]
    assert (data["modified"], data["ranged"]) == (45, True)
    thrown = attack(cli, "Aldric", "Goblin", "--weapon", "Battle Axe", "--thrown",
                    "--dice", "hit=40 damage=9")  # fmt: skip
    assert [m["amount"] for m in thrown["modifiers"]] == [-15]  # S-16 worked example


def test_dual_wielding_without_the_skill_is_clumsy_and_cannot_crit(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--other-hand", "Dagger", "--dice", "hit=97 damage=3")
    assert [m["amount"] for m in data["modifiers"]] == [-20]  # −10 × size M (S-16)
    assert (data["modified"], data["outcome"]) == (77, "hit")
    skilled = attack(cli, "Sera", "Goblin", "--dual-wielding", "--dice", "hit=97 damage=3")
    assert (skilled["modifiers"], skilled["outcome"]) == ([], "critical_hit")


def test_underwater_target(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--underwater", "--dice", "hit=50 damage=2")
    assert [m["amount"] for m in data["modifiers"]] == [-10]  # −5 × size M
    assert "S-16" in data["rulings"]


def test_ruleset_crit_requires_hit(cli: Run) -> None:
    args = ["Aldric", "Goblin", "--ac", "99", "--dice"]
    strict = attack(cli, *args, "hit=97", "--ruleset", "crit-requires-hit")
    assert strict["outcome"] == "armor_save"
    assert attack(cli, *args, "hit=97 damage=1")["outcome"] == "critical_hit"


def test_improvised_block_risks_the_item(cli: Run) -> None:
    data = attack(cli, "Aldric", "Goblin", "--reaction", "improvised-block", "--item", "Chair",
                  "--item-size", "L", "--dice", "hit=50 reaction=4 damage=6")  # fmt: skip
    assert data["reaction"]["disarmed"] is True and data["reaction"]["item_damaged"] is True
    assert "S-12" in data["rulings"]


# --- cast, combined, test, rolloff ------------------------------------------------------------


def cast(cli: Run, *args: str) -> dict[str, Any]:
    return as_json(["cast", *args], *cli)


def test_critical_cast_with_spell_power(cli: Run) -> None:
    data = cast(cli, "Sera", "Goblin", "--power", "Arcane Bolt", "--power-damage", "2d6",
                "--spell-power", "2", "--dice", "cast=95 damage=3,4")  # fmt: skip
    assert data.keys() >= {"natural", "modified", "outcome", "reaction", "damage", "effects"}
    assert (data["outcome"], data["damage"]["total"]) == ("critical_cast", 18)
    assert data["rulings"] == ["S-8", "S-14", "S-15"]


def test_cast_outcomes(cli: Run) -> None:
    base = ["Sera", "Aldric", "--element", "fire", "--power-damage", "1d6"]
    resisted = cast(cli, *base, "--modifier", "-36", "--dice", "cast=40")
    assert (resisted["modified"], resisted["resistance"], resisted["outcome"]) == (4, 5, "resisted")
    assert cast(cli, *base, "--dice", "cast=3")["outcome"] == "miscast"
    unresisted = cast(cli, *base, "--no-resist", "--dice", "cast=10 damage=2")
    assert (unresisted["outcome"], unresisted["damage"]["total"]) == ("success", 2)


def test_blocked_power(cli: Run) -> None:
    data = cast(cli, "Sera", "Aldric", "--power-damage", "1d6", "--blockable", "--reaction",
                "block", "--dice", "cast=40 reaction=11")  # fmt: skip
    assert data["reaction"]["result"] == "success"
    assert (data["damage"]["basis"], data["damage"]["total"]) == ("crushing_only", 0)


def test_combined_attack(cli: Run) -> None:
    data = cast(cli, "Sera", "Cave Troll", "--combined", "--power", "Frostbite", "--element",
                "frost", "--power-damage", "1d6", "--dice", "hit=50 damage=2 spirit=5")  # fmt: skip
    assert data["schema"] == "tableside/strife-combined-attack"
    assert (data["outcome"], data["physical_outcome"], data["spirit_outcome"]) == (
        "both", "hit", "success",
    )  # fmt: skip
    assert (data["physical_damage"]["total"], data["spirit_damage"]["total"]) == (2, 5)


def test_stat_test(cli: Run) -> None:
    args = ["test", "Aldric", "--stat", "STR", "--advantage", "2", "--disadvantage", "1"]
    failed = as_json([*args, "--dice", "3"], *cli)
    assert (failed["total"], failed["success"]) == (20, False)
    assert [p["amount"] for p in failed["parts"]] == [2, -1]
    assert as_json([*args, "--dice", "d20=4"], *cli)["success"] is True
    twenty = as_json(["test", "--stat", "-30", "--dice", "20"], *cli)
    assert (twenty["success"], twenty["automatic"]) == (True, "natural_20")
    one = as_json(["test", "--stat", "30", "--dice", "1"], *cli)
    assert (one["success"], one["automatic"]) == (False, "natural_1")


def test_rolloff_tie_goes_to_the_acting_side(cli: Run) -> None:
    data = as_json(["rolloff", "--acting-stat", "5", "--opposing-stat", "5", "--dice", "10,10"],
                   *cli)  # fmt: skip
    assert (data["winner"], data["tie"]) == ("acting", True)


def test_rolloff_with_sizes(cli: Run) -> None:
    data = as_json(["rolloff", "Aldric", "Cave Troll", "--stat", "INIT", "--dice",
                    "acting=12 opposing=16"], *cli)  # fmt: skip
    assert (data["acting"]["total"], data["opposing"]["total"]) == (16, 21)
    assert data["winner"] == "opposing" and data["rulings"] == ["S-2", "S-20"]
    capped = ["rolloff", "--stat", "0", "--acting-size", "tiny", "--opposing-size", "gargantuan",
              "--dice", "10,10"]  # fmt: skip
    assert as_json(capped, *cli)["opposing"]["parts"][0]["amount"] == 10
    uncapped = as_json([*capped, "--ruleset", "uncapped-size"], *cli)
    assert uncapped["opposing"]["parts"][0]["amount"] == 20
    advantaged = as_json(["rolloff", "--stat", "1", "--acting-advantage", "3", "--opposing-size",
                          "large", "--dice", "5,5"], *cli)  # fmt: skip
    assert (advantaged["acting"]["total"], advantaged["opposing"]["total"]) == (9, 8)


# --- files ------------------------------------------------------------------------------------

HERO: dict[str, Any] = {
    "name": "Hero", "stats": {"STR": 18, "AGIL": 10, "INT": 10, "WIS": 10, "STAM": 10},
    "initiative": 3, "movement": 5, "ac": 12, "hp": 20, "hp_max": 20,
    "proficiencies": ["Swords"], "main_hand": "Long Sword",
}  # fmt: skip


def test_sheet_file_and_catalogue_file(tmp_path: Path, cli: Run) -> None:
    sheet = tmp_path / "hero.json"
    sheet.write_text(json.dumps(HERO), "utf-8")
    data = attack(cli, str(sheet), "Goblin", "--dice", "hit=50 damage=3")
    assert (data["attacker"], data["damage"]["total"]) == ("Hero", 5)  # STR 18 → +2
    extra = tmp_path / "extra.json"
    trident = {"name": "Trident", "group": "Spears", "size": "L", "damage": "1d10"}
    extra.write_text(json.dumps({"format": "tableside/strife-catalog", "version": 1,
                                 "weapons": [trident]}), "utf-8")  # fmt: skip
    data = attack(cli, "Goblin", "Aldric", "--catalog", str(extra), "--weapon", "Trident",
                  "--dice", "hit=50 damage=10")  # fmt: skip
    assert (data["weapon"], data["damage"]["total"]) == ("Trident", 10)


def test_bad_sheet_names_the_field(tmp_path: Path, cli: Run) -> None:
    sheet = tmp_path / "bad.json"
    sheet.write_text(json.dumps({**HERO, "stats": {**HERO["stats"], "STR": 50}}), "utf-8")
    code, out, err = run(["attack", str(sheet), "Goblin"], *cli)
    assert (code, out) == (2, "")
    assert "stats.STR" in err and "50" in err and len(err.strip().splitlines()) == 1


# --- human output and help --------------------------------------------------------------------


def test_human_breakdown(cli: Run) -> None:
    code, out, _ = run(["attack", "Goblin", "Aldric", "--reaction", "block",
                        "--dice", "hit=60 reaction=15"], *cli)  # fmt: skip
    assert code == 0
    for expected in (
        "Hit roll d100: natural 60",
        "Checks (S-7):",
        "5. Armor Save?     modified 60 ≤ AC 30: no",
        "→ Hit",
        "Reaction: a block with Kite Shield",
        "= 27 > 20 → success",
        "minimum of 1d8 1 = 1",
        "Rulings: S-1, S-7, S-10, S-14, S-20",
    ):
        assert expected in out, expected
    code, out, _ = run(["attack", "Aldric", "Goblin", "--dice", "hit=8"], *cli)
    assert "4. Dodge?          natural 8 ≤ Dodge 10: yes" in out and "Armor Save?" not in out
    assert "seed" not in out


def test_human_breakdowns_of_the_other_commands(cli: Run) -> None:
    for args, expected in (
        (["cast", "Sera", "Goblin", "--power-damage", "2d6", "--dice", "cast=95 damage=3,4"],
         "2d6 7 + critical ×2 7 = 14"),
        (["cast", "Sera", "Cave Troll", "--combined", "--power-damage", "1d6", "--dice",
          "hit=50 damage=2 spirit=5"], "Combined (S-9): both"),
        (["test", "Aldric", "--stat", "STR", "--dice", "4"], "d20 4 + STR (Aldric) 16 = 20"),
        (["rolloff", "--stat", "2", "--dice", "7,7"], "(a tie goes to the acting side)"),
        (["attack", "Aldric", "Goblin", "--seed", "5"], "seed 5"),
    ):  # fmt: skip
        code, out, err = run(args, *cli)
        assert code == 0, err
        assert expected in out, out


def test_help_documents_the_dice_syntax(cli: Run) -> None:
    code, out, _ = run(["attack", "--help"], *cli)
    assert code == 0
    assert "hit=37" in out and "ward=12,9" in out and "effects=55" in out


# --- bad input --------------------------------------------------------------------------------

BAD_INPUT = [
    (["attack", "Aldric", "Gobbo"], "'Gobbo'"),
    (["attack", "Aldric", "Goblin", "--weapon", "Trident"], "'Trident'"),
    (["attack", "Aldric", "Goblin", "--dice", "hit=101"], "101"),
    (["attack", "Aldric", "Goblin", "--dice", "hit=0"], "shows 0"),
    (["attack", "Aldric", "Goblin", "--dice", "hit=-3"], "-3"),
    (["attack", "Aldric", "Goblin", "--dice", "hit=50,60"], "2 were given"),
    (["attack", "Aldric", "Goblin", "--precision", "--dice", "hit=50"], "1 was given"),
    (["attack", "Aldric", "Goblin", "--dice", "hit=50"], "damage dice"),
    (["attack", "Aldric", "Goblin", "--dice", "hit=50 damage=6,2"], "left over"),
    (["attack", "Aldric", "Goblin", "--dice", "hit=50 damage=9"], "9"),
    (["attack", "Aldric", "Goblin", "--dice", "hit=50 reaction=4 damage=6"], "reaction dice"),
    (["attack", "Aldric", "Goblin", "--dice", "50"], "'50'"),
    (["attack", "Aldric", "Goblin", "--dice", "hit=x"], "'x'"),
    (["attack", "Aldric", "Goblin", "--dice", "hit=50 hit=50"], "twice"),
    (["attack", "Aldric", "Goblin", "--dice", "spirit=4"], "'spirit'"),
    (["attack", "Aldric", "Goblin", "--reaction", "ward-off", "--dice", "ward=3"], "ward="),
    (["attack", "Goblin", "Aldric", "--reaction", "block", "--dice", "hit=50 reaction=21"], "21"),
    (["attack", "Aldric", "Goblin", "--reaction", "dodge"], "'dodge'"),
    (["attack", "Aldric", "Goblin", "--reaction", "parry"], "Spear"),
    (["attack", "Aldric", "Goblin", "--reaction", "impale"], "'impale'"),
    (["attack", "Sera", "Aldric", "--weapon", "Short Bow", "--reaction", "parry"], "melee"),
    (["attack", "Aldric", "Goblin", "--distance", "3"], 'at 3"'),
    (["attack", "Sera", "Goblin", "--weapon", "Short Bow", "--distance", "30"], 'range of 24"'),
    (["attack", "Sera", "Goblin", "--weapon", "Short Bow", "--distance", "0"], "base contact"),
    (
        ["attack", "Aldric", "Goblin", "--weapon", "Battle Axe", "--thrown", "--distance", "9"],
        'range of 8"',
    ),
    (["attack", "Aldric", "Goblin", "--ruleset", "homebrew"], "'homebrew'"),
    (["attack", "Aldric", "Goblin", "--crit", "150"], "150"),
    (["attack", "Aldric", "Goblin", "--moved", "-1"], "-1"),
    (["attack", "Aldric", "Goblin", "--seed", "-1"], "-1"),
    (["attack", "Aldric", "Goblin", "--shield", "Buckler"], "--shield"),
    (["attack", "Aldric", "Goblin", "--reaction", "block"], "Goblin has no shield"),
    (["attack", "Aldric", "Goblin", "--reaction", "block", "--shield", "Pavise"], "'Pavise'"),
    (
        ["attack", "Goblin", "Aldric", "--reaction", "improvised-block", "--item", "Chair"],
        "'Chair'",
    ),
    (["attack", "Aldric", "Goblin", "--dual-wielding"], "--other-hand"),
    (["attack", "Oak Door", "Goblin"], "--weapon"),
    (["attack", "missing.json", "Goblin"], "missing.json"),
    (["attack", "Aldric", "Goblin", "--catalog", "nowhere.json"], "nowhere.json"),
    (["cast", "Sera", "Goblin", "--element", "acid"], "'acid'"),
    (["cast", "Sera", "Goblin", "--power-damage", "d6"], "'d6'"),
    (["cast", "Sera", "Goblin", "--weapon", "Dagger"], "--combined"),
    (["cast", "Sera", "Aldric", "--reaction", "parry", "--reaction-weapon", "Long Sword"], "Block"),
    (["cast", "Sera", "Goblin", "--dice", "damage=3"], "cast="),
    (["cast", "Sera", "Goblin", "--dice", "cast=101"], "101"),
    (["cast", "Sera", "Goblin", "--spell-power", "-2"], "-2"),
    (["test", "--stat", "FOO"], "'FOO'"),
    (["test", "--stat", "STR"], "STR"),
    (["test"], "--stat"),
    (["test", "Nobody", "--stat", "STR"], "'Nobody'"),
    (["test", "--stat", "5", "--dice", "21"], "21"),
    (["test", "--stat", "5", "--dice", "3,4"], "2 were given"),
    (["test", "--stat", "5", "--advantage", "-2"], "-2"),
    (["rolloff", "--stat", "3", "--dice", "12"], "1 was given"),
    (["rolloff", "--stat", "3", "--acting-size", "giant"], "'giant'"),
    (["rolloff", "--stat", "3", "--dice", "acting=12"], "both"),
]


@pytest.mark.parametrize(("args", "named"), BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_exits_2_with_one_sentence(args: list[str], named: str, cli: Run) -> None:
    assert named in refusal(run(args, *cli))
