"""The state of a War (M-34 … M-41 on live combatants) and how events change it.

The state is immutable: :func:`evolve` returns a new state for each event. Events are the
vocabulary of ``docs/events.md``; deciding which events a command produces is
the rest of ``tableside.encounter.war`` (:mod:`.commands` and the modules it calls).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tableside.encounter.engine import copy_with
from tableside.encounter.log import Event
from tableside.majesty.character import Character, Status, WearKind
from tableside.majesty.formats import character_from_data
from tableside.majesty.geometry import Barrier, Dominion, Point

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True, order=True)
class EndPoint:
    """A point of the War Scroll: just before Turn ``turn`` (0-based) of Cycle ``cycle`` (M-39)."""

    cycle: int
    turn: int

    def to_json(self) -> JSON:
        """Plain JSON."""
        return {"cycle": self.cycle, "turn": self.turn}

    @classmethod
    def from_json(cls, data: JSON) -> EndPoint:
        """Inverse of :meth:`to_json`."""
        return cls(int(data["cycle"]), int(data["turn"]))


@dataclass(frozen=True, slots=True)
class Timed:
    """A timed effect and where it ends (M-39); ``ends`` None means at the victim's next Turn."""

    name: str
    source: str
    ends: EndPoint | None = None


@dataclass(frozen=True, slots=True)
class ScrollTurn:
    """One Turn of the Cycle's play order (M-40)."""

    combatant: str
    segment: str
    ap: int


@dataclass(frozen=True)
class Combatant:
    """A character in the War with everything the War tracks about it."""

    id: str
    character: Character
    position: Point
    tiebreak: int = 0
    ap: int = 0
    readied: int = 0
    ready_uses: tuple[str, ...] = ()
    carried: int = 0
    falter: int = 0
    poison: int = 0
    window_exertion: int = 0
    stance: bool = False
    full_stance: bool = False  # Full Defensive Stance (M-17, A-39)
    bound: bool = False
    asleep: bool = False
    grappled_by: str | None = None
    entangled_strength: int | None = None  # an Entangling source's strength (M-37)
    exposed: bool = False
    surprised_by: tuple[str, ...] = ()
    timed: tuple[Timed, ...] = ()
    twelves_this_turn: int = 0
    wasted: int = 0  # AP of this Turn wasted by Falter (M-34), named when a Strike is refused
    weary: bool = False

    @property
    def falter_cycle(self) -> Timed | None:
        """The F:1 Cycle effect, if any (M-34)."""
        return next((t for t in self.timed if t.name == "falter_cycle"), None)

    @property
    def converts_falter(self) -> bool:
        """F:# converts entirely while F:1 Cycle, Bound, Grappled, Asleep or Defeated (M-34)."""
        defeated = self.character.status == Status.DEFEATED
        return (
            bool(self.falter_cycle)
            or self.bound
            or self.asleep
            or defeated
            or (self.grappled_by is not None)
        )

    @property
    def defeated(self) -> bool:
        """Status Defeated (M-1, M-3, M-24)."""
        return self.character.status == Status.DEFEATED

    @property
    def effectively_exposed(self) -> bool:
        """Exposed, or Bound (a Bound elohim is also Exposed, M-36)."""
        return self.exposed or self.bound


@dataclass(frozen=True)
class WarState:
    """The whole War: combatants, the Cycle, its play order and whose Turn it is (M-40)."""

    combatants: dict[str, Combatant] = field(default_factory=dict)
    cycle: int = 0
    order: tuple[ScrollTurn, ...] = ()
    turn: int = -1
    ended: bool = False
    winner: str | None = None
    dominions: dict[str, Dominion] = field(default_factory=dict)  # M-15, A-40
    barriers: dict[str, Barrier] = field(default_factory=dict)  # M-35, A-42
    ruleset: str | None = None  # the War's options once the Host chose them (M-17, A-41)

    @property
    def now(self) -> EndPoint:
        """The current point of the War Scroll."""
        return EndPoint(self.cycle, max(self.turn, 0))

    @property
    def current(self) -> ScrollTurn | None:
        """Whose Turn it is, if the War has started."""
        return self.order[self.turn] if 0 <= self.turn < len(self.order) else None

    def get(self, combatant: str) -> Combatant:
        """A combatant by id (the caller has validated it)."""
        return self.combatants[combatant]

    def with_combatant(self, combatant: Combatant) -> WarState:
        """The state with one combatant replaced."""
        return copy_with(self, combatants={**self.combatants, combatant.id: combatant})


def point(data: Any) -> Point:
    """A JSON [x, y, z] as a Point."""
    x, y, z = (float(v) for v in data)
    return (x, y, z)


def _timed(data: JSON) -> Timed:
    ends = data.get("ends")
    return Timed(
        str(data["name"]), str(data["source"]), None if ends is None else EndPoint.from_json(ends)
    )


# --- evolve: one small function per event kind ------------------------------------------------


def _added(state: WarState, d: JSON) -> WarState:
    character = character_from_data(d["character"], f"combatant {d['id']}")
    combatant = Combatant(d["id"], character, point(d["position"]), tiebreak=int(d["tiebreak"]))
    return state.with_combatant(combatant)


def _removed(state: WarState, d: JSON) -> WarState:
    rest = {k: v for k, v in state.combatants.items() if k != d["id"]}
    return copy_with(state, combatants=rest)


def _cycle_started(state: WarState, d: JSON) -> WarState:
    order = tuple(ScrollTurn(t["combatant"], t["segment"], int(t["ap"])) for t in d["order"])
    return copy_with(state, cycle=int(d["cycle"]), order=order, turn=-1)


def _turn_started(state: WarState, d: JSON) -> WarState:
    state = copy_with(state, turn=int(d["turn"]))
    c = state.get(d["id"])
    return state.with_combatant(
        copy_with(
            c, ap=0, carried=0, window_exertion=0, twelves_this_turn=0, surprised_by=(), wasted=0
        )
    )


def _update(state: WarState, d: JSON, **changes: Any) -> WarState:
    return state.with_combatant(copy_with(state.get(d["id"]), **changes))


def _wear(state: WarState, d: JSON) -> WarState:
    c = state.get(d["id"])
    character = c.character.take_wear(WearKind(d["kind"]), int(d["amount"]))
    return state.with_combatant(copy_with(c, character=character))


def _exertion(state: WarState, d: JSON) -> WarState:
    c = state.get(d["id"])
    character = c.character.with_exertion(int(d["exertion"]))
    return state.with_combatant(copy_with(c, character=character, window_exertion=int(d["window"])))


def _status_lowered(state: WarState, d: JSON) -> WarState:
    c = state.get(d["id"])
    timed = (*c.timed, Timed("status_lowered", d["source"], EndPoint.from_json(d["ends"])))
    return state.with_combatant(copy_with(c, character=c.character.lower_status(), timed=timed))


def _defeated(state: WarState, d: JSON) -> WarState:
    c = state.get(d["id"])
    return state.with_combatant(copy_with(c, character=c.character.defeat_by_epic()))


def _timed_added(state: WarState, d: JSON) -> WarState:
    c = state.get(d["id"])
    kept = tuple(t for t in c.timed if t.name != d["name"] or d["name"] == "status_lowered")
    return state.with_combatant(copy_with(c, timed=(*kept, _timed(d))))


def _timed_expired(state: WarState, d: JSON) -> WarState:
    c = state.get(d["id"])
    index = next(i for i, t in enumerate(c.timed) if t.name == d["name"])
    timed = c.timed[:index] + c.timed[index + 1 :]
    character = c.character
    if d["name"] == "status_lowered":
        character = character.with_status_lowered(max(0, character.status_lowered - 1))
    return state.with_combatant(copy_with(c, timed=timed, character=character))


def _character_set(state: WarState, d: JSON) -> WarState:
    character = character_from_data(d["character"], f"combatant {d['id']}")
    return _update(state, d, character=character)


def _condition(state: WarState, d: JSON) -> WarState:
    value = d["value"]
    if d["name"] == "surprised_by":
        value = tuple(value)
    return _update(state, d, **{d["name"]: value})


EVOLVE: dict[str, Callable[[WarState, JSON], WarState]] = {
    "combatant_added": _added,
    "combatant_removed": _removed,
    "cycle_started": _cycle_started,
    "turn_started": _turn_started,
    "turn_skipped": lambda s, d: copy_with(s, turn=int(d["turn"])),
    "ap_set": lambda s, d: _update(s, d, ap=int(d["ap"])),
    "readied_set": lambda s, d: _update(s, d, readied=int(d["ap"]), ready_uses=tuple(d["uses"])),
    "carried_set": lambda s, d: _update(s, d, carried=int(d["ap"])),
    "falter_set": lambda s, d: _update(s, d, falter=int(d["falter"])),
    "poison_set": lambda s, d: _update(s, d, poison=int(d["poison"])),
    "wear_taken": _wear,
    "exertion_set": _exertion,
    "status_lowered": _status_lowered,
    "defeated": _defeated,
    "timed_added": _timed_added,
    "timed_expired": _timed_expired,
    "moved": lambda s, d: _update(s, d, position=point(d["to"])),
    "stance_set": lambda s, d: _update(
        s, d, stance=bool(d["on"]), full_stance=bool(d["on"]) and bool(d.get("full", False))
    ),
    "condition_set": _condition,
    "ap_wasted": lambda s, d: (
        _update(s, d, wasted=s.get(d["id"]).wasted + int(d["ap"])) if d["pool"] == "ap" else s
    ),
    "twelves_counted": lambda s, d: _update(s, d, twelves_this_turn=int(d["count"])),
    "weary_set": lambda s, d: _update(s, d, weary=bool(d["weary"])),
    "character_set": _character_set,
    "war_ended": lambda s, d: copy_with(s, ended=True, winner=d["winner"]),
    "dominion_set": lambda s, d: copy_with(
        s, dominions={**s.dominions, d["id"]: Dominion(point(d["center"]), float(d["radius"]))}
    ),
    "barrier_set": lambda s, d: copy_with(
        s,
        barriers={
            **s.barriers,
            d["id"]: Barrier(point(d["center"]), float(d["radius"]), int(d["resolve"])),
        },
    ),
    "barrier_removed": lambda s, d: copy_with(
        s, barriers={k: v for k, v in s.barriers.items() if k != d["id"]}
    ),
    "dominion_removed": lambda s, d: copy_with(
        s, dominions={k: v for k, v in s.dominions.items() if k != d["id"]}
    ),
    "ruleset_set": lambda s, d: copy_with(s, ruleset=str(d["name"])),
}
INFORMATIONAL = {"strike_resolved", "check_resolved", "turn_ended", "note"}


def evolve(state: WarState, event: Event) -> WarState:
    """Apply one event to the War."""
    if event.kind in INFORMATIONAL:
        return state
    return EVOLVE[event.kind](state, event.data)
