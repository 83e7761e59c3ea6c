"""Two engines' reports compared: the gaps, standard errors, power and sizes of the agreement
tests (F-4, F-11, F-31, F-42), in one place for tests/test_simulate_agreement*.py.

Each test compares a win probability ``p`` of the full engine (``n_full`` runs) with the fast
engine's (``n_fast`` runs). The difference has the standard error
``se = sqrt(p(1-p)/n_full + p(1-p)/n_fast)``; the engines disagree when the gap is beyond
``BOUND`` standard errors. A true shift ``d`` of the fast engine is caught with probability
``power(se, d) = Φ(d/se - BOUND) + Φ(-d/se - BOUND)`` (Φ the standard normal law); every test
asserts ``power(se, SHIFT) >= POWER`` on the figures it got. :func:`sized` gives the runs of least
CPU for that power: docs/testing.md ("Statistical power") derives it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist
from typing import Any

from tableside.simulate import simulate

Report = dict[str, Any]

BOUND = 3.0  # standard errors of the difference beyond which the two engines disagree
POWER = 0.90  # the probability with which a shift of SHIFT must be caught
SHIFT = 0.01  # the difference in a win probability the tests must catch
NORMAL = NormalDist()


def power(se: float, shift: float = SHIFT, bound: float = BOUND) -> float:
    """The probability that a true gap of ``shift`` lands beyond ``bound`` standard errors."""
    return NORMAL.cdf(shift / se - bound) + NORMAL.cdf(-shift / se - bound)


def sized(p: float, cost_ratio: float, shift: float = SHIFT) -> tuple[int, int]:
    """The full and fast runs (rounded up to thousands) of least CPU that catch ``shift``.

    ``p`` is the design win probability (the one nearest 1/2, moved towards 1/2 by about two of
    its standard errors), ``cost_ratio`` the CPU of a full run over a fast one. With
    ``v = (shift / (BOUND + z_POWER))^2`` and ``r = sqrt(cost_ratio)``: ``n_full = (1 + 1/r)
    p(1-p)/v`` and ``n_fast = (1 + r) p(1-p)/v`` (Neyman's allocation: the runs in the ratio of
    the square roots of their costs).
    """
    v = (shift / (BOUND + NORMAL.inv_cdf(POWER))) ** 2
    base, r = p * (1 - p) / v, math.sqrt(cost_ratio)
    return math.ceil((1 + 1 / r) * base / 1000) * 1000, math.ceil((1 + r) * base / 1000) * 1000


def compared(
    document: Any, runs: tuple[int, int], seed: int, fast_workers: int = 2
) -> tuple[Report, Report]:
    """The full engine's report (``runs[0]`` runs from ``seed``, on two workers) and the fast
    engine's (``runs[1]`` runs from ``seed + 1``), which must have played without falling back."""
    full = simulate(document, runs[0], seed=seed, workers=2, engine="full")
    fast = simulate(document, runs[1], seed=seed + 1, workers=fast_workers, engine="fast")
    assert fast["engine"] == "fast" and "fallback" not in fast, fast.get("fallback")
    return full, fast


def proportion_gap(full: dict[str, Any], fast: dict[str, Any]) -> tuple[float, float]:
    """The difference of two reported proportions and its standard error.

    The variance takes Laplace's ``(k + 1) / (n + 2)`` for each proportion, so that an outcome
    never seen in one engine's runs does not count as certain (as in F-11's smaller test).
    """

    def variance(part: dict[str, Any]) -> float:
        p = (part["p"] * part["of"] + 1) / (part["of"] + 2)
        return float(p * (1 - p) / part["of"])

    return fast["p"] - full["p"], math.sqrt(variance(full) + variance(fast))


def mean_gap(full: dict[str, Any], fast: dict[str, Any]) -> tuple[float, float]:
    """The difference of two reported means and its standard error (no spread reported: 0)."""
    se = math.sqrt((full["sd"] or 0) ** 2 / full["n"] + (fast["sd"] or 0) ** 2 / fast["n"])
    return fast["mean"] - full["mean"], se


def pooled_mean_gap(full: dict[str, Any], fast: dict[str, Any]) -> tuple[float, float]:
    """The difference of two means and its standard error under the hypothesis of one law.

    The variance is the two samples' pooled together (between-sample spread included): a loss
    that a few hundred runs may never see (the Herald's rare Falter converted to Wear) has no
    spread in those runs, and its own standard error alone would then be far too small.
    """
    n, m = full["n"], fast["n"]
    spread = (n - 1) * full["sd"] ** 2 + (m - 1) * fast["sd"] ** 2
    between = n * m / (n + m) * (fast["mean"] - full["mean"]) ** 2
    variance = (spread + between) / (n + m - 1)
    return fast["mean"] - full["mean"], math.sqrt(variance * (1 / n + 1 / m))


Gap = tuple[str, float, float]
MeanGap = Callable[[dict[str, Any], dict[str, Any]], tuple[float, float]]


def win_gaps(full: dict[str, Any], fast: dict[str, Any], shift: float = SHIFT) -> list[Gap]:
    """Each side's win-probability gap, after checking the power and that the test can fail.

    Asserts ``power(se, shift) >= POWER`` for each side, and that the fast figures moved by
    ``shift`` (the way harder to see, unless that would leave [0, 1]) land beyond the bound.
    """
    gaps = []
    for side, mine in full["outcome"]["wins"].items():
        theirs = fast["outcome"]["wins"][side]
        gap, se = proportion_gap(mine, theirs)
        caught = power(se, shift)
        assert caught >= POWER, f"{side}: too few runs to catch {shift}: se {se:.5f} ({caught:.3f})"
        toward = shift if gap <= 0 else -shift
        if not 0 <= theirs["p"] + toward <= 1:  # a side (nearly) always winning: the other way
            toward = -toward
        moved = {**theirs, "p": theirs["p"] + toward}
        assert abs(proportion_gap(mine, moved)[0]) > BOUND * se, (side, shift)
        gaps.append((f"{side} wins", gap, se))
    return gaps


def strife_gaps(full: Report, fast: Report, shift: float, mean: MeanGap = mean_gap) -> list[Gap]:
    """Every gap of two Realm of Strife reports (F-42): wins (:func:`win_gaps`), the round of the
    end, each model's falls and HP lost (the means' gaps by ``mean``)."""
    gaps = win_gaps(full, fast, shift)
    gaps.append(("end", *mean(full["clock"]["summary"], fast["clock"]["summary"])))
    for who, mine in full["combatants"].items():
        theirs = fast["combatants"][who]
        gaps.append((f"{who} falls", *proportion_gap(mine["fallen"], theirs["fallen"])))
        gaps.append((f"{who} HP", *mean(mine["losses"]["HP"], theirs["losses"]["HP"])))
    return gaps


def outside(gaps: list[Gap]) -> list[Gap]:
    """The gaps beyond ``BOUND`` standard errors (the engines disagree there)."""
    return [(what, gap, se) for what, gap, se in gaps if abs(gap) > BOUND * se + 1e-12]


def report_gaps(full: Report, fast: Report, shift: float = SHIFT) -> list[Gap]:
    """Every gap of two War reports (F-31): wins (:func:`win_gaps`), the end, falls and Wear.

    A Wear that neither engine's runs ever spread (both standard deviations 0) must have the
    same mean in both; it then adds no gap.
    """
    gaps = win_gaps(full, fast, shift)
    gaps += [("end", *pooled_mean_gap(full["clock"]["summary"], fast["clock"]["summary"]))]
    for who, mine in full["combatants"].items():
        theirs = fast["combatants"][who]
        gaps.append((f"{who} falls", *proportion_gap(mine["fallen"], theirs["fallen"])))
        for kind, losses in mine["losses"].items():
            if losses["sd"] == 0 and theirs["losses"][kind]["sd"] == 0:
                assert losses["mean"] == theirs["losses"][kind]["mean"], (who, kind)
                continue
            gaps.append((f"{who} Wear {kind}", *pooled_mean_gap(losses, theirs["losses"][kind])))
    return gaps


def assert_agree(full: Report, fast: Report, shift: float) -> None:
    """The full engine (no ``engine`` named) and the fast one agree on every gap of
    :func:`report_gaps` within ``shift``'s bound, and neither left a run unfinished."""
    assert "engine" not in full
    assert outside(report_gaps(full, fast, shift)) == []
    assert full["outcome"]["unfinished"]["count"] == fast["outcome"]["unfinished"]["count"] == 0
