"""``tableside war …``: a stored, undoable Allies of Majesty War."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_args

import typer

from tableside.cli import encounter_cmds
from tableside.cli.balance import ADDING, add_and_balance
from tableside.cli.encounter_cmds import EncounterKind
from tableside.cli.options import (
    Db,
    Dice,
    EncounterId,
    Json,
    Revision,
    Step,
    step_command,
    with_options,
)
from tableside.encounter.war.names import EffectName, HostField
from tableside.majesty.adjust import AdjustMode

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from rich.console import RenderableType

    from tableside.encounter.log import LogRecord

app = typer.Typer(
    help="A stored War: add combatants, Strike, Move, next Turn, undo/redo, log, export.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


EFFECTS = ", ".join(get_args(EffectName))
HOST_FIELDS = ", ".join(get_args(HostField))


def war_view(state: Any, revision: int) -> RenderableType:
    """The War's tables (the order of play and the combatants)."""
    from tableside.cli.war_render import war_view

    return war_view(state, revision)


def state_json(state: Any, revision: int) -> dict[str, Any]:
    """The War's state as ``--json`` prints it."""
    from tableside.encounter.views import state_json

    return state_json(state, revision)


WAR = EncounterKind("majesty-war", "War", war_view, state_json)
run = encounter_cmds.runner(WAR)


@app.command()
@with_options(*ADDING)
def add(
    encounter_id: EncounterId,
    character: Annotated[Path, typer.Option(help="Character JSON file.")],
    id: Annotated[
        str | None, typer.Option("--id", help="Combatant id (default: the name).")
    ] = None,
    at: Annotated[str, typer.Option(help="Position x,y,z in inches.")] = "0,0,0",
    **given: Any,
) -> None:
    """Add a combatant from a character file (also mid-War)."""
    from tableside.cli.parsing import parse_point
    from tableside.cli.sources import read_json

    doc = read_json(character, "character")
    combatant = id or str(doc.get("name", "")).replace(" ", "_")
    add_and_balance(run, encounter_id, given, id=combatant, character=doc,
                    position=list(parse_point(at, "--at")))  # fmt: skip


@app.command()
def strike(
    encounter_id: EncounterId,
    striker: Annotated[str, typer.Argument(help="Striker's combatant id.")],
    defender: Annotated[str, typer.Argument(help="Defender's combatant id.")],
    weapon: Annotated[str | None, typer.Option(help="Weapon (default: the sheet's).")] = None,
    maneuver: Annotated[list[str] | None, typer.Option(help="Maneuver (repeatable).")] = None,
    ranged: Annotated[bool, typer.Option("--ranged")] = False,
    path: Annotated[
        str | None, typer.Option(help='Movement during the Strike "x,y,z;x,y,z".')
    ] = None,
    two_ap: Annotated[bool, typer.Option("--two-ap")] = False,
    full_defensive_stance: Annotated[bool, typer.Option("--full-defensive-stance")] = False,
    boon: int = 0,
    bane: int = 0,
    wear_flat: int = 0,
    wear_percent: int = 0,
    ignore_stops: int = 0,
    striker_adjustments: int = 0,
    defender_adjustments: int = 0,
    inspiration: int = 0,
    obstruction: int = 0,
    superiority: int = 0,
    mode: AdjustMode = AdjustMode.BEST,
    adjust: Annotated[
        str | None,
        typer.Option(
            help='Explicit Adjustments with --mode explicit, e.g. "3+,5-,defender:2-" (dice from '
            "1)."
        ),
    ] = None,
    with_grappled: Annotated[
        str | None,
        typer.Option(
            "--with-grappled",
            help="Strike with this elohim the Striker Grapples as the weapon (80 more Might, "
            "M-37).",
        ),
    ] = None,
    interpose: Annotated[
        list[str] | None,
        typer.Option(
            help="An eligible elohim in Defensive Stance that offers to take the Strike "
            "(repeatable; M-16, D-13): it makes its Control Check, and on a pass is struck.",
        ),
    ] = None,
    dice: Dice = None,
    db: Db = None,
    revision: Revision = None,
    json_out: Json = False,
) -> None:
    """A Strike between two combatants, applying everything it produces.

    With --two-ap on the one the Striker Grapples, the Grappler's Strike: a Might vs Might Check
    that keeps the Grapple (M-37).
    """
    from tableside.cli.parsing import parse_path

    waypoints = [list(p) for p in parse_path(path)] if path else None
    steps = explicit_steps(adjust, mode)
    run_strike(db, encounter_id, revision, json_out, dice, striker=striker, defender=defender,
        weapon=weapon, maneuvers=maneuver or None, ranged=ranged or None, path=waypoints,
        two_ap=two_ap or None, full_defensive_stance=full_defensive_stance or None,
        boon=boon or None, bane=bane or None, wear_flat=wear_flat or None,
        wear_percent=wear_percent or None, ignore_stops=ignore_stops or None,
        striker_adjustments=striker_adjustments or None,
        defender_adjustments=defender_adjustments or None, inspiration=inspiration or None,
        obstruction=obstruction or None, superiority=superiority or None,
        mode=None if mode == AdjustMode.BEST else mode.value, body=with_grappled,
        steps=steps, interpose={c: True for c in interpose} if interpose else None)  # fmt: skip


def explicit_steps(adjust: str | None, mode: AdjustMode) -> list[dict[str, Any]] | None:
    """--adjust "3+,5-,defender:2-" as the strike command's explicit Adjustments (M-12)."""
    from tableside.cli.parsing import InputError, parse_steps

    if adjust is None:
        return None
    if mode != AdjustMode.EXPLICIT:
        raise InputError("--adjust names Adjustments; give --mode explicit with it.")
    sides = {"striker": "striker", "roller": "striker", "defender": "defender",
             "opponent": "defender"}  # fmt: skip
    return [
        {"die": s.die, "delta": s.delta, "side": None if s.side is None else sides[s.side.value]}
        for s in parse_steps(adjust)
    ]


def run_strike(db: str | None, encounter_id: int, revision: int | None, as_json: bool,
               dice: str | None, /, **args: Any) -> None:  # fmt: skip
    """Run a strike; print one plain sentence, the full breakdown, then the events and state."""
    from tableside import service
    from tableside.cli.decide_cmds import asker_for, seats_of
    from tableside.cli.parsing import parse_dice

    with encounter_cmds.opened_log(db, encounter_id) as store:
        command = service.command("strike", None if dice is None else parse_dice(dice), **args)
        encounter = service.open_encounter(store, encounter_id, WAR.game)
        before = encounter.state
        record = encounter.execute(command, revision, asker=asker_for(store, encounter_id))
        store.append(encounter_id, record)
        seats = seats_of(store, encounter_id) if encounter.pending is not None else None
    if not as_json and record.events:
        print_strike(encounter.game, before, record)
    encounter_cmds.report(WAR, encounter, record, as_json, seats)


def print_strike(game: Any, before: Any, record: LogRecord) -> None:
    """The plain sentence and the same breakdown as ``majesty strike`` (or the Might Check)."""
    from tableside.cli import render
    from tableside.cli.war_render import strike_sentence
    from tableside.encounter.war.strike import strike_breakdown
    from tableside.majesty.checks import CheckResult
    from tableside.majesty.report import check_dict, strike_dict

    struck = [e for e in record.events if e.kind == "strike_resolved"]  # after any interposing
    checks = [e for e in record.events if e.kind == "check_resolved"]
    event = (struck or checks)[0]
    if record.command is None:
        return
    target = event.data.get("defender") if struck else None
    result = strike_breakdown(
        game, before, record.command.args, tuple(event.data["result"]["rolled"]), target
    )
    console = encounter_cmds.wide_console()
    console.print(strike_sentence(record), markup=False)
    if isinstance(result, CheckResult):
        same = check_dict(result) == event.data["result"]
        shown = render.check_text(result)
    else:
        same = strike_dict(result) == event.data["result"]
        shown = render.strike_text(result)
    if same:  # the breakdown is the recorded result's, never a different one
        console.print(shown)


@step_command(app, run)
def remove(
    encounter_id: EncounterId,
    who: Annotated[str, typer.Argument(help="Combatant id.")],
) -> Step:
    """Remove a combatant from the War; its remaining Turns this Cycle are skipped (A-28)."""
    return "remove", {"id": who}


@step_command(app, run)
def dominion(
    encounter_id: EncounterId,
    name: Annotated[str, typer.Argument(help="The Dominion's name.")],
    at: Annotated[str, typer.Option(help="Its centre x,y,z in inches.")] = "0,0,0",
    radius: Annotated[float, typer.Option(help="Its radius in inches.")] = 1.0,
    off: Annotated[bool, typer.Option("--off", help="The Dominion ends.")] = False,
) -> Step:
    """Raise (or move, or with --off end) a Spiritual Dominion: Strikes cannot pass it (M-15)."""
    from tableside.cli.parsing import parse_point

    return "dominion", {
        "id": name,
        "center": list(parse_point(at, "--at")),
        "radius": radius,
        "on": not off,
    }


@step_command(app, run)
def barrier(
    encounter_id: EncounterId,
    name: Annotated[str, typer.Argument(help="The Barrier's name.")],
    at: Annotated[str, typer.Option(help="Its centre x,y,z in inches.")] = "0,0,0",
    radius: Annotated[float, typer.Option(help="Its radius in inches.")] = 1.0,
    resolve: Annotated[int, typer.Option(help="Its Resolve strength (used as Endurance).")] = 0,
    off: Annotated[bool, typer.Option("--off", help="The Barrier ends.")] = False,
) -> Step:
    """Raise (or move, or with --off end) a Barrier: Knock Back collides with it (M-35, A-42)."""
    from tableside.cli.parsing import parse_point

    return "barrier", {
        "id": name,
        "center": list(parse_point(at, "--at")),
        "radius": radius,
        "resolve": resolve,
        "on": not off,
    }


@step_command(app, run)
def ruleset(
    encounter_id: EncounterId,
    name: Annotated[str, typer.Argument(help="standard or newer-full-stance.")],
) -> Step:
    """Choose this War's ruleset (newer-full-stance: Full Defensive Stance gives an Adjustment)."""
    return "ruleset", {"name": name}


@step_command(app, run)
def move(
    encounter_id: EncounterId,
    who: Annotated[str, typer.Argument(help="Combatant id.")],
    to: Annotated[str, typer.Option(help="Destination x,y,z.")],
) -> Step:
    """Move (1 AP per inch, 3D)."""
    from tableside.cli.parsing import parse_point

    return "move", {"id": who, "to": list(parse_point(to, "--to"))}


@step_command(app, run, "next")
def next_turn(encounter_id: EncounterId) -> Step:
    """End the current Turn and begin the next (a new Cycle when the order is done)."""
    return "next", {}


@step_command(app, run)
def stance(
    encounter_id: EncounterId,
    who: Annotated[str, typer.Argument(help="Combatant id.")],
    off: Annotated[bool, typer.Option("--off", help="Leave Defensive Stance.")] = False,
    full: Annotated[
        bool, typer.Option("--full", help="Full Defensive Stance, kept until it ends (M-17).")
    ] = False,
) -> Step:
    """Enter (or leave) Defensive Stance, or Full Defensive Stance with --full."""
    return "stance", {"id": who, "on": not off, "full": full or None}


@step_command(app, run)
def rest(
    encounter_id: EncounterId,
    who: Annotated[str, typer.Argument(help="Combatant id.")],
    ap: Annotated[int, typer.Option(help="AP to spend resting.")],
) -> Step:
    """Rest: 1 Exertion off per AP (M-4)."""
    return "rest", {"id": who, "ap": ap}


@step_command(app, run)
def ready(
    encounter_id: EncounterId,
    who: Annotated[str, typer.Argument(help="Combatant id.")],
    ap: Annotated[int, typer.Option(help="AP to hold.")],
    use: Annotated[list[str], typer.Option(help="A declared use (at most two).")],
) -> Step:
    """Stand Ready (M-41)."""
    return "stand_ready", {"id": who, "ap": ap, "uses": use}


@step_command(app, run)
def carry(
    encounter_id: EncounterId,
    who: Annotated[str, typer.Argument(help="Combatant id.")],
    ap: Annotated[int, typer.Option(help="AP to carry into the next Turn.")],
) -> Step:
    """Carry Over AP into the next Turn (M-41)."""
    return "carry_over", {"id": who, "ap": ap}


@step_command(app, run, "break-free", dice=True)
def break_free(
    encounter_id: EncounterId,
    who: Annotated[str, typer.Argument(help="Combatant id.")],
) -> Step:
    """Try to break free of a Grapple (3 AP, 3 Exertion, Might Check, M-37)."""
    return "break_free", {"id": who}


@step_command(app, run, dice=True)
def effect(
    encounter_id: EncounterId,
    who: Annotated[str, typer.Argument(help="Combatant id.")],
    name: Annotated[str, typer.Argument(help=f"One of: {EFFECTS}.")],
    amount: Annotated[
        float,
        typer.Option(
            help="F:#, Poison:#, inches of Knock Back, Wear, Exertion, or an Entangling source's "
            "strength (entangled)."
        ),
    ] = 1,
    by: Annotated[str | None, typer.Option(help="The elohim causing it.")] = None,
    source: Annotated[str, typer.Option(help="What causes it (shown in the log).")] = "host",
) -> Step:
    """Apply a special effect (M-34 … M-39)."""
    return "apply_effect", {"id": who, "effect": name, "amount": amount, "by": by, "source": source}


@step_command(app, run, "set")
def host_set(
    encounter_id: EncounterId,
    who: Annotated[str, typer.Argument(help="Combatant id.")],
    field: Annotated[str, typer.Argument(help=f"One of: {HOST_FIELDS}.")],
    value: Annotated[
        str,
        typer.Argument(help="New value: a whole number, x,y,z for position, on or off for stance."),
    ],
) -> Step:
    """The Host's manual adjustment of any value (logged)."""
    from tableside.cli.parsing import parse_point

    parsed: Any = list(parse_point(value, "value")) if "," in value else _number(value)
    return "host_set", {"id": who, "field": field, "value": parsed}


SWITCHES = {"on": 1, "off": 0, "true": 1, "false": 0, "yes": 1, "no": 0}


def _number(text: str) -> int:
    from tableside.cli.parsing import InputError

    if text.strip().lower() in SWITCHES:
        return SWITCHES[text.strip().lower()]
    try:
        return int(text)
    except ValueError:
        raise InputError(
            f"The value must be a whole number (or on/off), not {text[:40]!r}."
        ) from None


encounter_cmds.add_common(app, WAR)
