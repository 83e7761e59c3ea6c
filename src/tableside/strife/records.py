"""Small immutable records shared by the Realm of Strife rules: labelled modifier parts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Part:
    """One labelled number that enters a total (a modifier, a damage part, an advantage)."""

    label: str
    amount: int


def total(parts: Iterable[Part]) -> int:
    """Sum of the parts' amounts."""
    return sum(p.amount for p in parts)


def nonzero(parts: Iterable[Part]) -> tuple[Part, ...]:
    """The parts whose amount is not zero (zero parts only clutter a result)."""
    return tuple(p for p in parts if p.amount)
