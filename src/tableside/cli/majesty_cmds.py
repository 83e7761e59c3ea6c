"""``tableside majesty strike | check | roll``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tableside.cli import render
from tableside.cli.options import Seed, Shared, with_options
from tableside.cli.output import emit
from tableside.cli.parsing import (
    InputError,
    parse_dice,
    parse_dominion,
    parse_path,
    parse_point,
    parse_steps,
)
from tableside.cli.sources import character, load_catalog, with_natural, with_overrides
from tableside.dice import SeededRng
from tableside.majesty.adjust import AdjustMode, Step
from tableside.majesty.character import Side
from tableside.majesty.checks import CheckKind, CheckSetup, check_with_dice, roll_check
from tableside.majesty.report import check_dict, strike_dict
from tableside.majesty.ruleset import RULESETS, Ruleset
from tableside.majesty.strike import (
    DefenderState,
    Placement,
    StrikeOptions,
    StrikeSetup,
    roll_strike,
    strike_with_dice,
)

app = typer.Typer(
    help="Allies of Majesty: Strikes, Checks and plain rolls.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

Dice = Annotated[
    str | None,
    typer.Option(
        help="Physical dice typed in, every die in the order rolled (Boon/Bane extras too)."
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print the result as JSON (docs/json.md).")]
Mode = Annotated[AdjustMode, typer.Option(help="Adjustment mode: best, none or explicit (M-13).")]
Adjust = Annotated[
    str | None, typer.Option(help='Explicit Adjustments, e.g. "3+,5-,defender:2-" (dice from 1).')
]
Boon = Annotated[int, typer.Option(help="Boon:# (M-7).")]
Bane = Annotated[int, typer.Option(help="Bane:# (M-7).")]
RulesetName = Annotated[str, typer.Option(help="Ruleset: standard or newer-full-stance.")]

# The options the three commands share, declared once, in the order ``--help`` lists them.
BOON_BANE: tuple[Shared, ...] = (("boon", Boon, 0), ("bane", Bane, 0))
ADJUSTING: tuple[Shared, ...] = (("mode", Mode, AdjustMode.BEST), ("adjust", Adjust, None))
ROLLING: tuple[Shared, ...] = (("seed", Seed, 1), ("dice", Dice, None), ("json_out", Json, False))


def _ruleset(name: str) -> Ruleset:
    found = RULESETS.get(name)
    if found is None:
        raise InputError(f"Unknown ruleset {name!r}; known rulesets: {', '.join(RULESETS)}.")
    return found


def _placement(
    distance: float | None, striker_at: str | None, defender_at: str | None,
    path: str | None, dominions: list[str],
) -> Placement | None:  # fmt: skip
    if distance is not None and distance < 0:
        raise InputError(f"--distance cannot be negative, got {distance:g}.")
    if striker_at is None and defender_at is None and path is None:
        if distance is None:
            return None if not dominions else Placement.at_distance(0)
        return Placement((((0.0, 0.0, 0.0)),), (distance, 0.0, 0.0), _dominions(dominions))
    start = parse_point(striker_at or "0,0,0", "--striker-at")
    target = (
        parse_point(defender_at, "--defender-at") if defender_at else (distance or 0.0, 0.0, 0.0)
    )
    waypoints = parse_path(path) if path else ()
    return Placement((start, *waypoints), target, _dominions(dominions))


def _dominions(texts: list[str]) -> tuple:  # type: ignore[type-arg]
    return tuple(parse_dominion(t) for t in texts)


def build_strike_setup(o: dict[str, Any], steps: tuple[Step, ...] = ()) -> StrikeSetup:
    """The StrikeSetup that ``majesty strike`` and ``odds strike`` build from their options."""
    catalogue = load_catalog(o["catalog"])
    attacker = character(
        o["striker"], o["striker_attributes"], "Striker", Side.HOLY, "--striker-attributes"
    )
    target = character(
        o["defender"], o["defender_attributes"], "Defender", Side.FALLEN, "--defender-attributes"
    )
    attacker = with_overrides(
        with_natural(attacker, passion=o["passion"]), precision=o["precision"], force=o["force"]
    )
    target = with_overrides(
        with_natural(target, resolve=o["resolve"]), guard=o["guard"], force=o["defender_force"]
    )
    return StrikeSetup(
        striker=attacker,
        defender=target,
        weapon=catalogue.weapon(o["weapon"] or attacker.weapon),
        defender_weapon=catalogue.weapon(o["defender_weapon"] or target.weapon),
        maneuvers=tuple(catalogue.maneuver(m) for m in o["maneuver"] or []),
        defender_state=DefenderState(
            o["defensive_stance"], o["full_defensive_stance"], o["grappled"], o["bound"],
            o["exposed"], o["surprised"],
        ),
        options=StrikeOptions(
            ranged=o["ranged"], two_ap=o["two_ap"], striker_in_stance=o["striker_stance"],
            boon=o["boon"], bane=o["bane"], wear_flat=o["wear_flat"],
            wear_percent=o["wear_percent"], ignore_stops=o["ignore_stops"],
            striker_adjustments=o["striker_adjustments"],
            defender_adjustments=o["defender_adjustments"], inspiration=o["inspiration"],
            obstruction=o["obstruction"], superiority=o["superiority"],
            twelve_effects_this_turn=o["twelves_this_turn"], mode=o["mode"], steps=steps,
        ),
        placement=_placement(
            o["distance"], o["striker_at"], o["defender_at"], o["path"], o["dominion"] or []
        ),
        ruleset=_ruleset(o["ruleset"]),
    )  # fmt: skip


def build_check_setup(o: dict[str, Any], steps: tuple[Step, ...] = ()) -> CheckSetup:
    """The CheckSetup that ``majesty check`` and ``odds check`` build from their options."""
    kind = o["kind"]
    return CheckSetup(
        kind=kind,
        factor=_factor(kind, o["attribute"], o["factor"], "--attribute or --factor"),
        opposing=_opposing(kind, o["against"], o["against_factor"], o["allotment"], o["song_spp"]),
        difficulty=o["difficulty"], raw_for=o["raw_for"], raw_against=o["raw_against"],
        inspiration=o["inspiration"], obstruction=o["obstruction"], boon=o["boon"],
        bane=o["bane"], mode=o["mode"], steps=steps,
    )  # fmt: skip


@app.command()
@with_options(*ADJUSTING, ("ruleset", RulesetName, "standard"), *ROLLING)
def strike(
    striker: Annotated[Path | None, typer.Option(help="Striker's character JSON file.")] = None,
    defender: Annotated[Path | None, typer.Option(help="Defender's character JSON file.")] = None,
    striker_attributes: Annotated[
        str | None,
        typer.Option(help="Striker's Might,Swiftness,Control,Endurance,Resolve,Passion."),
    ] = None,
    defender_attributes: Annotated[
        str | None, typer.Option(help="Defender's six Basic Attributes.")
    ] = None,
    precision: Annotated[
        int | None, typer.Option(help="Striker's Precision, given directly.")
    ] = None,
    force: Annotated[int | None, typer.Option(help="Striker's Force, given directly.")] = None,
    guard: Annotated[int | None, typer.Option(help="Defender's Guard, given directly.")] = None,
    defender_force: Annotated[
        int | None, typer.Option(help="Defender's Force (Defensive Hits).")
    ] = None,
    passion: Annotated[int | None, typer.Option(help="Striker's natural Passion.")] = None,
    resolve: Annotated[int | None, typer.Option(help="Defender's natural Resolve.")] = None,
    weapon: Annotated[
        str | None, typer.Option(help="Striker's weapon (default: from the sheet).")
    ] = None,
    defender_weapon: Annotated[
        str | None, typer.Option(help="Defender's weapon (Wear kind of Defensive Hits).")
    ] = None,
    maneuver: Annotated[
        list[str] | None, typer.Option(help="A Maneuver by name (repeatable).")
    ] = None,
    catalog: Annotated[
        Path | None, typer.Option(help="Extra weapons/Maneuvers catalogue JSON.")
    ] = None,
    ranged: Annotated[bool, typer.Option("--ranged", help="A Ranged Strike (M-27).")] = False,
    distance: Annotated[
        float | None, typer.Option(help="Distance to the Defender in inches.")
    ] = None,
    striker_at: Annotated[str | None, typer.Option(help="Striker's position x,y,z.")] = None,
    defender_at: Annotated[str | None, typer.Option(help="Defender's position x,y,z.")] = None,
    path: Annotated[
        str | None, typer.Option(help='Waypoints of the movement during the Strike "x,y,z;x,y,z".')
    ] = None,
    dominion: Annotated[
        list[str] | None, typer.Option(help="A Spiritual Dominion x,y,z,radius (repeatable).")
    ] = None,
    two_ap: Annotated[
        bool, typer.Option("--two-ap", help='A 2-AP Strike with 1" of movement (M-14).')
    ] = False,
    striker_stance: Annotated[
        bool, typer.Option("--striker-stance", help="Striker is in Defensive Stance (+1 AP).")
    ] = False,
    boon: Boon = 0,
    bane: Bane = 0,
    surprised: Annotated[
        bool, typer.Option("--surprised", help="Defender Surprised by this Striker (M-19).")
    ] = False,
    exposed: Annotated[bool, typer.Option("--exposed", help="Defender Exposed (M-19).")] = False,
    defensive_stance: Annotated[
        bool, typer.Option("--defensive-stance", help="Defender in Defensive Stance (+3 Guard).")
    ] = False,
    full_defensive_stance: Annotated[
        bool, typer.Option("--full-defensive-stance", help="Defender in Full Defensive Stance.")
    ] = False,
    grappled: Annotated[
        bool, typer.Option("--grappled", help="Defender Grappled or Entangled (Guard halved).")
    ] = False,
    bound: Annotated[
        bool, typer.Option("--bound", help="Defender Bound: Guard 0 and Exposed (M-36).")
    ] = False,
    wear_flat: Annotated[int, typer.Option(help='Flat "# Wear" (M-26).')] = 0,
    wear_percent: Annotated[int, typer.Option(help="% Wear (M-26).")] = 0,
    ignore_stops: Annotated[int, typer.Option(help="Ignore N Stops (M-20).")] = 0,
    striker_adjustments: Annotated[
        int, typer.Option(help="Raw Adjustments for the Striker (M-11).")
    ] = 0,
    defender_adjustments: Annotated[
        int, typer.Option(help="Raw Adjustments for the Defender (M-11).")
    ] = 0,
    inspiration: Annotated[int, typer.Option(help="Striker's Inspiration tokens (M-11).")] = 0,
    obstruction: Annotated[int, typer.Option(help="Defender's Obstruction tokens (M-11).")] = 0,
    superiority: Annotated[int, typer.Option(help="Melee Influence superiority (M-29).")] = 0,
    twelves_this_turn: Annotated[
        int, typer.Option(help="12 Effects the weapon already fired this Turn.")
    ] = 0,
    **given: Any,
) -> None:
    """Resolve one Strike with its full breakdown."""
    setup = build_strike_setup({**locals(), **given}, _steps(given))
    dice, seed = given["dice"], given["seed"]
    if dice is not None:
        result = strike_with_dice(setup, parse_dice(dice))
    else:
        result = roll_strike(setup, SeededRng(seed))
    emit(strike_dict(result), render.strike_text(result), given["json_out"], None if dice else seed)


@app.command()
@with_options(*BOON_BANE, *ADJUSTING, *ROLLING)
def check(
    kind: Annotated[
        CheckKind, typer.Option(help="attribute, resist, perception or social.")
    ] = CheckKind.ATTRIBUTE,
    attribute: Annotated[
        int | None, typer.Option(help="Roller's attribute (Factor Value = // 10, M-30).")
    ] = None,
    factor: Annotated[
        int | None,
        typer.Option(
            help="Roller's Factor Value given directly; for interactions, Adjustments for."
        ),
    ] = None,
    against: Annotated[int | None, typer.Option(help="Opposing attribute (opposed Check).")] = None,
    against_factor: Annotated[
        int | None,
        typer.Option(help="Opposing Factor Value; for interactions, Adjustments against."),
    ] = None,
    allotment: Annotated[
        int | None, typer.Option(help="Resist: the Spiritual Effect's Allotment (// 10).")
    ] = None,
    song_spp: Annotated[
        int | None, typer.Option(help="Resist: the Song's SPP (Factor 2 × SPP).")
    ] = None,
    difficulty: Annotated[
        int, typer.Option(help="Unopposed Difficulty: raw Adjustments against (M-30).")
    ] = 0,
    raw_for: Annotated[int, typer.Option(help="Raw Adjustments for the roller (M-11).")] = 0,
    raw_against: Annotated[
        int, typer.Option(help="Raw Adjustments against the roller (M-11).")
    ] = 0,
    inspiration: Annotated[int, typer.Option(help="Roller's Inspiration tokens.")] = 0,
    obstruction: Annotated[int, typer.Option(help="Opponent's Obstruction tokens.")] = 0,
    **given: Any,
) -> None:
    """Roll an Attribute, Resist, Perception or Social Check (M-30 … M-33)."""
    _check(build_check_setup({**locals(), **given}, _steps(given)), given)


def _factor(kind: CheckKind, attribute: int | None, factor: int | None, what: str) -> int:
    if attribute is not None and factor is not None:
        raise InputError("Give either --attribute or --factor, not both.")
    if attribute is not None:
        if attribute < -40:
            raise InputError(f"An attribute cannot be below −40, got {attribute}.")
        return attribute // 10
    if factor is None:
        if kind in (CheckKind.PERCEPTION, CheckKind.SOCIAL):
            return 0
        raise InputError(f"A {kind.value} Check needs the roller's {what}.")
    return factor


def _opposing(
    kind: CheckKind, against: int | None, against_factor: int | None,
    allotment: int | None, song_spp: int | None,
) -> int | None:  # fmt: skip
    given = [v for v in (against, against_factor, allotment, song_spp) if v is not None]
    if len(given) > 1:
        raise InputError("Give only one of --against, --against-factor, --allotment, --song-spp.")
    if allotment is not None or song_spp is not None:
        if kind != CheckKind.RESIST:
            raise InputError("--allotment and --song-spp belong to a resist Check (--kind resist).")
        return allotment // 10 if allotment is not None else 2 * (song_spp or 0)
    if against is not None:
        return against // 10
    return against_factor


@app.command()
@with_options(*BOON_BANE, *ADJUSTING, *ROLLING)
def roll(
    raw_for: Annotated[int, typer.Option(help="Adjustments for the roller.")] = 0,
    raw_against: Annotated[int, typer.Option(help="Adjustments against the roller.")] = 0,
    **given: Any,
) -> None:
    """Roll 7d12 with Boon/Bane and raw Adjustments, and read it (M-6 … M-12)."""
    setup = CheckSetup(
        kind=CheckKind.PERCEPTION, factor=raw_for, opposing=raw_against, boon=given["boon"],
        bane=given["bane"], mode=given["mode"], steps=_steps(given),
    )  # fmt: skip
    _check(setup, given)


def _steps(given: dict[str, Any]) -> tuple[Step, ...]:
    """The explicit Adjustments of ``--adjust``, which only ``--mode explicit`` takes (M-13)."""
    steps = parse_steps(given["adjust"]) if given["adjust"] else ()
    if steps and given["mode"] != AdjustMode.EXPLICIT:
        raise InputError("--adjust names Adjustments; give --mode explicit with it.")
    return steps


def _check(setup: CheckSetup, given: dict[str, Any]) -> None:
    """Roll the Check (or read the dice typed in) and print it: ``majesty check`` and ``roll``."""
    dice, seed = given["dice"], given["seed"]
    result = (
        check_with_dice(setup, parse_dice(dice)) if dice else roll_check(setup, SeededRng(seed))
    )
    emit(check_dict(result), render.check_text(result), given["json_out"], None if dice else seed)
