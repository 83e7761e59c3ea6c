"""Versioned JSON documents for moving encounters and characters between stores.

``tableside/encounter`` v1::

    {"format": "tableside/encounter", "version": 1, "name": ..., "game": ..., "seed": ...,
     "records": [LogRecord.to_json(), ...]}      # revisions 1, 2, 3 ... without gaps

``tableside/character-record`` v1::

    {"format": "tableside/character-record", "version": 1, "name": ..., "game": ...,
     "document": {...}}                          # the game's own character document

Validation refuses unknown keys and wrong types, and its error names the field path
(``records.3.revision``) and the value.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tableside.encounter.log import LogRecord
from tableside.errors import DataError
from tableside.store.engine import json_dumps
from tableside.store.models import GAME_LENGTH, NAME_LENGTH

ENCOUNTER_FORMAT = "tableside/encounter"
CHARACTER_FORMAT = "tableside/character-record"
FORMAT_VERSION = 1
SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1

CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # PostgreSQL text cannot hold NUL; names need none
_NO_CONTROL = r"^[^\x00-\x1f\x7f]*$"
Name = Annotated[str, Field(min_length=1, max_length=NAME_LENGTH, pattern=_NO_CONTROL)]
Game = Annotated[str, Field(min_length=1, max_length=GAME_LENGTH, pattern=_NO_CONTROL)]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class CommandDoc(_Strict):
    """A command as stored in a log record."""

    kind: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)
    dice: list[int] | None = None


class EventDoc(_Strict):
    """An event as stored in a log record."""

    kind: str = Field(min_length=1)
    data: dict[str, Any]
    rule: str | None = None


class RecordDoc(_Strict):
    """One log record (``LogRecord.to_json()``)."""

    revision: int = Field(ge=1)
    kind: Literal["command", "undo", "redo", "request", "answer"]
    seq: int | None = None
    command: CommandDoc | None = None
    events: list[EventDoc] = Field(default_factory=list)
    data: dict[str, Any] | None = None


class EncounterDoc(_Strict):
    """A whole encounter: what it is, its seed, and its log."""

    format: Literal["tableside/encounter"]
    version: Literal[1]
    name: Name
    game: Game
    seed: int = Field(ge=SEED_MIN, le=SEED_MAX)
    records: list[RecordDoc]


class CharacterRecordDoc(_Strict):
    """A stored character: its name, its game and the game's own document."""

    format: Literal["tableside/character-record"]
    version: Literal[1]
    name: Name
    game: Game
    document: dict[str, Any]


M = TypeVar("M", bound=BaseModel)


def parse_encounter(data: Any) -> tuple[EncounterDoc, list[LogRecord]]:
    """Validate an encounter document and decode its records.

    Args:
        data: The decoded JSON document.

    Returns:
        The validated document and its records as ``LogRecord`` values.

    Raises:
        DataError: The first problem, naming the field path and the value.
    """
    doc = _validate(EncounterDoc, data, "Encounter document")
    for index, record in enumerate(doc.records):
        path = f"records.{index}"
        if record.revision != index + 1:
            raise DataError(
                f"Encounter document: field {path}.revision: must be {index + 1}, as revisions "
                f"run 1, 2, 3 ... without gaps (got {record.revision})."
            )
        require_plain_json(record.model_dump(), f"Encounter document: field {path}")
    return doc, [LogRecord.from_json(record.model_dump()) for record in doc.records]


def parse_character(data: Any) -> CharacterRecordDoc:
    """Validate a character-record document.

    Args:
        data: The decoded JSON document.

    Returns:
        The validated document.

    Raises:
        DataError: The first problem, naming the field path and the value.
    """
    doc = _validate(CharacterRecordDoc, data, "Character document")
    require_plain_json(doc.document, "Character document: field document")
    return doc


def require_plain_json(value: Any, what: str) -> None:
    """Refuse a value that JSON cannot hold exactly (NaN, infinity, sets, objects...).

    Raises:
        DataError: Naming ``what`` and the problem.
    """
    try:
        json_dumps(value)
    except (TypeError, ValueError) as error:
        raise DataError(f"{what}: is not plain JSON: {error}.") from None


def _validate(model: type[M], data: Any, what: str) -> M:
    if not isinstance(data, dict):
        raise DataError(f"{what}: must be a JSON object (got {type(data).__name__}).")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise DataError(validation_sentence(error, what)) from None


def validation_sentence(error: ValidationError, what: str) -> str:
    """One sentence naming the first bad field's path, the problem and the value."""
    first = error.errors()[0]
    path = ".".join(str(part) for part in first["loc"]) or "(top level)"
    value = first.get("input")
    shown = "" if isinstance(value, dict | list) else f" (got {_short(value)})"
    return f"{what}: field {path}: {first['msg']}{shown}."


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def encounter_document(name: str, game: str, seed: int, records: list[LogRecord]) -> dict[str, Any]:
    """The ``tableside/encounter`` v1 document of an encounter."""
    return {
        "format": ENCOUNTER_FORMAT,
        "version": FORMAT_VERSION,
        "name": name,
        "game": game,
        "seed": seed,
        "records": [record.to_json() for record in records],
    }


def character_document(name: str, game: str, document: dict[str, Any]) -> dict[str, Any]:
    """The ``tableside/character-record`` v1 document of a character."""
    return {
        "format": CHARACTER_FORMAT,
        "version": FORMAT_VERSION,
        "name": name,
        "game": game,
        "document": json.loads(json_dumps(document)),
    }
