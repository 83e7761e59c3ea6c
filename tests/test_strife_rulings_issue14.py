"""Named tests for the Realm of Strife fixes of issue 14 (S-20, S-22, S-24, SA-6 …)."""

from __future__ import annotations

from fractions import Fraction

from strife_builders import attack, custom_weapon, sheet, shield, weapon

from tableside.strife import reactions
from tableside.strife.attack import AttackSetup
from tableside.strife.catalog import builtin_catalog
from tableside.strife.checks import Contestant, Winner, roll_off_with_naturals
from tableside.strife.damage import DamageBasis
from tableside.strife.odds import attack_odds
from tableside.strife.odds_oracle import brute_force_attack_odds
from tableside.strife.records import Part
from tableside.strife.ruleset import STANDARD, UNCAPPED_SIZE
from tableside.strife.size import CreatureSize, size_difference

CATALOG = builtin_catalog()
ALDRIC = CATALOG.combatant("Aldric")
GOBLIN = CATALOG.combatant("Goblin")


# --- item 1: S-20 the eleven-step creature-size ladder ---------------------------------------


def test_s20_the_ladder_has_eleven_published_steps() -> None:
    ladder = {size.value: size.modifier for size in CreatureSize}
    assert ladder == {
        "micro": -32, "fine": -16, "diminutive": -8, "tiny": -4, "small": -2, "medium": 0,
        "large": 2, "huge": 4, "massive": 8, "gargantuan": 16, "colossal": 32,
    }  # fmt: skip
    assert size_difference(CreatureSize.MASSIVE, CreatureSize.FINE, UNCAPPED_SIZE) == 24
    assert size_difference(CreatureSize.MASSIVE, CreatureSize.FINE, STANDARD) == 10


def test_s20_a_small_goblin_blocks_at_minus_2() -> None:
    kite = reactions.block(GOBLIN, shield("Kite Shield"))
    test = reactions.reaction_test_with_natural(kite, GOBLIN, ALDRIC, 19, STANDARD)
    assert GOBLIN.size == CreatureSize.SMALL and ALDRIC.size == CreatureSize.MEDIUM
    assert Part("size difference", -2) in test.parts
    assert test.total == 19 + (8 - 10) + 1 - 2  # an untrained Kite Shield: Block 4 ÷ 4 (SA-10)


def test_s20_a_large_model_wins_a_roll_off_by_2_not_4() -> None:
    ogre = Contestant("Ogre", Part("STR", 0), size=CreatureSize.LARGE)
    man = Contestant("Man", Part("STR", 0))
    assert roll_off_with_naturals(ogre, man, (10, 13)).winner == Winner.OPPOSING
    assert roll_off_with_naturals(ogre, man, (10, 12)).winner == Winner.ACTING  # tie


def test_s20_exact_block_odds_of_a_small_defender_follow_the_ladder() -> None:
    """A Small STR 15 defender with a Kite Shield: +5 +4 −2, so naturals 14–19 succeed."""
    defender = sheet("Small Guard", strength=15, size=CreatureSize.SMALL, ac=0)
    setup = AttackSetup(
        attacker=ALDRIC,
        defender=defender,
        weapon=weapon("Long Sword"),
        reaction=reactions.block(defender, shield("Kite Shield")),
    )
    odds = attack_odds(setup)
    assert odds == brute_force_attack_odds(setup)
    chances = dict(zip(odds.reaction.labels, odds.reaction.probabilities, strict=True))
    assert (chances["success"], chances["critical"]) == (Fraction(6, 20), Fraction(1, 20))


# --- item 3: SA-6 minimum damage is never below 0 -------------------------------------------

WEAKLING = sheet("Weakling", strength=2)  # Strength −2 (S-14)
CUDGEL = custom_weapon("Cudgel", damage="1d4-1", crushing_blow=2)  # minimum 1 − 1 − 2 = −2
SHIELDED = sheet("Shielded", strength=14)  # Kite Shield Block: natural 13 + 4 + 4 = 21


def _blocked() -> AttackSetup:
    return AttackSetup(
        attacker=WEAKLING,
        defender=SHIELDED,
        weapon=CUDGEL,
        reaction=reactions.block(SHIELDED, shield("Kite Shield")),
    )


def test_sa06_a_negative_minimum_damage_does_not_eat_the_crushing_blow() -> None:
    kite = reactions.block(SHIELDED, shield("Kite Shield"))
    result = attack(50, reaction_die=13, attacker=WEAKLING, defender=SHIELDED, weapon_used=CUDGEL,
                    reaction=kite)  # fmt: skip
    assert result.damage is not None and result.damage.basis == DamageBasis.MINIMUM
    assert Part("minimum damage cannot be negative", 2) in result.damage.parts
    assert result.damage.total == 2  # max(0, −2) + Crushing Blow 2


def test_sa06_a_blocked_melee_crit_doubles_the_clamped_minimum_plus_crushing_blow() -> None:
    critter = WEAKLING.model_copy(update={"crit_chance": 5})
    result = attack(98, reaction_die=13, attacker=critter, defender=SHIELDED, weapon_used=CUDGEL,
                    reaction=reactions.block(SHIELDED, shield("Kite Shield")))  # fmt: skip
    assert result.damage is not None and result.damage.total == (0 + 2) * 2


def test_sa06_exact_odds_of_a_blocked_weak_hit_follow_the_clamp() -> None:
    setup = _blocked()
    odds = attack_odds(setup)
    assert odds == brute_force_attack_odds(setup)
    # Hit 4/5 × Block (success or critical) 8/20: every blocked hit deals exactly 2.
    basis = dict(zip(odds.damage_basis.labels, odds.damage_basis.probabilities, strict=True))
    assert basis["minimum"] == odds.damage.p(2) == Fraction(8, 25)
    # Unblocked hits 12/25 deal max(0, d4 − 3): 1 on a 4 only.
    assert odds.damage.p(1) == Fraction(3, 25)
