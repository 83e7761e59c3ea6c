"""Exact odds of a physical attack (issue 5): ``attack_odds`` against three oracles.

* brute force: every die sequence run through the real ``roll_attack`` (``odds_oracle``), equal
  fraction for fraction, one case per rule the law depends on (S-7 … S-21, SA-6, SA-19, SA-20);
* Monte Carlo: the engine with a seeded Rng, within 5 binomial standard errors;
* icepool: the damage law written from the rule text as icepool dice (sums, keep-lowest of two
  d100 for a Precision Attack, mixtures by hit outcome), where it can express the attack.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import icepool  # type: ignore[import-untyped]
import pytest
from strife_builders import custom_weapon, refused, sheet, shield, weapon

from tableside.strife import reactions
from tableside.strife.attack import AttackSetup, impale_setup, resolve_impale
from tableside.strife.catalog import PercentEffect, Weapon
from tableside.strife.damage import DamageBasis, DamageInputs
from tableside.strife.dice import parse_dice
from tableside.strife.odds import (
    attack_odds,
    impale_odds,
    simulate_attacks,
    warded_off_chance,
)
from tableside.strife.odds_damage import damage_law, dice_sum_counts, faces_summing_to
from tableside.strife.odds_law import AttackOdds, AttackTally
from tableside.strife.odds_oracle import brute_force_attack_odds, every_sequence, resolutions
from tableside.strife.penalties import PenaltyContext
from tableside.strife.records import Part
from tableside.strife.ruleset import CRIT_REQUIRES_HIT
from tableside.strife.size import CreatureSize, WeaponSize


def with_effects(base: Weapon, *effects: tuple[str, int]) -> Weapon:
    return base.model_copy(
        update={"effects": tuple(PercentEffect(name=n, chance=c) for n, c in effects)}
    )


ATTACKER = sheet("Attacker", strength=16, crit=10, initiative=4)
DEFENDER = sheet("Defender", ac=40, dodge=15, agility=14, strength=15, hp=9)
FLAIL = custom_weapon("Flail", damage="1d3+1", crushing_blow=2)
MAUL = with_effects(custom_weapon("Maul", damage="1d2", crushing_blow=1), ("Stun", 30))
SPEAR = custom_weapon("Pike", damage="1d4", group="Spears", ward_off=True, reach=1)
BOW = custom_weapon("Bow", damage="1d4", group="Bows", ranged=True)


def setup(**options: Any) -> AttackSetup:
    values: dict[str, Any] = {"attacker": ATTACKER, "defender": DEFENDER, "weapon": FLAIL}
    return AttackSetup(**{**values, **options})


# --- brute force: every die sequence through roll_attack ------------------------------------

CASES: dict[str, AttackSetup] = {
    "s07-no-reaction": setup(),
    "sa19-percent-effect": setup(weapon=MAUL, defender_ac=85),
    "s07-precision": setup(precision=True, weapon=custom_weapon("Club", damage="1d2")),
    "s07-crit-requires-hit": setup(ruleset=CRIT_REQUIRES_HIT, hit_modifiers=(Part("aim", -20),)),
    "s07-auto-miss": setup(hit_modifiers=(Part("blinded", -60),), defender_ac=5),
    "s10-block-melee-crushing-blow": setup(reaction=reactions.block(DEFENDER, shield("Buckler"))),
    "s10-block-ranged-crushing-only": setup(
        weapon=BOW, reaction=reactions.block(DEFENDER, shield("Kite Shield"))
    ),
    "s11-parry-failure-ignores-dodge": setup(
        reaction=reactions.parry(DEFENDER, weapon("Long Sword"))
    ),
    "s11-parry-crit-requires-hit": setup(
        ruleset=CRIT_REQUIRES_HIT, reaction=reactions.parry(DEFENDER, weapon("Long Sword"))
    ),
    "s16-sa26-thrown-after-moving": setup(
        weapon=weapon("Dagger"), context=PenaltyContext(inches_moved=2, thrown=True)
    ),
    "s11-combined-parry": setup(
        reaction=reactions.combined_parry(DEFENDER, weapon("Long Sword"), weapon("Dagger"))
    ),
    "s11-block-and-parry": setup(
        reaction=reactions.block_and_parry(
            DEFENDER, shield("Kite Shield"), weapon("Long Sword"), reactions.Family.BLOCK
        )
    ),
    "s12-improvised-parry": setup(reaction=reactions.improvised_parry(weapon("Battle Axe"))),
    "s12-improvised-block": setup(reaction=reactions.improvised_block("Stool", WeaponSize.S)),
    "s13-ward-off": setup(
        weapon=custom_weapon("Club", damage="1d2"),
        defender=DEFENDER.model_copy(update={"ac": 70}),
        reaction=reactions.ward_off(DEFENDER, SPEAR),
    ),
    "s14-sa06-weak-strength-never-negative": setup(
        attacker=sheet("Weakling", strength=2, crit=20), weapon=custom_weapon(damage="1d4-1")
    ),
    "s16-dual-wielding-no-crit": setup(
        weapon=custom_weapon("Sabre", damage="1d6"),
        context=PenaltyContext(other_hand=custom_weapon("Sabre", damage="1d6")),
        defender_ac=10,
    ),
    "s20-size-in-the-block-test": setup(
        attacker=ATTACKER.model_copy(update={"size": CreatureSize.HUGE}),
        reaction=reactions.block(DEFENDER, shield("Kite Shield"), (Part("brace", 3),)),
    ),
    "s21-absorption": setup(
        defender=sheet("Door", ac=0, hp=10, absorption=50), weapon=custom_weapon(damage="2d4")
    ),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_attack_odds_equal_every_die_sequence_through_the_engine(case: str) -> None:
    exact = attack_odds(CASES[case])
    assert exact == brute_force_attack_odds(CASES[case])
    assert exact.damage.total == 1 and sum(p for _, p in exact.outcome.items()) == 1


def test_s07_precision_keeps_the_lower_of_two_d100s_in_every_sequence() -> None:
    sequences = list(every_sequence(CASES["s07-precision"]))
    assert all(result.hit_naturals == prefix[:2] for _, prefix, result in sequences)
    assert sum(w for w, _, _ in sequences) == 1


def test_sa19_sa38_sa39_effects_with_full_damage_defeat_at_hp_a_condition_counts_once() -> None:
    """SA-19 effects need full damage; SA-38 P(defeat) = P(damage ≥ HP); SA-39 counts once."""
    plain = attack_odds(setup(weapon=MAUL), hp=4)
    blocked = attack_odds(setup(weapon=MAUL, reaction=reactions.block(DEFENDER, shield("Buckler"))))
    for odds in (plain, blocked):
        full = odds.damage_basis[DamageBasis.FULL.value]
        assert odds.conditions["defender: Stun"] == full * Fraction(30, 100)
    assert blocked.damage_basis[DamageBasis.MINIMUM.value] > 0
    assert plain.defeat == plain.damage.at_least(4) and plain.hp == 4
    twice = attack_odds(setup(weapon=with_effects(FLAIL, ("Stun", 30), ("Stun", 50))))
    full = twice.damage_basis[DamageBasis.FULL.value]
    assert twice.conditions["defender: Stun"] == full * (1 - Fraction(70, 100) * Fraction(50, 100))


def test_s07_vulnerable_is_the_critical_miss_chance() -> None:
    odds = attack_odds(setup(precision=True))
    miss = odds.outcome["critical_miss"]
    assert odds.conditions["attacker: Vulnerable"] == miss
    assert miss == 1 - Fraction(95 * 95, 100 * 100)  # both d100 above 5 (S-7)


def test_s13_ward_off_chance_over_all_400_pairs() -> None:
    # Initiative 4 vs 5 (default sheet): the defender must win, ties to the attacker.
    case = CASES["s13-ward-off"]
    wins = sum(1 for a in range(1, 21) for b in range(1, 21) if b + 5 > a + 4)
    assert warded_off_chance(case) == Fraction(wins, 400)
    assert attack_odds(case).outcome["warded_off"] == Fraction(wins, 400)


def test_s13_sa22_impale_equals_every_die_sequence_of_resolve_impale() -> None:
    # The impaler (Initiative 4) needs 17+ on the d20; its attack gets +3 for 3" moved.
    pike = custom_weapon("Pike", damage="1d2", group="Spears", impale=True)
    attack = setup(weapon=pike, defender=DEFENDER.model_copy(update={"ac": 60}))
    odds = impale_odds(attack, 3, hp=4)
    sequences = list(resolutions(lambda rng: resolve_impale(attack, 3, rng)))
    made = [(w, r.attack) for w, _, r in sequences if r.attack is not None]
    passes = sum(w for w, _ in made)
    assert odds.passes == passes == Fraction(4, 20)
    tally = AttackTally()
    for weight, result in made:
        tally.add_result(weight / passes, result)
    assert odds.attack == tally.odds(attack_odds(impale_setup(attack, 3), hp=4).setup)
    assert odds.defeat == passes * odds.attack.defeat


def test_sa31_hp_below_one_and_an_s13_impale_are_refused() -> None:
    refused(attack_odds, setup(), hp=0, match="at least 1")
    impale = reactions.impale(DEFENDER, custom_weapon("Pike", group="Spears", impale=True))
    refused(attack_odds, setup(reaction=impale), match="Impale")
    refused(simulate_attacks, setup(), 0, 1, match="at least 1 attack")


# --- the damage dice ---------------------------------------------------------------------------


@pytest.mark.parametrize(("count", "sides"), [(1, 2), (2, 6), (3, 4), (4, 10), (2, 100)])
def test_s14_sum_counts_and_faces_against_icepool(count: int, sides: int) -> None:
    die = count @ icepool.d(sides)
    counts = dice_sum_counts(count, sides)
    assert {count + i: c for i, c in enumerate(counts)} == {
        int(v): int(q) * sides**count // die.denominator() for v, q in die.items()
    }
    for total in range(count, count * sides + 1):
        faces = faces_summing_to(total, count, sides)
        assert sum(faces) == total and all(1 <= f <= sides for f in faces)


def icepool_law(die: Any) -> dict[int, Fraction]:
    return {int(v): Fraction(int(q), die.denominator()) for v, q in die.items() if q}


@pytest.mark.parametrize(
    ("expr", "strength", "crit"), [("2d6+2", 3, False), ("1d4-1", -2, True), ("3d8", 1, True)]
)
def test_s14_full_damage_law_agrees_with_icepool(expr: str, strength: int, crit: bool) -> None:
    dice = parse_dice(expr)
    flat = dice.flat
    inputs = DamageInputs(dice, strength, (Part("bonus", 1),), crit=crit)
    expected = (dice.count @ icepool.d(dice.sides)).map(
        lambda s: max(0, s + flat + strength + 1) * (2 if crit else 1)
    )
    assert damage_law(setup(), inputs) == icepool_law(expected)


def rule_text_damage(odds_setup: AttackSetup) -> Any:
    """The attack without a reaction, written from S-7 and S-14 as icepool dice."""
    a, d, w = odds_setup.attacker, odds_setup.defender, odds_setup.weapon.dice
    modifier = sum(p.amount for p in odds_setup.hit_modifiers)
    strength = {16: 1, 20: 3, 12: 0}[a.stats.STR]
    rolled = (w.count @ icepool.d(w.sides)).map(lambda s: max(0, s + w.flat + strength))

    def by_natural(natural: int) -> Any:
        if natural <= a.critical_miss_chance or natural + modifier <= 0:
            return 0
        if natural >= 101 - a.crit_chance:
            return rolled.map(lambda v: 2 * v)
        if natural <= d.dodge or natural + modifier <= odds_setup.ac:
            return 0
        return rolled

    d100 = icepool.d(100)
    natural = icepool.lowest(d100, d100) if odds_setup.precision else d100
    return natural.map(by_natural)


@pytest.mark.parametrize("precision", [False, True], ids=["s07-single", "s07-precision"])
@pytest.mark.parametrize("modifier", [-30, 0, 25])
def test_s07_s14_damage_without_reaction_agrees_with_icepool(
    precision: bool, modifier: int
) -> None:
    case = setup(
        attacker=sheet("Brute", strength=20, crit=12),
        weapon=custom_weapon(damage="2d6+1"),
        precision=precision,
        hit_modifiers=(Part("m", modifier),),
    )
    assert dict(attack_odds(case).damage.items()) == icepool_law(rule_text_damage(case))


# --- Monte Carlo -------------------------------------------------------------------------------


def within(estimate: Fraction, p: Fraction, n: int, label: str) -> None:
    sd = math.sqrt(float(p * (1 - p)) / n)
    assert abs(float(estimate - p)) <= 5 * sd + 1 / n, (label, float(estimate), float(p))


def agrees(estimate: AttackOdds, exact: AttackOdds) -> None:
    n = estimate.samples or 0
    for name in ("outcome", "reaction", "damage_basis", "conditions", "damaged_items"):
        for label, p in getattr(exact, name).items():
            within(getattr(estimate, name)[label], p, n, f"{name} {label}")
    for value, p in exact.damage.items():
        within(estimate.damage.p(value), p, n, f"damage {value}")
    within(estimate.defeat, exact.defeat, n, "defeat")
    assert abs(float(estimate.damage.mean - exact.damage.mean)) <= 5 * exact.damage.sd / n**0.5


@pytest.mark.parametrize(
    "case", ["s11-parry-failure-ignores-dodge", "s12-improvised-block", "sa19-two-stuns"], ids=str
)
def test_monte_carlo_agrees_with_the_exact_law(case: str) -> None:
    cases = {
        **CASES,
        "sa19-two-stuns": setup(weapon=with_effects(FLAIL, ("Stun", 30), ("Stun", 50))),
    }
    exact = attack_odds(cases[case], hp=5)
    estimate = simulate_attacks(cases[case], 6000, seed=11, hp=5)
    assert estimate.samples == 6000 and not estimate.exact
    agrees(estimate, exact)
    again = simulate_attacks(cases[case], 50, seed=11, hp=5)
    assert again == simulate_attacks(cases[case], 50, seed=11, hp=5)
