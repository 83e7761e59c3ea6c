"""The brute-force oracle of ``odds.attack_odds``: every die sequence through ``roll_attack``.

The resolver is run on a prefix of dice; when it asks for one more die than the prefix holds,
the walk branches on every face of that die. Each complete sequence is weighed by the product
of 1/sides of its dice. Slow (one engine resolution per sequence: a d100 hit roll with a d20
reaction and 1d8 damage is already thousands of sequences), and kept for tests and benchmarks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import TypeVar

from tableside.dice import Rng
from tableside.strife.attack import AttackResult, AttackSetup, roll_attack
from tableside.strife.odds import with_hp
from tableside.strife.odds_law import AttackOdds, AttackTally

T = TypeVar("T")


class _DieNeededError(Exception):
    """The resolver asked for a die beyond the prefix."""

    def __init__(self, sides: int) -> None:
        super().__init__(sides)
        self.sides = sides


class _PrefixRng:
    """Plays back a prefix of dice, then signals which die comes next."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        self.prefix, self.used = prefix, 0

    def roll(self, sides: int) -> int:
        if self.used == len(self.prefix):
            raise _DieNeededError(sides)
        self.used += 1
        return self.prefix[self.used - 1]


def resolutions(resolve: Callable[[Rng], T]) -> Iterator[tuple[Fraction, tuple[int, ...], T]]:
    """Every complete die sequence ``resolve`` can ask for, its probability and its result."""
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        prefix, weight = stack.pop()
        try:
            result = resolve(_PrefixRng(prefix))
        except _DieNeededError as need:
            share = weight / need.sides
            stack.extend(((*prefix, face), share) for face in range(need.sides, 0, -1))
            continue
        yield weight, prefix, result


def every_sequence(setup: AttackSetup) -> Iterator[tuple[Fraction, tuple[int, ...], AttackResult]]:
    """Every complete die sequence of the attack, its probability, and the engine's result."""
    return resolutions(lambda rng: roll_attack(setup, rng))


def brute_force_attack_odds(setup: AttackSetup, hp: int | None = None) -> AttackOdds:
    """The law of ``attack_odds`` by resolving every die sequence with the engine."""
    setup = with_hp(setup, hp)
    tally = AttackTally()
    for weight, _, result in every_sequence(setup):
        tally.add_result(weight, result)
    return tally.odds(setup)
