"""What ``tableside strife …`` reads from its options: models, the catalogue, physical dice."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tableside.cli.parsing import InputError
from tableside.cli.sources import read_json
from tableside.errors import DataError
from tableside.limits import NUMBER_DIGITS_MAX, shown
from tableside.strife.attack import (
    AttackDice,
)
from tableside.strife.casting import (
    CastDice,
    CombinedDice,
)
from tableside.strife.catalog import (
    Catalog,
    CatalogFile,
    Combatant,
    Element,
    builtin_catalog,
    parse_catalog,
    validation_sentence,
)
from tableside.strife.records import Part
from tableside.strife.ruleset import RULESETS, StrifeRuleset
from tableside.strife.size import CreatureSize

# --- models and the catalogue -----------------------------------------------------------------


def load_catalog(files: Sequence[Path] | None) -> Catalog:
    """The built-in catalogue extended by the user's files, in order."""
    catalog = builtin_catalog()
    for file in files or ():
        document = _json_file(file, "catalogue")
        catalog = catalog.extended(parse_catalog(document, str(file)), str(file))
    return catalog


def _json_file(path: Path, what: str) -> Any:
    return read_json(path, what)


def find_model(catalog: Catalog, name: str) -> tuple[Catalog, Combatant]:
    """A model by name, or from a sheet file; the catalogue then also holds the file's sheet."""
    if not name.lower().endswith(".json"):
        return catalog, catalog.combatant(name)
    path = Path(name)
    document = _json_file(path, "sheet")
    if isinstance(document, dict) and "format" in document:
        file = parse_catalog(document, str(path))
        sheets = (*file.characters, *file.monsters)
        if len(sheets) != 1:
            raise InputError(
                f"{path} holds {len(sheets)} characters and monsters; load it with --catalog "
                "and name one."
            )
        return catalog.extended(file, str(path)), sheets[0]
    try:
        sheet = Combatant.model_validate(document)
    except ValidationError as error:
        raise DataError(validation_sentence(error, str(path))) from None
    file = CatalogFile(format="tableside/strife-catalog", version=1, characters=(sheet,))
    return catalog.extended(file, str(path)), sheet


def percent(value: int | None, option: str) -> int | None:
    """A percentage option as given (0 to 100), or a refusal naming it."""
    if value is not None and not 0 <= value <= 100:
        raise InputError(f"{option} must be 0 to 100 %, not {value}.")
    return value


def non_negative(value: int | float | None, option: str) -> None:
    """Refuse a negative value of ``option``."""
    if value is not None and value < 0:
        raise InputError(f"{option} cannot be negative, got {value:g}.")


def with_values(sheet: Combatant, **values: Any) -> Combatant:
    """The sheet with some fields replaced (values already checked)."""
    given = {k: v for k, v in values.items() if v is not None}
    return sheet.model_copy(update=given) if given else sheet


def parse_ruleset(name: str) -> StrifeRuleset:
    """A Realm of Strife ruleset by name."""
    found = RULESETS.get(name.lower())
    if found is None:
        raise InputError(f"Unknown ruleset {name!r}; known rulesets: {', '.join(RULESETS)}.")
    return found


def parse_element(text: str) -> Element:
    """An element (arcane, fire, …)."""
    try:
        return Element(text.lower())
    except ValueError:
        known = ", ".join(e.value for e in Element)
        raise InputError(f"Unknown element {text!r}; elements: {known}.") from None


def parse_creature_size(text: str, option: str) -> CreatureSize:
    """A creature size (micro … colossal)."""
    try:
        return CreatureSize(text.lower())
    except ValueError:
        known = ", ".join(s.value for s in CreatureSize)
        raise InputError(f"{option} must be one of {known}, not {text!r}.") from None


def labelled(values: Sequence[int] | None, label: str) -> tuple[Part, ...]:
    """Repeatable numbers as labelled parts."""
    return tuple(Part(label, v) for v in values or ())


def advantages(
    advantage: Sequence[int] | None, disadvantage: Sequence[int] | None, prefix: str = ""
) -> tuple[Part, ...]:
    """Advantages (positive) and disadvantages (given positive, entered negative) (S-1)."""
    for value in advantage or ():
        non_negative(value, f"--{prefix}advantage")
    for value in disadvantage or ():
        non_negative(value, f"--{prefix}disadvantage")
    return (
        *labelled(advantage, "advantage"),
        *(Part("disadvantage", -v) for v in disadvantage or ()),
    )


# --- physical dice ----------------------------------------------------------------------------

_STAGES = {
    "ward": "ward", "ward_off": "ward", "wardoff": "ward", "hit": "hit", "reaction": "reaction",
    "damage": "damage", "effects": "effects", "effect": "effects", "spirit": "spirit",
    "spirit_damage": "spirit", "cast": "cast", "d20": "d20", "test": "d20", "acting": "acting",
    "opposing": "opposing",
}  # fmt: skip
_FACE = re.compile(rf"-?\d{{1,{NUMBER_DIGITS_MAX}}}")


@dataclass(frozen=True, slots=True)
class StageDice:
    """Dice typed in, by stage; ``""`` holds faces given before any stage name."""

    faces: dict[str, tuple[int, ...]]

    def get(self, stage: str) -> tuple[int, ...]:
        """The faces of a stage (none when it was not named)."""
        return self.faces.get(stage, ())

    def exactly(self, stage: str, count: int, why: str) -> tuple[int, ...] | None:
        """A stage's faces when named, refusing a wrong count; None when not named."""
        if stage not in self.faces:
            return None
        faces = self.faces[stage]
        if len(faces) != count:
            noun = "die" if count == 1 else "dice"
            where = f"--dice {stage}=" if stage else "--dice"
            given = f"{len(faces)} {'was' if len(faces) == 1 else 'were'} given"
            raise InputError(f"{where} needs {count} {noun} ({why}), but {given}.")
        return faces


def parse_stage_dice(text: str, allowed: Sequence[str], command: str) -> StageDice:
    """Parse ``"hit=37 reaction=14 damage=6,3"``; bare faces go to the stage before them."""
    faces: dict[str, list[int]] = {}
    current: str | None = None
    for token in (t for t in re.split(r"[\s;]+", text.strip()) if t):
        if "=" in token:
            name, _, rest = token.partition("=")
            stage = _STAGES.get(name.strip().lower().replace("-", "_"))
            if stage is None or stage not in allowed:
                raise InputError(
                    f"--dice names an unknown stage {name!r}; the stages of {command} are "
                    f"{', '.join(allowed)}."
                )
            if stage in faces:
                raise InputError(f"--dice names the {stage} stage twice.")
            faces[stage] = []
            current = stage
        else:
            rest = token
            if current is None:
                current = ""
                faces[current] = []
        faces[current] += _faces(rest)
    if not faces:
        raise InputError("--dice was given but names no dice.")
    return StageDice({stage: tuple(values) for stage, values in faces.items()})


def _faces(text: str) -> list[int]:
    found = []
    for piece in (p for p in text.split(",") if p.strip()):
        if not _FACE.fullmatch(piece.strip()):
            raise InputError(f"--dice must list whole numbers; {shown(piece)} is not one.")
        value = int(piece)
        if value < 0:
            raise InputError(f"--dice cannot hold a negative die, got {value}.")
        found.append(value)
    return found


def _named_only(dice: StageDice, example: str) -> None:
    if "" in dice.faces:
        bare = ",".join(str(f) for f in dice.faces[""])
        raise InputError(f"--dice names each stage, e.g. {example!r}; {bare!r} has no stage name.")


def single_face(faces: tuple[int, ...] | None) -> int | None:
    """The one face of a stage (None: not given)."""
    return None if faces is None else faces[0]


def face_pair(faces: tuple[int, ...] | None) -> tuple[int, int] | None:
    """The two faces of a stage (None: not given)."""
    return None if faces is None else (faces[0], faces[1])


def attack_dice(text: str, precision: bool) -> AttackDice:
    """Typed-in dice of a physical attack."""
    dice = parse_stage_dice(text, ("ward", "hit", "reaction", "damage", "effects"), "attack")
    _named_only(dice, "hit=37 reaction=14 damage=6,3")
    return AttackDice(
        hit=_hit_faces(dice, precision),
        reaction=single_face(dice.exactly("reaction", 1, "the Block or Parry d20")),
        ward_off=face_pair(dice.exactly("ward", 2, "the attacker's d20, then the defender's")),
        damage=dice.get("damage"),
        effects=dice.get("effects"),
    )


def _hit_faces(dice: StageDice, precision: bool) -> tuple[int, ...]:
    why = "a Precision Attack rolls two d100s" if precision else "one d100"
    return dice.exactly("hit", 2 if precision else 1, why) or ()


def combined_dice(text: str, precision: bool) -> CombinedDice:
    """Typed-in dice of a combined attack."""
    stages = ("ward", "hit", "reaction", "damage", "spirit", "effects")
    dice = parse_stage_dice(text, stages, "a combined attack")
    _named_only(dice, "hit=37 reaction=14 damage=6,3 spirit=4")
    return CombinedDice(
        hit=_hit_faces(dice, precision),
        reaction=single_face(dice.exactly("reaction", 1, "the Block or Parry d20")),
        ward_off=face_pair(dice.exactly("ward", 2, "the attacker's d20, then the defender's")),
        damage=dice.get("damage"),
        spirit_damage=dice.get("spirit"),
        effects=dice.get("effects"),
    )


def cast_dice(text: str) -> CastDice:
    """Typed-in dice of a cast."""
    dice = parse_stage_dice(text, ("cast", "reaction", "damage"), "cast")
    _named_only(dice, "cast=57 damage=4,2")
    natural = single_face(dice.exactly("cast", 1, "the casting d100"))
    if natural is None:
        raise InputError("--dice for a cast needs the casting d100, e.g. 'cast=57'.")
    return CastDice(
        cast=natural,
        reaction=single_face(dice.exactly("reaction", 1, "the Block d20")),
        damage=dice.get("damage"),
    )
