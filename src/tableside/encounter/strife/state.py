"""The state of a Realm of Strife fight and how events change it (S-3 … S-23 on live models)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tableside.encounter.engine import copy_with
from tableside.encounter.log import Event
from tableside.majesty.geometry import Point
from tableside.strife.catalog import Combatant
from tableside.strife.conditions import Condition, add_condition, end_condition, tick_round
from tableside.strife.turns import AooTracker, FreeAttack, RoundTracker

JSON = dict[str, Any]


@dataclass(frozen=True)
class Model:
    """A model in the fight: its sheet (HP and resources live there), side, position, Turn."""

    id: str
    sheet: Combatant
    side: str
    position: Point
    score: int
    conditions: tuple[Condition, ...] = ()
    elements: tuple[str, ...] = ()  # Turn elements used this Turn (S-5)
    moved: float = 0.0
    sprints: int = 0  # consecutive Sprints
    initiative_penalty: int = 0  # Roll with the Blow: −10 on its next acting round (S-19)
    hidden: bool = False
    instant_barred: bool = False  # this Turn's Instant went out of turn (S-4, SA-34)
    fresh: tuple[str, ...] = ()  # conditions put on it during its own Turn: not ticked (SA-50)
    movement_spent: float = 0.0  # Movement its regular Move used this Turn (S-6, SA-51)
    climbed: float = 0.0  # inches climbed in a row (a prolonged climb, S-6, SA-85)
    sprint_round: int = -9  # the round of its last Sprint (consecutive Sprints, S-5, SA-87)
    submerged: bool = False  # fully underwater, as the Host set it (S-16, SA-76)
    perched: bool = False  # above the ground where it climbed to: not flying (SA-90)

    @property
    def down(self) -> bool:
        """Out of the fight at 0 HP."""
        return self.sheet.hp <= 0


@dataclass(frozen=True)
class FightState:
    """The whole fight: models, round, Turn Order, whose Turn, reactions and AoO offers."""

    models: dict[str, Model] = field(default_factory=dict)
    round: int = -1  # -1 before the start; 0 is the ambush round
    ambush: str | None = None
    order: tuple[str, ...] = ()
    turn: int = -1
    rounds: RoundTracker = field(default_factory=RoundTracker)
    aoo: AooTracker = field(default_factory=AooTracker)
    bottom: tuple[str, ...] = ()  # who went to the bottom of the queue this round (S-4)
    offers: tuple[FreeAttack, ...] = ()  # Attacks of Opportunity on offer (S-18)
    last_damaged: str | None = None  # who just took damage (Roll with the Blow, S-19)
    last_damaged_by: str | None = None  # and from whom: it rolls directly away (S-19, SA-44)
    # The current model's Move just made, with nothing after it yet: (mover, from, inches).
    # An Impale answers it "after the opponent has moved, before any other rolls" (S-13, SA-64).
    last_move: tuple[str, Point, float] | None = None
    ended: bool = False
    winner: str | None = None
    # Weapons lying on the ground (thrown, SA-72): (weapon, where), in the order they fell.
    ground: tuple[tuple[str, Point], ...] = ()

    @property
    def current(self) -> str | None:
        """Whose Turn it is."""
        return self.order[self.turn] if 0 <= self.turn < len(self.order) else None

    def with_model(self, model: Model) -> FightState:
        """The state with one model replaced."""
        return copy_with(self, models={**self.models, model.id: model})


def point(data: Any) -> Point:
    """A JSON [x, y, z] as a Point."""
    x, y, z = (float(v) for v in data)
    return (x, y, z)


def condition_from(data: JSON) -> Condition:
    """A condition from its JSON form."""
    return Condition(data["name"], data["source"], data.get("rounds_left"), data.get("until"),
                     bool(data.get("automated")), int(data.get("stacks", 1)))  # fmt: skip


def condition_json(item: Condition) -> JSON:
    """A condition as JSON."""
    return {"name": item.name, "source": item.source, "rounds_left": item.rounds_left,
            "until": item.until, "automated": item.automated, "stacks": item.stacks}  # fmt: skip


def _update(state: FightState, d: JSON, **changes: Any) -> FightState:
    return state.with_model(copy_with(state.models[d["id"]], **changes))


def _added(state: FightState, d: JSON) -> FightState:
    sheet = Combatant.model_validate(d["sheet"])
    perched = bool(d.get("perched", False))  # SA-93; logs before it: above the ground flies
    model = Model(d["id"], sheet, d["side"], point(d["position"]), int(d["score"]), perched=perched)
    return state.with_model(model)


def _round_started(state: FightState, d: JSON) -> FightState:
    # Logs written before SA-50 ticked every model's conditions as a round started.
    models = {k: copy_with(m, conditions=tick_round(m.conditions) if d.get("tick") else
                           m.conditions) for k, m in state.models.items()}  # fmt: skip
    rounds = state.rounds.next_round() if d["round"] > 0 else RoundTracker(0)
    return copy_with(state, models=models, round=int(d["round"]), order=tuple(d["order"]), turn=-1,
                     rounds=rounds, bottom=(), offers=(), ambush=d.get("ambush"))  # fmt: skip


def _turn_started(state: FightState, d: JSON) -> FightState:
    rounds, has_instant = state.rounds.start_turn(d["id"])
    m = state.models[d["id"]]
    elements = () if has_instant else ("instant",)  # used out of turn already (S-4)
    model = copy_with(m, elements=elements, moved=0.0, movement_spent=0.0,
                      instant_barred=not has_instant)  # fmt: skip
    return copy_with(state.with_model(model), turn=int(d["turn"]), rounds=rounds, aoo=AooTracker(),
                     offers=(), last_damaged=None, last_damaged_by=None,
                     last_move=None)  # fmt: skip


def _hp(state: FightState, d: JSON) -> FightState:
    m = state.models[d["id"]]
    sheet = m.sheet.model_copy(update={"hp": int(d["hp"])})
    state = state.with_model(copy_with(m, sheet=sheet))
    if not d.get("damage"):
        return state
    return copy_with(state, last_damaged=d["id"], last_damaged_by=d.get("source"))


def _element(state: FightState, d: JSON) -> FightState:
    """A Turn element; it ends the window for an Impale (SA-64).

    The Action mark that closes a Sprint's Whole Turn does not: its move may still be impaled.
    """
    m = state.models[d["id"]]
    closes_whole_turn = "whole_turn" in m.elements
    last = state.last_move if closes_whole_turn else None
    return copy_with(state.with_model(copy_with(m, elements=(*m.elements, d["element"]))),
                     last_move=last)  # fmt: skip


def _condition(state: FightState, d: JSON) -> FightState:
    m = state.models[d["id"]]
    added = condition_from(d["condition"])
    fresh = (*m.fresh, added.name) if state.current == m.id else m.fresh
    return state.with_model(
        copy_with(m, conditions=add_condition(m.conditions, added), fresh=fresh)
    )


def _moved(state: FightState, d: JSON) -> FightState:
    """A move: the inches add up over the Turn, as does a regular Move's cost (SA-51)."""
    m = state.models[d["id"]]
    own = state.current == m.id and not d.get("host") and not d.get("forced")
    last = (m.id, m.position, float(d["moved"])) if own else None
    to = point(d["to"])
    return copy_with(state.with_model(copy_with(
        m, position=to, moved=m.moved + float(d["moved"]),
        movement_spent=m.movement_spent + float(d.get("cost", 0.0)),
        perched=bool(d["perched"]) if "perched" in d else perched_after(  # SA-93: the Host's
            m, to, moved_itself=not d.get("host") and not d.get("forced")),
    )), last_move=last)  # fmt: skip


def perched_after(m: Model, to: Point, moved_itself: bool) -> bool:
    """Whether a model still holds on where it climbed to after a move (SA-90).

    On the ground it is not perched; a move of its own that changes its height leaves the
    perch (a climbing Move's ``climbed`` event then perches it again); moving on at the same
    height (a ledge), or being put or pushed somewhere by the Host or an effect, keeps it.
    """
    if to[2] <= 0:
        return False
    if moved_itself and to[2] != m.position[2]:
        return False
    return m.perched


def _climbed(state: FightState, d: JSON) -> FightState:
    """Inches climbed in a row (SA-85); a climbing Move perches a model above the ground (SA-90).

    A Move in another mode ends the streak with a total of 0, which leaves the perch as the
    ``moved`` event set it.
    """
    m = state.models[d["id"]]
    total = float(d["total"])
    perched = m.position[2] > 0 if total > 0 else m.perched
    return state.with_model(copy_with(m, climbed=total, perched=perched))


def _ticked(state: FightState, d: JSON) -> FightState:
    """A model's own Turn ended: its round-counted conditions lose a round (SA-50)."""
    m = state.models[d["id"]]
    kept = [c for c in m.conditions if c.name in m.fresh]
    ticked = tick_round([c for c in m.conditions if c.name not in m.fresh])
    return state.with_model(copy_with(m, conditions=(*ticked, *kept), fresh=()))


def _condition_ended(state: FightState, d: JSON) -> FightState:
    m = state.models[d["id"]]
    return state.with_model(copy_with(m, conditions=end_condition(m.conditions, d["name"])))


def _reaction(state: FightState, d: JSON) -> FightState:
    return copy_with(
        state, rounds=state.rounds.spend_reaction(d["id"], bool(d.get("failed_parry")))
    )


def _owed(state: FightState, d: JSON) -> FightState:
    return copy_with(state, rounds=state.rounds.use_out_of_turn_instant(d["id"]))


def _offers(state: FightState, d: JSON) -> FightState:
    offers = tuple(FreeAttack(o["attacker"], o["weapon"], o["target"]) for o in d["offers"])
    return copy_with(state, offers=(*state.offers, *offers))


def _aoo_used(state: FightState, d: JSON) -> FightState:
    used = dict(state.aoo.used)
    used[d["attacker"]] = used.get(d["attacker"], frozenset()) | {d["weapon"]}
    offers = tuple(o for o in state.offers
                   if not (o.attacker == d["attacker"] and o.weapon == d["weapon"]))  # fmt: skip
    return copy_with(state, aoo=AooTracker(used), offers=offers)


def _aoo_declined(state: FightState, d: JSON) -> FightState:
    """An Attack of Opportunity its owner let go: the offer is gone (S-18, D-14)."""
    offers = tuple(o for o in state.offers
                   if not (o.attacker == d["attacker"] and o.weapon == d["weapon"]
                           and o.target == d["target"]))  # fmt: skip
    return copy_with(state, offers=offers)


def _resources(state: FightState, d: JSON) -> FightState:
    m = state.models[d["id"]]
    sheet = Combatant.model_validate(
        {**m.sheet.model_dump(mode="json"), "resources": d["resources"]}
    )
    return state.with_model(copy_with(m, sheet=sheet))


def _thrown(state: FightState, d: JSON) -> FightState:
    """A thrown weapon leaves the hand and lies where it landed (SA-72)."""
    m = state.models[d["id"]]
    if d.get("hand"):
        m = copy_with(m, sheet=m.sheet.model_copy(update={d["hand"]: None}))
    lying = (*state.ground, (str(d["weapon"]), point(d["at"])))
    return copy_with(state.with_model(m), ground=lying)


def _picked_up(state: FightState, d: JSON) -> FightState:
    """A weapon on the ground taken into a free hand (SA-72)."""
    m = state.models[d["id"]]
    m = copy_with(m, sheet=m.sheet.model_copy(update={d["hand"]: d["weapon"]}))
    at, ground = point(d["at"]), list(state.ground)
    ground.remove((str(d["weapon"]), at))
    return copy_with(state.with_model(m), ground=tuple(ground))


EVOLVE: dict[str, Callable[[FightState, JSON], FightState]] = {
    "model_added": _added,
    "model_removed": lambda s, d: copy_with(
        s, models={k: v for k, v in s.models.items() if k != d["id"]}
    ),
    "round_started": _round_started,
    "turn_started": _turn_started,
    "order_set": lambda s, d: copy_with(s, order=tuple(d["order"]), turn=int(d["turn"])),
    "bottom_of_queue": lambda s, d: copy_with(s, bottom=(*s.bottom, d["id"])),
    "element_used": _element,
    "moved": _moved,
    "hp_set": _hp,
    "condition_added": _condition,
    "conditions_ticked": _ticked,
    "condition_ended": _condition_ended,
    "reaction_spent": _reaction,
    "instant_owed": _owed,
    "aoo_offered": _offers,
    "aoo_used": _aoo_used,
    "aoo_declined": _aoo_declined,
    "sprinted": lambda s, d: _update(s, d, sprints=int(d["sprints"]), sprint_round=s.round),
    "climbed": _climbed,
    "initiative_penalty": lambda s, d: _update(s, d, initiative_penalty=int(d["penalty"])),
    "hidden_set": lambda s, d: _update(s, d, hidden=bool(d["hidden"])),
    "resources_set": _resources,
    "fight_ended": lambda s, d: copy_with(s, ended=True, winner=d.get("winner")),
    "weapon_thrown": _thrown,
    "picked_up": _picked_up,
    "submerged_set": lambda s, d: _update(s, d, submerged=bool(d["submerged"])),
}


INFORMATIONAL = {"attack_resolved", "cast_resolved", "test_resolved", "initiative_rolled",
                 "turn_ended", "note", "effect_rolled", "combined_resolved"}  # fmt: skip


def evolve(state: FightState, event: Event) -> FightState:
    """Apply one event to the fight."""
    if event.kind in INFORMATIONAL:
        return state
    return EVOLVE[event.kind](state, event.data)
