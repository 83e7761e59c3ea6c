"""The Strike (M-14 … M-29).

Its setup from the live combatants, the offers to interpose, what its result applies, and the
breakdown the command line prints.
"""

from __future__ import annotations

import json
from typing import Any

from tableside.dice import Rng, ScriptedRng, SeededRng
from tableside.dice import Side as AdjustSide
from tableside.encounter.log import Command
from tableside.encounter.war.args import (
    StrikeArgs,
    cached_args,
)
from tableside.encounter.war.grapple import (
    body_collision,
    body_weapon,
    check_grappler_target,
    grappler_check,
    grappler_strike,
    grappling,
)
from tableside.encounter.war.movement import knock_back
from tableside.encounter.war.pending import (
    Pending,
    Rules,
    add_exertion,
    clip,
    convert_if_defeated,
    deal_wear,
    inflict_falter,
    one_cycle_later,
    require_free,
    run_check,
    spend_ap,
)
from tableside.encounter.war.state import Combatant, WarState
from tableside.errors import RulesError
from tableside.majesty.adjust import Step
from tableside.majesty.checks import CheckResult, check_with_dice
from tableside.majesty.geometry import MELEE_RANGE, distance, path_length
from tableside.majesty.interpose import interpose_check, may_interpose
from tableside.majesty.report import strike_dict
from tableside.majesty.ruleset import RULESETS
from tableside.majesty.strike import (
    DefenderState,
    Placement,
    StrikeOptions,
    StrikeResult,
    StrikeSetup,
    roll_strike,
    strike_cost,
    strike_with_dice,
)


def memo_key(command: Command, rng: Rng) -> str | None:
    """A Strike's arguments and unused dice stream as a key (None: not worth keeping).

    ``mode: best`` without steps, no Obstruction token and no interposing are the defaults: the
    Strike listed without the Target's answers and the one decided with their suggestions are
    the same Strike.
    """
    if command.kind != "strike":
        return None
    if isinstance(rng, SeededRng) and getattr(rng, "_generator", None) is None:
        stream: Any = ["seeded", rng.seed, getattr(rng, "_stream", None)]
    elif isinstance(rng, ScriptedRng) and rng.used == 0:
        stream = ["scripted", list(rng.faces)]
    else:
        return None
    args = dict(command.args)
    if args.get("mode", "best") == "best" and not args.get("steps"):
        args.pop("mode", None)
        args.pop("steps", None)
    for key, default in (("obstruction", 0), ("interpose", {})):
        if key in args and args[key] == default and type(args[key]) is type(default):
            del args[key]  # the default, as the Target's suggestion takes it
    return json.dumps([args, stream, command.dice], sort_keys=True, default=str)


def do_strike(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A Strike on a live Defender, applying everything it produces (M-14 … M-29)."""
    args = cached_args(StrikeArgs, raw, "strike")
    striker, defender = p.combatant(args.striker), p.combatant(args.defender)
    if striker.id == defender.id:
        raise RulesError(f"{striker.id} cannot Strike itself.")
    require_free(striker, "Strike")
    held = grappling(p.state, striker.id)
    if args.two_ap and defender in held and args.body is None:
        grappler_strike(game, p, args, striker, defender, rng)
        return
    defender = interposition(p, args, striker, defender, rng)
    check_grappler_target(p.state, striker, defender, held)
    setup = strike_setup(game, args, striker, defender, p.state)
    body = None if args.body is None else body_weapon(p, setup, args.body, striker, defender)
    if body is not None:
        setup = body.setup
    cost = strike_cost(setup)
    spend_ap(p, striker.id, cost.ap, "Strike")
    result = roll_strike(setup, rng)
    p.strikes.append(result)
    if args.path:
        inches = path_length((striker.position, *args.path))
        p.emit("moved", "M-14", id=striker.id, to=list(args.path[-1]), inches=round(inches, 3),
               ap=0)  # fmt: skip
    p.emit(
        "strike_resolved",
        "M-20",
        striker=striker.id,
        defender=defender.id,
        result=strike_dict(result) if p.describe else None,
    )
    apply_strike(p, result, striker.id, defender.id, rng)
    if body is not None:
        body_collision(p, body, result, defender.id)
    if defender in held and result.outcome.twelve_effects == 0:
        p.emit("condition_set", "M-37", id=defender.id, name="grappled_by", value=None,
               reason="released after the Grappler's Strike")  # fmt: skip


def interposers(
    state: WarState, args: StrikeArgs, striker: Combatant, defender: Combatant
) -> list[Combatant]:
    """The elohim who may interpose on this Strike, in the War's order (M-16, D-13).

    In Defensive Stance, on the Defender's side, free to act, not Surprised by the Striker,
    within Melee Range of the Defender and, for a Melee Strike, of the Striker where its
    movement path ends (where the Strike is made); for a Ranged Strike, not within Melee Range
    of the Striker, where a Ranged Strike cannot reach it (M-15).
    """
    point = args.path[-1] if args.path else striker.position
    return [
        c
        for c in state.combatants.values()
        if c.id not in (striker.id, defender.id)
        and c.character.side == defender.character.side
        and not (c.defeated or c.bound or c.asleep or c.grappled_by is not None)
        and striker.id not in c.surprised_by
        and may_interpose(c.position, c.stance, point, defender.position, args.ranged)
        and not (args.ranged and distance(c.position, point) <= MELEE_RANGE)
    ]


def interposition(
    p: Pending, args: StrikeArgs, striker: Combatant, defender: Combatant, rng: Rng
) -> Combatant:
    """The Target after the offers to interpose: the first offer whose Control Check passes.

    Each elohim that said yes, in the War's order, makes its Control Check against the
    Striker's Control until one passes; the Strike is then made on it (M-16, D-13).
    """
    offers = [who for who, yes in args.interpose.items() if yes]
    if not offers:
        return defender
    eligible = interposers(p.state, args, striker, defender)
    allowed = {c.id for c in eligible}
    for who in offers:
        if who not in allowed:
            raise RulesError(
                f"{clip(who)} may not interpose on {striker.id}'s Strike on {defender.id}: only "
                "an elohim of the Defender's side in Defensive Stance, within Melee Range of the "
                "Defender (and of the Striker for a Melee Strike), not Surprised by the Striker "
                "(M-16, D-13)."
            )
    for c in eligible:
        if c.id not in offers:
            continue
        check = interpose_check(c.character, striker.character)
        purpose = f"interpose on {striker.id}'s Strike on {defender.id}"
        passed = run_check(p, c.id, check, rng, purpose, "M-16").passes_short == 0
        p.emit("note", "M-16", id=c.id, text="interposes" if passed else "fails to interpose",
               becomes_target=passed, striker=striker.id, defender=defender.id)  # fmt: skip
        if passed:
            return p.combatant(c.id)
    return defender


def strike_setup(
    game: Rules,
    args: StrikeArgs,
    striker: Combatant,
    defender: Combatant,
    war: WarState | None = None,
) -> StrikeSetup:
    """The Strike as the engine sees it, from the live combatants' conditions (M-17, M-19).

    With the ``war``'s state: its Spiritual Dominions block the Strike (M-15, A-40) and its
    ruleset applies (A-41); without it, no Dominion and the game's ruleset.
    """
    weapon = game.catalog.weapon(args.weapon or striker.character.weapon)
    steps = tuple(
        Step(s.die, s.delta, None if s.side is None else AdjustSide(s.side)) for s in args.steps
    )
    if args.full_defensive_stance and not (defender.stance and defender.full_stance):
        raise RulesError(
            f"{defender.id} is not in Full Defensive Stance: it is the Defender's kept state "
            "(stance with full), not a flag of the Strike (M-17, A-39, D-12)."
        )
    full = defender.stance and defender.full_stance
    state = DefenderState(
        defensive_stance=defender.stance and not full,
        full_defensive_stance=full,
        grappled=defender.grappled_by is not None,
        bound=defender.bound,
        exposed=defender.effectively_exposed,
        surprised=striker.id in defender.surprised_by,
    )
    options = StrikeOptions(
        ranged=args.ranged,
        two_ap=args.two_ap,
        striker_in_stance=striker.stance,
        boon=args.boon,
        bane=args.bane,
        wear_flat=args.wear_flat,
        wear_percent=args.wear_percent,
        ignore_stops=args.ignore_stops,
        striker_adjustments=args.striker_adjustments,
        defender_adjustments=args.defender_adjustments,
        inspiration=args.inspiration,
        obstruction=args.obstruction,
        superiority=max(0, args.superiority),
        twelve_effects_this_turn=striker.twelves_this_turn,
        mode=args.mode,
        steps=steps,
        mode_by_surplus=True,
    )
    return StrikeSetup(
        striker.character,
        defender.character,
        weapon,
        game.catalog.weapon(defender.character.weapon),
        tuple(game.catalog.maneuver(m) for m in args.maneuvers),
        state,
        options,
        Placement(
            (striker.position, *args.path),
            defender.position,
            () if war is None else tuple(war.dominions.values()),
        ),
        game.ruleset if war is None or war.ruleset is None else RULESETS[war.ruleset],
    )


def apply_strike(p: Pending, result: StrikeResult, striker: str, defender: str, rng: Rng) -> None:
    """Wear, Falter, Exertion, AP, Status and Knock Back from one Strike, in order."""
    for line in result.wear:
        deal_wear(p, defender, line.kind.value, line.amount, "Strike", "M-26")
    if result.wear_to_striker is not None:
        line = result.wear_to_striker
        deal_wear(p, striker, line.kind.value, line.amount, "Defensive Hits", "M-23")
    if result.defender_falter:
        inflict_falter(p, defender, result.defender_falter, "Strike")
    if result.striker_falter:
        inflict_falter(p, striker, result.striker_falter, "unpaired 1s")
    add_exertion(p, striker, result.cost.exertion, True, "Strike")
    add_exertion(p, defender, result.effects.defender_exertion, False, "Passion Effect")
    grant_strike_ap(p, striker, result)
    epic_consequences(p, result, striker, defender)
    if result.effects.knock_back and not p.combatant(defender).defeated:
        knock_back(p, defender, p.combatant(striker).position, result.effects.knock_back, rng)


def grant_strike_ap(p: Pending, striker: str, result: StrikeResult) -> None:
    """12 Effects that give AP, counted against the per-Turn cap (M-21)."""
    c = p.combatant(striker)
    if result.effects.twelve_fired:
        p.emit(
            "twelves_counted",
            "M-21",
            id=striker,
            count=c.twelves_this_turn + result.effects.twelve_fired,
        )
    if not result.effects.ap_gained:
        return
    current = p.state.current
    if current is not None and current.combatant == striker:
        p.emit("ap_set", "M-21", id=striker, ap=c.ap + result.effects.ap_gained)
        return
    # A Strike with Readied AP outside its Turn: the AP join the Readied AP.
    p.emit(
        "readied_set",
        "M-21",
        id=striker,
        ap=c.readied + result.effects.ap_gained,
        uses=list(c.ready_uses),
        gained=result.effects.ap_gained,
    )


def epic_consequences(p: Pending, result: StrikeResult, striker: str, defender: str) -> None:
    """Status lowered for 1 Cycle, or Defeated with Endurance −40 (M-24)."""
    for who, lowered, defeat in (
        (defender, result.defender_lowered, result.epic.unpaired_twelves >= 4),
        (striker, result.striker_lowered, result.setup.melee and result.epic.unpaired_ones >= 4),
    ):
        if lowered:
            p.emit(
                "status_lowered",
                "M-24",
                id=who,
                ends=one_cycle_later(p.state).to_json(),
                source="Epic result",
            )
        if defeat:
            p.emit("defeated", "M-24", id=who, source="Epic result")
        convert_if_defeated(p, who)


def strike_breakdown(
    game: Rules,
    before: WarState,
    raw: dict[str, Any],
    rolled: tuple[int, ...],
    target: str | None = None,
) -> StrikeResult | CheckResult:
    """The full result of a ``strike`` command, rebuilt from the state before it and its dice.

    The same setup :func:`do_strike` made (the Grappler's Strike: its Might Check), resolved on
    the dice it rolled (Boon/Bane extras included, in the order rolled), for the breakdown the
    command line prints; nothing is applied. ``target``: who was struck, when an elohim
    interposed (M-16, D-13); the Defender otherwise.
    """
    args = cached_args(StrikeArgs, raw, "strike")
    p = Pending(before, describe=False)
    striker, defender = p.combatant(args.striker), p.combatant(target or args.defender)
    if args.two_ap and args.body is None and defender in grappling(before, striker.id):
        return check_with_dice(grappler_check(before, args, striker, defender), rolled)
    strike = strike_setup(game, args, striker, defender, before)
    if args.body is not None:
        strike = body_weapon(p, strike, args.body, striker, defender).setup
    return strike_with_dice(strike, rolled)
