"""Deciding a War: which events each command produces (M-14 … M-41 on live combatants).

Every decision works on a :class:`Pending` copy of the state that applies each event as it is
emitted, so later steps see earlier ones; if any step refuses, the engine keeps nothing.

:meth:`MajestyWar.play` is the simulation's fast path: the same decision, returning the state the
Pending copy already holds (no second fold) and, with ``describe=False``, leaving the full Strike
and Check reports out of the informational events (the state never reads them).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, cast

from tableside.dice import Rng, ScriptedRng, SeededRng
from tableside.dice import Side as AdjustSide
from tableside.encounter.decisions import Choice
from tableside.encounter.log import Command, Event
from tableside.encounter.war_args import (
    A,
    AddArgs,
    Args,
    BarrierArgs,
    CarryArgs,
    DominionArgs,
    EffectArgs,
    HostArgs,
    IdArgs,
    InterposeArgs,
    MoveArgs,
    NoArgs,
    ReadyArgs,
    RestArgs,
    RulesetArgs,
    StanceArgs,
    StrikeArgs,
    parse_args,
)
from tableside.encounter.war_state import Combatant, EndPoint, WarState, evolve
from tableside.errors import RulesError
from tableside.majesty import scroll, special
from tableside.majesty.adjust import Step
from tableside.majesty.catalog import Catalog, Weapon, builtin_catalog
from tableside.majesty.character import Attribute, Character, Side, Status, WearKind
from tableside.majesty.checks import CheckResult, CheckSetup, check_with_dice, roll_check
from tableside.majesty.condition import gain_exertion, is_weary
from tableside.majesty.formats import character_from_data, character_to_data
from tableside.majesty.geometry import MELEE_RANGE, Point, distance, path_length
from tableside.majesty.interpose import interpose_check, may_interpose, require_interpose
from tableside.majesty.report import check_dict, strike_dict
from tableside.majesty.ruleset import RULESETS, STANDARD, Ruleset
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
from tableside.majesty.wear import Part

TIEBREAK_SIDES = 1_000_000


@dataclass
class Pending:
    """A working copy of the state that applies each emitted event at once."""

    state: WarState
    events: list[Event] = field(default_factory=list)
    describe: bool = True  # full Strike/Check reports in the informational events
    strikes: list[Any] = field(default_factory=list)  # each Strike's result, as rolled

    def emit(self, event_kind: str, rule: str | None = None, /, **data: Any) -> None:
        """Record an event and apply it."""
        event = Event(event_kind, data, rule)
        self.events.append(event)
        self.state = evolve(self.state, event)

    def combatant(self, combatant: str) -> Combatant:
        """A combatant that must exist."""
        found = self.state.combatants.get(combatant)
        if found is None:
            known = ", ".join(self.state.combatants) or "none yet"
            raise RulesError(f"There is no combatant {combatant!r} in this War (known: {known}).")
        return found


_PLAIN = frozenset({str, int, float, bool, type(None)})


def cached_args(model: type[A], raw: dict[str, Any], command: str) -> A:
    """``parse_args``, validated once per distinct arguments when they are plain scalars.

    The argument models are frozen and hold only immutable values, so one validated instance
    serves every command with the same arguments (a simulated War strikes with the same few
    again and again). The key keeps each value's type, so arguments that merely compare equal
    (1, 1.0, True) are validated apart; a refusal is raised again each time, never kept.
    """
    if isinstance(raw, dict) and all(type(value) in _PLAIN for value in raw.values()):
        items = tuple((key, type(value), value) for key, value in raw.items())
        return cast(A, _validated(model, items, command))
    return parse_args(model, raw, command)


@lru_cache(maxsize=4096)
def _validated(model: type[Args], items: tuple[tuple[str, type, Any], ...], command: str) -> Args:
    return parse_args(model, {key: value for key, _, value in items}, command)


# --- shared effects ---------------------------------------------------------------------------


def inflict_falter(p: Pending, who: str, amount: int, source: str) -> None:
    """Falter: cap 7, excess and incapacitated conversions to Wear, AP wasted at once (M-34)."""
    c = p.combatant(who)
    result = special.inflict_falter(c.falter, amount, c.converts_falter)
    p.emit("falter_set", "M-34", id=who, falter=result.falter, added=amount, source=source)
    if result.converted:
        for kind, amount_wear in (("R", result.wear_r), ("P", result.wear_p)):
            p.emit(
                "wear_taken",
                "M-34",
                id=who,
                kind=kind,
                amount=amount_wear,
                source=f"{result.converted} Falter converted",
            )
    waste_available_ap(p, who)


def waste_available_ap(p: Pending, who: str) -> None:
    """Falter wastes Readied AP first, then the current Turn's AP (M-34)."""
    c = p.combatant(who)
    for pool in ("readied", "ap"):
        available = c.readied if pool == "readied" else c.ap
        if not c.falter or not available:
            continue
        kept, left = special.waste_ap(c.falter, available)
        p.emit("ap_wasted", "M-34", id=who, pool=pool, ap=available - kept)
        p.emit("falter_set", "M-34", id=who, falter=left, added=0, source="AP wasted")
        if pool == "readied":
            p.emit("readied_set", "M-34", id=who, ap=kept, uses=list(c.ready_uses))
        else:
            p.emit("ap_set", "M-34", id=who, ap=kept)
        c = p.combatant(who)


def add_exertion(p: Pending, who: str, amount: int, self_generated: bool, source: str) -> None:
    """Exertion with the free first 3 of each window (M-4)."""
    if amount <= 0:
        return
    c = p.combatant(who)
    gain = gain_exertion(c.character, amount, c.window_exertion, self_generated)
    p.emit(
        "exertion_set",
        "M-4",
        id=who,
        exertion=gain.character.exertion,
        window=gain.window_total,
        added=gain.added,
        ignored=gain.ignored,
        source=source,
    )
    update_weary(p, who)


def deal_wear(p: Pending, who: str, kind: str, amount: int, source: str, rule: str) -> None:
    """Wear to one combatant (the −40 floor is the character's, M-1)."""
    if amount > 0:
        p.emit("wear_taken", rule, id=who, kind=kind, amount=amount, source=source)
        convert_if_defeated(p, who)


def convert_if_defeated(p: Pending, who: str) -> None:
    """A Defeated elohim's F:# all converts to WearR and WearP at once (M-34)."""
    c = p.state.combatants.get(who)
    if c is not None and c.defeated and c.falter:
        inflict_falter(p, who, 0, "Defeated")


def one_cycle_later(state: WarState) -> EndPoint:
    """'For 1 Cycle': until this point of the next Cycle (M-39, A-20).

    Before the War starts (Cycle 0) it lasts all of Cycle 1: until just before Cycle 2 (A-31).
    """
    if state.cycle == 0:
        return EndPoint(2, 0)
    return EndPoint(state.cycle + 1, max(state.turn, 0))


def run_check(
    p: Pending, who: str, setup: CheckSetup, rng: Rng, purpose: str, rule: str
) -> CheckResult:
    """Roll a Check for ``who`` and record it (M-30, M-31)."""
    result = roll_check(setup, rng)
    report = check_dict(result) if p.describe else None
    p.emit("check_resolved", rule, id=who, purpose=purpose, result=report)
    return result


def check_war_end(p: Pending) -> None:
    """The War ends when one side has no combatant left standing."""
    sides: set[Side] = set()
    standing: set[Side] = set()
    for c in p.state.combatants.values():
        character = c.character
        sides.add(character.side)
        if character.status is not Status.DEFEATED:
            standing.add(character.side)
    if len(sides) == 2 and len(standing) < 2 and not p.state.ended:
        winner = next(iter(standing)).value if standing else None
        p.emit("war_ended", None, winner=winner)


# --- acting -----------------------------------------------------------------------------------


def spend_ap(p: Pending, who: str, cost: int, action: str) -> None:
    """Spend AP from the current Turn, or Readied AP when Standing Ready (M-40, M-41)."""
    c = p.combatant(who)
    if p.state.ended:
        raise RulesError("The War has ended; no more actions can be taken.")
    timed = c.falter_cycle
    if timed is not None:
        until = (
            ""
            if timed.ends is None
            else f" until just before Cycle {timed.ends.cycle}, Turn {timed.ends.turn + 1}"
        )
        raise RulesError(f"{who} is under F:1 Cycle{until}: every AP is wasted (M-34).")
    current = p.state.current
    if current is not None and current.combatant == who and c.ap >= cost:
        p.emit("ap_set", "M-40", id=who, ap=c.ap - cost, spent=cost, action=action)
        return
    use = scroll.use_for(c.ready_uses, action)
    if c.readied >= cost and use is not None:
        uses = [u for i, u in enumerate(c.ready_uses) if i != use]
        p.emit(
            "readied_set", "M-41", id=who, ap=c.readied - cost, uses=uses, spent=cost, action=action
        )
        return
    if c.readied >= cost and c.ready_uses:
        declared = " and ".join(repr(clip(u)) for u in c.ready_uses)
        raise RulesError(
            f"{who}'s {c.readied} Readied AP are declared for {declared}, "
            f"not for {action} (M-41, A-34)."
        )
    whose = "nobody's" if current is None else f"{current.combatant}'s"
    wasted = f" ({c.wasted} wasted by Falter this Turn, M-34)" if c.wasted else ""
    raise RulesError(
        f"{who} cannot {action} for {cost} AP: it is {whose} Turn and {who} has {c.ap} AP"
        f"{wasted} and {c.readied} Readied AP."
    )


def clip(text: str, limit: int = 40) -> str:
    """A value cut to ``limit`` characters for an error message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def require_free(c: Combatant, action: str) -> None:
    """Bound, Grappled and Defeated elohim cannot act this way (M-36, M-37)."""
    if c.defeated:
        raise RulesError(f"{c.id} is Defeated and cannot {action}.")
    if c.bound:
        raise RulesError(f"{c.id} is Bound and cannot {action} (M-36).")
    if c.grappled_by is not None:
        held = "Entangled" if c.entangled_strength is not None else "Grappled"
        raise RulesError(f"{c.id} is {held} by {c.grappled_by} and cannot {action} (M-37).")


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


@dataclass(frozen=True)
class MajestyWar:
    """The Allies of Majesty War as an encounter Game."""

    catalog: Catalog = field(default_factory=builtin_catalog)
    ruleset: Ruleset = STANDARD
    name: str = "majesty-war"
    # Taking the suggestion of these choices opens no other (the Target's Obstruction and
    # Adjustments are the Strike's last choices): the engine need not list them again.
    settles: frozenset[str] = frozenset({"obstruction", "adjustments"})
    # The last Strike decided: (state, key, events, dice used). Listing a Strike's choices
    # decides it on a copy of its dice; the command then decided with the same arguments on
    # the same state and stream reuses those events (issue 21: a Strike about two decides).
    _memo: list[tuple[WarState, str, tuple[Event, ...], int]] = field(
        default_factory=list, compare=False, repr=False
    )

    def initial(self) -> WarState:
        """An empty War Scroll."""
        return WarState()

    def evolve(self, state: WarState, event: Event) -> WarState:
        """Apply one event."""
        return evolve(state, event)

    def decide(self, state: WarState, command: Command, rng: Rng) -> list[Event]:
        """Validate a command and return its events (a Strike just decided: reused)."""
        return self.decide_keyed(state, command, rng, memo_key(command, rng))

    def decide_keyed(
        self, state: WarState, command: Command, rng: Rng, key: str | None
    ) -> list[Event]:
        """:meth:`decide` with ``memo_key(command, rng)`` already made (``key``)."""
        memo = self._memo[0] if self._memo else None
        if key is not None and memo is not None and memo[0] is state and memo[1] == key:
            if isinstance(rng, ScriptedRng):
                rng.used = memo[3]
            return list(memo[2])
        events = self.pending(state, command, rng, describe=True).events
        if key is not None:
            self._memo[:] = [(state, key, tuple(events), getattr(rng, "used", 0))]
        return events

    def choices(self, state: WarState, command: Command, rng: Rng) -> Sequence[Choice]:
        """The choices ``command`` involves and who owns each (issue 11; D-8 … D-13).

        Args:
            state: The War before the command.
            command: The command as sent.
            rng: A throwaway copy of the command's dice stream (each option's outcome is shown
                on the very dice the command will use).
        """
        from tableside.encounter.war_choices import war_choices

        return war_choices(self, state, command, rng)

    def effects(
        self, state: WarState, command: Command, rng: Rng, choice: Choice
    ) -> list[dict[str, Any] | None]:
        """What each option of an asked question does (read when the question is read)."""
        from tableside.encounter.war_choices import war_effects

        return war_effects(self, state, command, rng, choice)

    def play(
        self, state: WarState, command: Command, rng: Rng, describe: bool = False
    ) -> tuple[list[Event], WarState]:
        """Decide a command and return its events with the state after them (= their fold)."""
        p = self.pending(state, command, rng, describe)
        return p.events, p.state

    def pending(self, state: WarState, command: Command, rng: Rng, describe: bool) -> Pending:
        """Run a command's handler on a Pending copy of the state (raise to refuse)."""
        handler = HANDLERS.get(command.kind)
        if handler is None:
            raise RulesError(f"Unknown War command {command.kind!r}; known: {', '.join(HANDLERS)}.")
        p = Pending(state, describe=describe)
        handler(self, p, command.args, rng)
        for who in list(p.state.combatants):
            convert_if_defeated(p, who)  # however it became Defeated (M-34)
        if p.state.current is not None:
            update_weary(p, p.state.current.combatant)  # Stamina may have changed (M-4)
        check_war_end(p)
        return p


# --- command handlers -------------------------------------------------------------------------


def do_add(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
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


def do_remove(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Remove a combatant; its remaining Turns this Cycle are skipped."""
    args = cached_args(IdArgs, raw, "remove")
    p.combatant(args.id)
    p.emit("combatant_removed", "M-40", id=args.id)


def do_next(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
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


def update_weary(p: Pending, who: str) -> None:
    """Weary as soon as Exertion is above current Stamina during its own Turn (M-4, A-32)."""
    current = p.state.current
    c = p.state.combatants.get(who)
    if c is None or current is None or current.combatant != who:
        return
    weary = is_weary(c.character)
    if weary != c.weary:
        p.emit("weary_set", "M-4", id=who, weary=weary)


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


def do_strike(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
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


# Strike options that belong to a Strike Roll, by their command-line names (M-37, A-35).
NOT_IN_GRAPPLER_STRIKE = {
    "maneuvers": "--maneuver", "ranged": "--ranged", "path": "--path",
    "full_defensive_stance": "--full-defensive-stance", "ignore_stops": "--ignore-stops",
    "superiority": "--superiority", "interpose": "interpose",
}  # fmt: skip


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


def grappler_strike(
    game: MajestyWar, p: Pending, args: StrikeArgs, striker: Combatant, defender: Combatant,
    rng: Rng,
) -> None:  # fmt: skip
    """The Grappler's 2-AP Strike on the one it Grapples: a Might vs Might Check (M-37, A-35).

    Its net Passes are the Strike's Hits (Wear by the Grappler's Force and weapon, M-26); it
    costs 2 AP and 2 Exertion and keeps the Grapple.
    """
    for name, option in NOT_IN_GRAPPLER_STRIKE.items():
        if getattr(args, name):
            raise RulesError(
                f"{striker.id}'s 2-AP Strike on {defender.id}, whom it Grapples, is a Might Check, "
                f"not a Strike Roll: {option} does not apply (M-37, A-35)."
            )
    weapon = game.catalog.weapon(args.weapon or striker.character.weapon)
    spend_ap(p, striker.id, special.GRAPPLE_STRIKE_AP, "Strike")
    setup = grappler_check(p.state, args, striker, defender)
    result = run_check(p, striker.id, setup, rng, f"Grappler's Strike on {defender.id}", "M-37")
    flats = (Part("flat Wear", args.wear_flat),) if args.wear_flat else ()
    percents = tuple(
        Part(label, amount)
        for label, amount in ((weapon.name, weapon.wear_percent), ("% Wear", args.wear_percent))
        if amount
    )
    line = special.grapple_strike_wear(
        weapon.wear_kind,
        special.grapple_strike_hits(result),
        striker.character.war.force,
        flats,
        percents,
    )
    deal_wear(p, defender.id, line.kind.value, line.amount, "Grappler's Strike", "M-37")
    add_exertion(p, striker.id, special.GRAPPLE_STRIKE_EXERTION, True, "Grappler's Strike")


def grappler_check(
    state: WarState, args: StrikeArgs, striker: Combatant, defender: Combatant
) -> CheckSetup:
    """The Grappler's Strike's Might Check with the Strike's Boon, tokens and Adjustments."""
    return replace(
        special.grapple_strike_check(
            holder_might(state, striker.id), defender.character.referenced(Attribute.MIGHT)
        ),
        boon=args.boon, bane=args.bane, raw_for=args.striker_adjustments,
        raw_against=args.defender_adjustments, inspiration=args.inspiration,
        obstruction=args.obstruction, mode=args.mode, steps=check_steps(args),
    )  # fmt: skip


def check_steps(args: StrikeArgs) -> tuple[Step, ...]:
    """A Strike's explicit Adjustments on a Check: the Striker rolls, the Defender opposes."""
    sides = {"striker": AdjustSide.ROLLER, "defender": AdjustSide.OPPONENT, None: None}
    return tuple(Step(s.die, s.delta, sides[s.side]) for s in args.steps)


def holder_might(state: WarState, grappler: str) -> int:
    """The Grappler's Might against each one it holds: split evenly when it holds two (M-37)."""
    might = state.get(grappler).character.referenced(Attribute.MIGHT)
    return special.grappler_might(might, len(grappling(state, grappler)))


@dataclass(frozen=True)
class BodyWeapon:
    """A Strike made with a Grappled elohim as the weapon (M-37, A-37)."""

    setup: StrikeSetup
    body: str
    defeated: bool
    body_endurance: int
    target_endurance: int


def body_weapon(
    p: Pending, setup: StrikeSetup, body_id: str, striker: Combatant, defender: Combatant
) -> BodyWeapon:
    """Swing a Grappled elohim at another Target: 80 more Might, WearE, +3 Force if Defeated."""
    body = p.combatant(body_id)
    if body.grappled_by != striker.id:
        raise RulesError(f"{striker.id} is not Grappling {body.id}, so it cannot Strike with it.")
    if body.id == defender.id:
        raise RulesError(
            f"{striker.id} cannot Strike {body.id} with {body.id}; its 2-AP Strike on the one it "
            "Grapples is --two-ap (M-37, A-35)."
        )
    might = holder_might(p.state, striker.id)
    if not special.grappler_options(
        might, body.character.referenced(Attribute.MIGHT)
    ).use_as_weapon:
        raise RulesError(
            f"{striker.id} (Might {might}) needs at least {special.BODY_WEAPON_MARGIN} more Might "
            f"than {body.id} to Strike with it as a weapon (M-37)."
        )
    if setup.options.ranged:
        raise RulesError(f"A Strike with {body.id} as the weapon is a Melee Strike, not Ranged.")
    weapon = Weapon(name=f"{body.id} (Grappled)", wear_kind=WearKind.E)
    force = setup.options.force + (special.DEFEATED_BODY_FORCE if body.defeated else 0)
    return BodyWeapon(
        replace(setup, weapon=weapon, options=replace(setup.options, force=force)),
        body.id,
        body.defeated,
        body.character.current_endurance,
        defender.character.current_endurance,
    )


def body_collision(p: Pending, body: BodyWeapon, result: StrikeResult, target: str) -> None:
    """A non-Defeated body used as a weapon: collision WearE to it and the Target (M-37, M-35).

    The body counts the Strike's Hits regardless of Stops, the Target only uncanceled Hits;
    both at the collision Force of their Endurances before the Strike (A-37).
    """
    if body.defeated:
        return
    wear = special.body_weapon_wear(
        body.body_endurance,
        body.target_endurance,
        result.outcome.hits,
        result.outcome.uncanceled_hits,
    )
    deal_wear(p, body.body, "E", wear.grappled, "used as a weapon (collision)", "M-37")
    deal_wear(p, target, "E", wear.struck, f"struck with {body.body} (collision)", "M-37")


def grappling(state: WarState, who: str) -> list[Combatant]:
    """Everyone ``who`` is Grappling (M-37); the Entangled are held by a source, not by it."""
    return [
        c
        for c in state.combatants.values()
        if c.grappled_by == who and c.entangled_strength is None
    ]


def check_grappler_target(
    state: WarState, striker: Combatant, defender: Combatant, held: list[Combatant]
) -> None:
    """A Grappler may Strike others only with 40 more Might than each one it holds (M-37).

    Holding two, its Might is split evenly between them (M-37, A-36).
    """
    if not held or defender in held:
        return
    might = holder_might(state, striker.id)
    for grappled in held:
        options = special.grappler_options(might, grappled.character.referenced(Attribute.MIGHT))
        if not options.strike_others:
            raise RulesError(
                f"{striker.id} is Grappling {grappled.id} and may Strike another Target only "
                "with at least 40 more Might (M-37)."
            )


def strike_setup(
    game: MajestyWar,
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


def knock_back(p: Pending, who: str, origin: Any, inches: float, rng: Rng) -> None:
    """Knock Back: move away, Control Check Falter, collisions with their Wear (M-35)."""
    c = p.combatant(who)
    end = special.knock_back_destination(origin, c.position, inches)
    others = {o.id: o.position for o in p.state.combatants.values() if o.id != who}
    wall = first_barrier(p.state, c.position, end)
    for hit in special.path_collisions(c.position, end, others):
        if wall is not None and wall.inches_left > hit.inches_left:
            break  # the Barrier comes first on the path
        if not avoided(p, hit.other, rng):  # each elohim met in turn, until one is hit
            collide(p, who, hit, rng)
            end, wall = hit.point, None
            break
    if wall is not None:
        hit_barrier(p, who, wall)
        end = wall.point
    p.emit("moved", "M-35", id=who, to=list(end), inches=inches, ap=0, forced=True)
    setup = special.knock_back_check(c.character.referenced(Attribute.CONTROL), inches)
    result = run_check(p, who, setup, rng, "Knock Back Control Check", "M-35")
    falter = special.knock_back_falter(result.passes_short, inches)
    if falter:
        inflict_falter(p, who, falter, "Knock Back")


def first_barrier(state: WarState, start: Point, end: Point) -> special.Collision | None:
    """The first Barrier the Knock Back's path meets, if any (A-42)."""
    hits = [
        hit
        for name, b in sorted(state.barriers.items())
        if (hit := special.barrier_collision(start, end, b.center, b.radius, name)) is not None
    ]
    return max(hits, key=lambda h: h.inches_left, default=None)


def hit_barrier(p: Pending, who: str, wall: special.Collision) -> None:
    """A Barrier stops the Knock Back: WearE as a collision with its Resolve as Endurance (A-42).

    A Barrier makes no Check and takes no Wear.
    """
    c = p.combatant(who)
    barrier = p.state.barriers[wall.other]
    wear = special.collision_wear(c.character.current_endurance, barrier.resolve, wall.inches_left)
    deal_wear(p, who, "E", wear.knocked, f"collision with the Barrier {wall.other}", "M-35")


def avoided(p: Pending, other: str, rng: Rng) -> bool:
    """The elohim in the way may first try a Swiftness Check to avoid the collision (M-35)."""
    o = p.combatant(other)
    setup = special.avoid_collision_check(o.character.referenced(Attribute.SWIFTNESS))
    result = run_check(p, other, setup, rng, "Swiftness Check to avoid a collision", "M-35")
    return special.avoids_collision(result)


def collide(p: Pending, who: str, hit: special.Collision, rng: Rng) -> None:
    """Collision: the other Falters by its Control Check's Passes short; both take WearE (M-35)."""
    o, c = p.combatant(hit.other), p.combatant(who)
    setup = special.collision_control_check(o.character.referenced(Attribute.CONTROL))
    short = run_check(p, o.id, setup, rng, "collision Control Check", "M-35").passes_short
    if short:
        inflict_falter(p, o.id, short, "collision")
    wear = special.collision_wear(
        c.character.current_endurance, o.character.current_endurance, hit.inches_left
    )
    deal_wear(p, who, "E", wear.knocked, "collision", "M-35")
    deal_wear(p, o.id, "E", wear.other, "collision", "M-35")


def do_move(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Move in 3D for 1 AP per inch, whole inches rounded up."""
    args = cached_args(MoveArgs, raw, "move")
    c = p.combatant(args.id)
    require_free(c, "Move")
    inches = distance(c.position, args.to)
    cost = math.ceil(inches - 1e-9)
    spend_ap(p, c.id, cost, "Move")
    p.emit("moved", "M-40", id=c.id, to=list(args.to), inches=round(inches, 3), ap=cost)


def do_stance(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
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


def do_rest(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
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


def do_stand_ready(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Hold AP for up to two declared uses before the next Turn (M-41)."""
    args = cached_args(ReadyArgs, raw, "stand_ready")
    ready = scroll.stand_ready(args.ap, args.uses)
    c = p.combatant(args.id)
    refused = scroll.refused_while_bound(ready.uses) if c.bound else None
    if refused is not None:
        raise RulesError(
            f"{c.id} is Bound and may Stand Ready only to speak, use Spiritual Effects, Sing or "
            f"Rest, not for {clip(refused)!r} (M-36, A-34)."
        )
    spend_ap(p, c.id, ready.ap, "Stand Ready")
    p.emit("readied_set", "M-41", id=c.id, ap=c.readied + ready.ap, uses=list(ready.uses))


def do_carry_over(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Move AP into the character's next Turn while it has fewer than 7 (M-41)."""
    args = cached_args(CarryArgs, raw, "carry_over")
    c = p.combatant(args.id)
    following = next_turn_ap(p.state, c.id)
    _, new_next = scroll.carry_over(c.ap, following + c.carried, args.ap)
    spend_ap(p, c.id, args.ap, "Carry Over")
    p.emit("carried_set", "M-41", id=c.id, ap=new_next - following)


def next_turn_ap(state: WarState, who: str) -> int:
    """AP of the combatant's next Turn: later in this Cycle, else its first of the next (M-41).

    The next Cycle's first Turn is Segment 1's chunk of the combatant's current Speed (M-40).
    """
    later = [t for t in state.order[state.turn + 1 :] if t.combatant == who]
    if later:
        return later[0].ap
    speed = state.get(who).character.war.speed
    return scroll.turn_chunks(speed)[0] if speed > 0 else 0


def do_break_free(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """3 AP and 3 Exertion per attempt; a Might Check against the Grappler (M-37)."""
    args = cached_args(IdArgs, raw, "break_free")
    c = p.combatant(args.id)
    if c.grappled_by is None:
        raise RulesError(f"{c.id} is not Grappled or Entangled.")
    held_against(p, c)  # refuse before spending anything
    spend_ap(p, c.id, special.BREAK_FREE_AP, "break free")
    add_exertion(p, c.id, special.BREAK_FREE_EXERTION, True, "break free")
    setup = special.break_free_check(c.character.referenced(Attribute.MIGHT), held_against(p, c))
    if special.breaks_free(run_check(p, c.id, setup, rng, "break free Might Check", "M-37")):
        release(p, c.id)


def held_against(p: Pending, c: Combatant) -> int:
    """What breaking free is a Check against: the Grappler's Might or the source's strength.

    Entangled: the Entangling source's strength (Bind: its Resolve Allotment, M-37, A-38).
    Grappled: the Grappler's Might, split when it holds two (A-36).
    """
    if c.entangled_strength is not None:
        return c.entangled_strength
    holder = p.state.combatants.get(c.grappled_by or "")
    if holder is None:
        raise RulesError(
            f"{c.id} is held by {clip(c.grappled_by or '')!r}, which is no combatant and has no "
            "strength to break free against; apply entangled with its strength as --amount "
            "(M-37, A-38)."
        )
    return holder_might(p.state, holder.id)


def do_interpose(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """An elohim in Defensive Stance takes the Strike if it passes a Control Check (M-16)."""
    args = cached_args(InterposeArgs, raw, "interpose")
    c, s, d = p.combatant(args.id), p.combatant(args.striker), p.combatant(args.defender)
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


def do_barrier(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A Barrier raised (or moved) or ended; Knocked Back elohim collide with it (M-35, A-42)."""
    args = cached_args(BarrierArgs, raw, "barrier")
    if not args.on:
        if args.id not in p.state.barriers:
            known = ", ".join(p.state.barriers) or "none"
            raise RulesError(f"There is no Barrier {args.id!r} in this War (known: {known}).")
        p.emit("barrier_removed", "A-42", id=args.id)
        return
    if args.id in p.state.combatants:
        raise RulesError(f"{args.id!r} is a combatant's id; name the Barrier otherwise.")
    p.emit("barrier_set", "A-42", id=args.id, center=list(args.center), radius=args.radius,
           resolve=args.resolve)  # fmt: skip


def do_dominion(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A Spiritual Dominion raised (or moved) or ended; Strikes cannot pass through it (M-15)."""
    args = cached_args(DominionArgs, raw, "dominion")
    if not args.on:
        if args.id not in p.state.dominions:
            known = ", ".join(p.state.dominions) or "none"
            raise RulesError(f"There is no Dominion {args.id!r} in this War (known: {known}).")
        p.emit("dominion_removed", "M-15", id=args.id)
        return
    if args.id in p.state.combatants:
        raise RulesError(f"{args.id!r} is a combatant's id; name the Dominion otherwise.")
    p.emit("dominion_set", "M-15", id=args.id, center=list(args.center), radius=args.radius)


def do_ruleset(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The Host chooses this War's ruleset (Full Defensive Stance, M-17 option, A-41)."""
    args = cached_args(RulesetArgs, raw, "ruleset")
    p.emit("ruleset_set", "M-17", name=args.name, was=p.state.ruleset or game.ruleset.name)


def do_effect(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Apply a special effect by hand (M-34 … M-39)."""
    args = cached_args(EffectArgs, raw, "apply_effect")
    c = p.combatant(args.id)
    EFFECTS[args.effect](p, c, args, rng)


def _flag(name: str, value: Any, rule: str) -> Any:
    def apply(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
        p.emit("condition_set", rule, id=c.id, name=name, value=value)
        if name in ("bound", "asleep") and value:
            convert_falter(p, c.id)

    return apply


def convert_falter(p: Pending, who: str) -> None:
    """Falter already applied converts to Wear when the elohim becomes incapacitated (M-34)."""
    if p.combatant(who).falter:
        inflict_falter(p, who, 0, "incapacitated")


def _grappled(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    if args.by is not None:
        check_grapple(p, p.combatant(args.by), c)
    p.emit("condition_set", "M-37", id=c.id, name="grappled_by", value=args.by or args.source)
    if c.entangled_strength is not None:
        p.emit("condition_set", "M-37", id=c.id, name="entangled_strength", value=None)
    p.emit("stance_set", "M-37", id=c.id, on=False)
    if args.by is not None and p.combatant(args.by).stance:
        p.emit("stance_set", "M-37", id=args.by, on=False, reason="Grappling")
    convert_falter(p, c.id)


def check_grapple(p: Pending, grappler: Combatant, target: Combatant) -> None:
    """One more Grapple: a second only with 40 more Might than the one held, never a third."""
    if grappler.id == target.id:
        raise RulesError(f"{grappler.id} cannot Grapple itself.")
    require_free(grappler, "Grapple")
    held = [h for h in grappling(p.state, grappler.id) if h.id != target.id]
    if not held:
        return
    might = grappler.character.referenced(Attribute.MIGHT)
    why = special.second_grapple_allowed(
        might, [h.character.referenced(Attribute.MIGHT) for h in held]
    )
    if why is not None:
        raise RulesError(
            f"{grappler.id} (Might {might}) cannot Grapple {target.id} as well as "
            f"{', '.join(h.id for h in held)}: {why} (M-37, A-36)."
        )


def _entangled(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    """Entangled by a source of a given strength, not by a Grappler (M-37, A-38)."""
    if args.by is not None:
        raise RulesError(
            "Entangled comes from a source, not a Grappler: give --source (e.g. Bind) and its "
            "strength as --amount, or use grappled --by for a Grappler (M-37, A-38)."
        )
    strength = _amount(args)
    p.emit("condition_set", "M-37", id=c.id, name="grappled_by", value=args.source)
    p.emit("condition_set", "M-37", id=c.id, name="entangled_strength", value=strength)
    p.emit("stance_set", "M-37", id=c.id, on=False)
    convert_falter(p, c.id)


def release(p: Pending, who: str) -> None:
    """No longer Grappled or Entangled (M-37)."""
    c = p.combatant(who)
    p.emit("condition_set", "M-37", id=who, name="grappled_by", value=None)
    if c.entangled_strength is not None:
        p.emit("condition_set", "M-37", id=who, name="entangled_strength", value=None)


def _surprised(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    if args.by is None:
        raise RulesError("Surprised needs --by: the elohim doing the Surprising (M-19).")
    p.combatant(args.by)
    p.emit(
        "condition_set",
        "M-19",
        id=c.id,
        name="surprised_by",
        value=sorted({*c.surprised_by, args.by}),
        ends="just before its next Activation",
    )


def _falter_cycle(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    p.emit(
        "timed_added",
        "M-34",
        id=c.id,
        name="falter_cycle",
        source=args.source,
        ends=one_cycle_later(p.state).to_json(),
    )
    convert_falter(p, c.id)
    waste_all_ap(p, c.id)


def waste_all_ap(p: Pending, who: str) -> None:
    """F:1 Cycle wastes every AP held, Readied AP included (M-34)."""
    c = p.combatant(who)
    if c.readied:
        p.emit("ap_wasted", "M-34", id=who, pool="readied", ap=c.readied, reason="F:1 Cycle")
        p.emit("readied_set", "M-34", id=who, ap=0, uses=[])
    p.emit("ap_wasted", "M-34", id=who, pool="ap", ap=c.ap, reason="F:1 Cycle")
    p.emit("ap_set", "M-34", id=who, ap=0)


def _release_cycle(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    if c.falter_cycle is None:
        raise RulesError(f"{c.id} is not F:1 Cycle.")
    p.emit("timed_expired", "M-34", id=c.id, name="falter_cycle", ends=None, source=args.source)


def _amount(args: EffectArgs) -> int:
    if args.amount != int(args.amount):
        raise RulesError(f"{args.effect} needs a whole number, not {args.amount:g}.")
    return int(args.amount)


def _knock(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
    origin = args.origin
    if origin is None and args.by is not None:
        origin = p.combatant(args.by).position
    if origin is None:
        raise RulesError("Knock Back needs --by (the source elohim) or an origin point (M-35).")
    knock_back(p, c.id, origin, args.amount, rng)


def _wear(kind: str) -> Any:
    def apply(p: Pending, c: Combatant, args: EffectArgs, rng: Rng) -> None:
        deal_wear(p, c.id, kind, _amount(args), args.source, "M-1")

    return apply


EFFECTS: dict[str, Any] = {
    "falter": lambda p, c, a, r: inflict_falter(p, c.id, _amount(a), a.source),
    "falter_cycle": _falter_cycle,
    "release_falter_cycle": _release_cycle,
    "poison": lambda p, c, a, r: p.emit(
        "poison_set", "M-38", id=c.id, poison=special.add_poison(c.poison, _amount(a))
    ),
    "bound": _flag("bound", True, "M-36"),
    "unbound": _flag("bound", False, "M-36"),
    "grappled": _grappled,
    "released": lambda p, c, a, r: release(p, c.id),
    "entangled": _entangled,
    "exposed": _flag("exposed", True, "M-19"),
    "unexposed": _flag("exposed", False, "M-19"),
    "surprised": _surprised,
    "asleep": _flag("asleep", True, "M-34"),
    "awake": _flag("asleep", False, "M-34"),
    "knock_back": _knock,
    "lower_status": lambda p, c, a, r: p.emit(
        "status_lowered", "M-3", id=c.id, ends=one_cycle_later(p.state).to_json(), source=a.source
    ),
    "wear_e": _wear("E"),
    "wear_r": _wear("R"),
    "wear_p": _wear("P"),
    "exertion": lambda p, c, a, r: add_exertion(p, c.id, _amount(a), False, a.source),
}


def do_host_set(game: MajestyWar, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The Host sets a value by hand; logged like everything else."""
    args = cached_args(HostArgs, raw, "host_set")
    c = p.combatant(args.id)
    value = args.value
    if args.field == "position":
        if not isinstance(value, tuple):
            raise RulesError(f"position needs [x, y, z], not {value!r}.")
        p.emit("moved", "host", id=c.id, to=list(value), inches=0, ap=0, host=True)
        return
    if isinstance(value, tuple):
        raise RulesError(f"{args.field} needs a number, not {list(value)!r}.")
    number = int(value)
    host_field(p, c, args.field, number)


def host_field(p: Pending, c: Combatant, name: str, number: int) -> None:
    """One Host adjustment, checked against the rules' bounds."""
    if name != "stance" and number < 0:
        raise RulesError(f"{name} cannot be negative, got {number}.")
    if name == "falter" and number > special.FALTER_CAP:
        raise RulesError(f"Falter cannot exceed F:7 (M-34), got {number}.")
    if name in ("wear_e", "wear_r", "wear_p"):
        kind = WearKind(name[-1].upper())
        wear = replace(c.character.wear, **{kind.value: number})
        p.emit(
            "character_set",
            "host",
            id=c.id,
            character=character_to_data(replace(c.character, wear=wear)),
        )
        return
    simple: dict[str, tuple[str, dict[str, Any]]] = {
        "ap": ("ap_set", {"ap": number}),
        "readied": ("readied_set", {"ap": number, "uses": list(c.ready_uses) or ["host"]}),
        "falter": ("falter_set", {"falter": number, "added": 0, "source": "host"}),
        "poison": ("poison_set", {"poison": number}),
        "exertion": (
            "exertion_set",
            {
                "exertion": number,
                "window": c.window_exertion,
                "added": 0,
                "ignored": 0,
                "source": "host",
            },
        ),
        "stance": ("stance_set", {"on": bool(number)}),
    }
    if name == "status_lowered":
        character = replace(c.character, status_lowered=number)
        p.emit("character_set", "host", id=c.id, character=character_to_data(character))
        return
    event_kind, data = simple[name]
    p.emit(event_kind, "host", id=c.id, host=True, **data)


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


def strike_breakdown(
    game: MajestyWar,
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
