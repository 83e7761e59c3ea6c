"""Realm of Strife fights on the compiled kernel: tables, start, seeds and tallies (issue 15).

:class:`Compiled` turns a :class:`fast_strife.Batch` (roster, exact attack laws, start) into the
arrays :mod:`fast_strife_kernel` plays on (F-50). What the kernel does not cover (:func:`why_not`)
is played by the Python fast path, which itself falls back to the full engine (F-10).

Seeds (F-51): runs are played in batches of :data:`BATCH`; batch ``k`` draws one 63-bit key from
``Generator(PCG64(SeedSequence(seed, spawn_key=(KERNEL_KEY, k))))``, and run ``r`` of the batch
draws its ``j``-th uniform number as ``fast_strife_kernel.uniform(key, r, j)``, one per attack.
A report depends only on (file, seed, runs, cap), not on the number of workers.
"""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from tableside.encounter.strife.args import NEXT_TURN_END
from tableside.encounter.strife.forced import CONTROLLED, FEARED, MIND_CONTROLLED, TAUNTED
from tableside.encounter.strife.policy import most_targets
from tableside.encounter.strife.state import FightState
from tableside.simulate import fast_strife
from tableside.simulate import fast_strife_kernel as kernel
from tableside.simulate.fast_strife import ROLLED_BACK, Batch, Run
from tableside.simulate.fast_strife_compel import owner_of
from tableside.simulate.fast_strife_kernel_compel import CONTROL, FEAR, TAUNT
from tableside.simulate.fast_strife_law import Law
from tableside.simulate.fast_strife_oneroll import CASTING_D100
from tableside.simulate.runs import COMMAND_CAP
from tableside.simulate.stats import Moments
from tableside.simulate.tally import Tally
from tableside.strife.catalog import PowerEntry, Resource
from tableside.strife.conditions import EXHAUSTION, KNOCKED_DOWN, Condition, condition
from tableside.strife.hit import D100

BATCH = 8192  # runs per kernel batch
KERNEL_KEY = 17  # spawn-key tag of the kernel's generators (F-51)
BITS = 62  # models, weapons per model, condition names and sides fit in an int64 bit set
ELEMENTS = {"action": kernel.ACTION, "move": kernel.MOVE, "instant": kernel.INSTANT,
            "whole_turn": kernel.WHOLE_TURN}  # fmt: skip
KindKey = tuple[str, str, str | None, bool, int]  # a condition without its rounds left
BINDS = {FEARED: FEAR, TAUNTED: TAUNT, MIND_CONTROLLED: CONTROL, CONTROLLED: CONTROL}  # F-72
IN_PYTHON_ONLY = frozenset({"movement_spent"})  # view keys


def why_not(batch: Batch) -> str | None:
    """Why the kernel cannot play this batch's fight (None: it can); the Python path plays it."""
    state, roster = batch.start, batch.roster
    if len(set(roster.side)) < 2:
        return "a fight with one side"
    if len(roster.ids) > BITS or max(len(set(w)) for w in roster.weapons) > BITS:
        return f"more than {BITS} models or weapons"
    for m in state.models.values():
        odd = set(m.elements) - set(ELEMENTS)
        if odd:
            return f"{m.id}: the Turn element {sorted(odd)[0]}"
    names = {c.name for m in state.models.values() for c in m.conditions}
    laws = [*batch.laws.table.values(), *batch.laws.casts.values(), *batch.laws.shots.values()]
    names |= {c.name for law in laws for o in law.outcomes for _, c in o.inflicted}
    put_on = {c.name for law in laws for o in law.outcomes for _, c in o.inflicted}
    if EXHAUSTION in put_on:  # its stacks would add up in play (SA-12): kinds are fixed
        return f"the condition {EXHAUSTION} put on in play (F-72: the Python path plays it)"
    if len(names) + 1 > BITS:
        return f"more than {BITS} condition names"
    return None


class Kinds:
    """Condition kinds (a condition without its rounds left) and names, numbered."""

    def __init__(self) -> None:
        self.kinds: dict[KindKey, int] = {}
        self.names: dict[str, int] = {}
        self.sources: dict[str, int] = {}

    def name(self, name: str) -> int:
        """The code of a condition name."""
        return self.names.setdefault(name, len(self.names))

    def kind(self, item: Condition) -> tuple[int, int]:
        """The kind of a condition and its rounds left (−1: none)."""
        key = (item.name, item.source, item.until, item.automated, item.stacks)
        self.name(item.name)
        self.sources.setdefault(item.source, len(self.sources))
        code = self.kinds.setdefault(key, len(self.kinds))
        return code, -1 if item.rounds_left is None else item.rounds_left

    def condition(self, code: int, rounds: int) -> Condition:
        """The engine's condition of a kind and rounds left."""
        name, source, until, automated, stacks = list(self.kinds)[code]
        return Condition(name, source, None if rounds < 0 else rounds, until, automated, stacks)

    def binding(self, ids: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Per kind: what it binds (F-72) and the model its source names (−1: none).

        As ``fast_strife_compel`` reads them: 0 nothing, fear, taunt, control.
        """
        keys = list(self.kinds)
        binds = np.array([BINDS.get(k[0], 0) for k in keys], dtype=np.int64)
        owners = [owner_of(ids, k[1]) for k in keys]
        return binds, np.array([-1 if o is None else o for o in owners], dtype=np.int64)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per kind: name code, source code, whether it lasts to the end of the next Turn."""
        keys = list(self.kinds)
        return (
            np.array([self.names[k[0]] for k in keys], dtype=np.int64),
            np.array([self.sources[k[1]] for k in keys], dtype=np.int64),
            np.array([int(k[2] == NEXT_TURN_END) for k in keys], dtype=np.int64),
        )


def _law_arrays(laws: list[Law], kinds: Kinds) -> dict[str, Any]:
    """The laws as arrays: outcome ranges, cumulative floats, outcome columns (F-50)."""
    starts, cumulative, failed, damage = [0], [], [], []
    put_start, target, kind, rounds = [0], [], [], []
    for law in laws:
        for outcome, cum in zip(law.outcomes, law.cumulative, strict=True):
            cumulative.append(cum)
            failed.append(int(outcome.failed_parry))
            damage.append(outcome.damage)
            for who, item in outcome.inflicted:
                code, left = kinds.kind(item)
                target.append(0 if who == "attacker" else 1)
                kind.append(code)
                rounds.append(left)
            put_start.append(len(target))
        starts.append(len(cumulative))
    i64 = np.int64
    return {
        "law_start": np.array(starts, dtype=i64),
        "law_reacts": np.array([int(law.reacts) for law in laws], dtype=i64),
        "cumulative": np.array(cumulative, dtype=np.float64),
        "failed": np.array(failed, dtype=i64),
        "damage": np.array(damage, dtype=i64),
        "put_start": np.array(put_start, dtype=i64),
        "put_target": np.array(target, dtype=i64),
        "put_kind": np.array(kind, dtype=i64),
        "put_rounds": np.array(rounds, dtype=i64),
    }


class Compiled:
    """A fight's tables, start and scratch state for :func:`fast_strife_kernel.play`."""

    def __init__(self, batch: Batch) -> None:
        self.batch = batch
        roster = batch.roster
        self.weapons = [list(dict.fromkeys(w)) for w in roster.weapons]
        self.sides = list(dict.fromkeys(roster.side))
        self.kinds = Kinds()
        self.rolled = condition(KNOCKED_DOWN, ROLLED_BACK, until=NEXT_TURN_END)
        template = Run(batch.start, roster)
        for conds, fresh in zip(template.conds, template.fresh, strict=True):
            for item in conds:
                self.kinds.kind(item)  # numbered before the static arrays are built
            for name in fresh:
                self.kinds.name(name)
        self.powers = [p for powers in roster.powers for p in powers]
        self.resources = list(dict.fromkeys(p.resource for p in self.powers if p.resource))
        self.static = self._static()
        self.slots = 2 * (max(len(c) for c in template.conds) + len(self.kinds.kinds) + 1)
        self.held = [list(pools) for pools in template.pools]  # each caster's resources
        self.start = self._state(template)
        self.scratch = kernel.State(*(np.zeros_like(a) for a in self.start))  # type: ignore[arg-type]

    def _static(self) -> kernel.Static:
        roster, n = self.batch.roster, len(self.batch.roster.ids)
        width = max(1, max(len(w) for w in self.weapons))
        law_of = np.full((n, width, n, 2), -1, dtype=np.int64)
        laws: list[Law] = []
        for (i, weapon, j, reaction), law in self.batch.laws.table.items():
            slot = 1 if reaction is None else 0
            law_of[i, self.weapons[i].index(weapon), j, slot] = len(laws)
            if reaction is None and roster.reaction[j] is None:
                law_of[i, self.weapons[i].index(weapon), j, 0] = len(laws)
            laws.append(law)
        cast_of = self._cast_of(laws)
        cast_given, d100 = self._cast_given(laws)
        shot_of = self._shot_of(laws, width)
        tables = _law_arrays(laws, self.kinds)
        rolled, _ = self.kinds.kind(self.rolled)
        names, sources, next_turn = self.kinds.arrays()
        kind_bind, kind_owner = self.kinds.binding(roster.ids)
        ranks = {who: r for r, who in enumerate(sorted(roster.ids))}

        def ints(values: Any) -> np.ndarray:
            return np.array(values, dtype=np.int64)

        return kernel.Static(
            side=ints([self.sides.index(s) for s in roster.side]),
            hp_max=ints(roster.hp_max), movement=ints(roster.movement),
            score=ints(roster.score), initiative=ints(roster.initiative),
            rank=ints([ranks[who] for who in roster.ids]),
            weapons=ints([len(w) for w in self.weapons]),
            reacts=ints([r is not None for r in roster.reaction]),
            law_of=law_of, **tables, kind_name=names, kind_source=sources,
            kind_next_turn=next_turn, **self._power_arrays(), cast_of=cast_of,
            shoots_first=ints([bool(w) and w[0] in shooting
                               for w, shooting in zip(roster.weapons, roster.shooting,
                                                      strict=True)]),
            shot_of=shot_of, absorption=ints(roster.absorption), cast_given=cast_given, d100=d100,
            sneaks=ints(roster.sneaks), swims=ints(roster.swims),
            submerged=ints(roster.submerged),
            blocker=ints([r == "block" for r in roster.reaction]),
            kind_bind=kind_bind, kind_owner=kind_owner, binds=int(kind_bind.any()),
            knocked=self.kinds.name(KNOCKED_DOWN), rolled=rolled, sides=len(self.sides),
        )  # fmt: skip

    def _shot_of(self, laws: list[Law], width: int) -> np.ndarray:
        """Per (shooter, ranged weapon, target, whole inches moved, flying) its shot's law.

        (F-62, F-71.) With no model off the ground at the start none can fly, and a flying
        shot's entry is the shot's on the ground (never read).
        """
        n, shots = len(self.batch.roster.ids), self.batch.laws.shots
        inches = 1 + max((key[3] for key in shots), default=0)
        shot_of = np.full((n, width, n, inches, 2), -1, dtype=np.int64)
        for flying, found in enumerate((shots, self.batch.laws.flying_shots)):
            for (i, weapon, j, moved), law in found.items():
                shot_of[i, self.weapons[i].index(weapon), j, moved, flying] = len(laws)
                laws.append(law)
        if not self.batch.laws.flying_shots:
            shot_of[..., 1] = shot_of[..., 0]
        return shot_of

    def _cast_of(self, laws: list[Law]) -> np.ndarray:
        """Per (power, target, Blocks) the number of its cast law, appended to ``laws`` (F-60)."""
        roster, n = self.batch.roster, len(self.batch.roster.ids)
        firsts = np.cumsum([0, *map(len, roster.powers)])
        cast_of = np.full((max(1, len(self.powers)), n, 2), -1, dtype=np.int64)
        for (i, k, j, block), law in self.batch.laws.casts.items():
            cast_of[firsts[i] + k, j, int(block)] = len(laws)
            laws.append(law)
        return cast_of

    def _cast_given(self, laws: list[Law]) -> tuple[np.ndarray, int]:
        """Per (power, target, Blocks, shared d100 face) its law given it, and the d100's (F-73).

        The laws are appended to ``laws``.
        """
        roster, n = self.batch.roster, len(self.batch.roster.ids)
        firsts = np.cumsum([0, *map(len, roster.powers)])
        given = np.full((max(1, len(self.powers)), n, 2, D100), -1, dtype=np.int64)
        for (i, k, j, block), found in self.batch.laws.given.items():
            numbers = []
            for law in found.laws:
                numbers.append(len(laws))
                laws.append(law)
            given[firsts[i] + k, j, int(block)] = [numbers[g] for g in found.group]
        laws.append(CASTING_D100)
        return given, len(laws) - 1

    def _resource(self, power: PowerEntry) -> int:
        """The code of the resource a power is paid from (−1: none)."""
        return -1 if power.resource is None else self.resources.index(power.resource)

    def _power_arrays(self) -> dict[str, np.ndarray]:
        """The castable powers of each model, in the policy's order, as arrays (F-40, F-60)."""
        powers, i64 = self.powers, np.int64
        return {
            "power_start": np.cumsum([0, *map(len, self.batch.roster.powers)]).astype(i64),
            "power_resource": np.array([self._resource(p) for p in powers], dtype=i64),
            "power_cost": np.array([p.cost for p in powers], dtype=i64),
            "power_touch": np.array([int(p.touch) for p in powers], dtype=i64),
            "power_range": np.array([float(p.range) for p in powers], dtype=np.float64),
            "power_most": np.array([most_targets(p) for p in powers], dtype=i64),
            "power_blockable": np.array([int(p.blockable) for p in powers], dtype=i64),
            "power_projectile": np.array(
                [int(not p.touch and (p.blockable or p.dodge_allowed)) for p in powers], dtype=i64
            ),
        }

    def _state(self, run: Run) -> kernel.State:
        """The kernel's state of a fast run."""
        n = len(run.hp)
        kind = np.full((n, self.slots), -1, dtype=np.int64)
        rounds = np.full((n, self.slots), -1, dtype=np.int64)
        for i, conds in enumerate(run.conds):
            for slot, item in enumerate(conds):
                kind[i, slot], rounds[i, slot] = self.kinds.kind(item)
        offers = np.zeros((len(run.offers) + n * max(1, max(map(len, self.weapons))) + 1, 3),
                          dtype=np.int64)  # fmt: skip
        for o, (a, weapon, t) in enumerate(run.offers):
            offers[o] = (a, self.weapons[a].index(weapon), t)
        scalar = np.zeros(kernel.SCALARS, dtype=np.int64)
        scalar[kernel.ORDER_N], scalar[kernel.TURN], scalar[kernel.ROUND] = (
            len(run.order), run.turn, run.round)  # fmt: skip
        scalar[kernel.REACTED] = sum(1 << i for i in run.reacted)
        scalar[kernel.FAILED] = sum(1 << i for i in run.failed)
        scalar[kernel.BOTTOM] = sum(1 << i for i in run.bottom)
        scalar[kernel.OFFERS_N] = len(run.offers)
        scalar[kernel.LAST_HURT] = -1 if run.last_damaged is None else run.last_damaged
        scalar[kernel.LAST_BY] = -1 if run.last_by is None else run.last_by
        scalar[kernel.ENDED] = int(run.ended)
        scalar[kernel.WINNER] = -1 if run.winner is None else self.sides.index(run.winner)
        scalar[kernel.COMMANDS] = self.batch.extra
        order = np.zeros(n, dtype=np.int64)
        order[: len(run.order)] = run.order

        def ints(values: Any) -> np.ndarray:
            return np.array(values, dtype=np.int64)

        return kernel.State(
            hp=ints(run.hp), pos=np.array(run.pos, dtype=np.float64).reshape(n, 3),
            kind=kind, rounds=rounds, held=ints([len(c) for c in run.conds]),
            fresh=ints([sum(1 << self.kinds.name(f) for f in set(fr)) for fr in run.fresh]),
            elements=ints([sum(ELEMENTS[e] for e in set(el)) | kernel.OWED * (i in run.owes)
                           | kernel.BARRED * barred for i, (el, barred)
                           in enumerate(zip(run.elements, run.barred, strict=True))]),
            moved=np.array(run.moved, dtype=np.float64), penalty=ints(run.penalty),
            order=order, pools=self._pools(run),
            targets=np.zeros((n, 3), dtype=np.int64),
            aoo=ints([sum(1 << self.weapons[i].index(w) for w in run.aoo.get(i, ()))
                      for i in range(n)]),
            offers=offers, scalar=scalar, command=np.zeros(4, dtype=np.int64),
            perched=ints([int(p) for p in run.perched]),
            to=np.zeros(3, dtype=np.float64),
        )  # fmt: skip

    def _pools(self, run: Run) -> np.ndarray:
        """Models × resources: what each caster holds (0 for a resource it has none of)."""
        pools = np.zeros((len(run.hp), max(1, len(self.resources))), dtype=np.int64)
        for i, held in enumerate(run.pools):
            for resource, amount in held.items():
                pools[i, self.resources.index(resource)] = amount
        return pools

    def play(self, key: int, first: int, count: int, cap: int,
             limit: int = -1) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """Runs ``first`` … of the batch with ``key``: (ended, winner, round, commands), HP.

        Raises:
            OverflowError: The kernel ran out of room (the caller plays the Python path).
        """
        out = np.zeros((count, 4), dtype=np.int64)
        hp = np.zeros((count, len(self.batch.roster.ids)), dtype=np.int64)
        code = kernel.play(self.scratch, self.static, self.start, key, first, count, cap,
                           COMMAND_CAP, limit, out, hp)  # fmt: skip
        if code != kernel.OK:
            raise OverflowError(f"the kernel ran out of room (code {code})")
        return out, hp

    def view(self) -> dict[str, Any]:
        """``fast_strife.view`` of the last run the kernel played (no Movement spent)."""
        s, ids, n = self.scratch, self.batch.roster.ids, len(self.batch.roster.ids)
        names = {code: name for name, code in self.kinds.names.items()}
        sc = s.scalar.tolist()

        def members(mask: int) -> frozenset[str]:
            return frozenset(ids[i] for i in range(n) if mask >> i & 1)

        conds = {ids[i]: tuple(self.kinds.condition(int(s.kind[i, k]), int(s.rounds[i, k]))
                               for k in range(int(s.held[i]))) for i in range(n)}  # fmt: skip
        offers = [s.offers[o].tolist() for o in range(sc[kernel.OFFERS_N])]
        return {
            "hp": dict(zip(ids, s.hp.tolist(), strict=True)),
            "position": {ids[i]: tuple(s.pos[i].tolist()) for i in range(n)},
            "perched": {ids[i]: bool(s.perched[i]) for i in range(n)},
            "conditions": conds,
            "fresh": {
                ids[i]: frozenset(names[b] for b in names if s.fresh[i] >> b & 1) for i in range(n)
            },
            "elements": {
                ids[i]: frozenset(e for e, b in ELEMENTS.items() if s.elements[i] & b)
                for i in range(n)
            },
            "moved": dict(zip(ids, s.moved.tolist(), strict=True)),
            "initiative_penalty": dict(zip(ids, s.penalty.tolist(), strict=True)),
            "round": sc[kernel.ROUND],
            "order": tuple(ids[j] for j in s.order[: sc[kernel.ORDER_N]].tolist()),
            "turn": sc[kernel.TURN],
            "reactions_spent": members(sc[kernel.REACTED]),
            "failed_parry": members(sc[kernel.FAILED]),
            "bottom": members(sc[kernel.BOTTOM]),
            "owes_instant": frozenset(ids[i] for i in range(n) if s.elements[i] & kernel.OWED),
            "instant_barred": frozenset(ids[i] for i in range(n) if s.elements[i] & kernel.BARRED),
            "aoo_used": {
                ids[i]: frozenset(w for b, w in enumerate(self.weapons[i]) if s.aoo[i] >> b & 1)
                for i in range(n)
                if s.aoo[i]
            },
            "offers": tuple((ids[a], self.weapons[a][w], ids[t]) for a, w, t in offers),
            "last_damaged": None if sc[kernel.LAST_HURT] < 0 else ids[sc[kernel.LAST_HURT]],
            "last_damaged_by": None if sc[kernel.LAST_BY] < 0 else ids[sc[kernel.LAST_BY]],
            "ended": bool(sc[kernel.ENDED]),
            "winner": None if sc[kernel.WINNER] < 0 else self.sides[sc[kernel.WINNER]],
            "resources": self._pools_view(),
        }

    def _pools_view(self) -> dict[str, dict[Resource, int]]:
        """Each caster's pools in the last run the kernel played, as ``fast_strife.view``'s."""
        ids, pools = self.batch.roster.ids, self.scratch.pools
        return {
            ids[i]: {r: int(pools[i, self.resources.index(r)]) for r in held}
            for i, held in enumerate(self.held)
            if held
        }


def comparable(view: dict[str, Any]) -> dict[str, Any]:
    """``fast_strife.view`` in :meth:`Compiled.view`'s terms (sets of fresh names, elements).

    The Movement spent is not in the kernel.
    """
    out = {k: v for k, v in view.items() if k not in IN_PYTHON_ONLY}
    out["fresh"] = {who: frozenset(f) for who, f in view["fresh"].items()}
    out["elements"] = {who: frozenset(e) for who, e in view["elements"].items()}
    out["aoo_used"] = {who: w for who, w in view["aoo_used"].items() if w}
    return out


_KNOWN: dict[bytes, tuple[Compiled | None, str | None]] = {}  # the last start in this process


def compiled(state: FightState) -> tuple[Compiled | None, str | None]:
    """The kernel's tables for a fight the fast engine plays, or None and why not."""
    key = pickle.dumps(state)
    found = _KNOWN.get(key)
    if found is None:
        batch = fast_strife._batch(state)
        why = why_not(batch)
        found = (None, why) if why is not None else (Compiled(batch), None)
        _KNOWN.clear()
        _KNOWN[key] = found
    return found


def why_not_kernel(game: str, state: Any) -> str | None:
    """Why a fight the fast engine plays is not played by the kernel (None: it is, or a War)."""
    if game != "strife-combat" or fast_strife.why_not(state) is not None:
        return None
    return compiled(state)[1]


def batch_key(seed: int, first: int) -> int:
    """The 63-bit key of the batch starting at run ``first`` (F-51)."""
    sequence = np.random.SeedSequence(seed, spawn_key=(KERNEL_KEY, first // BATCH))
    return int(np.random.Generator(np.random.PCG64(sequence)).integers(0, 1 << 63))


def _moments(values: np.ndarray) -> Moments:
    array = np.asarray(values, dtype=np.int64)
    return Moments(int(array.size), int(array.sum()), int((array * array).sum()))


def tally_of(work: Compiled, out: np.ndarray, hp: np.ndarray) -> Tally:
    """The runs as a :class:`Tally` (what ``Tally.add`` would count run by run)."""
    roster = work.batch.roster
    tally = Tally(dict(zip(roster.ids, roster.side, strict=True)), 1)
    ended, winner, clock = out[:, 0] == 1, out[:, 1], out[:, 2]
    tally.runs = len(out)
    tally.commands = _moments(out[:, 3])
    tally.unfinished = int((~ended).sum())
    tally.clock = _moments(clock[ended])
    ends, counts = np.unique(clock[ended], return_counts=True)
    tally.clocks = Counter(dict(zip(ends.tolist(), counts.tolist(), strict=True)))
    tally.draws = int((winner[ended] < 0).sum())
    tally.wins = Counter({side: int((winner[ended] == code).sum())
                          for code, side in enumerate(work.sides)
                          if (winner[ended] == code).any()})  # fmt: skip
    start = work.start.hp
    lost = start[None, :] - hp
    fallen = hp <= 0
    tally.fallen = Counter({who: int(fallen[:, i].sum()) for i, who in enumerate(roster.ids)
                            if fallen[:, i].any()})  # fmt: skip
    for i, who in enumerate(roster.ids):
        tally.losses[who] = [_moments(lost[:, i])]
    side = np.array([work.sides.index(s) for s in roster.side])
    for code, name in enumerate(work.sides):
        tally.side_losses[name] = [_moments(lost[:, side == code].sum(axis=1))]
    return tally


def play_batch(state: FightState, seed: int, cap: int, first: int, count: int) -> Tally:
    """Runs ``first`` … ``first + count − 1`` on the kernel, tallied (F-51 seeds).

    A batch the kernel runs out of room for is played by the Python fast path instead.
    """
    work, _ = compiled(state)
    if work is None:
        raise ValueError("the kernel does not play this fight; ask why_not_kernel first")
    try:
        out, hp = work.play(batch_key(seed, first), first % BATCH, count, cap)
    except OverflowError:
        return fast_strife.play_batch(state, seed, cap, first, count)
    return tally_of(work, out, hp)


def run_fast(state: FightState, seed: int, cap: int, runs: int, workers: int,
             progress: Callable[[int], None] | None = None) -> Tally:  # fmt: skip
    """Every run on the kernel, batches on ``workers`` processes, merged in run order."""
    return fast_strife.spread(play_batch, BATCH, state, seed, cap, runs, workers, progress)


def run_any(state: FightState, seed: int, cap: int, runs: int, workers: int,
            progress: Callable[[int], None] | None = None) -> Tally:  # fmt: skip
    """Every run on the fast engine, batches on ``workers`` processes, in run order.

    On the kernel when it covers the fight (F-50), else on the Python fast path
    (``fast_strife.run_fast``).
    """
    if compiled(state)[1] is None:
        return run_fast(state, seed, cap, runs, workers, progress)
    return fast_strife.run_fast(state, seed, cap, runs, workers, progress)
