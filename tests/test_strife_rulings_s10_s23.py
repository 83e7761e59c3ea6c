"""One or more named tests per Realm of Strife ruling, S-10 … S-23."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from strife_builders import attack, custom_weapon, refused, sheet, shield, weapon

from tableside.strife.attack import AttackDice, AttackResult, AttackSetup, impale_with_dice
from tableside.strife.casting import CastDice, CastSetup, Power, cast_with_dice, spell_power_share
from tableside.strife.catalog import Element, Pool, Resource, builtin_catalog
from tableside.strife.conditions import (
    DISARMED,
    EXHAUSTION,
    KNOCKED_DOWN,
    VULNERABLE,
    Condition,
    add_condition,
    condition,
    end_condition,
    has_condition,
    tick_round,
)
from tableside.strife.damage import DamageBasis, minimum_damage, strength_modifier
from tableside.strife.dice import parse_dice
from tableside.strife.hit import HitOutcome
from tableside.strife.limits import PlannedAttack, check_4_3_2, violations_4_3_2
from tableside.strife.loadout import effective_ac
from tableside.strife.movement import Leg, MoveMode, path_cost
from tableside.strife.penalties import (
    ClumsySource,
    PenaltyContext,
    armour_class,
    shield_block_advantage,
    submerged_miscast_bonus,
    submerged_resistance_bonus,
    water_distance,
    weapon_use,
)
from tableside.strife.reactions import (
    Family,
    Reaction,
    block,
    block_and_parry,
    combined_parry,
    impale,
    improvised_block,
    improvised_parry,
    parry,
    reaction_test_with_natural,
    ward_off,
)
from tableside.strife.records import Part
from tableside.strife.resources import end_of_combat, start_of_combat
from tableside.strife.ruleset import STANDARD, UNCAPPED_SIZE
from tableside.strife.size import CreatureSize, WeaponSize, size_difference
from tableside.strife.turns import (
    AooTracker,
    MoveCause,
    RoundTracker,
    disengage,
    provokes,
    roll_with_the_blow,
)

CRUSHER = custom_weapon("Crusher", damage="1d8+1", crushing_blow=2)
BOW = custom_weapon("Bow", damage="1d6", group="Bows", ranged=True)
DEFENDER = sheet("Defender", strength=14, agility=14)  # Block and Parry tests at +4
KITE = shield("Kite Shield")  # Block +4: with STR 14, a natural 13 totals 21


def defend(hit: int, die: int, reaction: Reaction, **options: Any) -> AttackResult:
    """An attack on DEFENDER with CRUSHER (unless overridden) met by ``reaction``."""
    options.setdefault("weapon_used", CRUSHER)
    return attack(hit, reaction_die=die, defender=DEFENDER, reaction=reaction, **options)


BLOCK = block(DEFENDER, KITE)
PARRY = parry(DEFENDER, weapon("Long Sword"))  # AGIL 14 + Parry 2: natural 15 totals 21
CRIT = sheet("Attacker", crit=5)


# --- S-10 Block -------------------------------------------------------------------------------


def test_s10_block_vs_melee_hit_leaves_minimum_damage_plus_crushing_blow() -> None:
    result = defend(50, 13, BLOCK)
    assert result.damage is not None
    assert (result.damage.basis, result.damage.total) == (DamageBasis.MINIMUM, 2 + 2)


def test_s10_block_vs_ranged_hit_leaves_only_crushing_blow() -> None:
    crossbow = custom_weapon("Crossbow", group="Bows", ranged=True, crushing_blow=1)
    result = defend(50, 13, BLOCK, weapon_used=crossbow)
    assert result.damage is not None and result.damage.total == 1


def test_s10_block_vs_melee_crit_doubles_minimum_plus_crushing_and_damages_the_shield() -> None:
    result = defend(99, 13, BLOCK, attacker=CRIT)
    assert result.damage is not None and result.damage.total == 2 * (2 + 2)
    assert result.damaged_items == ("Kite Shield",)


def test_s10_ranged_crit_is_only_stopped_by_a_critical_block() -> None:
    bow = custom_weapon("Bow", group="Bows", ranged=True, damage="1d6")
    result = defend(99, 19, BLOCK, attacker=CRIT, weapon_used=bow, damage=(3,))
    assert result.damage is not None and result.damage.total == 6
    critical = defend(99, 20, BLOCK, attacker=CRIT, weapon_used=bow)
    assert critical.damage is not None and critical.damage.total == 0


def test_s10_critical_block_turns_a_crit_into_a_regular_blocked_hit() -> None:
    result = defend(99, 20, BLOCK, attacker=CRIT)
    assert result.damage is not None
    assert (result.damage.total, result.damage.crit_multiplier, result.damaged_items) == (4, 1, ())


def test_s10_failed_block_takes_full_damage_without_crushing_blow() -> None:
    result = defend(50, 12, BLOCK, damage=(6,))
    assert result.damage is not None
    assert (result.damage.total, result.damage.crushing_blow) == (7, 0)


# --- S-11 Parry -------------------------------------------------------------------------------


def test_s11_successful_parry_leaves_no_damage() -> None:
    result = defend(50, 15, PARRY)
    assert (result.outcome, result.damage) == (HitOutcome.HIT, None)


def test_s11_parried_crit_knocks_the_weapon_away_unless_critical_parry() -> None:
    result = defend(99, 15, PARRY, attacker=CRIT)
    assert [(i.condition.name, i.condition.automated) for i in result.inflicted] == [
        (DISARMED, True)
    ]
    assert defend(99, 20, PARRY, attacker=CRIT).inflicted == ()


def test_s11_failed_parry_makes_the_attack_ignore_dodge() -> None:
    dodgy = DEFENDER.model_copy(update={"dodge": 60})
    plain = attack(50, defender=dodgy)
    failed = attack(50, reaction_die=14, defender=dodgy, reaction=PARRY, damage=(4,))
    assert (plain.outcome, failed.outcome) == (HitOutcome.DODGE, HitOutcome.HIT)


def test_s11_only_melee_attacks_can_be_parried() -> None:
    bow = custom_weapon("Bow", group="Bows", ranged=True)
    refused(defend, 50, 15, PARRY, weapon_used=bow, match="only against a melee")


def test_s11_combined_parry_adds_both_hands() -> None:
    both = combined_parry(DEFENDER, weapon("Long Sword"), weapon("Dagger"))
    assert sum(p.amount for p in both.advantage) == 3


def test_s11_block_and_parry_with_the_parry_stat_resolves_as_a_parry() -> None:
    combo = block_and_parry(DEFENDER, KITE, weapon("Long Sword"), Family.PARRY)
    result = defend(50, 11, combo)  # 11 + 4 (AGIL) + 4 + 2 = 21
    assert result.reaction is not None and result.reaction.test.total == 21
    assert result.damage is None


def test_s11_untrained_weapon_cannot_parry() -> None:
    novice = sheet("Novice", proficiencies=())
    refused(parry, novice, weapon("Long Sword"), match="not trained")


# --- S-12 improvised --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "advantage"),
    [(WeaponSize.S, -1), (WeaponSize.M, 0), (WeaponSize.L, 1), (WeaponSize.XL, 1)],
)
def test_s12_improvised_size_modifier(size: WeaponSize, advantage: int) -> None:
    assert improvised_block("tray", size).advantage[0].amount == advantage


def test_s12_improvised_natural_10_or_less_knocks_the_item_away_whatever_the_total() -> None:
    axe = improvised_parry(weapon("Battle Axe"))
    strong = DEFENDER.model_copy(update={"stats": DEFENDER.stats.model_copy(update={"AGIL": 30})})
    result = attack(50, reaction_die=10, defender=strong, reaction=axe)
    assert result.reaction is not None and result.reaction.test.success
    assert [i.condition.name for i in result.inflicted] == [DISARMED]
    assert result.damaged_items == ()


def test_s12_improvised_natural_5_or_less_also_damages_the_item() -> None:
    result = defend(50, 5, improvised_block("door plank", WeaponSize.L), damage=(3,))
    assert result.damaged_items == ("door plank",)


# --- S-13 Ward-off and Impale -----------------------------------------------------------------

SPEARMAN = sheet("Spearman", initiative=5)
WARD = ward_off(SPEARMAN, weapon("Spear"))


def test_s13_ward_off_success_stops_the_attack_before_the_hit_roll() -> None:
    result = attack(
        (), ward_off=(10, 11), defender=SPEARMAN, reaction=WARD, weapon_used=weapon("Long Sword")
    )
    assert (result.warded_off, result.outcome, result.hit_naturals) == (True, None, ())


def test_s13_ward_off_ties_go_to_the_attacker() -> None:
    result = attack(
        50,
        ward_off=(10, 10),
        defender=SPEARMAN,
        reaction=WARD,
        weapon_used=weapon("Long Sword"),
        damage=(4,),
    )
    assert (result.warded_off, result.outcome) == (False, HitOutcome.HIT)


def test_s13_ward_off_needs_reach_at_least_the_attackers() -> None:
    refused(
        attack,
        50,
        ward_off=(1, 20),
        defender=SPEARMAN,
        reaction=WARD,
        weapon_used=weapon("Halberd"),
        match="Reach",
    )


def test_s13_impale_hits_first_with_one_damage_per_inch_moved() -> None:
    setup = AttackSetup(SPEARMAN, sheet("Charger"), weapon("Spear"))
    result = impale_with_dice(setup, 4, 16, AttackDice((50,), damage=(3,)))
    assert result.test.success and result.attack is not None
    assert result.attack.total_damage == 3 + 4
    assert impale_with_dice(setup, 4, 15, None).attack is None
    assert impale(SPEARMAN, weapon("Spear")).stat.value == "INIT"


# --- S-14 damage ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strength", "modifier"),
    [
        (0, -2),
        (3, -2),
        (4, -1),
        (7, -1),
        (8, 0),
        (14, 0),
        (15, 1),
        (17, 1),
        (18, 2),
        (19, 2),
        (20, 3),
    ],
)
def test_s14_strength_modifier_table(strength: int, modifier: int) -> None:
    assert strength_modifier(strength) == modifier


def test_s14_crit_doubles_the_whole_total() -> None:
    strong = sheet("Strong", strength=18, crit=5)
    result = attack(99, attacker=strong, damage=(5,), damage_bonuses=(Part("rune", 1),))
    assert result.damage is not None and result.damage.total == 2 * (5 + 2 + 1)


def test_s14_minimum_damage_is_lowest_dice_plus_flat() -> None:
    assert minimum_damage(parse_dice("2d6+2"), 1) == 2 + 2 + 1


def test_s14_ranged_weapons_add_no_strength() -> None:
    result = attack(50, attacker=sheet("Archer", strength=20), weapon_used=BOW, damage=(4,))
    assert result.damage is not None and result.damage.strength_modifier == 0


def test_s14_damage_is_never_negative() -> None:
    weak = sheet("Weak", strength=2)
    result = attack(50, attacker=weak, weapon_used=custom_weapon(damage="1d4"), damage=(1,))
    assert result.total_damage == 0


# --- S-15 spell power -------------------------------------------------------------------------


def test_s15_shares_round_half_up_and_never_below_1() -> None:
    assert (spell_power_share(5, 2), spell_power_share(1, 3), spell_power_share(0, 3)) == (3, 1, 0)
    refused(spell_power_share, -1, 2, match="negative")


def test_s15_a_cast_adds_its_spell_power_share_to_damage() -> None:
    setup = CastSetup(
        sheet("Mage"),
        sheet("Target"),
        Power("Bolt", Element.ARCANE, "1d6"),
        spell_power=spell_power_share(2, 5),
    )
    result = cast_with_dice(setup, CastDice(50, damage=(4,)))
    assert result.damage is not None and result.damage.total == 5
    assert "S-15" in result.rulings


# --- S-16 penalties ---------------------------------------------------------------------------


def test_s16_moving_and_shooting_and_flying() -> None:
    use = weapon_use(sheet("Archer"), BOW, PenaltyContext(inches_moved=3, flying=True))
    assert [p.amount for p in use.parts] == [-15, -5]


def test_s16_dual_wielding_beyond_two_small_weapons_without_the_skill() -> None:
    sword, dagger = weapon("Long Sword"), weapon("Dagger")
    use = weapon_use(sheet("Brawler"), sword, PenaltyContext(other_hand=dagger))
    assert ([p.amount for p in use.parts], use.can_crit) == ([-20], False)
    assert weapon_use(sheet("B"), dagger, PenaltyContext(other_hand=dagger)).parts == ()
    skilled = sheet("Duelist", skills=("Dual Wield",))
    assert weapon_use(skilled, sword, PenaltyContext(other_hand=dagger)).can_crit


def test_s16_no_proficiency_clumsy_5_per_size_and_no_attributes() -> None:
    use = weapon_use(sheet("Novice", proficiencies=()), weapon("Halberd"), PenaltyContext())
    assert ([p.amount for p in use.parts], use.attributes_usable) == ([-20], False)
    assert use.clumsy == (ClumsySource.NO_PROFICIENCY,)


def test_s16_untrained_thrown_weapon_range_is_halved() -> None:
    use = weapon_use(
        sheet("Novice", proficiencies=()), weapon("Spear"), PenaltyContext(thrown=True)
    )
    assert use.range == 4


def test_s16_untrained_shield_block_divided_by_4_at_least_1() -> None:
    assert shield_block_advantage(KITE, trained=False).amount == 1
    big = KITE.model_copy(update={"block": 10})
    assert shield_block_advantage(big, trained=False).amount == 3  # 2.5 rounds half up


def test_s16_untrained_armour_minus_1_per_piece_noisy_and_stiff() -> None:
    catalog = builtin_catalog()
    aldric = catalog.combatant("Aldric")
    ac = effective_ac(catalog, aldric)
    assert (ac.value, ac.noisy, ac.stiff) == (10 + 15 + 5, True, True)
    assert armour_class(sheet("Bare"), ()).value == 20


def test_s16_underwater_clumsy_and_water_distance_and_fire() -> None:
    use = weapon_use(sheet("Diver"), weapon("Long Sword"), PenaltyContext(underwater=True))
    assert [p.amount for p in use.parts] == [-10]
    aquatic = weapon_use(
        sheet("Merfolk", aquatic=True), weapon("Long Sword"), PenaltyContext(underwater=True)
    )
    assert aquatic.parts == ()
    assert water_distance(3, 2) == 7
    assert submerged_miscast_bonus(Element.FIRE, True) == 25
    assert submerged_resistance_bonus(Element.FROST, True) == 0


# --- S-17 the 4-3-2 rule ----------------------------------------------------------------------


def test_s17_four_three_two() -> None:
    ok = [
        PlannedAttack("Orc", "Sword"),
        PlannedAttack("Orc", "Sword"),
        PlannedAttack("Orc", "Dirk"),
        PlannedAttack("Goblin", "Dirk"),
    ]
    check_4_3_2(ok)
    refused(check_4_3_2, [*ok, PlannedAttack("Goblin", "Dirk")], match="at most 4")
    refused(check_4_3_2, [PlannedAttack("Orc", w) for w in "ABCD"], match="one target")
    refused(check_4_3_2, [PlannedAttack("Orc", "Sword")] * 3, match="with one weapon")


def test_s17_npcs_exempt_and_direct_damage_instants_do_not_count() -> None:
    assert violations_4_3_2([PlannedAttack("Orc", "Claw")] * 6, npc=True) == ()
    instants = [PlannedAttack("Orc", "Bolt", direct_damage_instant=True)] * 5
    assert violations_4_3_2([*instants, PlannedAttack("Orc", "Sword")]) == ()


# --- S-18 disengaging -------------------------------------------------------------------------


def test_s18_only_a_willing_move_on_ones_own_turn_provokes() -> None:
    assert provokes(MoveCause.REGULAR_MOVE)
    assert not provokes(MoveCause.REGULAR_MOVE, own_turn=False)
    forced = (
        MoveCause.ROLL_WITH_THE_BLOW,
        MoveCause.KNOCK_BACK,
        MoveCause.FEAR,
        MoveCause.TAUNT,
        MoveCause.MIND_CONTROL,
        MoveCause.DISENGAGE_ACTION,
    )
    assert not any(provokes(cause) for cause in forced)


def test_s18_aoo_spends_the_reaction_and_weapons_come_back_next_turn() -> None:
    aoo, rounds, free = disengage(
        AooTracker(), RoundTracker(), "Orc", MoveCause.REGULAR_MOVE, {"Knight": ("Sword",)}
    )
    assert len(free) == 1 and not rounds.can_react("Knight")
    _, _, again = disengage(
        aoo.next_turn(), rounds, "Orc2", MoveCause.REGULAR_MOVE, {"Knight": ("Sword",)}
    )
    assert again == ()  # the Reaction of this round is spent


# --- S-19 Roll with the Blow ------------------------------------------------------------------


def test_s19_roll_with_the_blow() -> None:
    rolled = roll_with_the_blow("Aldric", 5, RoundTracker())
    assert (rolled.max_distance, rolled.initiative_penalty) == (Fraction(5, 2), 10)
    assert rolled.condition.name == KNOCKED_DOWN and rolled.condition.automated
    assert not rolled.rounds.can_react("Aldric")


def test_s19_not_after_a_failed_parry() -> None:
    rounds = RoundTracker().spend_reaction("Aldric", failed_parry=True)
    refused(roll_with_the_blow, "Aldric", 5, rounds, match="failed a Parry")


# --- S-20 creature size -----------------------------------------------------------------------


def test_s20_size_difference_capped_at_10_as_an_option() -> None:
    assert size_difference(CreatureSize.COLOSSAL, CreatureSize.MICRO, STANDARD) == 10
    assert size_difference(CreatureSize.MICRO, CreatureSize.COLOSSAL, STANDARD) == -10
    assert size_difference(CreatureSize.COLOSSAL, CreatureSize.MICRO, UNCAPPED_SIZE) == 64


def test_s20_size_difference_enters_block_tests() -> None:
    troll = sheet("Troll", size=CreatureSize.HUGE)
    test = reaction_test_with_natural(BLOCK, DEFENDER, troll, 13, STANDARD)
    assert Part("size difference", -4) in test.parts
    assert not test.success


# --- S-21 Absorption --------------------------------------------------------------------------


def test_s21_an_attack_on_an_object_is_partly_absorbed() -> None:
    door = builtin_catalog().combatant("Oak Door")
    result = attack(50, defender=door, weapon_used=custom_weapon(damage="1d8"), damage=(7,))
    assert result.damage is not None
    assert (result.damage.absorbed, result.damage.total) == (5, 2)


# --- S-22 end of combat -----------------------------------------------------------------------

POOLS = {
    Resource.VIGOR: Pool(current=2, maximum=10),
    Resource.FURY: Pool(current=7, maximum=20),
    Resource.SPIRIT: Pool(current=4, maximum=12),
    Resource.HONOR: Pool(current=3),
    Resource.STEALTH: Pool(current=4, maximum=5),
}


def test_s22_vigor_restored_fury_halves_then_lost_others_carry_over() -> None:
    end = end_of_combat(POOLS)
    assert end.pools[Resource.VIGOR].current == 10
    assert (end.fury_decayed, end.pools[Resource.FURY].current) == (4, 0)  # 3.5 → 4, then lost
    assert end.pools[Resource.SPIRIT] == POOLS[Resource.SPIRIT]
    assert end.pools[Resource.HONOR].current == 3 and end.honor_oaths_may_change


def test_s22_wave_fights_and_quick_follow_ups() -> None:
    end = end_of_combat(POOLS, wave=True, battle_within_2_minutes=True)
    assert (end.pools[Resource.VIGOR].current, end.pools[Resource.FURY].current) == (5, 4)


def test_s22_stealth_starts_at_zero_unless_hiding_was_declared() -> None:
    assert start_of_combat(POOLS)[Resource.STEALTH].current == 0
    assert start_of_combat(POOLS, hiding_declared=True)[Resource.STEALTH].current == 4


# --- S-23 conditions --------------------------------------------------------------------------


def test_s23_undefined_conditions_are_tracked_not_automated() -> None:
    vulnerable = condition(VULNERABLE, "critical miss")
    assert (vulnerable.automated, vulnerable.rounds_left, vulnerable.until) == (
        False,
        None,
        "the Host removes it",
    )
    stun = condition("Stun", "Mace", rounds=1)
    assert tick_round((stun, vulnerable)) == (vulnerable,)
    assert end_condition((vulnerable,), VULNERABLE) == ()


def test_s23_knocked_down_makes_movement_crawling() -> None:
    down = (condition(KNOCKED_DOWN, "Roll with the Blow", until="its next Turn"),)
    assert down[0].automated
    assert path_cost([Leg(2)], down) == 4
    assert path_cost([Leg(2, difficult=True)], down) == 6
    assert path_cost([Leg(2, MoveMode.SWIM)], down) == 4


def test_s23_exhaustion_stacks_add_up() -> None:
    once = add_condition((), condition(EXHAUSTION, "Sprint"))
    twice = add_condition(once, condition(EXHAUSTION, "Climb"))
    assert len(twice) == 1 and twice[0].stacks == 2 and has_condition(twice, EXHAUSTION)


def test_s23_a_condition_needs_a_duration_or_an_until() -> None:
    refused(Condition, "Stun", "Mace", 0, None, match="at least 1 round")
    refused(Condition, "Stun", "Mace", 2, "later", match="not both")
