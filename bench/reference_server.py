"""The reference server of ``bench/web_load.py`` (issue 26): the least a command can cost here.

FastAPI and uvicorn, as Tableside's server, with nothing of a game: ``POST
/api/encounters/{eid}/commands`` parses a JSON command (``kind``, ``args``, ``revision``; a
Pydantic model, as Tableside's), reads the Bearer token, appends one row to a SQLite file in a
transaction (``BEGIN IMMEDIATE`` … ``COMMIT``, WAL, ``synchronous=FULL``: the store's own
settings, see ``tableside.store.sqlite``) and answers the revision written as JSON. The
endpoint is a plain ``def`` (run on the threadpool, as Tableside's are), each thread with its
own connection; writers queue on a lock in the process before ``BEGIN IMMEDIATE``, as the
store's do.

Run: ``python bench/reference_server.py --port 8123 --db /tmp/ref.db`` (``web_load.py`` starts
and stops it itself).
"""

from __future__ import annotations

import argparse
import sqlite3
import threading
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


def build(path: str) -> FastAPI:
    """The reference app on the SQLite file at ``path``."""
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

    app = FastAPI(title="reference")

    @app.post("/api/encounters/{encounter_id}/commands")
    def command(
        encounter_id: int, body: CommandBody, authorization: Annotated[str | None, Header()] = None
    ) -> JSONResponse:
        holder = (authorization or "").removeprefix("Bearer ")
        db = connection()
        with write:
            db.execute("BEGIN IMMEDIATE")
            try:
                (last,) = db.execute(
                    "SELECT coalesce(max(revision), 0) FROM records WHERE encounter = ?",
                    (encounter_id,),
                ).fetchone()
                db.execute(
                    "INSERT INTO records VALUES (?, ?, ?, ?)",
                    (encounter_id, last + 1, holder, json_dumps(body.model_dump())),
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return JSONResponse({"revision": last + 1})

    @app.get("/ready")
    def ready() -> dict[str, bool]:
        return {"ready": True}

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True, help="the SQLite file")
    args = parser.parse_args()
    uvicorn.run(build(args.db), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
