"""The fast Realm of Strife engine's run: the fight's roster and one run's state (F-8).

:class:`Roster` holds what does not change in a fight; :class:`Run` everything the policy and
the rules it meets read, as :mod:`fast_strife` keeps it; :func:`view` names its numbers for the
exact-transition tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tableside.encounter.engine import copy_with
from tableside.encounter.strife.policy import (
    castable_powers,
    pool_of,
    reaction_for,
)
from tableside.encounter.strife.state import FightState
from tableside.majesty.geometry import Point
from tableside.simulate import fast_strife_places as places
from tableside.strife.catalog import Catalog, PowerEntry, Resource
from tableside.strife.conditions import (
    Condition,
)
from tableside.strife.loadout import loadout
from tableside.strife.turns import RoundTracker

ROLLED_BACK = "Roll with the Blow"
dist = math.dist  # ``geometry.distance`` is ``math.dist``: called directly in the hot loop
Choice = tuple[Any, ...]  # ("next",) | ("move", i, to) | ("attack", i, j, reaction) | ...


@dataclass(frozen=True)
class Roster:
    """What does not change in a fight: ids, sides, sheets' numbers, weapons, reactions."""

    ids: tuple[str, ...]
    side: tuple[str, ...]
    hp_max: tuple[int, ...]
    movement: tuple[int, ...]
    score: tuple[int, ...]
    initiative: tuple[int, ...]
    weapons: tuple[tuple[str, ...], ...]  # equipped weapons, first the policy's (S-18)
    reaction: tuple[str | None, ...]  # what the policy declares while the Reaction lasts
    foes: dict[str, tuple[int, ...]]  # per side, the models of the other sides
    powers: tuple[tuple[PowerEntry, ...], ...] = ()  # what the policy casts (F-40), per model
    shooting: tuple[frozenset[str], ...] = ()  # ranged weapons, per model (F-62)
    absorption: tuple[int, ...] = ()  # Absorption %, per model (F-64)
    sneaks: tuple[bool, ...] = ()  # hidden: half its Movement for a Move, per model (F-69)
    swims: tuple[bool, ...] = ()  # under water, not aquatic: swims, per model (F-70)
    submerged: tuple[bool, ...] = ()  # under water: ranges through water count 2 (F-70)


def roster_of(state: FightState, catalog: Catalog) -> Roster:
    """The static part of a fight."""
    models = list(state.models.values())
    fresh = copy_with(state, rounds=RoundTracker())
    return Roster(
        ids=tuple(m.id for m in models),
        side=tuple(m.side for m in models),
        hp_max=tuple(m.sheet.hp_max for m in models),
        movement=tuple(m.sheet.movement for m in models),
        score=tuple(m.score for m in models),
        initiative=tuple(m.sheet.initiative for m in models),
        weapons=tuple(tuple(w.name for w in loadout(catalog, m.sheet).weapons) for m in models),
        reaction=tuple(reaction_for(catalog, fresh, m) for m in models),
        foes={
            side: tuple(i for i, m in enumerate(models) if m.side != side)
            for side in {m.side for m in models}
        },
        powers=tuple(castable_powers(catalog, m.sheet) for m in models),
        shooting=tuple(_shooting(catalog, m) for m in models),
        absorption=tuple(m.sheet.absorption for m in models),
        sneaks=places.sneaking(models),
        swims=places.swimming(models),
        submerged=tuple(m.submerged for m in models),
    )


def _shooting(catalog: Catalog, m: Any) -> frozenset[str]:
    """The ranged weapons a model holds (F-62)."""
    return frozenset(w.name for w in loadout(catalog, m.sheet).weapons if w.ranged)


class Run:
    """One run's state (F-8): everything the policy and the rules it meets read."""

    __slots__ = ("aoo", "barred", "bottom", "conds", "elements", "ended", "failed", "fresh",
                 "hp", "last_by", "last_damaged", "moved", "offers", "order", "owes", "penalty",
                 "perched", "pools", "pos", "reacted", "round", "spent", "turn",
                 "winner")  # fmt: skip

    def __init__(self, state: FightState, roster: Roster) -> None:
        index = {who: i for i, who in enumerate(roster.ids)}
        models = [state.models[who] for who in roster.ids]
        self.hp = [m.sheet.hp for m in models]
        self.pos: list[Point] = [m.position for m in models]
        self.perched = [m.perched for m in models]  # where it climbed to: not flying (F-71)
        self.conds: list[tuple[Condition, ...]] = [m.conditions for m in models]
        self.fresh: list[tuple[str, ...]] = [m.fresh for m in models]
        self.elements: list[tuple[str, ...]] = [m.elements for m in models]
        self.moved = [m.moved for m in models]
        self.spent = [m.movement_spent for m in models]
        self.penalty = [m.initiative_penalty for m in models]
        self.round = state.round
        self.order = [index[who] for who in state.order]
        self.turn = state.turn
        self.reacted = {index[who] for who in state.rounds.reactions_spent}
        self.failed = {index[who] for who in state.rounds.failed_parry}
        self.bottom = frozenset(index[who] for who in state.bottom)  # this round's (S-4, F-68)
        self.aoo = {index[who]: set(w) for who, w in state.aoo.used.items()}
        self.offers = [(index[o.attacker], o.weapon, index[o.target]) for o in state.offers]
        self.last_damaged = index.get(state.last_damaged or "")
        self.last_by = index.get(state.last_damaged_by or "")
        self.ended, self.winner = state.ended, state.winner
        self.pools = [pools_of(m, powers) for m, powers in zip(models, roster.powers, strict=True)]
        self.owes = {index[who] for who in state.rounds.owes_instant if who in index}  # F-74
        self.barred = [m.instant_barred for m in models]  # this Turn's instant went out of turn

    def copy(self) -> Run:
        """A copy to play on (the start is shared by every run of a batch)."""
        new = Run.__new__(Run)
        new.hp, new.pos, new.conds, new.fresh = (
            [*self.hp],
            [*self.pos],
            [*self.conds],
            [*self.fresh],
        )
        new.perched = [*self.perched]
        new.elements, new.moved, new.spent = [*self.elements], [*self.moved], [*self.spent]
        new.penalty, new.order, new.offers = [*self.penalty], [*self.order], [*self.offers]
        new.reacted, new.failed, new.bottom = set(self.reacted), set(self.failed), self.bottom
        new.aoo = {k: set(v) for k, v in self.aoo.items()}
        new.pools = [*self.pools]  # each dict is replaced, never changed (``Rules.cast``)
        new.round, new.turn, new.last_damaged, new.last_by = (
            self.round, self.turn, self.last_damaged, self.last_by)  # fmt: skip
        new.ended, new.winner = self.ended, self.winner
        new.owes, new.barred = set(self.owes), [*self.barred]
        return new

    @property
    def current(self) -> int | None:
        """Whose Turn it is."""
        return self.order[self.turn] if 0 <= self.turn < len(self.order) else None


def view(run: Run, roster: Roster) -> dict[str, Any]:
    """Every number the fast engine keeps, by name (the exact-transition tests compare it)."""
    ids = roster.ids
    return {
        "hp": dict(zip(ids, run.hp, strict=True)),
        "position": dict(zip(ids, run.pos, strict=True)),
        "perched": dict(zip(ids, run.perched, strict=True)),
        "conditions": dict(zip(ids, run.conds, strict=True)),
        "fresh": dict(zip(ids, run.fresh, strict=True)),
        "elements": dict(zip(ids, run.elements, strict=True)),
        "moved": dict(zip(ids, run.moved, strict=True)),
        "movement_spent": dict(zip(ids, run.spent, strict=True)),
        "initiative_penalty": dict(zip(ids, run.penalty, strict=True)),
        "round": run.round,
        "order": tuple(ids[i] for i in run.order),
        "turn": run.turn,
        "reactions_spent": frozenset(ids[i] for i in run.reacted),
        "failed_parry": frozenset(ids[i] for i in run.failed),
        "bottom": frozenset(ids[i] for i in run.bottom),
        "aoo_used": {ids[i]: frozenset(w) for i, w in run.aoo.items()},
        "offers": tuple((ids[a], w, ids[t]) for a, w, t in run.offers),
        "last_damaged": None if run.last_damaged is None else ids[run.last_damaged],
        "last_damaged_by": None if run.last_by is None else ids[run.last_by],
        "ended": run.ended,
        "winner": run.winner,
        "resources": {ids[i]: pools for i, pools in enumerate(run.pools) if pools},
        "owes_instant": frozenset(ids[i] for i in run.owes),
        "instant_barred": frozenset(ids[i] for i, barred in enumerate(run.barred) if barred),
    }


def engine_view(state: FightState, roster: Roster) -> dict[str, Any]:
    """The same numbers read from the engine's state."""
    return view(Run(state, roster), roster)


def pools_of(model: Any, powers: tuple[PowerEntry, ...]) -> dict[Resource, int]:
    """The pools a model's castable powers are paid from, as its sheet holds them."""
    return {e.resource: pool_of(model.sheet, e) for e in powers if e.resource is not None}
