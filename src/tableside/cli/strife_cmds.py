"""``tableside strife attack | cast | test | rolloff``: one-shot Realm of Strife rolls.

Models are named from the built-in catalogue (``--catalog FILE`` extends it) or given as a sheet
file (an argument ending in ``.json``). Physical dice are typed in stage by stage (``--dice
"hit=37 reaction=14 damage=6,3 effects=55"``); every refusal is one sentence (exit code 2).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console, RenderableType

from tableside.cli import strife_render as render
from tableside.cli.options import Seed
from tableside.cli.output import print_json
from tableside.cli.parsing import InputError
from tableside.cli.sources import read_json
from tableside.dice import SeededRng
from tableside.errors import DataError, RulesError
from tableside.limits import MODIFIER_MAX, MODIFIERS_MAX, NUMBER_DIGITS_MAX, STAT_MAX, shown
from tableside.strife import reactions
from tableside.strife.attack import (
    AttackDice,
    AttackSetup,
    attack_with_dice,
    check_attack,
    roll_attack,
)
from tableside.strife.casting import (
    CastDice,
    CastSetup,
    CombinedDice,
    CombinedSetup,
    Power,
    SpiritPortion,
    cast_with_dice,
    combined_with_dice,
    roll_cast,
    roll_combined,
)
from tableside.strife.catalog import (
    Catalog,
    CatalogFile,
    Combatant,
    Element,
    Stat,
    Weapon,
    builtin_catalog,
    parse_catalog,
    validation_sentence,
)
from tableside.strife.checks import (
    Contestant,
    roll_off,
    roll_off_with_naturals,
    stat_test,
    stat_test_with_natural,
)
from tableside.strife.loadout import effective_ac
from tableside.strife.penalties import PenaltyContext, WeaponUse
from tableside.strife.reactions import Family, Reaction
from tableside.strife.records import Part
from tableside.strife.report import (
    attack_dict,
    cast_dict,
    combined_dict,
    roll_off_dict,
    stat_test_dict,
)
from tableside.strife.ruleset import RULESETS, StrifeRuleset
from tableside.strife.size import CreatureSize, WeaponSize, parse_weapon_size

DICE_HELP = """\
Physical dice (--dice) are typed in stage by stage as NAME=FACES, faces separated by commas
(or spaces), stages separated by spaces or semicolons, in any order:

\b
  ward=12,9     Ward-off roll-off: the attacker's d20, then the defender's d20
  hit=37        the hit d100 (two for --precision: hit=37,80; the lower is kept)
  reaction=14   the Block or Parry d20, rolled with the hit roll
  damage=6,3    the weapon's damage dice (only when full damage stands)
  spirit=4      with cast --combined: the spirit portion's damage dice
  effects=55    one d100 per % effect of the weapon (only when full damage stands)

Give exactly the dice the roll uses: a missing, surplus or impossible die is refused.
"""

app = typer.Typer(
    help="Realm of Strife: one-shot attacks, casts, stat tests and roll-offs.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

# --- shared options ---------------------------------------------------------------------------

Dice = Annotated[
    str | None,
    typer.Option(
        help='Physical dice stage by stage, e.g. "hit=37 reaction=14 damage=6,3 effects=55" '
        "(see the stages above)."
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print the result as JSON (docs/strife.md).")]
Catalogs = Annotated[
    list[Path] | None,
    typer.Option(
        "--catalog",
        metavar="FILE",
        help="A tableside/strife-catalog JSON file extending the built-in one (repeatable).",
    ),
]
Ruleset = Annotated[
    str, typer.Option(help="Ruleset: standard, crit-requires-hit or uncapped-size.")
]
Model = Annotated[
    str, typer.Argument(help="A character or monster by name, or a sheet file ending in .json.")
]
Numbers = Annotated[list[int] | None, typer.Option(metavar="N", help="Repeatable.")]

ReactionOpt = Annotated[
    str | None,
    typer.Option(
        "--reaction",
        help="The defender's declared reaction: block, parry, combined-parry, block-and-parry, "
        "improvised-block, improvised-parry or ward-off.",
    ),
]
ShieldOpt = Annotated[
    str | None, typer.Option("--shield", help="Reaction shield (default: the defender's).")
]
ReactionWeaponOpt = Annotated[
    str | None,
    typer.Option(
        "--reaction-weapon",
        help="Weapon for parry, improvised-parry, block-and-parry, ward-off (default: the "
        "defender's main hand).",
    ),
]
ReactionOffOpt = Annotated[
    str | None,
    typer.Option(
        "--reaction-off-weapon",
        help="Second weapon of a combined-parry (default: the defender's off hand).",
    ),
]
ItemOpt = Annotated[
    str | None,
    typer.Option("--item", help="Item of an improvised-block (default: the main hand)."),
]
ItemSizeOpt = Annotated[
    str | None,
    typer.Option(
        "--item-size", help="S, M, L or XL for an improvised-block item not in the catalogue."
    ),
]
ReactionUseOpt = Annotated[
    str | None,
    typer.Option(
        "--reaction-use",
        help="block-and-parry tested as a block (STR) or parry (AGIL); default the higher stat.",
    ),
]
ReactionAdvantageOpt = Annotated[
    list[int] | None,
    typer.Option(
        "--reaction-advantage",
        metavar="N",
        help="Extra advantage (−: disadvantage) to the reaction.",
    ),
]
MovedOpt = Annotated[
    int, typer.Option("--moved", help="Whole inches the attacker moved this Turn (S-16).")
]
FlyingOpt = Annotated[bool, typer.Option("--flying", help="The shooter is airborne (S-16).")]
ThrownOpt = Annotated[bool, typer.Option("--thrown", help="The weapon is thrown (S-16).")]
UnderwaterOpt = Annotated[
    bool, typer.Option("--underwater", help="The target is underwater (S-16).")
]
OtherHandOpt = Annotated[
    str | None,
    typer.Option("--other-hand", help="Dual wielding: the other hand's weapon (S-16)."),
]
DualOpt = Annotated[
    bool,
    typer.Option("--dual-wielding", help="Dual wielding with the sheet's other equipped weapon."),
]
DistanceOpt = Annotated[
    float | None,
    typer.Option(
        help="Inches to the target (0 = base contact; water inches already counted twice): "
        "melee needs ≤ the weapon's Reach, ranged and thrown > 0 and ≤ the range."
    ),
]

REACTION_NAMES = (
    "block", "parry", "combined-parry", "block-and-parry", "improvised-block",
    "improvised-parry", "ward-off",
)  # fmt: skip
_STAT_ALIASES = {s.value.lower(): s for s in Stat} | {
    "strength": Stat.STR, "agility": Stat.AGIL, "intellect": Stat.INT,
    "intelligence": Stat.INT, "wisdom": Stat.WIS, "stamina": Stat.STAM,
    "initiative": Stat.INIT,
}  # fmt: skip


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


def _percent(value: int | None, option: str) -> int | None:
    if value is not None and not 0 <= value <= 100:
        raise InputError(f"{option} must be 0 to 100 %, not {value}.")
    return value


def _non_negative(value: int | float | None, option: str) -> None:
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
        _non_negative(value, f"--{prefix}advantage")
    for value in disadvantage or ():
        _non_negative(value, f"--{prefix}disadvantage")
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


def _single(faces: tuple[int, ...] | None) -> int | None:
    return None if faces is None else faces[0]


def _pair(faces: tuple[int, ...] | None) -> tuple[int, int] | None:
    return None if faces is None else (faces[0], faces[1])


def attack_dice(text: str, precision: bool) -> AttackDice:
    """Typed-in dice of a physical attack."""
    dice = parse_stage_dice(text, ("ward", "hit", "reaction", "damage", "effects"), "attack")
    _named_only(dice, "hit=37 reaction=14 damage=6,3")
    return AttackDice(
        hit=_hit_faces(dice, precision),
        reaction=_single(dice.exactly("reaction", 1, "the Block or Parry d20")),
        ward_off=_pair(dice.exactly("ward", 2, "the attacker's d20, then the defender's")),
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
        reaction=_single(dice.exactly("reaction", 1, "the Block or Parry d20")),
        ward_off=_pair(dice.exactly("ward", 2, "the attacker's d20, then the defender's")),
        damage=dice.get("damage"),
        spirit_damage=dice.get("spirit"),
        effects=dice.get("effects"),
    )


def cast_dice(text: str) -> CastDice:
    """Typed-in dice of a cast."""
    dice = parse_stage_dice(text, ("cast", "reaction", "damage"), "cast")
    _named_only(dice, "cast=57 damage=4,2")
    natural = _single(dice.exactly("cast", 1, "the casting d100"))
    if natural is None:
        raise InputError("--dice for a cast needs the casting d100, e.g. 'cast=57'.")
    return CastDice(
        cast=natural,
        reaction=_single(dice.exactly("reaction", 1, "the Block d20")),
        damage=dice.get("damage"),
    )


# --- attack pieces ----------------------------------------------------------------------------


def held_weapon(catalog: Catalog, sheet: Combatant, name: str | None, hand: str) -> Weapon:
    """A named weapon, or the sheet's main- or off-hand weapon."""
    chosen = name or (sheet.main_hand if hand == "main" else sheet.off_hand)
    if chosen is None:
        raise InputError(f"{sheet.name} has no {hand}-hand weapon; name one with --weapon.")
    return catalog.weapon(chosen)


def penalty_context(
    catalog: Catalog, attacker: Combatant, weapon: Weapon, moved: int, flying: bool,
    thrown: bool, underwater: bool, other_hand: str | None, dual: bool,
) -> PenaltyContext:  # fmt: skip
    """The S-16 circumstances of the attack."""
    _non_negative(moved, "--moved")
    if other_hand is not None and dual:
        raise InputError("Give either --other-hand or --dual-wielding, not both.")
    other = None if other_hand is None else catalog.weapon(other_hand)
    if dual:
        main = (attacker.main_hand or "").lower()
        name = attacker.off_hand if weapon.name.lower() == main else attacker.main_hand
        if name is None:
            raise InputError(
                f"{attacker.name} has no other equipped weapon for --dual-wielding; name one "
                "with --other-hand."
            )
        other = catalog.weapon(name)
    return PenaltyContext(
        inches_moved=moved, flying=flying, other_hand=other, thrown=thrown, underwater=underwater
    )


def check_distance(setup: AttackSetup, use: WeaponUse, distance: float | None) -> None:
    """Refuse a melee weapon beyond its Reach, a ranged one in contact or beyond its range."""
    if distance is None:
        return
    _non_negative(distance, "--distance")
    weapon = setup.weapon
    if not setup.ranged:
        if distance > use.reach:
            reach = f"Reach {use.reach}" if use.reach else "base contact"
            raise RulesError(
                f'{weapon.name} is a melee weapon ({reach}) and cannot attack at {distance:g}"; '
                "use --thrown to throw it."
            )
        return
    if distance == 0:
        raise RulesError("A ranged or thrown attack cannot target a model in base contact.")
    if use.range is not None and distance > use.range:
        raise RulesError(
            f"{setup.defender.name} at {distance:g}\" is beyond {weapon.name}'s range of "
            f'{float(use.range):g}" (S-16).'
        )


@dataclass(frozen=True, slots=True)
class ReactionChoice:
    """The reaction options as typed."""

    kind: str | None
    shield: str | None = None
    weapon: str | None = None
    off_weapon: str | None = None
    item: str | None = None
    item_size: str | None = None
    use: str | None = None
    advantage: tuple[int, ...] = ()


def build_reaction(
    choice: ReactionChoice, catalog: Catalog, defender: Combatant
) -> Reaction | None:
    """The declared reaction, built from the defender's equipment (S-10 … S-13)."""
    if choice.kind is None:
        extra = [name for name, value in (
            ("--shield", choice.shield), ("--reaction-weapon", choice.weapon),
            ("--reaction-off-weapon", choice.off_weapon), ("--item", choice.item),
            ("--item-size", choice.item_size), ("--reaction-use", choice.use),
            ("--reaction-advantage", choice.advantage or None)) if value is not None]  # fmt: skip
        if extra:
            raise InputError(f"{extra[0]} belongs to a declared reaction; add --reaction.")
        return None
    kind = choice.kind.lower().replace("_", "-")
    if kind not in REACTION_NAMES:
        raise InputError(
            f"Unknown reaction {choice.kind!r}; known reactions: {', '.join(REACTION_NAMES)}."
        )
    reaction = _declare(kind, choice, catalog, defender)
    if not choice.advantage:
        return reaction
    if reaction.family is None:
        raise InputError("--reaction-advantage applies to a Block or Parry test, not a Ward-off.")
    added = labelled(choice.advantage, "reaction advantage")
    return replace(reaction, advantage=(*reaction.advantage, *added))


def _shield_of(choice: ReactionChoice, catalog: Catalog, defender: Combatant) -> Any:
    name = choice.shield or defender.shield
    if name is None:
        raise InputError(f"{defender.name} has no shield; name one with --shield.")
    return catalog.shield(name)


def _declare(kind: str, choice: ReactionChoice, catalog: Catalog, defender: Combatant) -> Reaction:
    weapon = choice.weapon
    if kind == "block":
        return reactions.block(defender, _shield_of(choice, catalog, defender))
    if kind == "parry":
        return reactions.parry(defender, _defender_weapon(catalog, defender, weapon, "main"))
    if kind == "combined-parry":
        main = _defender_weapon(catalog, defender, weapon, "main")
        off = _defender_weapon(catalog, defender, choice.off_weapon, "off")
        return reactions.combined_parry(defender, main, off)
    if kind == "block-and-parry":
        shield = _shield_of(choice, catalog, defender)
        parrying = _defender_weapon(catalog, defender, weapon, "main")
        return reactions.block_and_parry(defender, shield, parrying, _use(choice.use, defender))
    if kind == "improvised-block":
        item, size = _improvised_item(choice, catalog, defender)
        return reactions.improvised_block(item, size)
    if kind == "improvised-parry":
        return reactions.improvised_parry(_defender_weapon(catalog, defender, weapon, "main"))
    return reactions.ward_off(defender, _defender_weapon(catalog, defender, weapon, "main"))


def _defender_weapon(catalog: Catalog, defender: Combatant, name: str | None, hand: str) -> Weapon:
    chosen = name or (defender.main_hand if hand == "main" else defender.off_hand)
    if chosen is None:
        option = "--reaction-weapon" if hand == "main" else "--reaction-off-weapon"
        raise InputError(f"{defender.name} has no {hand}-hand weapon; name one with {option}.")
    return catalog.weapon(chosen)


def _use(text: str | None, defender: Combatant) -> Family:
    if text is None:
        return Family.PARRY if defender.stats.AGIL > defender.stats.STR else Family.BLOCK
    try:
        return Family(text.lower())
    except ValueError:
        raise InputError(f"--reaction-use is block or parry, not {text!r}.") from None


def _improvised_item(
    choice: ReactionChoice, catalog: Catalog, defender: Combatant
) -> tuple[str, WeaponSize]:
    name = choice.item or defender.main_hand
    if name is None:
        raise InputError(f"{defender.name} holds nothing to block with; name it with --item.")
    if choice.item_size is not None:
        return name, parse_weapon_size(choice.item_size)
    known = catalog.weapons.get(name.lower()) or catalog.shields.get(name.lower())
    if known is None:
        raise InputError(f"Give --item-size (S, M, L or XL) for the improvised item {name!r}.")
    return known.name, known.size


def defender_ac(catalog: Catalog, defender: Combatant, ac: int | None) -> int:
    """``--ac`` or the defender's effective AC with armour (S-16)."""
    if ac is not None:
        _non_negative(ac, "--ac")
        return ac
    return effective_ac(catalog, defender).value


def emit(data: dict[str, Any], text: RenderableType, as_json: bool, seed: int | None) -> None:
    """JSON (the seed recorded; null for physical dice) or the Rich breakdown.

    Like :func:`tableside.cli.output.emit`, but the text is not wrapped at 80 columns when
    standard output is not a terminal.
    """
    if as_json:
        print_json({**data, "seed": seed})
        return
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=120)
    console.print(text)
    if seed is not None:
        console.print(f"seed {seed}", style="dim")


def _seed(seed: int) -> SeededRng:
    _non_negative(seed, "--seed")
    return SeededRng(seed)


def build_attack_setup(o: dict[str, Any]) -> AttackSetup:
    """The AttackSetup that ``strife attack`` and ``odds attack`` build from their options."""
    catalogue = load_catalog(o["catalog"])
    catalogue, striker = find_model(catalogue, o["attacker"])
    catalogue, target = find_model(catalogue, o["defender"])
    target_ac = defender_ac(catalogue, target, o["ac"])
    striker = with_values(
        striker,
        crit_chance=_percent(o["crit"], "--crit"),
        critical_miss_chance=_percent(o["critical_miss"], "--critical-miss"),
    )
    target = with_values(target, dodge=_percent(o["dodge"], "--dodge"))
    used = attack_weapon(catalogue, striker, o)
    choice = ReactionChoice(
        o["reaction"], o["shield"], o["reaction_weapon"], o["reaction_off_weapon"], o["item"],
        o["item_size"], o["reaction_use"], tuple(o["reaction_advantage"] or ()),
    )  # fmt: skip
    context = penalty_context(
        catalogue, striker, used, o["moved"], o["flying"], o["thrown"], o["underwater"],
        o["other_hand"], o["dual_wielding"],
    )  # fmt: skip
    setup = AttackSetup(
        attacker=striker,
        defender=target,
        weapon=used,
        context=context,
        precision=o["precision"],
        hit_modifiers=(
            *labelled(o["modifier"], "modifier"),
            *(Part(k, v) for k, v in named_modifiers(o.get("situational")).items()),
        ),
        damage_bonuses=labelled(o["damage_bonus"], "damage bonus"),
        defender_ac=target_ac,
        reaction=build_reaction(choice, catalogue, target),
        ruleset=parse_ruleset(o["ruleset"]),
    )
    check_distance(setup, check_attack(setup), o["distance"])
    return setup


def attack_weapon(catalogue: Catalog, striker: Combatant, o: dict[str, Any]) -> Weapon:
    """The attack's weapon: ``--weapon`` (default: the main hand), or the shield (SA-73)."""
    if not o.get("shield_blow"):
        return held_weapon(catalogue, striker, o["weapon"], "main")
    if o["weapon"] is not None or o["thrown"]:
        raise InputError("--shield-blow strikes with the shield: give no --weapon or --thrown.")
    from tableside.encounter.strife.forced import shield_blow_weapon

    return shield_blow_weapon(catalogue, striker)


def named_modifiers(given: list[str] | None) -> dict[str, int]:
    """``--situational 'cover=-20'`` options as {name: amount} (SA-75); bad ones exit 2."""
    found: dict[str, int] = {}
    for text in given or ():
        name, sep, amount = text.rpartition("=")
        value = int(amount) if re.fullmatch(r"[+-]?\d{1,3}", amount.strip()) else None
        if not sep or not name.strip() or value is None or abs(value) > MODIFIER_MAX:
            raise InputError(
                "--situational takes a name and a whole number from -100 to 100 like "
                f"'high ground=10', not {shown(text)}."
            )
        found[name.strip()] = value
    if len(found) > MODIFIERS_MAX:
        raise InputError(f"--situational names at most {MODIFIERS_MAX} modifiers.")
    return found


# --- commands ---------------------------------------------------------------------------------


@app.command(
    help="Resolve one physical attack (S-7, S-10 … S-16) with its breakdown.\n\n" + DICE_HELP
)
def attack(
    attacker: Model,
    defender: Model,
    weapon: Annotated[
        str | None, typer.Option(help="Attacker's weapon (default: the main hand).")
    ] = None,
    precision: Annotated[
        bool, typer.Option("--precision", help="A Precision Attack: two d100, the lower kept.")
    ] = False,
    modifier: Annotated[
        list[int] | None,
        typer.Option("--modifier", metavar="N", help="A to-hit modifier (repeatable)."),
    ] = None,
    damage_bonus: Annotated[
        list[int] | None,
        typer.Option("--damage-bonus", metavar="N", help="A flat damage bonus (repeatable)."),
    ] = None,
    ac: Annotated[
        int | None, typer.Option(help="Defender's AC (default: the sheet's AC with armour).")
    ] = None,
    dodge: Annotated[int | None, typer.Option(help="Defender's Dodge (default: sheet).")] = None,
    crit: Annotated[int | None, typer.Option(help="Attacker's crit chance in %.")] = None,
    critical_miss: Annotated[
        int | None, typer.Option(help="Attacker's critical-miss range 1..N (default: sheet).")
    ] = None,
    situational: Annotated[
        list[str] | None,
        typer.Option(help="A named situational modifier, e.g. 'cover=-20' (repeatable, SA-75)."),
    ] = None,
    shield_blow: Annotated[
        bool, typer.Option("--shield-blow", help="Strike with the shield (S-16, SA-73).")
    ] = False,
    moved: MovedOpt = 0,
    flying: FlyingOpt = False,
    thrown: ThrownOpt = False,
    underwater: UnderwaterOpt = False,
    other_hand: OtherHandOpt = None,
    dual_wielding: DualOpt = False,
    distance: DistanceOpt = None,
    reaction: ReactionOpt = None,
    shield: ShieldOpt = None,
    reaction_weapon: ReactionWeaponOpt = None,
    reaction_off_weapon: ReactionOffOpt = None,
    item: ItemOpt = None,
    item_size: ItemSizeOpt = None,
    reaction_use: ReactionUseOpt = None,
    reaction_advantage: ReactionAdvantageOpt = None,
    ruleset: Ruleset = "standard",
    catalog: Catalogs = None,
    seed: Seed = 1,
    dice: Dice = None,
    json_out: Json = False,
) -> None:
    """Resolve one physical attack."""
    setup = build_attack_setup(locals())
    if dice is not None:
        result = attack_with_dice(setup, attack_dice(dice, precision))
    else:
        result = roll_attack(setup, _seed(seed))
    emit(attack_dict(result), render.attack_text(result), json_out, None if dice else seed)


CAST_HELP = """\
Resolve one casting roll (S-8), or with --combined a combined attack (S-9): the caster's weapon
and the power ride on one hit d100, the physical portion against AC, the spirit portion against
Resistance.

A cast's dice: cast=57 (the casting d100), reaction=14 (the Block d20 against a blockable
power), damage=4,2 (the power's damage dice).
"""


@app.command(help=CAST_HELP + "\nA combined attack's dice:\n\n" + DICE_HELP)
def cast(
    caster: Model,
    target: Model,
    power: Annotated[str, typer.Option(help="The power's name.")] = "Power",
    element: Annotated[
        str, typer.Option(help="arcane, fire, frost, lightning, shadow, light, wild or poison.")
    ] = "arcane",
    power_damage: Annotated[
        str | None, typer.Option(help="The power's damage dice, e.g. 2d6 (none: no damage).")
    ] = None,
    blockable: Annotated[
        bool, typer.Option("--blockable", help="A Missile-type power that can be blocked.")
    ] = False,
    dodge_allowed: Annotated[
        bool, typer.Option("--dodge-allowed", help="Dodge adds to Resistance (Missile-type).")
    ] = False,
    spell_power: Annotated[
        int, typer.Option(help="This target's spell-power share (S-15), added to damage.")
    ] = 0,
    modifier: Annotated[
        list[int] | None,
        typer.Option("--modifier", metavar="N", help="A casting-roll modifier (repeatable)."),
    ] = None,
    damage_bonus: Annotated[
        list[int] | None,
        typer.Option(
            "--damage-bonus", metavar="N", help="A flat bonus to the power's damage (repeatable)."
        ),
    ] = None,
    no_resist: Annotated[
        bool, typer.Option("--no-resist", help="The target does not resist (SA-4).")
    ] = False,
    resistance: Annotated[
        int | None, typer.Option(help="Target's Resistance to the element (default: sheet).")
    ] = None,
    dodge: Annotated[int | None, typer.Option(help="Target's Dodge (default: sheet).")] = None,
    crit: Annotated[int | None, typer.Option(help="Caster's cast crit chance in %.")] = None,
    miscast: Annotated[int | None, typer.Option(help="Caster's miscast range 1..N.")] = None,
    caster_submerged: Annotated[
        bool, typer.Option("--caster-submerged", help="Fully submerged caster (S-16).")
    ] = False,
    target_submerged: Annotated[
        bool, typer.Option("--target-submerged", help="Fully submerged target (S-16).")
    ] = False,
    combined: Annotated[
        bool, typer.Option("--combined", help="A combined attack with the caster's weapon (S-9).")
    ] = False,
    weapon: Annotated[
        str | None, typer.Option(help="--combined: the weapon (default: the main hand).")
    ] = None,
    precision: Annotated[
        bool, typer.Option("--precision", help="--combined: a Precision Attack.")
    ] = False,
    hit_modifier: Annotated[
        list[int] | None,
        typer.Option("--hit-modifier", metavar="N", help="--combined: a physical to-hit modifier."),
    ] = None,
    weapon_damage_bonus: Annotated[
        list[int] | None,
        typer.Option(
            "--weapon-damage-bonus", metavar="N", help="--combined: a flat physical damage bonus."
        ),
    ] = None,
    ac: Annotated[
        int | None, typer.Option(help="--combined: target's AC (default: with armour).")
    ] = None,
    weapon_crit: Annotated[
        int | None, typer.Option(help="--combined: the physical portion's crit chance in %.")
    ] = None,
    moved: MovedOpt = 0,
    flying: FlyingOpt = False,
    thrown: ThrownOpt = False,
    underwater: UnderwaterOpt = False,
    other_hand: OtherHandOpt = None,
    dual_wielding: DualOpt = False,
    distance: DistanceOpt = None,
    reaction: ReactionOpt = None,
    shield: ShieldOpt = None,
    reaction_weapon: ReactionWeaponOpt = None,
    reaction_off_weapon: ReactionOffOpt = None,
    item: ItemOpt = None,
    item_size: ItemSizeOpt = None,
    reaction_use: ReactionUseOpt = None,
    reaction_advantage: ReactionAdvantageOpt = None,
    ruleset: Ruleset = "standard",
    catalog: Catalogs = None,
    seed: Seed = 1,
    dice: Dice = None,
    json_out: Json = False,
) -> None:
    """Resolve one cast or combined attack."""
    catalogue = load_catalog(catalog)
    catalogue, caster_sheet = find_model(catalogue, caster)
    catalogue, target_sheet = find_model(catalogue, target)
    _non_negative(spell_power, "--spell-power")
    chosen = parse_element(element)
    the_power = Power(power, chosen, power_damage, blockable, dodge_allowed)
    if resistance is not None:
        _non_negative(resistance, "--resistance")
        target_sheet = with_values(
            target_sheet, resistances={**target_sheet.resistances, chosen: resistance}
        )
    target_sheet = with_values(target_sheet, dodge=_percent(dodge, "--dodge"))
    choice = ReactionChoice(reaction, shield, reaction_weapon, reaction_off_weapon, item,
                            item_size, reaction_use, tuple(reaction_advantage or ()))  # fmt: skip
    rules = parse_ruleset(ruleset)
    if not combined:
        _refuse_physical(
            weapon=weapon, precision=precision or None, hit_modifier=hit_modifier,
            weapon_damage_bonus=weapon_damage_bonus, ac=ac, weapon_crit=weapon_crit,
            moved=moved or None, flying=flying or None, thrown=thrown or None,
            underwater=underwater or None, other_hand=other_hand,
            dual_wielding=dual_wielding or None, distance=distance,
        )  # fmt: skip
        caster_sheet = with_values(
            caster_sheet,
            cast_crit_chance=_percent(crit, "--crit"),
            miscast_chance=_percent(miscast, "--miscast"),
        )
        setup = CastSetup(
            caster=caster_sheet, target=target_sheet, power=the_power,
            modifiers=labelled(modifier, "modifier"), spell_power=spell_power,
            damage_bonuses=labelled(damage_bonus, "damage bonus"), resists=not no_resist,
            caster_submerged=caster_submerged, target_submerged=target_submerged,
            reaction=build_reaction(choice, catalogue, target_sheet), ruleset=rules,
        )  # fmt: skip
        result = cast_with_dice(setup, cast_dice(dice)) if dice else roll_cast(setup, _seed(seed))
        emit(cast_dict(result), render.cast_text(result), json_out, None if dice else seed)
        return
    if damage_bonus or caster_submerged or target_submerged:
        raise InputError(
            "--damage-bonus, --caster-submerged and --target-submerged belong to a plain cast; "
            "a combined attack takes --weapon-damage-bonus and --spell-power."
        )
    if dodge_allowed or blockable:
        raise InputError(
            "--dodge-allowed and --blockable belong to a plain cast; in a combined attack Dodge "
            "and the reaction are judged by the physical portion (SA-5, SA-18)."
        )
    target_ac = defender_ac(catalogue, target_sheet, ac)
    caster_sheet = with_values(caster_sheet, crit_chance=_percent(weapon_crit, "--weapon-crit"))
    used = held_weapon(catalogue, caster_sheet, weapon, "main")
    attack_setup = AttackSetup(
        attacker=caster_sheet, defender=target_sheet, weapon=used,
        context=penalty_context(catalogue, caster_sheet, used, moved, flying, thrown, underwater,
                                other_hand, dual_wielding),
        precision=precision, hit_modifiers=labelled(hit_modifier, "modifier"),
        damage_bonuses=labelled(weapon_damage_bonus, "damage bonus"), defender_ac=target_ac,
        reaction=build_reaction(choice, catalogue, target_sheet), ruleset=rules,
    )  # fmt: skip
    check_distance(attack_setup, check_attack(attack_setup), distance)
    spirit = SpiritPortion(
        the_power, labelled(modifier, "modifier"), spell_power,
        _percent(crit, "--crit"), _percent(miscast, "--miscast"),
    )  # fmt: skip
    combined_setup = CombinedSetup(attack_setup, spirit, resists=not no_resist)
    outcome = (
        combined_with_dice(combined_setup, combined_dice(dice, precision))
        if dice
        else roll_combined(combined_setup, _seed(seed))
    )
    emit(combined_dict(outcome), render.combined_text(outcome), json_out, None if dice else seed)


def _refuse_physical(**given: Any) -> None:
    for name, value in given.items():
        if value:
            option = "--" + name.replace("_", "-")
            raise InputError(f"{option} belongs to a combined attack; add --combined.")


def stat_part(text: str | None, sheet: Combatant | None, option: str) -> Part:
    """A stat as a number, or named (STR, AGIL, INT, WIS, STAM, INIT) and read from a sheet."""
    if text is None:
        raise InputError(f"Give {option}: a number, or a stat name read from a model.")
    cleaned = text.strip()
    if re.fullmatch(r"[+-]?\d+", cleaned):
        if len(cleaned.lstrip("+-")) > NUMBER_DIGITS_MAX or abs(int(cleaned)) > STAT_MAX:
            raise InputError(f"{option} is a stat of at most {STAT_MAX}, got {shown(cleaned)}.")
        return Part("stat", int(cleaned))
    stat = _STAT_ALIASES.get(cleaned.lower())
    if stat is None:
        raise InputError(
            f"{option} is a number or one of STR, AGIL, INT, WIS, STAM, INIT, not {text!r}."
        )
    if sheet is None:
        raise InputError(f"{option} {stat.value} needs a model to read it from, or give a number.")
    label = "Initiative" if stat == Stat.INIT else stat.value
    return Part(f"{label} ({sheet.name})", sheet.stat(stat))


TEST_HELP = """\
Roll a stat test (S-1): 1d20 + stat + advantage − disadvantage, success above 20; a natural 1
always fails, a natural 20 always succeeds.

Dice: --dice 14 (or d20=14).
"""


@app.command("test", help=TEST_HELP)
def test_cmd(
    model: Annotated[
        str | None, typer.Argument(help="A character or monster whose stat is tested.")
    ] = None,
    stat: Annotated[
        str | None,
        typer.Option(help="A number, or STR, AGIL, INT, WIS, STAM or INIT read from MODEL."),
    ] = None,
    advantage: Annotated[
        list[int] | None,
        typer.Option("--advantage", metavar="N", help="An advantage (repeatable)."),
    ] = None,
    disadvantage: Annotated[
        list[int] | None,
        typer.Option("--disadvantage", metavar="N", help="A disadvantage (repeatable)."),
    ] = None,
    catalog: Catalogs = None,
    seed: Seed = 1,
    dice: Dice = None,
    json_out: Json = False,
) -> None:
    """Roll a stat test."""
    sheet = None
    if model is not None:
        _, sheet = find_model(load_catalog(catalog), model)
    value = stat_part(stat, sheet, "--stat")
    parts = advantages(advantage, disadvantage)
    if dice is not None:
        faces = parse_stage_dice(dice, ("d20",), "a stat test")
        natural = faces.exactly("", 1, "one d20") or faces.exactly("d20", 1, "one d20")
        if natural is None or len(faces.faces) != 1:
            raise InputError("--dice for a stat test is its one d20, e.g. '14' or 'd20=14'.")
        result = stat_test_with_natural(natural[0], value, parts)
    else:
        result = stat_test(_seed(seed), value, parts)
    emit(stat_test_dict(result), render.stat_test_text(result), json_out, None if dice else seed)


ROLLOFF_HELP = """\
Roll a stat roll-off (S-2): both sides roll 1d20 + stat + advantage; the capped creature-size
difference goes to the larger side (S-20); the higher total wins and a tie goes to the acting
side.

Dice: --dice 12,9 (acting side first) or "acting=12 opposing=9".
"""


@app.command(help=ROLLOFF_HELP)
def rolloff(
    acting: Annotated[str | None, typer.Argument(help="The acting side's model.")] = None,
    opposing: Annotated[str | None, typer.Argument(help="The opposing side's model.")] = None,
    stat: Annotated[
        str | None, typer.Option(help="The stat both sides roll (name or number).")
    ] = None,
    acting_stat: Annotated[
        str | None, typer.Option(help="The acting side's stat (number or name).")
    ] = None,
    opposing_stat: Annotated[
        str | None, typer.Option(help="The opposing side's stat (number or name).")
    ] = None,
    acting_advantage: Numbers = None,
    acting_disadvantage: Numbers = None,
    opposing_advantage: Numbers = None,
    opposing_disadvantage: Numbers = None,
    acting_size: Annotated[
        str | None, typer.Option(help="micro … colossal (default: the model's, else medium).")
    ] = None,
    opposing_size: Annotated[
        str | None, typer.Option(help="micro … colossal (default: the model's, else medium).")
    ] = None,
    ruleset: Ruleset = "standard",
    catalog: Catalogs = None,
    seed: Seed = 1,
    dice: Dice = None,
    json_out: Json = False,
) -> None:
    """Roll a stat roll-off."""
    catalogue = load_catalog(catalog)
    sides = []
    for role, name, own_stat, adv, dis, size in (
        ("acting", acting, acting_stat, acting_advantage, acting_disadvantage, acting_size),
        ("opposing", opposing, opposing_stat, opposing_advantage, opposing_disadvantage,
         opposing_size),
    ):  # fmt: skip
        sheet = None
        if name is not None:
            catalogue, sheet = find_model(catalogue, name)
        if own_stat is not None and stat is not None:
            raise InputError(f"Give either --stat or --{role}-stat, not both.")
        value = stat_part(own_stat or stat, sheet, f"--{role}-stat")
        creature = (
            parse_creature_size(size, f"--{role}-size")
            if size is not None
            else (sheet.size if sheet is not None else CreatureSize.MEDIUM)
        )
        label = sheet.name if sheet is not None else role
        sides.append(Contestant(label, value, advantages(adv, dis, f"{role}-"), creature))
    rules = parse_ruleset(ruleset)
    if dice is not None:
        result = roll_off_with_naturals(sides[0], sides[1], _rolloff_naturals(dice), rules)
    else:
        result = roll_off(_seed(seed), sides[0], sides[1], rules)
    emit(roll_off_dict(result), render.roll_off_text(result), json_out, None if dice else seed)


def _rolloff_naturals(text: str) -> tuple[int, int]:
    dice = parse_stage_dice(text, ("acting", "opposing"), "a roll-off")
    if "" in dice.faces:
        if len(dice.faces) != 1:
            raise InputError("--dice for a roll-off is either '12,9' or 'acting=12 opposing=9'.")
        bare = dice.exactly("", 2, "the acting side's d20, then the opposing side's")
        return _pair(bare) or (0, 0)
    first = _single(dice.exactly("acting", 1, "the acting side's d20"))
    second = _single(dice.exactly("opposing", 1, "the opposing side's d20"))
    if first is None or second is None:
        raise InputError("--dice for a roll-off needs both d20s: 'acting=12 opposing=9'.")
    return first, second
