"""The versioned JSON format of a character (``tableside/majesty-character`` v1).

Documented in ``docs/data-formats.md``. Validation errors name the field path and the value.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tableside.errors import DataError, TablesideError
from tableside.majesty.catalog import validation_sentence
from tableside.majesty.character import Attributes, Character, Side, WarOverrides, Wear

CHARACTER_FORMAT = "tableside/majesty-character"
CHARACTER_VERSION = 1


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class AttributesDoc(_Strict):
    """Natural Basic Attributes (M-1)."""

    might: int = Field(ge=0)
    swiftness: int = Field(ge=0)
    control: int = Field(ge=0)
    endurance: int = Field(ge=0)
    resolve: int = Field(ge=0)
    passion: int = Field(ge=0)


class WearDoc(_Strict):
    """Wear taken so far."""

    E: int = Field(default=0, ge=0)
    R: int = Field(default=0, ge=0)
    P: int = Field(default=0, ge=0)


class OverridesDoc(_Strict):
    """Sheet overrides of derived War Attributes (M-2)."""

    force: int | None = Field(default=None, ge=0)
    guard: int | None = Field(default=None, ge=0)
    precision: int | None = Field(default=None, ge=0)
    stamina: int | None = Field(default=None, ge=0)
    spp: int | None = Field(default=None, ge=0)
    speed: int | None = Field(default=None, ge=0)


class CharacterDoc(_Strict):
    """A character file."""

    format: Literal["tableside/majesty-character"]
    version: Literal[1]
    name: str = Field(min_length=1, max_length=80)
    side: Side = Side.HOLY
    tier: int = Field(default=1, ge=1)
    magnitude: int = Field(default=1, ge=1)
    weapon: str = "Staff"
    attributes: AttributesDoc
    wear: WearDoc = WearDoc()
    overrides: OverridesDoc = OverridesDoc()
    exertion: int = Field(default=0, ge=0)
    status_lowered: int = Field(default=0, ge=0)
    defeated_by_epic: bool = False


def character_from_data(data: Any, what: str = "character") -> Character:
    """Validate a decoded character document and build the Character."""
    try:
        doc = CharacterDoc.model_validate(data, strict=False)
    except ValidationError as error:
        raise DataError(validation_sentence(error, what)) from None
    try:
        return Character(
            name=doc.name,
            natural=Attributes(**doc.attributes.model_dump()),
            wear=Wear(**doc.wear.model_dump()),
            overrides=WarOverrides(**doc.overrides.model_dump()),
            tier=doc.tier,
            magnitude=doc.magnitude,
            weapon=doc.weapon,
            side=doc.side,
            exertion=doc.exertion,
            status_lowered=doc.status_lowered,
            defeated_by_epic=doc.defeated_by_epic,
        )
    except TablesideError as error:
        raise DataError(f"{what}: {error}") from None


def character_from_text(text: str, what: str = "character") -> Character:
    """Validate a character given as JSON text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise DataError(f"{what} is not valid JSON: {error.msg} at line {error.lineno}.") from None
    return character_from_data(data, what)


def character_to_data(character: Character) -> dict[str, Any]:
    """The character as a version-1 document (round-trips with :func:`character_from_data`)."""
    overrides = {
        name: getattr(character.overrides, name)
        for name in ("force", "guard", "precision", "stamina", "spp", "speed")
    }
    natural = character.natural
    return {
        "format": CHARACTER_FORMAT,
        "version": CHARACTER_VERSION,
        "name": character.name,
        "side": character.side.value,
        "tier": character.tier,
        "magnitude": character.magnitude,
        "weapon": character.weapon,
        "attributes": {a: getattr(natural, a) for a in natural.__slots__},
        "wear": {"E": character.wear.E, "R": character.wear.R, "P": character.wear.P},
        "overrides": overrides,
        "exertion": character.exertion,
        "status_lowered": character.status_lowered,
        "defeated_by_epic": character.defeated_by_epic,
    }
