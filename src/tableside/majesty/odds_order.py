"""Exact odds when several Adjustment passes follow each other (Inspiration / Obstruction tokens).

One `best` pass is order-free: its value depends only on the multiset of the dice (M-13).
Which die it moves among equally good ones does depend on the order (lowest die index first),
and a later pass starts from those faces, so with two or more passes the result can depend on
the order of the natural roll (about one multiset in a hundred). This module computes the exact
distribution over every order without listing orders: a Markov chain walks the natural roll die
by die, making the engine's own choice at each die (``adjust._choose``: the largest move of the
die that still lets the rest of the roll reach the pass's best value at its least cost), and
merges walks that reach the same state. Under Boon/Bane the kept dice are not uniformly ordered
(among equal faces the later-rolled die is discarded, M-7); the walk runs over the kept dice plus
the discarded dice of the kept boundary face and skips the last of those, which reproduces the
law exactly (``odds_tables.KeptLaw``).

Passes after the first walk faces moved by earlier passes. Their best value and least cost
depend on the whole multiset they start from, which the walk has not finished when it reaches
the first die; the walk therefore guesses that multiset (from the walk of the earlier passes)
and drops every path whose guess turns out wrong. The last pass is never walked: its value is
order-free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tableside.majesty.odds_tables import (
    ADD,
    CHILD,
    I16,
    I32,
    I64,
    INF,
    N_STATES,
    N_TALLIES,
    STATE_BITS,
    STATES,
    KeptLaw,
    best_of,
    category_table,
    kept_rolls,
    min_costs,
    natural_table,
    pass_outputs,
    state_options,
)
from tableside.majesty.rolls import FACES, Category, Reading

FACE_BITS = 4  # remaining arrangement: counts of up to 10 dice per face
CATS = len(Category)


@dataclass(frozen=True)
class Pass:
    """One `best` pass: the objective ranks of its adjuster and its number of Adjustments."""

    ranks: I32
    budget: int


@dataclass(frozen=True)
class OrderLaw:
    """For every run of a kept law: the final tallies and how many arrangements reach each."""

    run: I64
    tally: I16
    count: I64


_MIX = (
    0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD6E8FEB86659FD93,
    0xA0761D6478BD642F, 0xE7037ED1A0B428DB, 0x8EBC6AF09C88C6E3, 0x589965CC75374CC3,
    0x1D8E4E27C47D124F, 0xF1357AEA2E62A9C5, 0x2545F4914F6CDD1D, 0xC2B2AE3D27D4EB4F,
)  # fmt: skip


def group_rows(columns: list[I64]) -> tuple[I64, I64]:
    """Group equal rows of several int64 columns: (first row of each group, group of each row).

    Rows are hashed to one 64-bit key; a collision (rows with one key that differ) is detected
    and then the rows are grouped exactly by sorting.
    """
    key = np.zeros(len(columns[0]), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i, column in enumerate(columns):
            key ^= column.astype(np.uint64) * np.uint64(_MIX[i % len(_MIX)])
            key ^= key >> np.uint64(31)
            key *= np.uint64(_MIX[(i + 5) % len(_MIX)])
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    if all(np.array_equal(column[first][inverse], column) for column in columns):
        return first.astype(np.int64), inverse.astype(np.int64)
    stacked = np.stack(columns, axis=1)  # pragma: no cover - a 64-bit collision
    _, first, inverse = np.unique(stacked, axis=0, return_index=True, return_inverse=True)
    return first.astype(np.int64), inverse.ravel().astype(np.int64)  # pragma: no cover


def _digit(code: I64, position: I64 | int, bits: int) -> I64:
    shift = np.asarray(position, dtype=np.int64) * bits
    return np.asarray((code >> shift) & ((1 << bits) - 1), dtype=np.int64)


def _unit(position: I64 | int, bits: int) -> I64:
    return np.asarray(np.int64(1) << (np.asarray(position, dtype=np.int64) * bits))


class _Costs:
    """Tally costs of multisets of die states (compact codes), computed once each.

    Besides the full table, every multiset keeps the short list of tallies it reaches within
    ``cap`` Adjustments (the largest pass): the feasibility test only looks at those.
    """

    def __init__(self, reading: Reading, cap: int) -> None:
        self.reading = reading
        self.cap = cap
        self.codes = np.zeros(0, dtype=np.int64)
        self.table = np.zeros((N_TALLIES, 0), dtype=np.int16)
        self.reach_tally = np.zeros((0, 1), dtype=np.int64)
        self.reach_cost = np.zeros((0, 1), dtype=np.int64)

    def columns(self, codes: I64) -> I64:
        """Columns of ``self.table`` for ``codes`` (computing the missing ones)."""
        unique = np.unique(codes)
        missing = unique[~np.isin(unique, self.codes)]
        if len(missing):
            fresh = min_costs(decode_states(missing), self.reading)
            tally, cost = _reach_lists(fresh, self.cap)
            width = max(tally.shape[1], self.reach_tally.shape[1])
            known = np.concatenate([self.codes, missing])
            order = np.argsort(known)
            self.codes = known[order]
            self.table = np.concatenate([self.table, fresh], axis=1)[:, order]
            self.reach_tally = np.concatenate(
                [_pad(self.reach_tally, width, -1), _pad(tally, width, -1)]
            )[order]
            self.reach_cost = np.concatenate(
                [_pad(self.reach_cost, width, INF), _pad(cost, width, INF)]
            )[order]
        return np.asarray(np.searchsorted(self.codes, codes), dtype=np.int64)


def _reach_lists(table: I16, cap: int) -> tuple[I64, I64]:
    """Per column of a tally-cost table: the tallies within ``cap`` and their costs, padded."""
    reach = np.less_equal(table.T, cap)
    width = max(1, int(reach.sum(axis=1).max()))
    rows, tallies = np.nonzero(reach)
    start = np.searchsorted(rows, np.arange(table.shape[1]))
    slot = np.arange(len(rows)) - start[rows]
    tally = np.full((table.shape[1], width), -1, dtype=np.int64)
    cost = np.full((table.shape[1], width), INF, dtype=np.int64)
    tally[rows, slot] = tallies
    cost[rows, slot] = table.T[rows, tallies]
    return tally, cost


def _pad(array: I64, width: int, fill: int) -> I64:
    if array.shape[1] == width:
        return array
    padded = np.full((array.shape[0], width), fill, dtype=np.int64)
    padded[:, : array.shape[1]] = array
    return padded


def decode_states(codes: I64) -> np.ndarray:
    """Rows of die states (-1 padded to 7) of compact multiset codes."""
    counts = np.stack([_digit(codes, s, STATE_BITS) for s in range(N_STATES)], axis=1)
    rows = np.full((len(codes), 7), -1, dtype=np.int8)
    filled = np.zeros(len(codes), dtype=np.int64)
    for s in range(N_STATES):
        for _ in range(7):
            put = counts[:, s] > 0
            if not put.any():
                break
            rows[put, filled[put]] = s
            filled[put] += 1
            counts[put, s] -= 1
    return rows


class _Walk:
    """The chain over orders for one reading, kept law and sequence of passes."""

    def __init__(self, reading: Reading, law: KeptLaw, passes: tuple[Pass, ...], runs: I64) -> None:
        self.reading = reading
        self.passes = passes
        self.runs = runs
        self.run_kept = law.run_kept[runs]
        self.run_extra = law.run_extra[runs]
        self.run_face = law.run_face[runs]
        self.options = state_options(reading)
        self.costs = _Costs(reading, max(p.budget for p in passes))
        natural = natural_table(reading)
        self.kept_counts = kept_rolls().counts[self.run_kept].astype(np.int64)
        flags = (natural.unpaired_twelves >= 2).astype(np.int64) + 2 * (
            natural.unpaired_ones >= 2
        ).astype(np.int64)
        self.flags = flags[self.run_kept]
        self.natural_state = _natural_state_table(reading)
        self.first_best = best_of(
            natural.costs[:, self.run_kept], passes[0].ranks, passes[0].budget
        )

    def law(self) -> OrderLaw:
        """Walk every pass but the last; the last pass's value is order-free."""
        guesses: list[tuple[I64, I64]] = []
        cols: dict[str, I64] = {}
        for walked in range(1, len(self.passes)):
            cols = self.run(walked, guesses)
            out = cols[f"out{walked - 1}"]
            first, _ = group_rows([cols["run"], out])
            guesses = [*guesses, (cols["run"][first], out[first])]
        tally = _final_tallies(self.reading, cols[f"out{len(self.passes) - 2}"], self.passes[-1])
        run = cols["run"]
        first, where = group_rows([run, tally.astype(np.int64)])
        count = np.bincount(where, weights=cols["weight"], minlength=len(first))
        return OrderLaw(self.runs[run[first]], tally[first], np.rint(count).astype(np.int64))

    # --- feasibility: can the rest of the roll still reach the pass's best value? -------------

    def _feasible(self, suffix: I64, head: I64, budget: I64, ranks: I32, best: I64) -> I64:
        ok = np.zeros(len(suffix), dtype=bool)
        live = np.flatnonzero((budget >= 0) & (head >= 0))
        if not len(live):
            return ok
        columns = [suffix[live], head[live], budget[live], best[live]]
        first, inverse = group_rows(columns)
        suffix_u, head_u, budget_u, best_u = (c[first] for c in columns)
        where = self.costs.columns(suffix_u)
        tally = self.costs.reach_tally[where]  # [n, width]
        total = np.where(tally >= 0, ADD[head_u[:, None], np.maximum(tally, 0)], -1)
        rank = np.where(total >= 0, ranks[np.maximum(total, 0)], -1)
        cheap = self.costs.reach_cost[where] <= budget_u[:, None]
        values = (cheap & (rank == best_u[:, None])).any(axis=1)
        ok[live] = values[inverse]
        return ok

    def _choose(
        self, state: I64, suffix: I64, head: I64, spent: I64, best: I64, least: I64, p: int
    ) -> tuple[I64, I64, I64]:
        """The engine's choice for one die: (category, new head, cost)."""
        options = self.options
        preference = options.preference[state].astype(np.int64)  # [n, 5]
        # The last option of every die is to stay (cost 0): chosen when no move completes.
        stay = (preference >= 0).sum(axis=1) - 1
        cost_of = np.where(
            preference >= 0, options.cost[state[:, None], np.maximum(preference, 0)], INF
        )
        room = (least - spent)[:, None]
        rows, ranks = np.nonzero((cost_of >= 1) & (cost_of <= room))
        category = preference[rows, ranks]
        cost = cost_of[rows, ranks].astype(np.int64)
        grown = CHILD[category, head[rows]].astype(np.int64)
        left = least[rows] - spent[rows] - cost
        fine = self._feasible(suffix[rows], grown, left, self.passes[p].ranks, best[rows])
        first_rank = stay.copy()
        np.minimum.at(first_rank, rows[fine], ranks[fine])
        chosen = preference[np.arange(len(state)), first_rank]
        cost = options.cost[state, chosen].astype(np.int64)
        return chosen, CHILD[chosen, head].astype(np.int64), cost

    # --- the walk ---------------------------------------------------------------------------

    def run(self, walked: int, guesses: list[tuple[I64, I64]]) -> dict[str, I64]:
        """Walk the first ``walked`` passes; ``guesses[w-1]``: (run, input code) of pass w ≥ 1."""
        runs = np.arange(len(self.run_kept), dtype=np.int64)
        cols: dict[str, I64] = {"run": runs, "weight": np.ones(len(runs), dtype=np.int64)}
        faces = _unit(np.arange(FACES), FACE_BITS)
        cols["rem"] = (self.kept_counts * faces).sum(axis=1) + self.run_extra * _unit(
            np.maximum(self.run_face - 1, 0), FACE_BITS
        )
        states = self.natural_state[self.flags[:, None], np.arange(1, FACES + 1)[None, :]]
        cols["nat"] = (self.kept_counts * _unit(states, STATE_BITS)).sum(axis=1)
        for p in range(walked):
            for name in ("head", "spent", "out"):
                cols[f"{name}{p}"] = np.zeros(len(runs), dtype=np.int64)
        cols["best0"] = self.first_best.score.astype(np.int64)
        cols["least0"] = self.first_best.cost.astype(np.int64)
        for w, (guess_run, guess_code) in enumerate(guesses, start=1):
            cols = _join_guess(cols, guess_run, guess_code, w)
        self._prepare_guesses(cols, walked)
        finished: list[dict[str, I64]] = []
        while len(cols["run"]):
            cols = self._finish(cols, walked)
            done = cols["rem"] == 0
            finished.append({name: values[done] for name, values in cols.items()})
            cols = self._step({name: values[~done] for name, values in cols.items()}, walked)
        return _merge({name: np.concatenate([f[name] for f in finished]) for name in finished[0]})

    def _finish(self, cols: dict[str, I64], walked: int) -> dict[str, I64]:
        """Close the walks whose passes have spent their least cost: the other dice stay put."""
        spent_all = cols["rem"] != 0
        for p in range(walked):
            spent_all &= cols[f"spent{p}"] == cols[f"least{p}"]
        idx = np.flatnonzero(spent_all)
        if not len(idx):
            return cols
        rest = cols["nat"][idx]
        alive = np.ones(len(idx), dtype=bool)
        for p in range(walked):
            if p:
                alive &= cols[f"left{p}"][idx] == rest
                cols[f"left{p}"][idx] = 0
            cols[f"out{p}"][idx] += rest
        orders = _arrangements(cols["rem"][idx])
        cols["rem"][idx] = 0
        cols["nat"][idx] = 0
        cols["weight"][idx] = np.where(alive, cols["weight"][idx] * orders, 0)
        return cols

    def _prepare_guesses(self, cols: dict[str, I64], walked: int) -> None:
        for w in range(1, walked):
            codes = cols[f"guess{w}"]
            unique, inverse = np.unique(codes, return_inverse=True)
            columns = self.costs.columns(unique)
            table = self.costs.table[:, columns]
            best = best_of(table, self.passes[w].ranks, self.passes[w].budget)
            cols[f"best{w}"] = best.score.astype(np.int64)[inverse.ravel()]
            cols[f"least{w}"] = best.cost.astype(np.int64)[inverse.ravel()]

    def _step(self, cols: dict[str, I64], walked: int) -> dict[str, I64]:
        """Draw every possible next die of every state (the engine's walk, one die further)."""
        counts = np.stack([_digit(cols["rem"], f, FACE_BITS) for f in range(FACES)], axis=1)
        parent, face_index = np.nonzero(counts)
        child = {name: values[parent] for name, values in cols.items()}
        run = child["run"]
        child["rem"] = child["rem"] - _unit(face_index, FACE_BITS)
        m = self.run_face[run] - 1
        extra = self.run_extra[run]
        kept_m = self.kept_counts[run, np.maximum(m, 0)]
        drawn_m = kept_m + extra - counts[parent, np.maximum(m, 0)]
        keep = ~((extra > 0) & (face_index == m) & (drawn_m >= kept_m))
        sub = {name: values[keep] for name, values in child.items()}
        self._advance(sub, face_index[keep], walked)
        for name, values in sub.items():
            child[name][keep] = values
        return _merge(child)

    def _advance(self, sub: dict[str, I64], face_index: I64, walked: int) -> None:
        """Let every walked pass choose for the drawn die (the columns of ``sub`` are updated)."""
        die = self.natural_state[self.flags[sub["run"]], face_index + 1].astype(np.int64)
        sub["nat"] = sub["nat"] - _unit(die, STATE_BITS)
        suffix = sub["nat"]
        alive = np.ones(len(die), dtype=bool)
        for p in range(walked):
            if p:
                left = sub[f"left{p}"]
                have = _digit(left, die, STATE_BITS) > 0
                alive &= have
                sub[f"left{p}"] = np.where(have, left - _unit(die, STATE_BITS), left)
                suffix = sub[f"left{p}"]
            idx = np.flatnonzero(alive)
            category, head, cost = self._choose(
                die[idx], suffix[idx], sub[f"head{p}"][idx], sub[f"spent{p}"][idx],
                sub[f"best{p}"][idx], sub[f"least{p}"][idx], p,
            )  # fmt: skip
            die = die.copy()
            die[idx] = self.options.target_state[die[idx], category]
            for name, change in ((f"head{p}", None), (f"spent{p}", cost)):
                values = sub[name].copy()
                values[idx] = head if change is None else values[idx] + change
                sub[name] = values
            out = sub[f"out{p}"].copy()
            out[idx] += _unit(die[idx], STATE_BITS)
            sub[f"out{p}"] = out
        sub["weight"] = np.where(alive, sub["weight"], 0)


_FACTORIALS = np.array([math.factorial(n) for n in range(21)], dtype=np.int64)


def _arrangements(rem: I64) -> I64:
    """Distinct orders of the dice still to come (a multinomial of the face counts)."""
    counts = np.stack([_digit(rem, f, FACE_BITS) for f in range(FACES)], axis=1)
    return np.asarray(
        _FACTORIALS[counts.sum(axis=1)] // np.prod(_FACTORIALS[counts], axis=1), dtype=np.int64
    )


def _natural_state_table(reading: Reading) -> I64:
    """[flags, face] → compact die state of a natural die (flags: 1 Epic positive, 2 negative)."""
    categories = category_table(reading)
    table = np.zeros((4, FACES + 1), dtype=np.int64)
    for flags in range(4):
        for face in range(1, FACES + 1):
            category = categories[face]
            lock = 0
            if flags & 1 and category == Category.TWELVE:
                lock = 1 if face == 11 else 2
            elif flags & 2 and category == Category.ONE:
                lock = 3
            table[flags, face] = STATES.index((face, lock))
    return table


def _join_guess(cols: dict[str, I64], guess_run: I64, guess_code: I64, w: int) -> dict[str, I64]:
    """Pair every state of a run with every guessed input multiset of pass ``w`` for that run."""
    order = np.argsort(guess_run, kind="stable")
    guess_run, guess_code = guess_run[order], guess_code[order]
    start = np.searchsorted(guess_run, cols["run"], side="left")
    stop = np.searchsorted(guess_run, cols["run"], side="right")
    repeat = stop - start
    parent = np.repeat(np.arange(len(cols["run"])), repeat)
    offset = np.arange(len(parent)) - np.repeat(np.cumsum(repeat) - repeat, repeat)
    joined = {name: values[parent] for name, values in cols.items()}
    joined[f"guess{w}"] = guess_code[start[parent] + offset]
    joined[f"left{w}"] = joined[f"guess{w}"].copy()
    return joined


_DERIVED = ("head", "best", "least", "left", "nat")  # functions of the other columns


def _merge(cols: dict[str, I64]) -> dict[str, I64]:
    """Merge identical states (summing their weights); drop dead ones."""
    live = cols["weight"] > 0
    names = [n for n in cols if n != "weight" and not n.startswith(_DERIVED)]
    first, inverse = group_rows([cols[name][live] for name in names])
    weight = np.bincount(inverse, weights=cols["weight"][live], minlength=len(first))
    merged = {name: values[live][first] for name, values in cols.items()}
    merged["weight"] = np.rint(weight).astype(np.int64)
    return merged


def _final_tallies(reading: Reading, codes: I64, last: Pass) -> I16:
    """The last pass's best tally from each multiset of die states (its value is order-free)."""
    unique, inverse = np.unique(codes, return_inverse=True)
    best = best_of(min_costs(decode_states(unique), reading), last.ranks, last.budget)
    return best.tally[inverse.ravel()]


def order_law(reading: Reading, law: KeptLaw, passes: tuple[Pass, ...]) -> OrderLaw:
    """Final tallies of every run after all ``passes`` (two or more), over every order.

    ``count`` is in rolled sequences (already multiplied by ``law.run_each``). Runs on which
    every pass but the last leaves one multiset whatever the order (``pass_outputs``) need no
    walk; the others are walked.
    """
    natural = natural_table(reading)
    rows, row_of_run = np.unique(law.run_kept, return_inverse=True)
    first = pass_outputs(natural.states[rows], reading, passes[0].ranks, passes[0].budget)
    walk = ~first.unique[row_of_run.ravel()]
    codes = first.lowest[row_of_run.ravel()]
    for middle in passes[1:-1]:
        idx = np.flatnonzero(~walk)
        unique, inverse = np.unique(codes[idx], return_inverse=True)
        step = pass_outputs(decode_states(unique), reading, middle.ranks, middle.budget)
        walk[idx[~step.unique[inverse.ravel()]]] = True
        codes[idx] = step.lowest[inverse.ravel()]
    settled = np.flatnonzero(~walk)
    tally = _final_tallies(reading, codes[settled], passes[-1])
    orders = _arrangements(_arrangement_codes(law, settled))
    empty = np.zeros(0, dtype=np.int64)
    walked = (
        _Walk(reading, law, passes, np.flatnonzero(walk)).law()
        if walk.any()
        else OrderLaw(empty, empty.astype(np.int16), empty)
    )
    return OrderLaw(
        np.concatenate([settled, walked.run]),
        np.concatenate([tally, walked.tally]),
        np.concatenate([orders, walked.count])
        * law.run_each[np.concatenate([settled, walked.run])],
    )


def _arrangement_codes(law: KeptLaw, runs: I64) -> I64:
    """Face counts (4 bits each) of the kept dice plus the run's extra dice."""
    counts = kept_rolls().counts[law.run_kept[runs]].astype(np.int64)
    code = (counts * _unit(np.arange(FACES), FACE_BITS)).sum(axis=1)
    extra = law.run_extra[runs] * _unit(np.maximum(law.run_face[runs] - 1, 0), FACE_BITS)
    return np.asarray(code + extra, dtype=np.int64)
