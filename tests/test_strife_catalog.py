"""The Realm of Strife data files: the built-in catalogue and refusals naming the field path."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest
from strife_builders import refused

from tableside.errors import DataError
from tableside.strife.catalog import (
    DATA_FILES,
    Catalog,
    builtin_catalog,
    parse_catalog,
    parse_catalog_text,
)
from tableside.strife.dice import parse_dice
from tableside.strife.loadout import loadout
from tableside.strife.size import WeaponSize

GOOD: dict[str, Any] = {
    "format": "tableside/strife-catalog",
    "version": 1,
    "weapons": [{"name": "Club", "group": "Bludgeons", "size": "M", "damage": "1d6"}],
}


def with_change(path: list[str | int], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(GOOD)
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


def test_builtin_catalogue_ships_the_promised_entries() -> None:
    catalog = builtin_catalog()
    assert len(catalog.weapons) >= 5 and len(catalog.shields) == 2 and len(catalog.armour) >= 3
    characters = [c for c in catalog.combatants.values() if not c.npc]
    monsters = [c for c in catalog.combatants.values() if c.npc]
    assert len(characters) == 2 and len(monsters) >= 2
    assert catalog.weapon("spear").attributes.ward_off
    assert loadout(catalog, catalog.combatant("Sera")).weapons[1].name == "Dagger"


def test_every_data_file_is_valid_json_with_the_format_id() -> None:
    for name in DATA_FILES:
        text = resources.files("tableside.strife").joinpath("data", name).read_text("utf-8")
        assert json.loads(text)["format"] == "tableside/strife-catalog"


@pytest.mark.parametrize(
    ("path", "value", "named"),
    [
        (["weapons", 0, "damage"], "d8", "weapons.0.damage"),
        (["weapons", 0, "size"], "Huge", "weapons.0.size"),
        (["weapons", 0, "sharpness"], 3, "weapons.0.sharpness"),
        (["weapons", 0, "attributes"], {"parry": -1}, "weapons.0.attributes.parry"),
        (["version"], 2, "version"),
        (["format"], "tableside/majesty-catalog", "format"),
    ],
)
def test_bad_fields_are_refused_naming_the_path(
    path: list[str | int], value: Any, named: str
) -> None:
    message = refused(parse_catalog, with_change(path, value), match="field")
    assert named in message and message.count(".") >= 1


def test_unknown_keys_are_refused() -> None:
    assert "extra" in refused(parse_catalog, {**GOOD, "extra": 1}, match="field extra")


def test_bad_json_text_is_a_data_error() -> None:
    with pytest.raises(DataError, match="not valid JSON"):
        parse_catalog_text("{", "mine.json")


def test_sheet_equipment_must_exist() -> None:
    sheet = {
        "name": "Bob",
        "stats": {"STR": 10, "AGIL": 10, "INT": 10, "WIS": 10, "STAM": 10},
        "initiative": 3,
        "movement": 5,
        "ac": 10,
        "hp": 5,
        "hp_max": 5,
        "main_hand": "Vorpal Blade",
    }
    file = parse_catalog({**GOOD, "characters": [sheet]})
    message = refused(builtin_catalog().extended, file, "mine.json", match="main_hand")
    assert "Vorpal Blade" in message


def test_lookups_name_the_known_entries() -> None:
    refused(builtin_catalog().weapon, "Excalibur", match="Unknown weapon 'Excalibur'")
    assert Catalog().weapons == {}


def test_dice_expressions() -> None:
    assert parse_dice("2d6+2").text == "2d6+2"
    assert parse_dice("1d4-1").flat == -1
    refused(parse_dice, "1d7", match="d7")
    refused(parse_dice, "many", match="'many'")
    assert WeaponSize.XL.step == 4
