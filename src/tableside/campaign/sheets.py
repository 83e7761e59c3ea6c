"""A roster character's sheet per game: validation and its numbers, current against maximum.

A roster sheet is the game's own document with the character's current values: an Allies of
Majesty character document (``tableside/majesty-character`` v1, its Wear and Exertion current)
or a Realm of Strife sheet (its HP and resources current, their maxima beside them) (CH-1).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from tableside.errors import DataError

MAJESTY = "majesty-war"
STRIFE = "strife-combat"
GAMES = {"majesty-war": MAJESTY, "majesty": MAJESTY, "strife-combat": STRIFE, "strife": STRIFE}
"""The roster's games, by the encounter's game name or its short name."""


def game_named(name: object) -> str:
    """The roster game called ``name`` (its encounter game's name)."""
    if not isinstance(name, str) or name not in GAMES:
        raise DataError(
            f"A character's game must be one of majesty-war or strife-combat, got {name!r}."
        )
    return GAMES[name]


def validated(game: str, sheet: object) -> dict[str, Any]:
    """The sheet validated for its game, as the game writes it (field-named errors, CH-1)."""
    if not isinstance(sheet, dict):
        raise DataError(f"A character's sheet must be a JSON object, got {type(sheet).__name__}.")
    if game == MAJESTY:
        from tableside.majesty.formats import (
            CHARACTER_FORMAT,
            CHARACTER_VERSION,
            character_from_data,
            character_to_data,
        )

        document = {"format": CHARACTER_FORMAT, "version": CHARACTER_VERSION, **sheet}
        return character_to_data(character_from_data(document, "sheet"))
    from tableside.strife.catalog import Combatant, validation_sentence

    try:
        return Combatant.model_validate(sheet).model_dump(mode="json")
    except ValidationError as error:
        raise DataError(validation_sentence(error, "sheet")) from None


def numbers(game: str, sheet: dict[str, Any]) -> list[dict[str, Any]]:
    """Every stat and resource of a sheet in the game's words, current against maximum.

    Allies of Majesty: each Basic Attribute's current value (natural less its Wear) against
    its natural value, then Exertion (M-1, M-4). Realm of Strife: HP, then each resource.
    """
    if game == MAJESTY:
        return _majesty_numbers(sheet)
    rows = [{"name": "HP", "current": sheet["hp"], "maximum": sheet["hp_max"]}]
    for name, pool in sheet.get("resources", {}).items():
        rows.append({"name": name, "current": pool["current"], "maximum": pool.get("maximum")})
    return rows


_WORN = {"endurance": "E", "resolve": "R", "passion": "P"}


def _majesty_numbers(sheet: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name, natural in sheet["attributes"].items():
        worn = sheet["wear"].get(_WORN.get(name, ""), 0)
        rows.append({"name": name.capitalize(), "current": natural - worn, "maximum": natural})
    rows.append({"name": "Exertion", "current": sheet.get("exertion", 0), "maximum": None})
    return rows


FREE_STRIFE = ("name", "skills", "proficiencies", "powers")


def rule_fixed(game: str, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The fields an edit changes that the rules fix (CH-13): they wait for the Host's approval.

    A name (either game), a Realm of Strife sheet's skills, proficiencies and powers' names are
    the player's; every number, side and piece of equipment is the rules'.
    """
    keys = sorted(set(before) | set(after))
    changed = [k for k in keys if before.get(k) != after.get(k)]
    if game == MAJESTY:
        return [k for k in changed if k != "name"]
    return [k for k in changed if k not in FREE_STRIFE]
