"""The tables: encounters, their log records, characters, and the web table's records.

The web table's tables, seats and hidden commands came with migration 0002; which combatants'
values are secret from players, with 0003; the browsers' sessions (W-11), with 0004; a log
record's ``data`` (a request's decisions or an answer's choice, D-1), with 0005; an encounter's
decision settings (D-4, D-5), with 0006; the fight's chat and free rolls (W-30 … W-33), with 0007;
the table's roster and its bindings (CH-1, CH-2), with 0011.

The Alembic migrations in ``migrations/versions`` build exactly these tables;
``tests/test_store.py`` checks that the migrated schema and these models agree.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    false,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAME_LENGTH = 200
GAME_LENGTH = 64
KIND_LENGTH = 16
TOKEN_HASH_LENGTH = 64  # sha256, hex
COMBATANT_LENGTH = 40
CHAT_LENGTH = 500  # characters of one chat message (W-30)

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


NEVER_REUSED = {"sqlite_autoincrement": True}
"""SQLite never gives a removed row's id to a new one (W-50; PostgreSQL's sequences never do)."""


class Base(DeclarativeBase):
    """Declarative base with named constraints (so migrations can refer to them)."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class EncounterRow(Base):
    """An encounter: its game, its seed and its current revision (the number of records)."""

    __tablename__ = "encounters"
    __table_args__ = (
        CheckConstraint("revision >= 0", name="revision_not_negative"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    game: Mapped[str] = mapped_column(String(GAME_LENGTH))
    seed: Mapped[int] = mapped_column(BigInteger)
    revision: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class LogRecordRow(Base):
    """One record of an encounter's log (``tableside.encounter.log.LogRecord``)."""

    __tablename__ = "log_records"
    __table_args__ = (CheckConstraint("revision >= 1", name="revision_positive"),)

    encounter_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("encounters.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )
    revision: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(KIND_LENGTH))
    seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    command: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    events: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    # A request's decisions or an answer's choice (D-1); NULL for other records.
    data: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)


class CharacterRow(Base):
    """A character of some game, kept as the game's own JSON document."""

    __tablename__ = "characters"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    game: Mapped[str] = mapped_column(String(GAME_LENGTH))
    document: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class GameTableRow(Base):
    """A web table: a Host's group of encounters and player seats (token stored hashed)."""

    __tablename__ = "game_tables"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    host_token_hash: Mapped[str] = mapped_column(String(TOKEN_HASH_LENGTH), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    # Players' edits of rule-fixed numbers apply without the Host's approval (CH-14; 0011).
    trust_players: Mapped[bool] = mapped_column(Boolean, server_default=false())


class TableEncounterRow(Base):
    """An encounter played at a web table (an encounter belongs to at most one table)."""

    __tablename__ = "table_encounters"

    encounter_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("encounters.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )
    table_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("game_tables.id", ondelete="CASCADE"), index=True
    )


class SeatRow(Base):
    """A player's seat at a web table: its name, its characters and its join token's hash."""

    __tablename__ = "seats"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("game_tables.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    token_hash: Mapped[str] = mapped_column(String(TOKEN_HASH_LENGTH), unique=True)
    characters: Mapped[list[str]] = mapped_column(JSON)


class HiddenCommandRow(Base):
    """A Host-only command (by its ``seq``): its records never reach players."""

    __tablename__ = "hidden_commands"

    encounter_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("encounters.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)


class EncounterSecrecyRow(Base):
    """An encounter's setting: are the values of NPCs (combatants no seat plays) secret?"""

    __tablename__ = "encounter_secrecy"

    encounter_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("encounters.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )
    npcs_secret: Mapped[bool] = mapped_column(Boolean)


class EncounterSettingsRow(Base):
    """An encounter's decision settings (D-4, D-5); no row: the defaults.

    ``decision_timeout`` NULL waits for every answer; else the seconds after which the
    suggestion is taken. ``npcs_decide`` is ``ask`` (the Host is asked) or ``auto``.
    ``hidden_asks`` is ``player`` (a hidden command asks the character's player) or ``host``.
    """

    __tablename__ = "encounter_settings"

    encounter_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("encounters.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )
    decision_timeout: Mapped[int | None] = mapped_column(Integer, nullable=True)
    npcs_decide: Mapped[str] = mapped_column(String(KIND_LENGTH))
    trust_modifiers: Mapped[bool] = mapped_column(Boolean)
    hidden_asks: Mapped[str] = mapped_column(String(KIND_LENGTH), server_default="player")


class SecretValueRow(Base):
    """The Host's choice for one combatant: its values secret from players, or open."""

    __tablename__ = "secret_values"

    encounter_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("encounters.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )
    combatant: Mapped[str] = mapped_column(String(COMBATANT_LENGTH), primary_key=True)
    secret: Mapped[bool] = mapped_column(Boolean)


class WebSessionRow(Base):
    """A browser's session (W-11): the hash of its cookie and the hash of the token it came from.

    A session is worth its token: it resolves to whoever holds ``token_hash`` now, so it dies
    when that token is rotated or its seat removed (and its row is deleted then too).
    """

    __tablename__ = "web_sessions"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_hash: Mapped[str] = mapped_column(String(TOKEN_HASH_LENGTH), unique=True)
    token_hash: Mapped[str] = mapped_column(String(TOKEN_HASH_LENGTH), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class ChatMessageRow(Base):
    """A message of an encounter's chat, or a free roll's card (W-30 … W-33).

    Kept apart from the log: chat never changes an encounter's revision, undo or replay.
    ``author_seat_id`` is the author's seat (NULL for the Host, ``by_host``, or a seat since
    removed). ``whisper_seat_id`` set makes the message a whisper between the Host and that seat
    (a player's to the Host, or the Host's to that seat); it goes when the seat goes.
    ``kind`` is ``text`` or ``roll``; a roll's card (dice, seed, counts) is ``data``.
    """

    __tablename__ = "chat_messages"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    encounter_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("encounters.id", ondelete="CASCADE"), index=True
    )
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    by_host: Mapped[bool] = mapped_column(Boolean)
    author: Mapped[str] = mapped_column(String(NAME_LENGTH))
    author_seat_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("seats.id", ondelete="SET NULL"), nullable=True
    )
    whisper_seat_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("seats.id", ondelete="CASCADE"), nullable=True
    )
    kind: Mapped[str] = mapped_column(String(KIND_LENGTH))
    text: Mapped[str] = mapped_column(String(CHAT_LENGTH))
    data: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)


class MapLayersRow(Base):
    """An encounter's map layers (W-65, W-66): its background image and the Host's fog.

    ``image`` is the image's bytes (PNG, JPEG or WebP, ``image_type`` its media type), laid with
    its top left corner at (``image_x``, ``image_y``) inches, ``image_width`` by
    ``image_height`` inches. ``fog`` is the hidden areas, ``[{"x", "y", "w", "h"}, …]``
    (inches). ``version`` grows with every change.
    """

    __tablename__ = "map_layers"

    encounter_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("encounters.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )
    version: Mapped[int] = mapped_column(Integer)
    image: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    image_type: Mapped[str | None] = mapped_column(String(KIND_LENGTH), nullable=True)
    image_x: Mapped[float | None] = mapped_column(Float, nullable=True)
    image_y: Mapped[float | None] = mapped_column(Float, nullable=True)
    image_width: Mapped[float | None] = mapped_column(Float, nullable=True)
    image_height: Mapped[float | None] = mapped_column(Float, nullable=True)
    fog: Mapped[list[Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)


class RosterCharacterRow(Base):
    """A character of a table's roster (CH-1): its sheet with current values, and its owner.

    ``sheet`` is the game's own validated sheet (a Realm of Strife sheet, or an Allies of
    Majesty character document) holding the current values (HP, resources, Wear…).
    ``owner_seat_id`` NULL is the Host's. ``pending`` is a player's edit waiting for the Host's
    approval (CH-13); ``carried`` what the last carry-over changed (CH-10).
    """

    __tablename__ = "roster_characters"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("game_tables.id", ondelete="CASCADE"), index=True
    )
    game: Mapped[str] = mapped_column(String(GAME_LENGTH))
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    sheet: Mapped[dict[str, Any]] = mapped_column(JSON)
    owner_seat_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("seats.id", ondelete="SET NULL"), nullable=True
    )
    pending: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    carried: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class EncounterCombatantRow(Base):
    """A combatant's binding in one encounter (CH-2): the roster character it was made from.

    ``character_id`` NULL: the Host's (a combatant from a file), whatever a seat's names say.
    ``carried`` is set once its carry-over was applied (CH-9).
    """

    __tablename__ = "encounter_combatants"

    encounter_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("encounters.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    )
    combatant: Mapped[str] = mapped_column(String(COMBATANT_LENGTH), primary_key=True)
    character_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("roster_characters.id", ondelete="SET NULL"), nullable=True, index=True
    )
    carried: Mapped[bool] = mapped_column(Boolean)
