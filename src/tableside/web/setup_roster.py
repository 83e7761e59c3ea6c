"""The Host's roster on the set-up page: remove a combatant, load an encounter file (W-26).

Removing is the game's own ``remove`` command through :meth:`WebTable.execute`, so it is logged,
live and undoable like any command; a Realm of Strife fight refuses it once started (its Turn
Order holds the model). An encounter file is an exported encounter (``tableside/encounter``, as
``tableside simulate`` reads): its log is replayed, and every ``add`` still in effect there joins
this encounter, all or nothing. They are first tried in order on a copy of this encounter; the
first that fails is named (its place in the file and its id) and nothing is written. Then they
are added for real; should one still fail (another command came between), those already added
are undone and the error is given.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Header, Request
from fastapi.responses import Response
from pydantic import Field

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.errors import DataError, TablesideError
from tableside.limits import json_document
from tableside.service import game_for, open_encounter
from tableside.store import roster
from tableside.store.formats import parse_encounter
from tableside.web.asking import who_at
from tableside.web.auth import Principal, require_host
from tableside.web.guards import TooLargeError
from tableside.web.setup import (
    GAMES,
    Body,
    PostedForm,
    again_from,
    encounter_form,
    text,
)
from tableside.web.table import WebTable

Authorization = Annotated[str | None, Header()]
ID_PATTERN = r"^[A-Za-z0-9_.\-]+$"


class RosterBody(Body):
    """POST /api/encounters/{eid}/roster: an exported encounter whose combatants join."""

    document: dict[str, Any]


class RemoveBody(Body):
    """POST /api/encounters/{eid}/remove: the combatant to remove."""

    id: str = Field(min_length=1, max_length=40, pattern=ID_PATTERN)
    revision: int | None = Field(default=None, ge=0)


def remove_combatant(
    table: WebTable, who: Principal, encounter_id: int, combatant: str, revision: int | None = None
) -> dict[str, Any]:
    """The game's ``remove`` command for ``combatant`` (the Host only; undoable)."""
    require_host(who, "remove combatants")
    return table.execute(who, encounter_id, Command("remove", {"id": combatant}), revision)


def file_adds(document: Any, game: str) -> list[Command]:
    """The ``add`` commands in effect in an exported encounter of ``game`` (DataError if none)."""
    if not isinstance(document, dict):
        raise DataError(f"An encounter file must be a JSON object, got {type(document).__name__}.")
    doc, records = parse_encounter(document)
    if doc.game != game:
        raise DataError(
            f"This file holds a {GAMES.get(doc.game, doc.game)} encounter ({doc.game!r}); "
            f"this encounter is {GAMES.get(game, game)}."
        )
    try:
        replayed = Encounter.from_records(game_for(doc.game), doc.seed, records)
    except TablesideError as error:
        raise DataError(f"The encounter file's log does not replay: {error}") from None
    adds = [a.command for a in replayed.applied if a.command.kind == "add"]
    if not adds:
        raise DataError(f"The encounter file {doc.name!r} adds no combatant.")
    return adds


def entry_name(index: int, command: Command) -> str:
    """How an error names an entry of the file: its place and its id."""
    return f"entry {index + 1} of the file ({str(command.args.get('id'))[:40]})"


def load_roster(
    table: WebTable, who: Principal, encounter_id: int, document: Any
) -> dict[str, Any]:
    """Add every combatant of an encounter file, all or nothing (see the module)."""
    require_host(who, "load encounter files")
    game = table.store.encounter(encounter_id).game
    return all_or_nothing(table, who, encounter_id, file_adds(document, game))


def all_or_nothing(
    table: WebTable, who: Principal, encounter_id: int, commands: list[Command]
) -> dict[str, Any]:
    """Run the Host's roster ``commands`` (``add``, ``remove``) in order, all or nothing.

    They are tried first on a copy of the encounter, then run; a refusal midway takes back the
    ones run (undo). Answers the ids of the combatants added and the revision reached.
    """
    trial = open_encounter(table.store, encounter_id)
    held = len(getattr(trial.state, "combatants", None) or getattr(trial.state, "models", {}))
    adds = sum(1 for c in commands if c.kind == "add")
    if held + adds > table.limits.max_combatants:
        raise TooLargeError(
            f"The file adds {adds} combatants to the {held} here, more than the most "
            f"allowed ({table.limits.max_combatants})."
        )
    for index, command in enumerate(commands):
        try:
            trial.execute(command, None)
        except TablesideError as error:
            raise DataError(
                f"Nothing was added: {entry_name(index, command)} cannot join: {error}"
            ) from None
    done = 0
    ids = [str(c.args.get("id")) for c in commands if c.kind == "add"]
    roster.bind_to_host(table.store, encounter_id, ids)  # a file's combatants: the Host's (CH-2)
    try:
        for command in commands:
            table.execute(who, encounter_id, command, None)
            done += 1
    except TablesideError as error:
        for _ in range(done):
            table.step_back(who, encounter_id, None, redo=False)
        roster.unbind(table.store, encounter_id, ids)
        raise DataError(
            f"Nothing was added: {entry_name(done, commands[done])} cannot join: {error}"
        ) from None
    return {"added": ids, "revision": table.store.encounter(encounter_id).revision}


def add_roster(app: FastAPI, table: WebTable) -> None:
    """The roster's endpoints: the JSON API and the set-up page's forms."""

    @app.post("/api/encounters/{encounter_id}/roster", status_code=201)
    def load_api(
        encounter_id: int, body: RosterBody, authorization: Authorization = None
    ) -> dict[str, Any]:
        who = who_at(table, authorization, encounter_id)
        return load_roster(table, who, encounter_id, body.document)

    @app.post("/api/encounters/{encounter_id}/remove")
    def remove_api(
        encounter_id: int, body: RemoveBody, authorization: Authorization = None
    ) -> dict[str, Any]:
        who = who_at(table, authorization, encounter_id)
        return remove_combatant(table, who, encounter_id, body.id, body.revision)

    @app.post("/tables/{table_id}/encounters/{encounter_id}/roster")
    def load_page(
        request: Request,
        table_id: int,
        encounter_id: int,
        form: PostedForm,
        authorization: Authorization = None,
    ) -> Response:
        def load(who: Principal) -> None:
            raw = text(form, "document")
            if not raw:
                raise DataError("Choose an encounter file (or paste its JSON) to load.")
            load_roster(table, who, encounter_id, json_document(raw, "The encounter file"))

        return encounter_form(
            table, request, authorization, (table_id, encounter_id), load,
            lambda error: again_from(form, error, "roster-form"),
        )  # fmt: skip

    @app.post("/tables/{table_id}/encounters/{encounter_id}/remove")
    def remove_page(
        request: Request,
        table_id: int,
        encounter_id: int,
        form: PostedForm,
        authorization: Authorization = None,
    ) -> Response:
        return encounter_form(
            table, request, authorization, (table_id, encounter_id),
            lambda who: remove_combatant(table, who, encounter_id, text(form, "combatant")),
            lambda error: again_from(form, error, ""),
        )  # fmt: skip
