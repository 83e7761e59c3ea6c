"""Exact laws of dice results, shared by both games' odds: distributions, named chances, JSON.

A :class:`Distribution` is the law of an integer quantity and :class:`Chances` the probabilities
of named outcomes, both as ``fractions.Fraction`` (exact) or sample frequencies (Monte Carlo).
Their plain-data views (:func:`distribution_dict`, :func:`chances_dict`) are the common part of
every ``tableside odds … --json`` schema: each probability as a float and an exact fraction.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Distribution:
    """The law of an integer quantity: exact fractions, or sample frequencies (Monte Carlo)."""

    values: tuple[int, ...]
    probabilities: tuple[Fraction, ...]

    @classmethod
    def of_weights(cls, weights: Mapping[int, Fraction]) -> Distribution:
        """The values of nonzero weight, in increasing order."""
        kept = sorted(v for v, p in weights.items() if p)
        return cls(tuple(kept), tuple(weights[v] for v in kept))

    @classmethod
    def of_arrays(cls, values: I64, weights: I64, total: int) -> Distribution:
        """Group integer ``weights`` (out of ``total``) by integer ``values``."""
        low = int(values.min())
        sums = np.bincount(values - low, weights=weights)
        kept = np.flatnonzero(sums)
        return cls(
            tuple(int(v) + low for v in kept),
            tuple(Fraction(round(float(sums[v])), total) for v in kept),
        )

    def p(self, value: int) -> Fraction:
        """P(X = value)."""
        return sum((q for v, q in self.items() if v == value), Fraction(0))

    def at_least(self, value: int) -> Fraction:
        """P(X ≥ value)."""
        return sum((q for v, q in self.items() if v >= value), Fraction(0))

    def at_most(self, value: int) -> Fraction:
        """P(X ≤ value)."""
        return sum((q for v, q in self.items() if v <= value), Fraction(0))

    def items(self) -> Iterable[tuple[int, Fraction]]:
        """(value, probability) pairs in increasing value."""
        return zip(self.values, self.probabilities, strict=True)

    @property
    def mean(self) -> Fraction:
        """Expected value."""
        return sum((v * q for v, q in self.items()), Fraction(0))

    @property
    def variance(self) -> Fraction:
        """Variance."""
        mean = self.mean
        return sum(((v - mean) ** 2 * q for v, q in self.items()), Fraction(0))

    @property
    def sd(self) -> float:
        """Standard deviation."""
        return math.sqrt(self.variance)

    @property
    def total(self) -> Fraction:
        """Sum of the probabilities (exactly 1)."""
        return sum(self.probabilities, Fraction(0))


@dataclass(frozen=True, slots=True)
class Chances:
    """Probabilities of named outcomes, in a fixed order."""

    labels: tuple[str, ...]
    probabilities: tuple[Fraction, ...]

    @classmethod
    def of_weights(
        cls, weights: Mapping[str, Fraction], labels: Iterable[str] | None = None
    ) -> Chances:
        """``labels`` in that order (zeros kept), or else every nonzero label sorted."""
        order = (
            tuple(labels)
            if labels is not None
            else tuple(sorted(k for k, p in weights.items() if p))
        )
        return cls(order, tuple(weights.get(label, Fraction(0)) for label in order))

    @classmethod
    def of_arrays(cls, labels: tuple[str, ...], which: I64, weights: I64, total: int) -> Chances:
        """``which[c]``: the label index of class c, of integer weight ``weights[c]``."""
        sums = np.bincount(which, weights=weights, minlength=len(labels))
        return cls(labels, tuple(Fraction(round(float(x)), total) for x in sums))

    def __getitem__(self, label: str) -> Fraction:
        """Probability of ``label`` (0 when absent)."""
        return dict(self.items()).get(label, Fraction(0))

    def items(self) -> Iterable[tuple[str, Fraction]]:
        """(label, probability) pairs."""
        return zip(self.labels, self.probabilities, strict=True)


def probability(value: Fraction) -> dict[str, Any]:
    """``{p, fraction}``: a float and the exact fraction."""
    return {"p": float(value), "fraction": f"{value.numerator}/{value.denominator}"}


def distribution_dict(law: Distribution) -> dict[str, Any]:
    """Mean, standard deviation and, per value, P(=), P(≥) and P(≤)."""
    rows = []
    below = Fraction(0)
    for value, p in law.items():
        rows.append({
            "value": value,
            "eq": probability(p),
            "ge": probability(1 - below),
            "le": probability(below + p),
        })  # fmt: skip
        below += p
    mean = law.mean
    return {
        "mean": float(mean),
        "mean_fraction": f"{mean.numerator}/{mean.denominator}",
        "sd": law.sd,
        "values": rows,
    }


def chances_dict(chances: Chances) -> dict[str, Any]:
    """Label → ``{p, fraction}``."""
    return {label: probability(p) for label, p in chances.items()}
