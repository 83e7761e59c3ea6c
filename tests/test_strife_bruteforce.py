"""Brute force as the oracle of the optimised logic: exact hit odds (S-7) by segments versus
classifying every natural (every pair for a Precision Attack), and the 4-3-2 checker (S-17)
versus counting every limit literally."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from tableside.strife.hit import HitOutcome, HitRule, classify_hit
from tableside.strife.limits import PlannedAttack, violations_4_3_2
from tableside.strife.odds import hit_odds

RULES = [
    HitRule(ac=ac, dodge=dodge, crit_chance=crit, critical_miss_range=miss, can_crit=can,
            ignore_dodge=ignore, crit_requires_hit=requires)
    for ac, dodge, crit, miss, can, ignore, requires in [
        (20, 0, 0, 5, True, False, False),
        (30, 15, 12, 5, True, False, False),
        (30, 15, 12, 5, True, False, True),
        (95, 40, 20, 10, True, False, True),
        (0, 100, 100, 0, True, False, False),
        (50, 60, 5, 5, False, True, False),
        (10, 99, 50, 50, True, True, True),
        (100, 0, 0, 100, True, False, False),
    ]
]  # fmt: skip
MODIFIERS = (-120, -30, -5, 0, 7, 45, 150)


def brute_single(rule: HitRule, modifier: int) -> dict[HitOutcome, Fraction]:
    counts = Counter(classify_hit(n, n + modifier, rule) for n in range(1, 101))
    return {o: Fraction(counts[o], 100) for o in HitOutcome}


def brute_precision(rule: HitRule, modifier: int) -> dict[HitOutcome, Fraction]:
    by_natural = {n: classify_hit(n, n + modifier, rule) for n in range(1, 101)}
    counts = Counter(by_natural[min(a, b)] for a in range(1, 101) for b in range(1, 101))
    return {o: Fraction(counts[o], 10_000) for o in HitOutcome}


@pytest.mark.parametrize(("rule", "modifier"), list(itertools.product(RULES, MODIFIERS)))
def test_s07_hit_odds_equal_brute_force(rule: HitRule, modifier: int) -> None:
    assert hit_odds(rule, modifier) == brute_single(rule, modifier)
    assert sum(hit_odds(rule, modifier).values()) == 1


@pytest.mark.parametrize(("rule", "modifier"), [(RULES[1], 0), (RULES[3], 7), (RULES[6], -5)])
def test_s07_precision_odds_equal_brute_force_over_all_pairs(rule: HitRule, modifier: int) -> None:
    assert hit_odds(rule, modifier, precision=True) == brute_precision(rule, modifier)


def oracle_4_3_2(attacks: list[PlannedAttack]) -> set[tuple[int, str | None, str | None]]:
    """Every limit checked by looping over every target and weapon literally."""
    counted = [a for a in attacks if not a.direct_damage_instant]
    broken: set[tuple[int, str | None, str | None]] = set()
    if len(counted) > 4:
        broken.add((4, None, None))
    for target in {a.target for a in counted}:
        if sum(1 for a in counted if a.target == target) > 3:
            broken.add((3, target, None))
        for weapon in {a.weapon for a in counted}:
            if sum(1 for a in counted if (a.target, a.weapon) == (target, weapon)) > 2:
                broken.add((2, target, weapon))
    return broken


CHOICES = [PlannedAttack(t, w, d) for t in ("Orc", "Imp") for w in ("Sword", "Dirk")
           for d in (False, True)]  # fmt: skip


def test_s17_checker_equals_brute_force_on_every_plan_up_to_5_attacks() -> None:
    checked = 0
    for size in range(6):
        for plan in itertools.combinations_with_replacement(CHOICES, size):
            found = {(v.rule, v.target, v.weapon) for v in violations_4_3_2(list(plan))}
            assert found == oracle_4_3_2(list(plan)), plan
            checked += 1
    assert checked > 1000
