"""The Cycle and its Turns (M-39 … M-41).

The War Scroll's order, each Turn's start (timed effects ending, Readied AP resting, Poison,
AP and Falter) and the AP of a combatant's next Turn.
"""

from __future__ import annotations

from typing import Any

from tableside.dice import Rng
from tableside.encounter.war.args import (
    NoArgs,
    cached_args,
)
from tableside.encounter.war.pending import (
    Pending,
    Rules,
    add_exertion,
    update_weary,
    waste_available_ap,
)
from tableside.encounter.war.state import Combatant, EndPoint, WarState
from tableside.errors import RulesError
from tableside.majesty import scroll, special
from tableside.majesty.character import Attribute, Character, Side, Status


def do_next(game: Rules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """End the current Turn and start the next one (a new Cycle when the order is done)."""
    cached_args(NoArgs, raw, "next")
    if p.state.ended:
        raise RulesError("The War has ended; there is no next Turn.")
    if len(p.state.combatants) == 0:
        raise RulesError("Add combatants before starting the War.")
    end_turn(p)
    for _ in range(len(p.state.combatants) * 8 + 8):
        index = p.state.turn + 1
        if index >= len(p.state.order):
            start_cycle(p)
            index = 0
            if not p.state.order:
                raise RulesError("No combatant can take a Turn: every one is Defeated.")
        turn = p.state.order[index]
        c = p.state.combatants.get(turn.combatant)
        if c is not None and not c.defeated:
            start_turn(p, index)
            return
        reason = "removed" if c is None else "Defeated"
        p.emit("turn_skipped", "M-40", id=turn.combatant, turn=index, reason=reason)
    raise RulesError("No combatant can take a Turn.")


def end_turn(p: Pending) -> None:
    """Unused AP of the ending Turn are lost (keep them with Carry Over or Stand Ready)."""
    current = p.state.current
    if current is None or current.combatant not in p.state.combatants:
        return
    c = p.combatant(current.combatant)
    p.emit("turn_ended", "M-40", id=c.id, unused=c.ap)
    if c.ap:
        p.emit("ap_set", "M-40", id=c.id, ap=0)


def start_cycle(p: Pending) -> None:
    """Assign every standing combatant's Turns to Segments for a new Cycle (M-40).

    Timed effects ending before the new Cycle's first Turn expire first, and a Status lowered
    "for 1 Cycle" that ends during the new Cycle does not shape its War Scroll (M-24, M-39, A-30).
    """
    upcoming = p.state.cycle + 1
    expire_timed(p, EndPoint(upcoming, 0))
    entrants = []
    for c in p.state.combatants.values():
        character = scroll_character(c, upcoming)
        if character.status is Status.DEFEATED:
            continue
        entrants.append(
            scroll.Entrant(
                c.id,
                character.war.speed,
                character.referenced(Attribute.SWIFTNESS),
                character.side == Side.HOLY,
                c.tiebreak,
            )
        )
    segments = scroll.war_scroll(entrants)
    order = [
        {"combatant": t.combatant, "segment": t.segment, "ap": t.ap}
        for segment in segments
        for t in segment.turns
    ]
    p.emit("cycle_started", "M-40", cycle=p.state.cycle + 1, order=order)


def scroll_character(c: Combatant, cycle: int) -> Character:
    """The character a Cycle's War Scroll is built from: lowerings ending in it left out (A-30)."""
    ending = sum(
        1
        for t in c.timed
        if t.name == "status_lowered" and t.ends is not None and t.ends.cycle <= cycle
    )
    if not ending:
        return c.character
    return c.character.with_status_lowered(max(0, c.character.status_lowered - ending))


def start_turn(p: Pending, index: int) -> None:
    """A Turn begins: expiries, Surprise ends, Readied AP rest, Poison, AP and Falter."""
    turn = p.state.order[index]
    expire_timed(p, EndPoint(p.state.cycle, index))
    c = p.combatant(turn.combatant)
    carried = c.carried
    p.emit(
        "turn_started",
        "M-40",
        id=c.id,
        turn=index,
        cycle=p.state.cycle,
        segment=turn.segment,
        ap=turn.ap,
        carried=carried,
    )
    rest_readied(p, c.id)
    poison_tick(p, c.id)
    grant_turn_ap(p, c.id, min(turn.ap + carried, scroll.TURN_AP))  # never above 7: A-29
    update_weary(p, c.id)


def expire_timed(p: Pending, now: EndPoint) -> None:
    """Timed effects end at their End Point (M-39)."""
    for c in list(p.state.combatants.values()):
        for timed in c.timed:
            if timed.ends is not None and timed.ends <= now:
                p.emit("timed_expired", "M-39", id=c.id, name=timed.name, ends=timed.ends.to_json())


def rest_readied(p: Pending, who: str) -> None:
    """Readied AP not used before the next Turn count as Rest (M-41)."""
    c = p.combatant(who)
    if c.readied:
        p.emit("readied_set", "M-41", id=who, ap=0, uses=[])
        rested = max(0, c.character.exertion - c.readied)
        p.emit(
            "exertion_set",
            "M-41",
            id=who,
            exertion=rested,
            window=0,
            added=rested - c.character.exertion,
            ignored=0,
            source="unused Readied AP rest",
        )


def poison_tick(p: Pending, who: str) -> None:
    """Poison: Exertion += Poison, then Poison halves; it ends at 0 (M-38)."""
    c = p.combatant(who)
    if not c.poison:
        return
    gained, left = special.poison_tick(c.poison)
    add_exertion(p, who, gained, self_generated=False, source=f"Poison:{c.poison}")
    p.emit("poison_set", "M-38", id=who, poison=left)


def grant_turn_ap(p: Pending, who: str, ap: int) -> None:
    """AP arrive; F:1 Cycle wastes all of them, F:# wastes as many (M-34)."""
    c = p.combatant(who)
    if c.falter_cycle is not None:
        p.emit("ap_wasted", "M-34", id=who, pool="ap", ap=ap, reason="F:1 Cycle")
        p.emit("ap_set", "M-34", id=who, ap=0)
        return
    p.emit("ap_set", "M-40", id=who, ap=ap)
    waste_available_ap(p, who)


def next_turn_ap(state: WarState, who: str) -> int:
    """AP of the combatant's next Turn: later in this Cycle, else its first of the next (M-41).

    The next Cycle's first Turn is Segment 1's chunk of the combatant's current Speed (M-40).
    """
    later = [t for t in state.order[state.turn + 1 :] if t.combatant == who]
    if later:
        return later[0].ap
    speed = state.get(who).character.war.speed
    return scroll.turn_chunks(speed)[0] if speed > 0 else 0
