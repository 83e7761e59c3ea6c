"""Exact damage laws (S-14, S-21): the sum of the damage dice, then the engine's own total.

The total of :func:`~tableside.strife.attack.roll_damage` depends on the dice only through
their sum, so the law of NdS is computed once as counts per sum (a sliding-window
convolution) and the engine is asked once per sum, with one set of faces that makes it.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from functools import cache
from itertools import accumulate

from tableside.dice import ScriptedRng
from tableside.strife.attack import AttackSetup, roll_damage
from tableside.strife.damage import DamageInputs


@cache
def dice_sum_counts(count: int, sides: int) -> tuple[int, ...]:
    """How many of the sides**count rolls of NdS sum to count, count + 1, … count·sides."""
    counts = [1]
    for _ in range(count):
        prefix = list(accumulate(counts, initial=0))
        size = len(counts)
        counts = [
            prefix[min(j + 1, size)] - prefix[max(0, j - sides + 1)]
            for j in range(size + sides - 1)
        ]
    return tuple(counts)


def faces_summing_to(total: int, count: int, sides: int) -> tuple[int, ...]:
    """One roll of ``count`` d``sides`` whose faces sum to ``total`` (highest faces first)."""
    extra = total - count
    faces = []
    for _ in range(count):
        face = min(sides, 1 + extra)
        faces.append(face)
        extra -= face - 1
    return tuple(faces)


def damage_law(setup: AttackSetup, inputs: DamageInputs) -> dict[int, Fraction]:
    """Damage dealt given how much stands (``inputs.basis``): value → probability.

    No damage (basis ``none``) is 0; minimum and Crushing-Blow-only damage roll no dice (SA-8).
    """
    if not inputs.needs_dice:
        damage = roll_damage(setup, inputs, ScriptedRng(()))
        return {0 if damage is None else damage.total: Fraction(1)}
    expr = inputs.expr
    rolls = expr.sides**expr.count
    law: defaultdict[int, Fraction] = defaultdict(Fraction)
    for offset, ways in enumerate(dice_sum_counts(expr.count, expr.sides)):
        faces = faces_summing_to(expr.count + offset, expr.count, expr.sides)
        damage = roll_damage(setup, inputs, ScriptedRng(faces))
        law[0 if damage is None else damage.total] += Fraction(ways, rolls)
    return dict(law)
