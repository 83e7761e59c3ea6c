"""A whole table read for its file and written back from one, all or nothing (CH-17).

The file's shape and its validation are ``tableside.campaign.files``; here are the reads and the
one transaction that writes a parsed file as a new table: its seats (with fresh token hashes),
its roster, its encounters with their logs, hidden commands, secrecy and decision settings, and
the combatants' bindings. Any refusal rolls everything back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import insert, select

from tableside.encounter.log import LogRecord
from tableside.store.db import Store, _record_row
from tableside.store.models import (
    EncounterCombatantRow,
    EncounterRow,
    EncounterSecrecyRow,
    EncounterSettingsRow,
    GameTableRow,
    HiddenCommandRow,
    LogRecordRow,
    RosterCharacterRow,
    SeatRow,
    SecretValueRow,
    TableEncounterRow,
)
from tableside.store.table_audience import DecisionSettings

SEAT_NAMED = re.compile(r"seat:([0-9]{1,10})")
"""How an answer's ``by`` names the seat that chose (``seat:<id>``, D-1)."""
REMOVED_SEAT = "seat:removed"
"""A table file's ``by`` for a seat no longer at the table when it was exported (CH-19)."""


def seat_named(record: LogRecord) -> int | None:
    """The seat id an answer record names as its chooser (``by: seat:<id>``), else None."""
    answer = record.data.get("answer") if isinstance(record.data, dict) else None
    by = answer.get("by") if isinstance(answer, dict) else None
    found = SEAT_NAMED.fullmatch(by) if isinstance(by, str) else None
    return None if found is None else int(found.group(1))


def seats_renamed(records: list[LogRecord], rename: Callable[[int], str]) -> list[LogRecord]:
    """The records with each answer's ``seat:<id>`` replaced by ``rename(id)`` (CH-19)."""
    found = []
    for record in records:
        seat = seat_named(record)
        if seat is not None and isinstance(record.data, dict):
            answer = {**record.data["answer"], "by": rename(seat)}
            record = replace(record, data={**record.data, "answer": answer})
        found.append(record)
    return found


@dataclass(frozen=True, slots=True)
class EncounterPart:
    """One encounter of a table file, validated."""

    key: int
    name: str
    game: str
    seed: int
    records: list[LogRecord]
    hidden: tuple[int, ...] = ()
    npcs_secret: bool | None = None
    secret: dict[str, bool] = field(default_factory=dict)
    settings: DecisionSettings | None = None
    bindings: tuple[tuple[str, int | None, bool], ...] = ()  # combatant, character key, carried


@dataclass(frozen=True, slots=True)
class TablePart:
    """A whole table file, validated: every reference by the file's own keys."""

    name: str
    trust_players: bool
    seats: tuple[tuple[int, str, tuple[str, ...]], ...]  # key, name, characters
    characters: tuple[dict[str, Any], ...]  # key, game, name, sheet, owner key, pending, carried
    encounters: tuple[EncounterPart, ...]


def import_table(store: Store, part: TablePart, host_hash: str, seat_hashes: list[str]) -> int:
    """Write a table file as a new table in one transaction; return its id."""
    with store._write() as connection:
        table_id = connection.execute(
            insert(GameTableRow)
            .values(name=part.name, host_token_hash=host_hash, trust_players=part.trust_players)
            .returning(GameTableRow.id)
        ).scalar_one()
        seat_ids: dict[int, int] = {}
        for (key, name, characters), token in zip(part.seats, seat_hashes, strict=True):
            seat_ids[key] = connection.execute(
                insert(SeatRow)
                .values(table_id=table_id, name=name, token_hash=token, characters=characters)
                .returning(SeatRow.id)
            ).scalar_one()
        character_ids: dict[int, int] = {}
        for c in part.characters:
            owner = None if c["owner"] is None else seat_ids[c["owner"]]
            pending = c["pending"]
            if isinstance(pending, dict) and isinstance(pending.get("by"), int):
                pending = {**pending, "by": seat_ids[pending["by"]]}  # the new seat (CH-19)
            character_ids[c["key"]] = connection.execute(
                insert(RosterCharacterRow)
                .values(table_id=table_id, game=c["game"], name=c["name"], sheet=c["sheet"],
                        owner_seat_id=owner, pending=pending, carried=c["carried"])
                .returning(RosterCharacterRow.id)
            ).scalar_one()  # fmt: skip
        for e in part.encounters:
            records = seats_renamed(e.records, lambda key: f"seat:{seat_ids[key]}")
            _import_encounter(connection, table_id, replace(e, records=records), character_ids)
    return int(table_id)


def _import_encounter(
    connection: Any, table_id: int, e: EncounterPart, ids: dict[int, int]
) -> None:
    eid = connection.execute(
        insert(EncounterRow)
        .values(name=e.name, game=e.game, seed=e.seed, revision=len(e.records))
        .returning(EncounterRow.id)
    ).scalar_one()
    connection.execute(insert(TableEncounterRow).values(encounter_id=eid, table_id=table_id))
    if e.records:
        connection.execute(insert(LogRecordRow), [_record_row(eid, r) for r in e.records])
    for seq in e.hidden:
        connection.execute(insert(HiddenCommandRow).values(encounter_id=eid, seq=seq))
    if e.npcs_secret is not None:
        connection.execute(
            insert(EncounterSecrecyRow).values(encounter_id=eid, npcs_secret=e.npcs_secret)
        )
    for combatant, secret in e.secret.items():
        connection.execute(
            insert(SecretValueRow).values(encounter_id=eid, combatant=combatant, secret=secret)
        )
    if e.settings is not None:
        s = e.settings
        connection.execute(
            insert(EncounterSettingsRow).values(
                encounter_id=eid, decision_timeout=s.decision_timeout, npcs_decide=s.npcs_decide,
                trust_modifiers=s.trust_modifiers, hidden_asks=s.hidden_asks)
        )  # fmt: skip
    for combatant, key, carried in e.bindings:
        character = None if key is None else ids[key]
        connection.execute(
            insert(EncounterCombatantRow).values(
                encounter_id=eid, combatant=combatant, character_id=character, carried=carried)
        )  # fmt: skip


def has_settings(store: Store, encounter_id: int) -> bool:
    """Whether an encounter has stored decision settings (else the defaults)."""
    with store._read() as connection:
        found = connection.execute(
            select(EncounterSettingsRow.encounter_id).where(
                EncounterSettingsRow.encounter_id == encounter_id
            )
        ).scalar_one_or_none()
    return found is not None
