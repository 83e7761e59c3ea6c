"""The set-up's games, request bodies and HTML forms: what the Host's forms and JSON send.

A posted form is plain ``application/x-www-form-urlencoded`` (at most ``FORM_LIMIT`` bytes,
UTF-8); its fields are read here into the same request bodies the JSON API takes, so both
paths refuse the same values with the same sentence.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import Depends, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tableside.errors import DataError
from tableside.limits import (
    NUMBER_DIGITS_MAX,
    POSITION_MAX,
    SEED_MAX,
    Coordinates,
    Flag,
    Name,
    SideName,
    json_document,
    shown,
)
from tableside.majesty.character import Side
from tableside.majesty.formats import CHARACTER_FORMAT, CHARACTER_VERSION
from tableside.web.strife_sheet import sheet_from_form

MAJESTY = "majesty-war"
STRIFE = "strife-combat"
GAMES = {MAJESTY: "Allies of Majesty War", STRIFE: "Realm of Strife combat"}
FORM_TYPE = "application/x-www-form-urlencoded"
FORM_LIMIT = 200_000  # bytes of one posted form (a character document fits many times)
ATTRIBUTES = ("might", "swiftness", "control", "endurance", "resolve", "passion")
OVERRIDES = ("force", "guard", "precision", "stamina", "spp", "speed")
Form = dict[str, list[str]]
ID_PATTERN = r"^[A-Za-z0-9_.\-]+$"


class Body(BaseModel):
    """A request body: unknown keys are refused, numbers are JSON numbers (W-50)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class NewCharacter(Body):
    """POST /api/encounters/{eid}/characters: a War character or a Realm of Strife model."""

    id: str | None = Field(default=None, min_length=1, max_length=40, pattern=ID_PATTERN)
    character: dict[str, Any] | None = None
    model: Name | None = None
    sheet: dict[str, Any] | None = None
    side: SideName | None = None
    position: Coordinates = (0.0, 0.0, 0.0)
    secret: Flag | None = None
    perched: Flag | None = None  # Realm of Strife, above the ground: stands (true) or flies (SA-93)
    revision: int | None = Field(default=None, ge=0, le=SEED_MAX)
    roster: int | None = Field(default=None, ge=1, le=2**31 - 1)  # a roster character (CH-2)


class NpcSetting(Body):
    """PUT /api/encounters/{eid}/secrets: are NPCs' values secret (W-1)?"""

    npcs_secret: Flag


class SecretChoice(Body):
    """PUT /api/encounters/{eid}/secrets/{combatant}: secret, open, or null (the setting)."""

    secret: Flag | None


# --- forms ----------------------------------------------------------------------------------------


async def form_data(request: Request) -> Form:
    """A posted HTML form (urlencoded); anything else is refused with one sentence."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != FORM_TYPE:
        raise DataError(f"A form must be sent as {FORM_TYPE}, got {kind or 'no content type'!r}.")
    body = await request.body()
    if len(body) > FORM_LIMIT:
        raise DataError(f"A form may have at most {FORM_LIMIT} bytes, got {len(body)}.")
    try:
        return parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise DataError("A form must be UTF-8 text.") from None


PostedForm = Annotated[Form, Depends(form_data)]


def text(form: Form, key: str, default: str = "") -> str:
    """A form field's text, trimmed (``default`` when absent)."""
    return form.get(key, [default])[0].strip()


def whole(form: Form, key: str, label: str, default: int | None = None) -> int | None:
    """A whole-number field; blank gives ``default``; anything else names the field and value."""
    raw = text(form, key)
    if raw == "":
        return default
    if not re.fullmatch(r"[-+]?\d+", raw):
        raise DataError(f"{label} must be a whole number, got {shown(raw)}.")
    if len(raw.lstrip("+-")) > NUMBER_DIGITS_MAX:
        raise DataError(f"{label} has more than {NUMBER_DIGITS_MAX} digits, got {shown(raw)}.")
    return int(raw)


def number(form: Form, key: str, label: str) -> float:
    """A number field (blank is 0)."""
    raw = text(form, key)
    if raw == "":
        return 0.0
    try:
        value = float(raw) if len(raw) <= NUMBER_DIGITS_MAX else float("nan")
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or abs(value) > POSITION_MAX:
        raise DataError(
            f"{label} must be a number of inches within ±{POSITION_MAX:g}, got {shown(raw)}."
        )
    return value


def position(form: Form) -> tuple[float, float, float]:
    """The position fields x, y, z in inches."""
    return (number(form, "x", "Position x"), number(form, "y", "Position y"),
            number(form, "z", "Position z"))  # fmt: skip


def secret_field(form: Form) -> bool | None:
    """The secrecy select: ``default`` (the encounter's setting), ``secret`` or ``open``."""
    raw = text(form, "secret", "default")
    choices = {"default": None, "secret": True, "open": False}
    if raw not in choices:
        raise DataError(f"Secret values must be default, secret or open, got {raw!r}.")
    return choices[raw]


def perched_field(form: Form) -> bool | None:
    """Above the ground: ``sheet`` (flying if it can fly), ``perched`` or ``flying`` (SA-93)."""
    raw = text(form, "above", "sheet")
    choices = {"sheet": None, "perched": True, "flying": False}
    if raw not in choices:
        raise DataError(f"Above the ground must be sheet, perched or flying, got {raw!r}.")
    return choices[raw]


def character_document(form: Form) -> dict[str, Any]:
    """A character JSON v1 document from the War character form (every field a Host sets)."""
    required = {a: whole(form, a, a.capitalize()) for a in ATTRIBUTES}
    for attribute, value in required.items():
        if value is None:
            raise DataError(f"{attribute.capitalize()} is required (a whole number, 0 or more).")
    overrides = {o: whole(form, o, o.upper() if o == "spp" else o.capitalize()) for o in OVERRIDES}
    return {
        "format": CHARACTER_FORMAT,
        "version": CHARACTER_VERSION,
        "name": text(form, "name"),
        "side": text(form, "side", Side.HOLY.value),
        "tier": whole(form, "tier", "Tier", 1),
        "magnitude": whole(form, "magnitude", "Magnitude", 1),
        "weapon": text(form, "weapon", "Staff"),
        "attributes": required,
        "wear": {k: whole(form, f"wear_{k.lower()}", f"{k} Wear", 0) for k in ("E", "R", "P")},
        "overrides": {k: v for k, v in overrides.items() if v is not None},
        "exertion": whole(form, "exertion", "Exertion", 0),
        "status_lowered": whole(form, "status_lowered", "Status lowered", 0),
        "defeated_by_epic": text(form, "defeated_by_epic") == "on",
    }


def imported(form: Form) -> dict[str, Any]:
    """The pasted (or file-read) JSON document of the import form."""
    raw = text(form, "document")
    if not raw:
        raise DataError("Paste a JSON document or choose a file to import.")
    data = json_document(raw, "The imported document")
    if not isinstance(data, dict):
        raise DataError(f"The imported document must be a JSON object, got {type(data).__name__}.")
    return data


def side_choice(form: Form) -> str | None:
    """The side chosen: a side present, or (the empty choice) the new side typed (W-26)."""
    side = text(form, "side")
    return side or text(form, "side_new") or None


def spec_from_form(game: str, form: Form) -> NewCharacter:
    """The character to add, from the form (``mode`` ``form``, ``sheet`` or ``import``)."""
    mode = text(form, "mode", "form")
    if mode not in ("form", "import", "sheet") or (mode == "sheet" and game == MAJESTY):
        raise DataError(f"The form's mode must be form or import, got {mode!r}.")
    common: dict[str, Any] = {"id": text(form, "id") or None, "position": position(form),
                              "secret": secret_field(form)}  # fmt: skip
    if game == MAJESTY:
        doc = imported(form) if mode == "import" else character_document(form)
        return build_spec(character=doc, **common)
    common["perched"] = perched_field(form)  # SA-93
    side = side_choice(form)
    if mode == "import":
        return build_spec(sheet=imported(form), side=side, **common)
    if mode == "sheet":
        return build_spec(sheet=sheet_from_form(form), side=side, **common)
    return build_spec(model=text(form, "model") or None, side=side, **common)


def build_spec(**values: Any) -> NewCharacter:
    """A :class:`NewCharacter`, with a bad id or side named in one sentence."""
    try:
        return NewCharacter(**values)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise DataError(f"Field {where}: {message} (got {shown(first.get('input'))}).") from None
