"""Log-record appends per second through the store, one transaction each, with baselines.

Each record is a Strike command whose events carry the full JSON breakdown of a real Strike
(about 2.5 kB), as an encounter would log it. Measured in the same process:

- baseline: encoding the same records to JSON with no database;
- raw sqlite3: the same UPDATE + INSERT of the JSON text, one transaction each, same pragmas;
- the store on SQLite (a temporary file; WAL, synchronous=FULL, the SQLite default);
- the store on PostgreSQL, when $TABLESIDE_TEST_POSTGRES_URL or $TABLESIDE_DATABASE_URL is set
  (in a scratch schema that is dropped afterwards), with raw psycopg as its baseline.

Prints figures; it is not a timed test. Run: ``make bench-store`` or
``python bench/store_rate.py [--seconds S]``.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from tableside.dice import SeededRng
from tableside.encounter.log import Command, Event, LogRecord, RecordKind
from tableside.majesty.adjust import AdjustMode
from tableside.majesty.catalog import builtin_catalog
from tableside.majesty.character import Attributes, Character, WarOverrides
from tableside.majesty.report import strike_dict
from tableside.majesty.strike import StrikeOptions, StrikeSetup, roll_strike
from tableside.store import Store
from tableside.store.engine import json_dumps
from tableside.store.scratch import scratch_schema

POOL = 200
LABEL_WIDTH = 52


def strike_payloads(count: int) -> list[dict[str, Any]]:
    catalog = builtin_catalog()
    setup = StrikeSetup(
        Character(
            "Herald", Attributes(42, 31, 30, 60, 48, 72), overrides=WarOverrides(precision=8)
        ),
        Character("Warrior", Attributes(56, 22, 40, 70, 30, 40), overrides=WarOverrides(guard=2)),
        catalog.weapon("Sword"),
        catalog.weapon("Axe"),
        options=StrikeOptions(mode=AdjustMode.BEST),
    )
    rng = SeededRng(2)
    return [strike_dict(roll_strike(setup, rng)) for _ in range(count)]


def record(revision: int, payloads: list[dict[str, Any]]) -> LogRecord:
    breakdown = payloads[revision % len(payloads)]
    command = Command("strike", {"striker": "Herald", "defender": "Warrior", "mode": "best"})
    events = (
        Event("strike", breakdown, "M-7"),
        Event("wear", {"target": "Warrior", "wear": breakdown.get("wear")}, "M-20"),
    )
    return LogRecord(revision, RecordKind.COMMAND, revision - 1, command, events)


def rate(label: str, append: Callable[[int], object], seconds: float) -> float:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(20):
            count += 1
            append(count)
    per_second = count / (time.perf_counter() - start)
    print(f"{label:<{LABEL_WIDTH}} {per_second:>10,.0f} /s  ({count:,} records)")
    return per_second


def ratio(label: str, value: float, base: float) -> None:
    print(f"{'':<{LABEL_WIDTH}} {label}: {value / base:.4f}")


def json_baseline(payloads: list[dict[str, Any]], seconds: float) -> float:
    return rate(
        "baseline: JSON encoding only, no database",
        lambda n: json_dumps(record(n, payloads).to_json()),
        seconds,
    )


RAW_SCHEMA = """
CREATE TABLE encounters (id INTEGER PRIMARY KEY, revision INTEGER NOT NULL);
CREATE TABLE log_records (encounter_id INTEGER REFERENCES encounters(id), revision INTEGER,
    kind TEXT, seq INTEGER, command TEXT, events TEXT, PRIMARY KEY (encounter_id, revision));
INSERT INTO encounters VALUES (1, 0);
"""


def raw_sqlite(folder: Path, payloads: list[dict[str, Any]], seconds: float) -> float:
    connection = sqlite3.connect(folder / "raw.db", isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA foreign_keys = ON")
    connection.executescript(RAW_SCHEMA)

    def append(n: int) -> None:
        data = record(n, payloads).to_json()
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(
            "UPDATE encounters SET revision = ? WHERE id = 1 AND revision = ?", (n, n - 1)
        )
        connection.execute(
            "INSERT INTO log_records VALUES (1, ?, ?, ?, ?, ?)",
            (n, data["kind"], data["seq"], json_dumps(data["command"]), json_dumps(data["events"])),
        )
        connection.execute("COMMIT")

    try:
        return rate("raw sqlite3, one transaction each", append, seconds)
    finally:
        connection.close()


def raw_postgres(url: str, payloads: list[dict[str, Any]], seconds: float) -> float:
    parsed = make_url(url)
    options = parsed.query.get("options")
    connection = psycopg.connect(
        host=parsed.host,
        port=parsed.port,
        user=parsed.username,
        password=parsed.password,
        dbname=parsed.database,
        options=options if isinstance(options, str) else None,
        autocommit=True,
    )
    connection.execute(RAW_SCHEMA)

    def append(n: int) -> None:
        data = record(n, payloads).to_json()
        with connection.transaction():
            connection.execute(
                "UPDATE encounters SET revision = %s WHERE id = 1 AND revision = %s", (n, n - 1)
            )
            connection.execute(
                "INSERT INTO log_records VALUES (1, %s, %s, %s, %s, %s)",
                (
                    n,
                    data["kind"],
                    data["seq"],
                    json_dumps(data["command"]),
                    json_dumps(data["events"]),
                ),
            )

    try:
        return rate("raw psycopg, one transaction each", append, seconds)
    finally:
        connection.close()


def through_store(label: str, url: str, payloads: list[dict[str, Any]], seconds: float) -> float:
    with Store.open(url) as store:
        encounter_id = store.create_encounter("bench", "majesty", 1)
        per_second = rate(label, lambda n: store.append(encounter_id, record(n, payloads)), seconds)
        start = time.perf_counter()
        _, records = store.load(encounter_id)
        loaded = len(records) / (time.perf_counter() - start)
        print(f"{'':<{LABEL_WIDTH}} load of the whole log: {loaded:,.0f} records/s")
    return per_second


def postgres_url() -> str | None:
    for name in ("TABLESIDE_TEST_POSTGRES_URL", "TABLESIDE_DATABASE_URL"):
        value = os.environ.get(name, "")
        if value.startswith("postgres"):
            return value
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    payloads = strike_payloads(POOL)
    size = len(json_dumps(record(1, payloads).to_json()))
    print(f"record size: {size:,} bytes of JSON (a Strike with its full breakdown)")
    baseline = json_baseline(payloads, args.seconds)
    with tempfile.TemporaryDirectory() as folder:
        raw = raw_sqlite(Path(folder), payloads, args.seconds)
        ratio("ratio to baseline", raw, baseline)
        url = f"sqlite:///{Path(folder) / 'store.db'}"
        sqlite_rate = through_store("Store.append on SQLite (WAL)", url, payloads, args.seconds)
        ratio("ratio to baseline", sqlite_rate, baseline)
        ratio("ratio to raw sqlite3", sqlite_rate, raw)
    base_url = postgres_url()
    if base_url is None:
        print("PostgreSQL: skipped (set TABLESIDE_TEST_POSTGRES_URL; see scripts/postgres.sh)")
        return
    with scratch_schema(base_url, prefix="tableside_bench") as url:
        raw_pg = raw_postgres(url, payloads, args.seconds)
        ratio("ratio to baseline", raw_pg, baseline)
    with scratch_schema(base_url, prefix="tableside_bench") as url:
        pg_rate = through_store("Store.append on PostgreSQL", url, payloads, args.seconds)
        ratio("ratio to baseline", pg_rate, baseline)
        ratio("ratio to raw psycopg", pg_rate, raw_pg)


if __name__ == "__main__":
    main()
