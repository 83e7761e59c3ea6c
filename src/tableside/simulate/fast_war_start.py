"""The fast War simulator's reading of a start state: what it plays, forms and Strike keys.

What a War's start state holds that the fast engine does not model (:func:`unsupported`,
F-10), the derived Characters of each form a combatant takes (Wear, Status lowerings, Epic
results), and the keys Strike tables are kept by (:func:`table_key`). Split from
``fast_war`` (issue 23); the batch that plays the runs stays there.
"""

from __future__ import annotations

import math
from dataclasses import fields, replace
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from tableside.encounter.war.state import Combatant, Timed, WarState
from tableside.majesty.catalog import Catalog, Weapon
from tableside.majesty.character import Attribute, Character, Status, Wear
from tableside.majesty.strike import (
    DefenderState,
    StrikeOptions,
    StrikeSetup,
    passion_triggers,
)
from tableside.simulate import fast_kernel_base as kb
from tableside.simulate.fast_kernel_base import (
    ASLEEP,
    BOUND,
    D_BOUND,
    D_EXPOSED,
    D_FULL,
    D_GRAPPLED,
    D_RANGED,
    D_STANCE,
    D_STRIKER_STANCE,
    D_SURPRISED,
    DEFEATED,
    EXPOSED,
    FULL_STANCE,
    MAX_SURPRISERS,
    NO_END,
    STANCE,
    TIMED_SLOTS,
    TURN_BASE,
    WEAR_LIMIT,
)
from tableside.simulate.runs import SimulationError

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

MAX_DICE = 16
FORMS_KEPT = 16_384  # Characters of forms kept in a process (form_character)
STATUS_CODE = {Status.NORMAL: 0, Status.WEAKENED: 1, Status.DEFEATED: 2}


def distances(a: F64, b: F64) -> F64:
    """``math.dist`` of CPython 3.11 on pairs of points (last axis: x, y, z), bit for bit.

    Its ``vector_norm`` (power-of-two scaling, exact squares by Veltkamp-Dekker splitting,
    compensated sums, a square root with one differential correction), compiled
    (``fast_kernel.distance``). :data:`EXACT_DISTANCES` says whether this interpreter's
    ``math.dist`` agrees (checked on import); if not, the fast engine is not used.
    """
    flat_a = np.ascontiguousarray(a, dtype=np.float64).reshape(-1, 3)
    flat_b = np.ascontiguousarray(np.broadcast_to(b, a.shape), dtype=np.float64).reshape(-1, 3)
    out = np.empty(len(flat_a))
    kb.distances_of(flat_a, flat_b, out)
    return out.reshape(a.shape[:-1])


def _distances_agree() -> bool:
    """Whether :func:`distances` is this interpreter's ``math.dist`` on a fixed sample."""
    generator = np.random.default_rng(15)
    a = np.round(generator.uniform(-20, 20, (3000, 3)) * 8) / 8
    b = a + generator.normal(0, 1, a.shape) * generator.choice([1e-6, 0.5, 3.0], (3000, 1))
    ours: list[float] = distances(a, b).tolist()
    return ours == [math.dist(p, q) for p, q in zip(a.tolist(), b.tolist(), strict=True)]


EXACT_DISTANCES = _distances_agree()


def unsupported(state: WarState, catalog: Catalog) -> str | None:
    """Why the fast simulator cannot play this War (None: it can)."""
    if not EXACT_DISTANCES:
        return "this Python's math.dist differs from the fast engine's distances"
    index = {name: i for i, name in enumerate(state.combatants)}
    for c in state.combatants.values():
        reason = _combatant_unsupported(c, catalog)
        if any(index.get(by, MAX_SURPRISERS) >= MAX_SURPRISERS for by in c.surprised_by):
            reason = reason or f"Surprised by one beyond the first {MAX_SURPRISERS} combatants"
        if reason:
            return f"{c.id}: {reason}"
    if any(t.combatant not in state.combatants for t in state.order):
        return "a removed combatant still in the War Scroll"
    return None


def _combatant_unsupported(c: Combatant, catalog: Catalog) -> str | None:
    checks = (
        (any(not _played(t) for t in c.timed), "a timed effect"),
        (len(_lowerings(c)) > TIMED_SLOTS // 2, "many timed lowerings"),
        (reach(catalog.weapon(c.character.weapon)) < 0, "a ranged-only weapon without a range"),
        (c.character.natural.endurance + 40 >= WEAR_LIMIT // 2, "a huge Endurance"),
    )  # fmt: skip
    return next((label for bad, label in checks if bad), None)


def _played(timed: Timed) -> bool:
    """A timed Status lowering with an End Point, or F:1 Cycle (M-34, M-39; F-30)."""
    return timed.name == "falter_cycle" or (timed.name == "status_lowered" and bool(timed.ends))


def _lowerings(c: Combatant) -> list[Timed]:
    return [t for t in c.timed if t.name == "status_lowered"]


def falter_cycle_end(c: Combatant) -> int:
    """F:1 Cycle's End Point as the kernel codes it: 0 none, ``NO_END`` until released (M-34)."""
    timed = c.falter_cycle
    if timed is None:
        return 0
    return NO_END if timed.ends is None else timed.ends.cycle * TURN_BASE + timed.ends.turn


class KeyIndex:
    """Integer keys to integer values, found for many keys at once without sorting them."""

    def __init__(self) -> None:
        self.keys = np.zeros(0, dtype=np.int64)
        self.values = np.zeros(0, dtype=np.int64)

    def find(self, keys: I64, make: Any) -> I64:
        """The values of ``keys``; ``make(key, position)`` gives the value of a new key."""
        flat = keys.ravel()
        spot = np.searchsorted(self.keys, flat)
        spot = np.minimum(spot, max(len(self.keys) - 1, 0))
        known = (self.keys[spot] == flat) if len(self.keys) else np.zeros(len(flat), dtype=bool)
        if not known.all():
            new, position = np.unique(flat[~known], return_index=True)
            where = np.flatnonzero(~known)[position]
            made = [make(int(k), int(i)) for k, i in zip(new.tolist(), where.tolist(), strict=True)]
            grown = np.concatenate([self.keys, new])
            order = np.argsort(grown, kind="stable")
            self.keys = grown[order]
            self.values = np.concatenate([self.values, np.array(made, dtype=np.int64)])[order]
            spot = np.searchsorted(self.keys, flat)
        return np.asarray(self.values[spot], dtype=np.int64).reshape(keys.shape)


class Forms:
    """Each combatant's derived values per (Wear E, R, P, Status lowerings, Epic Defeat).

    Per form: its Status code, Stamina, the form whose Character stands for it in Strike tables
    (:func:`strike_signature`) and its place in the War Scroll (:func:`scroll_signature`), kept
    in arrays that grow as new forms appear.
    """

    def __init__(self, characters: list[Character]) -> None:
        self.characters = characters
        self.ids: dict[int, int] = {}
        self.index = KeyIndex()
        self.character: list[Character] = []
        self.strike_forms: dict[tuple[Any, ...], int] = {}
        self.scroll_forms: dict[tuple[Any, ...], int] = {}
        self.scroll_values: list[tuple[int, int, int]] = []  # combatant, Speed, Swiftness
        self.size = 0
        # status, stamina, strike, scroll, referenced Passion, Resolve and Might
        self.table = np.zeros((7, 64), dtype=np.int64)

    def key(self, who: I64, wear: I64, lowered: I64, epic: I64) -> I64:
        """One integer per state (who, Wear E/R/P, lowerings, Epic Defeat)."""
        if wear.size and int(wear.max()) >= WEAR_LIMIT:
            raise SimulationError("A simulated combatant took more Wear than the fast path counts.")
        code = (wear[..., 0] * WEAR_LIMIT + wear[..., 1]) * WEAR_LIMIT + wear[..., 2]
        return np.asarray(((code * 16 + lowered) * 2 + epic) * 64 + who, dtype=np.int64)

    def lookup(self, who: I64, wear: I64, lowered: I64, epic: I64) -> I64:
        """Form ids of many states (new forms are built through the engine's Character)."""
        return self.index.find(self.key(who, wear, lowered, epic), lambda k, _: self.build(k))

    def build(self, key: int) -> int:
        """The form of a key (:meth:`key`), built through the engine's Character."""
        rest, who = divmod(key, 64)
        rest, epic = divmod(rest, 2)
        code, lowered = divmod(rest, 16)
        code, wear_p = divmod(code, WEAR_LIMIT)
        wear_e, wear_r = divmod(code, WEAR_LIMIT)
        character = form_character(self.characters[who], Wear(wear_e, wear_r, wear_p), lowered,
                                   bool(epic))  # fmt: skip
        form = self.size
        if form == self.table.shape[1]:
            self.table = np.concatenate([self.table, np.zeros_like(self.table)], axis=1)
        status = STATUS_CODE[character.status]
        strike = self.strike_forms.setdefault(strike_signature(character), form)
        place = (who, character.war.speed, character.referenced(Attribute.SWIFTNESS))
        scroll_form = -1 if status == DEFEATED else self.scroll_forms.setdefault(
            place, len(self.scroll_forms))  # fmt: skip
        if scroll_form == len(self.scroll_values):
            self.scroll_values.append(place)
        self.table[:, form] = (
            status, character.war.stamina, strike, scroll_form,
            character.referenced(Attribute.PASSION), character.referenced(Attribute.RESOLVE),
            character.referenced(Attribute.MIGHT),
        )  # fmt: skip
        self.ids[key] = form
        self.character.append(character)
        self.size += 1
        return form

    @property
    def status(self) -> I64:
        """Status code per form (0 normal, 1 Weakened, 2 Defeated)."""
        return np.asarray(self.table[0], dtype=np.int64)

    @property
    def stamina(self) -> I64:
        """Stamina per form."""
        return np.asarray(self.table[1], dtype=np.int64)

    @property
    def strike(self) -> I64:
        """The form whose Character stands for this one in Strike tables."""
        return np.asarray(self.table[2], dtype=np.int64)

    @property
    def passion(self) -> I64:
        """Referenced Passion per form (M-25)."""
        return np.asarray(self.table[4], dtype=np.int64)

    @property
    def resolve(self) -> I64:
        """Referenced Resolve per form (M-25)."""
        return np.asarray(self.table[5], dtype=np.int64)

    @property
    def might(self) -> I64:
        """Referenced Might per form (a Grappler's margin, M-37)."""
        return np.asarray(self.table[6], dtype=np.int64)

    @property
    def scroll(self) -> I64:
        """The form's place in the War Scroll (combatant, Speed, Swiftness); −1 when Defeated."""
        return np.asarray(self.table[3], dtype=np.int64)


@lru_cache(maxsize=FORMS_KEPT)
def form_character(base: Character, wear: Wear, lowered: int, epic: bool) -> Character:
    """A combatant's Character in one form (Wear, Status lowerings, Epic Defeat, no Exertion).

    Shared by every batch of the process, so that a changed roster's batch finds the forms of
    the combatants it kept with their derived values already computed (F-25).
    """
    return replace(base, wear=wear, status_lowered=lowered, defeated_by_epic=epic, exertion=0)


def strike_signature(character: Character) -> tuple[Any, ...]:
    """What a plain Strike reads from a Character, as Striker or Defender, but Passion/Resolve.

    Precision and Force (the Striker's roll and Wear, M-18, M-26), Guard and Force (the
    Defender's, and its Defensive Hits, M-17, M-23), Status (a Defeated Defender has Guard 0,
    M-17), Tier (effects × Target Tier, M-28) and the weapon. Passion and Resolve enter only as
    the Passion Effect's triggers (M-25), a key of their own (:meth:`Laws.table_ids`). Two pairs
    with the same signatures and triggers give the same Strike table whatever else differs
    (tests/test_simulate_fast.py checks it on many pairs, so a rule that starts reading more
    fails there until this follows).
    """
    war = character.war
    return (
        character.weapon, character.tier, character.status, war.precision, war.force, war.guard,
    )  # fmt: skip


def table_key(setup: StrikeSetup) -> str:
    """What a Strike table of the kernel depends on: the kernel's own key, outside a batch.

    The two characters enter only through their Strike signatures and the Passion Effect's
    triggers (:func:`strike_signature`), the rest of the setup as it is; so a later batch, of
    this roster or another, finds the table wherever the same Strike was met before (F-25).
    """
    a, d = setup.striker, setup.defender
    triggers = passion_triggers(a.referenced(Attribute.PASSION) - d.referenced(Attribute.RESOLVE))
    rest = [getattr(setup, f.name) for f in fields(setup) if f.name not in ("striker", "defender")]
    return repr((strike_signature(a), strike_signature(d), triggers, rest))


def reach(weapon: Weapon) -> float:
    """A ranged-only weapon's range (M-15, M-27); 0 for one that Strikes in melee, −1 for none."""
    if weapon.melee:
        return 0.0
    return float(weapon.ranged_range) if weapon.ranged_range else -1.0


def conditions(c: Combatant) -> int:
    """The combatant's conditions as the kernel keeps them (``fast_kernel.STANCE`` …)."""
    flags = ((c.stance, STANCE), (c.stance and c.full_stance, FULL_STANCE), (c.bound, BOUND),
             (c.asleep, ASLEEP), (c.exposed, EXPOSED))  # fmt: skip
    return sum(flag for on, flag in flags if on)


def surprisers(c: Combatant, index: dict[str, int]) -> int:
    """Who Surprised it (M-19), a bit per combatant index (:func:`unsupported` bounds them)."""
    return sum(1 << index[by] for by in set(c.surprised_by))


def defender_state(code: int) -> tuple[DefenderState, bool]:
    """The Defender's state and the Striker's Stance of a kernel condition code.

    As ``war.strike_setup`` builds them (M-17, M-19, M-36, M-37): see
    ``fast_kernel.condition_code``.
    """
    state = DefenderState(
        defensive_stance=bool(code & D_STANCE), full_defensive_stance=bool(code & D_FULL),
        grappled=bool(code & D_GRAPPLED), bound=bool(code & D_BOUND),
        exposed=bool(code & D_EXPOSED), surprised=bool(code & D_SURPRISED),
    )  # fmt: skip
    return state, bool(code & D_STRIKER_STANCE)


def strike_options(code: int, twelves: int) -> StrikeOptions:
    """The policy's plain Strike's options: Ranged, the Striker's Stance, 12 Effects counted."""
    return StrikeOptions(ranged=bool(code & D_RANGED), striker_in_stance=defender_state(code)[1],
                         twelve_effects_this_turn=twelves)  # fmt: skip
