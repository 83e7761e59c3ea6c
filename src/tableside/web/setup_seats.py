"""The Host's seats: edit a seat (name, characters), and who is connected now (W-28).

A seat's name and characters change in place: its join link stays, and its open pages reconnect
so that what they read follows the seat as it is now (a character taken away is secret again at
once). Removing a seat and giving it a new link (the old one refused at once) are W-12's, on the
same page. "Connected" is a seat (or the Host) with a live stream open in this server process,
that is a fight page open in a browser; with several server processes each knows only its own.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Header, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import Field

from tableside.limits import Name
from tableside.store import tables
from tableside.web.asking import bearer
from tableside.web.auth import Principal, require_host
from tableside.web.setup import (
    ID_PATTERN,
    Body,
    PostedForm,
    again_from,
    seat_characters,
    see_other,
    table_form,
    text,
)
from tableside.web.table import WebTable
from tableside.web.table_views import seat_view

Authorization = Annotated[str | None, Header()]
CharacterId = Annotated[str, Field(min_length=1, max_length=40, pattern=ID_PATTERN)]


class SeatChange(Body):
    """PATCH /api/tables/{tid}/players/{seat_id}: a new name and/or characters."""

    name: Name | None = None
    characters: list[CharacterId] | None = Field(default=None, max_length=64)


def presence(table: WebTable, who: Principal) -> dict[str, Any]:
    """Who is connected now: the Host and each seat, with its open pages (live streams)."""
    require_host(who, "see who is connected")
    seats = tables.seats(table.store, who.table_id)
    return {
        "host": table.connected(who.table_id, None),
        "seats": [{**seat_view(s), "connected": table.connected(who.table_id, s)} for s in seats],
    }


def edit_seat(
    table: WebTable,
    who: Principal,
    seat_id: int,
    name: str | None,
    characters: tuple[str, ...] | None,
) -> dict[str, Any]:
    """Change a seat's name and/or characters (what is not given stays)."""
    require_host(who, "change players' seats")
    seat = next((s for s in tables.seats(table.store, who.table_id) if s.id == seat_id), None)
    if seat is None:
        raise tables.UnknownSeatError(who.table_id, seat_id)
    changed = table.edit_player(
        who,
        who.table_id,
        seat_id,
        seat.name if name is None else name,
        seat.characters if characters is None else characters,
    )
    return seat_view(changed)


def add_seats(app: FastAPI, table: WebTable) -> None:
    """The seats' endpoints: the JSON API and the table page's edit form."""

    @app.patch("/api/tables/{table_id}/players/{seat_id}")
    def edit_api(
        table_id: int, seat_id: int, body: SeatChange, authorization: Authorization = None
    ) -> dict[str, Any]:
        who = table.at_table(bearer(authorization), table_id)
        characters = None if body.characters is None else tuple(dict.fromkeys(body.characters))
        return edit_seat(table, who, seat_id, body.name, characters)

    @app.get("/api/tables/{table_id}/presence")
    def presence_api(table_id: int, authorization: Authorization = None) -> dict[str, Any]:
        return presence(table, table.at_table(bearer(authorization), table_id))

    @app.post("/tables/{table_id}/players/{seat_id}/edit", response_class=HTMLResponse)
    def edit_page(
        request: Request,
        table_id: int,
        seat_id: int,
        form: PostedForm,
        authorization: Authorization = None,
    ) -> Response:
        def edit(who: Principal) -> Response:
            edit_seat(table, who, seat_id, text(form, "name"), seat_characters(form))
            return see_other(f"/tables/{table_id}")

        return table_form(table, request, authorization, table_id, edit,
                          lambda error: again_from(form, error, f"seat-{seat_id}"))  # fmt: skip
