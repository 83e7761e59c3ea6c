"""Creature sizes (S-20) and weapon sizes (S-12, S-16).

The seed names only the ends of the creature-size ladder (Micro −32 … Colossal +32); the steps
between are this repository's reading SA-2, a doubling ladder.
"""

from __future__ import annotations

from enum import StrEnum

from tableside.errors import RulesError
from tableside.strife.ruleset import StrifeRuleset


class CreatureSize(StrEnum):
    """A creature's size category (S-20, SA-2)."""

    MICRO = "micro"
    DIMINUTIVE = "diminutive"
    TINY = "tiny"
    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"
    HUGE = "huge"
    GARGANTUAN = "gargantuan"
    COLOSSAL = "colossal"

    @property
    def modifier(self) -> int:
        """The size modifier (S-20; the steps between the ends are SA-2)."""
        return _CREATURE_MODIFIERS[self]


_CREATURE_MODIFIERS = {
    CreatureSize.MICRO: -32,
    CreatureSize.DIMINUTIVE: -16,
    CreatureSize.TINY: -8,
    CreatureSize.SMALL: -4,
    CreatureSize.MEDIUM: 0,
    CreatureSize.LARGE: 4,
    CreatureSize.HUGE: 8,
    CreatureSize.GARGANTUAN: 16,
    CreatureSize.COLOSSAL: 32,
}


class WeaponSize(StrEnum):
    """A weapon's (or item's) size: S, M, L or XL."""

    S = "S"
    M = "M"
    L = "L"
    XL = "XL"

    @property
    def step(self) -> int:
        """Size step for Clumsy penalties: S/M/L/XL = 1/2/3/4 (S-16)."""
        return _WEAPON_STEPS[self]

    @property
    def improvised_advantage(self) -> int:
        """Advantage of an improvised block or parry item: −1, 0, +1, +1 (S-12)."""
        return _IMPROVISED[self]


_WEAPON_STEPS = {WeaponSize.S: 1, WeaponSize.M: 2, WeaponSize.L: 3, WeaponSize.XL: 4}
_IMPROVISED = {WeaponSize.S: -1, WeaponSize.M: 0, WeaponSize.L: 1, WeaponSize.XL: 1}


def size_difference(own: CreatureSize, other: CreatureSize, ruleset: StrifeRuleset) -> int:
    """Own size modifier minus the other side's, capped at ± the ruleset's cap (S-20 option)."""
    difference = own.modifier - other.modifier
    cap = ruleset.size_cap
    if cap is None:
        return difference
    return max(-cap, min(cap, difference))


def parse_weapon_size(text: str) -> WeaponSize:
    """A weapon size from ``S``, ``M``, ``L`` or ``XL`` (any case)."""
    try:
        return WeaponSize(text.upper())
    except ValueError:
        raise RulesError(f"A weapon size is S, M, L or XL, not {text!r}.") from None
