"""Creature sizes (S-20) and weapon sizes (S-12, S-16).

The ladder is reading S-20's eleven steps (SA-2): Micro −32, Fine −16, Diminutive −8, Tiny −4,
Small −2, Medium 0, Large +2, Huge +4, Massive +8, Gargantuan +16, Colossal +32.
"""

from __future__ import annotations

from enum import StrEnum

from tableside.errors import RulesError
from tableside.strife.ruleset import StrifeRuleset


class CreatureSize(StrEnum):
    """A creature's size category (S-20, SA-2)."""

    MICRO = "micro"
    FINE = "fine"
    DIMINUTIVE = "diminutive"
    TINY = "tiny"
    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"
    HUGE = "huge"
    MASSIVE = "massive"
    GARGANTUAN = "gargantuan"
    COLOSSAL = "colossal"

    @property
    def modifier(self) -> int:
        """The size modifier on the eleven-step ladder of S-20 (SA-2)."""
        return _CREATURE_MODIFIERS[self]


_CREATURE_MODIFIERS = {
    CreatureSize.MICRO: -32,
    CreatureSize.FINE: -16,
    CreatureSize.DIMINUTIVE: -8,
    CreatureSize.TINY: -4,
    CreatureSize.SMALL: -2,
    CreatureSize.MEDIUM: 0,
    CreatureSize.LARGE: 2,
    CreatureSize.HUGE: 4,
    CreatureSize.MASSIVE: 8,
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
