"""Realm of Strife rounds half up (docs/rules.md), never with Python's banker's ``round``."""

from __future__ import annotations

import math
from fractions import Fraction

from tableside.errors import RulesError


def round_half_up(x: Fraction | float | int) -> int:
    """Round to the nearest whole number, halves away from zero (SA-1).

    ``2.5 → 3``, ``2.4 → 2``, ``−2.5 → −3``: a negative half rounds to the larger magnitude,
    so ``round_half_up(−x) == −round_half_up(x)`` always holds. Floats are read exactly as the
    binary value they hold (``Fraction(x)``).

    Raises:
        RulesError: ``x`` is a float that is not finite.
    """
    if isinstance(x, float) and not math.isfinite(x):
        raise RulesError(f"Only a finite number can be rounded, not {x}.")
    value = Fraction(x)
    magnitude = math.floor(abs(value) + Fraction(1, 2))
    return magnitude if value >= 0 else -magnitude


def half_of(value: int) -> int:
    """Half of a whole number, rounded half up (S-22 Fury, wave-fight Vigor; SA-1)."""
    return round_half_up(Fraction(value, 2))
