"""The War's commands by name: each handler validates its arguments and emits its events.

The Strike, movement, Grappling, Turns and special effects have their own modules; the small
commands live here, with :data:`HANDLERS`, the table :class:`MajestyWar` dispatches on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tableside.dice import Rng
from tableside.encounter.war.args import (
    AddArgs,
    BarrierArgs,
    CarryArgs,
    DominionArgs,
    IdArgs,
    InterposeArgs,
    ReadyArgs,
    RestArgs,
    RulesetArgs,
    StanceArgs,
    cached_args,
)
from tableside.encounter.war.effects import do_effect, do_host_set
from tableside.encounter.war.grapple import do_break_free, grappling
from tableside.encounter.war.movement import do_move
from tableside.encounter.war.pending import (
    Pending,
    Rules,
    clip,
    require_awake,
    require_free,
    run_check,
    spend_ap,
    update_weary,
)
from tableside.encounter.war.strike import do_strike
from tableside.encounter.war.turns import do_next, next_turn_ap
from tableside.errors import RulesError
from tableside.majesty import scroll
from tableside.majesty.formats import character_from_data, character_to_data
from tableside.majesty.interpose import interpose_check, require_interpose

TIEBREAK_SIDES = 1_000_000


def do_add(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Add a combatant (a seeded tie-break number is drawn for M-40)."""
    args = cached_args(AddArgs, raw, "add")
    if args.id in p.state.combatants:
        raise RulesError(f"There is already a combatant {args.id!r} in this War.")
    character = character_from_data(args.character, f"combatant {args.id}")
    game.catalog.weapon(character.weapon)
    p.emit(
        "combatant_added",
        "M-40",
        id=args.id,
        character=character_to_data(character),
        position=list(args.position),
        tiebreak=rng.roll(TIEBREAK_SIDES),
    )


def do_remove(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Remove a combatant; its remaining Turns this Cycle are skipped."""
    args = cached_args(IdArgs, raw, "remove")
    p.combatant(args.id)
    p.emit("combatant_removed", "M-40", id=args.id)


def do_stance(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Enter or leave Defensive Stance (not while Grappled or Grappling, M-37)."""
    args = cached_args(StanceArgs, raw, "stance")
    c = p.combatant(args.id)
    if args.on:
        require_free(c, "take Defensive Stance")
        if grappling(p.state, c.id):
            raise RulesError(f"{c.id} is Grappling and cannot be in Defensive Stance (M-37).")
    elif args.full:
        raise RulesError("Full Defensive Stance is a kind of stance: leave it with on=false alone.")
    if args.full:
        p.emit("stance_set", "M-17", id=c.id, on=True, full=True)
        return
    p.emit("stance_set", "M-17", id=c.id, on=args.on)


def do_rest(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Rest removes 1 Exertion per AP (M-4); allowed while Bound or Grappled (M-36, M-37)."""
    args = cached_args(RestArgs, raw, "rest")
    c = p.combatant(args.id)
    spend_ap(p, c.id, args.ap, "Rest")
    after = max(0, c.character.exertion - args.ap)
    p.emit(
        "exertion_set",
        "M-4",
        id=c.id,
        exertion=after,
        window=c.window_exertion,
        added=after - c.character.exertion,
        ignored=0,
        source="Rest",
    )
    update_weary(p, c.id)


def do_stand_ready(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Hold AP for up to two declared uses before the next Turn (M-41)."""
    args = cached_args(ReadyArgs, raw, "stand_ready")
    ready = scroll.stand_ready(args.ap, args.uses)
    c = p.combatant(args.id)
    require_awake(c, "Stand Ready")
    refused = scroll.refused_while_bound(ready.uses) if c.bound else None
    if refused is not None:
        raise RulesError(
            f"{c.id} is Bound and may Stand Ready only to speak, use Spiritual Effects, Sing or "
            f"Rest, not for {clip(refused)!r} (M-36, A-34)."
        )
    spend_ap(p, c.id, ready.ap, "Stand Ready")
    p.emit("readied_set", "M-41", id=c.id, ap=c.readied + ready.ap, uses=list(ready.uses))


def do_carry_over(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Move AP into the character's next Turn while it has fewer than 7 (M-41)."""
    args = cached_args(CarryArgs, raw, "carry_over")
    c = p.combatant(args.id)
    require_awake(c, "Carry Over")
    following = next_turn_ap(p.state, c.id)
    _, new_next = scroll.carry_over(c.ap, following + c.carried, args.ap)
    spend_ap(p, c.id, args.ap, "Carry Over")
    p.emit("carried_set", "M-41", id=c.id, ap=new_next - following)


def do_interpose(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """An elohim in Defensive Stance takes the Strike if it passes a Control Check (M-16)."""
    args = cached_args(InterposeArgs, raw, "interpose")
    c, s, d = p.combatant(args.id), p.combatant(args.striker), p.combatant(args.defender)
    require_awake(c, "interpose")
    require_interpose(c.position, c.stance, s.position, d.position, args.ranged)
    if s.id in c.surprised_by:
        raise RulesError(
            f"{c.id} is Surprised by {s.id} and may not interpose on its Strike (M-16, D-13)."
        )
    check = interpose_check(c.character, s.character)
    short = run_check(p, c.id, check, rng, "interpose", "M-16").passes_short
    p.emit(
        "note",
        "M-16",
        id=c.id,
        text="interposes" if short == 0 else "fails to interpose",
        becomes_target=short == 0,
    )


def do_barrier(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A Barrier raised (or moved) or ended; Knocked Back elohim collide with it (M-35, A-42)."""
    args = cached_args(BarrierArgs, raw, "barrier")
    if not args.on:
        end_sphere(p, "Barrier", p.state.barriers, args.id, "barrier_removed", "A-42")
        return
    refuse_combatant_id(p, "Barrier", args.id)
    p.emit("barrier_set", "A-42", id=args.id, center=list(args.center), radius=args.radius,
           resolve=args.resolve)  # fmt: skip


def do_dominion(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A Spiritual Dominion raised (or moved) or ended; Strikes cannot pass through it (M-15)."""
    args = cached_args(DominionArgs, raw, "dominion")
    if not args.on:
        end_sphere(p, "Dominion", p.state.dominions, args.id, "dominion_removed", "M-15")
        return
    refuse_combatant_id(p, "Dominion", args.id)
    p.emit("dominion_set", "M-15", id=args.id, center=list(args.center), radius=args.radius)


def end_sphere(
    p: Pending, noun: str, kept: Mapping[str, object], name: str, event_kind: str, rule: str
) -> None:
    """End the Barrier or Dominion (``noun``) ``name``, which must be one of ``kept``."""
    if name not in kept:
        known = ", ".join(kept) or "none"
        raise RulesError(f"There is no {noun} {name!r} in this War (known: {known}).")
    p.emit(event_kind, rule, id=name)


def refuse_combatant_id(p: Pending, noun: str, name: str) -> None:
    """A Barrier or a Dominion may not take a combatant's id."""
    if name in p.state.combatants:
        raise RulesError(f"{name!r} is a combatant's id; name the {noun} otherwise.")


def do_ruleset(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The Host chooses this War's ruleset (Full Defensive Stance, M-17 option, A-41)."""
    args = cached_args(RulesetArgs, raw, "ruleset")
    p.emit("ruleset_set", "M-17", name=args.name, was=p.state.ruleset or game.ruleset.name)


HANDLERS: dict[str, Any] = {
    "add": do_add,
    "remove": do_remove,
    "next": do_next,
    "strike": do_strike,
    "move": do_move,
    "stance": do_stance,
    "rest": do_rest,
    "stand_ready": do_stand_ready,
    "carry_over": do_carry_over,
    "break_free": do_break_free,
    "interpose": do_interpose,
    "apply_effect": do_effect,
    "host_set": do_host_set,
    "dominion": do_dominion,
    "barrier": do_barrier,
    "ruleset": do_ruleset,
}
