"""The Realm of Strife rows of docs/rules.md's "Worked examples" table, one named test per row."""

from __future__ import annotations

from fractions import Fraction

from strife_builders import attack, sheet, shield, weapon

from tableside.strife.casting import spell_power_share
from tableside.strife.damage import absorb
from tableside.strife.hit import HitOutcome, HitRule, classify_hit, crit_threshold
from tableside.strife.penalties import ClumsySource, PenaltyContext, weapon_use
from tableside.strife.reactions import Family, block_and_parry, reaction_test_with_natural
from tableside.strife.ruleset import STANDARD
from tableside.strife.turns import AooTracker, FreeAttack, MoveCause, RoundTracker, disengage


def test_s15_worked_example_power_2_one_roll_6_targets_1_resists_gives_1_each() -> None:
    hit = 6 - 1
    assert spell_power_share(2, hit) == 1  # 2 / 5 = 0.4 → 1


def test_s15_worked_example_power_5_separate_rolls_3_targets_gives_5_each() -> None:
    assert [spell_power_share(5, 3, separate_rolls=True) for _ in range(3)] == [5, 5, 5]


def test_s10_worked_example_str_16_sword_and_shield_combined_block_is_d20_plus_12() -> None:
    warrior = sheet("Warrior", strength=16, agility=8)
    reaction = block_and_parry(warrior, shield("Kite Shield"), weapon("Long Sword"), Family.BLOCK)
    foe = sheet("Foe")
    tests = {n: reaction_test_with_natural(reaction, warrior, foe, n, STANDARD) for n in (8, 9)}
    assert tests[9].total - 9 == 12
    assert (tests[8].total, tests[8].success) == (20, False)
    assert (tests[9].total, tests[9].success) == (21, True)


def test_s7_worked_example_crit_chance_12_percent_crits_on_naturals_89_to_100() -> None:
    rule = HitRule(ac=20, crit_chance=12)
    critical = [n for n in range(1, 101) if classify_hit(n, n, rule) == HitOutcome.CRITICAL_HIT]
    assert critical == list(range(89, 101))
    assert crit_threshold(12) == 89
    attacker = sheet("Attacker", crit=12)
    assert attack(88, attacker=attacker, damage=(4,)).outcome == HitOutcome.HIT
    assert attack(89, attacker=attacker, damage=(4,)).damage.total == 8  # type: ignore[union-attr]


def test_s16_worked_example_trained_axeman_throwing_a_battle_axe_is_clumsy_15_range_str_half() -> (
    None
):
    axeman = sheet("Axeman", strength=14, proficiencies=("Axes",))
    use = weapon_use(axeman, weapon("Battle Axe"), PenaltyContext(thrown=True))
    assert use.clumsy == (ClumsySource.NOT_THROWN,)
    assert [p.amount for p in use.parts] == [-15]
    assert use.range == Fraction(14, 2)
    assert not use.trained


def test_s18_worked_example_dual_wielder_4_enemies_disengage_gives_2_free_attacks() -> None:
    aoo, rounds = AooTracker(), RoundTracker()
    free_attacks: list[FreeAttack] = []
    for enemy in ("E1", "E2", "E3", "E4"):
        aoo, rounds, free = disengage(
            aoo, rounds, enemy, MoveCause.REGULAR_MOVE, {"Duelist": ("Sword", "Dirk")}
        )
        free_attacks += free
    assert len(free_attacks) == 2
    assert {a.weapon for a in free_attacks} == {"Sword", "Dirk"}


def test_s21_worked_example_door_10_hp_50_percent_takes_7_is_left_with_8() -> None:
    absorbed, lost, hp = absorb(10, 50, 7)
    assert (absorbed, lost, hp) == (5, 2, 8)
    assert absorb(hp, 50, 7)[0] == 4  # "it then absorbs 4"
