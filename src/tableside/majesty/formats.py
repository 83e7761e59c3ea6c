"""The versioned JSON format of a character (``tableside/majesty-character`` v1).

Documented in ``docs/data-formats.md``. Validation errors name the field path and the value.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tableside.errors import DataError, TablesideError
from tableside.limits import (
    ATTRIBUTE_MAX,
    STATUS_LOWERED_MAX,
    TIER_MAX,
    WEAR_MAX,
    Flag,
    Name,
    json_document,
)
from tableside.majesty.catalog import validation_sentence
from tableside.majesty.character import Attributes, Character, Side, WarOverrides, Wear

CHARACTER_FORMAT = "tableside/majesty-character"
CHARACTER_VERSION = 1


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, defer_build=True)


class AttributesDoc(_Strict):
    """Natural Basic Attributes (M-1)."""

    might: int = Field(ge=0, le=ATTRIBUTE_MAX)
    swiftness: int = Field(ge=0, le=ATTRIBUTE_MAX)
    control: int = Field(ge=0, le=ATTRIBUTE_MAX)
    endurance: int = Field(ge=0, le=ATTRIBUTE_MAX)
    resolve: int = Field(ge=0, le=ATTRIBUTE_MAX)
    passion: int = Field(ge=0, le=ATTRIBUTE_MAX)


class WearDoc(_Strict):
    """Wear taken so far."""

    E: int = Field(default=0, ge=0, le=WEAR_MAX)
    R: int = Field(default=0, ge=0, le=WEAR_MAX)
    P: int = Field(default=0, ge=0, le=WEAR_MAX)


class OverridesDoc(_Strict):
    """Sheet overrides of derived War Attributes (M-2)."""

    force: int | None = Field(default=None, ge=0, le=ATTRIBUTE_MAX)
    guard: int | None = Field(default=None, ge=0, le=ATTRIBUTE_MAX)
    precision: int | None = Field(default=None, ge=0, le=ATTRIBUTE_MAX)
    stamina: int | None = Field(default=None, ge=0, le=ATTRIBUTE_MAX)
    spp: int | None = Field(default=None, ge=0, le=ATTRIBUTE_MAX)
    speed: int | None = Field(default=None, ge=0, le=ATTRIBUTE_MAX)


class CharacterDoc(_Strict):
    """A character file."""

    format: Literal["tableside/majesty-character"]
    version: Literal[1]
    name: Name
    side: Side = Side.HOLY
    tier: int = Field(default=1, ge=1, le=TIER_MAX)
    magnitude: int = Field(default=1, ge=1, le=TIER_MAX)
    weapon: Name = "Staff"
    attributes: AttributesDoc
    wear: WearDoc = WearDoc()
    overrides: OverridesDoc = OverridesDoc()
    exertion: int = Field(default=0, ge=0, le=WEAR_MAX)
    status_lowered: int = Field(default=0, ge=0, le=STATUS_LOWERED_MAX)
    defeated_by_epic: Flag = False


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
    data = json_document(text, what)
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
