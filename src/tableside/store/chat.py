"""The fight's chat in the store (docs/web.md, W-30 … W-33): messages and free rolls' cards.

Chat is kept apart from the encounter's log (``chat_messages``, migration 0007): posting never
moves an encounter's revision, so undo, redo and replay never see it. A whisper is a message
between the Host and one seat (``whisper_seat_id``); a player's read leaves out every whisper
that is not its own seat's, in the query itself. On PostgreSQL a post announces its encounter
(``NOTIFY``, payload ``<id>:chat``) in its own transaction, so every process's streams wake.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, insert, or_, select

from tableside.errors import DataError
from tableside.store.db import _NOTIFY, Store
from tableside.store.models import CHAT_LENGTH, NAME_LENGTH, ChatMessageRow, SeatRow
from tableside.store.tables import _require_encounter

KINDS = ("text", "roll")
HISTORY = 200
"""The newest messages a read returns at most."""


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of an encounter's chat, as stored.

    Attributes:
        id: Its id (increasing: a later message has a larger id).
        encounter_id: The encounter whose chat it is in.
        at: When it was posted (UTC).
        by_host: Whether the Host posted it.
        author: The author's name as it was then (the seat's name, or ``Host``).
        author_seat_id: The author's seat (None: the Host, or a seat since removed).
        whisper_seat_id: A whisper's seat (the Host's and this seat's only), or None (public).
        whisper_name: That seat's name.
        kind: ``text`` or ``roll``.
        text: The message, or a roll's summary.
        data: A roll's card (None for text).
    """

    id: int
    encounter_id: int
    at: datetime
    by_host: bool
    author: str
    author_seat_id: int | None
    whisper_seat_id: int | None
    whisper_name: str | None
    kind: str
    text: str
    data: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON, as the API and the stream send it."""
        whisper = None
        if self.whisper_seat_id is not None:
            whisper = {"seat": self.whisper_seat_id, "name": self.whisper_name}
        return {
            "id": self.id,
            "at": self.at.isoformat(timespec="seconds"),
            "author": self.author,
            "host": self.by_host,
            "seat": self.author_seat_id,
            "whisper": whisper,
            "kind": self.kind,
            "text": self.text,
            "roll": self.data,
        }


@dataclass(frozen=True, slots=True)
class NewMessage:
    """A message to post: who wrote it, to whom, and what."""

    by_host: bool
    author: str
    author_seat_id: int | None
    whisper_seat_id: int | None
    kind: str
    text: str
    data: dict[str, Any] | None = None


def _check(message: NewMessage) -> None:
    if message.kind not in KINDS:
        raise DataError(f"A chat message's kind is 'text' or 'roll', not {message.kind!r}.")
    if not 1 <= len(message.text) <= CHAT_LENGTH:
        raise DataError(
            f"A chat message has 1 to {CHAT_LENGTH} characters, not {len(message.text)}."
        )
    if not 1 <= len(message.author) <= NAME_LENGTH:
        raise DataError(f"An author's name has 1 to {NAME_LENGTH} characters.")


def post(store: Store, encounter_id: int, message: NewMessage, at: datetime) -> ChatMessage:
    """Store a message in the encounter's chat; on PostgreSQL announce it at commit.

    Raises:
        UnknownEncounterError: No encounter has this id.
        DataError: A kind, text or author out of bounds.
    """
    _check(message)
    with store._write() as connection:
        _require_encounter(connection, encounter_id)
        new_id = connection.execute(
            insert(ChatMessageRow)
            .values(
                encounter_id=encounter_id, at=at, by_host=message.by_host, author=message.author,
                author_seat_id=message.author_seat_id, whisper_seat_id=message.whisper_seat_id,
                kind=message.kind, text=message.text, data=message.data,
            )
            .returning(ChatMessageRow.id)
        ).scalar_one()  # fmt: skip
        name = None
        if message.whisper_seat_id is not None:
            name = connection.execute(
                select(SeatRow.name).where(SeatRow.id == message.whisper_seat_id)
            ).scalar_one_or_none()
        if store.backend == "postgresql":
            connection.execute(_NOTIFY, {"payload": f"{encounter_id}:chat"})
    return ChatMessage(
        int(new_id), encounter_id, at, message.by_host, message.author, message.author_seat_id,
        message.whisper_seat_id, name, message.kind, message.text, message.data,
    )  # fmt: skip


def messages(
    store: Store, encounter_id: int, seat_id: int | None, after: int = 0, limit: int = HISTORY
) -> list[ChatMessage]:
    """The newest ``limit`` messages after id ``after`` that a reader sees, oldest first.

    Args:
        store: The store.
        encounter_id: The encounter.
        seat_id: The reader's seat, whose reads leave out every whisper of another seat;
            None for the Host, who reads every message.
        after: Only messages with a larger id.
        limit: At most this many (the newest).
    """
    query = (
        select(*COLUMNS)
        .join(SeatRow, SeatRow.id == ChatMessageRow.whisper_seat_id, isouter=True)
        .where(ChatMessageRow.encounter_id == encounter_id, ChatMessageRow.id > after)
        .order_by(ChatMessageRow.id.desc())
        .limit(limit)
    )
    if seat_id is not None:
        query = query.where(
            or_(ChatMessageRow.whisper_seat_id.is_(None), ChatMessageRow.whisper_seat_id == seat_id)
        )
    with store._read() as connection:
        rows = connection.execute(query).all()
    return [_message(*row) for row in reversed(rows)]


COLUMNS = (
    ChatMessageRow.id, ChatMessageRow.encounter_id, ChatMessageRow.at, ChatMessageRow.by_host,
    ChatMessageRow.author, ChatMessageRow.author_seat_id, ChatMessageRow.whisper_seat_id,
    SeatRow.name, ChatMessageRow.kind, ChatMessageRow.text, ChatMessageRow.data,
)  # fmt: skip


def _message(*row: Any) -> ChatMessage:
    at: datetime = row[2]
    if at.tzinfo is None:  # SQLite keeps no zone: the value was written in UTC
        at = at.replace(tzinfo=UTC)
    return ChatMessage(
        int(row[0]), int(row[1]), at, bool(row[3]), str(row[4]), row[5], row[6], row[7],
        str(row[8]), str(row[9]), row[10],
    )  # fmt: skip


def last_ids(store: Store, encounter_ids: Collection[int]) -> dict[int, int]:
    """The newest chat message's id of each of these encounters that has one, in one read."""
    with store._read() as connection:
        rows = connection.execute(
            select(ChatMessageRow.encounter_id, func.max(ChatMessageRow.id))
            .where(ChatMessageRow.encounter_id.in_(list(encounter_ids)))
            .group_by(ChatMessageRow.encounter_id)
        ).all()
    return {int(e): int(m) for e, m in rows}
