"""Moving in a Realm of Strife fight: move, disengage, a Sprint (S-6, S-8, S-9, S-18).

A move offers the Attacks of Opportunity it provokes and takes their answers.

Climbing and swimming tests along a move are in :mod:`tableside.encounter.strife.climbing`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tableside.dice import Rng
from tableside.encounter.strife import forced
from tableside.encounter.strife.args import CONTACT, DisengageArgs, MoveArgs
from tableside.encounter.strife.attack import do_aoo
from tableside.encounter.strife.climbing import (
    climb_streak,
    consecutive_sprints,
    distance_left,
    move_leg,
    movement_tests,
    rounded,
)
from tableside.encounter.strife.state import FightState, Model, condition_json
from tableside.encounter.strife.turns import FightRules, Pending, acted, use_element
from tableside.encounter.war.args import parse_args
from tableside.errors import RulesError
from tableside.majesty.geometry import distance
from tableside.strife.catalog import Catalog, Stat
from tableside.strife.checks import stat_test
from tableside.strife.conditions import EXHAUSTION, condition
from tableside.strife.loadout import loadout
from tableside.strife.movement import (
    Leg,
    MoveMode,
    check_path,
    disengage_action_limit,
    path_cost,
    sprint_plan,
)
from tableside.strife.records import Part
from tableside.strife.report import stat_test_dict
from tableside.strife.turns import MoveCause, TurnElement, disengage


def contacts(catalog: Catalog, state: FightState, who: str) -> dict[str, list[str]]:
    """Enemies in base contact with ``who`` and their equipped weapons."""
    m = state.models[who]
    return {
        o.id: [w.name for w in loadout(catalog, o.sheet).weapons]
        for o in state.models.values()
        if o.side != m.side and not o.down and distance(o.position, m.position) <= CONTACT
    }


def do_move(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """One Move: its cost (S-6), and Attacks of Opportunity when leaving contact (S-18)."""
    args = parse_args(MoveArgs, raw, "move")
    m = p.model(args.id)
    inches = distance(m.position, args.to)
    leg = move_leg(inches, args.mode, args.difficult, normal_speed=args.normal_speed,
                   agility_test=args.agility_test, current=args.current)  # fmt: skip
    resumed = resumes_move(p, m)
    if not resumed:
        use_element(p, m.id, TurnElement.MOVE)
    forced.check_water_move(m, args.mode)  # SA-76
    compelled = forced.compelled_move(p.state, m, args.to)  # SA-71
    spent = Fraction(m.movement_spent).limit_denominator(100)
    cost = check_path(m.sheet.movement, [leg], m.conditions)
    if spent + cost > m.sheet.movement:
        raise RulesError(
            f"This move costs {float(cost):.1f} inches of movement but only "
            f"{float(m.sheet.movement - spent):.1f} of {m.id}'s Movement {m.sheet.movement} "
            "is left this Turn (S-6, SA-51)."
        )
    if m.hidden:
        check_sneak(m, cost + spent)
    reached = movement_tests(p, m, args.to, leg, distance_left(m, m.hidden), rng, inches=inches,
                             agility_test=args.agility_test, current=args.current)  # fmt: skip
    before = contacts(game.catalog, p.state, m.id)
    extra: dict[str, Any] = {"resumed": True} if resumed else {}
    if reached.stopped is not None:
        extra["stopped"] = reached.stopped
    if compelled:
        extra["compelled"] = compelled
    p.emit("moved", "S-6", id=m.id, to=list(reached.to), moved=rounded(reached.inches),
           cost=round(float(reached.cost), 3), **extra)  # fmt: skip
    climb_streak(p, m, args.mode, reached.inches, rng)
    left = {k: v for k, v in before.items() if k not in contacts(game.catalog, p.state, m.id)}
    if compelled is None:  # a move under compulsion is no Disengaging (S-18, SA-71)
        offer_aoos(p, m.id, left)
    answer_aoos(game, p, m.id, args.aoo, rng)


def resumes_move(p: Pending, m: Model) -> bool:
    """Whether this move goes on with the Turn's Move after an Instant made during it (SA-51).

    An Instant may come before, after or during movement (S-5): after Move then Instant, a
    second ``move`` of the same Turn resumes the Move, within what is left of Movement.
    """
    if p.state.current != m.id or TurnElement.ACTION.value in m.elements:
        return False
    done = acted(m)
    return TurnElement.MOVE.value in done and done[-1:] == (TurnElement.INSTANT.value,)


def check_sneak(m: Model, cost: Fraction) -> None:
    """Moving while hidden (sneaking) has half the Movement (SA-42)."""
    half = Fraction(m.sheet.movement, 2)
    if cost > half:
        raise RulesError(
            f'{m.id} is hidden: sneaking halves Movement to {float(half):g}", and this move '
            f'costs {float(cost):g}" (SA-42).'
        )


def offer_aoos(p: Pending, mover: str, left: dict[str, list[str]]) -> None:
    """Every enemy left behind may take free attacks, each weapon once per Turn (S-18).

    A Taunted enemy is offered none on a model other than its taunter (SA-91).
    """
    _, _, offered = disengage(p.state.aoo, p.state.rounds, mover, MoveCause.REGULAR_MOVE, left)
    free = [f for f in offered if forced.taunt_allows(p.state, f.attacker, f.target)]  # SA-91
    if free:
        p.emit("aoo_offered", "S-18", offers=[{"attacker": f.attacker, "weapon": f.weapon,
                                               "target": f.target} for f in free])  # fmt: skip


def aoo_key(attacker: str, weapon: str) -> str:
    """How a move's ``aoo`` names one offer: ``attacker/weapon`` (D-14)."""
    return f"{attacker}/{weapon}"


def answer_aoos(
    game: FightRules, p: Pending, mover: str, answers: dict[str, bool], rng: Rng
) -> None:
    """The Attacks of Opportunity this move offered, taken or let go as answered (S-18, D-14)."""
    offered = {aoo_key(o.attacker, o.weapon): o for o in p.state.offers if o.target == mover}
    for key, take in answers.items():
        offer = offered.get(key)
        if offer is None:
            shown = ", ".join(offered) or "none"
            raise RulesError(
                f"This move offers no Attack of Opportunity {key[:80]!r} (offered: {shown})."
            )
        raw = {"attacker": offer.attacker, "target": mover, "weapon": offer.weapon}
        if take:
            do_aoo(game, p, raw, rng)
        else:
            p.emit("aoo_declined", "D-14", **raw)


def sprint_to(game: FightRules, p: Pending, m: Model, to: Any, rng: Rng) -> None:
    """Sprint: 2 × natural Movement; each consecutive Sprint needs a Stamina test (S-5)."""
    if to is None:
        raise RulesError("A Sprint needs a destination (to).")
    run = sprint_plan(m.sheet.movement, consecutive_sprints(p.state, m))
    forced.check_sprint_ground(m, to)  # SA-77
    compelled = forced.compelled_move(p.state, m, to)  # SA-71
    inches = distance(m.position, to)
    if m.hidden and inches > run.distance / 2:
        raise RulesError(
            f"{m.id} is hidden: a Sprint while hidden is a Hustle, which only cancels the halving "
            f'of sneaking: at most {m.sheet.movement}", not {inches:.1f}" (SA-42).'
        )
    if inches > run.distance:
        raise RulesError(f'A Sprint covers at most {run.distance}", not {inches:.1f}" (S-5).')
    if run.stamina_test_needed:
        test = stat_test(rng, Part("STAM", m.sheet.stat(Stat.STAM)))
        p.emit(
            "test_resolved",
            "S-5",
            id=m.id,
            purpose="Sprint Stamina test",
            result=stat_test_dict(test) if p.describe else None,
        )
        if not test.success:
            p.emit("condition_added", "S-5", id=m.id, condition=condition_json(
                condition(EXHAUSTION, "consecutive Sprint")))  # fmt: skip
    before = contacts(game.catalog, p.state, m.id)
    p.emit("moved", "S-5", id=m.id, to=list(to), moved=round(inches, 3),
           **({"compelled": compelled} if compelled else {}))  # fmt: skip
    hustle = {"hustle": True} if m.hidden else {}  # a Sprint while hidden (SA-42)
    p.emit("sprinted", "S-5", id=m.id, sprints=consecutive_sprints(p.state, m), **hustle)
    if compelled is None:  # S-18, SA-71
        offer_aoos(p, m.id, {k: v for k, v in before.items()
                             if k not in contacts(game.catalog, p.state, m.id)})  # fmt: skip


def do_disengage(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The Disengage Action: at most half Movement, before any move, provoking nothing (S-6).

    Being an Action, it ends the Turn (S-5); leaving base contact this way offers no Attack of
    Opportunity (S-18, SA-52).
    """
    args = parse_args(DisengageArgs, raw, "disengage")
    m = p.model(args.id)
    limit = disengage_action_limit(m.sheet.movement, TurnElement.MOVE.value in acted(m))
    use_element(p, m.id, TurnElement.ACTION)
    inches = distance(m.position, args.to)
    leg = Leg(Fraction(inches).limit_denominator(100), MoveMode.WALK, args.difficult)
    cost = path_cost([leg], m.conditions)
    if cost > limit:
        raise RulesError(
            f"A Disengage Action moves at most half of {m.id}'s Movement ({float(limit):g}\"); "
            f'this one costs {float(cost):.1f}" (S-6).'
        )
    p.emit("moved", "S-6", id=m.id, to=list(args.to), moved=round(inches, 3),
           cost=round(float(cost), 3), disengage=True)  # fmt: skip
