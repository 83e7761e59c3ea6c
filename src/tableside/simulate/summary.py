"""Turning run outcomes into the report: wins per side, the clock, losses, who fell.

Every figure is computed from the outcomes in run order, so the report is the same whatever the
number of workers. Proportions carry 95% Wilson intervals; means carry 95% normal-approximation
intervals (mean ± 1.96·sd/√n, sd with n−1). All runs count for losses and falls; the clock is
summarised over finished runs only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tableside.simulate.runs import RunOutcome
from tableside.simulate.stats import Mean, distribution, mean_interval, wilson

SCHEMA = "tableside/simulation"
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Setup:
    """What was simulated and how (echoed in the report)."""

    file: str
    game: str
    encounter: str
    unit: str
    measures: tuple[str, ...]
    sides: dict[str, str]  # combatant → side, in the encounter's order
    runs: int
    seed: int
    cap: int
    policy: str


def mean_json(values: Sequence[float]) -> dict[str, Any] | None:
    """A mean with its interval as JSON (None when there are no values)."""
    found: Mean | None = mean_interval(values)
    return None if found is None else found.to_json()


def side_names(setup: Setup) -> list[str]:
    """The sides in order of first appearance."""
    return list(dict.fromkeys(setup.sides.values()))


def outcome_block(setup: Setup, outcomes: Sequence[RunOutcome]) -> dict[str, Any]:
    """Wins per side, draws and unfinished runs, each with its Wilson interval."""
    n = len(outcomes)
    finished = [o for o in outcomes if o.finished]
    wins = {
        side: wilson(sum(o.winner == side for o in outcomes), n).to_json()
        for side in side_names(setup)
    }
    draws = sum(o.winner is None for o in finished)
    return {
        "wins": wins,
        "draws": wilson(draws, n).to_json(),
        "unfinished": wilson(n - len(finished), n).to_json(),
    }


def clock_block(outcomes: Sequence[RunOutcome]) -> dict[str, Any]:
    """The Cycle or round finished runs ended in: mean, sd, interval and distribution."""
    ends = [o.clock for o in outcomes if o.finished]
    return {
        "summary": mean_json(ends),
        "distribution": {str(k): v for k, v in distribution(ends).items()},
    }


def loss_table(setup: Setup, outcomes: Sequence[RunOutcome]) -> dict[str, list[list[int]]]:
    """Per combatant, per measure, the list of losses over the runs."""
    table: dict[str, list[list[int]]] = {who: [[] for _ in setup.measures] for who in setup.sides}
    for o in outcomes:
        for who, values in o.losses:
            for index, value in enumerate(values):
                table[who][index].append(value)
    return table


def combatant_block(setup: Setup, outcomes: Sequence[RunOutcome]) -> dict[str, Any]:
    """Per combatant: its side, each loss's mean, and how often it fell."""
    table = loss_table(setup, outcomes)
    n = len(outcomes)
    return {
        who: {
            "side": side,
            "losses": {m: mean_json(table[who][i]) for i, m in enumerate(setup.measures)},
            "fallen": wilson(sum(who in o.fallen for o in outcomes), n).to_json(),
        }
        for who, side in setup.sides.items()
    }


def side_losses(setup: Setup, outcomes: Sequence[RunOutcome]) -> dict[str, Any]:
    """Per side, per measure: the side's total loss in a run, mean over runs."""
    table = loss_table(setup, outcomes)
    block: dict[str, Any] = {}
    for side in side_names(setup):
        members = [who for who, s in setup.sides.items() if s == side]
        block[side] = {
            m: mean_json([sum(table[w][i][r] for w in members) for r in range(len(outcomes))])
            for i, m in enumerate(setup.measures)
        }
    return block


def report(setup: Setup, outcomes: Sequence[RunOutcome]) -> dict[str, Any]:
    """The whole report as JSON (schema ``tableside/simulation`` v1, see docs/simulate.md)."""
    return {
        "format": SCHEMA,
        "version": SCHEMA_VERSION,
        "file": setup.file,
        "game": setup.game,
        "encounter": setup.encounter,
        "runs": setup.runs,
        "seed": setup.seed,
        "policy": setup.policy,
        "cap": {"unit": setup.unit, "max": setup.cap},
        "outcome": outcome_block(setup, outcomes),
        "clock": {"unit": setup.unit, **clock_block(outcomes)},
        "losses": {
            "measures": list(setup.measures),
            "per_side": side_losses(setup, outcomes),
        },
        "combatants": combatant_block(setup, outcomes),
        "commands": mean_json([o.commands for o in outcomes]),
    }
