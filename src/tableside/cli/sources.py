"""Loading characters and catalogues named on the command line."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from tableside.cli.parsing import InputError
from tableside.errors import TablesideError, require_non_negative
from tableside.limits import ATTRIBUTE_MAX, NUMBER_DIGITS_MAX, json_document, shown
from tableside.majesty.catalog import Catalog, builtin_catalog, parse_catalog_text
from tableside.majesty.character import Attributes, Character, Side
from tableside.majesty.formats import character_from_text

DEFAULT_ATTRIBUTE = 30


class FileError(TablesideError):
    """A file named on the command line cannot be read."""


def read_text(path: Path, what: str) -> str:
    """Read a UTF-8 file, with a clear error when it cannot be read."""
    try:
        return path.read_text("utf-8")
    except FileNotFoundError:
        raise FileError(f"The {what} file {shown(str(path))} does not exist.") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = shown(error.strerror if isinstance(error, OSError) else str(error))
        raise FileError(f"The {what} file {shown(str(path))} cannot be read: {reason}.") from None


def read_json(path: Path, what: str) -> Any:
    """Read and decode a JSON file (W-7, W-8: no NaN, no 5000-digit numbers, no deep nesting).

    Raises:
        FileError: The file cannot be read.
        DataError: It is not such a JSON document.
    """
    return json_document(read_text(path, what), f"The {what} file {shown(str(path))}")


def load_catalog(extra: Path | None) -> Catalog:
    """The built-in catalogue, extended by a file of the user's when given."""
    catalog = builtin_catalog()
    if extra is None:
        return catalog
    return catalog.extended(parse_catalog_text(read_text(extra, "catalogue"), str(extra)))


def parse_attributes(text: str, option: str) -> Attributes:
    """Six numbers Might,Swiftness,Control,Endurance,Resolve,Passion."""
    pieces = [v.strip() for v in text.split(",")]
    if not all(re.fullmatch(rf"[+-]?\d{{1,{NUMBER_DIGITS_MAX}}}", v) for v in pieces):
        raise InputError(f"{option} needs six whole numbers, not {shown(text)}.")
    values = [int(v) for v in pieces]
    for value in values:
        if not 0 <= value <= ATTRIBUTE_MAX:
            raise InputError(f"{option} needs attributes from 0 to {ATTRIBUTE_MAX}, got {value}.")
    if len(values) != 6:
        raise InputError(
            f"{option} needs six numbers (Might,Swiftness,Control,Endurance,Resolve,Passion), "
            f"got {len(values)}."
        )
    return Attributes(*values)


def character(
    file: Path | None, attributes: str | None, name: str, side: Side, option: str
) -> Character:
    """A character from a JSON file, or from six attributes (default 30 each)."""
    if file is not None:
        loaded = character_from_text(read_text(file, "character"), str(file))
        if attributes is not None:
            loaded = replace(loaded, natural=parse_attributes(attributes, option))
        return loaded
    natural = (
        parse_attributes(attributes, option)
        if attributes is not None
        else Attributes(*([DEFAULT_ATTRIBUTE] * 6))
    )
    return Character(name=name, natural=natural, side=side)


def with_overrides(base: Character, **values: int | None) -> Character:
    """Apply War Attribute overrides given directly (Precision, Guard, Force …)."""
    given = {k: v for k, v in values.items() if v is not None}
    require_non_negative({k.capitalize(): v for k, v in given.items()})
    return replace(base, overrides=replace(base.overrides, **given)) if given else base


def with_natural(base: Character, **values: int | None) -> Character:
    """Replace some natural Basic Attributes (e.g. Passion, Resolve)."""
    given = {k: v for k, v in values.items() if v is not None}
    require_non_negative({k.capitalize(): v for k, v in given.items()})
    return replace(base, natural=replace(base.natural, **given)) if given else base
