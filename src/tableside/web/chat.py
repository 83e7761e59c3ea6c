"""The fight's chat and dice roller on the web (docs/web.md, W-30 … W-33).

- ``GET /api/encounters/{eid}/chat``: the newest messages the reader may see (a player never
  gets another seat's whisper), who the reader is, and for the Host the seats to whisper to.
- ``POST /api/encounters/{eid}/chat``: a message of 1 to 500 characters (W-30), public or a
  whisper (``to``: ``"host"`` from a player, a seat's id from the Host).
- ``POST /api/encounters/{eid}/rolls``: a free roll or Check of the encounter's game as a roll
  card (W-31, W-32), with the server's dice from a seed of its own stored on the card, or
  physical dice typed in.

Anyone at the table may post and roll (the Host, and players with a seat link); each poster
may post :data:`CHAT_PER_MINUTE` messages and rolls a minute (W-33). A browser's posts carry
the page's CSRF proof like every other (the session middleware checks it). Every message is
stored in the chat table, never the encounter's log; the live stream sends it as an ``event:
chat`` (:func:`chat_feed`), filtered for the reader by the same query as the read.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import FastAPI
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from tableside.errors import DataError
from tableside.limits import (
    ADJUSTMENTS_MAX,
    BOON_MAX,
    DIE_FACE_MAX,
    DIE_FACE_MIN,
    FACTOR_MAX,
    MODIFIER_MAX,
    NAME_MAX,
    NAMED,
    ROW_ID_MAX,
    STAT_MAX,
    check_name,
)
from tableside.store import Store, tables
from tableside.store import chat as stored
from tableside.store.models import CHAT_LENGTH
from tableside.web.answer_json import JSONResponse
from tableside.web.asking import Authorization
from tableside.web.auth import ForbiddenError, Principal, credential
from tableside.web.guards import RateWindow, TooManyError, holder_key
from tableside.web.roller import RollSpec, roll_card

CHAT_PER_MINUTE = 30
"""Messages and rolls one seat (or the Host) may post in any 60 seconds (W-33)."""
TABLE_CHAT_PER_MINUTE = 240
"""Messages and rolls one table may get in any 60 seconds (W-50)."""
SEED_BITS = 53
"""A roll's seed is below 2**53: exact as a JavaScript number, so the page shows it as stored."""
HOST_NAME = "Host"

ChatText = Annotated[
    str, Field(min_length=1, max_length=CHAT_LENGTH), NAMED, AfterValidator(check_name)
]
RollLabel = Annotated[str, Field(max_length=NAME_MAX), NAMED, AfterValidator(check_name)]


def whisper_to(value: object) -> object:
    """A whisper's ``to``: None, ``"host"`` or a seat's id (``true`` or ``"5"`` is no seat)."""
    if value is None or value == "host":
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= ROW_ID_MAX:
        return value
    raise ValueError("must be 'host' (a player's whisper) or a seat's id (the Host's)")


To = Annotated[
    str | int | None,
    BeforeValidator(whisper_to),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "const": "host"},
                {"type": "integer", "minimum": 1, "maximum": ROW_ID_MAX},
                {"type": "null"},
            ]
        }
    ),
]
Factor = Annotated[int, Field(ge=0, le=FACTOR_MAX)]
Modifier = Annotated[int, Field(ge=-MODIFIER_MAX, le=MODIFIER_MAX)]
Face = Annotated[int, Field(ge=DIE_FACE_MIN, le=DIE_FACE_MAX)]


class ChatBody(BaseModel):
    """POST …/chat: the message, and whom a whisper is for (None: everyone at the table)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    text: ChatText
    to: To = None


class RollBody(BaseModel):
    """POST …/rolls: what to roll (the fields of :class:`~tableside.web.roller.RollSpec`)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    kind: Literal["d12", "check", "d100", "d20"]
    label: RollLabel = ""
    boon: Annotated[int, Field(ge=0, le=BOON_MAX)] = 0
    bane: Annotated[int, Field(ge=0, le=BOON_MAX)] = 0
    check: Literal["attribute", "resist", "perception", "social"] = "attribute"
    factor: Factor = 0
    opposing: Factor | None = None
    difficulty: Annotated[int, Field(ge=-ADJUSTMENTS_MAX, le=ADJUSTMENTS_MAX)] = 0
    modifier: Modifier = 0
    target: Annotated[int, Field(ge=-2 * MODIFIER_MAX, le=3 * MODIFIER_MAX)] | None = None
    against: Literal["at_most", "above"] = "at_most"
    stat: Annotated[int, Field(ge=-STAT_MAX, le=STAT_MAX)] = 0
    advantage: Modifier = 0
    dice: list[Face] | None = Field(default=None, max_length=BOON_MAX + 7)
    to: To = None

    def spec(self) -> RollSpec:
        """The roll to make."""
        fields = self.model_dump(exclude={"dice", "to"})
        return RollSpec(**fields)


@dataclass
class ChatRoom:
    """The chat's operations on one store, free of HTTP.

    Attributes:
        store: The store.
        publish: Wakes this process's streams of an encounter (the hub's notifier).
        rate: The per-poster rate (W-33).
        table_rate: The per-table rate (W-50): however many seats post, one table's chat
            grows by at most so many messages a minute.
        clock: The time a message is stamped with.
        seeds: The source of each roll's seed: the operating system's randomness (a player
            cannot foresee it), stored on the card so that it rolls the same dice again.
    """

    store: Store
    publish: Callable[[int], None]
    rate: RateWindow = field(default_factory=lambda: RateWindow(CHAT_PER_MINUTE))
    table_rate: RateWindow = field(
        default_factory=lambda: RateWindow(TABLE_CHAT_PER_MINUTE, whose="a table")
    )
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    seeds: Callable[[], int] = field(default=lambda: secrets.randbits(SEED_BITS))

    def whisper_seat(self, who: Principal, to: str | int | None) -> int | None:
        """The seat a whisper is between the Host and (None: public), or refuse (W-30).

        Raises:
            ForbiddenError: A player whispering to anyone but the Host.
            DataError: The Host whispering to itself, or to a seat not at its table.
        """
        if to is None:
            return None
        if who.seat is not None:
            if to != "host":
                raise ForbiddenError(
                    f"A player may whisper only to the Host (to: 'host'), not to {to!r}."
                )
            return who.seat.id
        if to == "host":
            raise DataError("The Host whispers to a seat (to: its id), not to 'host'.")
        seats = {seat.id for seat in tables.seats(self.store, who.table_id)}
        if to not in seats:
            raise DataError(f"This table has no seat with id {to!r} to whisper to.")
        return int(to)

    def post(
        self, who: Principal, encounter_id: int, kind: str, text: str, to: str | int | None,
        data: dict[str, Any] | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """Store a message (after the rate, W-33) and wake the encounter's streams."""
        whisper = self.whisper_seat(who, to)
        self.take_rate(who)
        author = HOST_NAME if who.seat is None else who.seat.name
        seat_id = None if who.seat is None else who.seat.id
        new = stored.NewMessage(who.is_host, author, seat_id, whisper, kind, text, data)
        message = stored.post(self.store, encounter_id, new, self.clock())
        self.publish(encounter_id)
        return message.to_json()

    def take_rate(self, who: Principal) -> None:
        """Count one post of ``who``, or refuse past :data:`CHAT_PER_MINUTE` (429, W-33)."""
        try:
            self.rate.take(holder_key(who), "chat messages")
        except TooManyError as error:
            raise TooManyError(
                f"Too many chat messages and rolls: at most {self.rate.limit} a minute from "
                "one seat; wait a moment and send it again.",
                error.retry_after,
            ) from None
        self.table_rate.take(str(who.table_id), "chat messages and rolls")

    def roll(self, who: Principal, encounter_id: int, game: str, body: RollBody) -> dict[str, Any]:
        """Roll ``body`` (W-31, W-32) and post its card."""
        dice = None if body.dice is None else tuple(body.dice)
        card = roll_card(game, body.spec(), self.seeds(), dice)
        text = card["summary"]
        if card["label"]:
            text = f"{card['label']}: {text}"
        return self.post(who, encounter_id, "roll", text[:CHAT_LENGTH], body.to, card)

    def read(self, who: Principal, encounter_id: int) -> dict[str, Any]:
        """The chat as ``who`` sees it, who ``who`` is, and (Host) the seats to whisper to."""
        seat_id = None if who.seat is None else who.seat.id
        found = stored.messages(self.store, encounter_id, seat_id)
        answer: dict[str, Any] = {
            "messages": [m.to_json() for m in found],
            "me": {"host": who.is_host, "seat": seat_id,
                   "name": HOST_NAME if who.seat is None else who.seat.name},
        }  # fmt: skip
        if who.is_host:
            seats = tables.seats(self.store, who.table_id)
            answer["seats"] = [{"id": s.id, "name": s.name} for s in seats]
        return answer


def chat_feed(room: ChatRoom, who: Principal, encounter_id: int) -> Callable[[], list[str]]:
    """The chat's part of a live stream: on each wake, the reader's new messages as events.

    It starts after the newest message there is when the stream opens (the page reads the
    history with ``GET …/chat``, and again when its stream reconnects). The events carry no
    ``id:``, so a reconnecting stream's ``Last-Event-ID`` stays the log's revision.
    """
    seat_id = None if who.seat is None else who.seat.id
    last = stored.last_ids(room.store, [encounter_id]).get(encounter_id, 0)

    def read() -> list[str]:
        nonlocal last
        found = stored.messages(room.store, encounter_id, seat_id, after=last)
        if found:
            last = found[-1].id
        return [chat_event(m.to_json()) for m in found]

    return read


def chat_event(message: dict[str, Any]) -> str:
    """One Server-Sent Event carrying a chat message."""
    return f"event: chat\ndata: {json.dumps(message, separators=(',', ':'))}\n\n"


def add_chat(app: FastAPI, room: ChatRoom, at_encounter: Callable[..., Any]) -> None:
    """The chat's routes (see the module's docstring).

    Args:
        app: The application.
        room: The chat.
        at_encounter: ``WebTable.at_encounter``: the holder of a credential at an encounter.
    """

    @app.get("/api/encounters/{encounter_id}/chat")
    def read_chat(encounter_id: int, authorization: Authorization = None) -> JSONResponse:
        who, _info = at_encounter(credential(authorization), encounter_id)
        return JSONResponse(room.read(who, encounter_id))

    @app.post("/api/encounters/{encounter_id}/chat", status_code=201)
    def post_chat(
        encounter_id: int, body: ChatBody, authorization: Authorization = None
    ) -> JSONResponse:
        who, _info = at_encounter(credential(authorization), encounter_id)
        message = room.post(who, encounter_id, "text", body.text, body.to)
        return JSONResponse(message, status_code=201)

    @app.post("/api/encounters/{encounter_id}/rolls", status_code=201)
    def post_roll(
        encounter_id: int, body: RollBody, authorization: Authorization = None
    ) -> JSONResponse:
        who, info = at_encounter(credential(authorization), encounter_id)
        return JSONResponse(room.roll(who, encounter_id, info.game, body), status_code=201)
