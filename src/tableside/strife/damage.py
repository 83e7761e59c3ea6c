"""Damage (S-14) and Absorption (S-21).

A damage result is a list of labelled parts whose sum is the total: dice, the dice expression's
flat part, the Strength modifier, other flat bonuses, Crushing Blow, the critical doubling and
what an object absorbed. Text is left to renderers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from tableside.errors import RulesError, require_non_negative
from tableside.strife.dice import DiceExpr
from tableside.strife.records import Part, nonzero, total

_STRENGTH_TABLE = ((20, 3), (18, 2), (15, 1), (8, 0), (4, -1), (0, -2))


def strength_modifier(strength: int) -> int:
    """Damage modifier of a Strength score (S-14): 20+ → +3 … 0–3 → −2 (SA-7 for 20+)."""
    require_non_negative({"Strength": strength})
    return next(mod for floor, mod in _STRENGTH_TABLE if strength >= floor)


class DamageBasis(StrEnum):
    """How much of a hit's damage stands after any reaction (S-10, S-11, S-14)."""

    FULL = "full"  # roll the dice
    MINIMUM = "minimum"  # a block against a melee hit: minimum damage + Crushing Blow
    CRUSHING_ONLY = "crushing_only"  # a block against a ranged hit: Crushing Blow only
    NONE = "none"  # parried, missed, warded off


@dataclass(frozen=True, slots=True)
class DamageInputs:
    """Everything that makes a damage total except the dice faces.

    Attributes:
        expr: The damage dice (``1d8+1``).
        strength_modifier: S-14 modifier for melee and thrown attacks, 0 otherwise.
        flats: Other flat bonuses (Impale inches, spell power share …), labelled.
        crushing_blow: The weapon's Crushing Blow, counted only when a block succeeded.
        crit: Whether the whole total is doubled.
        basis: Full, minimum, Crushing Blow only, or none.
    """

    expr: DiceExpr
    strength_modifier: int = 0
    flats: tuple[Part, ...] = ()
    crushing_blow: int = 0
    crit: bool = False
    basis: DamageBasis = DamageBasis.FULL

    @property
    def needs_dice(self) -> bool:
        """Dice are rolled only for full damage (SA-8)."""
        return self.basis == DamageBasis.FULL


@dataclass(frozen=True, slots=True)
class Damage:
    """A damage total and the labelled parts that make it (their sum is ``total``)."""

    dice: str
    rolls: tuple[int, ...]
    basis: DamageBasis
    strength_modifier: int
    flat: int
    crushing_blow: int
    crit_multiplier: int
    absorbed: int
    total: int
    parts: tuple[Part, ...]


def minimum_damage(expr: DiceExpr, strength_mod: int = 0, flats: Sequence[Part] = ()) -> int:
    """The lowest the dice can show plus flat modifiers (S-14), never below 0 (SA-6)."""
    return max(0, expr.lowest_dice + expr.flat + strength_mod + total(flats))


def _base_parts(inputs: DamageInputs, rolls: tuple[int, ...]) -> list[Part]:
    expr, basis = inputs.expr, inputs.basis
    if basis in (DamageBasis.NONE, DamageBasis.CRUSHING_ONLY):
        parts = []
    elif basis == DamageBasis.MINIMUM:
        parts = [Part(f"minimum of {expr.dice_text}", expr.lowest_dice)]
    else:
        parts = [Part(expr.dice_text, sum(rolls))]
    if basis in (DamageBasis.FULL, DamageBasis.MINIMUM):
        parts += [Part(f"{expr.text} flat", expr.flat), Part("Strength", inputs.strength_modifier)]
        parts += inputs.flats
    if basis == DamageBasis.MINIMUM and total(parts) < 0:
        # SA-6: the minimum damage itself is never below 0, before Crushing Blow is added.
        parts.append(Part("minimum damage cannot be negative", -total(parts)))
    if basis in (DamageBasis.MINIMUM, DamageBasis.CRUSHING_ONLY):
        parts.append(Part("Crushing Blow", inputs.crushing_blow))
    return list(nonzero(parts))


def damage_from_rolls(
    inputs: DamageInputs, rolls: tuple[int, ...], absorption: tuple[int, int] | None = None
) -> Damage:
    """Total damage from known dice (S-14); ``absorption`` is (percent, current HP) (S-21).

    Raises:
        RulesError: The faces do not fit the expression (or dice were given when none are
            rolled).
    """
    if inputs.needs_dice:
        inputs.expr.check_faces(rolls)
    elif rolls:
        raise RulesError(f"No damage dice are rolled for {inputs.basis.value} damage.")
    parts = _base_parts(inputs, rolls)
    subtotal = total(parts)
    if subtotal < 0:
        parts.append(Part("damage cannot be negative", -subtotal))
        subtotal = 0
    multiplier = 2 if inputs.crit and inputs.basis != DamageBasis.NONE else 1
    if multiplier == 2:
        parts.append(Part("critical ×2", subtotal))
    absorbed = 0 if absorption is None else absorb(absorption[1], absorption[0], total(parts))[0]
    if absorbed:
        parts.append(Part(f"absorbed ({absorption[0] if absorption else 0} %)", -absorbed))
    return _damage(inputs, rolls, multiplier, absorbed, tuple(parts))


def _damage(
    inputs: DamageInputs,
    rolls: tuple[int, ...],
    multiplier: int,
    absorbed: int,
    parts: tuple[Part, ...],
) -> Damage:
    flat = inputs.expr.flat + total(inputs.flats)
    standing = inputs.basis in (DamageBasis.FULL, DamageBasis.MINIMUM)
    crushing = inputs.crushing_blow if inputs.basis != DamageBasis.FULL else 0
    return Damage(
        inputs.expr.text,
        rolls,
        inputs.basis,
        inputs.strength_modifier if standing else 0,
        flat if standing else 0,
        crushing if inputs.basis != DamageBasis.NONE else 0,
        multiplier,
        absorbed,
        total(parts),
        parts,
    )


# --- Absorption -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Absorbed:
    """What Absorption did to one hit on an object (S-21)."""

    absorbed: int
    hp_lost: int
    hp_after: int


def absorb(hp: int, percent: int, damage: int) -> tuple[int, int, int]:
    """floor(Absorption % × current HP) of a hit is absorbed; the rest comes off HP (S-21).

    Returns:
        (absorbed, HP lost, HP after). A door with 10 HP and 50 % that takes 7 absorbs 5,
        loses 2 and is left with 8.
    """
    require_non_negative({"HP": hp, "Damage": damage})
    if not 0 <= percent <= 100:
        raise RulesError(f"Absorption must be 0 to 100 %, not {percent}.")
    absorbed = min(damage, percent * hp // 100)
    lost = damage - absorbed
    return absorbed, lost, max(0, hp - lost)


def absorb_hit(hp: int, percent: int, damage: int) -> Absorbed:
    """:func:`absorb` as a record (S-21)."""
    return Absorbed(*absorb(hp, percent, damage))
