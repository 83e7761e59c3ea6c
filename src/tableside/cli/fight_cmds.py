"""``tableside fight …``: a stored, undoable Realm of Strife combat."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tableside.cli import encounter_cmds
from tableside.cli.balance import ADDING_WITH_DICE, add_and_balance
from tableside.cli.encounter_cmds import EncounterKind
from tableside.cli.fight_render import fight_view
from tableside.cli.options import EncounterId, Step, step_command, with_options
from tableside.cli.parsing import InputError, parse_point
from tableside.cli.sources import read_json
from tableside.encounter.views import fight_json

app = typer.Typer(
    help="A stored Realm of Strife combat: add models, start (ambush), move, attack, react, undo.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
Who = Annotated[str, typer.Argument(help="Model id.")]
TakeReaction = Annotated[
    list[str] | None,
    typer.Option(help="MODEL=REACTION: a Reaction it sets off, taken (repeatable, SA-96)."),
]

FIGHT = EncounterKind("strife-combat", "Fight", fight_view, fight_json)
run = encounter_cmds.runner(FIGHT)


@app.command()
@with_options(*ADDING_WITH_DICE)
def add(
    encounter_id: EncounterId,
    id: Annotated[str, typer.Option("--id", help="Model id in this fight.")],
    side: Annotated[str, typer.Option(help="Side (faction) of the model.")],
    model: Annotated[
        str | None, typer.Option(help="A character or monster of the catalogue.")
    ] = None,
    sheet: Annotated[Path | None, typer.Option(help="A sheet JSON file instead.")] = None,
    at: Annotated[str, typer.Option(help="Position x,y,z in inches.")] = "0,0,0",
    hiding: Annotated[
        bool, typer.Option(help="Hiding declared before the fight: keeps its Stealth (S-22).")
    ] = False,
    perched: Annotated[
        bool | None,
        typer.Option(
            "--perched/--flying",
            help="Above the ground: stands there (a roof) or flies (default: flies only if its "
            "sheet can fly, SA-93).",
        ),
    ] = None,
    **given: Any,
) -> None:
    """Add a model; it rolls its Initiative Score as it joins (S-3)."""
    document = None if sheet is None else read_json(sheet, "sheet")
    add_and_balance(
        run,
        encounter_id,
        given,
        id=id,
        side=side,
        model=model,
        sheet=document,
        position=list(parse_point(at, "--at")),
        **({"hiding": True} if hiding else {}),
        **({} if perched is None else {"perched": perched}),
    )


@step_command(app, run, dice=True)
def start(
    encounter_id: EncounterId,
    ambush: Annotated[str | None, typer.Option(help="The side that ambushes (free round).")] = None,
) -> Step:
    """Start: Turn Order by Initiative Score, with an ambush round if any (S-3, S-4)."""
    return "start", {"ambush": ambush}


@step_command(app, run, "next")
def next_turn(encounter_id: EncounterId) -> Step:
    """End the current Turn and begin the next."""
    return "next", {}


def model_command(name: str, kind: str, doc: str) -> None:
    """Register ``fight <name>``: the command ``kind`` for one model, nothing more to say."""

    def command(encounter_id: EncounterId, who: Who) -> Step:
        return kind, {"id": who}

    command.__doc__ = doc
    command.__name__ = kind
    step_command(app, run, name)(command)


model_command("bottom", "bottom", "Go to the bottom of the queue (one per side per round, S-4).")


@step_command(app, run, dice=True)
def move(
    encounter_id: EncounterId,
    who: Who,
    to: Annotated[str, typer.Option(help="Destination x,y,z.")],
    mode: Annotated[str, typer.Option(help="walk, crawl, climb or swim.")] = "walk",
    difficult: Annotated[bool, typer.Option("--difficult", help="Difficult Terrain.")] = False,
    normal_speed: Annotated[
        bool,
        typer.Option("--normal-speed", help="Climb at normal speed after a Strength test."),
    ] = False,
    agility_test: Annotated[
        bool, typer.Option("--agility-test", help="A slippery climb: an Agility test first.")
    ] = False,
    current: Annotated[
        str, typer.Option(help="Swimming: none, with or against a significant current.")
    ] = "none",
) -> Step:
    """Move (S-6); leaving contact offers Attacks of Opportunity (S-18).

    Climbing and swimming take the tests the Combat page gives (SA-84 … SA-86).
    """
    return "move", {
        "id": who,
        "to": list(parse_point(to, "--to")),
        "mode": mode,
        "difficult": difficult or None,
        "normal_speed": normal_speed or None,
        "agility_test": agility_test or None,
        "current": None if current == "none" else current,
    }


@step_command(app, run, dice=True)
def attack(
    encounter_id: EncounterId,
    attacker: Who,
    target: Annotated[list[str], typer.Option(help="A target per attack (repeatable, S-17).")],
    weapon: Annotated[
        list[str] | None,
        typer.Option(
            help="The weapon of each attack in order (repeatable; default: the next weapon "
            "held, main hand first, SA-92)."
        ),
    ] = None,
    reaction: Annotated[
        str | None,
        typer.Option(
            help="The target's reaction: block, parry, combined_parry, block_and_parry, "
            "ward_off, improvised_block, improvised_parry."
        ),
    ] = None,
    reaction_item: Annotated[
        str | None,
        typer.Option(help="The improvised reaction's weapon held, or item (S-12)."),
    ] = None,
    reaction_item_size: Annotated[
        str | None, typer.Option(help="An improvised Block's item size: S, M, L or XL.")
    ] = None,
    power: Annotated[
        str | None,
        typer.Option(help="A combined power of the catalogue riding the attack (S-9)."),
    ] = None,
    combined_damage: Annotated[
        list[str] | None,
        typer.Option(help="Combined Damage: an element it also deals (repeatable, S-9)."),
    ] = None,
    precision: Annotated[bool, typer.Option("--precision")] = False,
    thrown: Annotated[
        bool, typer.Option("--thrown", help="Throw the weapon: a ranged attack (S-16, SA-69).")
    ] = False,
    shield_blow: Annotated[
        bool,
        typer.Option("--shield-blow", help="A Shield Blow: an attack with the shield (SA-73)."),
    ] = False,
    crushing_injury: Annotated[
        str | None,
        typer.Option(help="hand, arm or shoulder: crushed if the target Blocks a crit (SA-74)."),
    ] = None,
    situational: Annotated[
        list[str] | None,
        typer.Option(help="A named modifier, e.g. 'high ground=10' (repeatable, SA-75)."),
    ] = None,
    take_reaction: TakeReaction = None,
) -> Step:
    """The Action: one attack per --target, the first answered by --reaction; ends the Turn."""
    weapons = weapon or []
    if len(weapons) > len(target):
        raise InputError(
            f"--weapon is given {len(weapons)} times for {len(target)} --target(s); give at "
            "most one weapon per attack (SA-92)."
        )
    attacks = [
        {
            "defender": t,
            "weapon": weapons[i] if i < len(weapons) else None,
            "precision": precision or None,
            "thrown": thrown or None,
            "shield_blow": shield_blow or None,
            "crushing_injury": crushing_injury,
            "situational": named_modifiers(situational) or None,
            "reaction": reaction if i == 0 else None,
            "reaction_item": reaction_item if i == 0 else None,
            "reaction_item_size": reaction_item_size if i == 0 else None,
            "power": power if i == 0 else None,
            "combined_damage": combined_damage if i == 0 else None,
        }
        for i, t in enumerate(target)
    ]
    cleaned = [{k: v for k, v in a.items() if v is not None} for a in attacks]
    reactions = taken_reactions(take_reaction)
    return "attack", {
        "attacker": attacker,
        "attacks": cleaned,
        **({"reactions": reactions} if reactions else {}),
    }


def taken_reactions(given: list[str] | None) -> dict[str, str]:
    """``--take-reaction 'Aldric=Reversal'`` options as {model: Reaction} (SA-96); exit 2."""
    found: dict[str, str] = {}
    for text in given or ():
        model, sign, name = text.partition("=")
        if not sign or not model.strip() or not name.strip():
            raise InputError(
                f"--take-reaction {text!r} must be MODEL=REACTION, e.g. 'Aldric=Reversal'."
            )
        found[model.strip()] = name.strip()
    return found


def named_modifiers(given: list[str] | None) -> dict[str, int]:
    """``--situational 'cover=-20'`` options as {name: amount} (SA-75); bad ones exit 2."""
    from tableside.cli.strife_setup import named_modifiers as parse

    return parse(given)


@step_command(app, run, dice=True)
def cast(
    encounter_id: EncounterId,
    caster: Who,
    target: Annotated[list[str], typer.Option(help="A target (repeatable; one roll each).")],
    power: Annotated[str, typer.Option(help="A power of the catalogue, or a name typed by hand.")],
    element: Annotated[
        str | None, typer.Option(help="fire, frost, shadow, arcane, … (from the catalogue)")
    ] = None,
    damage: Annotated[str | None, typer.Option(help="Damage dice, e.g. 2d6.")] = None,
    spell_power: Annotated[
        int, typer.Option(help="Spell power shared among those hit (S-15).")
    ] = 0,
    separate_rolls: Annotated[bool, typer.Option("--separate-rolls")] = False,
    instant: Annotated[bool, typer.Option("--instant", help="An instant power.")] = False,
    cost: Annotated[int | None, typer.Option(help="Its cost (default: the catalogue's).")] = None,
    block: Annotated[
        list[str] | None,
        typer.Option(help="A target that Blocks a blockable power with its shield (repeatable)."),
    ] = None,
    resource: Annotated[
        str | None, typer.Option(help="Spirit, Faith, Focus … (default: the catalogue's).")
    ] = None,
    take_reaction: TakeReaction = None,
) -> Step:
    """Cast a power on one or more targets (S-8, S-15); catalogue powers by name (SA-60)."""
    return "cast", {
        "caster": caster,
        "targets": target,
        "power": power,
        "element": element,
        "damage": damage,
        "spell_power": spell_power or None,
        "separate_rolls": separate_rolls or None,
        "instant": instant or None,
        "cost": cost,
        "resource": resource,
        "blocks": {t: "block" for t in block} if block else None,
        "reactions": taken_reactions(take_reaction) or None,
    }


@step_command(app, run, dice=True)
def aoo(
    encounter_id: EncounterId,
    attacker: Who,
    target: Annotated[str, typer.Option(help="The disengaging model.")],
    weapon: Annotated[str, typer.Option(help="The weapon (each once per Turn).")],
) -> Step:
    """Take an Attack of Opportunity on offer (S-18)."""
    return "aoo", {"attacker": attacker, "target": target, "weapon": weapon}


@step_command(app, run, dice=True)
def impale(
    encounter_id: EncounterId,
    impaler: Who,
    target: Annotated[str, typer.Option(help="The model that just moved into melee range.")],
    weapon: Annotated[
        str | None, typer.Option(help="The Impale weapon (default: main hand).")
    ] = None,
    reaction: Annotated[
        str | None, typer.Option(help="The target's own reaction to the impaling attack.")
    ] = None,
) -> Step:
    """Impale a foe that just moved into melee range: Initiative test, then an attack (S-13)."""
    return "impale", {"impaler": impaler, "target": target, "weapon": weapon, "reaction": reaction}


@step_command(app, run)
def instant(
    encounter_id: EncounterId,
    who: Who,
    name: Annotated[str, typer.Option(help="What the instant is.")],
) -> Step:
    """An Instant (out of turn, it uses up the next Turn's, S-4)."""
    return "instant", {"id": who, "name": name}


@step_command(app, run, "whole-turn", dice=True)
def whole_turn(
    encounter_id: EncounterId,
    who: Who,
    kind: Annotated[str, typer.Option(help="recover, skill or sprint.")],
    to: Annotated[str | None, typer.Option(help="Sprint destination x,y,z.")] = None,
    skill: Annotated[str | None, typer.Option(help="The whole-turn skill's name.")] = None,
) -> Step:
    """A Whole Turn: Recover (+1 HP), a whole-turn skill, or Sprint (S-5)."""
    return "whole_turn", {
        "id": who,
        "kind": kind,
        "to": None if to is None else list(parse_point(to, "--to")),
        "skill": skill,
    }


@step_command(app, run)
def disengage(
    encounter_id: EncounterId,
    who: Who,
    to: Annotated[str, typer.Option(help="Destination x,y,z.")],
    difficult: Annotated[bool, typer.Option("--difficult", help="Difficult Terrain.")] = False,
) -> Step:
    """The Disengage Action: half Movement, no Attacks of Opportunity; ends the Turn (S-6)."""
    return "disengage", {
        "id": who,
        "to": list(parse_point(to, "--to")),
        "difficult": difficult or None,
    }


@step_command(app, run, "forced-move")
def forced_move(
    encounter_id: EncounterId,
    who: Who,
    kind: Annotated[str, typer.Option(help="knock_back, fear, taunt or mind_control.")],
    by: Annotated[str, typer.Option(help="The model whose blow, fear, taunt or control it is.")],
    to: Annotated[str, typer.Option(help="Where it is moved to, x,y,z.")],
    stopped_by: Annotated[
        str | None, typer.Option(help="wall or edge: the Host cut the move short there.")
    ] = None,
) -> Step:
    """Move a model against its will, at once: no Attacks of Opportunity (S-18, SA-70)."""
    return "forced_move", {
        "id": who,
        "kind": kind,
        "by": by,
        "to": list(parse_point(to, "--to")),
        "stopped_by": stopped_by,
    }


@step_command(app, run, "pick-up")
def pick_up(
    encounter_id: EncounterId,
    who: Who,
    weapon: Annotated[str, typer.Option(help="A weapon lying within base contact.")],
) -> Step:
    """Pick up a thrown weapon lying within base contact: the Turn's Instant (SA-72)."""
    return "pick_up", {"id": who, "weapon": weapon}


@step_command(app, run)
def water(
    encounter_id: EncounterId,
    who: Who,
    out: Annotated[bool, typer.Option("--out", help="Out of the water again.")] = False,
) -> Step:
    """The Host puts a model fully under water (or --out of it): the underwater rules (SA-76)."""
    return "water", {"id": who, "submerged": not out}


@step_command(app, run, "roll-with-the-blow")
def roll_with_the_blow(
    encounter_id: EncounterId,
    who: Who,
    to: Annotated[str, typer.Option(help="Where it rolls to, x,y,z.")],
) -> Step:
    """Roll with the Blow right after taking damage (S-19)."""
    return "roll_with_the_blow", {"id": who, "to": list(parse_point(to, "--to"))}


model_command(
    "hide",
    "hide",
    "Hide: an Action that ends the Turn (SA-41); before the start, declared hiding (SA-88).",
)


@step_command(app, run)
def condition(
    encounter_id: EncounterId,
    who: Who,
    name: Annotated[str, typer.Option(help="Stun, Vulnerable, Knocked Down, …")],
    rounds: Annotated[int | None, typer.Option(help="Rounds it lasts.")] = None,
    until: Annotated[str | None, typer.Option(help="Or the event that ends it.")] = None,
    source: Annotated[str, typer.Option(help="Who or what caused it.")] = "host",
) -> Step:
    """Put a condition on a model, with its duration and source (S-23)."""
    return "condition", {
        "id": who,
        "name": name,
        "rounds": rounds,
        "until": until,
        "source": source,
    }


@step_command(app, run, "end-combat")
def end_combat(
    encounter_id: EncounterId,
    wave: Annotated[bool, typer.Option("--wave", help="A wave fight.")] = False,
    battle_within_2_minutes: Annotated[
        bool,
        typer.Option(
            "--battle-within-2-minutes",
            help="Another battle follows within 2 minutes: Fury keeps its half (S-22, SA-89).",
        ),
    ] = False,
) -> Step:
    """End the combat: class resources per S-22 (Fury halves, and is lost unless kept)."""
    return "end_combat", {
        "wave": wave or None,
        "battle_within_2_minutes": battle_within_2_minutes or None,
    }


@step_command(app, run, dice=True)
def act(
    encounter_id: EncounterId,
    who: Who,
    kind: Annotated[
        str, typer.Option(help="full, roleplay (an Action), quick or roleplay_instant (Instant).")
    ],
    name: Annotated[str, typer.Option(help="What the model does.")],
    test: Annotated[
        str | None, typer.Option(help="The stat test asked for: STR, AGIL, INT, WIS, STAM, INIT.")
    ] = None,
    advantage: Annotated[int, typer.Option(help="The test's advantage (Host's).")] = 0,
    against: Annotated[
        str | None, typer.Option(help="A Role-play Action's roll-off opponent (S-2).")
    ] = None,
    against_stat: Annotated[
        str | None, typer.Option(help="The opponent's stat (default: the same).")
    ] = None,
) -> Step:
    """A Full or Role-play Action (ends the Turn), or a Quick Action / Role-play Instant (SA-80)."""
    return "act", {
        "id": who,
        "kind": kind,
        "name": name,
        "test": test,
        "advantage": advantage or None,
        "against": against,
        "against_stat": against_stat,
    }


@step_command(app, run, dice=True)
def react(
    encounter_id: EncounterId,
    who: Who,
    kind: Annotated[str, typer.Option(help="skill, roleplay or other.")],
    name: Annotated[str, typer.Option(help="The Reaction: Counterspell, a leap aside, ...")],
    trigger: Annotated[str | None, typer.Option(help="What triggered it.")] = None,
    test: Annotated[
        str | None, typer.Option(help="The stat test asked for: STR, AGIL, INT, WIS, STAM, INIT.")
    ] = None,
    advantage: Annotated[int, typer.Option(help="The test's advantage (Host's).")] = 0,
) -> Step:
    """A Skill, Role-play or other Reaction out of turn: the round's one Reaction (SA-82)."""
    return "react", {
        "id": who,
        "kind": kind,
        "name": name,
        "trigger": trigger,
        "test": test,
        "advantage": advantage or None,
    }


encounter_cmds.add_common(app, FIGHT)
