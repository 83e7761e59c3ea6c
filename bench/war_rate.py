"""War commands per second through the store (SQLite, and PostgreSQL when a URL is set).

Each command is decided by the rules, applied, and written in its own transaction through a
:class:`tableside.service.Session`. Baseline (same process): the same commands in memory with no
store. Set TABLESIDE_TEST_POSTGRES_URL (``scripts/postgres.sh`` prints one) to include PostgreSQL.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable

from tableside import service
from tableside.encounter.engine import Encounter
from tableside.encounter.policy import next_command
from tableside.encounter.roster import add_commands
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.state import WarState
from tableside.store import Store


def in_memory(wars: int) -> int:
    """Baseline: Wars in memory."""
    count = 0
    for seed in range(wars):
        encounter: Encounter[WarState] = Encounter(MajestyWar(), seed)
        for command in add_commands():
            encounter.execute(command)
            count += 1
        while not encounter.state.ended:
            encounter.execute(next_command(encounter.state))
            count += 1
    return count


def through_store(url: str, wars: int) -> int:
    """Wars through a store session, one transaction per command."""
    store = Store.open(url)
    count = 0
    try:
        for seed in range(wars):
            session = service.Session(store, service.new_encounter(store, f"bench {seed}", seed))
            for command in add_commands():
                session.execute(command)
                count += 1
            while not session.encounter.state.ended:
                session.execute(next_command(session.encounter.state))
                count += 1
    finally:
        store.close()
    return count


def measure(label: str, run: Callable[[int], int], wars: int, baseline: float | None) -> float:
    start = time.perf_counter()
    commands = run(wars)
    elapsed = time.perf_counter() - start
    rate = commands / elapsed
    ratio = "" if baseline is None else f"  ratio to baseline {rate / baseline:.3f}"
    print(f"{label:<44} {commands:>7} commands {rate:>10,.0f} /s{ratio}")
    return float(rate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wars", type=int, default=5, help="Wars per measurement")
    args = parser.parse_args()
    baseline = measure("baseline: in memory, no store", in_memory, args.wars, None)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/bench.db"
        measure("SQLite file (WAL), one transaction each", lambda n: through_store(url, n),
                args.wars, baseline)  # fmt: skip
    pg = os.environ.get("TABLESIDE_TEST_POSTGRES_URL") or os.environ.get("TABLESIDE_DATABASE_URL")
    if pg and pg.startswith("postgresql"):
        measure(
            "PostgreSQL, one transaction each", lambda n: through_store(pg, n), args.wars, baseline
        )
    else:
        print("PostgreSQL: skipped (set TABLESIDE_TEST_POSTGRES_URL)")


if __name__ == "__main__":
    main()
