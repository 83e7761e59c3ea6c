"""Wear arithmetic (M-26), shared by Strikes and Defensive Hits (M-23)."""

from __future__ import annotations

from dataclasses import dataclass

from tableside.majesty.character import WearKind


@dataclass(frozen=True, slots=True)
class Part:
    """One labelled contribution: a flat Wear, a percentage, a modifier."""

    label: str
    amount: int


@dataclass(frozen=True, slots=True)
class WearLine:
    """The Wear of one kind that a Strike deals, with every step of the arithmetic (M-26)."""

    kind: WearKind
    hits: int
    force: int
    base: int
    flats: tuple[Part, ...]
    percents: tuple[Part, ...]
    delta: int
    minimum: int
    amount: int

    @property
    def flat(self) -> int:
        """Sum of all flat "# Wear"."""
        return sum(p.amount for p in self.flats)

    @property
    def percent(self) -> int:
        """Sum of all percentages, as one p."""
        return sum(p.amount for p in self.percents)

    @property
    def before_percent(self) -> int:
        """W after flats, before the percentage."""
        return self.base + self.flat


def percent_delta(wear: int, percent: int) -> int:
    """Signed change from a percentage: floor(W·|p|/100), at least 1 (M-26)."""
    if wear <= 0 or percent == 0:
        return 0
    size = max(1, wear * abs(percent) // 100)
    return size if percent > 0 else -size


def deal_wear(
    kind: WearKind,
    hits: int,
    force: int,
    flats: tuple[Part, ...] = (),
    percents: tuple[Part, ...] = (),
    base: int | None = None,
) -> WearLine:
    """Wear of one kind from ``hits`` uncanceled Hits at ``force`` (M-26).

    ``base`` defaults to Hits × Force; a separate kind (the Bow's Passion WearR) passes 0.
    No uncanceled Hit deals no Wear at all. Otherwise the result is at least
    max(1, floor(Hits × Force / 10)).
    """
    start = hits * force if base is None else base
    if hits < 1:
        return WearLine(kind, hits, force, start, flats, percents, 0, 0, 0)
    wear = start + sum(p.amount for p in flats)
    delta = percent_delta(wear, sum(p.amount for p in percents))
    minimum = max(1, hits * force // 10)
    amount = max(wear + delta, minimum)
    return WearLine(kind, hits, force, start, flats, percents, delta, minimum, amount)
