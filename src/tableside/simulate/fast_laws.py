"""The exact law of what one War Strike does, as a table the fast simulator samples (issue 15).

A Strike's consequences in a War (``war.apply_strike``) depend on its dice only through the
final tally after every `best` pass and the natural roll's unpaired 12s and 1s (M-8, M-9, M-13),
except where a rule reads the Hits regardless of Stops (a non-Wear Passion Effect, M-25; riders
of Maneuvers, M-20, M-29), which the `best` policy's choice among equally good dice decides.
``strike_table`` takes the odds engine's exact law of those classes (``odds_law.roll_law``, the
same call as ``odds.strike_odds``) and computes each class's consequences with the engine's own
functions (``strike_effects``, ``strike_wear``, ``defensive_wear``), so the table is the engine's
law, not a copy of its rules. A Strike whose consequences the classes do not decide is marked
``ambiguous``: the fast simulator then rolls it with the engine itself (``roll_strike``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from tableside.majesty.character import Attribute, WearKind
from tableside.majesty.odds import _strike_plan
from tableside.majesty.odds_law import roll_law
from tableside.majesty.odds_tables import ALL_TALLIES
from tableside.majesty.rolls import EpicState, Tally, dice_to_roll, natural_roll_from, net_boon
from tableside.majesty.strike import (
    Outcome,
    Rated,
    StrikeResult,
    StrikeSetup,
    _adjust,
    _ignore_stops,
    defensive_wear,
    effective_force,
    effective_guard,
    effective_precision,
    passion_triggers,
    plan_adjustments,
    strike_effects,
    strike_reading,
    strike_wear,
)
from tableside.simulate import disk_cache

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

# Columns of a consequence row, in the order war.apply_strike applies them.
D_E, D_R, D_P, S_KIND, S_WEAR, D_FALTER, S_FALTER, AP_GAINED, FIRED, D_EXERTION, D_EPIC, S_EPIC = (
    range(12)
)
HOLD_KEPT = 12  # a Grappled Defender's outcome has 12 Effects: a Grappler keeps it (M-37, F-30)
COLUMNS = 13
KIND_INDEX = {WearKind.E: 0, WearKind.R: 1, WearKind.P: 2}
EPIC_NONE, EPIC_LOWERED, EPIC_DEFEAT = 0, 1, 2


@dataclass(frozen=True)
class StrikeTable:
    """Distinct consequence rows of one Strike and their exact weights out of ``total``.

    ``rows[k]`` holds the columns above; ``weights[k]`` of ``total`` rolled sequences give it.
    ``ambiguous``: the classes do not decide the consequences (roll it with the engine).
    """

    setup: StrikeSetup
    rows: I64
    weights: I64
    total: int
    ambiguous: bool

    @property
    def cumulative(self) -> F64:
        """Cumulative probabilities (the last is exactly 1.0)."""
        cumulative = np.cumsum(self.weights).astype(np.float64) / float(self.total)
        cumulative[-1] = 1.0
        return cumulative


def epic_code(unpaired: int) -> int:
    """Natural unpaired 12s (or 1s): 3 lower Status for 1 Cycle, 4 or more Defeat (M-24)."""
    return EPIC_DEFEAT if unpaired >= 4 else EPIC_LOWERED if unpaired == 3 else EPIC_NONE


def reads_all_hits(setup: StrikeSetup) -> bool:
    """Whether a consequence depends on Hits regardless of Stops (M-20, M-25, M-29)."""
    passion = setup.weapon.passion_effect
    triggers = passion_triggers(
        setup.striker.referenced(Attribute.PASSION) - setup.defender.referenced(Attribute.RESOLVE)
    )
    passion_reads = passion is not None and triggers > 0 and not passion.type.wear_type
    riders = any(m.falter or m.falter_per_hit or m.knock_back for m in setup.maneuvers)
    return passion_reads or riders


def outcome_row(setup: StrikeSetup, force: Rated, outcome: Outcome) -> list[int]:
    """One final tally's consequences, by the engine's functions (war.apply_strike's inputs).

    The Epic columns are left 0: they come from the natural roll (:func:`epic_code`).
    """
    effects = strike_effects(setup, outcome)
    lines = strike_wear(setup, outcome, force, effects)
    row = [0] * COLUMNS
    for line in lines:
        row[KIND_INDEX[line.kind]] += line.amount
    _, to_striker = defensive_wear(setup, outcome)
    if to_striker is not None:
        row[S_KIND], row[S_WEAR] = KIND_INDEX[to_striker.kind], to_striker.amount
    row[D_FALTER] = sum(p.amount for p in effects.defender_falter)
    row[S_FALTER] = outcome.striker_falter
    row[AP_GAINED], row[FIRED] = effects.ap_gained, effects.twelve_fired
    row[D_EXERTION] = effects.defender_exertion
    row[HOLD_KEPT] = hold_kept(setup, outcome)
    return row


def hold_kept(setup: StrikeSetup, outcome: Outcome) -> int:
    """1 when a Grappled Defender's outcome has 12 Effects, else 0 (M-37, F-30).

    ``war.do_strike`` releases the one a Grappler holds after the Grappler's Strike on it unless
    the outcome has 12 Effects; the column is left 0 for a Defender not Grappled, so that its
    table keeps the rows it had.
    """
    return int(setup.defender_state.grappled and outcome.twelve_effects > 0)


def result_row(result: StrikeResult) -> list[int]:
    """The same row read from a Strike the engine resolved (for ambiguous Strikes)."""
    row = [0] * COLUMNS
    for line in result.wear:
        row[KIND_INDEX[line.kind]] += line.amount
    if result.wear_to_striker is not None:
        row[S_KIND] = KIND_INDEX[result.wear_to_striker.kind]
        row[S_WEAR] = result.wear_to_striker.amount
    row[D_FALTER], row[S_FALTER] = result.defender_falter, result.striker_falter
    row[AP_GAINED], row[FIRED] = result.effects.ap_gained, result.effects.twelve_fired
    row[D_EXERTION] = result.effects.defender_exertion
    row[D_EPIC] = epic_code(result.epic.unpaired_twelves)
    row[S_EPIC] = epic_code(result.epic.unpaired_ones) if result.setup.melee else EPIC_NONE
    row[HOLD_KEPT] = hold_kept(result.setup, result.outcome)
    return row


class StrikeTables:
    """The Strike tables of this process, kept by what they depend on (and on disk).

    Called as ``strike_table(setup, key)``: ``key`` names what the table depends on, when the
    caller knows that is less than the whole setup (the fast War engine's Strike signatures and
    Passion triggers, ``fast_war.table_key``), so that setups differing only in what the table
    does not read share one table, in the process and on disk; by default ``repr(setup)``. The
    last :data:`KEPT_TABLES` are kept in memory. ``computed`` and ``loaded`` count the tables
    computed and those read from the disk cache.
    """

    def __init__(self) -> None:
        self.kept: OrderedDict[str, StrikeTable] = OrderedDict()
        self.lock = threading.Lock()
        self.computed = 0
        self.loaded = 0

    def __call__(self, setup: StrikeSetup, key: str | None = None) -> StrikeTable:
        """The exact law of a Strike's consequences (the odds engine's classes, M-7 … M-29)."""
        name = repr(setup) if key is None else key
        with self.lock:
            table = self.kept.get(name)
            if table is not None:
                self.kept.move_to_end(name)
        if table is None:
            table = self._load_or_compute(name, setup)
            with self.lock:
                self.kept[name] = table
                while len(self.kept) > KEPT_TABLES:
                    self.kept.popitem(last=False)
        return table if table.setup is setup else replace(table, setup=setup)

    def _load_or_compute(self, name: str, setup: StrikeSetup) -> StrikeTable:
        kept = disk_cache.load("strike-table", name)
        if kept is not None:
            self.loaded += 1
            total, ambiguous = (int(v) for v in kept["scalars"])
            return StrikeTable(setup, kept["rows"], kept["weights"], total, bool(ambiguous))
        self.computed += 1
        table = _strike_table(setup)
        scalars = np.array([table.total, int(table.ambiguous)], dtype=np.int64)
        disk_cache.save("strike-table", name, {"rows": table.rows, "weights": table.weights,
                                               "scalars": scalars})  # fmt: skip
        return table

    def cache_clear(self) -> None:
        """Forget the tables kept in memory (the disk cache stays)."""
        with self.lock:
            self.kept.clear()


KEPT_TABLES = 4096  # Strike tables kept in a process
strike_table = StrikeTables()


@lru_cache(maxsize=1 << 16)
def tally_outcome(tally: int, ignore_stops: int, melee: bool) -> Outcome:
    """The Outcome of one of the odds engine's tallies (``ALL_TALLIES``), computed once."""
    return Outcome.of(Tally(*ALL_TALLIES[tally].tolist()), ignore_stops, melee)


def _strike_table(setup: StrikeSetup) -> StrikeTable:
    """The table computed: each class's row (one ``outcome_row`` per distinct Outcome)."""
    plan = _strike_plan(setup)
    law = roll_law(plan.reading, plan.specs, plan.boon_net)
    tallies, which = np.unique(law.tally, return_inverse=True)
    by_outcome: dict[Outcome, int] = {}
    rows: list[list[int]] = []
    row_of: list[int] = []  # per distinct tally: its row
    for tally in tallies.tolist():
        outcome = tally_outcome(tally, plan.ignore_stops, setup.melee)
        if outcome not in by_outcome:
            by_outcome[outcome] = len(rows)
            rows.append(outcome_row(setup, plan.force, outcome))
        row_of.append(by_outcome[outcome])
    most = int(max(law.unpaired_twelves.max(), law.unpaired_ones.max()))
    epic = np.array([epic_code(u) for u in range(most + 1)], dtype=np.int64)  # 0, 1 or 2
    d_epic = epic[law.unpaired_twelves]
    s_epic = epic[law.unpaired_ones] if setup.melee else np.zeros_like(d_epic)
    # The classes grouped by (row, Epic codes) first, then the few groups by their whole rows.
    code = (np.array(row_of, dtype=np.int64)[which.ravel()] * 3 + d_epic) * 3 + s_epic
    grouped, group = np.unique(code, return_inverse=True)
    matrix = np.array(rows, dtype=np.int64).reshape(-1, COLUMNS)[grouped // 9]
    matrix[:, D_EPIC], matrix[:, S_EPIC] = grouped // 3 % 3, grouped % 3
    group_weights = np.bincount(group.ravel(), weights=law.weight, minlength=len(grouped))
    distinct, inverse = np.unique(matrix, axis=0, return_inverse=True)
    weights = np.bincount(inverse.ravel(), weights=group_weights, minlength=len(distinct))
    return StrikeTable(
        setup, distinct.astype(np.int64), np.rint(weights).astype(np.int64), law.total,
        reads_all_hits(setup),
    )  # fmt: skip


class Roller:
    """An ambiguous Strike resolved from its dice by the engine's own functions, row by row.

    What ``resolve_strike`` computes once per Strike but the dice do not change (effective
    Precision, Guard and Force, the planned Adjustments, the reading) is computed once per
    setup; each roll then goes through the engine's discards (M-7), Epic judgement (M-9), `best`
    Adjustments (M-13) and ``outcome_row`` — the row :func:`result_row` reads from
    ``strike_with_dice`` on the same dice (tests/test_simulate_fast.py checks it).
    """

    def __init__(self, setup: StrikeSetup) -> None:
        self.setup = setup
        self.boon_net = net_boon(setup.options.boon, setup.options.bane)
        self.dice = dice_to_roll(self.boon_net)
        self.force = effective_force(setup)
        self.adjusting = plan_adjustments(setup, effective_precision(setup),
                                          effective_guard(setup))  # fmt: skip
        self.reading = strike_reading(setup)
        self.ignore = _ignore_stops(setup)
        self.known: dict[tuple[int, ...], list[int]] = {}

    def row(self, rolled: tuple[int, ...]) -> list[int]:
        """The consequence row of the Strike on these dice (in the order rolled)."""
        found = self.known.get(rolled)
        if found is not None:
            return found
        natural = natural_roll_from(rolled, self.boon_net).natural
        epic = EpicState.of(natural, self.reading)
        final, _ = _adjust(self.setup, natural, self.reading, self.adjusting)
        outcome = Outcome.of(Tally.of(final, self.reading), self.ignore, self.setup.melee)
        row = outcome_row(self.setup, self.force, outcome)
        row[D_EPIC] = epic_code(epic.unpaired_twelves)
        row[S_EPIC] = epic_code(epic.unpaired_ones) if self.setup.melee else EPIC_NONE
        if len(self.known) < ROLLER_MEMO:
            self.known[rolled] = row
        return row


ROLLER_MEMO = 1 << 16  # rolls kept per ambiguous Strike
