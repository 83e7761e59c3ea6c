"""Defensive reactions (S-10 … S-13): declaring them, their tests, and what they do to a hit.

A Block or Parry is a stat test rolled with the hit roll (S-10, S-11); its effect on the hit
is decided by :func:`reaction_effect`, a pure function over (hit outcome, family, test result,
melee or ranged) that the truth-table tests enumerate. Ward-off and Impale come before the hit
roll and are resolved in ``attack.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from tableside.errors import RulesError
from tableside.strife.catalog import SHIELD_GROUP, Combatant, Shield, Stat, Weapon
from tableside.strife.checks import StatTest, stat_test_with_natural
from tableside.strife.damage import DamageBasis
from tableside.strife.hit import HitOutcome
from tableside.strife.penalties import shield_block_advantage
from tableside.strife.records import Part
from tableside.strife.ruleset import StrifeRuleset
from tableside.strife.size import WeaponSize, size_difference

IMPROVISED_DISARM = 10  # natural ≤ 10: the improvised item is knocked away (S-12)
IMPROVISED_DAMAGE = 5  # natural ≤ 5: … and damaged (S-12)


class ReactionKind(StrEnum):
    """The defensive reactions (S-10 … S-13)."""

    BLOCK = "block"
    PARRY = "parry"
    COMBINED_PARRY = "combined_parry"
    BLOCK_AND_PARRY = "block_and_parry"
    IMPROVISED_BLOCK = "improvised_block"
    IMPROVISED_PARRY = "improvised_parry"
    WARD_OFF = "ward_off"
    IMPALE = "impale"

    @property
    def phrase(self) -> str:
        """``a Block``, ``an improvised parry`` … for sentences."""
        words = self.value.replace("_", " ")
        return f"{'an' if words[0] in 'aeiou' else 'a'} {words}"


class Family(StrEnum):
    """How a successful test resolves: as a Block (S-10) or as a Parry (S-11)."""

    BLOCK = "block"
    PARRY = "parry"


class Verdict(StrEnum):
    """A reaction test's result."""

    CRITICAL = "critical"  # natural 20: Critical Block / Critical Parry
    SUCCESS = "success"
    FAILURE = "failure"


@dataclass(frozen=True, slots=True)
class Reaction:
    """A declared reaction: what it uses and with which stat and advantages.

    Attributes:
        kind: Which reaction.
        items: Names of the shields, weapons or items used.
        family: Block or Parry resolution (None for Ward-off and Impale).
        stat: STR for a Block, AGIL for a Parry, INIT for Ward-off and Impale.
        advantage: Labelled advantages (Block/Parry values, improvised size, others).
        improvised: An improvised block or parry (S-12).
        reach: The Ward-off weapon's Reach (0 without the attribute).
    """

    kind: ReactionKind
    items: tuple[str, ...]
    family: Family | None
    stat: Stat
    advantage: tuple[Part, ...] = ()
    improvised: bool = False
    reach: int = 0

    @property
    def melee_only(self) -> bool:
        """Only a Block (plain or improvised) can meet a ranged attack (S-10, S-11, S-13)."""
        return self.kind not in (ReactionKind.BLOCK, ReactionKind.IMPROVISED_BLOCK)


def _attribute(defender: Combatant, weapon: Weapon, value: int | None, name: str) -> int:
    if value is None:
        raise RulesError(
            f"{weapon.name} has no {name} attribute; use an improvised {name.lower()} (S-12)."
        )
    if not defender.proficient(weapon.group):
        raise RulesError(
            f"{defender.name} is not trained with {weapon.group} and cannot use {weapon.name}'s "
            f"{name} attribute (S-16)."
        )
    return value


def block(defender: Combatant, shield: Shield, extra: Sequence[Part] = ()) -> Reaction:
    """Block with a shield: STR test with its Block advantage (÷ 4 untrained) (S-10, S-16)."""
    advantage = shield_block_advantage(shield, defender.proficient(SHIELD_GROUP))
    return Reaction(ReactionKind.BLOCK, (shield.name,), Family.BLOCK, Stat.STR, (advantage, *extra))


def parry(defender: Combatant, weapon: Weapon, extra: Sequence[Part] = ()) -> Reaction:
    """Parry with a Parry weapon: AGIL test with its Parry advantage (S-11)."""
    value = _attribute(defender, weapon, weapon.attributes.parry, "Parry")
    part = Part(f"{weapon.name} Parry", value)
    return Reaction(ReactionKind.PARRY, (weapon.name,), Family.PARRY, Stat.AGIL, (part, *extra))


def combined_parry(defender: Combatant, main: Weapon, off: Weapon) -> Reaction:
    """Parry with both hands' Parry advantages combined, still one reaction (S-11)."""
    parts = tuple(
        Part(f"{w.name} Parry", _attribute(defender, w, w.attributes.parry, "Parry"))
        for w in (main, off)
    )
    return Reaction(
        ReactionKind.COMBINED_PARRY, (main.name, off.name), Family.PARRY, Stat.AGIL, parts
    )


def block_and_parry(defender: Combatant, shield: Shield, weapon: Weapon, use: Family) -> Reaction:
    """Shield + Parry weapon as one reaction: either stat, both advantages (S-11)."""
    shield_part = shield_block_advantage(shield, defender.proficient(SHIELD_GROUP))
    parry_value = _attribute(defender, weapon, weapon.attributes.parry, "Parry")
    parts = (shield_part, Part(f"{weapon.name} Parry", parry_value))
    stat = Stat.STR if use == Family.BLOCK else Stat.AGIL
    return Reaction(ReactionKind.BLOCK_AND_PARRY, (shield.name, weapon.name), use, stat, parts)


def improvised_block(item: str, size: WeaponSize) -> Reaction:
    """Block with an item that has no Block attribute: size advantage, risk (S-12)."""
    part = Part(f"improvised item size {size.value}", size.improvised_advantage)
    return Reaction(ReactionKind.IMPROVISED_BLOCK, (item,), Family.BLOCK, Stat.STR, (part,), True)


def improvised_parry(weapon: Weapon) -> Reaction:
    """Parry with a weapon lacking the Parry attribute (or untrained): size advantage (SA-28)."""
    part = Part(f"improvised item size {weapon.size.value}", weapon.size.improvised_advantage)
    return Reaction(
        ReactionKind.IMPROVISED_PARRY, (weapon.name,), Family.PARRY, Stat.AGIL, (part,), True
    )


def ward_off(defender: Combatant, weapon: Weapon) -> Reaction:
    """Ward-off with a Ward-off weapon: an Initiative roll-off before the hit roll (S-13)."""
    if not weapon.attributes.ward_off:
        raise RulesError(f"{weapon.name} has no Ward-off attribute (S-13).")
    _attribute(defender, weapon, 0, "Ward-off")
    return Reaction(ReactionKind.WARD_OFF, (weapon.name,), None, Stat.INIT, reach=weapon.reach)


def impale(defender: Combatant, weapon: Weapon) -> Reaction:
    """Impale with an Impale weapon: an Initiative test, then an attack (S-13)."""
    if not weapon.attributes.impale:
        raise RulesError(f"{weapon.name} has no Impale attribute (S-13).")
    _attribute(defender, weapon, 0, "Impale")
    return Reaction(ReactionKind.IMPALE, (weapon.name,), None, Stat.INIT, reach=weapon.reach)


# --- the test ---------------------------------------------------------------------------------


def reaction_stat(reaction: Reaction, defender: Combatant) -> Part:
    """Block uses STR − 10, Parry AGIL − 10 (S-10, S-11; the seed's 16 − 10 = 6)."""
    if reaction.stat == Stat.STR:
        return Part(f"Block (STR {defender.stats.STR} − 10)", defender.stats.STR - 10)
    if reaction.stat == Stat.AGIL:
        return Part(f"Parry (AGIL {defender.stats.AGIL} − 10)", defender.stats.AGIL - 10)
    raise RulesError(f"{reaction.kind.phrase.capitalize()} is not a Block or Parry test.")


def reaction_test_with_natural(
    reaction: Reaction,
    defender: Combatant,
    attacker: Combatant,
    natural: int,
    ruleset: StrifeRuleset,
) -> StatTest:
    """The Block or Parry stat test, with the capped size difference (S-1, S-10, S-11, S-20)."""
    size = Part("size difference", size_difference(defender.size, attacker.size, ruleset))
    return stat_test_with_natural(
        natural, reaction_stat(reaction, defender), (*reaction.advantage, size)
    )


def verdict_of(test: StatTest) -> Verdict:
    """Critical on a natural 20, else success or failure (S-10, S-11)."""
    if test.critical:
        return Verdict.CRITICAL
    return Verdict.SUCCESS if test.success else Verdict.FAILURE


# --- what the reaction does to the hit --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReactionEffect:
    """What a Block or Parry did to one hit (S-10 … S-12).

    Attributes:
        basis: Full, minimum, Crushing-Blow-only or no damage.
        crit_stands: Whether the damage is still doubled.
        disarm: The parrying weapon or improvised item is knocked away (a Disarm).
        item_damaged: The shield (or improvised item) is damaged.
        stopped: The reaction changed the hit's damage.
    """

    basis: DamageBasis
    crit_stands: bool
    disarm: bool = False
    item_damaged: bool = False
    stopped: bool = False


def _block(crit: bool, verdict: Verdict, ranged: bool) -> ReactionEffect:
    reduced = DamageBasis.CRUSHING_ONLY if ranged else DamageBasis.MINIMUM
    if verdict == Verdict.FAILURE:
        return ReactionEffect(DamageBasis.FULL, crit)
    if crit and verdict == Verdict.CRITICAL:
        return ReactionEffect(reduced, False, stopped=True)  # the crit becomes a regular hit
    if crit and ranged:
        return ReactionEffect(DamageBasis.FULL, True)  # only a Critical Block stops it
    return ReactionEffect(reduced, crit, item_damaged=crit, stopped=True)


def _parry(crit: bool, verdict: Verdict) -> ReactionEffect:
    if verdict == Verdict.FAILURE:
        return ReactionEffect(DamageBasis.FULL, crit)
    return ReactionEffect(
        DamageBasis.NONE, False, disarm=crit and verdict != Verdict.CRITICAL, stopped=True
    )


def reaction_effect(
    outcome: HitOutcome, family: Family, verdict: Verdict, ranged: bool
) -> ReactionEffect:
    """What a Block or Parry does to a hit roll's outcome (S-10, S-11).

    A miss stays a miss whatever the reaction rolled (basis ``none``).
    """
    if not outcome.hits:
        return ReactionEffect(DamageBasis.NONE, False)
    crit = outcome == HitOutcome.CRITICAL_HIT
    return _block(crit, verdict, ranged) if family == Family.BLOCK else _parry(crit, verdict)


def improvised_risk(natural: int) -> tuple[bool, bool]:
    """(knocked away, damaged) for an improvised reaction's natural, hit or miss (S-12, SA-20)."""
    return natural <= IMPROVISED_DISARM, natural <= IMPROVISED_DAMAGE


def check_reaction_fits(reaction: Reaction, ranged: bool, physical: bool = True) -> None:
    """Refuse a reaction the attack does not allow (S-10 … S-13)."""
    if ranged and reaction.melee_only:
        raise RulesError(f"{reaction.kind.phrase.capitalize()} works only against a melee attack.")
    if not physical and reaction.family == Family.PARRY:
        raise RulesError("Only physical attacks can be parried (S-11).")
