"""The fast War simulator: many runs of the War policy, played by a compiled kernel.

Every run of a batch holds its state in arrays (runs × combatants): Wear, Status lowerings,
Exertion and its window, Falter, Poison, AP, 12 Effects this Turn, positions, the Cycle's War
Scroll and whose Turn it is. The kernel (``fast_kernel``) plays each run command after command,
chosen by the War policy (``encounter/policy.py``) and applied in the order the engine applies
its events (``encounter/war/``). A Strike is not rolled: its consequences are drawn from the
exact law of the odds engine (``fast_laws.strike_table``), cached per deciding state (the two
combatants' Strike signatures, the Passion Effect's triggers and the 12 Effects already counted
this Turn). A combatant's derived values (Status, Stamina, Speed, Swiftness, Passion, Resolve)
come from the engine's own ``Character`` built once per state (a *form*); the kernel asks this
module for each form, table and War Scroll it does not know yet (:meth:`Batch.supply`).

What it models is what the War policy can meet from a War without Dominions (Grapples,
Entanglements and F:1 Cycle held at the start are played, F-30; Stances, Readied and carried
AP, Exposed, Surprised, Bound and Asleep combatants, F-55 … F-58; ranged-only weapons, F-59);
:func:`unsupported` names the first thing a start state has outside that, and the simulation
then runs the full engine instead (docs/simulate.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from tableside.encounter.war.state import Combatant, Timed, WarState
from tableside.majesty import scroll
from tableside.majesty.catalog import Catalog, Weapon, builtin_catalog
from tableside.majesty.character import Attribute, Character, Side, Status, Wear
from tableside.majesty.rolls import dice_to_roll, net_boon
from tableside.majesty.ruleset import RULESETS, STANDARD, Ruleset
from tableside.majesty.strike import (
    DefenderState,
    StrikeOptions,
    StrikeSetup,
    passion_triggers,
)
from tableside.simulate import fast_kernel as kernel
from tableside.simulate import fast_laws as fl
from tableside.simulate.fast_kernel import (
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
    FREE,
    FULL_STANCE,
    HELD_BY_SOURCE,
    MAX_SURPRISERS,
    MOVE,
    NEXT,
    NO_END,
    REST,
    STANCE,
    STRIKE,
    TIMED_SLOTS,
    TURN_BASE,
    WEAR_LIMIT,
)
from tableside.simulate.runs import COMMAND_CAP, SimulationError

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

MAX_DICE = 16
FORMS_KEPT = 16_384  # Characters of forms kept in a process (form_character)
__all__ = ["MOVE", "NEXT", "REST", "STRIKE", "TURN_BASE", "Batch", "distances", "unsupported"]
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
    kernel.distances_of(flat_a, flat_b, out)
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
    if state.dominions:
        return "Spiritual Dominions"
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


@dataclass
class Roster:
    """What never changes in a run: ids, sides, weapons, tie-breaks, the id order."""

    ids: list[str]
    side: I64
    sides_present: int
    weapons: list[Weapon]
    tiebreak: list[int]
    by_id: I64  # combatant indices sorted by id (policy ties: lowest id)
    endurance: I64  # natural Endurance (an Epic Defeat sets Wear E to it + 40)
    per_turn: list[int]  # the weapon's 12 Effects per Turn cap (0 when none)
    ruleset: Ruleset = STANDARD  # the War's (Full Defensive Stance, M-17, A-41)


class Laws:
    """Strike tables per (striker, defender form, Passion triggers, 12 Effects, Grappled)."""

    def __init__(self, forms: Forms, roster: Roster, catalog: Catalog) -> None:
        self.forms, self.roster, self.catalog = forms, roster, catalog
        self.index = KeyIndex()
        self.tables: list[fl.StrikeTable] = []
        self.rollers: dict[int, fl.Roller] = {}
        self._flat: tuple[I64, F64, I64, I64, I64] | None = None
        span = kernel.PASSION_SPAN
        self.triggers = np.array([passion_triggers(d) for d in range(-span, span + 1)],
                                 dtype=np.int64)  # fmt: skip

    def build(self, keys: I64, args: I64) -> None:
        """The tables of these kernel keys (one per key, from its first Strike's ``args``).

        ``args`` per key: striker form, defender form, 12 Effects this Turn, condition code.
        """
        self.index.find(keys, lambda k, i: self._build(*(int(v) for v in args[i])))

    def setup(self, striker: int, defender: int, twelves: int, code: int = 0) -> StrikeSetup:
        """The Strike as the engine's ``strike_setup`` builds it for the policy's plain Strike.

        ``code``: the Defender's state, the Striker's Stance, a Ranged Strike
        (:func:`defender_state`, ``fast_kernel.condition_code``).
        """
        forms = self.forms
        a, d = forms.character[striker], forms.character[defender]
        return StrikeSetup(
            a, d, self.catalog.weapon(a.weapon), self.catalog.weapon(d.weapon), (),
            defender_state(code)[0], strike_options(code, twelves), ruleset=self.roster.ruleset,
        )  # fmt: skip

    def roller(self, table: int) -> fl.Roller:
        """The engine's resolution of an ambiguous table's Strike from its dice."""
        found = self.rollers.get(table)
        if found is None:
            found = self.rollers[table] = fl.Roller(self.tables[table].setup)
        return found

    def _build(self, striker: int, defender: int, twelves: int, code: int) -> int:
        setup = self.setup(striker, defender, twelves, code)
        self.tables.append(fl.strike_table(setup, table_key(setup)))
        self._flat = None
        return len(self.tables) - 1

    def flat(self) -> tuple[I64, F64, I64, I64, I64]:
        """Each table's first row, their cumulative probabilities, rows, ambiguity, dice."""
        if self._flat is None:
            sizes = [len(t.rows) for t in self.tables]
            start = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
            if self.tables:
                cumulative = np.concatenate([t.cumulative for t in self.tables])
                rows = np.concatenate([t.rows for t in self.tables]).astype(np.int64)
            else:
                cumulative, rows = np.zeros(0), np.zeros((0, fl.COLUMNS), dtype=np.int64)
            ambiguous = np.array([int(t.ambiguous) for t in self.tables], dtype=np.int64)
            dice = np.array([_dice(t.setup) for t in self.tables], dtype=np.int64)
            self._flat = (start, cumulative, rows, ambiguous, dice)
        return self._flat


class Scrolls:
    """War Scrolls (the Turns of a Cycle) per row of Scroll places, as the kernel reads them."""

    def __init__(self, forms: Forms, roster: Roster) -> None:
        self.forms, self.roster = forms, roster
        self.found: dict[tuple[int, ...], int] = {}
        self.rows: list[tuple[int, ...]] = []
        self.hashes: list[int] = []
        self.orders: list[list[tuple[int, int]]] = []
        self._arrays: tuple[I64, I64, I64, I64, I64, I64] | None = None

    def add(self, row: tuple[int, ...], hashed: int) -> int:
        """The War Scroll of these places (−1: Defeated, not in it); its length."""
        if row not in self.found:
            self.found[row] = len(self.rows)
            self.rows.append(row)
            self.hashes.append(hashed)
            self.orders.append(self.scroll(row))
            self._arrays = None
        return len(self.orders[self.found[row]])

    def scroll(self, shaped: tuple[int, ...]) -> list[tuple[int, int]]:
        """The Turns of a Cycle (combatant, AP) for these Scroll places (``majesty.scroll``)."""
        entrants = []
        for form in shaped:
            if form < 0:
                continue
            i, speed, swiftness = self.forms.scroll_values[form]
            holy = int(self.roster.side[i]) == 0
            tiebreak = self.roster.tiebreak[i]
            entrants.append(scroll.Entrant(self.roster.ids[i], speed, swiftness, holy, tiebreak))
        index = {name: i for i, name in enumerate(self.roster.ids)}
        return [
            (index[t.combatant], t.ap)
            for segment in scroll.war_scroll(entrants)
            for t in segment.turns
        ]

    def arrays(self, c: int) -> tuple[I64, I64, I64, I64, I64, I64]:
        """Sorted hashes, their scrolls, the place rows, lengths, combatants and AP."""
        if self._arrays is None:
            k = len(self.rows)
            width = max([len(o) for o in self.orders] + [1])
            hashes = np.array(self.hashes, dtype=np.int64)
            order = np.argsort(hashes, kind="stable").astype(np.int64)
            rows = np.array(self.rows, dtype=np.int64).reshape(k, c)
            sizes = np.array([len(o) for o in self.orders], dtype=np.int64)
            who, ap = np.zeros((k, width), dtype=np.int64), np.zeros((k, width), dtype=np.int64)
            for s, turns in enumerate(self.orders):
                for t, (combatant, points) in enumerate(turns):
                    who[s, t], ap[s, t] = combatant, points
            self._arrays = (hashes[order], order, rows, sizes, who, ap)
        return self._arrays


class Batch:
    """``n`` runs of one War, played by the compiled kernel (``fast_kernel``)."""

    def __init__(self, state: WarState, n: int, known: Batch | None = None) -> None:
        """``n`` runs from ``state``.

        ``known``: a batch of the same start whose forms, Strike tables and Scrolls are reused.
        """
        self.catalog: Catalog = builtin_catalog() if known is None else known.catalog
        combatants = list(state.combatants.values())
        self.n, self.c = n, len(combatants)
        index = {c.id: i for i, c in enumerate(combatants)}
        weapons = [self.catalog.weapon(c.character.weapon) for c in combatants]
        sides = [0 if c.character.side == Side.HOLY else 1 for c in combatants]
        self.roster = Roster(
            [c.id for c in combatants], np.array(sides, dtype=np.int64), len(set(sides)), weapons,
            [c.tiebreak for c in combatants],
            np.array(sorted(range(self.c), key=lambda i: combatants[i].id), dtype=np.int64),
            np.array([c.character.natural.endurance for c in combatants], dtype=np.int64),
            [(w.twelve_effect.max_per_turn or 0) if w.twelve_effect else 0 for w in weapons],
            STANDARD if state.ruleset is None else RULESETS[state.ruleset],
        )  # fmt: skip
        if known is None:
            self.forms = Forms([c.character for c in combatants])
            self.laws = Laws(self.forms, self.roster, self.catalog)
            self.scrolls = Scrolls(self.forms, self.roster)
        else:
            self.forms, self.laws, self.scrolls = known.forms, known.laws, known.scrolls
        self.per_turn = np.array(self.roster.per_turn, dtype=np.int64)
        width = max(len(state.order), 1, *(len(o) for o in self.scrolls.orders))
        self._allocate(width)
        s = self.runs
        for i, c in enumerate(combatants):
            character = c.character
            s.wear[:, i] = (character.wear.E, character.wear.R, character.wear.P)
            s.lowered[:, i], s.epic[:, i] = character.status_lowered, character.defeated_by_epic
            s.exertion[:, i], s.window[:, i] = character.exertion, c.window_exertion
            s.falter[:, i], s.poison[:, i], s.ap[:, i] = c.falter, c.poison, c.ap
            s.twelves[:, i], s.weary[:, i] = c.twelves_this_turn, c.weary
            s.pos[:, i] = c.position
            s.held[:, i] = holder(c, index)
            s.readied[:, i], s.carried[:, i] = c.readied, c.carried
            s.cond[:, i], s.surprised[:, i] = conditions(c), surprisers(c, index)
            for slot, timed in enumerate(_lowerings(c)):
                assert timed.ends is not None
                s.ends[:, i, slot] = timed.ends.cycle * TURN_BASE + timed.ends.turn
            s.fcycle[:, i] = falter_cycle_end(c)
        cycle_ends = [int(v) for v in s.fcycle[0] if v > 0]
        s.next_end[:] = min([int(_first_end(s.ends[:1])[0]), *cycle_ends])
        s.cycle[:], s.turn[:], s.ended[:], s.winner[:] = state.cycle, state.turn, state.ended, -1
        for i, t in enumerate(state.order):
            s.order_c[:, i], s.order_ap[:, i] = index[t.combatant], t.ap
        s.order_n[:] = len(state.order)
        who = np.tile(np.arange(self.c, dtype=np.int64), (n, 1))
        s.form[:] = self.forms.lookup(who, s.wear, s.lowered, s.epic)
        self.needs = kernel.Needs(
            np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
            np.zeros((n, 4), dtype=np.int64), np.zeros((n, self.c), dtype=np.int64),
            np.zeros((n, fl.COLUMNS), dtype=np.int64), np.zeros(n, dtype=np.int64),
            np.zeros(n, dtype=np.int64), np.zeros((n, MAX_DICE), dtype=np.int64),
        )  # fmt: skip

    def _allocate(self, width: int) -> None:
        """The runs' state, one packed row per run (War Scrolls up to ``width`` Turns)."""
        n, c = self.n, self.c
        per_combatant = ("lowered", "epic", "exertion", "window", "falter", "poison", "ap",
                         "twelves", "weary", "held", "readied", "carried", "cond", "surprised",
                         "fcycle")  # fmt: skip
        per_run = ("next_end", "cycle", "turn", "order_n", "ended", "winner", "commands")
        sizes = [
            ("wear", 3 * c), ("taken", 3 * c), *((name, c) for name in per_combatant),
            ("ends", TIMED_SLOTS * c), ("form", c), *((name, 1) for name in per_run),
            ("order_c", width), ("order_ap", width),
        ]  # fmt: skip
        packed = np.zeros((n, sum(size for _, size in sizes)), dtype=np.int64)
        old = getattr(self, "runs", None)
        views: dict[str, Any] = {}
        at = 0
        for name, size in sizes:
            view = packed[:, at : at + size]
            if name in ("wear", "taken"):
                view = view.reshape(n, c, 3)
            elif name == "ends":
                view = view.reshape(n, c, TIMED_SLOTS)
            elif name not in ("order_c", "order_ap") and size == 1:
                view = view.reshape(n)
            if old is not None:
                before = getattr(old, name)
                if name in ("order_c", "order_ap"):
                    view[:, : before.shape[1]] = before
                else:
                    view[...] = before
            views[name] = view
            at += size
        pos = np.zeros((n, c, 3)) if old is None else old.pos
        self.runs = kernel.Runs(**views, packed=packed, pos=pos)
        self.width = width

    # --- the state, as arrays (runs × combatants) ------------------------------------------------

    @property
    def wear(self) -> I64:
        """Wear E, R, P (runs × combatants × 3)."""
        return self.runs.wear

    @property
    def taken(self) -> I64:
        """Wear taken in the run (the sum of its ``wear_taken`` events)."""
        return self.runs.taken

    @property
    def lowered(self) -> I64:
        """Status lowerings."""
        return self.runs.lowered

    @property
    def epic(self) -> I64:
        """Epic Defeat (M-24)."""
        return self.runs.epic

    @property
    def exertion(self) -> I64:
        """Exertion (M-4)."""
        return self.runs.exertion

    @property
    def window(self) -> I64:
        """Exertion in the current window (the first 3 self-generated are free, M-4)."""
        return self.runs.window

    @property
    def falter(self) -> I64:
        """F:# (M-34)."""
        return self.runs.falter

    @property
    def poison(self) -> I64:
        """Poison (M-38)."""
        return self.runs.poison

    @property
    def ap(self) -> I64:
        """AP (M-40)."""
        return self.runs.ap

    @property
    def twelves(self) -> I64:
        """12 Effects counted this Turn (M-21)."""
        return self.runs.twelves

    @property
    def weary(self) -> B:
        """Weary (M-4)."""
        return np.asarray(self.runs.weary != 0)

    @property
    def held(self) -> I64:
        """Who holds each combatant (M-37): a Grappler's index, ``FREE`` or ``HELD_BY_SOURCE``.

        ``FREE`` is −1; ``HELD_BY_SOURCE`` (−2) is Entangled, or held by no combatant.
        """
        return self.runs.held

    @property
    def readied(self) -> I64:
        """Readied AP (M-41)."""
        return self.runs.readied

    @property
    def carried(self) -> I64:
        """AP carried over into the next Turn (M-41)."""
        return self.runs.carried

    @property
    def cond(self) -> I64:
        """Conditions kept from the start (``fast_kernel.STANCE`` …)."""
        return self.runs.cond

    @property
    def surprised(self) -> I64:
        """Who Surprised each combatant, a bit per Surpriser, until its next Turn (M-19)."""
        return self.runs.surprised

    @property
    def fcycle(self) -> I64:
        """F:1 Cycle's End Point (0: none; ``NO_END``: until released; M-34)."""
        return self.runs.fcycle

    @property
    def ends(self) -> I64:
        """End Points of timed Status lowerings (cycle · 4096 + turn; 0: a free slot)."""
        return self.runs.ends

    @property
    def form(self) -> I64:
        """Each combatant's form (:class:`Forms`)."""
        return self.runs.form

    @property
    def pos(self) -> F64:
        """Positions (runs × combatants × x, y, z)."""
        return self.runs.pos

    @property
    def cycle(self) -> I64:
        """The Cycle."""
        return self.runs.cycle

    @property
    def turn(self) -> I64:
        """Whose Turn: the index in the War Scroll (−1 before the first)."""
        return self.runs.turn

    @property
    def order_n(self) -> I64:
        """Turns in the Cycle's War Scroll."""
        return self.runs.order_n

    @property
    def order_c(self) -> I64:
        """The War Scroll's combatants."""
        return self.runs.order_c

    @property
    def order_ap(self) -> I64:
        """The War Scroll's AP per Turn."""
        return self.runs.order_ap

    @property
    def ended(self) -> B:
        """Whether the War has ended."""
        return np.asarray(self.runs.ended != 0)

    @property
    def winner(self) -> I64:
        """The winning side (0 holy, 1 fallen, −1 none)."""
        return self.runs.winner

    @property
    def commands(self) -> I64:
        """Commands played."""
        return self.runs.commands

    # --- the kernel --------------------------------------------------------------------------

    def known(self) -> kernel.Known:
        """What the kernel looks up, as it stands."""
        start, cumulative, rows, ambiguous, dice = self.laws.flat()
        forms = self.forms
        roster = self.roster
        return kernel.Known(
            roster.side, roster.by_id, roster.endurance, self.per_turn, roster.sides_present,
            forms.index.keys, forms.index.values, forms.table, self.laws.triggers,
            self.laws.index.keys, self.laws.index.values, start, cumulative, rows, ambiguous, dice,
            *self.scrolls.arrays(self.c),
            np.array([reach(w) for w in roster.weapons], dtype=np.float64),
        )  # fmt: skip

    def advance(self, rows: I64, rest: bool, cap: int, limit: int,
                rng: np.random.Generator) -> None:  # fmt: skip
        """Up to ``limit`` commands of each run, supplying what the kernel asks for.

        The runs draw from streams keyed by one number drawn from ``rng`` (``fast_kernel
        .uniform``): run ``r``'s draws depend only on that key and ``r``.
        """
        rows = np.asarray(rows, dtype=np.int64)
        base = int(rng.integers(0, 1 << 63))
        while len(rows):
            code, _ = kernel.play(
                self.runs, self.known(), self.needs, rows, rest, cap, COMMAND_CAP, limit, base,
                np.empty(self.runs.packed.shape[1], dtype=np.int64), np.empty((self.c, 3)),
            )  # fmt: skip
            if code:
                raise SimulationError(kernel.ERRORS[code])
            rows = np.flatnonzero(self.needs.kind)
            self.supply(rows)

    def supply(self, rows: I64) -> None:
        """What these runs wait for: forms, Strike tables, War Scrolls, rolled Strikes."""
        needs = self.needs
        kind = needs.kind[rows]
        forms = rows[kind == kernel.NEED_FORM]
        if len(forms):
            self.forms.index.find(needs.key[forms], lambda k, _: self.forms.build(k))
        tables = rows[kind == kernel.NEED_TABLE]
        if len(tables):
            self.laws.build(needs.key[tables], needs.args[tables])
        for r in rows[kind == kernel.NEED_SCROLL].tolist():
            size = self.scrolls.add(tuple(needs.row[r].tolist()), int(needs.key[r]))
            if size > self.width:
                self._allocate(size)
        rolls = rows[kind == kernel.NEED_ROLL]
        if len(rolls):  # ambiguous Strikes: the dice rolled, resolved by the engine's functions
            rollers = [self.laws.roller(t) for t in needs.args[rolls, 0].tolist()]
            dice = needs.dice[rolls].tolist()
            for r, roller, rolled in zip(rolls.tolist(), rollers, dice, strict=True):
                needs.pending[r] = roller.row(tuple(rolled[: roller.dice]))
            needs.has_pending[rolls] = 1
        needs.kind[rows] = 0

    def choose(self, rows: I64, rest: bool) -> tuple[I64, I64, I64, F64, I64]:
        """The War policy's command per run: kind, who, target, gap, Rest AP (policy.py)."""
        rows = np.asarray(rows, dtype=np.int64)
        out, gap = np.zeros((4, len(rows)), dtype=np.int64), np.zeros(len(rows))
        kernel.choose_many(self.runs, self.known(), rows, rest, out, gap)
        return out[0], out[1], out[2], gap, out[3]

    def step(self, rows: I64, rest: bool, rng: np.random.Generator,
             forced: I64 | None = None) -> None:  # fmt: skip
        """One command of each of these runs (``forced``: Strike consequences, for tests)."""
        if forced is not None:
            self.needs.pending[rows] = forced
            self.needs.has_pending[rows] = 1
        self.advance(rows, rest, 1 << 62, 1, rng)
        self.needs.has_pending[rows] = 0

    def play(self, cap: int, rest: bool, rng: np.random.Generator) -> None:
        """Play every run to its end, the cap on Cycles, or the cap on commands."""
        self.advance(np.arange(self.n, dtype=np.int64), rest, cap, COMMAND_CAP, rng)

    def fallen(self) -> B:
        """Defeated at the end, per run and combatant."""
        return np.asarray(self.forms.status[self.form] == DEFEATED)


def holder(c: Combatant, index: dict[str, int]) -> int:
    """Who holds ``c`` (M-37): its Grappler's index, ``FREE``, or ``HELD_BY_SOURCE``.

    A Grappler is a combatant named by ``grappled_by`` without an Entangling strength (the
    engine's ``grappling``); Entangled by a source, or held by a name that is no combatant, it
    stays held and no combatant can release it by a Strike.
    """
    if c.grappled_by is None:
        return FREE
    if c.entangled_strength is None and c.grappled_by in index:
        return index[c.grappled_by]
    return HELD_BY_SOURCE


def _dice(setup: StrikeSetup) -> int:
    """How many d12 the Strike rolls (M-7); at most :data:`MAX_DICE`."""
    count = dice_to_roll(net_boon(setup.options.boon, setup.options.bane))
    if count > MAX_DICE:
        raise SimulationError(f"A Strike rolling {count} dice is beyond the fast path.")
    return count


def _first_end(ends: I64) -> I64:
    """Per run, the earliest End Point of its timed lowerings (a huge number for none)."""
    return np.asarray(np.where(ends > 0, ends, NO_END).min(axis=(1, 2)), dtype=np.int64)


def side_name(code: int) -> str | None:
    """The winner's side name."""
    return None if code < 0 else (Side.HOLY.value if code == 0 else Side.FALLEN.value)
