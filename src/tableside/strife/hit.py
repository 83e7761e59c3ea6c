"""Classifying a d100 roll: physical attacks (S-7), casting (S-8), combined attacks (S-9).

These functions only decide; they take the natural and the modified roll and return an outcome,
so the same code serves play (``attack.py``, ``casting.py``) and exact odds (``odds.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tableside.errors import RulesError

D100 = 100


class HitOutcome(StrEnum):
    """The outcome of a physical hit roll (S-7)."""

    CRITICAL_MISS = "critical_miss"
    AUTO_MISS = "auto_miss"
    CRITICAL_HIT = "critical_hit"
    HIT = "hit"
    DODGE = "dodge"
    ARMOR_SAVE = "armor_save"

    @property
    def hits(self) -> bool:
        """A Hit or Critical Hit."""
        return self in (HitOutcome.HIT, HitOutcome.CRITICAL_HIT)


class CastOutcome(StrEnum):
    """The outcome of a casting roll (S-8)."""

    MISCAST = "miscast"
    AUTO_MISS = "auto_miss"
    CRITICAL_CAST = "critical_cast"
    SUCCESS = "success"
    DODGED = "dodged"
    RESISTED = "resisted"

    @property
    def succeeds(self) -> bool:
        """A success or Critical Cast."""
        return self in (CastOutcome.SUCCESS, CastOutcome.CRITICAL_CAST)


def check_d100(natural: int, what: str = "d100") -> None:
    """Refuse a face a d100 cannot show."""
    if not 1 <= natural <= D100:
        raise RulesError(f"A {what} shows 1 to 100, not {natural}.")


def check_percent(value: int, what: str) -> None:
    """Refuse a percentage chance outside 0–100."""
    if not 0 <= value <= D100:
        raise RulesError(f"{what} must be 0 to 100 %, not {value}.")


def crit_threshold(crit_chance: int) -> int:
    """The lowest natural that crits: 101 − crit % (S-7: 12 % → 89); 101 means never."""
    check_percent(crit_chance, "A critical chance")
    return D100 + 1 - crit_chance


@dataclass(frozen=True, slots=True)
class HitRule:
    """What a hit roll is judged against (S-7).

    Attributes:
        ac: The target's AC (the modified roll must beat it).
        dodge: The target's Dodge (the natural must beat it).
        crit_chance: Critical Hit chance in %.
        critical_miss_range: Naturals 1..this are Critical Misses (default 5).
        can_crit: False when a penalty forbids Critical Hits (S-16 dual wielding).
        ignore_dodge: True after a failed Parry (S-11).
        crit_requires_hit: The S-7 ruleset option.
    """

    ac: int
    dodge: int = 0
    crit_chance: int = 0
    critical_miss_range: int = 5
    can_crit: bool = True
    ignore_dodge: bool = False
    crit_requires_hit: bool = False

    def __post_init__(self) -> None:
        check_percent(self.crit_chance, "A critical hit chance")
        check_percent(self.critical_miss_range, "A critical miss range")


def classify_hit(natural: int, modified: int, rule: HitRule) -> HitOutcome:
    """The S-7 order: Critical Miss, auto-miss, Critical Hit, Dodge, Armor Save, Hit."""
    check_d100(natural, "hit roll d100")
    dodged = not rule.ignore_dodge and natural <= rule.dodge
    saved = modified <= rule.ac
    if natural <= rule.critical_miss_range:
        return HitOutcome.CRITICAL_MISS
    if modified <= 0:
        return HitOutcome.AUTO_MISS
    in_crit = rule.can_crit and natural >= crit_threshold(rule.crit_chance)
    if in_crit and not (rule.crit_requires_hit and (dodged or saved)):
        return HitOutcome.CRITICAL_HIT
    if dodged:
        return HitOutcome.DODGE
    return HitOutcome.ARMOR_SAVE if saved else HitOutcome.HIT


@dataclass(frozen=True, slots=True)
class CastRule:
    """What a casting roll is judged against (S-8).

    Attributes:
        resistance: The target's Resistance to the power's element (with modifiers).
        resists: Whether the target chooses (and is able) to resist.
        dodge: The target's Dodge.
        dodge_allowed: Missile-type powers let Dodge add to Resistance and dodge on naturals.
        crit_chance: Critical Cast chance in %.
        miscast_range: Naturals 1..this are Miscasts (default 5).
        crit_requires_hit: The S-7/S-8 ruleset option.
    """

    resistance: int
    resists: bool = True
    dodge: int = 0
    dodge_allowed: bool = False
    crit_chance: int = 0
    miscast_range: int = 5
    crit_requires_hit: bool = False

    def __post_init__(self) -> None:
        check_percent(self.crit_chance, "A critical cast chance")
        check_percent(self.miscast_range, "A miscast range")


def classify_cast(natural: int, modified: int, rule: CastRule) -> CastOutcome:
    """The S-8 order: Miscast, unresisted, auto-miss, Critical Cast, dodged, Resisted, success.

    A target that does not resist is hit whatever the modified roll; it still takes a Critical
    Cast on a natural in the crit range (SA-4).
    """
    check_d100(natural, "casting roll d100")
    in_crit = natural >= crit_threshold(rule.crit_chance)
    if natural <= rule.miscast_range:
        return CastOutcome.MISCAST
    if not rule.resists:
        return CastOutcome.CRITICAL_CAST if in_crit else CastOutcome.SUCCESS
    if modified <= 0:
        return CastOutcome.AUTO_MISS
    dodged = rule.dodge_allowed and natural <= rule.dodge
    resisted = modified <= rule.resistance + (rule.dodge if rule.dodge_allowed else 0)
    if in_crit and not (rule.crit_requires_hit and (dodged or resisted)):
        return CastOutcome.CRITICAL_CAST
    if dodged:
        return CastOutcome.DODGED
    return CastOutcome.RESISTED if resisted else CastOutcome.SUCCESS


# --- combined attacks -------------------------------------------------------------------------


class CombinedOutcome(StrEnum):
    """What a combined attack did overall (S-9)."""

    CRITICAL_MISS = "critical_miss"
    MISS = "miss"
    PHYSICAL_ONLY = "physical_only"
    SPIRIT_ONLY = "spirit_only"
    BOTH = "both"


@dataclass(frozen=True, slots=True)
class CombinedVerdict:
    """Which portions of a combined attack apply and which are doubled (S-9)."""

    physical: HitOutcome
    spirit: CastOutcome  # after the seed's table (a Critical Miss makes it a Miscast)
    physical_applies: bool
    spirit_applies: bool
    physical_doubled: bool
    spirit_doubled: bool

    @property
    def overall(self) -> CombinedOutcome:
        """The whole attack's outcome."""
        if self.physical == HitOutcome.CRITICAL_MISS:
            return CombinedOutcome.CRITICAL_MISS
        if self.physical_applies:
            return CombinedOutcome.BOTH if self.spirit_applies else CombinedOutcome.PHYSICAL_ONLY
        return CombinedOutcome.SPIRIT_ONLY if self.spirit_applies else CombinedOutcome.MISS


def combine_portions(physical: HitOutcome, spirit: CastOutcome) -> CombinedVerdict:
    """The seed's combined-attack table (S-9).

    A Critical Miss voids everything and makes the spirit portion a Miscast; a Dodge or an
    auto-miss voids everything (SA-5); an Armor Save voids only the physical portion; each
    portion is doubled only on its own crit.
    """
    if physical == HitOutcome.CRITICAL_MISS:
        return CombinedVerdict(physical, CastOutcome.MISCAST, False, False, False, False)
    physical_applies = physical.hits
    spirit_applies = spirit.succeeds and (physical_applies or physical == HitOutcome.ARMOR_SAVE)
    return CombinedVerdict(
        physical,
        spirit,
        physical_applies,
        spirit_applies,
        physical_applies and physical == HitOutcome.CRITICAL_HIT,
        spirit_applies and spirit == CastOutcome.CRITICAL_CAST,
    )
