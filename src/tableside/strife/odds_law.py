"""Laws of a physical attack's results: distributions, named chances and their tally (issue 5).

:class:`AttackTally` adds up weighted results — exact branches of ``odds.attack_odds``, every
die sequence of the brute-force oracle, or Monte Carlo samples — into one :class:`AttackOdds`,
so the three methods report in the same shape and can be compared with ``==``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from tableside.dice.laws import Chances, Distribution
from tableside.strife.attack import AttackResult, AttackSetup, Inflicted
from tableside.strife.damage import DamageBasis
from tableside.strife.hit import HitOutcome
from tableside.strife.reactions import Verdict

WARDED_OFF = "warded_off"
NOT_ROLLED = "not_rolled"
OUTCOMES = (WARDED_OFF, *(o.value for o in HitOutcome))
VERDICTS = (NOT_ROLLED, *(v.value for v in Verdict))
BASES = tuple(b.value for b in DamageBasis)


@dataclass(frozen=True, slots=True)
class AttackOdds:
    """The law of everything one physical attack decides from its dice (S-7, S-10 … S-14).

    Attributes:
        setup: The attack (its defender at the HP the odds are for).
        hp: The defender's current HP.
        outcome: ``warded_off`` or the hit roll's outcome as the engine reports it (a failed
            Parry ignores Dodge, S-11).
        reaction: The Block/Parry test's verdict, ``not_rolled`` without one.
        damage_basis: Full, minimum, Crushing Blow only, or no damage (S-10, S-11, S-14).
        stopped: The chance that the reaction changed the hit's damage.
        conditions: ``target: condition`` put on by the attack (Vulnerable, Disarmed, % effects).
        damaged_items: The shield or improvised item damaged (S-10, S-12).
        damage: Damage dealt, 0 when nothing lands (after crit doubling and Absorption).
        defeat: P(damage ≥ HP): the defender left at 0 HP, out of the fight (SA-31).
        samples: None when exact, else the Monte Carlo sample size.
    """

    setup: AttackSetup
    hp: int
    outcome: Chances
    reaction: Chances
    damage_basis: Chances
    stopped: Fraction
    conditions: Chances
    damaged_items: Chances
    damage: Distribution
    defeat: Fraction
    samples: int | None = None

    @property
    def exact(self) -> bool:
        """Computed exactly rather than estimated."""
        return self.samples is None

    @property
    def hits(self) -> Fraction:
        """P(Hit or Critical Hit)."""
        return self.outcome[HitOutcome.HIT.value] + self.outcome[HitOutcome.CRITICAL_HIT.value]


def condition_label(inflicted: Inflicted) -> str:
    """``defender: Stun``: who takes which condition."""
    return f"{inflicted.target}: {inflicted.condition.name}"


def _either(chances: Iterable[Fraction]) -> Fraction:
    """P(at least one) of independent events."""
    none = Fraction(1)
    for p in chances:
        none *= 1 - p
    return 1 - none


@dataclass(frozen=True, slots=True)
class Branch:
    """One weighted branch of an attack: everything but damage and conditions is settled.

    Attributes:
        weight: Its probability.
        outcome: An ``OUTCOMES`` label.
        verdict: A ``VERDICTS`` label.
        basis: How much damage stands.
        stopped: The reaction changed the hit's damage.
        conditions: Each condition's sources, as independent chances given this branch.
        items: Items damaged.
        damage: Damage dealt given this branch (value → probability).
    """

    weight: Fraction
    outcome: str
    verdict: str
    basis: DamageBasis
    stopped: bool
    conditions: Mapping[str, tuple[Fraction, ...]]
    items: tuple[str, ...]
    damage: Mapping[int, Fraction]


Summary = tuple[str, str, DamageBasis, bool, frozenset[str], tuple[str, ...], int]


def summary(result: AttackResult) -> Summary:
    """What the law counts of one resolved attack, hashable (to count samples by kind)."""
    damage, reaction = result.damage, result.reaction
    return (
        WARDED_OFF if result.outcome is None else result.outcome.value,
        NOT_ROLLED if reaction is None else reaction.verdict.value,
        DamageBasis.NONE if damage is None else damage.basis,
        reaction is not None and reaction.effect.stopped,
        frozenset(condition_label(i) for i in result.inflicted),
        result.damaged_items,
        result.total_damage,
    )


def branch_of(result: AttackResult | Summary, weight: Fraction) -> Branch:
    """A resolved attack (or its summary) as a branch of certain results."""
    outcome, verdict, basis, stopped, labels, items, damage = (
        summary(result) if isinstance(result, AttackResult) else result
    )
    return Branch(
        weight=weight,
        outcome=outcome,
        verdict=verdict,
        basis=basis,
        stopped=stopped,
        conditions={label: (Fraction(1),) for label in labels},
        items=items,
        damage={damage: Fraction(1)},
    )


class AttackTally:
    """Sums weighted branches into an :class:`AttackOdds`."""

    def __init__(self) -> None:
        self.outcome: defaultdict[str, Fraction] = defaultdict(Fraction)
        self.verdict: defaultdict[str, Fraction] = defaultdict(Fraction)
        self.basis: defaultdict[str, Fraction] = defaultdict(Fraction)
        self.conditions: defaultdict[str, Fraction] = defaultdict(Fraction)
        self.items: defaultdict[str, Fraction] = defaultdict(Fraction)
        self.damage: defaultdict[int, Fraction] = defaultdict(Fraction)
        self.stopped = Fraction(0)

    def add(self, branch: Branch) -> None:
        """Count one branch (zero-weight branches change nothing)."""
        weight = branch.weight
        if not weight:
            return
        self.outcome[branch.outcome] += weight
        self.verdict[branch.verdict] += weight
        self.basis[branch.basis.value] += weight
        self.stopped += weight if branch.stopped else 0
        for label, sources in branch.conditions.items():
            self.conditions[label] += weight * _either(sources)
        for item in set(branch.items):
            self.items[item] += weight
        for value, p in branch.damage.items():
            self.damage[value] += weight * p

    def add_result(self, weight: Fraction, result: AttackResult) -> None:
        """Count one resolved attack (a die sequence of the oracle, or a sample)."""
        self.add(branch_of(result, weight))

    def odds(self, setup: AttackSetup, samples: int | None = None) -> AttackOdds:
        """The law so far, for ``setup``'s defender at its current HP."""
        hp = setup.defender.hp
        damage = Distribution.of_weights(self.damage)
        return AttackOdds(
            setup=setup,
            hp=hp,
            outcome=Chances.of_weights(self.outcome, OUTCOMES),
            reaction=Chances.of_weights(self.verdict, VERDICTS),
            damage_basis=Chances.of_weights(self.basis, BASES),
            stopped=self.stopped,
            conditions=Chances.of_weights(self.conditions),
            damaged_items=Chances.of_weights(self.items),
            damage=damage,
            defeat=damage.at_least(hp),
            samples=samples,
        )
