"""Decisions on the command line (docs/decisions.md): what an encounter waits for; ``decide``.

``war show`` / ``fight show`` list the open decisions; ``war decide`` / ``fight decide`` answer
one as the Host.

The command line is the Host. On an encounter of no web table its commands keep their arguments
(the one-shot engine's behaviour); on a table's encounter they follow the table's policy as the
Host (:class:`~tableside.web.decisions.TablePolicy`, D-4): the players' characters' choices left
open are asked of their players, who answer on the web table, and the Host answers here.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from tableside.errors import DataError

if TYPE_CHECKING:  # imported by the command that runs (start-up time)
    from tableside.encounter.decisions import Asker, PendingCommand, Request
    from tableside.encounter.engine import Encounter
    from tableside.store import Store
    from tableside.store.lite import LiteLog
    from tableside.store.tables import Seat

CLI_BY = "cli"


def table_seats(store: Store | LiteLog, encounter_id: int) -> tuple[int, tuple[Seat, ...]] | None:
    """The web table an encounter is played at and its seats (None: no table)."""
    from tableside.store.lite import LiteLog

    if isinstance(store, LiteLog):
        return None  # the quick log opens only an encounter of no web table
    from tableside.store import tables

    table_id = tables.table_of(store, encounter_id)
    if table_id is None:
        return None
    return table_id, tuple(tables.seats(store, table_id, encounter_id))


def asker_for(store: Store | LiteLog, encounter_id: int) -> Asker | None:
    """The Host's policy at the encounter's web table (None for an encounter of no table)."""
    from tableside.store.lite import LiteLog

    found = table_seats(store, encounter_id)
    if found is None or isinstance(store, LiteLog):
        return None
    from tableside.store import table_audience
    from tableside.web.auth import Principal
    from tableside.web.decisions import TablePolicy

    table_id, seats = found
    settings = table_audience.decision_settings(store, encounter_id)
    return TablePolicy(Principal(table_id, None), seats, settings, time.time())


def whose(request: Request, seats: tuple[Seat, ...] | None) -> str:
    """Who a request waits for, in words (with the players' names at a web table)."""
    if seats is None:
        from tableside.encounter.engine import describe

        return describe(request)
    from tableside.web.decisions import waiting_for

    return waiting_for(request, seats)


def pending_json(
    pending: PendingCommand | None, seats: tuple[Seat, ...] | None
) -> list[dict[str, Any]]:
    """The open decisions, as ``--json`` shows them (``[]`` when nothing waits)."""
    if pending is None:
        return []
    return [
        {**r.to_json(), "waiting_for": whose(r, seats), "seq": pending.seq,
         "command": pending.command.kind}
        for r in pending.open
    ]  # fmt: skip


def pending_lines(pending: list[dict[str, Any]]) -> list[str]:
    """The open decisions in plain text (nothing when none)."""
    if not pending:
        return []
    lines = [f"Waiting ({pending[0]['command']} #{pending[0]['seq']}) for:"]
    for item in pending:
        values = ", ".join(json.dumps(o.get("value")) for o in item["options"]) or "any"
        deadline = item["deadline"]
        when = ""
        if deadline is not None:
            at = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(deadline))
            when = f"; the suggestion is taken at {at}"
        lines.append(
            f"  decision {item['id']}: {item['waiting_for']} -- {item['prompt'] or item['kind']}"
        )
        lines.append(f"    options: {values}; suggested: {json.dumps(item['suggested'])}{when}")
    return lines


def seats_of(store: Store | LiteLog, encounter_id: int) -> tuple[Seat, ...] | None:
    """The seats of the encounter's table (None: no table)."""
    found = table_seats(store, encounter_id)
    return None if found is None else found[1]


def parse_choice(text: str) -> Any:
    """CHOICE as JSON (``null``, ``"parry"``, ``{"mode": "best"}``) or else a bare word."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def answer(store: Store, encounter: Encounter[Any], encounter_id: int, decision: str,
           choice: Any) -> Any:  # fmt: skip
    """Answer one open decision as the Host (``by: cli``) and store the answer record."""
    if encounter.pending is None:
        raise DataError(f"Encounter {encounter_id} waits for no decision.")
    record = encounter.answer(decision, choice, CLI_BY, asker_for(store, encounter_id))
    store.append(encounter_id, record)
    return record
