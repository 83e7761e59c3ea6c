"""The exact joint law of one attack's consequences for the fast Realm of Strife engine (F-9).

``odds.attack_odds`` gives the marginal laws of an attack (damage, conditions, verdicts). The
fast engine needs their *joint* law: what the engine's ``apply_attack`` changes — whether a
Parry failed (it bars Rolling with the Blow, S-19), the damage dealt and the conditions put on —
together. It is built from the same engine answers ``attack_odds`` asks, branch by branch (the
Ward-off by difference, the Block/Parry d20 by class of faces, the hit roll by segments, the
damage per sum of the dice, each % effect per d100 face), with every subset of % effects that
can apply listed through the engine's own ``inflicted_conditions``. Probabilities are exact
fractions; the cumulative floats only pick an outcome from a uniform draw.

A cast on one target (F-41) has its law too (:func:`cast_law`): the casting d100 by outcome
(the engine's ``cast_rule`` and ``classify_cast``), the Block d20 face by face through the
engine's ``_cast_reaction``, the damage per sum of the dice through its ``_cast_damage``, and
the power's effects on a target hit and not stopped (SA-62), each % effect applying on a d100 at
or below its chance.
"""

from __future__ import annotations

import bisect
import itertools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from tableside.dice import ScriptedRng
from tableside.strife.attack import (
    AttackSetup,
    EffectRoll,
    ReactionRoll,
    check_attack,
    inflicted_conditions,
    roll_effects,
    usable_effects,
)
from tableside.strife.casting import (
    CastSetup,
    _cast_damage,
    _cast_reaction,
    as_hit,
    cast_rule,
    plain_effect,
)
from tableside.strife.catalog import PowerEffect
from tableside.strife.conditions import Condition, condition
from tableside.strife.damage import DamageBasis
from tableside.strife.dice import parse_dice
from tableside.strife.hit import D100, CastOutcome, HitOutcome, classify_cast
from tableside.strife.odds import (
    _Attack,
    _plain_effect,
    _reaction_roll,
    reaction_cases,
    warded_off_chance,
)
from tableside.strife.odds_damage import dice_sum_counts, faces_summing_to
from tableside.strife.reactions import Family, ReactionEffect, Verdict
from tableside.strife.records import total

Inflicted = tuple[tuple[str, Condition], ...]  # ("attacker" | "defender", condition), in order


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an attack changes in the fight (``apply_attack``): the rest is informational."""

    failed_parry: bool
    damage: int
    inflicted: Inflicted = ()


@dataclass(frozen=True)
class Law:
    """An attack's outcomes with their exact chances, and the cumulative floats to draw one."""

    outcomes: tuple[Outcome, ...]
    chances: tuple[Fraction, ...]
    cumulative: tuple[float, ...]
    reacts: bool  # a reaction is declared: the defender's Reaction is spent (S-4)

    def draw(self, u: float) -> Outcome:
        """The outcome of a uniform draw ``u`` in [0, 1)."""
        index = bisect.bisect_right(self.cumulative, u)
        return self.outcomes[min(index, len(self.outcomes) - 1)]

    def chance(self, outcome: Outcome) -> Fraction:
        """The exact chance of one outcome (0 when it cannot happen)."""
        for known, p in zip(self.outcomes, self.chances, strict=True):
            if known == outcome:
                return p
        return Fraction(0)

    def conditions(self) -> set[str]:
        """Names of the conditions the attack can put on."""
        return {c.name for o in self.outcomes for _, c in o.inflicted}


def _effect_rolls(
    setup: AttackSetup, attack: _Attack
) -> list[tuple[EffectRoll, EffectRoll, Fraction]]:
    """Per usable % effect: a roll that applies, one that does not, and P(applies) (SA-19)."""
    found = []
    for effect in usable_effects(setup, attack.use):
        rolls = [roll_effects((effect,), ScriptedRng((face,)))[0] for face in range(1, D100 + 1)]
        on = [r for r in rolls if r.applied]
        off = [r for r in rolls if not r.applied]
        chance = Fraction(len(on), D100)
        found.append((on[0] if on else off[0], off[0] if off else on[0], chance))
    return found


def _subsets(
    effects: Sequence[tuple[EffectRoll, EffectRoll, Fraction]],
) -> list[tuple[tuple[EffectRoll, ...], Fraction]]:
    """Every combination of % effects applying or not, with its chance (independent d100s)."""
    out = []
    for picks in itertools.product((True, False), repeat=len(effects)):
        chance = Fraction(1)
        rolls = []
        for pick, (on, off, p) in zip(picks, effects, strict=True):
            chance *= p if pick else 1 - p
            rolls.append(on if pick else off)
        if chance:
            out.append((tuple(rolls), chance))
    return out


def _failed_parry(setup: AttackSetup, roll: ReactionRoll | None) -> bool:
    reaction = setup.reaction
    return (
        reaction is not None
        and roll is not None
        and roll.verdict == Verdict.FAILURE
        and reaction.family == Family.PARRY
    )


def joint_law(setup: AttackSetup) -> Law:
    """The exact joint law of (failed Parry, damage, conditions) of ``setup`` (F-9)."""
    attack = _Attack(setup, check_attack(setup))
    effects = _effect_rolls(setup, attack)
    weights: defaultdict[Outcome, Fraction] = defaultdict(Fraction)
    warded = warded_off_chance(setup)
    if warded:
        weights[Outcome(False, 0)] += warded
    mass = 1 - warded

    def add(weight: Fraction, outcome: HitOutcome, roll: ReactionRoll | None) -> None:
        if not weight:
            return
        effect = roll.effect if roll is not None else _plain_effect(outcome)
        failed = _failed_parry(setup, roll)
        full = effect.basis == DamageBasis.FULL
        for rolls, q in _subsets(effects) if full else [((), Fraction(1))]:
            put_on = inflicted_conditions(setup, outcome, roll, rolls)
            inflicted = tuple((i.target, i.condition) for i in put_on)
            for damage, p in attack.damage(effect).items():
                if p:
                    weights[Outcome(failed, damage, inflicted)] += weight * q * p

    cases = reaction_cases(setup)
    if not cases:
        for outcome, p in attack.hit_law(False).items():
            add(mass * p, outcome, None)
    for case in cases:
        ignore_dodge = case.family == Family.PARRY and case.verdict == Verdict.FAILURE
        for outcome, p in attack.hit_law(ignore_dodge).items():
            add(mass * case.share * p, outcome, _reaction_roll(case, outcome, setup.ranged))
    outcomes = tuple(weights)
    chances = tuple(weights[o] for o in outcomes)
    running, cumulative = Fraction(0), []
    for p in chances:
        running += p
        cumulative.append(float(running))
    return Law(outcomes, chances, tuple(cumulative), setup.reaction is not None)


# --- casts (F-41) -------------------------------------------------------------------------------

D20 = 20


def cast_outcomes(setup: CastSetup, naturals: Sequence[int] = ()) -> dict[CastOutcome, Fraction]:
    """The law of the cast's outcome over the casting d100 (``naturals``: given one of these)."""
    rule = cast_rule(setup)
    modifier = total(tuple(p for p in setup.modifiers if p.amount))
    faces = naturals or range(1, D100 + 1)
    outcomes: defaultdict[CastOutcome, Fraction] = defaultdict(Fraction)
    for natural in faces:
        outcomes[classify_cast(natural, natural + modifier, rule)] += Fraction(1, len(faces))
    return dict(outcomes)


def _cast_branches(
    setup: CastSetup, naturals: Sequence[int] = ()
) -> dict[tuple[ReactionEffect, bool], Fraction]:
    """P(how much damage stands, whether the power's effects apply) over the d100 and Block d20.

    The effects apply on a success or Critical Cast that no Block stopped (SA-62, SA-68).
    ``naturals``: the casting d100 is known to be one of these (a shared roll, F-73).
    """
    outcomes = cast_outcomes(setup, naturals)
    branches: defaultdict[tuple[ReactionEffect, bool], Fraction] = defaultdict(Fraction)
    for cast, p in outcomes.items():
        if setup.reaction is None:
            branches[plain_effect(as_hit(cast)), cast.succeeds] += p
            continue
        for face in range(1, D20 + 1):
            roll = _cast_reaction(setup, cast, ScriptedRng((face,)))
            assert roll is not None  # a reaction was declared
            applies = cast.succeeds and not roll.effect.stopped
            branches[roll.effect, applies] += p / D20
    return dict(branches)


def _cast_damage_law(setup: CastSetup, effect: ReactionEffect) -> dict[int, Fraction]:
    """Damage dealt when ``effect`` says how much stands: per sum of the dice (S-8, S-14)."""
    damage = setup.power.damage
    if damage is None:
        return {0: Fraction(1)}
    expr = parse_dice(damage)
    rolls = expr.sides**expr.count
    law: defaultdict[int, Fraction] = defaultdict(Fraction)
    for offset, ways in enumerate(dice_sum_counts(expr.count, expr.sides)):
        faces = faces_summing_to(expr.count + offset, expr.count, expr.sides)
        dealt = _cast_damage(setup, effect, ScriptedRng(faces))
        law[0 if dealt is None else dealt.total] += Fraction(ways, rolls)
    return dict(law)


def _effect_subsets(
    effects: Sequence[PowerEffect], source: str
) -> list[tuple[Inflicted, Fraction]]:
    """Every combination of a power's effects put on, with its chance (SA-62)."""
    out: list[tuple[Inflicted, Fraction]] = [((), Fraction(1))]
    for effect in effects:
        item = ("defender", condition(effect.name, source, effect.rounds, effect.until))
        p = Fraction(1) if effect.chance is None else Fraction(effect.chance, D100)
        grown: list[tuple[Inflicted, Fraction]] = []
        for put_on, q in out:
            if p:
                grown.append(((*put_on, item), q * p))
            if p != 1:
                grown.append((put_on, q * (1 - p)))
        out = grown
    return out


def cast_law(
    setup: CastSetup,
    effects: Sequence[PowerEffect] = (),
    source: str = "",
    naturals: Sequence[int] = (),
) -> Law:
    """The exact joint law of (damage, conditions) of one cast on one target (F-41).

    ``effects`` are the catalogue power's, put on as conditions from ``source`` ("<caster>'s
    <power>"); the fast engine drops them when the damage has downed the target, as the engine
    does not roll them then (SA-62). ``naturals``: the law given that the casting d100 is one
    of these faces (a one-roll power's shared roll, F-73).
    """
    weights: defaultdict[Outcome, Fraction] = defaultdict(Fraction)
    for (effect, applies), p in _cast_branches(setup, naturals).items():
        subsets = _effect_subsets(effects, source) if applies else [((), Fraction(1))]
        for damage, q in _cast_damage_law(setup, effect).items():
            for inflicted, r in subsets:
                if p * q * r:
                    weights[Outcome(False, damage, inflicted)] += p * q * r
    outcomes = tuple(weights)
    chances = tuple(weights[o] for o in outcomes)
    running, cumulative = Fraction(0), []
    for chance in chances:
        running += chance
        cumulative.append(float(running))
    return Law(outcomes, chances, tuple(cumulative), setup.reaction is not None)
