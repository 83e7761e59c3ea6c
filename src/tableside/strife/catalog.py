"""Weapons, shields, armour, powers, characters and monsters are data, validated on load.

(S-8, S-9, S-14 … S-16; powers: SA-60.)

Format ``tableside/strife-catalog`` version 1 (documented in ``docs/strife.md``). Unknown keys are
refused and every error names the path of the bad field. The built-in catalogue lives in
``data/*.json``; a Host may load files of their own in the same format to add or replace entries.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tableside.errors import DataError, RulesError
from tableside.limits import (
    HP_MAX,
    LIST_MAX,
    NAME_MAX,
    POWER_COST_MAX,
    RESISTANCE_MAX,
    ROUNDS_MAX,
    Flag,
    Name,
    json_document,
    shown,
)
from tableside.strife.dice import DiceExpr, parse_dice
from tableside.strife.size import CreatureSize, WeaponSize

CATALOG_FORMAT = "tableside/strife-catalog"
CATALOG_VERSION = 1
SHIELD_GROUP = "Shields"
Resistance = Annotated[int, Field(ge=-RESISTANCE_MAX, le=RESISTANCE_MAX)]
RANGE_MAX = 1_000  # inches: a power's range (SA-60)
TARGETS_MAX = 12  # the most targets one cast may name (the fight's ``cast``)


class Frozen(BaseModel):
    """A strict, immutable record: unknown keys are refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Stat(StrEnum):
    """The stats a stat test can use (S-1): STR, AGIL, INT, WIS, STAM and Initiative."""

    STR = "STR"
    AGIL = "AGIL"
    INT = "INT"
    WIS = "WIS"
    STAM = "STAM"
    INIT = "INIT"


class Element(StrEnum):
    """Damage and Resistance types of non-physical attacks (S-8)."""

    ARCANE = "arcane"
    FIRE = "fire"
    FROST = "frost"
    LIGHTNING = "lightning"
    SHADOW = "shadow"
    LIGHT = "light"
    WILD = "wild"
    POISON = "poison"


class Resource(StrEnum):
    """Class resources with end-of-combat rules (S-22); HP is kept apart."""

    VIGOR = "Vigor"
    FURY = "Fury"
    HONOR = "Honor"
    SPIRIT = "Spirit"
    FAITH = "Faith"
    FOCUS = "Focus"
    STEALTH = "Stealth"


class Stats(Frozen):
    """The basic stats, 0 to 40 each."""

    STR: int = Field(ge=0, le=40)
    AGIL: int = Field(ge=0, le=40)
    INT: int = Field(ge=0, le=40)
    WIS: int = Field(ge=0, le=40)
    STAM: int = Field(ge=0, le=40)


class WeaponAttributes(Frozen):
    """A weapon's attributes and their values (S-10 … S-13, S-16)."""

    parry: int | None = Field(default=None, ge=0)
    block: int | None = Field(default=None, ge=0)
    ward_off: bool = False
    impale: bool = False
    reach: int | None = Field(default=None, ge=1)
    thrown: float | None = Field(default=None, gt=0)  # thrown range in inches
    crushing_blow: int | None = Field(default=None, ge=0)


class PercentEffect(Frozen):
    """A % effect (step 4 of a physical attack): ``chance`` % to inflict a named condition."""

    name: str = Field(min_length=1)
    chance: int = Field(ge=1, le=100)
    rounds: int | None = Field(default=None, ge=1)


class Weapon(Frozen):
    """A weapon: damage dice, size, proficiency group, attributes, % effects."""

    name: str = Field(min_length=1)
    group: str = Field(min_length=1)
    size: WeaponSize
    damage: str
    ranged: bool = False
    range: float | None = Field(default=None, gt=0)
    attributes: WeaponAttributes = WeaponAttributes()
    effects: tuple[PercentEffect, ...] = ()
    notes: str = ""

    @field_validator("damage")
    @classmethod
    def _dice(cls, value: str) -> str:
        try:
            parse_dice(value)
        except RulesError as error:
            raise ValueError(str(error)) from None
        return value

    @property
    def dice(self) -> DiceExpr:
        """The parsed damage expression."""
        return parse_dice(self.damage)

    @property
    def reach(self) -> int:
        """Reach value, 0 without the Reach attribute (S-13)."""
        return self.attributes.reach or 0


class PowerTargets(StrEnum):
    """Whom a power reaches (S-15, SA-49, SA-60).

    ``one``: a single target; ``one_roll``: several targets on one casting roll (Storm-type,
    spell power shared); ``separate_rolls``: several targets, a casting roll each (Multi-type,
    full spell power each).
    """

    ONE = "one"
    ONE_ROLL = "one_roll"
    SEPARATE_ROLLS = "separate_rolls"


class PowerRoll(StrEnum):
    """The roll a power makes (S-8, S-9, SA-60).

    ``casting``: its own casting d100 against each target's Resistance; ``combined``: the spirit
    portion of a weapon attack, riding on its hit roll (the Melee Strike archetype, Bow
    Casting).
    """

    CASTING = "casting"
    COMBINED = "combined"


class PowerEffect(Frozen):
    """A named condition a power puts on a target it hits (S-8 steps 2 and 3, S-23).

    Without ``chance`` the effect is guaranteed on a hit; with it, a d100 ≤ ``chance`` applies it
    (a % effect, rolled after damage).
    """

    name: str = Field(min_length=1, max_length=NAME_MAX)
    rounds: int | None = Field(default=None, ge=1, le=ROUNDS_MAX)
    until: str | None = Field(default=None, min_length=1, max_length=NAME_MAX)
    chance: int | None = Field(default=None, ge=1, le=100)


class PowerEntry(Frozen):
    """A Spirit, Faith or Focus power as data (S-8, S-9, S-15, SA-60).

    Attributes:
        name: The power's name.
        archetype: Its archetype as the rules name it (Missile, Storm, Multi, Melee Strike …).
        element: Its damage and Resistance type.
        resource: The pool its cost is paid from (Spirit, Faith, Focus …).
        cost: What one cast costs, spent even on a miscast (SA-49).
        roll: A casting roll of its own, or the spirit portion of a weapon attack.
        timing: An Action or an Instant (S-5).
        range: Inches from the caster, or ``touch`` (base contact, 1").
        offensive: An offensive power: at range, it cannot target a model in base contact.
        targets: One target, several on one roll, or several with a roll each.
        max_targets: The most targets one cast may have (None: as many as the Host allows).
        damage: Damage dice, or None for a power without damage.
        resistible: Whether a target may choose to resist it (S-8).
        blockable: A Missile-type power may be Blocked (S-10).
        dodge_allowed: A Missile-type power lets the target add Dodge to Resistance (S-8).
        effects: Named conditions it puts on a target it hits.
        notes: Free text.
    """

    name: str = Field(min_length=1, max_length=NAME_MAX)
    archetype: str = Field(default="", max_length=NAME_MAX)
    element: Element
    resource: Resource | None = None
    cost: int = Field(default=0, ge=0, le=POWER_COST_MAX)
    roll: PowerRoll = PowerRoll.CASTING
    timing: Literal["action", "instant"] = "action"
    range: Annotated[float, Field(gt=0, le=RANGE_MAX)] | Literal["touch"]
    offensive: bool = True
    targets: PowerTargets = PowerTargets.ONE
    max_targets: int | None = Field(default=None, ge=1, le=TARGETS_MAX)
    damage: str | None = None
    resistible: bool = True
    blockable: bool = False
    dodge_allowed: bool = False
    effects: tuple[PowerEffect, ...] = Field(default=(), max_length=LIST_MAX)
    notes: str = ""

    @field_validator("damage")
    @classmethod
    def _dice(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            parse_dice(value)
        except RulesError as error:
            raise ValueError(str(error)) from None
        return value

    @model_validator(mode="after")
    def _coherent(self) -> PowerEntry:
        if self.cost and self.resource is None:
            raise ValueError(f"a cost of {self.cost} needs the resource it is paid from")
        if self.targets == PowerTargets.ONE and (self.max_targets or 1) > 1:
            raise ValueError(f"a one-target power cannot have max_targets {self.max_targets}")
        if self.roll == PowerRoll.COMBINED and self.targets != PowerTargets.ONE:
            raise ValueError("a combined power rides one weapon attack, so it has one target")
        return self

    @property
    def touch(self) -> bool:
        """A touch power: its target must be in base contact."""
        return self.range == "touch"


class Shield(Frozen):
    """A shield: its Block advantage and size (S-10)."""

    name: str = Field(min_length=1)
    size: WeaponSize
    block: int = Field(ge=0)
    crushing_blow: int | None = Field(default=None, ge=0)
    # A Shield Blow: an attack with the shield (S-16, SA-73); the page gives no figures.
    blow_damage: str = "1d4"
    blow_effects: tuple[PercentEffect, ...] = ()
    notes: str = ""

    @field_validator("blow_damage")
    @classmethod
    def _blow_dice(cls, value: str) -> str:
        try:
            parse_dice(value)
        except RulesError as error:
            raise ValueError(str(error)) from None
        return value


class ArmourPiece(Frozen):
    """One piece of armour and the AC it gives (S-16 untrained armour)."""

    name: str = Field(min_length=1)
    slot: str = Field(min_length=1)
    group: str = Field(min_length=1)
    armor_value: int = Field(ge=0)
    noisy: bool = False
    stiff: bool = False


class Pool(Frozen):
    """A resource's current and maximum value (``maximum`` may be absent, e.g. Honor stacks)."""

    current: int = Field(ge=0, le=HP_MAX)
    maximum: int | None = Field(default=None, ge=0, le=HP_MAX)


ReactionTrigger = Literal["attacked", "foe_attacks", "foe_casts"]
"""What sets a Reaction off (SA-96): being attacked; a foe attacking anyone; a foe casting."""
TRIGGER_WORDS: dict[str, str] = {
    "attacked": "when it is attacked",
    "foe_attacks": "when a foe attacks",
    "foe_casts": "when a foe casts a power",
}


class Reaction(Frozen):
    """A Skill, Role-play or other Reaction a sheet has, with the trigger its rule states (SA-96).

    ``test``: the stat tested when it is taken (S-1), if its rule asks for one.
    """

    name: Name
    kind: Literal["skill", "roleplay", "other"] = "skill"
    trigger: ReactionTrigger
    test: Stat | None = None

    @property
    def when(self) -> str:
        """The trigger in words: ``when it is attacked``."""
        return TRIGGER_WORDS[self.trigger]


SKILL_REACTIONS: dict[str, Reaction] = {
    r.name.lower(): r
    for r in (
        Reaction(name="Reversal", trigger="attacked"),
        Reaction(name="Swift Kick", trigger="attacked"),
        Reaction(name="Counterspell", trigger="foe_casts"),
    )
}
"""The Combat page's named Skill/Casting Reactions, with the triggers this project reads (SA-96):
a sheet whose ``skills`` name one has it."""


class Combatant(Frozen):
    """A character or monster sheet."""

    name: Name
    npc: Flag = False
    size: CreatureSize = CreatureSize.MEDIUM
    stats: Stats
    initiative: int = Field(ge=-20, le=60)
    movement: int = Field(ge=0, le=40)
    ac: int = Field(ge=0, le=100)
    dodge: int = Field(default=0, ge=0, le=100)
    resistances: dict[Element, Resistance] = Field(default_factory=dict)
    crit_chance: int = Field(default=0, ge=0, le=100)
    cast_crit_chance: int = Field(default=0, ge=0, le=100)
    critical_miss_chance: int = Field(default=5, ge=0, le=100)
    miscast_chance: int = Field(default=5, ge=0, le=100)
    hp: int = Field(ge=0, le=HP_MAX)
    hp_max: int = Field(ge=1, le=HP_MAX)
    absorption: int = Field(default=0, ge=0, le=100)
    resources: dict[Resource, Pool] = Field(default_factory=dict)
    proficiencies: tuple[Name, ...] = Field(default=(), max_length=LIST_MAX)
    skills: tuple[Name, ...] = Field(default=(), max_length=LIST_MAX)
    aquatic: Flag = False
    # Wings, a spell of flight: set above the ground it flies unless the Host says perched
    # (SA-93); a sheet without it writes no key, so sheets and logs made before are unchanged.
    can_fly: bool = Field(default=False, exclude_if=lambda can: not can)
    main_hand: Name | None = None
    off_hand: Name | None = None
    shield: Name | None = None
    armour: tuple[Name, ...] = Field(default=(), max_length=LIST_MAX)
    # Attacks an Action adds beyond one per weapon held, from skills, abilities or enchants
    # (SA-46); a player character stays within 4-3-2 (S-17).
    extra_attacks: int = Field(default=0, ge=0, le=3)
    # The powers of the catalogue it knows (SA-60), for a picker; a sheet without any writes
    # no key, so sheets and logs made before it are unchanged.
    powers: tuple[Name, ...] = Field(
        default=(), max_length=LIST_MAX, exclude_if=lambda powers: not powers
    )
    # Skill, Role-play and other Reactions with their triggers, offered when they trigger
    # (SA-96); a sheet without any writes no key, so sheets and logs made before are unchanged.
    reactions: tuple[Reaction, ...] = Field(
        default=(), max_length=LIST_MAX, exclude_if=lambda reactions: not reactions
    )

    def reactions_known(self) -> tuple[Reaction, ...]:
        """Its Reactions (SA-96): those it declares, then the named skills' it has."""
        own = {r.name.lower() for r in self.reactions}
        named = [SKILL_REACTIONS[s.lower()] for s in self.skills
                 if s.lower() in SKILL_REACTIONS and s.lower() not in own]  # fmt: skip
        return (*self.reactions, *named)

    def stat(self, stat: Stat) -> int:
        """A stat's value; ``INIT`` is the Initiative stat."""
        if stat == Stat.INIT:
            return self.initiative
        return int(getattr(self.stats, stat.value))

    def resistance(self, element: Element) -> int:
        """Resistance to ``element`` (0 when the sheet lists none)."""
        return self.resistances.get(element, 0)

    def proficient(self, group: str) -> bool:
        """Trained in a weapon, shield or armour group (case-insensitive)."""
        return group.lower() in {p.lower() for p in self.proficiencies}

    def has_skill(self, skill: str) -> bool:
        """Has a named Secondary Skill such as ``Dual Wield`` (case-insensitive)."""
        return skill.lower() in {s.lower() for s in self.skills}


class CatalogFile(Frozen):
    """A catalogue file."""

    format: Literal["tableside/strife-catalog"]
    version: Literal[1]
    weapons: tuple[Weapon, ...] = ()
    shields: tuple[Shield, ...] = ()
    armour: tuple[ArmourPiece, ...] = ()
    characters: tuple[Combatant, ...] = ()
    monsters: tuple[Combatant, ...] = ()
    powers: tuple[PowerEntry, ...] = ()


def validation_sentence(error: ValidationError, what: str) -> str:
    """One sentence naming the first bad field's path, the problem and the value."""
    first = error.errors()[0]
    path = ".".join(str(part) for part in first["loc"]) or "(top level)"
    value = first.get("input")
    got = "" if isinstance(value, dict | list) else f" (got {shown(value)})"
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{what}: field {path}: {message.rstrip('.')}{got}."


def parse_catalog(data: Any, what: str = "catalogue") -> CatalogFile:
    """Validate a decoded catalogue document, references included.

    Raises:
        DataError: One sentence naming the bad field's path.
    """
    try:
        file = CatalogFile.model_validate(data)
    except ValidationError as error:
        raise DataError(validation_sentence(error, what)) from None
    return file


def parse_catalog_text(text: str, what: str = "catalogue") -> CatalogFile:
    """Validate a catalogue given as JSON text."""
    data = json_document(text, what)
    return parse_catalog(data, what)


T = TypeVar("T")


def _lookup(table: dict[str, T], name: str, kind: str) -> T:
    found = table.get(name.lower())
    if found is None:
        known = ", ".join(sorted(table)) or "none"
        raise RulesError(f"Unknown {kind} {name!r}; known: {known}.")
    return found


class Catalog:
    """Weapons, shields, armour, characters and monsters by name (case-insensitive)."""

    def __init__(self, *files: CatalogFile) -> None:
        self.weapons: dict[str, Weapon] = {}
        self.shields: dict[str, Shield] = {}
        self.armour: dict[str, ArmourPiece] = {}
        self.combatants: dict[str, Combatant] = {}
        self.powers: dict[str, PowerEntry] = {}
        for file in files:
            self._add(file)

    def _add(self, file: CatalogFile) -> None:
        self.weapons.update({w.name.lower(): w for w in file.weapons})
        self.shields.update({s.name.lower(): s for s in file.shields})
        self.armour.update({a.name.lower(): a for a in file.armour})
        sheets = (*file.characters, *file.monsters)
        self.combatants.update({c.name.lower(): c for c in sheets})
        self.powers.update({w.name.lower(): w for w in file.powers})

    def weapon(self, name: str) -> Weapon:
        """Look a weapon up, with a clear error naming the known ones."""
        return _lookup(self.weapons, name, "weapon")

    def shield(self, name: str) -> Shield:
        """Look a shield up."""
        return _lookup(self.shields, name, "shield")

    def armour_piece(self, name: str) -> ArmourPiece:
        """Look an armour piece up."""
        return _lookup(self.armour, name, "armour piece")

    def combatant(self, name: str) -> Combatant:
        """Look a character or monster up."""
        return _lookup(self.combatants, name, "character or monster")

    def power(self, name: str) -> PowerEntry:
        """Look a power up (SA-60)."""
        return _lookup(self.powers, name, "power")

    def find_power(self, name: str) -> PowerEntry | None:
        """A power by name, or None when the catalogue has none by that name."""
        return self.powers.get(name.lower())

    def extended(self, file: CatalogFile, what: str = "catalogue") -> Catalog:
        """A catalogue with ``file``'s entries added (replacing same-named ones), checked."""
        merged = Catalog()
        for table in ("weapons", "shields", "armour", "combatants", "powers"):
            setattr(merged, table, dict(getattr(self, table)))
        merged._add(file)
        merged.check_references(what)
        return merged

    def check_references(self, what: str = "catalogue") -> None:
        """Every piece of equipment a sheet names exists (DataError naming the field)."""
        for sheet in self.combatants.values():
            for field, name, table in _equipment(sheet):
                if name.lower() not in getattr(self, table):
                    raise DataError(
                        f"{what}: field {sheet.name}.{field}: no {_KINDS[table]} is named {name!r}."
                    )


_KINDS = {"weapons": "weapon", "shields": "shield", "armour": "armour piece", "powers": "power"}


def _equipment(sheet: Combatant) -> Iterable[tuple[str, str, str]]:
    if sheet.main_hand:
        yield "main_hand", sheet.main_hand, "weapons"
    if sheet.off_hand:
        yield "off_hand", sheet.off_hand, "weapons"
    if sheet.shield:
        yield "shield", sheet.shield, "shields"
    for index, piece in enumerate(sheet.armour):
        yield f"armour.{index}", piece, "armour"
    for index, power in enumerate(sheet.powers):
        yield f"powers.{index}", power, "powers"


DATA_FILES = (
    "weapons.json",
    "shields.json",
    "armour.json",
    "powers.json",
    "characters.json",
    "monsters.json",
)


@cache
def builtin_catalog() -> Catalog:
    """The shipped weapons, shields, armour, powers, characters and monsters."""
    files = []
    for name in DATA_FILES:
        text = resources.files("tableside.strife").joinpath("data", name).read_text("utf-8")
        files.append(parse_catalog_text(text, f"built-in {name}"))
    catalog = Catalog(*files)
    catalog.check_references("built-in catalogue")
    return catalog
