"""The fast War simulator: many runs of the War policy advanced at once as numpy arrays.

Every run of a batch holds its state in arrays (runs × combatants): Wear, Status lowerings,
Exertion and its window, Falter, Poison, AP, 12 Effects this Turn, positions, the Cycle's War
Scroll and whose Turn it is. Each step plays one command of every run still going, chosen by the
War policy (``encounter/policy.py``, reimplemented on arrays) and applied in the order the engine
applies its events (``encounter/war.py``). A Strike is not rolled: its consequences are drawn
from the exact law of the odds engine (``fast_laws.strike_table``), cached per deciding state
(the two combatants' Wear, Status lowerings and Epic Defeat, and the 12 Effects already counted
this Turn). A combatant's derived values (Status, Stamina, Speed, Swiftness) come from the
engine's own ``Character`` built once per such state (a *form*).

What it models is what the War policy can meet from a War without Grapples, Stances, Readied or
carried AP, Surprise, Exposed, Bound or Asleep combatants, F:1 Cycle, Dominions or ranged-only
weapons; :func:`unsupported` names the first thing a start state has outside that, and the
simulation then runs the full engine instead (docs/simulate.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from tableside.encounter.war_state import Combatant, WarState
from tableside.majesty import scroll
from tableside.majesty.catalog import Catalog, Weapon, builtin_catalog
from tableside.majesty.character import Attribute, Character, Side, Status, Wear
from tableside.majesty.strike import (
    DefenderState,
    StrikeOptions,
    StrikeSetup,
    passion_triggers,
    roll_strike,
)
from tableside.simulate import fast_laws as fl
from tableside.simulate.runs import COMMAND_CAP, SimulationError

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

NEXT, STRIKE, MOVE, REST = 0, 1, 2, 3
STRIKE_AP, MELEE_RANGE, CLOSE_TO, REST_AP_MAX = 3, 3.0, 2.5, 7
FALTER_CAP, WEAR_PER_FALTER = 7, 3
TURN_BASE = 4096  # an End Point (cycle, turn) is coded cycle · 4096 + turn
TIMED_SLOTS = 8
NO_END = 1 << 62
WEAR_LIMIT = 1 << 14
STATUS_CODE = {Status.NORMAL: 0, Status.WEAKENED: 1, Status.DEFEATED: 2}
DEFEATED = 2


T27 = 134217729.0  # 2**27 + 1: the Veltkamp-Dekker split


def _plus(total: F64, error: F64, x: F64) -> tuple[F64, F64]:
    new = total + x
    return new, error + ((total - new) + x)


def distances(a: F64, b: F64) -> F64:
    """``math.dist`` of CPython 3.11 on arrays of points (last axis: x, y, z), bit for bit.

    Its ``vector_norm``: power-of-two scaling, exact squares by Veltkamp-Dekker splitting,
    compensated sums, a square root with one differential correction. :data:`EXACT_DISTANCES`
    says whether this interpreter's ``math.dist`` agrees (checked on import); if not, near-ties
    are settled by ``math.dist`` itself (:meth:`Batch.nearest_exactly`).
    """
    d = np.abs(a - b)
    big = d.max(axis=-1)
    _, exponent = np.frexp(np.where(big > 0, big, 1.0))
    scale = np.ldexp(1.0, -exponent)
    total, f1, f2, f3 = (np.ones(big.shape), np.zeros(big.shape), np.zeros(big.shape),
                         np.zeros(big.shape))  # fmt: skip
    for i in range(d.shape[-1]):
        x = d[..., i] * scale
        t = x * T27
        hi = t - (t - x)
        lo = x - hi
        total, f1 = _plus(total, f1, hi * hi)
        total, f2 = _plus(total, f2, 2.0 * hi * lo)
        f3 = f3 + lo * lo
    h = np.sqrt(total - 1.0 + (f1 + f2 + f3))
    t = h * T27
    hi = t - (t - h)
    lo = h - hi
    total, f1 = _plus(total, f1, -hi * hi)
    total, f2 = _plus(total, f2, -2.0 * hi * lo)
    total, f3 = _plus(total, f3, -lo * lo)
    x = total - 1.0 + (f1 + f2 + f3)
    h = np.where(big > 0, h, 1.0)  # a zero distance is 0 (and divides by nothing)
    return np.asarray(np.where(big > 0, (h + x / (2.0 * h)) / scale, 0.0), dtype=np.float64)


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
    for c in state.combatants.values():
        reason = _combatant_unsupported(c, catalog)
        if reason:
            return f"{c.id}: {reason}"
    if any(t.combatant not in state.combatants for t in state.order):
        return "a removed combatant still in the War Scroll"
    return None


def _combatant_unsupported(c: Combatant, catalog: Catalog) -> str | None:
    checks = (
        (c.readied or c.ready_uses, "Readied AP"), (c.carried, "carried AP"),
        (c.stance or c.full_stance, "Defensive Stance"), (c.bound, "Bound"),
        (c.asleep, "Asleep"), (c.grappled_by is not None, "Grappled or Entangled"),
        (c.exposed, "Exposed"), (c.surprised_by, "Surprised"),
        (any(t.name != "status_lowered" or t.ends is None for t in c.timed), "a timed effect"),
        (len(c.timed) > TIMED_SLOTS // 2, "many timed lowerings"),
        (not catalog.weapon(c.character.weapon).melee, "a ranged-only weapon"),
        (c.character.natural.endurance + 40 >= WEAR_LIMIT // 2, "a huge Endurance"),
    )  # fmt: skip
    return next((label for bad, label in checks if bad), None)


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
        # status, stamina, strike, scroll, referenced Passion, referenced Resolve
        self.table = np.zeros((6, 64), dtype=np.int64)

    def key(self, who: I64, wear: I64, lowered: I64, epic: I64) -> I64:
        """One integer per state (who, Wear E/R/P, lowerings, Epic Defeat)."""
        if wear.size and int(wear.max()) >= WEAR_LIMIT:
            raise SimulationError("A simulated combatant took more Wear than the fast path counts.")
        code = (wear[..., 0] * WEAR_LIMIT + wear[..., 1]) * WEAR_LIMIT + wear[..., 2]
        return np.asarray(((code * 16 + lowered) * 2 + epic) * 64 + who, dtype=np.int64)

    def lookup(self, who: I64, wear: I64, lowered: I64, epic: I64) -> I64:
        """Form ids of many states (new forms are built through the engine's Character)."""
        return self.index.find(self.key(who, wear, lowered, epic), lambda k, _: self._form(k))

    def _form(self, key: int) -> int:
        rest, who = divmod(key, 64)
        rest, epic = divmod(rest, 2)
        code, lowered = divmod(rest, 16)
        code, wear_p = divmod(code, WEAR_LIMIT)
        wear_e, wear_r = divmod(code, WEAR_LIMIT)
        character = replace(
            self.characters[who], wear=Wear(wear_e, wear_r, wear_p), status_lowered=lowered,
            defeated_by_epic=bool(epic), exertion=0,
        )  # fmt: skip
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
    def scroll(self) -> I64:
        """The form's place in the War Scroll (combatant, Speed, Swiftness); −1 when Defeated."""
        return np.asarray(self.table[3], dtype=np.int64)


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


class Laws:
    """Strike tables per (striker form, defender form, 12 Effects this Turn), flattened."""

    def __init__(self, forms: Forms, roster: Roster, catalog: Catalog) -> None:
        self.forms, self.roster, self.catalog = forms, roster, catalog
        self.ids: dict[int, int] = {}
        self.index, self.triggers = KeyIndex(), KeyIndex()
        self.tables: list[fl.StrikeTable] = []
        self._flat: tuple[F64, I64, B] | None = None

    def table_ids(self, striker: I64, defender: I64, twelves: I64) -> I64:
        """Table per Strike of these forms (built on first use from the first such pair)."""
        forms = self.forms
        difference = forms.passion[striker] - forms.resolve[defender]
        triggers = self.triggers.find(difference, lambda d, _: passion_triggers(d))
        keys = ((forms.strike[striker] * (1 << 24) + forms.strike[defender]) * 4
                + triggers) * 8 + twelves  # fmt: skip
        return self.index.find(
            keys, lambda k, i: self._build(k, int(striker[i]), int(defender[i]), int(twelves[i]))
        )

    def setup(self, striker: int, defender: int, twelves: int) -> StrikeSetup:
        """The Strike as the engine's ``strike_setup`` builds it for the policy's plain Strike."""
        forms = self.forms
        a, d = forms.character[striker], forms.character[defender]
        return StrikeSetup(
            a, d, self.catalog.weapon(a.weapon), self.catalog.weapon(d.weapon), (),
            DefenderState(), StrikeOptions(twelve_effects_this_turn=twelves),
        )  # fmt: skip

    def _build(self, key: int, striker: int, defender: int, twelves: int) -> int:
        self.ids[key] = len(self.tables)
        self.tables.append(fl.strike_table(self.setup(striker, defender, twelves)))
        self._flat = None
        return self.ids[key]

    def flat(self) -> tuple[F64, I64, B]:
        """Cumulative probabilities shifted by table index, their rows, tables to roll."""
        if self._flat is None:
            cumulative = np.concatenate([i + t.cumulative for i, t in enumerate(self.tables)])
            rows = np.concatenate([t.rows for t in self.tables])
            ambiguous = np.array([t.ambiguous for t in self.tables], dtype=bool)
            self._flat = (cumulative, rows, ambiguous)
        return self._flat


class NumpyRng:
    """Dice for an ambiguous Strike rolled by the engine (the batch's own generator)."""

    def __init__(self, generator: np.random.Generator) -> None:
        self.generator = generator

    def roll(self, sides: int) -> int:
        """One die."""
        return int(self.generator.integers(1, sides + 1))


class Batch:
    """``n`` runs of one War, advanced together."""

    def __init__(self, state: WarState, n: int, known: Batch | None = None) -> None:
        """``n`` runs from ``state``.

        ``known``: a batch of the same start whose forms and Strike tables are reused.
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
        )  # fmt: skip
        if known is None:
            self.forms = Forms([c.character for c in combatants])
            self.laws = Laws(self.forms, self.roster, self.catalog)
        else:
            self.forms, self.laws = known.forms, known.laws
        self._scrolls: dict[tuple[int, ...], list[tuple[int, int]]] = (
            {} if known is None else known._scrolls
        )

        def grid(values: list[int]) -> I64:
            return np.tile(np.array(values, dtype=np.int64), (n, 1))

        self.wear = np.tile(
            np.array([[c.character.wear.E, c.character.wear.R, c.character.wear.P]
                      for c in combatants], dtype=np.int64), (n, 1, 1))  # fmt: skip
        self.lowered = grid([c.character.status_lowered for c in combatants])
        self.epic = grid([int(c.character.defeated_by_epic) for c in combatants])
        self.exertion = grid([c.character.exertion for c in combatants])
        self.window = grid([c.window_exertion for c in combatants])
        self.falter = grid([c.falter for c in combatants])
        self.poison = grid([c.poison for c in combatants])
        self.ap = grid([c.ap for c in combatants])
        self.twelves = grid([c.twelves_this_turn for c in combatants])
        self.weary = grid([int(c.weary) for c in combatants]).astype(bool)
        self.pos = np.tile(np.array([c.position for c in combatants], dtype=np.float64), (n, 1, 1))
        ends = np.zeros((self.c, TIMED_SLOTS), dtype=np.int64)
        for i, c in enumerate(combatants):
            for slot, timed in enumerate(c.timed):
                assert timed.ends is not None
                ends[i, slot] = timed.ends.cycle * TURN_BASE + timed.ends.turn
        self.ends = np.tile(ends, (n, 1, 1))
        self.next_end = np.full(n, _first_end(ends[None])[0], dtype=np.int64)
        self.cycle = np.full(n, state.cycle, dtype=np.int64)
        self.turn = np.full(n, state.turn, dtype=np.int64)
        width = max(len(state.order), 1)
        self.order_c = np.zeros((n, width), dtype=np.int64)
        self.order_ap = np.zeros((n, width), dtype=np.int64)
        for i, t in enumerate(state.order):
            self.order_c[:, i], self.order_ap[:, i] = index[t.combatant], t.ap
        self.order_n = np.full(n, len(state.order), dtype=np.int64)
        self.ended = np.full(n, state.ended, dtype=bool)
        self.winner = np.full(n, -1, dtype=np.int64)
        self.commands = np.zeros(n, dtype=np.int64)
        self.taken = np.zeros((n, self.c, 3), dtype=np.int64)  # Wear taken (wear_taken events)
        who = np.tile(np.arange(self.c, dtype=np.int64), (n, 1))
        self.form = self.forms.lookup(who, self.wear, self.lowered, self.epic)

    # --- derived values ---------------------------------------------------------------------

    def status(self, rows: I64, who: I64) -> I64:
        """Status codes of (run, combatant) pairs."""
        return self.forms.status[self.form[rows, who]]

    def refresh(self, rows: I64, who: I64) -> None:
        """Recompute the forms of (run, combatant) pairs after their Wear or Status changed."""
        if len(rows):
            self.form[rows, who] = self.forms.lookup(
                who, self.wear[rows, who], self.lowered[rows, who], self.epic[rows, who]
            )

    def refresh_all(self, rows: I64) -> None:
        """Recompute every combatant's form in these runs."""
        if len(rows):
            who = np.broadcast_to(np.arange(self.c, dtype=np.int64), (len(rows), self.c))
            self.form[rows] = self.forms.lookup(
                who, self.wear[rows], self.lowered[rows], self.epic[rows]
            )

    # --- shared effects (war.py) ------------------------------------------------------------

    def take_wear(self, rows: I64, who: I64, amounts: I64) -> None:
        """``wear_taken`` events: Wear E, R and P (columns; 0 is no event), forms refreshed."""
        changed = amounts.any(axis=1)
        if changed.any():
            rows, who, amounts = rows[changed], who[changed], amounts[changed]
            self.wear[rows, who] += amounts
            self.taken[rows, who] += amounts
            self.refresh(rows, who)

    def convert_if_defeated(self, rows: I64, who: I64) -> None:
        """A Defeated elohim's F:# all converts to WearR and WearP at once (M-34)."""
        hit = (self.falter[rows, who] > 0) & (self.status(rows, who) == DEFEATED)
        if hit.any():
            rows, who = rows[hit], who[hit]
            wear = WEAR_PER_FALTER * self.falter[rows, who]
            self.falter[rows, who] = 0
            self.take_wear(rows, who, np.stack([np.zeros_like(wear), wear, wear], axis=1))

    def inflict_falter(self, rows: I64, who: I64, amount: I64) -> None:
        """Falter capped at 7, the excess (or all, when Defeated) to Wear; AP wasted (M-34)."""
        converts = self.status(rows, who) == DEFEATED
        total = self.falter[rows, who] + amount
        falter = np.where(converts, 0, np.minimum(FALTER_CAP, total))
        wear = WEAR_PER_FALTER * (total - falter)
        self.falter[rows, who] = falter
        self.take_wear(rows, who, np.stack([np.zeros_like(wear), wear, wear], axis=1))
        self.waste_ap(rows, who)

    def waste_ap(self, rows: I64, who: I64) -> None:
        """Falter wastes the Turn's AP (M-34; no Readied AP in the fast path)."""
        falter, ap = self.falter[rows, who], self.ap[rows, who]
        wasted = np.minimum(falter, ap)
        self.ap[rows, who] = ap - wasted
        self.falter[rows, who] = falter - wasted

    def add_exertion(self, rows: I64, who: I64, amount: I64, self_generated: bool) -> None:
        """Exertion with the free first 3 of each window when self-generated (M-4)."""
        if self_generated:
            window = self.window[rows, who]
            ignored = np.minimum(amount, np.maximum(0, 3 - window))
            self.exertion[rows, who] += amount - ignored
            self.window[rows, who] = window + amount
        else:
            self.exertion[rows, who] += amount

    def expire(self, rows: I64, now: I64) -> None:
        """Timed Status lowerings end at their End Point (M-39)."""
        due = now >= self.next_end[rows]
        if not due.any():
            return
        rows, now = rows[due], now[due]
        ends = self.ends[rows]
        done = (ends > 0) & (ends <= now[:, None, None])
        self.lowered[rows] -= done.sum(axis=2)
        self.ends[rows] = np.where(done, 0, ends)
        self.next_end[rows] = _first_end(self.ends[rows])
        self.refresh_all(rows)

    # --- commands -----------------------------------------------------------------------------

    def current(self, rows: I64) -> tuple[B, I64]:
        """Whether a Turn is being played, and whose."""
        turn = self.turn[rows]
        has = (turn >= 0) & (turn < self.order_n[rows])
        return has, self.order_c[rows, np.clip(turn, 0, self.order_c.shape[1] - 1)]

    def do_next(self, rows: I64) -> None:
        """End the Turn and start the next standing combatant's (a new Cycle when due)."""
        has, me = self.current(rows)
        self.ap[rows[has], me[has]] = 0
        pending = rows
        for _ in range(self.c * 8 + 8):
            index = self.turn[pending] + 1
            due = index >= self.order_n[pending]
            if due.any():
                self.start_cycle(pending[due])
                if (self.order_n[pending[due]] == 0).any():
                    raise SimulationError("No combatant can take a Turn: every one is Defeated.")
            index = np.where(due, 0, index)
            who = self.order_c[pending, index]
            standing = self.status(pending, who) != DEFEATED
            self.start_turn(pending[standing], index[standing])
            pending, index = pending[~standing], index[~standing]
            self.turn[pending] = index
            if not len(pending):
                return
        raise SimulationError("No combatant can take a Turn.")

    def start_cycle(self, rows: I64) -> None:
        """Expiries, then the new Cycle's War Scroll from each run's standing combatants (M-40)."""
        upcoming = self.cycle[rows] + 1
        self.expire(rows, upcoming * TURN_BASE)
        shaped = self.form[rows]
        soon = np.flatnonzero(self.next_end[rows] // TURN_BASE <= upcoming)
        if len(soon):  # lowerings ending during the new Cycle do not shape its Scroll
            ends = self.ends[rows[soon]]
            ending = (ends > 0) & (ends // TURN_BASE <= upcoming[soon, None, None])
            lowered = np.maximum(0, self.lowered[rows[soon]] - ending.sum(axis=2))
            who = np.broadcast_to(np.arange(self.c, dtype=np.int64), (len(soon), self.c))
            shaped = shaped.copy()
            shaped[soon] = self.forms.lookup(who, self.wear[rows[soon]], lowered,
                                             self.epic[rows[soon]])  # fmt: skip
        keys = self.forms.scroll[shaped]
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        orders = [self.scroll(tuple(row)) for row in unique.tolist()]
        width = max(len(o) for o in orders)
        if width > self.order_c.shape[1]:
            grow = width - self.order_c.shape[1]
            self.order_c = np.pad(self.order_c, ((0, 0), (0, grow)))
            self.order_ap = np.pad(self.order_ap, ((0, 0), (0, grow)))
        inverse = inverse.ravel()
        for k, order in enumerate(orders):
            runs = rows[inverse == k]
            self.order_n[runs] = len(order)
            for i, (combatant, ap) in enumerate(order):
                self.order_c[runs, i], self.order_ap[runs, i] = combatant, ap
        self.cycle[rows] = upcoming
        self.turn[rows] = -1

    def scroll(self, shaped: tuple[int, ...]) -> list[tuple[int, int]]:
        """The Turns of a Cycle (combatant, AP) for these Scroll places (−1: not in it)."""
        found = self._scrolls.get(shaped)
        if found is None:
            entrants = []
            for form in shaped:
                if form < 0:
                    continue
                i, speed, swiftness = self.forms.scroll_values[form]
                holy = int(self.roster.side[i]) == 0
                tiebreak = self.roster.tiebreak[i]
                entrants.append(
                    scroll.Entrant(self.roster.ids[i], speed, swiftness, holy, tiebreak)
                )
            index = {name: i for i, name in enumerate(self.roster.ids)}
            found = [
                (index[t.combatant], t.ap)
                for segment in scroll.war_scroll(entrants)
                for t in segment.turns
            ]
            self._scrolls[shaped] = found
        return found

    def start_turn(self, rows: I64, index: I64) -> None:
        """Expiries, the Turn's resets, Poison, AP arriving, Falter wasting them (M-34 … M-40)."""
        if not len(rows):
            return
        self.expire(rows, self.cycle[rows] * TURN_BASE + index)
        self.turn[rows] = index
        me = self.order_c[rows, index]
        self.ap[rows, me] = 0
        self.window[rows, me] = 0
        self.twelves[rows, me] = 0
        poison = self.poison[rows, me]
        if poison.any():
            self.exertion[rows, me] += poison
            self.poison[rows, me] = poison // 2
        self.ap[rows, me] = np.minimum(self.order_ap[rows, index], scroll.TURN_AP)
        self.waste_ap(rows, me)

    def do_rest(self, rows: I64, me: I64, ap: I64) -> None:
        """Rest: 1 Exertion per AP (M-4)."""
        self.ap[rows, me] -= ap
        self.exertion[rows, me] = np.maximum(0, self.exertion[rows, me] - ap)

    def do_move(self, rows: I64, me: I64, target: I64) -> None:
        """Straight toward the target until 2.5" from it, as far as the AP allow.

        Distances are ``math.dist``'s, as the engine's (plain numpy's differ in the last bit).
        """
        start, goal = self.pos[rows, me], self.pos[rows, target]
        gap = self.exact_distances(start, goal)
        inches = np.minimum(gap - CLOSE_TO, self.ap[rows, me].astype(np.float64))
        t = np.where(gap == 0, 0.0, np.minimum(1.0, inches / np.where(gap == 0, 1.0, gap)))
        destination = start + (goal - start) * t[:, None]
        moved = self.exact_distances(start, destination)
        self.ap[rows, me] -= np.ceil(moved - 1e-9).astype(np.int64)
        self.pos[rows, me] = destination

    @staticmethod
    def exact_distances(a: F64, b: F64) -> F64:
        """``math.dist`` of each pair of points (vectorised when it agrees bit for bit)."""
        if EXACT_DISTANCES:
            return distances(a, b)
        pairs = zip(a.tolist(), b.tolist(), strict=True)
        return np.array([math.dist(p, q) for p, q in pairs], dtype=np.float64)

    def do_strike(self, rows: I64, me: I64, target: I64, rng: np.random.Generator,
                  forced: I64 | None = None) -> None:  # fmt: skip
        """A plain Strike drawn from its exact law, applied as war.apply_strike applies it.

        ``forced``: the consequence rows to apply instead of drawing them (tests).
        """
        self.ap[rows, me] -= STRIKE_AP
        if forced is not None:
            self.apply_strike(rows, me, target, forced)
            return
        per_turn = np.array(self.roster.per_turn, dtype=np.int64)[me]
        twelves = np.minimum(self.twelves[rows, me], per_turn)
        tables = self.laws.table_ids(self.form[rows, me], self.form[rows, target], twelves)
        cumulative, table_rows, ambiguous = self.laws.flat()
        drawn = np.searchsorted(cumulative, tables + rng.random(len(rows)), side="right")
        cons = table_rows[np.minimum(drawn, len(table_rows) - 1)].copy()
        rolled = np.flatnonzero(ambiguous[tables])
        for k in rolled.tolist():
            table = self.laws.tables[int(tables[k])]
            cons[k] = fl.result_row(roll_strike(table.setup, NumpyRng(rng)))
        self.apply_strike(rows, me, target, cons)

    def apply_strike(self, rows: I64, me: I64, target: I64, cons: I64) -> None:
        """Wear, Falter, Exertion, AP, 12 Effects and Epic results, in the engine's order.

        A Defeated elohim's Falter converts to Wear as the engine converts it; where the engine
        converts it again after the Epic results, :meth:`after` does (the same Wear: nothing in
        between reads Falter).
        """
        self.take_wear(rows, target, cons[:, fl.D_E : fl.D_P + 1])
        self.convert_if_defeated(rows, target)
        kinds = np.arange(3, dtype=np.int64)[None, :]
        to_striker = np.where(kinds == cons[:, fl.S_KIND, None], cons[:, fl.S_WEAR, None], 0)
        self.take_wear(rows, me, to_striker)
        self.convert_if_defeated(rows, me)
        for who, column in ((target, fl.D_FALTER), (me, fl.S_FALTER)):
            hit = cons[:, column] > 0
            if hit.any():
                self.inflict_falter(rows[hit], who[hit], cons[hit, column])
        self.add_exertion(rows, me, np.full(len(rows), STRIKE_AP, dtype=np.int64), True)
        self.add_exertion(rows, target, cons[:, fl.D_EXERTION], False)
        self.twelves[rows, me] += cons[:, fl.FIRED]
        self.ap[rows, me] += cons[:, fl.AP_GAINED]
        for who, column in ((target, fl.D_EPIC), (me, fl.S_EPIC)):
            epic = cons[:, column] != fl.EPIC_NONE
            if epic.any():
                self.epic_result(rows[epic], who[epic], cons[epic, column])

    def epic_result(self, rows: I64, who: I64, code: I64) -> None:
        """Status lowered for 1 Cycle, or Defeat with Endurance −40 (M-24); Falter converts."""
        lowered = np.flatnonzero(code == fl.EPIC_LOWERED)
        for k in lowered.tolist():
            run, c = int(rows[k]), int(who[k])
            cycle, turn = int(self.cycle[run]), int(self.turn[run])
            ends = 2 * TURN_BASE if cycle == 0 else (cycle + 1) * TURN_BASE + max(turn, 0)
            free = np.flatnonzero(self.ends[run, c] == 0)
            if not len(free):
                raise SimulationError("Too many Status lowerings at once for the fast path.")
            self.ends[run, c, free[0]] = ends
            self.next_end[run] = min(int(self.next_end[run]), ends)
            self.lowered[run, c] += 1
        defeat = code == fl.EPIC_DEFEAT
        if defeat.any():
            r, c = rows[defeat], who[defeat]
            self.epic[r, c] = 1
            self.wear[r, c, 0] = self.roster.endurance[c] + 40
        self.refresh(rows, who)

    def after(self, rows: I64) -> None:
        """After every command: Falter of the Defeated converts, Weary, the end of the War."""
        faltering, who = np.nonzero(self.falter[rows] > 0)
        if len(faltering):
            self.convert_if_defeated(rows[faltering], who)
        has, me = self.current(rows)
        r, m = rows[has], me[has]
        self.weary[r, m] = self.exertion[r, m] > self.forms.stamina[self.form[r, m]]
        standing = self.forms.status[self.form[rows]] != DEFEATED
        holy = (standing & (self.roster.side == 0)).any(axis=1)
        fallen = (standing & (self.roster.side == 1)).any(axis=1)
        over = (self.roster.sides_present == 2) & ~(holy & fallen) & ~self.ended[rows]
        ended = rows[over]
        self.ended[ended] = True
        self.winner[ended] = np.where(holy[over], 0, np.where(fallen[over], 1, -1))

    # --- the policy -----------------------------------------------------------------------------

    def choose(self, rows: I64, rest: bool) -> tuple[I64, I64, I64, F64, I64]:
        """The War policy's command per run: kind, who, target, gap, Rest AP (policy.py)."""
        n = len(rows)
        has, me = self.current(rows)
        span = np.arange(n)
        forms = self.form[rows]
        status = self.forms.status[forms]
        acting = has & (status[span, me] != DEFEATED)
        positions = self.pos[rows]
        mine = positions[span, me]
        dist = distances(positions, mine[:, None, :])
        enemy = (self.roster.side[None, :] != self.roster.side[me][:, None]) & (status != DEFEATED)
        by_id = np.where(enemy, dist, np.inf)[:, self.roster.by_id]
        pick = np.argmin(by_id, axis=1)
        target = self.roster.by_id[pick]
        go = acting & np.isfinite(by_id[span, pick])
        gap = dist[span, target]
        if not EXACT_DISTANCES:  # math.dist decides near-ties and the 3" edge, as in the engine
            best = by_id[span, pick]
            close = go & ((by_id <= best[:, None] * (1 + 1e-9) + 1e-9).sum(axis=1) > 1)
            close |= go & (np.abs(gap - MELEE_RANGE) <= 1e-9)
            if close.any():
                self.nearest_exactly(rows, me, by_id, best, close, target, gap)
        ap, exertion = self.ap[rows, me], self.exertion[rows, me]
        stamina = self.forms.stamina[forms[span, me]]
        near = gap <= MELEE_RANGE
        kind = np.full(n, NEXT, dtype=np.int64)
        amount = np.zeros(n, dtype=np.int64)
        if rest:
            excess = exertion - stamina
            first = np.minimum(np.minimum(excess, ap), np.minimum(exertion, REST_AP_MAX))
            weary = go & (excess > 0) & ~near & (first >= 1)
            kind[weary], amount[weary] = REST, first[weary]
            go = go & ~weary
        strike = go & near & (ap >= STRIKE_AP)
        move = go & ~near & (ap >= 1)
        kind[strike], kind[move] = STRIKE, MOVE
        if rest:
            second = np.minimum(np.minimum(ap, exertion), REST_AP_MAX)
            leftover = go & ~strike & ~move & (second >= 1)
            kind[leftover], amount[leftover] = REST, second[leftover]
        return kind, me, target, gap, amount

    def nearest_exactly(
        self, rows: I64, me: I64, by_id: F64, best: F64, close: B, target: I64, gap: F64
    ) -> None:
        """Where numpy's distances nearly tie: the engine's nearest enemy, by ``math.dist``.

        The candidates are the enemies within a hair of the nearest; each gets ``math.dist``
        (numpy's distance may differ in the last bit) and the least (distance, id) wins.
        """
        k = np.flatnonzero(close)
        near = by_id[k] <= best[k, None] * (1 + 1e-9) + 1e-9
        row, column = np.nonzero(near)
        who = self.roster.by_id[column]
        run = rows[k][row]
        here = self.pos[run, me[k][row]].tolist()
        there = self.pos[run, who].tolist()
        exact = np.array([math.dist(a, b) for a, b in zip(here, there, strict=True)])
        order = np.lexsort((column, exact, row))
        first = order[np.flatnonzero(np.diff(row[order], prepend=-1))]
        target[k[row[first]]] = who[first]
        gap[k[row[first]]] = exact[first]

    def step(self, rows: I64, rest: bool, rng: np.random.Generator,
             forced: I64 | None = None) -> None:  # fmt: skip
        """One command of each of these runs (``forced``: Strike consequences, for tests)."""
        kind, me, target, _, amount = self.choose(rows, rest)
        for code in (STRIKE, MOVE, REST, NEXT):
            pick = kind == code
            if not pick.any():
                continue
            r = rows[pick]
            if code == STRIKE:
                self.do_strike(r, me[pick], target[pick], rng,
                               None if forced is None else forced[pick])  # fmt: skip
            elif code == MOVE:
                self.do_move(r, me[pick], target[pick])
            elif code == REST:
                self.do_rest(r, me[pick], amount[pick])
            else:
                self.do_next(r)
        self.after(rows)
        self.commands[rows] += 1

    def play(self, cap: int, rest: bool, rng: np.random.Generator) -> None:
        """Play every run to its end, the cap on Cycles, or the cap on commands."""
        while True:
            going = ~self.ended & (self.cycle <= cap) & (self.commands < COMMAND_CAP)
            rows = np.flatnonzero(going)
            if not len(rows):
                return
            self.step(rows, rest, rng)

    def fallen(self) -> B:
        """Defeated at the end, per run and combatant."""
        return np.asarray(self.forms.status[self.form] == DEFEATED)


def _first_end(ends: I64) -> I64:
    """Per run, the earliest End Point of its timed lowerings (a huge number for none)."""
    return np.asarray(np.where(ends > 0, ends, NO_END).min(axis=(1, 2)), dtype=np.int64)


def side_name(code: int) -> str | None:
    """The winner's side name."""
    return None if code < 0 else (Side.HOLY.value if code == 0 else Side.FALLEN.value)


def describe(batch: Batch) -> dict[str, Any]:
    """A small summary (for debugging and the benchmark)."""
    wins = {name: int((batch.winner == code).sum()) for code, name in ((0, "holy"), (1, "fallen"))}
    return {"runs": batch.n, "wins": wins, "cycles": float(batch.cycle.mean()),
            "commands": float(batch.commands.mean()), "mean_steps": math.nan}  # fmt: skip
