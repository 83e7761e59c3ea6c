"""``--balance`` after ``war add`` / ``fight add``: who is likely to win as the roster stands.

The stored encounter is exported and simulated (``--balance-runs`` runs, 2,000 by default; the
fast engine for a War it supports, else the full engine) from the state it has reached, and one
line per side gives its chance of winning with the 95% Wilson interval (issue 15, F-6). The
seed is the one the set-up page's Balance panel uses (F-7), so both show the same figures. An
encounter with one side so far, or one that has ended, gets a sentence instead. The export and
the simulation are shared with the web (``simulate/balance.py``).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from tableside.cli.encounter_cmds import opened
from tableside.cli.options import DICE, SHARED, Runner, Shared

Balance = Annotated[
    bool, typer.Option("--balance", help="Then simulate the fight: each side's chance to win.")
]
BalanceRuns = Annotated[int, typer.Option(help="Runs for --balance.")]
BALANCE_RUNS = 2000

# The options ``war add`` and ``fight add`` end with, after their own: declared once.
ADDING: tuple[Shared, ...] = (
    *SHARED,
    ("balance", Balance, False),
    ("balance_runs", BalanceRuns, BALANCE_RUNS),
)
ADDING_WITH_DICE: tuple[Shared, ...] = (DICE, *ADDING)


def balance_lines(db: str | None, encounter_id: int, runs: int) -> list[str]:
    """Each side's chance of winning, as text lines."""
    from tableside.simulate import SimulationError  # heavy: only when asked
    from tableside.simulate import balance as shared

    with opened(db) as store:
        document = store.export_encounter(encounter_id)
    try:
        found = shared.encounter_balance(document, runs)
    except SimulationError as error:
        return [f"balance: {error}"]
    return shared.balance_lines(found)


def print_balance(
    db: str | None, encounter_id: int, runs: int, shown: bool, json_out: bool
) -> None:
    """Print the balance (on stderr when stdout holds JSON)."""
    if shown:
        typer.echo("\n".join(balance_lines(db, encounter_id, runs)), err=json_out)


def add_and_balance(run: Runner, encounter_id: int, given: dict[str, Any], **args: Any) -> None:
    """Run an ``add`` command with the options of :data:`ADDING`, then ``--balance`` if asked."""
    db, json_out = given["db"], given["json_out"]
    run(db, encounter_id, "add", given["revision"], json_out, given.get("dice"), **args)
    print_balance(db, encounter_id, given["balance_runs"], given["balance"], json_out)
