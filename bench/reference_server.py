"""The reference server of ``bench/web_load.py`` (issue 26): the least a command can cost here.

FastAPI and uvicorn, as Tableside's server, with nothing of a game: ``POST
/api/encounters/{eid}/commands`` parses a JSON command (``kind``, ``args``, ``revision``; a
Pydantic model, as Tableside's), reads the Bearer token, appends one row to a SQLite file in a
transaction (``BEGIN IMMEDIATE`` … ``COMMIT``, WAL, ``synchronous=FULL``: the store's own
settings, see ``tableside.store.sqlite``) and answers the revision written as JSON. The
endpoint is a plain ``def`` (run on the threadpool), each thread with its own connection;
writers queue on a lock in the process before ``BEGIN IMMEDIATE``, as the store's do.

With ``--url`` it appends to PostgreSQL instead (the same two statements in a transaction, on
psycopg directly): the least a command can cost on Tableside's other backend, to compare its
PostgreSQL lines with (W-71).

Run: ``python bench/reference_server.py --port 8123 --db /tmp/ref.db`` (``web_load.py`` starts
and stops it itself).
"""

from __future__ import annotations

import argparse
import sqlite3
import threading
from collections.abc import Callable
from typing import Annotated, Any

import uvicorn
from fastapi import FastAPI, Header
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from tableside.store.sqlite import json_dumps, sqlite_pragmas


class CommandBody(BaseModel):
    """A command as Tableside's endpoint takes it (only what the reference reads)."""

    model_config = ConfigDict(extra="forbid")
    kind: str
    args: dict[str, Any] = {}
    revision: int | None = None


SCHEMA = (
    "CREATE TABLE IF NOT EXISTS records (encounter INTEGER NOT NULL, revision INTEGER NOT NULL, "
    "holder TEXT NOT NULL, command TEXT NOT NULL, PRIMARY KEY (encounter, revision))"
)


Append = Callable[[int, str, str], int]
"""Append one command's row to an encounter in a transaction; the revision written."""


def sqlite_append(path: str) -> Append:
    """Appends to the SQLite file at ``path``, each thread with its own connection."""
    local = threading.local()
    write = threading.Lock()
    with sqlite3.connect(path) as first:
        sqlite_pragmas(first)
        first.execute(SCHEMA)

    def connection() -> sqlite3.Connection:
        if not hasattr(local, "db"):
            local.db = sqlite3.connect(path, check_same_thread=False)
            sqlite_pragmas(local.db)
            local.db.execute("PRAGMA synchronous = FULL")
        db: sqlite3.Connection = local.db
        return db

    def append(encounter_id: int, holder: str, command: str) -> int:
        db = connection()
        with write:
            db.execute("BEGIN IMMEDIATE")
            try:
                (last,) = db.execute(
                    "SELECT coalesce(max(revision), 0) FROM records WHERE encounter = ?",
                    (encounter_id,),
                ).fetchone()
                db.execute("INSERT INTO records VALUES (?, ?, ?, ?)",
                           (encounter_id, last + 1, holder, command))  # fmt: skip
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return int(last) + 1

    return append


def postgresql_append(url: str) -> Append:
    """Appends to PostgreSQL at the SQLAlchemy ``url``, each thread with its own connection.

    The same two statements in a transaction (``BEGIN`` … ``COMMIT``), on psycopg directly.
    """
    import psycopg
    from sqlalchemy.engine import make_url

    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    local = threading.local()
    with psycopg.connect(conninfo, autocommit=True) as first:
        first.execute(SCHEMA)

    def connection() -> psycopg.Connection[Any]:
        if not hasattr(local, "db"):
            local.db = psycopg.connect(conninfo, autocommit=True)
        db: psycopg.Connection[Any] = local.db
        return db

    def append(encounter_id: int, holder: str, command: str) -> int:
        db = connection()
        with db.transaction():
            found = db.execute(
                "SELECT coalesce(max(revision), 0) FROM records WHERE encounter = %s",
                (encounter_id,),
            ).fetchone()
            last = int(found[0]) if found else 0
            db.execute("INSERT INTO records VALUES (%s, %s, %s, %s)",
                       (encounter_id, last + 1, holder, command))  # fmt: skip
        return last + 1

    return append


def build(append: Append) -> FastAPI:
    """The reference app, appending each command with ``append``."""
    app = FastAPI(title="reference")

    @app.post("/api/encounters/{encounter_id}/commands")
    def command(
        encounter_id: int, body: CommandBody, authorization: Annotated[str | None, Header()] = None
    ) -> JSONResponse:
        holder = (authorization or "").removeprefix("Bearer ")
        revision = append(encounter_id, holder, json_dumps(body.model_dump()))
        return JSONResponse({"revision": revision})

    @app.get("/ready")
    def ready() -> dict[str, bool]:
        return {"ready": True}

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", help="the SQLite file")
    where.add_argument("--url", help="a PostgreSQL URL (SQLAlchemy's form) instead")
    args = parser.parse_args()
    append = sqlite_append(args.db) if args.db else postgresql_append(args.url)
    uvicorn.run(build(append), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
