"""The statistics of a simulation: Wilson intervals for proportions, normal intervals for means."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal distribution


@dataclass(frozen=True, slots=True)
class Proportion:
    """``k`` of ``n`` with its 95% Wilson score interval."""

    k: int
    n: int
    low: float
    high: float

    @property
    def p(self) -> float:
        """The observed proportion (0 when there were no trials)."""
        return self.k / self.n if self.n else 0.0

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"count": self.k, "of": self.n, "p": self.p, "ci95": [self.low, self.high]}


def wilson(k: int, n: int, z: float = Z95) -> Proportion:
    """The Wilson score interval of ``k`` successes in ``n`` trials (``[0, 1]`` when n is 0).

    centre = (p + z²/2n) / (1 + z²/n); half-width = z / (1 + z²/n) · √(p(1−p)/n + z²/4n²).
    """
    if not 0 <= k <= n:
        raise ValueError(f"A proportion needs 0 <= k <= n, got k={k} and n={n}.")
    if n == 0:
        return Proportion(0, 0, 0.0, 1.0)
    p = k / n
    shrink = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / shrink
    half = z / shrink * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = 0.0 if k == 0 else max(0.0, centre - half)  # exactly 0 and 1 at the ends, as in
    high = 1.0 if k == n else min(1.0, centre + half)  # exact arithmetic (no rounding dust)
    return Proportion(k, n, low, high)


@dataclass(frozen=True, slots=True)
class Mean:
    """Mean, sample standard deviation and a 95% normal-approximation interval of the mean."""

    n: int
    mean: float
    sd: float
    low: float
    high: float

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"n": self.n, "mean": self.mean, "sd": self.sd, "ci95": [self.low, self.high]}


def mean_interval(values: Sequence[float], z: float = Z95) -> Mean | None:
    """Mean ± z·sd/√n with the sample sd (n−1); None for no values, sd 0 for one value.

    The plain definition, kept as the oracle of :class:`Moments` (which the report uses).
    """
    n = len(values)
    if n == 0:
        return None
    mean = math.fsum(values) / n
    if n < 2:
        return Mean(n, mean, 0.0, mean, mean)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = z * sd / math.sqrt(n)
    return Mean(n, mean, sd, mean - half, mean + half)


@dataclass(slots=True)
class Moments:
    """Count, sum and sum of squares of whole numbers: exact, so merging in any order agrees."""

    n: int = 0
    total: int = 0
    squares: int = 0

    def add(self, value: int) -> None:
        """Count one value."""
        self.n += 1
        self.total += value
        self.squares += value * value

    def merge(self, other: Moments) -> None:
        """Count another tally's values too."""
        self.n += other.n
        self.total += other.total
        self.squares += other.squares

    def summary(self, z: float = Z95) -> Mean | None:
        """What :func:`mean_interval` gives for the same values (variance in exact arithmetic)."""
        if self.n == 0:
            return None
        mean = self.total / self.n
        if self.n < 2:
            return Mean(self.n, mean, 0.0, mean, mean)
        variance = Fraction(self.n * self.squares - self.total**2, self.n * (self.n - 1))
        sd = math.sqrt(variance)
        half = z * sd / math.sqrt(self.n)
        return Mean(self.n, mean, sd, mean - half, mean + half)
