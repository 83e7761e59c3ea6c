"""What a simulation counts, run by run: wins, the clock, losses and falls, as exact integer sums.

A :class:`Tally` takes run outcomes one at a time and keeps only counts and integer sums, so a
worker sends back one small tally per chunk, memory does not grow with the number of runs, and
merging tallies in any order gives the same numbers (the report is the same for any workers).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tableside.simulate.runs import RunOutcome
from tableside.simulate.stats import Moments


@dataclass
class Tally:
    """Counts over runs for combatants ``sides`` (combatant → side) and ``measures`` losses."""

    sides: dict[str, str]
    measures: int
    runs: int = 0
    wins: Counter[str] = field(default_factory=Counter)
    draws: int = 0
    unfinished: int = 0
    clock: Moments = field(default_factory=Moments)
    clocks: Counter[int] = field(default_factory=Counter)
    losses: dict[str, list[Moments]] = field(default_factory=dict)
    side_losses: dict[str, list[Moments]] = field(default_factory=dict)
    fallen: Counter[str] = field(default_factory=Counter)
    commands: Moments = field(default_factory=Moments)

    def __post_init__(self) -> None:
        for who in self.sides:
            self.losses.setdefault(who, [Moments() for _ in range(self.measures)])
        for side in self.side_names:
            self.side_losses.setdefault(side, [Moments() for _ in range(self.measures)])

    @property
    def side_names(self) -> list[str]:
        """The sides in order of first appearance."""
        return list(dict.fromkeys(self.sides.values()))

    def add(self, outcome: RunOutcome) -> None:
        """Count one run."""
        self.runs += 1
        self.commands.add(outcome.commands)
        self.fallen.update(outcome.fallen)
        self.add_result(outcome)
        self.add_losses(outcome)

    def add_result(self, outcome: RunOutcome) -> None:
        """Winner, draw or unfinished; the clock of a finished run."""
        if not outcome.finished:
            self.unfinished += 1
            return
        self.clock.add(outcome.clock)
        self.clocks[outcome.clock] += 1
        if outcome.winner is None:
            self.draws += 1
        else:
            self.wins[outcome.winner] += 1

    def add_losses(self, outcome: RunOutcome) -> None:
        """Each combatant's losses, and each side's total in this run."""
        per_side = {side: [0] * self.measures for side in self.side_names}
        for who, values in outcome.losses:
            for index, value in enumerate(values):
                self.losses[who][index].add(value)
                per_side[self.sides[who]][index] += value
        for side, sums in per_side.items():
            for index, total in enumerate(sums):
                self.side_losses[side][index].add(total)

    def merge(self, other: Tally) -> None:
        """Count another tally's runs too."""
        self.runs += other.runs
        self.wins.update(other.wins)
        self.draws += other.draws
        self.unfinished += other.unfinished
        self.clock.merge(other.clock)
        self.clocks.update(other.clocks)
        self.fallen.update(other.fallen)
        self.commands.merge(other.commands)
        for mine, theirs in ((self.losses, other.losses), (self.side_losses, other.side_losses)):
            for key, moments in theirs.items():
                for index, more in enumerate(moments):
                    mine[key][index].merge(more)
