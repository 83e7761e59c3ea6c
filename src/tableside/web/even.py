"""Make it even from the web (issue 26, F-54): the Host's proposal, applied only when accepted.

``POST /api/encounters/{eid}/even {target, change, runs?}`` (the Host only: the simulation reads
every secret NPC value) simulates every value of one change of the encounter as it stands
(``simulate.even.make_even``: ``target`` as ``holy=60%``, ``change`` as ``Brute.guard=2..8``,
``Goblin-1=1..6`` or, in a Realm of Strife fight, ``catalog:Goblin@monsters=0..4``, F-61) on
this server's cores (spawned processes, from 4,000 runs in all; a smaller proposal runs on the
request's thread), or on the Dask scheduler named by ``TABLESIDE_CLUSTER``, and answers the
proposal; nothing is changed. A served app (``tableside serve``) plays the values in its balance
process instead, a value a turn beside the balances, and answers 503 while it loads (W-78).
``POST …/even/accept {change, value}`` makes it so, all or nothing: the copies or catalogue NPCs
added, or the combatant removed and added again with its number changed (a Realm of Strife
fight refuses all three once started, W-26).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import FastAPI
from pydantic import Field

from tableside.errors import DataError
from tableside.simulate import SimulationError, even
from tableside.simulate.apart import Apart
from tableside.simulate.sweep import Sweep
from tableside.web.answer_json import JSONResponse
from tableside.web.asking import Authorization, who_at
from tableside.web.balance import Balances, Job
from tableside.web.setup_forms import Body
from tableside.web.setup_roster import all_or_nothing
from tableside.web.table import WebTable

EVEN_RUNS_MAX = 1000  # runs per value from the web
EVEN_VALUES_MAX = 21  # values of one change from the web
SPREAD_RUNS = 4000  # runs of a proposal from which its values run on every core (spawned)
NOT_READY = 503  # a served app's proposal while its balance process loads (W-78)
RETRY_SECONDS = 15  # the Retry-After of that answer
LOADING = (
    "The simulator's fast engines are still being loaded (compiled after an installation), "
    "so no proposal can be made yet; ask for it again in a moment."
)


class EvenBody(Body):
    """POST /api/encounters/{eid}/even: the target and the change to try."""

    target: Annotated[str, Field(min_length=3, max_length=80)]
    change: Annotated[str, Field(min_length=3, max_length=120)]
    runs: Annotated[int, Field(ge=10, le=EVEN_RUNS_MAX)] = 400


class AcceptBody(Body):
    """POST /api/encounters/{eid}/even/accept: the change and the value the Host accepts."""

    change: Annotated[str, Field(min_length=3, max_length=120)]
    value: Annotated[int, Field(ge=-1000, le=1000)]


def parsed_change(text: str) -> even.Change:
    """The change, with at most :data:`EVEN_VALUES_MAX` values (one sentence if not)."""
    change = even.parse_change(text)
    if len(change.values) > EVEN_VALUES_MAX:
        raise DataError(
            f"The web tries at most {EVEN_VALUES_MAX} values of a change, got "
            f"{len(change.values)} ({text[:60]!r})."
        )
    return change


@dataclass(eq=False)
class Points(Job):
    """A proposal's values in the balance process (W-78): one a turn, beside the balances."""

    apart: Apart | None = None
    documents: list[Any] = field(default_factory=list)
    runs: int = 0
    reports: list[Any] = field(default_factory=list)

    def step(self) -> bool:
        """Play the next value (one call, the proposal's seed); whether every value is played."""
        assert self.apart is not None
        self.reports.append(self.apart.point(self.documents[len(self.reports)], self.runs, None))
        if len(self.reports) < len(self.documents):
            return False
        self.found = {"reports": self.reports}
        return True


def apart_play(balances: Balances, key: tuple[int, int, int], table_id: int) -> Any:
    """``make_even``'s ``play``: the values queued at the table's turns, then waited for (W-78).

    Raises:
        SimulationError: The balance process could not play one (it stopped, a bad encounter).
    """

    def play(documents: list[Any]) -> list[Any]:
        job = Points(key, documents[0], table_id, keep=False, apart=balances.apart,
                     documents=documents, runs=key[2])  # fmt: skip
        found = balances.queue(job).result()
        if isinstance(found, SimulationError):
            raise found
        reports: list[Any] = found["reports"]
        return reports

    return play


def add_even(app: FastAPI, table: WebTable) -> None:
    """Register the proposal and its acceptance on the application.

    A served app's proposals play their values in its balance process (W-78); until it is
    ready, a proposal is answered 503 with one sentence and ``Retry-After``.
    """

    @app.post("/api/encounters/{encounter_id}/even", response_model=None)
    def propose(
        encounter_id: int,
        body: EvenBody,
        authorization: Authorization = None,
    ) -> dict[str, Any] | JSONResponse:
        who = who_at(
            table, authorization, encounter_id, "make it even (it reads secret NPC values)"
        )
        target, change = even.parse_target(body.target), parsed_change(body.change)
        document = table.store.export_encounter(encounter_id)
        cluster = os.environ.get("TABLESIDE_CLUSTER", "").strip() or None
        cores = (os.cpu_count() or 1) if body.runs * len(change.values) >= SPREAD_RUNS else 1
        balances: Balances = app.state.balances
        play = None
        if balances.apart is not None and cluster is None:
            if not balances.ready.is_set():
                return JSONResponse({"error": LOADING}, status_code=NOT_READY,
                                    headers={"Retry-After": str(RETRY_SECONDS)})  # fmt: skip
            key = (encounter_id, len(document["records"]), body.runs)
            play = apart_play(balances, key, who.table_id)
        found = even.make_even(document, target, change, body.runs, workers=cores,
                               cluster=cluster, fresh_processes=True, play=play)  # fmt: skip
        return {**found, "revision": len(document["records"]),
                "accept": {"change": body.change, "value": found["proposal"]}}  # fmt: skip

    @app.post("/api/encounters/{encounter_id}/even/accept")
    def accept(
        encounter_id: int,
        body: AcceptBody,
        authorization: Authorization = None,
    ) -> dict[str, Any]:
        who = who_at(table, authorization, encounter_id, "change the roster")
        change = parsed_change(body.change)
        if body.value not in change.values:
            raise DataError(f"The value {body.value} is not one of the change's {body.change!r}.")
        document = table.store.export_encounter(encounter_id)
        commands = even.change_commands(document, change, body.value)
        if not commands:
            kind = {Sweep: "number", even.Count: "count"}.get(type(change), "catalog")
            return {"added": [], "revision": len(document["records"]), "kind": kind}
        return all_or_nothing(table, who, encounter_id, commands)
