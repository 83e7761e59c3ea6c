"""Turning a tally into the report: wins per side, the clock, losses, who fell.

Proportions carry 95% Wilson intervals; means carry 95% normal-approximation intervals
(mean ± 1.96·sd/√n, sd with n−1). All runs count for losses and falls; the clock is summarised
over finished runs only. Everything comes from exact integer sums (:class:`Tally`), so the report
is the same whatever the number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tableside.simulate.stats import Moments, wilson
from tableside.simulate.tally import Tally

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
    runs: int
    seed: int
    cap: int
    policy: str


def mean_json(moments: Moments) -> dict[str, Any] | None:
    """A mean with its interval as JSON (None when nothing was counted)."""
    found = moments.summary()
    return None if found is None else found.to_json()


def outcome_block(tally: Tally) -> dict[str, Any]:
    """Wins per side, draws and unfinished runs, each with its Wilson interval."""
    n = tally.runs
    return {
        "wins": {side: wilson(tally.wins[side], n).to_json() for side in tally.side_names},
        "draws": wilson(tally.draws, n).to_json(),
        "unfinished": wilson(tally.unfinished, n).to_json(),
    }


def clock_block(tally: Tally) -> dict[str, Any]:
    """The Cycle or round finished runs ended in: mean, sd, interval and distribution."""
    return {
        "summary": mean_json(tally.clock),
        "distribution": {str(k): v for k, v in sorted(tally.clocks.items())},
    }


def combatant_block(setup: Setup, tally: Tally) -> dict[str, Any]:
    """Per combatant: its side, each loss's mean, and how often it fell."""
    return {
        who: {
            "side": side,
            "losses": {m: mean_json(tally.losses[who][i]) for i, m in enumerate(setup.measures)},
            "fallen": wilson(tally.fallen[who], tally.runs).to_json(),
        }
        for who, side in tally.sides.items()
    }


def side_block(setup: Setup, tally: Tally) -> dict[str, Any]:
    """Per side, per measure: the side's total loss in a run, mean over runs."""
    return {
        side: {m: mean_json(tally.side_losses[side][i]) for i, m in enumerate(setup.measures)}
        for side in tally.side_names
    }


def report(setup: Setup, tally: Tally) -> dict[str, Any]:
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
        "outcome": outcome_block(tally),
        "clock": {"unit": setup.unit, **clock_block(tally)},
        "losses": {"measures": list(setup.measures), "per_side": side_block(setup, tally)},
        "combatants": combatant_block(setup, tally),
        "commands": mean_json(tally.commands),
    }
