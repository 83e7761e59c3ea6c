"""Casting (S-8), spell power (S-15) and combined attacks (S-9).

Order of the dice for a cast: casting d100 → the Block d20 (blockable powers, rolled with the
casting roll) → damage dice. For a combined attack: Ward-off roll-off → the one hit d100 (two
for a Precision Attack) → reaction d20 → physical damage dice → spirit damage dice → % effects.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from fractions import Fraction

from tableside.dice import Rng, ScriptedRng
from tableside.errors import RulesError
from tableside.strife.attack import (
    AttackSetup,
    Inflicted,
    ReactionRoll,
    check_attack,
    damage_inputs,
    hit_modifiers,
    hit_rule,
    inflicted_conditions,
    roll_damage,
    roll_effects,
    usable_effects,
    ward_off_roll,
)
from tableside.strife.attack import EffectRoll as EffectRoll
from tableside.strife.catalog import Combatant, Element
from tableside.strife.checks import RollOff, Winner
from tableside.strife.damage import Damage, DamageBasis, DamageInputs, damage_from_rolls
from tableside.strife.dice import parse_dice
from tableside.strife.hit import (
    D100,
    CastOutcome,
    CastRule,
    CombinedVerdict,
    HitOutcome,
    classify_cast,
    classify_hit,
    combine_portions,
)
from tableside.strife.penalties import (
    WeaponUse,
    submerged_miscast_bonus,
    submerged_resistance_bonus,
)
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
from tableside.strife.rounding import round_half_up
from tableside.strife.ruleset import STANDARD, StrifeRuleset
from tableside.strife.stages import GivenStages, RngStages


@dataclass(frozen=True, slots=True)
class SharedCastRoll:
    """One casting roll for every target of a one-roll power (SA-49).

    The ``cast`` stage plays back the fixed natural; every other stage (each target's Block,
    damage) draws from ``rng``.
    """

    natural: int
    rng: Rng

    def rng_for(self, stage: str) -> Rng:
        """The fixed natural for the casting roll, ``rng`` for every other stage."""
        return ScriptedRng((self.natural,), "casting roll") if stage == "cast" else self.rng


Stages = RngStages | GivenStages | SharedCastRoll


def spell_power_share(power: int, targets_hit: int, separate_rolls: bool = False) -> int:
    """Each target's share of spell power on one casting roll (S-15).

    Divided evenly among the targets hit, rounded half up, a share below 1 becomes 1; a power
    with a separate roll per target gives each the full bonus.
    """
    if power < 0 or targets_hit < 0:
        raise RulesError(
            f"Spell power and targets hit cannot be negative, got {power} and {targets_hit}."
        )
    if targets_hit == 0 or power == 0:
        return 0
    if separate_rolls:
        return power
    return max(1, round_half_up(Fraction(power, targets_hit)))


@dataclass(frozen=True, slots=True)
class Power:
    """A Spirit or Faith power as far as a casting roll needs it."""

    name: str
    element: Element
    damage: str | None = None
    blockable: bool = False  # Missile-type: can be blocked (S-10)
    dodge_allowed: bool = False  # Missile-type: Dodge adds to Resistance (S-8)

    def __post_init__(self) -> None:
        if self.damage is not None:
            parse_dice(self.damage)


@dataclass(frozen=True, slots=True)
class CastSetup:
    """One casting roll against one target (S-8).

    Attributes:
        caster: The caster's sheet (crit chance ``cast_crit_chance``, ``miscast_chance``).
        target: The target's sheet (Resistances, Dodge).
        power: The power cast.
        modifiers: Casting-roll modifiers, labelled.
        spell_power: This target's spell-power share (S-15), added to damage.
        damage_bonuses: Other flat damage bonuses.
        resists: Whether the target chooses to resist.
        caster_submerged: A fully submerged caster (fire: +25 % miscast, S-16).
        target_submerged: A fully submerged target (+25 Fire Resistance, S-16).
        reaction: A Block against a blockable power.
        ruleset: The options in force.
    """

    caster: Combatant
    target: Combatant
    power: Power
    modifiers: tuple[Part, ...] = ()
    spell_power: int = 0
    damage_bonuses: tuple[Part, ...] = ()
    resists: bool = True
    caster_submerged: bool = False
    target_submerged: bool = False
    reaction: Reaction | None = None
    ruleset: StrifeRuleset = STANDARD


@dataclass(frozen=True, slots=True)
class CastDice:
    """Dice typed in for a cast: the casting d100, the Block d20, damage dice."""

    cast: int
    reaction: int | None = None
    damage: tuple[int, ...] = ()

    def stages(self) -> GivenStages:
        """The faces by stage name."""
        reaction = () if self.reaction is None else (self.reaction,)
        return GivenStages({"cast": (self.cast,), "reaction": reaction, "damage": self.damage})


@dataclass(frozen=True, slots=True)
class CastResult:
    """Everything a cast did and why."""

    setup: CastSetup
    rule: CastRule
    natural: int
    modifiers: tuple[Part, ...]
    outcome: CastOutcome
    reaction: ReactionRoll | None
    damage: Damage | None
    rulings: tuple[str, ...]

    @property
    def modified(self) -> int:
        """Natural + modifiers."""
        return self.natural + total(self.modifiers)


def cast_rule(setup: CastSetup) -> CastRule:
    """Resistance (+25 Fire when submerged), Dodge if allowed, crit and miscast (S-8, S-16)."""
    element = setup.power.element
    return CastRule(
        resistance=setup.target.resistance(element)
        + submerged_resistance_bonus(element, setup.target_submerged),
        resists=setup.resists,
        dodge=setup.target.dodge,
        dodge_allowed=setup.power.dodge_allowed,
        crit_chance=setup.caster.cast_crit_chance,
        miscast_range=min(
            D100,
            setup.caster.miscast_chance + submerged_miscast_bonus(element, setup.caster_submerged),
        ),
        crit_requires_hit=setup.ruleset.crit_requires_hit,
    )


def as_hit(outcome: CastOutcome) -> HitOutcome:
    """A cast outcome read as a hit outcome, for the Block rules (S-10)."""
    if outcome == CastOutcome.CRITICAL_CAST:
        return HitOutcome.CRITICAL_HIT
    return HitOutcome.HIT if outcome == CastOutcome.SUCCESS else HitOutcome.ARMOR_SAVE


def _check_cast(setup: CastSetup) -> None:
    reaction = setup.reaction
    if reaction is None:
        return
    if not setup.power.blockable or reaction.family != Family.BLOCK:
        raise RulesError(
            f"{setup.power.name} can only be met by a Block, and only if it is blockable "
            "(S-8, S-10)."
        )
    check_reaction_fits(reaction, ranged=True, physical=False)


def _cast_reaction(setup: CastSetup, outcome: CastOutcome, rng: Rng) -> ReactionRoll | None:
    """A Block against a blockable power resolves as against a ranged hit (S-10, SA-23)."""
    reaction = setup.reaction
    if reaction is None:
        return None
    test = reaction_test_with_natural(
        reaction, setup.target, setup.caster, rng.roll(20), setup.ruleset
    )
    verdict = verdict_of(test)
    effect = reaction_effect(as_hit(outcome), Family.BLOCK, verdict, ranged=True)
    knocked, damaged = improvised_risk(test.natural) if reaction.improvised else (False, False)
    return ReactionRoll(reaction, test, verdict, effect, knocked, damaged)


def _cast_damage(setup: CastSetup, effect: ReactionEffect, rng: Rng) -> Damage | None:
    if setup.power.damage is None or effect.basis == DamageBasis.NONE:
        return None
    flats = (Part("spell power", setup.spell_power), *setup.damage_bonuses)
    inputs = DamageInputs(parse_dice(setup.power.damage), 0, tuple(p for p in flats if p.amount),
                          0, effect.crit_stands, effect.basis)  # fmt: skip
    rolls = inputs.expr.roll(rng) if inputs.needs_dice else ()
    return damage_from_rolls(inputs, rolls)


def _resolve_cast(setup: CastSetup, stages: Stages) -> CastResult:
    _check_cast(setup)
    rule = cast_rule(setup)
    natural = stages.rng_for("cast").roll(D100)
    modifiers = tuple(p for p in setup.modifiers if p.amount)
    outcome = classify_cast(natural, natural + total(modifiers), rule)
    reaction = _cast_reaction(setup, outcome, stages.rng_for("reaction"))
    effect = reaction.effect if reaction else plain_effect(as_hit(outcome))
    damage = _cast_damage(setup, effect, stages.rng_for("damage"))
    conditional = {
        "S-1": reaction is not None,
        "S-10": reaction is not None,
        "S-14": damage is not None,
        "S-15": setup.spell_power > 0,
        "S-16": setup.caster_submerged or setup.target_submerged,
    }
    rulings = ["S-8", *(rid for rid, on in conditional.items() if on)]
    return CastResult(setup, rule, natural, modifiers, outcome, reaction, damage, _sorted(rulings))


def plain_effect(outcome: HitOutcome) -> ReactionEffect:
    """No reaction: full damage on a hit (doubled on a crit), none on a miss."""
    basis = DamageBasis.FULL if outcome.hits else DamageBasis.NONE
    return ReactionEffect(basis, outcome == HitOutcome.CRITICAL_HIT)


def _sorted(rulings: list[str]) -> tuple[str, ...]:
    return tuple(sorted(set(rulings), key=lambda r: int(r.split("-")[1])))


def roll_cast(setup: CastSetup, rng: Rng) -> CastResult:
    """Resolve a cast, rolling with ``rng`` in the module's order (S-8)."""
    return _resolve_cast(setup, RngStages(rng))


def cast_on_roll(setup: CastSetup, natural: int, rng: Rng) -> CastResult:
    """Resolve a cast on a casting roll already made for an earlier target (SA-49)."""
    return _resolve_cast(setup, SharedCastRoll(natural, rng))


def cast_with_dice(setup: CastSetup, dice: CastDice) -> CastResult:
    """Resolve a cast from typed-in dice; leftovers are refused (S-8)."""
    return dice.stages().play(functools.partial(_resolve_cast, setup))


# --- combined attacks (S-9) -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpiritPortion:
    """The non-physical portion of a combined attack, with its own modifiers and crit (S-9).

    ``crit_chance`` and ``miscast_range`` default to the attacker's ``cast_crit_chance`` and
    ``miscast_chance``.
    """

    power: Power
    modifiers: tuple[Part, ...] = ()
    spell_power: int = 0
    crit_chance: int | None = None
    miscast_range: int | None = None


@dataclass(frozen=True, slots=True)
class CombinedSetup:
    """A physical attack with a spirit portion riding on the same hit roll (S-9)."""

    attack: AttackSetup
    spirit: SpiritPortion
    resists: bool = True


@dataclass(frozen=True, slots=True)
class CombinedDice:
    """Dice typed in for a combined attack, stage by stage (see the module's order)."""

    hit: tuple[int, ...]
    reaction: int | None = None
    ward_off: tuple[int, int] | None = None
    damage: tuple[int, ...] = ()
    spirit_damage: tuple[int, ...] = ()
    effects: tuple[int, ...] = ()

    def stages(self) -> GivenStages:
        """The faces by stage name."""
        return GivenStages({
            "hit": self.hit, "damage": self.damage, "spirit_damage": self.spirit_damage,
            "effects": self.effects, "ward_off": self.ward_off or (),
            "reaction": () if self.reaction is None else (self.reaction,),
        })  # fmt: skip


@dataclass(frozen=True, slots=True)
class CombinedResult:
    """Everything a combined attack did: both portions judged on one natural (S-9)."""

    setup: CombinedSetup
    ward_off: RollOff | None
    hit_naturals: tuple[int, ...]
    physical_modifiers: tuple[Part, ...]
    spirit_modifiers: tuple[Part, ...]
    verdict: CombinedVerdict | None
    reaction: ReactionRoll | None
    physical_stopped: bool
    spirit_stopped: bool
    physical_damage: Damage | None
    spirit_damage: Damage | None
    effect_rolls: tuple[EffectRoll, ...]
    inflicted: tuple[Inflicted, ...]
    rulings: tuple[str, ...]

    @property
    def natural(self) -> int | None:
        """The one natural both portions are judged on."""
        return min(self.hit_naturals) if self.hit_naturals else None


def spirit_rule(setup: CombinedSetup) -> CastRule:
    """The spirit portion vs the target's Resistance; Dodge is judged by the physical portion."""
    attacker, spirit = setup.attack.attacker, setup.spirit
    crit = attacker.cast_crit_chance if spirit.crit_chance is None else spirit.crit_chance
    miscast = attacker.miscast_chance if spirit.miscast_range is None else spirit.miscast_range
    return CastRule(
        resistance=setup.attack.defender.resistance(spirit.power.element),
        resists=setup.resists,
        crit_chance=crit,
        miscast_range=miscast,
        crit_requires_hit=setup.attack.ruleset.crit_requires_hit,
    )


def _combined_reaction(
    setup: AttackSetup, natural: int, rng: Rng
) -> tuple[ReactionRoll | None, bool]:
    """The reaction d20 and whether a failed Parry makes the hit ignore Dodge (S-11)."""
    reaction = setup.reaction
    if reaction is None or reaction.family is None:
        return None, False
    test = reaction_test_with_natural(
        reaction, setup.defender, setup.attacker, rng.roll(20), setup.ruleset
    )
    verdict = verdict_of(test)
    knocked, damaged = improvised_risk(test.natural) if reaction.improvised else (False, False)
    placeholder = ReactionEffect(DamageBasis.NONE, False)
    roll = ReactionRoll(reaction, test, verdict, placeholder, knocked, damaged)
    return roll, reaction.family == Family.PARRY and verdict == Verdict.FAILURE


def _merged(raw: list[ReactionEffect]) -> ReactionEffect:
    """One record of what the reaction did to the portions it met."""
    first = raw[0] if raw else ReactionEffect(DamageBasis.NONE, False)
    return ReactionEffect(
        first.basis,
        first.crit_stands,
        disarm=any(e.disarm for e in raw),
        item_damaged=any(e.item_damaged for e in raw),
        stopped=any(e.stopped for e in raw),
    )


@dataclass(frozen=True, slots=True)
class _Portions:
    physical: ReactionEffect | None
    spirit: ReactionEffect | None
    reaction: ReactionRoll | None
    physical_stopped: bool
    spirit_stopped: bool


def _judge_portions(verdict: CombinedVerdict, roll: ReactionRoll | None, ranged: bool) -> _Portions:
    """Each applying portion meets the reaction; a stopped portion has no effect (S-9, SA-18)."""
    outcomes = (
        (verdict.physical_applies, verdict.physical),
        (verdict.spirit_applies, as_hit(verdict.spirit)),
    )
    if roll is None or roll.reaction.family is None:
        effects = [plain_effect(o) if applies else None for applies, o in outcomes]
        return _Portions(effects[0], effects[1], roll, False, False)
    family = roll.reaction.family
    raw = [reaction_effect(o, family, roll.verdict, ranged) if a else None for a, o in outcomes]
    met = [e for e in raw if e is not None]
    record = replace(roll, effect=_merged(met))
    kept = [None if e is None or e.stopped else e for e in raw]
    stopped = [e is not None and e.stopped for e in raw]
    return _Portions(kept[0], kept[1], record, stopped[0], stopped[1])


def _spirit_damage(setup: CombinedSetup, effect: ReactionEffect | None, rng: Rng) -> Damage | None:
    spirit = setup.spirit
    if effect is None or spirit.power.damage is None:
        return None
    flats = tuple(p for p in (Part("spell power", spirit.spell_power),) if p.amount)
    inputs = DamageInputs(parse_dice(spirit.power.damage), 0, flats, 0, effect.crit_stands)
    return damage_from_rolls(inputs, inputs.expr.roll(rng))


def _combined_rulings(result: CombinedResult) -> tuple[str, ...]:
    reaction = result.reaction
    conditional = {
        "S-1": reaction is not None,
        "S-2": result.ward_off is not None,
        "S-10": reaction is not None and reaction.reaction.family == Family.BLOCK,
        "S-11": reaction is not None and reaction.reaction.family == Family.PARRY,
        "S-12": reaction is not None and reaction.reaction.improvised,
        "S-13": result.ward_off is not None,
        "S-14": result.physical_damage is not None or result.spirit_damage is not None,
        "S-15": result.setup.spirit.spell_power > 0,
        "S-23": bool(result.inflicted),
    }
    return _sorted(["S-7", "S-8", "S-9", *(rid for rid, on in conditional.items() if on)])


def _warded(setup: CombinedSetup, ward: RollOff) -> CombinedResult:
    result = CombinedResult(setup, ward, (), (), (), None, None, False, False, None, None, (),
                            (), ())  # fmt: skip
    return replace(result, rulings=_combined_rulings(result))


@dataclass(frozen=True, slots=True)
class _Judged:
    naturals: tuple[int, ...]
    physical_modifiers: tuple[Part, ...]
    spirit_modifiers: tuple[Part, ...]
    verdict: CombinedVerdict
    portions: _Portions


def _judge(setup: CombinedSetup, use: WeaponUse, stages: Stages) -> _Judged:
    """Roll the one natural and the reaction; judge both portions (S-9, S-10, S-11)."""
    attack = setup.attack
    hit_rng = stages.rng_for("hit")
    naturals = tuple(hit_rng.roll(D100) for _ in range(2 if attack.precision else 1))
    natural = min(naturals)
    roll, ignore_dodge = _combined_reaction(attack, natural, stages.rng_for("reaction"))
    p_mods = hit_modifiers(attack, use)
    s_mods = tuple(p for p in setup.spirit.modifiers if p.amount)
    physical = classify_hit(natural, natural + total(p_mods), hit_rule(attack, use, ignore_dodge))
    spirit = classify_cast(natural, natural + total(s_mods), spirit_rule(setup))
    verdict = combine_portions(physical, spirit)
    return _Judged(naturals, p_mods, s_mods, verdict, _judge_portions(verdict, roll, attack.ranged))


def _physical_damage(attack: AttackSetup, use: WeaponUse, effect: ReactionEffect | None,
                     rng: Rng) -> Damage | None:  # fmt: skip
    return None if effect is None else roll_damage(attack, damage_inputs(attack, use, effect), rng)


def _resolve_combined(setup: CombinedSetup, stages: Stages) -> CombinedResult:
    attack = setup.attack
    use = check_attack(attack)
    ward = None
    if attack.reaction is not None and attack.reaction.kind == ReactionKind.WARD_OFF:
        ward = ward_off_roll(attack, stages.rng_for("ward_off"))
        if ward.winner == Winner.OPPOSING:
            return _warded(setup, ward)
    judged = _judge(setup, use, stages)
    portions = judged.portions
    p_damage = _physical_damage(attack, use, portions.physical, stages.rng_for("damage"))
    s_damage = _spirit_damage(setup, portions.spirit, stages.rng_for("spirit_damage"))
    full = portions.physical is not None and portions.physical.basis == DamageBasis.FULL
    rolls = roll_effects(usable_effects(attack, use), stages.rng_for("effects")) if full else ()
    inflicted = inflicted_conditions(attack, judged.verdict.physical, portions.reaction, rolls)
    result = CombinedResult(setup, ward, judged.naturals, judged.physical_modifiers,
                            judged.spirit_modifiers, judged.verdict, portions.reaction,
                            portions.physical_stopped, portions.spirit_stopped, p_damage, s_damage,
                            rolls, inflicted, ())  # fmt: skip
    return replace(result, rulings=_combined_rulings(result))


def roll_combined(setup: CombinedSetup, rng: Rng) -> CombinedResult:
    """Resolve a combined attack, rolling with ``rng`` in the module's order (S-9)."""
    return _resolve_combined(setup, RngStages(rng))


def combined_with_dice(setup: CombinedSetup, dice: CombinedDice) -> CombinedResult:
    """Resolve a combined attack from typed-in dice; leftovers are refused (S-9)."""
    return dice.stages().play(functools.partial(_resolve_combined, setup))


def lowest_defence(defender: Combatant, ac: int, elements: tuple[Element, ...]) -> Part:
    """Combined damage without portions rolls against the lowest applicable AC or Resistance.

    (S-9.) ``ac`` is the target's effective AC; each element's Resistance competes with it.
    """
    options = [
        Part("AC", ac),
        *(Part(f"{e.value} Resistance", defender.resistance(e)) for e in elements),
    ]
    return min(options, key=lambda p: p.amount)


def combined_damage_setup(setup: AttackSetup, elements: tuple[Element, ...]) -> AttackSetup:
    """An attack dealing undivided physical + non-physical damage, judged vs the lowest (S-9)."""
    return replace(setup, defender_ac=lowest_defence(setup.defender, setup.ac, elements).amount)
