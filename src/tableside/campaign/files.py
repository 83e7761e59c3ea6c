"""One character's file and a whole table's file, versioned JSON (CH-17, docs/data-formats.md).

``tableside/roster-character`` v1 is one roster character (its game, sheet and last carry-over).
``tableside/table`` v1 is a whole table: its name and roster setting, its seats without tokens,
its roster, and its encounters (each an exported encounter with its log, plus its hidden
commands, secrecy, decision settings and bindings). References inside the file are by the
file's own keys (the ids the table had). An import validates everything first, then writes the
new table in one transaction: all or nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tableside.campaign.sheets import game_named, validated
from tableside.errors import DataError
from tableside.limits import Name
from tableside.store import roster, table_audience, tables
from tableside.store.formats import encounter_document, parse_encounter, validation_sentence
from tableside.store.table_files import (
    REMOVED_SEAT,
    EncounterPart,
    TablePart,
    has_settings,
    seat_named,
    seats_renamed,
)

if TYPE_CHECKING:
    from tableside.store import Store

CHARACTER_FILE = "tableside/roster-character"
TABLE_FILE = "tableside/table"
KEY = Field(ge=1, le=2**31 - 1)


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CharacterFileDoc(_Strict):
    """One roster character's file."""

    format: Literal["tableside/roster-character"]
    version: Literal[1]
    game: str
    sheet: dict[str, Any]
    carried: dict[str, Any] | None = None


class SeatDoc(_Strict):
    """A seat, without its token."""

    key: int = KEY
    name: Name
    characters: list[str] = Field(default_factory=list, max_length=100)


class RosterDoc(_Strict):
    """A roster character of a table file."""

    key: int = KEY
    game: str
    sheet: dict[str, Any]
    owner: int | None = KEY
    pending: dict[str, Any] | None = None
    carried: dict[str, Any] | None = None


class BindingDoc(_Strict):
    """A combatant's binding (CH-2)."""

    combatant: str = Field(min_length=1, max_length=40)
    character: int | None = KEY
    carried: bool = False


class TableEncounterDoc(_Strict):
    """An encounter of a table file: its exported encounter and what the table kept of it."""

    key: int = KEY
    encounter: dict[str, Any]
    hidden: list[int] = Field(default_factory=list)
    npcs_secret: bool | None = None
    secret: dict[str, bool] = Field(default_factory=dict)
    settings: dict[str, Any] | None = None
    bindings: list[BindingDoc] = Field(default_factory=list)


class TableFileDoc(_Strict):
    """A whole table's file."""

    format: Literal["tableside/table"]
    version: Literal[1]
    name: Name
    trust_players: bool = False
    seats: list[SeatDoc] = Field(default_factory=list, max_length=200)
    characters: list[RosterDoc] = Field(default_factory=list, max_length=2000)
    encounters: list[TableEncounterDoc] = Field(default_factory=list, max_length=2000)


def character_file(character: roster.RosterCharacter) -> dict[str, Any]:
    """The ``tableside/roster-character`` v1 file of a roster character."""
    return {"format": CHARACTER_FILE, "version": 1, "game": character.game,
            "sheet": character.sheet, "carried": character.carried}  # fmt: skip


def parse_character_file(data: Any) -> tuple[str, dict[str, Any]]:
    """A character file's game and validated sheet (the field named on a refusal)."""
    doc = _validate(CharacterFileDoc, data, "Character file")
    game = game_named(doc.game)
    return game, validated(game, doc.sheet)


def table_file(store: Store, table_id: int) -> dict[str, Any]:
    """The ``tableside/table`` v1 file of a table: no token is in it."""
    info = tables.table(store, table_id)
    at_table = tables.seats(store, table_id)
    seats = [{"key": s.id, "name": s.name, "characters": list(s.characters)}
             for s in at_table]  # fmt: skip
    present = {s.id for s in at_table}
    characters = [{"key": c.id, "game": c.game, "sheet": c.sheet, "owner": c.owner,
                   "pending": _pending_by(c.pending, present), "carried": c.carried}
                  for c in roster.characters(store, table_id)]  # fmt: skip
    return {"format": TABLE_FILE, "version": 1, "name": info.name,
            "trust_players": roster.trusts_players(store, table_id), "seats": seats,
            "characters": characters,
            "encounters": [_encounter(store, e, present) for e in info.encounters]}  # fmt: skip


def _pending_by(pending: dict[str, Any] | None, present: set[int]) -> dict[str, Any] | None:
    """A pending edit whose seat is no longer at the table is written as the Host's (CH-19)."""
    by = None if pending is None else pending.get("by")
    if pending is not None and by is not None and by not in present:
        return {**pending, "by": None}
    return pending


def _encounter(store: Store, encounter_id: int, present: set[int]) -> dict[str, Any]:
    secrecy = table_audience.secrecy(store, encounter_id)
    settings = table_audience.decision_settings(store, encounter_id)
    bound = roster.bindings(store, encounter_id)
    info, records = store.load(encounter_id)
    records = seats_renamed(records, lambda n: f"seat:{n}" if n in present else REMOVED_SEAT)
    document = encounter_document(info.name, info.game, info.seed, records)
    return {"key": encounter_id, "encounter": document,
            "hidden": sorted(table_audience.hidden_seqs(store, encounter_id)),
            "npcs_secret": secrecy.npcs_secret, "secret": dict(secrecy.choices),
            "settings": settings.to_json() if has_settings(store, encounter_id) else None,
            "bindings": [{"combatant": b.combatant, "character": b.character_id,
                          "carried": b.carried} for b in bound.values()]}  # fmt: skip


def parse_table_file(data: Any) -> TablePart:
    """Validate a whole table file (every reference, sheet and log) before anything is written."""
    doc = _validate(TableFileDoc, data, "Table file")
    seat_keys = _unique([s.key for s in doc.seats], "seats")
    character_keys = _unique([c.key for c in doc.characters], "characters")
    _unique([e.key for e in doc.encounters], "encounters")
    characters = [_character_part(i, c, seat_keys) for i, c in enumerate(doc.characters)]
    encounters = tuple(
        _encounter_part(index, e, character_keys, seat_keys)
        for index, e in enumerate(doc.encounters)
    )
    seats = tuple((s.key, s.name, tuple(s.characters)) for s in doc.seats)
    return TablePart(doc.name, doc.trust_players, seats, tuple(characters), encounters)


def _character_part(index: int, c: RosterDoc, seat_keys: set[int]) -> dict[str, Any]:
    where = f"Table file: characters.{index}"
    if c.owner is not None and c.owner not in seat_keys:
        raise DataError(f"{where}.owner: no seat has key {c.owner}.")
    by = c.pending.get("by") if c.pending is not None else None
    if by is not None and (not isinstance(by, int) or by not in seat_keys):
        raise DataError(f"{where}.pending.by: no seat has key {by!r}.")
    game = game_named(c.game)
    sheet = _in(where, lambda: validated(game, c.sheet))
    return {"key": c.key, "game": game, "name": sheet["name"], "sheet": sheet,
            "owner": c.owner, "pending": c.pending, "carried": c.carried}  # fmt: skip


def _encounter_part(
    index: int, e: TableEncounterDoc, character_keys: set[int], seat_keys: set[int]
) -> EncounterPart:
    where = f"Table file: encounters.{index}"
    header, records = _in(where, lambda: parse_encounter(e.encounter))
    for at, record in enumerate(records):  # every seat a record names is remapped (CH-19)
        seat = seat_named(record)
        if seat is not None and seat not in seat_keys:
            raise DataError(
                f"{where}.encounter.records.{at}: its answer is by seat:{seat}, and no seat has "
                f"key {seat}."
            )
    for b in e.bindings:
        if b.character is not None and b.character not in character_keys:
            raise DataError(f"{where}.bindings: no character has key {b.character}.")
    settings = None
    if e.settings is not None:
        settings = _in(
            f"{where}.settings", lambda: table_audience.DecisionSettings(**e.settings or {})
        )
    return EncounterPart(
        e.key, header.name, header.game, header.seed, records, tuple(e.hidden), e.npcs_secret,
        dict(e.secret), settings,
        tuple((b.combatant, b.character, b.carried) for b in e.bindings),
    )  # fmt: skip


def _in(where: str, make: Any) -> Any:
    try:
        return make()
    except (DataError, TypeError, ValueError) as error:
        raise DataError(f"{where}: {error}") from None


def _unique(keys: list[int], what: str) -> set[int]:
    if len(set(keys)) != len(keys):
        raise DataError(f"Table file: {what}: two share the key {_first_repeat(keys)}.")
    return set(keys)


def _first_repeat(keys: list[int]) -> int:
    seen: set[int] = set()
    for key in keys:
        if key in seen:
            return key
        seen.add(key)
    return keys[0]


def _validate(model: Any, data: Any, what: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise DataError(validation_sentence(error, what)) from None
