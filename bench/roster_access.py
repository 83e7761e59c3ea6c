"""What seats bound to roster characters cost a player's request (issue 25, CH-2), with baselines.

Every request on an encounter reads its holder with ``table_log.access`` (one statement, and for a
seat its secrecy: one more). A seat now also reads the encounter's bindings. Measured in the same
process on the same SQLite store (a temporary file), reads per second of:

- baseline: the Host's access (no secrecy, no bindings read);
- a player on an encounter without bindings (an encounter made before the roster);
- a player on an encounter with 4 of its 8 combatants bound to roster characters.

Prints figures and ratios; it is not a timed test. Run: ``python bench/roster_access.py
[--seconds S]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tableside.store import Store, roster, table_log, tables

HERALD = {"format": "tableside/majesty-character", "version": 1, "name": "Herald",
          "attributes": {"might": 42, "swiftness": 31, "control": 30, "endurance": 60,
                         "resolve": 48, "passion": 72}}  # fmt: skip


def rate(read: Callable[[], object], seconds: float) -> float:
    """Calls per second of ``read`` over about ``seconds``."""
    count, began = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - began) < seconds:
        for _ in range(50):
            read()
        count += 50
    return count / elapsed


def main() -> None:
    """Print the three rates and their ratios to the baseline."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0)
    seconds = parser.parse_args().seconds
    with (
        tempfile.TemporaryDirectory() as folder,
        Store.open(f"sqlite:///{Path(folder) / 'bench.db'}") as store,
    ):
        table_id = tables.create_table(store, "Bench", "ab" * 32)
        seats = [tables.add_seat(store, table_id, f"P{n}", (f"N{n}",), f"{n:064x}")
                 for n in range(1, 5)]  # fmt: skip
        plain = tables.create_table_encounter(store, table_id, "Plain", "majesty-war", 1)
        bound = tables.create_table_encounter(store, table_id, "Bound", "majesty-war", 1)
        for n, seat in enumerate(seats, start=1):
            cid = roster.add_character(store, table_id, "majesty-war", HERALD, seat.id)
            roster.bind(store, bound, f"R{n}", cid)
        host = rate(lambda: table_log.access(store, "ab" * 32, plain), seconds)
        figures = [
            ("Host (baseline)", host),
            ("player, no bindings", rate(lambda: table_log.access(store, f"{1:064x}", plain),
                                         seconds)),
            ("player, 4 bound", rate(lambda: table_log.access(store, f"{1:064x}", bound),
                                     seconds)),
        ]  # fmt: skip
    for label, figure in figures:
        print(f"{label:<22} {figure:>9.0f} reads/s   {figure / host:5.2f}× the baseline")


if __name__ == "__main__":
    main()
