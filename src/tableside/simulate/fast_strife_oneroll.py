"""One-roll powers cast on several targets, on the fast Realm of Strife engine (F-73).

A one-roll power (Storm-type: Arcane Torrent) cast on several targets makes one casting d100
that every target meets (SA-49); each target then Blocks, resists and takes damage on its own
dice. Its targets' consequences are therefore not independent, and the one-target laws of F-41
do not hold them jointly. The fast engine draws the shared d100 first, from :data:`CASTING_D100`
(each face 1/100; the face rides in the outcome's ``damage``), then each target's consequences
from that target's law *given the face*: per (caster, power, target, Block) the faces are
grouped by the cast outcome they give that target (the engine's ``cast_rule`` and
``classify_cast``: Resistance and Dodge are the target's), and one exact law is kept per group
(``fast_strife_law.cast_law`` given those faces). Over the d100 these mix back into the
one-target law, so a one-roll power on one target is drawn as before.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from tableside.encounter.strife.policy import most_targets
from tableside.simulate.fast_strife_law import Law, Outcome, cast_law
from tableside.strife.casting import CastSetup, cast_rule
from tableside.strife.catalog import PowerEntry, PowerTargets
from tableside.strife.hit import D100, classify_cast
from tableside.strife.records import total


def _uniform_law(faces: int) -> Law:
    chances = (Fraction(1, faces),) * faces
    cumulative = tuple(float(Fraction(n, faces)) for n in range(1, faces + 1))
    return Law(tuple(Outcome(False, n) for n in range(1, faces + 1)), chances, cumulative, False)


CASTING_D100 = _uniform_law(D100)  # the shared casting roll: face n is the outcome of damage n


@dataclass(frozen=True)
class GivenRoll:
    """One target's cast laws given the shared casting d100: one law per group of faces."""

    group: tuple[int, ...]  # per face (1 … 100, at index face − 1): the number of its law
    laws: tuple[Law, ...]

    def law(self, natural: int) -> Law:
        """The target's law given the casting d100 showed ``natural``."""
        return self.laws[self.group[natural - 1]]


def shares_roll(entry: PowerEntry) -> bool:
    """Whether the policy's cast of ``entry`` may have several targets on one roll (SA-49)."""
    return entry.targets == PowerTargets.ONE_ROLL and most_targets(entry) > 1


def given_roll(setup: CastSetup, entry: PowerEntry, source: str) -> GivenRoll:
    """The laws of one target's cast given the face of the shared casting d100 (F-73)."""
    rule = cast_rule(setup)
    modifier = total(tuple(p for p in setup.modifiers if p.amount))
    faces: dict[object, list[int]] = {}
    for natural in range(1, D100 + 1):
        faces.setdefault(classify_cast(natural, natural + modifier, rule), []).append(natural)
    number = {n: g for g, group in enumerate(faces.values()) for n in group}
    laws = tuple(cast_law(setup, entry.effects, source, group) for group in faces.values())
    return GivenRoll(tuple(number[n] for n in range(1, D100 + 1)), laws)


_GIVEN: dict[bytes, GivenRoll] = {}


def cached_given_roll(setup: CastSetup, entry: PowerEntry, source: str) -> GivenRoll:
    """:func:`given_roll`, kept for the process (keyed by the pickle of its inputs)."""
    key = pickle.dumps((setup, entry.effects, source))
    found = _GIVEN.get(key)
    if found is None:
        found = _GIVEN[key] = given_roll(setup, entry, source)
    return found


Draw = Callable[[Law], Outcome]
CastKey = tuple[int, int, int, bool]  # caster, power (index in Roster.powers), target, Block


def cast_draws(
    casts: Mapping[CastKey, Law],
    given: Mapping[CastKey, GivenRoll],
    keys: Sequence[CastKey],
    draw: Draw,
) -> list[tuple[Law, Outcome]]:
    """Each target's law and drawn outcome of one cast, in the targets' order.

    On several targets of a one-roll power (``given`` holds its keys) the casting d100 is
    drawn once and each target's law is the one given its face (F-73); otherwise each target's
    own law is drawn (F-41).
    """
    if len(keys) > 1 and keys[0] in given:
        natural = draw(CASTING_D100).damage
        laws = [given[key].law(natural) for key in keys]
    else:
        laws = [casts[key] for key in keys]
    return [(law, draw(law)) for law in laws]
