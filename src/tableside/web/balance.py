"""The set-up page's Balance panel: each side's chance to win as the roster stands (F-7).

``GET /api/encounters/{eid}/balance?runs=2000`` (the Host only: the simulation reads every
secret NPC value) exports the encounter as it stands and simulates it as ``--balance`` does
(``simulate/balance.py``: the fast engine for a War, the full engine for a Realm of Strife
fight, seeded from the encounter's seed and revision). The endpoint is a plain function, so the
web server runs it on its thread pool, off the event loop; one simulation runs at a time (the
others wait their turn), and at most :data:`RUNS_MAX` runs are asked. The last answers are kept
by encounter, revision and runs (the same seed gives the same figures), so reloading the page
does not simulate again. Bad ``runs`` answer 400,
an encounter that cannot be simulated (one side so far, already over) answers 422, both with
one sentence.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Annotated, Any

from fastapi import FastAPI, Header, Query
from fastapi.responses import JSONResponse

from tableside.errors import DataError
from tableside.limits import shown
from tableside.simulate import SimulationError
from tableside.simulate.balance import BALANCE_RUNS, encounter_balance
from tableside.web.auth import require_host
from tableside.web.setup import bearer
from tableside.web.table import WebTable

RUNS_MAX = 10_000  # runs of one balance from the web (a War's 10,000 take about a second)
UNSIMULABLE = 422
KEPT = 64  # answers kept: (encounter, revision, runs) -> the balance; a reload reads it again


def runs_asked(raw: str | None) -> int:
    """The ``runs`` query: a whole number from 1 to :data:`RUNS_MAX` (2,000 when absent).

    Raises:
        DataError: Anything else, named with its value.
    """
    if raw is None or raw.strip() == "":
        return BALANCE_RUNS
    text = raw.strip()
    if not re.fullmatch(r"\d{1,9}", text) or not 1 <= int(text) <= RUNS_MAX:
        raise DataError(
            f"The number of runs must be a whole number from 1 to {RUNS_MAX:,}, got {shown(text)}."
        )
    return int(text)


def add_balance(app: FastAPI, table: WebTable) -> None:
    """Register the balance endpoint on the application."""
    one_at_a_time = threading.Lock()
    kept: OrderedDict[tuple[int, int, int], dict[str, Any]] = OrderedDict()

    @app.get("/api/encounters/{encounter_id}/balance", response_model=None)
    def encounter_balance_api(
        encounter_id: int,
        runs: Annotated[str | None, Query()] = None,
        authorization: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any] | JSONResponse:
        who, _info = table.at_encounter(bearer(authorization), encounter_id)
        require_host(who, "see the balance (it reads secret NPC values)")
        count = runs_asked(runs)
        document = table.store.export_encounter(encounter_id)
        key = (encounter_id, len(document["records"]), count)
        with one_at_a_time:
            if key in kept:
                return kept[key]
            try:
                found = {"encounter": encounter_id, **encounter_balance(document, count)}
            except SimulationError as error:
                return JSONResponse({"error": str(error)}, status_code=UNSIMULABLE)
            kept[key] = found
            while len(kept) > KEPT:
                kept.popitem(last=False)
            return found
