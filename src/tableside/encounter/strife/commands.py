"""Deciding a Realm of Strife fight: the handler of each command (S-3 … S-23).

Commands: add, start (with an optional ambush), next, bottom, instant, whole_turn (recover,
skill, sprint), roll_with_the_blow, hide, condition, end_condition, remove, end_combat and
host_set here; move and disengage in :mod:`~tableside.encounter.strife.movement`; attack, aoo
and impale in :mod:`~tableside.encounter.strife.attack`; cast in
:mod:`~tableside.encounter.strife.cast`; act and react in :mod:`~tableside.encounter.strife.acts`;
forced_move, pick_up and water in :mod:`~tableside.encounter.strife.forced` (SA-70 … SA-77).
:data:`HANDLERS` maps each command to its handler.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tableside.dice import Rng
from tableside.encounter.strife import forced
from tableside.encounter.strife.acts import do_act, do_react
from tableside.encounter.strife.args import (
    NEXT_TURN_END,
    STRAIGHT_BACK_TOLERANCE,
    AddArgs,
    ConditionArgs,
    EndCombatArgs,
    EndConditionArgs,
    HostArgs,
    IdArgs,
    InstantArgs,
    RollArgs,
    StartArgs,
    WholeTurnArgs,
)
from tableside.encounter.strife.attack import do_aoo, do_attack, do_impale
from tableside.encounter.strife.cast import do_cast
from tableside.encounter.strife.movement import do_disengage, do_move, sprint_to
from tableside.encounter.strife.state import Model, condition_json
from tableside.encounter.strife.turns import (
    FightRules,
    Pending,
    acted,
    next_turn,
    start_round,
    use_element,
)
from tableside.encounter.war.args import Args, parse_args
from tableside.errors import RulesError
from tableside.majesty.geometry import distance
from tableside.strife.catalog import Combatant, Resource
from tableside.strife.checks import InitiativeEntry, initiative_with_natural, order_initiative
from tableside.strife.conditions import KNOCKED_DOWN, condition
from tableside.strife.loadout import loadout
from tableside.strife.movement import roll_with_the_blow_limit
from tableside.strife.resources import end_of_combat, start_of_combat
from tableside.strife.turns import (
    ROLL_WITH_THE_BLOW_INITIATIVE,
    TurnElement,
    recover,
    with_bottom_of_queue,
)


def do_add(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A model joins and rolls its Initiative Score at once (S-3)."""
    args = parse_args(AddArgs, raw, "add")
    if args.id in p.state.models:
        raise RulesError(f"There is already a model {args.id!r} in this fight.")
    if args.hiding and p.state.round >= 0:
        raise RulesError("Hiding can be declared with add only before the fight starts (S-22).")
    sheet = model_sheet(game, args)
    loadout(game.catalog, sheet)
    for power in sheet.powers:
        game.catalog.power(power)
    perch = forced.placed_perched(args.id, sheet, args.position, args.perched)  # SA-93
    entry = initiative_with_natural(args.id, args.side, sheet.initiative, rng.roll(20))
    sheet_json = sheet.model_dump(mode="json")
    p.emit("model_added", "S-3", id=args.id, side=args.side, position=list(args.position),
           sheet=sheet_json, score=entry.score, natural=entry.natural,
           **({} if perch is None else {"perched": perch}))  # fmt: skip
    if args.hiding:
        p.emit("hidden_set", "S-22", id=args.id, hidden=True, declared=True)


def model_sheet(game: FightRules, args: AddArgs) -> Combatant:
    """The sheet named from the catalogue, or given whole."""
    if (args.model is None) == (args.sheet is None):
        raise RulesError("Give either a catalogue model name or a sheet, not both or neither.")
    if args.model is not None:
        return game.catalog.combatant(args.model)
    from pydantic import ValidationError

    from tableside.strife.catalog import validation_sentence

    try:
        return Combatant.model_validate(args.sheet)
    except ValidationError as error:
        raise RulesError(validation_sentence(error, f"sheet of {args.id}")) from None


def do_start(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Turn Order by Initiative Score (ties: Initiative stat, then a seeded roll-off) (S-3, S-4)."""
    args = parse_args(StartArgs, raw, "start")
    if p.state.round >= 0:
        raise RulesError("The fight has already started.")
    sides = {m.side for m in p.state.models.values()}
    if len(sides) < 2:
        raise RulesError("A fight needs models on at least two sides.")
    reset_stealth(p)
    entries = [
        InitiativeEntry(m.id, m.side, m.sheet.initiative, 0, (), m.score)
        for m in p.state.models.values()
    ]
    order = list(order_initiative(entries, rng).names)
    if args.ambush is not None:
        if args.ambush not in sides:
            raise RulesError(
                f"No side {args.ambush!r} is in this fight (sides: {', '.join(sorted(sides))})."
            )
        p.emit(
            "note",
            "S-4",
            text=f"{args.ambush} ambushes: one free round in Turn Order",
            full_order=order,
        )
        start_round(p, 0, [n for n in order if p.state.models[n].side == args.ambush], args.ambush)
    else:
        start_round(p, 1, order)


def reset_stealth(p: Pending) -> None:
    """Stealth starts the fight at 0 unless hiding was declared beforehand (S-22, SA-16)."""
    for m in list(p.state.models.values()):
        stealth = m.sheet.resources.get(Resource.STEALTH)
        if stealth is None or stealth.current == 0 or m.hidden:
            continue
        after = start_of_combat(m.sheet.resources)
        pools = {k.value: v.model_dump(mode="json") for k, v in after.items()}
        p.emit("resources_set", "S-22", id=m.id, resources=pools)


def do_next(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """End the current Turn and begin the next."""
    parse_args(Args, raw, "next")
    if p.state.ended:
        raise RulesError("The fight has ended.")
    if p.state.round < 0:
        raise RulesError("Start the fight first.")
    if p.state.current is not None:
        end_turn(p, p.state.current)
    next_turn(p)


def end_turn(p: Pending, who: str) -> None:
    """The Turn ends, and with it conditions lasting until the end of its next Turn (S-19).

    Its round-counted conditions lose a round, except those put on it during this Turn (SA-50).
    """
    p.emit("turn_ended", "S-5", id=who)
    m = p.state.models.get(who)
    if m is not None and (m.fresh or any(c.rounds_left is not None for c in m.conditions)):
        p.emit("conditions_ticked", "SA-50", id=who)
    for item in () if m is None else m.conditions:
        if item.until == NEXT_TURN_END:
            p.emit("condition_ended", "S-19", id=who, name=item.name)


def do_bottom(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The current model goes to the bottom of the queue: one per side per round (S-4)."""
    args = parse_args(IdArgs, raw, "bottom")
    m = p.model(args.id)
    if p.state.current != m.id or acted(m):
        raise RulesError(f"{m.id} may go to the bottom of the queue only at the start of its Turn.")
    rest = list(p.state.order[p.state.turn :])
    sides = {n: p.state.models[n].side for n in p.state.order if n in p.state.models}
    moved = with_bottom_of_queue(rest, sides, [*[b for b in p.state.bottom if b in rest], m.id])
    p.emit("bottom_of_queue", "S-4", id=m.id)
    order = [*p.state.order[: p.state.turn], *moved]
    p.emit("order_set", "S-4", order=order, turn=p.state.turn - 1)
    next_turn(p)


def do_instant(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """An Instant on its Turn, or out of turn using up its next Turn's Instant (S-4, S-5)."""
    args = parse_args(InstantArgs, raw, "instant")
    m = p.model(args.id)
    if p.state.current == m.id:
        use_element(p, m.id, TurnElement.INSTANT)
    else:
        p.emit("instant_owed", "S-4", id=m.id)
    p.emit("note", "S-5", id=m.id, text=f"Instant: {args.name}")


def do_whole_turn(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Recover (+1 HP), a whole-turn skill, or Sprint with Stamina tests after the first (S-5)."""
    args = parse_args(WholeTurnArgs, raw, "whole_turn")
    m = p.model(args.id)
    use_element(p, m.id, TurnElement.WHOLE_TURN)
    if args.kind == "recover":
        p.emit("hp_set", "S-5", id=m.id, hp=recover(m.sheet.hp, m.sheet.hp_max), damage=0)
    elif args.kind == "skill":
        p.emit("note", "S-5", id=m.id, text=f"whole-turn skill: {args.skill or 'unnamed'}")
    else:
        sprint_to(game, p, m, args.to, rng)
    p.emit("element_used", "S-5", id=m.id, element=TurnElement.ACTION.value)


def do_roll(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Roll with the Blow after damage: ≤ half Movement, −10 Initiative, Knocked Down (S-19)."""
    args = parse_args(RollArgs, raw, "roll_with_the_blow")
    m = p.model(args.id)
    if p.state.last_damaged != m.id:
        raise RulesError(f"{m.id} may Roll with the Blow only right after taking damage (S-19).")
    if m.id in p.state.rounds.failed_parry:
        raise RulesError(f"{m.id} failed a Parry this round and cannot Roll with the Blow (S-19).")
    if not p.state.rounds.can_react(m.id):
        raise RulesError(f"{m.id} has already used its Reaction this round (S-4).")
    limit = roll_with_the_blow_limit(m.sheet.movement)
    inches = distance(m.position, args.to)
    if inches > limit:
        raise RulesError(
            f'Rolling with the Blow moves at most {float(limit):g}", not {inches:.1f}" (S-19).'
        )
    check_directly_back(p.state.models.get(p.state.last_damaged_by or ""), m, args.to)
    p.emit("reaction_spent", "S-19", id=m.id, failed_parry=False, reason="Roll with the Blow")
    p.emit("moved", "S-19", id=m.id, to=list(args.to), moved=round(inches, 3), forced=True)
    penalise_initiative(p, m.id)
    knocked = condition(KNOCKED_DOWN, "Roll with the Blow", until=NEXT_TURN_END)
    p.emit("condition_added", "S-19", id=m.id, condition=condition_json(knocked))


def check_directly_back(attacker: Model | None, m: Model, to: Sequence[float]) -> None:
    """The roll goes directly backward from the direction of the attack (S-19, SA-44).

    The destination must lie on the ray from the attacker through the model, within
    ``STRAIGHT_BACK_TOLERANCE`` inches of it. Without a known attacker model (damage set by the
    Host) or when the two share a position, any direction is the Host's call.
    """
    if attacker is None or attacker.id == m.id:
        return
    how = forced.straying(m.position, attacker.position, to, STRAIGHT_BACK_TOLERANCE)
    if how is not None:
        raise RulesError(
            f"{m.id} may Roll with the Blow only directly backward, away from {attacker.id}; "
            f"this move {how} (S-19)."
        )


def penalise_initiative(p: Pending, who: str) -> None:
    """−10 Initiative on the next round it would have a Turn: this round if still to come (S-19).

    A model whose Turn is still to come this round drops in this round's queue at once (SA-44);
    otherwise the penalty waits for the next round's order.
    """
    rest = list(p.state.order[p.state.turn + 1 :]) if p.state.turn >= 0 else []
    if who not in rest:
        p.emit("initiative_penalty", "S-19", id=who, penalty=ROLL_WITH_THE_BLOW_INITIATIVE)
        return
    rest.remove(who)
    m = p.model(who)
    key = (m.score - ROLL_WITH_THE_BLOW_INITIATIVE, m.sheet.initiative)
    at = next((i for i, name in enumerate(rest) if name in p.state.bottom
               or _score_key(p.state.models.get(name)) < key), len(rest))  # fmt: skip
    rest.insert(at, who)
    order = [*p.state.order[: p.state.turn + 1], *rest]
    # ``penalised``, not ``id``: the order is public even when the model is secret (web W-ids).
    p.emit("order_set", "S-19", order=order, turn=p.state.turn, penalised=who,
           penalty=ROLL_WITH_THE_BLOW_INITIATIVE, round=p.state.round)  # fmt: skip


def _score_key(m: Model | None) -> tuple[int, int]:
    if m is None:
        return (-(10**9), 0)
    return (m.score - m.initiative_penalty, m.sheet.initiative)


def do_hide(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Hide: an Action, which ends the Turn (SA-41); out of Line of Sight is the Host's call.

    Hidden is tracked as a flag; Stealth rules beyond it are the Host's (S-22, S-23).
    """
    args = parse_args(IdArgs, raw, "hide")
    m = p.model(args.id)
    if p.state.round < 0:  # before the fight: the declaration that keeps Stealth (S-22, SA-88)
        if m.hidden:
            raise RulesError(f"{m.id} has already declared that it is hiding.")
        p.emit("hidden_set", "SA-88", id=m.id, hidden=True, declared=True)
        return
    use_element(p, m.id, TurnElement.ACTION)
    p.emit("hidden_set", "SA-41", id=m.id, hidden=True)


def do_condition(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A named condition with a duration and a source (S-23)."""
    args = parse_args(ConditionArgs, raw, "condition")
    m = p.model(args.id)
    item = condition(args.name, args.source, args.rounds, args.until)
    p.emit("condition_added", "S-23", id=m.id, condition=condition_json(item))


def do_end_condition(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Remove a condition (e.g. Disarmed when the weapon is picked up)."""
    args = parse_args(EndConditionArgs, raw, "end_condition")
    m = p.model(args.id)
    if not any(c.name == args.name for c in m.conditions):
        raise RulesError(f"{m.id} has no condition {args.name!r}.")
    p.emit("condition_ended", "S-23", id=m.id, name=args.name)


def do_remove(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A model leaves the fight before it starts (W-26); once begun, the Turn Order holds it."""
    args = parse_args(IdArgs, raw, "remove")
    m = p.model(args.id)
    if p.state.round >= 0:
        raise RulesError(
            f"The fight has started, so {m.id} cannot be removed: it holds a place in the Turn "
            "Order; set its HP to 0 instead, or undo back to before the start."
        )
    p.emit("model_removed", "W-26", id=m.id)


def do_end_combat(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """End of combat: Vigor back, Fury halves and is lost, the rest carries over (S-22)."""
    args = parse_args(EndCombatArgs, raw, "end_combat")
    for m in list(p.state.models.values()):
        after = end_of_combat(m.sheet.resources, wave=args.wave,
                              battle_within_2_minutes=args.battle_within_2_minutes)  # fmt: skip
        pools = {k.value: v.model_dump(mode="json") for k, v in after.pools.items()}
        fury = (
            {}
            if after.fury_decayed is None
            else {  # the Host's Fury choice (SA-89)
                "fury_decayed": after.fury_decayed,
                "battle_within_2_minutes": args.battle_within_2_minutes,
            }
        )
        p.emit("resources_set", "S-22", id=m.id, resources=pools, **fury)
    if not p.state.ended:
        p.emit("fight_ended", "S-22", winner=None)


def do_host_set(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The Host sets HP or a position by hand."""
    args = parse_args(HostArgs, raw, "host_set")
    m = p.model(args.id)
    if args.field == "hp":
        if args.perched is not None:
            raise RulesError("perched goes with a position above the ground, not with hp (SA-93).")
        if not isinstance(args.value, int) or not 0 <= args.value <= m.sheet.hp_max:
            raise RulesError(
                f"HP must be a whole number from 0 to {m.sheet.hp_max}, not {args.value!r}."
            )
        p.emit("hp_set", "host", id=m.id, hp=args.value, damage=0, host=True)
    else:
        if not isinstance(args.value, tuple):
            raise RulesError(f"position needs [x, y, z], not {args.value!r}.")
        perch = forced.host_placed_perched(m, args.value, args.perched)  # SA-93
        p.emit("moved", "host", id=m.id, to=list(args.value), moved=0.0, host=True,
               **({} if perch is None else {"perched": perch}))  # fmt: skip


HANDLERS: dict[str, Any] = {
    "add": do_add,
    "remove": do_remove,
    "start": do_start,
    "next": do_next,
    "bottom": do_bottom,
    "move": do_move,
    "disengage": do_disengage,
    "attack": do_attack,
    "aoo": do_aoo,
    "cast": do_cast,
    "impale": do_impale,
    "instant": do_instant,
    "whole_turn": do_whole_turn,
    "roll_with_the_blow": do_roll,
    "hide": do_hide,
    "condition": do_condition,
    "end_condition": do_end_condition,
    "end_combat": do_end_combat,
    "host_set": do_host_set,
    "act": do_act,
    "react": do_react,
}


HANDLERS.update(forced.FORCED_HANDLERS)
