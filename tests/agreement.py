"""Two engines' reports compared: the gaps and standard errors of the agreement tests (F-4, F-31,
F-42), in one place for tests/test_simulate_agreement*.py."""

from __future__ import annotations

import math
from typing import Any


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
