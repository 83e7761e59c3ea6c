"""Weapons and Maneuvers are data (M-28, M-29), validated on load with the path of a bad field.

The built-in catalogue lives in ``data/weapons.json`` and ``data/maneuvers.json`` (format
``tableside/majesty-catalog`` version 1, documented in ``docs/data-formats.md``). A Host may load
a file of their own with the same format to add or replace entries.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tableside.errors import DataError, RulesError
from tableside.limits import json_document, shown
from tableside.majesty.character import WearKind

CATALOG_FORMAT = "tableside/majesty-catalog"
CATALOG_VERSION = 1


class Frozen(BaseModel):
    """A strict, immutable record: unknown keys are refused."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class EffectType(StrEnum):
    """What a 12 Effect or Passion Effect does (M-21, M-25, M-29)."""

    AP = "ap"  # the Striker gains AP
    WEAR_FLAT = "wear_flat"  # flat Wear (of the weapon's kind unless wear_kind says otherwise)
    WEAR_PERCENT = "wear_percent"  # % Wear
    FALTER = "falter"  # the Defender Falters
    EXERTION = "exertion"  # the Defender gains Exertion

    @property
    def wear_type(self) -> bool:
        """Wear-type effects need an uncanceled Hit (M-25, M-26); the others need a Hit at all."""
        return self in (EffectType.WEAR_FLAT, EffectType.WEAR_PERCENT)


class Effect(Frozen):
    """One effect: ``amount`` of ``type`` (× the Target's Tier when ``per_target_tier``)."""

    type: EffectType
    amount: int
    per_target_tier: bool = False
    wear_kind: WearKind | None = None
    percent: int = 0  # the effect's own % on its separate Wear kind (Bow's Passion: −50 %)


class TwelveEffect(Frozen):
    """A weapon's 12 Effect and its caps (M-21)."""

    effect: Effect
    max_per_strike: int | None = Field(default=None, ge=0)
    max_per_turn: int | None = Field(default=None, ge=0)


class Weapon(Frozen):
    """A weapon (M-28)."""

    name: str
    melee: bool = True
    ranged_range: float | None = Field(default=None, gt=3)
    wear_kind: WearKind = WearKind.E
    wear_percent: int = 0
    twelve_effect: TwelveEffect | None = None
    passion_effect: Effect | None = None
    notes: str = ""


class Maneuver(Frozen):
    """A Maneuver (or Song, Spiritual Effect) as modifiers on one Strike (M-29)."""

    name: str
    precision: int = 0
    guard: int = 0
    force: int = 0
    striker_adjustments: int = Field(default=0, ge=0)
    defender_adjustments: int = Field(default=0, ge=0)
    ignore_stops: int = Field(default=0, ge=0)
    wear_flat: int = 0
    wear_percent: int = 0
    ap_cost: int = 0
    movement: float = 0
    falter: int = Field(default=0, ge=0)
    falter_per_hit: int = Field(default=0, ge=0)
    knock_back: float = Field(default=0, ge=0)
    ranged_only: bool = False
    melee_only: bool = False
    notes: str = ""


class CatalogFile(Frozen):
    """A catalogue file: weapons and/or maneuvers."""

    format: Literal["tableside/majesty-catalog"]
    version: Literal[1]
    weapons: tuple[Weapon, ...] = ()
    maneuvers: tuple[Maneuver, ...] = ()


def validation_sentence(error: ValidationError, what: str) -> str:
    """One sentence naming the first bad field's path, the problem and the value."""
    first = error.errors()[0]
    path = ".".join(str(part) for part in first["loc"]) or "(top level)"
    value = first.get("input")
    got = "" if isinstance(value, dict | list) else f" (got {shown(value)})"
    message = _plain_message(first).removeprefix("Value error, ")
    return f"{what}: field {path}: {message}{got}."


def _plain_message(error: Any) -> str:
    """Pydantic's message, with a list of the wrong length said plainly (no "after validation")."""
    ctx = error.get("ctx") or {}
    if error["type"] == "too_long" and "actual_length" in ctx:
        return f"takes at most {ctx['max_length']} items, not {ctx['actual_length']}"
    if error["type"] == "too_short" and "actual_length" in ctx:
        return f"needs at least {ctx['min_length']} items, not {ctx['actual_length']}"
    return str(error["msg"])


def parse_catalog(data: Any, what: str = "catalogue") -> CatalogFile:
    """Validate a decoded catalogue document."""
    try:
        return CatalogFile.model_validate(data)
    except ValidationError as error:
        raise DataError(validation_sentence(error, what)) from None


def parse_catalog_text(text: str, what: str = "catalogue") -> CatalogFile:
    """Validate a catalogue given as JSON text."""
    return parse_catalog(json_document(text, what), what)


class Catalog:
    """Weapons and Maneuvers by name (case-insensitive)."""

    def __init__(self, *files: CatalogFile) -> None:
        self.weapons: dict[str, Weapon] = {}
        self.maneuvers: dict[str, Maneuver] = {}
        for file in files:
            self.weapons.update({w.name.lower(): w for w in file.weapons})
            self.maneuvers.update({m.name.lower(): m for m in file.maneuvers})

    def weapon(self, name: str) -> Weapon:
        """Look a weapon up, with a clear error naming the known ones."""
        found = self.weapons.get(name.lower())
        if found is None:
            known = ", ".join(w.name for w in self.weapons.values())
            raise RulesError(f"Unknown weapon {name!r}; known weapons: {known}.")
        return found

    def maneuver(self, name: str) -> Maneuver:
        """Look a Maneuver up, with a clear error naming the known ones."""
        found = self.maneuvers.get(name.lower())
        if found is None:
            known = ", ".join(m.name for m in self.maneuvers.values())
            raise RulesError(f"Unknown maneuver {name!r}; known maneuvers: {known}.")
        return found

    def extended(self, file: CatalogFile) -> Catalog:
        """A catalogue with ``file``'s entries added (replacing same-named ones)."""
        merged = Catalog()
        merged.weapons = {**self.weapons, **Catalog(file).weapons}
        merged.maneuvers = {**self.maneuvers, **Catalog(file).maneuvers}
        return merged


@cache
def builtin_catalog() -> Catalog:
    """The shipped weapons (M-28) and Maneuvers (M-29)."""
    files = []
    for name in ("weapons.json", "maneuvers.json"):
        text = resources.files("tableside.majesty").joinpath("data", name).read_text("utf-8")
        files.append(parse_catalog_text(text, f"built-in {name}"))
    return Catalog(*files)
