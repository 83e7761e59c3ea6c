"""The Realm of Strife character form: a whole sheet from form fields, checked (W-26).

A sheet is a ``tableside/strife-catalog`` combatant (:class:`~tableside.strife.catalog.Combatant`,
documented in ``docs/data-formats.md``): the form has one field per value a sheet holds, with the
weapons, shield, armour pieces, proficiency groups and powers of the catalogue to choose from.
A blank field takes the sheet's default (a resistance or resource left blank is not on the
sheet); a bad value is refused in one sentence naming the field and the value, and the page
shows the form again as typed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from tableside.errors import DataError
from tableside.limits import NUMBER_DIGITS_MAX, shown
from tableside.strife.catalog import (
    SHIELD_GROUP,
    Catalog,
    Combatant,
    Element,
    Resource,
    builtin_catalog,
    validation_sentence,
)
from tableside.strife.size import CreatureSize

Form = Mapping[str, Sequence[str]]
STATS = (("STR", "Strength"), ("AGIL", "Agility"), ("INT", "Intellect"), ("WIS", "Wisdom"),
         ("STAM", "Stamina"))  # fmt: skip
# The sheet's whole-number values: (key, label, default when blank; None: required).
NUMBERS: tuple[tuple[str, str, int | None], ...] = (
    ("hp_max", "HP maximum", None),
    ("hp", "HP now (blank: the maximum)", -1),
    ("ac", "Armour Class (AC, before armour)", None),
    ("dodge", "Dodge", 0),
    ("initiative", "Initiative", None),
    ("movement", "Movement (inches)", None),
    ("crit_chance", "Critical hit chance %", 0),
    ("cast_crit_chance", "Casting critical chance %", 0),
    ("critical_miss_chance", "Critical miss chance %", 5),
    ("miscast_chance", "Miscast chance %", 5),
    ("absorption", "Absorption %", 0),
    ("extra_attacks", "Extra attacks per Action", 0),
)
NONE = ""  # the "none" choice of a hand or the shield


@dataclass(frozen=True)
class SheetChoices:
    """What the form offers from the catalogue."""

    sizes: tuple[str, ...]
    weapons: tuple[str, ...]
    shields: tuple[str, ...]
    armour: tuple[tuple[str, str], ...]  # (name, "group, slot, AC")
    groups: tuple[str, ...]
    powers: tuple[tuple[str, str], ...]  # (name, "element, resource cost")
    elements: tuple[str, ...]
    resources: tuple[str, ...]
    stats: tuple[tuple[str, str], ...] = STATS
    numbers: tuple[tuple[str, str, int | None], ...] = NUMBERS


def sheet_choices(catalog: Catalog | None = None) -> SheetChoices:
    """The catalogue's names the form offers (the built-in catalogue by default)."""
    catalog = catalog or builtin_catalog()
    weapons = sorted(catalog.weapons.values(), key=lambda w: w.name)
    pieces = sorted(catalog.armour.values(), key=lambda a: a.name)
    groups = {w.group for w in weapons} | {a.group for a in pieces} | {SHIELD_GROUP}
    powers = sorted(catalog.powers.values(), key=lambda p: p.name)
    return SheetChoices(
        sizes=tuple(s.value for s in CreatureSize),
        weapons=tuple(w.name for w in weapons),
        shields=tuple(sorted(s.name for s in catalog.shields.values())),
        armour=tuple((a.name, f"{a.group}, {a.slot}, +{a.armor_value} AC") for a in pieces),
        groups=tuple(sorted(groups)),
        powers=tuple((p.name, power_note(p.element.value, p.resource, p.cost)) for p in powers),
        elements=tuple(e.value for e in Element),
        resources=tuple(r.value for r in Resource),
    )


def power_note(element: str, resource: Resource | None, cost: int) -> str:
    """A power's short description in the picker: its element and cost."""
    return element if resource is None else f"{element}, {cost} {resource.value}"


def field_text(form: Form, key: str) -> str:
    """A field's text, trimmed ('' when absent)."""
    values = form.get(key) or [""]
    return values[0].strip()


def whole_number(form: Form, key: str, label: str, default: int | None) -> int | None:
    """A whole number; blank gives ``default`` (None: the field is required)."""
    raw = field_text(form, key)
    if raw == "":
        if default is None:
            raise DataError(f"{label} is required (a whole number).")
        return default
    if not re.fullmatch(r"[-+]?\d+", raw) or len(raw.lstrip("+-")) > NUMBER_DIGITS_MAX:
        raise DataError(f"{label} must be a whole number, got {shown(raw)}.")
    return int(raw)


def ticked(form: Form, key: str, offered: Sequence[str]) -> list[str]:
    """The boxes ticked among ``offered`` (a value not offered is refused)."""
    chosen = [v.strip() for v in form.get(key, []) if v.strip()]
    for value in chosen:
        if value not in offered:
            raise DataError(f"Unknown choice {shown(value)} for {key}.")
    return list(dict.fromkeys(chosen))


def typed_list(form: Form, key: str) -> list[str]:
    """A comma-separated list field (e.g. skills)."""
    return [v.strip() for v in field_text(form, key).split(",") if v.strip()]


def chosen(form: Form, key: str, offered: Sequence[str], label: str) -> str | None:
    """A select's choice among ``offered``, or None for the empty choice."""
    value = field_text(form, key)
    if value == NONE:
        return None
    if value not in offered:
        raise DataError(f"{label} must be one of the catalogue's, got {shown(value)}.")
    return value


def sheet_from_form(form: Form, choices: SheetChoices | None = None) -> dict[str, Any]:
    """The sheet the form describes, validated as a catalogue combatant (DataError if not)."""
    choices = choices or sheet_choices()
    name = field_text(form, "name")
    if not name:
        raise DataError("The character's name is required.")
    size = field_text(form, "size") or CreatureSize.MEDIUM.value
    if size not in choices.sizes:
        raise DataError(f"Size must be one of {', '.join(choices.sizes)}, got {shown(size)}.")
    stats = {key: whole_number(form, key, label, None) for key, label in STATS}
    numbers = {key: whole_number(form, key, label, d) for key, label, d in NUMBERS}
    if numbers["hp"] == -1:
        numbers["hp"] = numbers["hp_max"]
    sheet: dict[str, Any] = {"name": name, "npc": field_text(form, "npc") == "on", "size": size,
                             "stats": stats, **numbers}  # fmt: skip
    sheet["resistances"] = {
        e: value
        for e in choices.elements
        if (value := whole_number(form, f"resist_{e}", f"{e.capitalize()} resistance", 0))
    }
    sheet["resources"] = resources(form, choices)
    sheet["proficiencies"] = ticked(form, "proficiencies", choices.groups)
    sheet["skills"] = typed_list(form, "skills")
    sheet["aquatic"] = field_text(form, "aquatic") == "on"
    sheet["can_fly"] = field_text(form, "can_fly") == "on"  # SA-93
    sheet["main_hand"] = chosen(form, "main_hand", choices.weapons, "The main hand's weapon")
    sheet["off_hand"] = chosen(form, "off_hand", choices.weapons, "The off hand's weapon")
    sheet["shield"] = chosen(form, "shield", choices.shields, "The shield")
    sheet["armour"] = ticked(form, "armour", [a for a, _ in choices.armour])
    sheet["powers"] = ticked(form, "powers", [p for p, _ in choices.powers])
    return checked_sheet(sheet)


def resources(form: Form, choices: SheetChoices) -> dict[str, dict[str, int]]:
    """The resource pools typed (a pool whose current value is blank is not on the sheet)."""
    pools: dict[str, dict[str, int]] = {}
    for r in choices.resources:
        current = whole_number(form, f"res_{r}", f"{r} now", -1)
        maximum = whole_number(form, f"res_{r}_max", f"{r} maximum", -1)
        if current == -1 and maximum == -1:
            continue
        pool = {"current": maximum if current == -1 else current}
        if maximum != -1 and maximum is not None:
            pool["maximum"] = maximum
        pools[r] = {k: v for k, v in pool.items() if v is not None}
    return pools


def checked_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """The sheet as the catalogue validates it; the error names the form's field and value."""
    try:
        return Combatant.model_validate(sheet).model_dump(mode="json")
    except ValidationError as error:
        sentence = validation_sentence(error, "The character")
        path = ".".join(str(part) for part in error.errors()[0]["loc"])
        label = LABELS.get(path)
        if label is None:
            raise DataError(sentence) from None
        raise DataError(sentence.replace(f"field {path}", f"{label} ({path})", 1)) from None


LABELS = {**{f"stats.{key}": label for key, label in STATS},
          **{key: label for key, label, _default in NUMBERS}, "name": "Name"}  # fmt: skip


def sides_of(state: Mapping[str, Any]) -> list[str]:
    """The sides present in an encounter's state, in the order they joined."""
    rows = state.get("models", state.get("combatants", []))
    return list(dict.fromkeys(str(r["side"]) for r in rows if r.get("side")))
