"""The roster's JSON API (issue 25): characters that live beyond one fight (CH-1 … CH-19).

The Host sees and changes every character of its table; a player sees its own characters
whole and only the names of the others (CH-16), adds characters only to its own seat (CH-18),
and edits only its own: a change to a number
the rules fix waits for the Host's approval unless the table trusts its players (CH-13, CH-14).
A fight's carry-over is proposed at its end and applied when the Host confirms (CH-9).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from pydantic import Field

from tableside.campaign import files, play
from tableside.campaign.carry import Options, rest
from tableside.campaign.sheets import game_named, numbers, rule_fixed, validated
from tableside.errors import DataError
from tableside.limits import Flag
from tableside.store import roster, tables
from tableside.store.roster import RosterCharacter, UnknownRosterCharacterError
from tableside.store.table_files import import_table
from tableside.web import guards
from tableside.web.answer_json import JSONResponse
from tableside.web.asking import Authorization, bearer, who_at
from tableside.web.auth import ForbiddenError, Principal, new_token, require_host, token_hash
from tableside.web.roster_access import at_character, owns
from tableside.web.setup_forms import Body
from tableside.web.table import WebTable

ID_MAX = 2**31 - 1


class NewRosterCharacter(Body):
    """POST /api/tables/{tid}/characters: a sheet of a game, owned by a seat or the Host."""

    game: str = Field(min_length=1, max_length=64)
    sheet: dict[str, Any]
    owner: int | None = Field(default=None, ge=1, le=ID_MAX)


class CharacterEdit(Body):
    """PATCH /api/characters/{cid}: a new sheet, a new owner, or the Host's answer to an edit."""

    sheet: dict[str, Any] | None = None
    owner: int | None = Field(default=None, ge=0, le=ID_MAX)  # 0: the Host's
    approve: Flag | None = None


class RestBody(Body):
    """POST /api/characters/{cid}/rest: how much HP (and Spirit) it regains; none: a full rest."""

    amount: int | None = Field(default=None, ge=1, le=10_000)


class CarryOptions(Body):
    """POST /api/encounters/{eid}/carry-over: the Host's choices (CH-4, CH-5, CH-8)."""

    wave: Flag = False
    battle_soon: Flag = False
    keep_exertion: Flag = False

    def options(self) -> Options:
        """As the carry-over's options."""
        return Options(self.wave, self.battle_soon, self.keep_exertion)


class TrustBody(Body):
    """PUT /api/tables/{tid}/roster-settings: do players' edits apply at once (CH-14)?"""

    trust_players: Flag


def full_view(table: WebTable, character: RosterCharacter) -> dict[str, Any]:
    """Everything of a character, for its owner and the Host."""
    return {"id": character.id, "name": character.name, "game": character.game,
            "owner": character.owner, "sheet": character.sheet,
            "numbers": numbers(character.game, character.sheet),
            "pending": character.pending, "carried": character.carried}  # fmt: skip


def name_view(character: RosterCharacter) -> dict[str, Any]:
    """What a player sees of another's character: its name (CH-16)."""
    return {"id": character.id, "name": character.name, "game": character.game}


def edit(table: WebTable, who: Principal, character: RosterCharacter, body: CharacterEdit) -> Any:
    """Apply an edit as its sender may (CH-13, CH-14); answer the character after it."""
    store = table.store
    if body.owner is not None:
        require_host(who, "give a character to another seat")
        owner = None if body.owner == 0 else body.owner
        character = roster.edit_character(store, character.id, owner=owner)
    if body.approve is not None:
        require_host(who, "approve a player's edit")
        pending = character.pending
        if pending is None:
            raise DataError(f"{character.name} has no edit waiting for approval.")
        sheet = pending["sheet"] if body.approve else character.sheet
        character = roster.edit_character(store, character.id, sheet=sheet, pending=None)
    if body.sheet is None:
        return character
    sheet = validated(character.game, body.sheet)
    fixed = rule_fixed(character.game, character.sheet, sheet)
    if who.is_host or not fixed or roster.trusts_players(store, character.table_id):
        return roster.edit_character(store, character.id, sheet=sheet)
    waiting = {"sheet": sheet, "fields": fixed, "by": who.seat.id if who.seat else None}
    return roster.edit_character(store, character.id, pending=waiting)


def import_table_file(store: Any, part: Any) -> tuple[int, str, list[tuple[int, str, str]]]:
    """Write a parsed table file as a new table with fresh tokens for its Host and seats."""
    host = new_token()
    tokens = [new_token() for _ in part.seats]
    table_id = import_table(store, part, token_hash(host), [token_hash(t) for t in tokens])
    seats = tables.seats(store, table_id)
    return table_id, host, [(s.id, s.name, t) for s, t in zip(seats, tokens, strict=True)]


def add_characters(app: FastAPI, table: WebTable) -> None:
    """Register the roster's routes and refusals."""

    def not_found(_request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": guards.shorten(str(error))}, status_code=404)

    def not_ended(_request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": guards.shorten(str(error))}, status_code=409)

    app.add_exception_handler(UnknownRosterCharacterError, not_found)
    app.add_exception_handler(play.NotEndedError, not_ended)
    add_roster_routes(app, table)
    add_fight_routes(app, table)
    add_file_routes(app, table)
    from tableside.web.sheet_page import add_sheet_pages

    add_sheet_pages(app, table)


def add_roster_routes(app: FastAPI, table: WebTable) -> None:
    """The roster itself: list, add, show, edit, rest, and the table's trust setting."""

    @app.get("/api/tables/{table_id}/characters")
    def list_characters(table_id: int, authorization: Authorization = None) -> dict[str, Any]:
        who = table.at_table(bearer(authorization), table_id)
        found = roster.characters(table.store, table_id)
        return {"characters": [full_view(table, c) if who.is_host or owns(who, c)
                               else name_view(c) for c in found]}  # fmt: skip

    @app.post("/api/tables/{table_id}/characters", status_code=201)
    def new_character(
        table_id: int, body: NewRosterCharacter, authorization: Authorization = None
    ) -> dict[str, Any]:
        who = table.at_table(bearer(authorization), table_id)
        require_own_seat(who, body.owner)
        game = game_named(body.game)
        sheet = validated(game, body.sheet)
        return {"id": roster.add_character(table.store, table_id, game, sheet, body.owner)}

    @app.put("/api/tables/{table_id}/roster-settings")
    def trust(table_id: int, body: TrustBody, authorization: Authorization = None) -> Any:
        who = table.at_table(bearer(authorization), table_id)
        require_host(who, "change the roster's settings")
        roster.set_trust_players(table.store, table_id, body.trust_players)
        return {"trust_players": body.trust_players}

    @app.get("/api/characters/{character_id}")
    def show_character(character_id: int, authorization: Authorization = None) -> Any:
        _who, character = at_character(table, authorization, character_id)
        history = play.history(table.store, character_id)
        return {**full_view(table, character), "history": history}

    @app.patch("/api/characters/{character_id}")
    def edit_character(
        character_id: int, body: CharacterEdit, authorization: Authorization = None
    ) -> dict[str, Any]:
        who, character = at_character(table, authorization, character_id)
        return full_view(table, edit(table, who, character, body))

    @app.post("/api/characters/{character_id}/rest")
    def rest_character(
        character_id: int, body: RestBody, authorization: Authorization = None
    ) -> dict[str, Any]:
        who, character = at_character(table, authorization, character_id)
        require_host(who, "let a character rest")
        sheet = rest(character.game, character.sheet, body.amount)
        return full_view(table, roster.edit_character(table.store, character_id, sheet=sheet))


def require_own_seat(who: Principal, owner: int | None) -> None:
    """A player adds a character only to its own seat; the Host, to any (CH-18).

    Raises:
        ForbiddenError: A player names another seat, or none (the Host's).
    """
    if who.is_host or who.seat is None or owner == who.seat.id:
        return
    whose = "the Host's" if owner is None else f"seat {owner}'s"
    raise ForbiddenError(
        f"A player adds characters only to its own seat (owner {who.seat.id}), not to {whose}."
    )


def add_fight_routes(app: FastAPI, table: WebTable) -> None:
    """The carry-over at a fight's end (CH-9)."""

    @app.get("/api/encounters/{encounter_id}/carry-over")
    def proposed(
        encounter_id: int,
        wave: Annotated[bool, Query()] = False,
        battle_soon: Annotated[bool, Query()] = False,
        keep_exertion: Annotated[bool, Query()] = False,
        authorization: Authorization = None,
    ) -> dict[str, Any]:
        who_at(table, authorization, encounter_id, "see the carry-over")
        options = Options(wave, battle_soon, keep_exertion)
        try:
            proposed = play.proposal(table.store, encounter_id, options)
        except play.NotEndedError:  # nothing to carry yet: said, not refused
            return {"ended": False, "proposed": []}
        return {"ended": True, "proposed": proposed}

    @app.post("/api/encounters/{encounter_id}/carry-over")
    def carry_over(
        encounter_id: int, body: CarryOptions, authorization: Authorization = None
    ) -> dict[str, Any]:
        who_at(table, authorization, encounter_id, "apply the carry-over")
        return {"applied": play.apply(table.store, encounter_id, body.options())}


def add_file_routes(app: FastAPI, table: WebTable) -> None:
    """One character's file and the whole table's (CH-17)."""

    @app.get("/api/characters/{character_id}/export")
    def export_character(character_id: int, authorization: Authorization = None) -> Any:
        _who, character = at_character(table, authorization, character_id)
        return files.character_file(character)

    @app.post("/api/tables/{table_id}/characters/import", status_code=201)
    def import_character(
        table_id: int, body: dict[str, Any], authorization: Authorization = None
    ) -> dict[str, Any]:
        who = table.at_table(bearer(authorization), table_id)
        require_host(who, "import characters")
        game, sheet = files.parse_character_file(body)
        return {"id": roster.add_character(table.store, table_id, game, sheet, None)}

    @app.get("/api/tables/{table_id}/export")
    def export_table(table_id: int, authorization: Authorization = None) -> Any:
        who = table.at_table(bearer(authorization), table_id)
        require_host(who, "export the table")
        return files.table_file(table.store, table_id)

    @app.post("/api/tables/import", status_code=201)
    def import_table_route(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        part = files.parse_table_file(body)
        table.rates.table_created(request.client.host if request.client else "unknown")
        table_id, token, seats = import_table_file(table.store, part)
        return {"id": table_id, "host_token": token, "join_link": f"/join/{token}",
                "seats": [{"id": i, "name": n, "token": t, "join_link": f"/join/{t}"}
                          for i, n, t in seats]}  # fmt: skip
