"""Exact odds of a hit roll's outcomes (S-7), for designers and for the table.

The outcome of a hit roll is constant between a handful of breakpoints (critical-miss range,
auto-miss, crit threshold, Dodge, AC − modifier), so :func:`hit_odds` classifies one natural
per segment and weighs the segment, instead of classifying all 100 naturals (or all 10 000
pairs of a Precision Attack). The tests check it against that brute force.
"""

from __future__ import annotations

from fractions import Fraction

from tableside.strife.hit import D100, HitOutcome, HitRule, classify_hit, crit_threshold


def _breakpoints(rule: HitRule, modifier: int) -> list[int]:
    """Naturals where the outcome may change (a segment starts at each)."""
    starts = {
        1,
        rule.critical_miss_range + 1,
        -modifier + 1,
        crit_threshold(rule.crit_chance),
        rule.dodge + 1,
        rule.ac - modifier + 1,
    }
    return sorted(s for s in starts if 1 <= s <= D100)


def _segment_weight(first: int, last: int, precision: bool) -> Fraction:
    """Probability that the kept natural lies in first..last."""
    if not precision:
        return Fraction(last - first + 1, D100)
    # P(min of two d100 ≥ k) = ((101 − k) / 100)², so P(first ≤ min ≤ last) is a difference.
    return Fraction((D100 + 1 - first) ** 2 - (D100 - last) ** 2, D100 * D100)


def hit_odds(rule: HitRule, modifier: int, precision: bool = False) -> dict[HitOutcome, Fraction]:
    """Exact probability of each outcome for a total hit ``modifier`` (S-7).

    Every outcome is present (possibly 0); the values sum to 1.
    """
    odds = dict.fromkeys(HitOutcome, Fraction(0))
    starts = _breakpoints(rule, modifier)
    for first, following in zip(starts, [*starts[1:], D100 + 1], strict=True):
        outcome = classify_hit(first, first + modifier, rule)
        odds[outcome] += _segment_weight(first, following - 1, precision)
    return odds
