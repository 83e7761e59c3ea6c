"""``tableside strife attack | cast | test | rolloff``: one-shot Realm of Strife rolls.

Models are named from the built-in catalogue (``--catalog FILE`` extends it) or given as a sheet
file (an argument ending in ``.json``). Physical dice are typed in stage by stage (``--dice
"hit=37 reaction=14 damage=6,3 effects=55"``); every refusal is one sentence (exit code 2).
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Annotated, Any

import typer
from rich.console import Console, RenderableType

from tableside.cli import strife_render as render
from tableside.cli.options import Seed, with_options
from tableside.cli.output import print_json
from tableside.cli.parsing import InputError
from tableside.cli.strife_args import (
    advantages,
    attack_dice,
    cast_dice,
    combined_dice,
    face_pair,
    find_model,
    labelled,
    load_catalog,
    non_negative,
    parse_creature_size,
    parse_element,
    parse_ruleset,
    parse_stage_dice,
    percent,
    single_face,
    with_values,
)
from tableside.cli.strife_options import (
    ATTACK_OPTIONS,
    DICE_HELP,
    Catalogs,
    Dice,
    Json,
    Model,
    Numbers,
    Ruleset,
)
from tableside.cli.strife_setup import (
    ReactionChoice,
    build_attack_setup,
    build_reaction,
    check_distance,
    defender_ac,
    held_weapon,
    penalty_context,
)
from tableside.dice import SeededRng
from tableside.limits import NUMBER_DIGITS_MAX, STAT_MAX, shown
from tableside.strife.attack import (
    AttackSetup,
    attack_with_dice,
    check_attack,
    roll_attack,
)
from tableside.strife.casting import (
    CastSetup,
    CombinedSetup,
    Power,
    SpiritPortion,
    cast_with_dice,
    combined_with_dice,
    roll_cast,
    roll_combined,
)
from tableside.strife.catalog import (
    Combatant,
    Stat,
)
from tableside.strife.checks import (
    Contestant,
    roll_off,
    roll_off_with_naturals,
    stat_test,
    stat_test_with_natural,
)
from tableside.strife.records import Part
from tableside.strife.report import (
    attack_dict,
    cast_dict,
    combined_dict,
    roll_off_dict,
    stat_test_dict,
)
from tableside.strife.size import CreatureSize

app = typer.Typer(
    help="Realm of Strife: one-shot attacks, casts, stat tests and roll-offs.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_STAT_ALIASES = {s.value.lower(): s for s in Stat} | {
    "strength": Stat.STR, "agility": Stat.AGIL, "intellect": Stat.INT,
    "intelligence": Stat.INT, "wisdom": Stat.WIS, "stamina": Stat.STAM,
    "initiative": Stat.INIT,
}  # fmt: skip


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
    non_negative(seed, "--seed")
    return SeededRng(seed)


# --- commands ---------------------------------------------------------------------------------


@app.command(
    help="Resolve one physical attack (S-7, S-10 … S-16) with its breakdown.\n\n" + DICE_HELP
)
@with_options(*ATTACK_OPTIONS)
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
    **given: Any,
) -> None:
    """Resolve one physical attack."""
    setup = build_attack_setup({**locals(), **given})
    dice, seed, json_out = given["dice"], given["seed"], given["json_out"]
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
@with_options(*ATTACK_OPTIONS)
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
    **given: Any,
) -> None:
    """Resolve one cast or combined attack."""
    o = SimpleNamespace(**given)
    catalogue = load_catalog(o.catalog)
    catalogue, caster_sheet = find_model(catalogue, caster)
    catalogue, target_sheet = find_model(catalogue, target)
    non_negative(spell_power, "--spell-power")
    chosen = parse_element(element)
    the_power = Power(power, chosen, power_damage, blockable, dodge_allowed)
    if resistance is not None:
        non_negative(resistance, "--resistance")
        target_sheet = with_values(
            target_sheet, resistances={**target_sheet.resistances, chosen: resistance}
        )
    target_sheet = with_values(target_sheet, dodge=percent(dodge, "--dodge"))
    choice = ReactionChoice(o.reaction, o.shield, o.reaction_weapon, o.reaction_off_weapon,
                            o.item, o.item_size, o.reaction_use,
                            tuple(o.reaction_advantage or ()))  # fmt: skip
    rules = parse_ruleset(o.ruleset)
    if not combined:
        _refuse_physical(
            weapon=weapon, precision=precision or None, hit_modifier=hit_modifier,
            weapon_damage_bonus=weapon_damage_bonus, ac=ac, weapon_crit=weapon_crit,
            moved=o.moved or None, flying=o.flying or None, thrown=o.thrown or None,
            underwater=o.underwater or None, other_hand=o.other_hand,
            dual_wielding=o.dual_wielding or None, distance=o.distance,
        )  # fmt: skip
        caster_sheet = with_values(
            caster_sheet,
            cast_crit_chance=percent(crit, "--crit"),
            miscast_chance=percent(miscast, "--miscast"),
        )
        setup = CastSetup(
            caster=caster_sheet, target=target_sheet, power=the_power,
            modifiers=labelled(modifier, "modifier"), spell_power=spell_power,
            damage_bonuses=labelled(damage_bonus, "damage bonus"), resists=not no_resist,
            caster_submerged=caster_submerged, target_submerged=target_submerged,
            reaction=build_reaction(choice, catalogue, target_sheet), ruleset=rules,
        )  # fmt: skip
        result = (
            cast_with_dice(setup, cast_dice(o.dice)) if o.dice else roll_cast(setup, _seed(o.seed))
        )
        emit(cast_dict(result), render.cast_text(result), o.json_out, None if o.dice else o.seed)
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
    caster_sheet = with_values(caster_sheet, crit_chance=percent(weapon_crit, "--weapon-crit"))
    used = held_weapon(catalogue, caster_sheet, weapon, "main")
    attack_setup = AttackSetup(
        attacker=caster_sheet, defender=target_sheet, weapon=used,
        context=penalty_context(catalogue, caster_sheet, used, o.moved, o.flying, o.thrown,
                                o.underwater, o.other_hand, o.dual_wielding),
        precision=precision, hit_modifiers=labelled(hit_modifier, "modifier"),
        damage_bonuses=labelled(weapon_damage_bonus, "damage bonus"), defender_ac=target_ac,
        reaction=build_reaction(choice, catalogue, target_sheet), ruleset=rules,
    )  # fmt: skip
    check_distance(attack_setup, check_attack(attack_setup), o.distance)
    spirit = SpiritPortion(
        the_power, labelled(modifier, "modifier"), spell_power,
        percent(crit, "--crit"), percent(miscast, "--miscast"),
    )  # fmt: skip
    combined_setup = CombinedSetup(attack_setup, spirit, resists=not no_resist)
    outcome = (
        combined_with_dice(combined_setup, combined_dice(o.dice, precision))
        if o.dice
        else roll_combined(combined_setup, _seed(o.seed))
    )
    emit(
        combined_dict(outcome),
        render.combined_text(outcome),
        o.json_out,
        None if o.dice else o.seed,
    )


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
        return face_pair(bare) or (0, 0)
    first = single_face(dice.exactly("acting", 1, "the acting side's d20"))
    second = single_face(dice.exactly("opposing", 1, "the opposing side's d20"))
    if first is None or second is None:
        raise InputError("--dice for a roll-off needs both d20s: 'acting=12 opposing=9'.")
    return first, second
