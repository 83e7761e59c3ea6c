"""Exact odds and Monte Carlo of Strikes and Checks (issue 5; M-6 … M-33).

``strike_odds(setup)`` gives the exact law, as ``fractions.Fraction``, of everything a Strike
resolved by ``strike.strike_with_dice`` decides from its dice: uncanceled Hits, net, Wear dealt
(per kind), Wear to the Striker from Defensive Hits, 12 Effects fired, Striker Falter, Epic
Strike / Epic Defense and their consequences, and the chance that the Defender is Defeated.
``check_odds(setup)`` does the same for a Check (M-30 … M-33). ``simulate_strikes`` and
``simulate_checks`` estimate the same laws by seeded, vectorised Monte Carlo.

How: ``odds_law.roll_law`` groups all 12^(7+n) rolled sequences into classes (final tally after
every `best` pass, natural unpaired 12s, natural unpaired 1s) with exact integer weights. Every
quantity of a class is then computed by the engine's own functions (``strike_effects``,
``strike_wear``, ``defensive_wear``, the Character's Wear and Status), once per distinct value,
and the distributions are weighted sums. Quantities that depend on which die the `best` policy
moves among equally good ones (Hits regardless of Stops, hence riders and Falter-type Passion
Effects) are not reported: they depend on the order of the dice, not only on the policy's value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache, lru_cache
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from tableside.dice import Side
from tableside.dice.laws import Chances, Distribution
from tableside.errors import RulesError
from tableside.limits import MC_MAX
from tableside.majesty import odds_law, odds_tables
from tableside.majesty.adjust import AdjustMode, AdjustPass
from tableside.majesty.character import Character, Status, WearKind
from tableside.majesty.checks import (
    DEGREES,
    EPIC_CHECK,
    SUCCESS_AT,
    CheckKind,
    CheckObjective,
    CheckSetup,
    check_with_dice,
    plan_check,
)
from tableside.majesty.odds_law import PassSpec, RollLaw, roll_law, sample_law
from tableside.majesty.odds_tables import ALL_TALLIES
from tableside.majesty.rolls import PLAIN, Reading, Tally, dice_to_roll, net_boon
from tableside.majesty.strike import (
    Adjusting,
    Outcome,
    Rated,
    StrikeObjective,
    StrikeSetup,
    defensive_wear,
    mode_owner,
    strike_effects,
    strike_wear,
    strike_with_dice,
)
from tableside.majesty.wear import WearLine

I64 = npt.NDArray[np.int64]
K = TypeVar("K")

# --- distributions ------------------------------------------------------------------------------


# --- results ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StrikeOdds:
    """The law of one Strike's results, exact or estimated (``samples`` rolls)."""

    setup: StrikeSetup
    samples: int | None
    passes: tuple[AdjustPass, ...]
    reading: Reading
    endurance: int
    uncanceled_hits: Distribution
    uncanceled_stops: Distribution
    net: Distribution
    wear: tuple[tuple[WearKind, Distribution], ...]
    wear_to_striker_kind: WearKind
    wear_to_striker: Distribution
    defensive_hits: Distribution
    twelve_effects: Distribution
    striker_falter: Distribution
    epic: Chances
    defender_status: Chances
    striker_status: Chances
    defeat: Fraction

    @property
    def exact(self) -> bool:
        """True for the exact law, False for a Monte Carlo estimate."""
        return self.samples is None

    def wear_of(self, kind: WearKind) -> Distribution:
        """Wear of one kind dealt to the Defender (zero when the Strike deals none of it)."""
        for found, distribution in self.wear:
            if found == kind:
                return distribution
        return Distribution((0,), (Fraction(1),))


@dataclass(frozen=True)
class CheckOdds:
    """The law of one Check's results, exact or estimated (``samples`` rolls)."""

    setup: CheckSetup
    samples: int | None
    passes: tuple[AdjustPass, ...]
    outcome: Chances
    automatic: Chances
    net: Distribution
    passes_short: Distribution
    degree: Distribution
    epic: Chances

    @property
    def exact(self) -> bool:
        """True for the exact law, False for a Monte Carlo estimate."""
        return self.samples is None


STATUS_LABELS = ("unchanged", "lowered_1_cycle", "defeated")
EPIC_STRIKE_LABELS = ("none", "strike", "defense")
OUTCOME_LABELS = ("success", "partial", "failure")
AUTOMATIC_LABELS = ("none", "success", "failure")
EPIC_CHECK_LABELS = ("none", "positive", "negative")


# --- what a setup rolls -------------------------------------------------------------------------


def _representative(boon_net: int) -> tuple[int, ...]:
    return (6,) * dice_to_roll(boon_net)


def _refuse_explicit(mode: AdjustMode) -> None:
    if mode == AdjustMode.EXPLICIT:
        raise RulesError(
            "Odds follow the best or none Adjustment policy; explicit Adjustments name the dice "
            "of one roll (M-13)."
        )


def _adjusting_passes(setup: StrikeSetup, adjusting: Adjusting) -> tuple[AdjustPass, ...]:
    """The passes made: all under best; under none, only the other side's tokens (D-9)."""
    if setup.options.mode == AdjustMode.BEST:
        return adjusting.passes
    owner = mode_owner(setup, adjusting)
    return tuple(p for p in adjusting.passes if owner is not None and p.side != owner)


@dataclass(frozen=True)
class _StrikePlan:
    setup: StrikeSetup
    reading: Reading
    passes: tuple[AdjustPass, ...]
    specs: tuple[PassSpec, ...]
    ignore_stops: int
    boon_net: int
    force: Rated


def _strike_plan(setup: StrikeSetup) -> _StrikePlan:
    """Validate the setup through the engine and read who adjusts how often (M-10, M-11, M-18)."""
    _refuse_explicit(setup.options.mode)
    boon_net = net_boon(setup.options.boon, setup.options.bane)
    sample = strike_with_dice(setup, _representative(boon_net))
    passes = _adjusting_passes(setup, sample.adjusting)
    ignore = setup.options.ignore_stops + sum(m.ignore_stops for m in setup.maneuvers)  # M-20
    specs = tuple(PassSpec(StrikeObjective(p.side, ignore, setup.melee), p.count) for p in passes)
    return _StrikePlan(setup, sample.reading, passes, specs, ignore, boon_net, sample.force)


def with_endurance(setup: StrikeSetup, endurance: int) -> StrikeSetup:
    """The setup with the Defender at current Endurance ``endurance`` (natural raised if needed)."""
    if endurance < -40:
        raise RulesError(f"Current Endurance cannot be below −40, got {endurance}.")
    defender = setup.defender
    natural = max(defender.natural.endurance, endurance)
    defender = replace(
        defender,
        natural=replace(defender.natural, endurance=natural),
        wear=replace(defender.wear, E=natural - endurance),
    )
    return replace(setup, defender=defender)


def strike_odds(setup: StrikeSetup, endurance: int | None = None) -> StrikeOdds:
    """The exact law of a Strike's results over every roll (M-7 … M-29).

    ``endurance`` sets the Defender's current Endurance first (default: from its sheet).
    """
    if endurance is not None:
        setup = with_endurance(setup, endurance)
    plan = _strike_plan(setup)
    law = roll_law(plan.reading, plan.specs, plan.boon_net)
    return _strike_laws(plan, law, law.weight, law.total, None)


def simulate_strikes(
    setup: StrikeSetup, n: int, seed: int, endurance: int | None = None
) -> StrikeOdds:
    """Estimate the law of a Strike's results from ``n`` seeded rolls (vectorised numpy)."""
    _check_samples(n)
    if endurance is not None:
        setup = with_endurance(setup, endurance)
    plan = _strike_plan(setup)
    law = roll_law(plan.reading, plan.specs, plan.boon_net)
    counts = sample_law(law, np.random.default_rng(seed), n)
    return _strike_laws(plan, law, counts, n, n)


def _check_samples(n: int) -> None:
    if n < 1:
        raise RulesError(f"Monte Carlo needs at least one roll, got {n}.")
    if n > MC_MAX:
        raise RulesError(f"Monte Carlo rolls at most {MC_MAX} times, got {n} (W-7).")


# --- per-tally keys (the engine's own reading of a tally) ---------------------------------------


@dataclass(frozen=True)
class _Keys:
    net: I64
    twelves: I64
    falter: I64


@cache
def _strike_keys(ignore_stops: int, melee: bool) -> _Keys:
    """net, 12 Effects and Striker Falter of every tally (``Outcome.of``, M-20 … M-22)."""
    outcomes = [
        Outcome.of(Tally(*map(int, row)), ignore_stops, melee) for row in ALL_TALLIES.tolist()
    ]
    return _Keys(
        np.array([o.net for o in outcomes], dtype=np.int64),
        np.array([o.twelve_effects for o in outcomes], dtype=np.int64),
        np.array([o.striker_falter for o in outcomes], dtype=np.int64),
    )


@cache
def _check_nets() -> I64:
    """Net Passes of every tally (``Tally.net``, M-8)."""
    return np.array([Tally(*map(int, row)).net for row in ALL_TALLIES.tolist()], dtype=np.int64)


# --- Strike quantities ----------------------------------------------------------------------------


def _strike_laws(
    plan: _StrikePlan, law: RollLaw, weights: I64, total: int, samples: int | None
) -> StrikeOdds:
    setup = plan.setup
    keys = _strike_keys(plan.ignore_stops, setup.melee)
    net, twelves = keys.net[law.tally], keys.twelves[law.tally]
    hits, stops = np.maximum(net, 0), np.maximum(-net, 0)
    dealt, fired = _wear_dealt(plan, hits, twelves)
    defensive, to_striker = _defensive(setup, stops)
    defender = _defender_status(setup.defender, dealt, law.unpaired_twelves)
    striker = _striker_status(setup, to_striker, law.unpaired_ones)
    epic = np.where(law.unpaired_twelves >= 2, 1, np.where(law.unpaired_ones >= 2, 2, 0))
    law_of = _law_maker(weights, total)
    return StrikeOdds(
        setup=setup, samples=samples, passes=plan.passes, reading=plan.reading,
        endurance=setup.defender.current_endurance,
        uncanceled_hits=law_of(hits), uncanceled_stops=law_of(stops), net=law_of(net),
        wear=tuple((kind, law_of(amount)) for kind, amount in dealt.items()),
        wear_to_striker_kind=setup.defender_weapon.wear_kind, wear_to_striker=law_of(to_striker),
        defensive_hits=law_of(defensive), twelve_effects=law_of(fired),
        striker_falter=law_of(keys.falter[law.tally]),
        epic=Chances.of_arrays(EPIC_STRIKE_LABELS, epic, weights, total),
        defender_status=Chances.of_arrays(STATUS_LABELS, defender % 3, weights, total),
        striker_status=Chances.of_arrays(STATUS_LABELS, striker, weights, total),
        defeat=Fraction(round(float(weights[defender >= 3].sum())), total),
    )  # fmt: skip


def _law_maker(weights: I64, total: int) -> Callable[[I64], Distribution]:
    def make(values: I64) -> Distribution:
        return Distribution.of_arrays(values, weights, total)

    return make


class _Memo(dict[int, K]):
    """Values of one engine computation per integer key, computed on first use."""

    def __init__(self, compute: Callable[[int], K]) -> None:
        super().__init__()
        self.compute = compute

    def __missing__(self, key: int) -> K:
        value = self.compute(key)
        self[key] = value
        return value

    def table(self, keys: I64) -> tuple[list[K], I64]:
        """The values of the distinct keys and, per class, the index of its value."""
        unique, inverse = np.unique(keys, return_inverse=True)
        return [self[int(k)] for k in unique], inverse.ravel().astype(np.int64)


@lru_cache(maxsize=256)
def _wear_memo(setup: StrikeSetup, force: Rated) -> _Memo[tuple[tuple[WearLine, ...], int]]:
    """Wear lines and 12 Effects fired per (uncanceled Hits · 64 + unpaired 12s), by the engine."""

    def compute(key: int) -> tuple[tuple[WearLine, ...], int]:
        hit, twelve = divmod(key, 64)
        outcome = Outcome(hit, 0, 0, twelve, 0)
        effects = strike_effects(setup, outcome)
        return strike_wear(setup, outcome, force, effects), effects.twelve_fired

    return _Memo(compute)


def _wear_dealt(plan: _StrikePlan, hits: I64, twelves: I64) -> tuple[dict[WearKind, I64], I64]:
    """Wear per kind and 12 Effects fired (M-21, M-25, M-26)."""
    results, index = _wear_memo(plan.setup, plan.force).table(hits * 64 + twelves)
    kinds = list(dict.fromkeys(line.kind for lines, _ in results for line in lines))
    dealt = {}
    for kind in kinds:
        amounts = [sum(line.amount for line in lines if line.kind == kind) for lines, _ in results]
        dealt[kind] = np.array(amounts, dtype=np.int64)[index]
    fired = np.array([f for _, f in results], dtype=np.int64)[index]
    return dealt, fired


@lru_cache(maxsize=256)
def _defensive_memo(setup: StrikeSetup) -> _Memo[tuple[int, int]]:
    """Defensive Hits and their Wear to the Striker per uncanceled Stops (M-23, M-27)."""

    def compute(stops: int) -> tuple[int, int]:
        hits, line = defensive_wear(setup, Outcome(0, stops, 0, 0, 0))
        return hits, 0 if line is None else line.amount

    return _Memo(compute)


def _defensive(setup: StrikeSetup, stops: I64) -> tuple[I64, I64]:
    results, index = _defensive_memo(setup).table(stops)
    return (
        np.array([h for h, _ in results], dtype=np.int64)[index],
        np.array([a for _, a in results], dtype=np.int64)[index],
    )


def _status_code(before: Character, after: Character, lowered: bool) -> int:
    """0 unchanged, 1 lowered for 1 Cycle, 2 Defeated by this Strike (+3 when Defeated after)."""
    defeated = after.status == Status.DEFEATED
    change = 2 if defeated and before.status != Status.DEFEATED else 1 if lowered else 0
    return change + (3 if defeated else 0)


def _epic_step(after: Character, epic: int) -> tuple[Character, bool]:
    """Natural unpaired 12s (or 1s) = 3 lower Status for 1 Cycle; ≥ 4 Defeat (M-24)."""
    lowered = epic == 3
    if lowered:
        after = after.lower_status()
    if epic >= 4:
        after = after.defeat_by_epic()
    return after, lowered


StatusKey = tuple[int, ...]  # Wear per kind, then the natural unpaired count (0 stands for < 3)


class _StatusMemo(dict[StatusKey, int]):
    """Status codes of one character after Wear of ``kinds`` and an Epic count, by the engine."""

    def __init__(self, character: Character, kinds: tuple[WearKind, ...]) -> None:
        super().__init__()
        self.character = character
        self.kinds = kinds

    def __missing__(self, key: StatusKey) -> int:
        after = self.character
        for kind, amount in zip(self.kinds, key[:-1], strict=True):
            if amount:
                after = after.take_wear(kind, amount)
        after, lowered = _epic_step(after, key[-1])
        value = _status_code(self.character, after, lowered)
        self[key] = value
        return value

    def codes(self, amounts: list[I64], epic: I64) -> I64:
        """Status code per class (computed once per distinct key)."""
        # Below 3 natural unpaired 12s (or 1s) nothing epic happens: one key for 0 … 2.
        bucket = np.where(epic >= 3, np.minimum(epic, 4), 0)
        columns = np.stack([*amounts, bucket], axis=1)
        first, inverse = _distinct_rows(columns)
        found = [self[tuple(int(v) for v in row)] for row in columns[first].tolist()]
        return np.array(found, dtype=np.int64)[inverse]


def _distinct_rows(columns: I64) -> tuple[I64, I64]:
    """First index of each distinct row of non-negative ints, and each row's group."""
    spans = [int(c.max()) + 1 for c in columns.T]
    if math.prod(spans) < 1 << 62:
        key = np.ravel_multi_index(tuple(columns.T), tuple(spans))
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    else:  # pragma: no cover - Wear beyond any realistic Strike
        _, first, inverse = np.unique(columns, axis=0, return_index=True, return_inverse=True)
    return first.astype(np.int64), inverse.ravel().astype(np.int64)


@lru_cache(maxsize=256)
def _status_memo(character: Character, kinds: tuple[WearKind, ...]) -> _StatusMemo:
    return _StatusMemo(character, kinds)


def _defender_status(defender: Character, dealt: dict[WearKind, I64], twelves: I64) -> I64:
    """Wear taken, then the Epic Strike's lowering or Defeat (M-1, M-3, M-24)."""
    kinds = tuple(dealt)
    return _status_memo(defender, kinds).codes([dealt[k] for k in kinds], twelves)


def _striker_status(setup: StrikeSetup, wear: I64, ones: I64) -> I64:
    """Wear from Defensive Hits, then the Epic Defense's lowering or Defeat (M-23, M-24, M-27)."""
    epic = ones if setup.melee else np.zeros_like(ones)
    memo = _status_memo(setup.striker, (setup.defender_weapon.wear_kind,))
    return memo.codes([wear], epic) % 3


# --- Checks -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _CheckPlan:
    setup: CheckSetup
    passes: tuple[AdjustPass, ...]
    specs: tuple[PassSpec, ...]
    boon_net: int


def _check_plan(setup: CheckSetup) -> _CheckPlan:
    _refuse_explicit(setup.mode)
    boon_net = net_boon(setup.boon, setup.bane)
    check_with_dice(setup, _representative(boon_net))  # validates like the engine
    passes = tuple(plan_check(setup)[4]) if setup.mode == AdjustMode.BEST else ()
    specs = tuple(PassSpec(CheckObjective(p.side), p.count) for p in passes)
    return _CheckPlan(setup, passes, specs, boon_net)


def check_odds(setup: CheckSetup) -> CheckOdds:
    """The exact law of a Check's results over every roll (M-30 … M-33)."""
    plan = _check_plan(setup)
    law = roll_law(PLAIN, plan.specs, plan.boon_net)
    return _check_laws(plan, law, law.weight, law.total, None)


def simulate_checks(setup: CheckSetup, n: int, seed: int) -> CheckOdds:
    """Estimate the law of a Check's results from ``n`` seeded rolls."""
    _check_samples(n)
    plan = _check_plan(setup)
    law = roll_law(PLAIN, plan.specs, plan.boon_net)
    counts = sample_law(law, np.random.default_rng(seed), n)
    return _check_laws(plan, law, counts, n, n)


def _check_laws(
    plan: _CheckPlan, law: RollLaw, weights: I64, total: int, samples: int | None
) -> CheckOdds:
    net = _check_nets()[law.tally]
    automatic = np.where(
        law.unpaired_twelves >= EPIC_CHECK, 1, np.where(law.unpaired_ones >= EPIC_CHECK, 2, 0)
    )  # M-33
    by_net = np.where(net >= SUCCESS_AT, 0, np.where(net >= 1, 1, 2))  # M-31
    outcome = np.where(automatic == 1, 0, np.where(automatic == 2, 2, by_net))
    degree = sum((net >= threshold).astype(np.int64) for threshold in DEGREES)  # M-32
    epic = np.where(law.unpaired_twelves >= 2, 1, np.where(law.unpaired_ones >= 2, 2, 0))
    law_of = _law_maker(weights, total)
    return CheckOdds(
        setup=plan.setup, samples=samples, passes=plan.passes,
        outcome=Chances.of_arrays(OUTCOME_LABELS, outcome, weights, total),
        automatic=Chances.of_arrays(AUTOMATIC_LABELS, automatic, weights, total),
        net=law_of(net), passes_short=law_of(np.maximum(0, SUCCESS_AT - net)),
        degree=law_of(np.asarray(degree, dtype=np.int64)),
        epic=Chances.of_arrays(EPIC_CHECK_LABELS, epic, weights, total),
    )  # fmt: skip


def clear_caches() -> None:
    """Forget every cached table (for cold-start measurements; results never depend on it)."""
    odds_law.clear_caches()
    for cached in (
        _strike_keys, _check_nets, _wear_memo, _defensive_memo, _status_memo,
        odds_tables.objective_ranks, odds_tables.state_options, odds_tables.category_table,
        odds_tables.counts_of_size, odds_tables.kept_rolls, odds_tables.kept_law,
        odds_tables.natural_table, odds_tables.best_table,
    ):  # fmt: skip
        cached.cache_clear()


__all__ = [
    "Chances",
    "CheckKind",
    "CheckOdds",
    "Distribution",
    "Side",
    "StrikeOdds",
    "check_odds",
    "clear_caches",
    "simulate_checks",
    "simulate_strikes",
    "strike_odds",
    "with_endurance",
]
