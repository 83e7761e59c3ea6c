"""Combat penalties (S-16): moving and shooting, Clumsy weapons, untrained gear, underwater."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from tableside.errors import RulesError, require_non_negative
from tableside.strife.catalog import ArmourPiece, Combatant, Element, Shield, Weapon
from tableside.strife.records import Part, total
from tableside.strife.rounding import round_half_up
from tableside.strife.size import WeaponSize

DUAL_WIELD_SKILL = "Dual Wield"
SHOOTING_PENALTY_PER_INCH = 5
FLYING_SHOOTER_PENALTY = 5
SUBMERGED_FIRE = 25  # +25 % miscast (submerged caster), +25 Fire Resistance (submerged target)


class ClumsySource(StrEnum):
    """Why a weapon is Clumsy, with its penalty rate per size step (S-16)."""

    DUAL_WIELDING = "dual wielding"
    NO_PROFICIENCY = "no proficiency"
    NOT_THROWN = "thrown without the Thrown attribute"
    UNDERWATER = "underwater"

    @property
    def rate(self) -> int:
        """Penalty per size step: 10 for dual wielding, 5 otherwise."""
        return 10 if self == ClumsySource.DUAL_WIELDING else 5


@dataclass(frozen=True, slots=True)
class PenaltyContext:
    """The circumstances of one attack that can penalise it (S-16).

    Attributes:
        inches_moved: Inches the attacker moved this Turn (moving and shooting).
        flying: The shooter is airborne (a further −5).
        other_hand: The other hand's weapon when dual wielding.
        thrown: The weapon is thrown.
        underwater: The target is underwater.
    """

    inches_moved: int = 0
    flying: bool = False
    other_hand: Weapon | None = None
    thrown: bool = False
    underwater: bool = False

    def __post_init__(self) -> None:
        require_non_negative({"Inches moved this Turn": self.inches_moved})


@dataclass(frozen=True, slots=True)
class WeaponUse:
    """How a weapon may be used in one attack, and what it costs to hit (S-16).

    Attributes:
        parts: The to-hit penalties, labelled.
        clumsy: Every Clumsy source present; only the highest rate applies (SA-9).
        can_crit: False when dual wielding without the skill.
        trained: Proficient (a non-Thrown item thrown never is).
        ranged: A ranged or thrown attack.
        range: The attack's range in inches, None for melee.
        reach: The Reach the attack may use: the weapon's, 0 untrained (S-24).
    """

    parts: tuple[Part, ...]
    clumsy: tuple[ClumsySource, ...]
    can_crit: bool
    trained: bool
    ranged: bool
    range: Fraction | None
    reach: int = 0

    @property
    def attributes_usable(self) -> bool:
        """Untrained weapons cannot use their attributes or % effects (S-16, S-24)."""
        return self.trained


def dual_wield_clumsy(attacker: Combatant, weapon: Weapon, other: Weapon | None) -> bool:
    """Dual wielding anything beyond two Small weapons without the skill is Clumsy (S-16)."""
    if other is None or attacker.has_skill(DUAL_WIELD_SKILL):
        return False
    return not (weapon.size == WeaponSize.S and other.size == WeaponSize.S)


def is_trained(attacker: Combatant, weapon: Weapon, thrown: bool) -> bool:
    """Proficient with the weapon; throwing a non-Thrown item never is (S-16)."""
    if thrown and weapon.attributes.thrown is None:
        return False
    return attacker.proficient(weapon.group)


def clumsy_sources(
    attacker: Combatant, weapon: Weapon, ctx: PenaltyContext
) -> tuple[ClumsySource, ...]:
    """Every reason the weapon is Clumsy in this attack (S-16)."""
    sources = []
    if dual_wield_clumsy(attacker, weapon, ctx.other_hand):
        sources.append(ClumsySource.DUAL_WIELDING)
    if ctx.thrown and weapon.attributes.thrown is None:
        sources.append(ClumsySource.NOT_THROWN)
    elif not attacker.proficient(weapon.group):
        sources.append(ClumsySource.NO_PROFICIENCY)
    if ctx.underwater and not attacker.aquatic:
        sources.append(ClumsySource.UNDERWATER)
    return tuple(sources)


def clumsy_part(sources: Sequence[ClumsySource], size: WeaponSize) -> Part | None:
    """The single Clumsy penalty: the highest rate present × the size step (S-16, SA-9)."""
    if not sources:
        return None
    worst = max(sources, key=lambda s: s.rate)
    return Part(
        f"Clumsy ({worst.value}) −{worst.rate} × size {size.value}", -worst.rate * size.step
    )


def attack_range(attacker: Combatant, weapon: Weapon, ctx: PenaltyContext) -> Fraction | None:
    """Range in inches: weapon range, Thrown range (halved untrained), or STR / 2 (S-16)."""
    if ctx.thrown:
        listed = weapon.attributes.thrown
        if listed is None:
            return Fraction(attacker.stats.STR, 2)
        rng = Fraction(listed)
        return rng if attacker.proficient(weapon.group) else rng / 2
    return None if weapon.range is None else Fraction(weapon.range)


def shooting_parts(ranged: bool, ctx: PenaltyContext) -> list[Part]:
    """−5 per whole inch moved this Turn, thrown too; flying a further −5 (S-16, SA-26)."""
    if not ranged:
        return []
    parts = [Part(f'moving and shooting ({ctx.inches_moved}")', -5 * ctx.inches_moved)]
    if ctx.flying:
        parts.append(Part("flying shooter", -FLYING_SHOOTER_PENALTY))
    return [p for p in parts if p.amount]


def weapon_use(attacker: Combatant, weapon: Weapon, ctx: PenaltyContext) -> WeaponUse:
    """The S-16 penalties and permissions for one attack with ``weapon``."""
    ranged = weapon.ranged or ctx.thrown
    sources = clumsy_sources(attacker, weapon, ctx)
    clumsy = clumsy_part(sources, weapon.size)
    parts = (*shooting_parts(ranged, ctx), *(() if clumsy is None else (clumsy,)))
    return WeaponUse(
        parts=tuple(parts),
        clumsy=sources,
        can_crit=ClumsySource.DUAL_WIELDING not in sources,
        trained=is_trained(attacker, weapon, ctx.thrown),
        ranged=ranged,
        range=attack_range(attacker, weapon, ctx),
        reach=usable_reach(attacker, weapon),
    )


def usable_reach(wielder: Combatant, weapon: Weapon) -> int:
    """The weapon's Reach for its wielder: base reach (0) without the proficiency (S-24)."""
    return weapon.reach if wielder.proficient(weapon.group) else 0


# --- shields, armour, water -------------------------------------------------------------------


def shield_block_advantage(shield: Shield, trained: bool) -> Part:
    """A shield's Block advantage; untrained it is divided by 4, at least 1 (S-16, SA-10)."""
    if trained:
        return Part(f"{shield.name} Block", shield.block)
    quarter = round_half_up(Fraction(shield.block, 4))
    return Part(f"{shield.name} Block ÷ 4 (untrained)", max(1, quarter) if shield.block else 0)


@dataclass(frozen=True, slots=True)
class ArmourClass:
    """AC from natural AC and armour pieces; untrained pieces −1 and Noisy and Stiff (S-16)."""

    value: int
    parts: tuple[Part, ...]
    noisy: bool
    stiff: bool


def armour_class(wearer: Combatant, pieces: Sequence[ArmourPiece]) -> ArmourClass:
    """The sheet's AC plus each piece's armour value (S-16 untrained: −1 per piece, SA-11)."""
    parts = [Part("AC", wearer.ac)]
    noisy = stiff = False
    for piece in pieces:
        trained = wearer.proficient(piece.group)
        value = piece.armor_value if trained else max(0, piece.armor_value - 1)
        parts.append(Part(piece.name if trained else f"{piece.name} (untrained)", value))
        noisy = noisy or piece.noisy or not trained
        stiff = stiff or piece.stiff or not trained
    return ArmourClass(total(parts), tuple(parts), noisy, stiff)


def water_distance(dry_inches: Fraction | int, wet_inches: Fraction | int) -> Fraction:
    """Ranged distance where every inch through water counts 2 (S-16)."""
    if dry_inches < 0 or wet_inches < 0:
        raise RulesError(f"Distances cannot be negative, got {dry_inches} and {wet_inches}.")
    return Fraction(dry_inches) + 2 * Fraction(wet_inches)


def submerged_miscast_bonus(element: Element, caster_submerged: bool) -> int:
    """Fire powers by a fully submerged caster: +25 % miscast (S-16)."""
    return SUBMERGED_FIRE if caster_submerged and element == Element.FIRE else 0


def submerged_resistance_bonus(element: Element, target_submerged: bool) -> int:
    """A fully submerged target: +25 Fire Resistance (S-16)."""
    return SUBMERGED_FIRE if target_submerged and element == Element.FIRE else 0
