"""The physical attack (S-7, S-10 … S-16, S-20, S-21, S-23), from Ward-off to % effects.

Order of the dice (what a :class:`~tableside.dice.ScriptedRng` must hold, stage by stage):
Ward-off roll-off (attacker's d20, defender's d20) → hit d100 (two for a Precision Attack) →
the Block/Parry d20 (rolled with the hit roll) → damage dice (only for full damage) → one d100
per % effect of the weapon, in its listed order (only when full damage stands).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from tableside.dice import Rng
from tableside.errors import RulesError
from tableside.strife.catalog import Combatant, PercentEffect, Weapon
from tableside.strife.checks import (
    Contestant,
    RollOff,
    StatTest,
    Winner,
    roll_off_with_naturals,
    stat_test_with_natural,
)
from tableside.strife.conditions import DISARMED, VULNERABLE, Condition, condition
from tableside.strife.damage import (
    Damage,
    DamageBasis,
    DamageInputs,
    damage_from_rolls,
    strength_modifier,
)
from tableside.strife.hit import D100, HitOutcome, HitRule, classify_hit
from tableside.strife.penalties import PenaltyContext, WeaponUse, weapon_use
from tableside.strife.reactions import (
    Family,
    Reaction,
    ReactionEffect,
    ReactionKind,
    Verdict,
    check_reaction_fits,
    improvised_risk,
    reaction_effect,
    reaction_test_with_natural,
    verdict_of,
)
from tableside.strife.records import Part, total
from tableside.strife.ruleset import STANDARD, StrifeRuleset
from tableside.strife.stages import GivenStages, RngStages

Stages = RngStages | GivenStages


class StageSource(Protocol):
    """Anything that gives the Rng of a stage by name (``RngStages``, ``GivenStages`` …)."""

    def rng_for(self, stage: str) -> Rng:
        """The Rng of ``stage``."""
        ...


@dataclass(frozen=True, slots=True)
class AttackSetup:
    """One physical attack to resolve.

    Attributes:
        attacker: The attacking sheet.
        defender: The target's sheet.
        weapon: The weapon used.
        context: Circumstances that penalise the attack (S-16).
        precision: A Precision Attack: roll twice, keep the lower (S-7).
        hit_modifiers: Other to-hit modifiers, labelled.
        damage_bonuses: Flat damage bonuses, labelled (S-14).
        defender_ac: The target's effective AC (armour included); None uses the sheet's AC.
        reaction: The defender's declared reaction, if any (S-10 … S-13).
        ruleset: The options in force.
    """

    attacker: Combatant
    defender: Combatant
    weapon: Weapon
    context: PenaltyContext = field(default_factory=PenaltyContext)
    precision: bool = False
    hit_modifiers: tuple[Part, ...] = ()
    damage_bonuses: tuple[Part, ...] = ()
    defender_ac: int | None = None
    reaction: Reaction | None = None
    ruleset: StrifeRuleset = STANDARD

    @property
    def ranged(self) -> bool:
        """A ranged (or thrown) attack."""
        return self.weapon.ranged or self.context.thrown

    @property
    def ac(self) -> int:
        """The AC the modified roll must beat."""
        return self.defender.ac if self.defender_ac is None else self.defender_ac


@dataclass(frozen=True, slots=True)
class AttackDice:
    """Physical dice typed in, stage by stage (see the module's order)."""

    hit: tuple[int, ...]
    reaction: int | None = None
    ward_off: tuple[int, int] | None = None
    damage: tuple[int, ...] = ()
    effects: tuple[int, ...] = ()

    def stages(self) -> GivenStages:
        """The faces by stage name."""
        faces = {"hit": self.hit, "damage": self.damage, "effects": self.effects}
        faces["reaction"] = () if self.reaction is None else (self.reaction,)
        faces["ward_off"] = () if self.ward_off is None else self.ward_off
        return GivenStages(faces)


@dataclass(frozen=True, slots=True)
class EffectRoll:
    """One % effect rolled after damage (step 4 of S-7)."""

    name: str
    chance: int
    roll: int
    applied: bool


@dataclass(frozen=True, slots=True)
class Inflicted:
    """A condition put on the attacker or the defender (S-23)."""

    target: str  # "attacker" or "defender"
    condition: Condition


@dataclass(frozen=True, slots=True)
class ReactionRoll:
    """The Block or Parry rolled with the hit roll, and what it did."""

    reaction: Reaction
    test: StatTest
    verdict: Verdict
    effect: ReactionEffect
    knocked_away: bool
    item_damaged: bool


@dataclass(frozen=True, slots=True)
class AttackResult:
    """Everything a physical attack did and why.

    ``outcome`` is None only when a Ward-off stopped the attack before its hit roll.
    """

    setup: AttackSetup
    use: WeaponUse
    ward_off: RollOff | None
    hit_naturals: tuple[int, ...]
    modifiers: tuple[Part, ...]
    outcome: HitOutcome | None
    reaction: ReactionRoll | None
    damage: Damage | None
    effect_rolls: tuple[EffectRoll, ...]
    inflicted: tuple[Inflicted, ...]
    damaged_items: tuple[str, ...]
    rulings: tuple[str, ...]

    @property
    def warded_off(self) -> bool:
        """The defender won the Ward-off roll-off (S-13)."""
        return self.ward_off is not None and self.ward_off.winner == Winner.OPPOSING

    @property
    def natural(self) -> int | None:
        """The natural roll kept (the lower of two for a Precision Attack)."""
        return min(self.hit_naturals) if self.hit_naturals else None

    @property
    def modified(self) -> int | None:
        """Natural + modifiers."""
        return None if self.natural is None else self.natural + total(self.modifiers)

    @property
    def total_damage(self) -> int:
        """Damage dealt (0 without damage)."""
        return 0 if self.damage is None else self.damage.total


# --- checking ---------------------------------------------------------------------------------


def check_attack(setup: AttackSetup) -> WeaponUse:
    """Refuse what the rules forbid (reach: SA-21) and return the weapon's S-16 use."""
    use = weapon_use(setup.attacker, setup.weapon, setup.context)
    reaction = setup.reaction
    if reaction is None:
        return use
    if reaction.kind == ReactionKind.IMPALE:
        raise RulesError("An Impale is resolved before the attack, with resolve_impale (S-13).")
    check_reaction_fits(reaction, setup.ranged)
    if reaction.kind == ReactionKind.WARD_OFF and use.reach > reaction.reach:
        raise RulesError(
            f"A Ward-off against {setup.weapon.name} (Reach {use.reach}) needs a weapon "
            f"with at least that Reach; {reaction.items[0]} has {reaction.reach} (S-13)."
        )
    return use


def usable_effects(setup: AttackSetup, use: WeaponUse) -> tuple[PercentEffect, ...]:
    """The weapon's % effects; an untrained weapon has none (S-24)."""
    return setup.weapon.effects if use.attributes_usable else ()


# --- stages -----------------------------------------------------------------------------------


def ward_off_roll(setup: AttackSetup, rng: Rng) -> RollOff:
    """Initiative roll-off, attacker acting: the defender must win, ties to the attacker."""
    acting = Contestant(setup.attacker.name, Part("Initiative", setup.attacker.initiative),
                        size=setup.attacker.size)  # fmt: skip
    opposing = Contestant(setup.defender.name, Part("Initiative", setup.defender.initiative),
                          size=setup.defender.size)  # fmt: skip
    naturals = (rng.roll(20), rng.roll(20))
    return roll_off_with_naturals(acting, opposing, naturals, setup.ruleset)


def hit_modifiers(setup: AttackSetup, use: WeaponUse) -> tuple[Part, ...]:
    """S-16 penalties then the setup's own modifiers."""
    return (*use.parts, *(p for p in setup.hit_modifiers if p.amount))


def hit_rule(setup: AttackSetup, use: WeaponUse, ignore_dodge: bool) -> HitRule:
    """What the hit roll is judged against (S-7, S-11 failed Parry, S-16 no crits)."""
    return HitRule(
        ac=setup.ac,
        dodge=setup.defender.dodge,
        crit_chance=setup.attacker.crit_chance,
        critical_miss_range=setup.attacker.critical_miss_chance,
        can_crit=use.can_crit,
        ignore_dodge=ignore_dodge,
        crit_requires_hit=setup.ruleset.crit_requires_hit,
    )


def _reaction_roll(
    setup: AttackSetup, rng: Rng, outcome_of: _Classifier
) -> tuple[HitOutcome, ReactionRoll | None]:
    reaction = setup.reaction
    if reaction is None or reaction.family is None:
        return outcome_of(False), None
    test = reaction_test_with_natural(
        reaction, setup.defender, setup.attacker, rng.roll(20), setup.ruleset
    )
    verdict = verdict_of(test)
    outcome = outcome_of(reaction.family == Family.PARRY and verdict == Verdict.FAILURE)
    effect = reaction_effect(outcome, reaction.family, verdict, setup.ranged)
    knocked, damaged = improvised_risk(test.natural) if reaction.improvised else (False, False)
    return outcome, ReactionRoll(reaction, test, verdict, effect, knocked, damaged)


class _Classifier:
    """Classifies the kept natural once the reaction says whether Dodge is ignored."""

    def __init__(self, setup: AttackSetup, use: WeaponUse, natural: int) -> None:
        self.setup, self.use, self.natural = setup, use, natural
        self.modified = natural + total(hit_modifiers(setup, use))

    def __call__(self, ignore_dodge: bool) -> HitOutcome:
        return classify_hit(
            self.natural, self.modified, hit_rule(self.setup, self.use, ignore_dodge)
        )


def damage_inputs(setup: AttackSetup, use: WeaponUse, effect: ReactionEffect) -> DamageInputs:
    """Weapon dice, Strength for melee and thrown, flat bonuses, Crushing Blow (S-14, S-16)."""
    strength = 0 if setup.weapon.ranged and not setup.context.thrown else None
    crushing = setup.weapon.attributes.crushing_blow if use.attributes_usable else None
    return DamageInputs(
        expr=setup.weapon.dice,
        strength_modifier=strength_modifier(setup.attacker.stats.STR) if strength is None else 0,
        flats=tuple(p for p in setup.damage_bonuses if p.amount),
        crushing_blow=crushing or 0,
        crit=effect.crit_stands,
        basis=effect.basis,
    )


def _effect_of(outcome: HitOutcome, reaction: ReactionRoll | None) -> ReactionEffect:
    if reaction is not None:
        return reaction.effect
    basis = DamageBasis.FULL if outcome.hits else DamageBasis.NONE
    return ReactionEffect(basis, outcome == HitOutcome.CRITICAL_HIT)


def roll_damage(setup: AttackSetup, inputs: DamageInputs, rng: Rng) -> Damage | None:
    """Roll (only full damage rolls dice) and total; objects absorb part (S-14, S-21, SA-27)."""
    if inputs.basis == DamageBasis.NONE:
        return None
    rolls = inputs.expr.roll(rng) if inputs.needs_dice else ()
    absorption = setup.defender.absorption
    held = (absorption, setup.defender.hp) if absorption else None
    return damage_from_rolls(inputs, rolls, held)


def roll_effects(effects: Sequence[PercentEffect], rng: Rng) -> tuple[EffectRoll, ...]:
    """One d100 per % effect; it applies on a roll ≤ its chance (step 4 of S-7, SA-19)."""
    rolled = []
    for effect in effects:
        face = rng.roll(D100)
        rolled.append(EffectRoll(effect.name, effect.chance, face, face <= effect.chance))
    return tuple(rolled)


def inflicted_conditions(
    setup: AttackSetup,
    outcome: HitOutcome | None,
    reaction: ReactionRoll | None,
    rolls: tuple[EffectRoll, ...],
) -> tuple[Inflicted, ...]:
    """Vulnerable on a Critical Miss, Disarmed, and applied % effects (S-7, S-11, S-12, S-23)."""
    source = f"{setup.attacker.name}'s {setup.weapon.name}"
    found = []
    if outcome == HitOutcome.CRITICAL_MISS:
        found.append(
            Inflicted("attacker", condition(VULNERABLE, f"{setup.attacker.name}'s critical miss"))
        )
    if reaction is not None and (reaction.effect.disarm or reaction.knocked_away):
        why = "parried critical hit" if reaction.effect.disarm else "improvised reaction"
        item = knocked_item(reaction.reaction)
        found.append(Inflicted("defender", condition(DISARMED, f"{why}: {item} knocked away")))
    lasting = {e.name: e.rounds for e in setup.weapon.effects}
    for roll in rolls:
        if roll.applied:
            found.append(
                Inflicted("defender", condition(roll.name, source, lasting.get(roll.name)))
            )
    return tuple(found)


def knocked_item(reaction: Reaction) -> str:
    """The item a Disarm knocks away: the parrying weapon or the improvised item.

    In a combined parry it is the main hand's weapon (SA-17).
    """
    return reaction.items[1] if reaction.kind == ReactionKind.BLOCK_AND_PARRY else reaction.items[0]


def damaged_items(reaction: ReactionRoll | None) -> tuple[str, ...]:
    """The shield or improvised item the reaction damaged (S-10, S-12)."""
    if reaction is None or not (reaction.effect.item_damaged or reaction.item_damaged):
        return ()
    return (reaction.reaction.items[0],)


def _rulings(result: AttackResult) -> tuple[str, ...]:
    used = {"S-7"}
    setup, reaction = result.setup, result.reaction
    conditional = {
        "S-1": reaction is not None,
        "S-2": result.ward_off is not None,
        "S-10": reaction is not None and reaction.reaction.family == Family.BLOCK,
        "S-11": reaction is not None and reaction.reaction.family == Family.PARRY,
        "S-12": reaction is not None and reaction.reaction.improvised,
        "S-13": result.ward_off is not None,
        "S-14": result.damage is not None,
        "S-16": bool(result.use.parts) or not result.use.trained,
        "S-20": setup.attacker.size != setup.defender.size
        and (reaction is not None or result.ward_off is not None),
        "S-21": result.damage is not None and result.damage.absorbed > 0,
        "S-23": bool(result.inflicted),
    }
    used |= {rid for rid, on in conditional.items() if on}
    return tuple(sorted(used, key=lambda r: int(r.split("-")[1])))


def _finish(result: AttackResult) -> AttackResult:
    return replace(result, rulings=_rulings(result))


def _resolve(setup: AttackSetup, stages: StageSource) -> AttackResult:
    use = check_attack(setup)
    ward = None
    if setup.reaction is not None and setup.reaction.kind == ReactionKind.WARD_OFF:
        ward = ward_off_roll(setup, stages.rng_for("ward_off"))
        if ward.winner == Winner.OPPOSING:
            return _finish(AttackResult(setup, use, ward, (), (), None, None, None, (), (), (), ()))
    hit_rng = stages.rng_for("hit")
    naturals = tuple(hit_rng.roll(D100) for _ in range(2 if setup.precision else 1))
    outcome, reaction = _reaction_roll(
        setup, stages.rng_for("reaction"), _Classifier(setup, use, min(naturals))
    )
    effect = _effect_of(outcome, reaction)
    damage = roll_damage(setup, damage_inputs(setup, use, effect), stages.rng_for("damage"))
    full = damage is not None and effect.basis == DamageBasis.FULL
    rolls = roll_effects(usable_effects(setup, use), stages.rng_for("effects")) if full else ()
    inflicted = inflicted_conditions(setup, outcome, reaction, rolls)
    modifiers = hit_modifiers(setup, use)
    return _finish(AttackResult(setup, use, ward, naturals, modifiers, outcome, reaction, damage,
                                rolls, inflicted, damaged_items(reaction), ()))  # fmt: skip


def roll_attack(setup: AttackSetup, rng: Rng) -> AttackResult:
    """Resolve a physical attack, rolling every die with ``rng`` in the module's order."""
    return _resolve(setup, RngStages(rng))


def roll_attack_in_stages(setup: AttackSetup, stages: StageSource) -> AttackResult:
    """Resolve a physical attack asking ``stages`` for each stage's dice by name.

    With one Rng for every stage this is :func:`roll_attack`; the fight's physical dice give
    each stage from its roller's entry or the stream (D-6).
    """
    return _resolve(setup, stages)


def attack_with_dice(setup: AttackSetup, dice: AttackDice) -> AttackResult:
    """Resolve a physical attack from dice typed in stage by stage; leftovers are refused."""
    return dice.stages().play(functools.partial(_resolve, setup))


# --- Impale (S-13) ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImpaleResult:
    """An Impale: the impaler's Initiative test and, on success, its attack (S-13)."""

    test: StatTest
    attack: AttackResult | None


def impale_setup(attack: AttackSetup, inches: int) -> AttackSetup:
    """The impaler's main-hand attack, +1 damage per whole straight-line inch (S-13, SA-22)."""
    if inches < 0:
        raise RulesError(f"Inches moved before an Impale cannot be negative, got {inches}.")
    attributes = attack.weapon.attributes
    if not attributes.impale or not attack.attacker.proficient(attack.weapon.group):
        raise RulesError(
            f"{attack.weapon.name} cannot Impale in {attack.attacker.name}'s hands (S-13, S-16)."
        )
    bonus = Part(f'Impale ({inches}" moved)', inches)
    return replace(attack, damage_bonuses=(*attack.damage_bonuses, bonus))


def _impale(attack: AttackSetup, inches: int, natural: int, stages: Stages) -> ImpaleResult:
    setup = impale_setup(attack, inches)
    test = stat_test_with_natural(natural, Part("Initiative", setup.attacker.initiative))
    if not test.success:
        return ImpaleResult(test, None)
    return ImpaleResult(test, _resolve(setup, stages))


def resolve_impale(attack: AttackSetup, inches: int, rng: Rng) -> ImpaleResult:
    """Impale (S-13): ``attack`` is the impaler's attack on the moving foe.

    The Initiative test's d20 comes first, then the attack's dice.
    """
    return _impale(attack, inches, rng.roll(20), RngStages(rng))


def impale_with_dice(
    attack: AttackSetup, inches: int, test: int, dice: AttackDice | None
) -> ImpaleResult:
    """Impale from typed-in dice: the test's d20 and, when it passes, the attack's dice."""
    return (
        (dice or AttackDice(hit=())).stages().play(functools.partial(_impale, attack, inches, test))
    )
