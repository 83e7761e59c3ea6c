"""Exact odds of a physical attack (S-7, S-10 … S-14, S-21), for designers and for the table.

:func:`hit_odds` gives the outcome law of a hit roll. The outcome is constant between a handful
of breakpoints (critical-miss range, auto-miss, crit threshold, Dodge, AC − modifier), so it
classifies one natural per segment and weighs the segment, instead of classifying all 100
naturals (or all 10 000 pairs of a Precision Attack).

:func:`attack_odds` gives the law of a whole attack as ``attack.roll_attack`` resolves it, by
asking the engine's own functions about each class of dice: the Ward-off roll-off by the
difference of the two d20s (``ward_off_roll``), the Block/Parry test per d20 face
(``reaction_test_with_natural``, grouped by verdict and improvised risk), the hit roll by
segments, what the reaction does (``reaction_effect``), the damage per sum of the damage dice
(``roll_damage``, see ``odds_damage``), each % effect per d100 face (``roll_effects``), and the
conditions and damaged items (``inflicted_conditions``, ``damaged_items``). The tests check it
against every die sequence run through ``roll_attack`` (``odds_oracle``) and against Monte Carlo
(:func:`simulate_attacks`, the engine with a seeded Rng).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction

from tableside.dice import ScriptedRng, SeededRng
from tableside.errors import RulesError
from tableside.limits import ATTACK_MC_MAX
from tableside.strife.attack import (
    AttackSetup,
    ReactionRoll,
    check_attack,
    damage_inputs,
    damaged_items,
    hit_modifiers,
    hit_rule,
    impale_setup,
    inflicted_conditions,
    roll_attack,
    roll_effects,
    usable_effects,
    ward_off_roll,
)
from tableside.strife.checks import D20, StatTest, Winner, stat_test_with_natural
from tableside.strife.damage import DamageBasis, DamageInputs
from tableside.strife.hit import D100, HitOutcome, HitRule, classify_hit, crit_threshold
from tableside.strife.odds_damage import damage_law
from tableside.strife.odds_law import (
    NOT_ROLLED,
    WARDED_OFF,
    AttackOdds,
    AttackTally,
    Branch,
    branch_of,
    condition_label,
    summary,
)
from tableside.strife.penalties import WeaponUse
from tableside.strife.reactions import (
    Family,
    Reaction,
    ReactionEffect,
    ReactionKind,
    Verdict,
    improvised_risk,
    reaction_effect,
    reaction_test_with_natural,
    verdict_of,
)
from tableside.strife.records import Part, total

# --- the hit roll -----------------------------------------------------------------------------


def _breakpoints(rule: HitRule, modifier: int) -> list[int]:
    """Naturals where the outcome may change (a segment starts at each)."""
    starts = {
        1,
        rule.critical_miss_range + 1,
        -modifier + 1,
        crit_threshold(rule.crit_chance),
        rule.dodge + 1,
        rule.ac - modifier + 1,
    }
    return sorted(s for s in starts if 1 <= s <= D100)


def _segment_weight(first: int, last: int, precision: bool) -> Fraction:
    """Probability that the kept natural lies in first..last."""
    if not precision:
        return Fraction(last - first + 1, D100)
    # P(min of two d100 ≥ k) = ((101 − k) / 100)², so P(first ≤ min ≤ last) is a difference.
    return Fraction((D100 + 1 - first) ** 2 - (D100 - last) ** 2, D100 * D100)


def hit_odds(rule: HitRule, modifier: int, precision: bool = False) -> dict[HitOutcome, Fraction]:
    """Exact probability of each outcome for a total hit ``modifier`` (S-7).

    Every outcome is present (possibly 0); the values sum to 1.
    """
    odds = dict.fromkeys(HitOutcome, Fraction(0))
    starts = _breakpoints(rule, modifier)
    for first, following in zip(starts, [*starts[1:], D100 + 1], strict=True):
        outcome = classify_hit(first, first + modifier, rule)
        odds[outcome] += _segment_weight(first, following - 1, precision)
    return odds


# --- the defender's HP --------------------------------------------------------------------------


def with_hp(setup: AttackSetup, hp: int | None) -> AttackSetup:
    """The attack on the defender at ``hp`` current HP (None: the sheet's HP).

    Raises:
        RulesError: The HP is below 1 (a model at 0 HP is already out, SA-31).
    """
    current = setup.defender.hp if hp is None else hp
    if current < 1:
        raise RulesError(
            f"The defender's current HP must be at least 1 (at 0 HP a model is already out, "
            f"SA-31), not {current}."
        )
    if current == setup.defender.hp:
        return setup
    update = {"hp": current, "hp_max": max(current, setup.defender.hp_max)}
    return replace(setup, defender=setup.defender.model_copy(update=update))


# --- the Ward-off (S-13) ------------------------------------------------------------------------


def warded_off_chance(setup: AttackSetup) -> Fraction:
    """P(the defender wins the Ward-off roll-off); 0 without a Ward-off.

    The roll-off's totals are each d20 plus constants, so its winner depends only on the
    difference of the two d20s: the engine decides one pair per difference (39, not 400).
    """
    if setup.reaction is None or setup.reaction.kind != ReactionKind.WARD_OFF:
        return Fraction(0)
    wins = 0
    for difference in range(1 - D20, D20):
        pair = (1, 1 + difference) if difference >= 0 else (1 - difference, 1)
        if ward_off_roll(setup, ScriptedRng(pair)).winner == Winner.OPPOSING:
            wins += D20 - abs(difference)
    return Fraction(wins, D20 * D20)


# --- the Block or Parry d20 (S-10 … S-12) -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReactionCase:
    """The reaction d20's faces that resolve alike: same verdict, same improvised risk."""

    reaction: Reaction
    family: Family
    share: Fraction
    test: StatTest
    verdict: Verdict
    knocked: bool
    damaged: bool


def reaction_cases(setup: AttackSetup) -> list[ReactionCase]:
    """The Block/Parry test's classes of faces (none without a Block or Parry)."""
    reaction = setup.reaction
    if reaction is None or reaction.family is None:
        return []
    cases: dict[tuple[Verdict, bool, bool], ReactionCase] = {}
    for natural in range(1, D20 + 1):
        test = reaction_test_with_natural(
            reaction, setup.defender, setup.attacker, natural, setup.ruleset
        )
        risk = improvised_risk(natural) if reaction.improvised else (False, False)
        key = (verdict_of(test), *risk)
        found = cases.get(key)
        share = Fraction(1, D20) + (found.share if found else 0)
        first = found.test if found else test
        cases[key] = ReactionCase(reaction, reaction.family, share, first, *key)
    return list(cases.values())


def _reaction_roll(case: ReactionCase, outcome: HitOutcome, ranged: bool) -> ReactionRoll:
    """The engine's record of the reaction for this class of faces and hit outcome."""
    effect = reaction_effect(outcome, case.family, case.verdict, ranged)
    return ReactionRoll(case.reaction, case.test, case.verdict, effect, case.knocked, case.damaged)


# --- the whole attack ---------------------------------------------------------------------------


class _Attack:
    """One setup's engine answers, each asked once: damage laws, % effect chances."""

    def __init__(self, setup: AttackSetup, use: WeaponUse) -> None:
        self.setup, self.use = setup, use
        self.modifier = total(hit_modifiers(setup, use))
        self.damage_laws: dict[DamageInputs, dict[int, Fraction]] = {}
        self.effects = self._effect_chances()

    def _effect_chances(self) -> list[tuple[str, Fraction]]:
        """Per % effect: its condition's label and P(applied) over the d100 (SA-19)."""
        found = []
        for effect in usable_effects(self.setup, self.use):
            rolls = [roll_effects((effect,), ScriptedRng((face,)))[0] for face in range(1, 101)]
            applied = [r for r in rolls if r.applied]
            if applied:
                put_on = inflicted_conditions(self.setup, None, None, (applied[0],))
                found.append((condition_label(put_on[0]), Fraction(len(applied), D100)))
        return found

    def hit_law(self, ignore_dodge: bool) -> dict[HitOutcome, Fraction]:
        """The hit roll's outcomes (Dodge ignored after a failed Parry, S-11)."""
        rule = hit_rule(self.setup, self.use, ignore_dodge)
        return hit_odds(rule, self.modifier, self.setup.precision)

    def damage(self, effect: ReactionEffect) -> dict[int, Fraction]:
        """Damage dealt when ``effect`` says how much stands."""
        inputs = damage_inputs(self.setup, self.use, effect)
        if inputs not in self.damage_laws:
            self.damage_laws[inputs] = damage_law(self.setup, inputs)
        return self.damage_laws[inputs]

    def branch(self, weight: Fraction, outcome: HitOutcome, roll: ReactionRoll | None) -> Branch:
        """Everything that follows a hit outcome and a reaction roll."""
        effect = roll.effect if roll is not None else _plain_effect(outcome)
        sources: dict[str, tuple[Fraction, ...]] = {}
        for inflicted in inflicted_conditions(self.setup, outcome, roll, ()):
            sources[condition_label(inflicted)] = (Fraction(1),)
        if effect.basis == DamageBasis.FULL:
            for label, chance in self.effects:
                sources[label] = (*sources.get(label, ()), chance)
        return Branch(
            weight=weight,
            outcome=outcome.value,
            verdict=NOT_ROLLED if roll is None else roll.verdict.value,
            basis=effect.basis,
            stopped=roll is not None and roll.effect.stopped,
            conditions=sources,
            items=damaged_items(roll),
            damage=self.damage(effect),
        )

    def branches(self, mass: Fraction) -> Iterator[Branch]:
        """The branches after the Ward-off (``mass``: P(no Ward-off stopped the attack))."""
        cases = reaction_cases(self.setup)
        if not cases:
            for outcome, p in self.hit_law(False).items():
                yield self.branch(mass * p, outcome, None)
            return
        for case in cases:
            ignore_dodge = case.family == Family.PARRY and case.verdict == Verdict.FAILURE
            for outcome, p in self.hit_law(ignore_dodge).items():
                roll = _reaction_roll(case, outcome, self.setup.ranged)
                yield self.branch(mass * case.share * p, outcome, roll)


def _plain_effect(outcome: HitOutcome) -> ReactionEffect:
    """Without a Block or Parry a hit deals full damage, doubled on a Critical Hit."""
    basis = DamageBasis.FULL if outcome.hits else DamageBasis.NONE
    return ReactionEffect(basis, outcome == HitOutcome.CRITICAL_HIT)


def attack_odds(setup: AttackSetup, hp: int | None = None) -> AttackOdds:
    """The exact law of one physical attack (S-7, S-10 … S-14, S-21, S-23).

    Args:
        setup: The attack, as ``roll_attack`` takes it.
        hp: The defender's current HP for P(defeat) (None: the sheet's HP); it also sets the
            HP an object's Absorption is taken from (S-21).

    Raises:
        RulesError: What ``roll_attack`` refuses, or HP below 1.
    """
    setup = with_hp(setup, hp)
    attack = _Attack(setup, check_attack(setup))
    warded = warded_off_chance(setup)
    tally = AttackTally()
    tally.add(Branch(warded, WARDED_OFF, NOT_ROLLED, DamageBasis.NONE, False, {}, (),
                     {0: Fraction(1)}))  # fmt: skip
    for branch in attack.branches(1 - warded):
        tally.add(branch)
    return tally.odds(setup)


def simulate_attacks(setup: AttackSetup, n: int, seed: int, hp: int | None = None) -> AttackOdds:
    """A Monte Carlo estimate of :func:`attack_odds`: ``n`` attacks by ``roll_attack``.

    The dice come from one ``SeededRng(seed)``; frequencies are Fractions of ``n``.

    Raises:
        RulesError: ``n`` below 1 or above ``ATTACK_MC_MAX`` (W-7), or what
            :func:`attack_odds` refuses.
    """
    if n < 1:
        raise RulesError(f"A Monte Carlo estimate needs at least 1 attack, not {n}.")
    if n > ATTACK_MC_MAX:
        raise RulesError(
            f"A Monte Carlo estimate of an attack rolls at most {ATTACK_MC_MAX} attacks, not {n}."
        )
    setup = with_hp(setup, hp)
    check_attack(setup)
    rng = SeededRng(seed)
    counts = Counter(summary(roll_attack(setup, rng)) for _ in range(n))
    tally = AttackTally()
    for kind, count in counts.items():
        tally.add(branch_of(kind, Fraction(count, n)))
    return tally.odds(setup, samples=n)


# --- Impale (S-13) ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImpaleOdds:
    """An Impale (S-13): the impaler's Initiative test, and its attack when the test passes.

    Attributes:
        passes: P(the Initiative test passes).
        attack: The law of the impaling attack given that it is made (``+1`` damage per inch).
    """

    passes: Fraction
    attack: AttackOdds

    @property
    def defeat(self) -> Fraction:
        """P(the mover is reduced to 0 HP by the Impale)."""
        return self.passes * self.attack.defeat


def impale_odds(attack: AttackSetup, inches: int, hp: int | None = None) -> ImpaleOdds:
    """The exact law of an Impale as ``attack.resolve_impale`` makes it (S-13, SA-22).

    ``attack`` is the impaler's attack on the moving foe; ``hp`` the mover's current HP.
    """
    setup = impale_setup(attack, inches)
    initiative = Part("Initiative", setup.attacker.initiative)
    passing = [n for n in range(1, D20 + 1) if stat_test_with_natural(n, initiative).success]
    return ImpaleOdds(Fraction(len(passing), D20), attack_odds(setup, hp))
