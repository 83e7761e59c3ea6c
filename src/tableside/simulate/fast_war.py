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

What it models is what the War policy can meet from a War (Grapples, Entanglements and F:1
Cycle held at the start are played, F-30; Stances, Readied and carried AP, Exposed, Surprised,
Bound and Asleep combatants, F-55 … F-58; ranged-only weapons, F-59; Spiritual Dominions, whose
refused Strikes give way to a Rest or the end of the Turn as in the full engine, F-65, F-66);
:func:`unsupported` names the first thing a start state has outside that, and the simulation
then runs the full engine instead (docs/simulate.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tableside.encounter.war.state import Combatant, WarState
from tableside.majesty import scroll
from tableside.majesty.catalog import Catalog, Weapon, builtin_catalog
from tableside.majesty.character import Side
from tableside.majesty.rolls import dice_to_roll, net_boon
from tableside.majesty.ruleset import RULESETS, STANDARD, Ruleset
from tableside.majesty.strike import (
    StrikeSetup,
    passion_triggers,
)
from tableside.simulate import fast_kernel as kernel
from tableside.simulate import fast_kernel_base as kb
from tableside.simulate import fast_laws as fl
from tableside.simulate.fast_kernel_base import (
    DEFEATED,
    FREE,
    HELD_BY_SOURCE,
    MOVE,
    NEXT,
    NO_END,
    REST,
    STRIKE,
    TIMED_SLOTS,
    TURN_BASE,
)
from tableside.simulate.fast_war_start import (
    MAX_DICE,
    Forms,
    KeyIndex,
    _lowerings,
    conditions,
    defender_state,
    distances,
    falter_cycle_end,
    reach,
    strike_options,
    surprisers,
    table_key,
    unsupported,
)
from tableside.simulate.runs import COMMAND_CAP, SimulationError

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

__all__ = ["MOVE", "NEXT", "REST", "STRIKE", "TURN_BASE", "Batch", "distances", "unsupported"]


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
        span = kb.PASSION_SPAN
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
        self.dominions = np.array([(*d.center, d.radius) for d in state.dominions.values()],
                                  dtype=np.float64).reshape(-1, 4)  # fmt: skip
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
        self.needs = kb.Needs(
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
        self.runs = kb.Runs(**views, packed=packed, pos=pos)
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

    def known(self) -> kb.Known:
        """What the kernel looks up, as it stands."""
        start, cumulative, rows, ambiguous, dice = self.laws.flat()
        forms = self.forms
        roster = self.roster
        return kb.Known(
            roster.side, roster.by_id, roster.endurance, self.per_turn, roster.sides_present,
            forms.index.keys, forms.index.values, forms.table, self.laws.triggers,
            self.laws.index.keys, self.laws.index.values, start, cumulative, rows, ambiguous, dice,
            *self.scrolls.arrays(self.c),
            np.array([reach(w) for w in roster.weapons], dtype=np.float64), self.dominions,
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
                raise SimulationError(kb.ERRORS[code])
            rows = np.flatnonzero(self.needs.kind)
            self.supply(rows)

    def supply(self, rows: I64) -> None:
        """What these runs wait for: forms, Strike tables, War Scrolls, rolled Strikes."""
        needs = self.needs
        kind = needs.kind[rows]
        forms = rows[kind == kb.NEED_FORM]
        if len(forms):
            self.forms.index.find(needs.key[forms], lambda k, _: self.forms.build(k))
        tables = rows[kind == kb.NEED_TABLE]
        if len(tables):
            self.laws.build(needs.key[tables], needs.args[tables])
        for r in rows[kind == kb.NEED_SCROLL].tolist():
            size = self.scrolls.add(tuple(needs.row[r].tolist()), int(needs.key[r]))
            if size > self.width:
                self._allocate(size)
        rolls = rows[kind == kb.NEED_ROLL]
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
