"""Agreement with the ``icepool`` dice library (a test-only dependency) where it can express it.

With no Adjustments a roll is a plain multiset of d12s: icepool multiset evaluators fold over
(face, count) pairs. ``Net`` reads the 12/1 pairing (M-8) under a reading (M-19); ``Kept``
applies the Boon/Bane discards of M-7 while folding (faces arrive in ascending order), so the
whole roll of 7+n dice is one evaluation.
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from typing import Any

import icepool  # type: ignore[import-untyped]
import pytest
from builders import strike_setup

from tableside.majesty.adjust import AdjustMode
from tableside.majesty.checks import CheckKind, CheckSetup
from tableside.majesty.odds import check_odds, strike_odds
from tableside.majesty.rolls import EXPOSED, PLAIN, SURPRISED, Category, Reading
from tableside.majesty.strike import DefenderState

State = tuple[int, int, int, int, int]  # positives, twelves, ones, negatives, discards left


class Net(icepool.MultisetEvaluator):  # type: ignore[misc]
    """net = positives + 2·twelves − pairs − negatives − ones, after Boon/Bane discards."""

    def __init__(self, reading: Reading, boon_net: int, ignore_stops: int = 0) -> None:
        self.reading = reading
        self.boon_net = boon_net
        self.ignore_stops = ignore_stops

    def initial_state(self, order: Any, outcomes: Any, *sizes: Any, **kwargs: Any) -> State:
        # Boon discards the lowest non-1 faces (seen first in ascending order), Bane the highest
        # non-12 faces (seen first in descending order).
        wanted = icepool.Order.Ascending if self.boon_net >= 0 else icepool.Order.Descending
        if order != wanted:
            raise icepool.UnsupportedOrder()
        return (0, 0, 0, 0, abs(self.boon_net))

    def next_state(self, state: State, order: Any, face: int, count: int) -> Hashable:
        positives, twelves, ones, negatives, left = state
        protected = 1 if self.boon_net > 0 else 12
        if face != protected and left:
            dropped = min(left, count)
            count, left = count - dropped, left - dropped
        category = self.reading.category(face)
        if category == Category.POSITIVE:
            positives += count
        elif category == Category.TWELVE:
            twelves += count
        elif category == Category.ONE:
            ones += count
        elif category == Category.NEGATIVE:
            negatives += count
        return (positives, twelves, ones, negatives, left)

    def final_outcome(self, state: State, order: Any, outcomes: Any, *sizes: Any) -> int:
        positives, twelves, ones, negatives, _ = state
        pairs = min(twelves, ones)
        stops = negatives + ones
        return positives + 2 * twelves - pairs - (stops - min(self.ignore_stops, stops))


def icepool_net(reading: Reading, boon_net: int, ignore_stops: int = 0) -> dict[int, Fraction]:
    die = Net(reading, boon_net, ignore_stops).evaluate(icepool.d12.pool(7 + abs(boon_net)))
    total = die.denominator()
    return {int(value): Fraction(int(quantity), total) for value, quantity in die.items()}


CASES = [
    ("plain", PLAIN, DefenderState(), 0, 0),
    ("m19-surprised", SURPRISED, DefenderState(surprised=True), 0, 0),
    ("m19-exposed", EXPOSED, DefenderState(exposed=True), 0, 0),
    ("m20-ignore-2", PLAIN, DefenderState(), 0, 2),
    ("m7-boon-1", PLAIN, DefenderState(), 1, 0),
    ("m7-boon-3", PLAIN, DefenderState(), 3, 0),
    ("m7-bane-2-surprised", SURPRISED, DefenderState(surprised=True), -2, 0),
]


@pytest.mark.parametrize(
    ("reading", "state", "boon_net", "ignore"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_m8_net_without_adjustments_agrees_with_icepool(
    reading: Reading, state: DefenderState, boon_net: int, ignore: int
) -> None:
    setup = strike_setup(
        mode=AdjustMode.NONE, state=state, ignore_stops=ignore,
        boon=max(boon_net, 0), bane=max(-boon_net, 0),
    )  # fmt: skip
    odds = strike_odds(setup)
    assert dict(odds.net.items()) == icepool_net(reading, boon_net, ignore)


def test_m31_check_net_passes_agree_with_icepool() -> None:
    odds = check_odds(CheckSetup(CheckKind.ATTRIBUTE, factor=3, opposing=3, boon=2))
    assert not odds.passes
    assert dict(odds.net.items()) == icepool_net(PLAIN, 2)


def test_m6_count_of_hits_nine_to_twelve_agrees_with_icepool() -> None:
    # Uncanceled Hits with no Stops to cancel (Exposed reads 1–3 as Misses, M-19) and no 12s
    # counted twice: compare the count of 9–12 via icepool's counting, +1 per 11/12 (M-8).
    odds = strike_odds(strike_setup(mode=AdjustMode.NONE, state=DefenderState(exposed=True)))
    pool = icepool.d12.map(lambda f: 2 if f >= 11 else 1 if f >= 9 else 0).pool(7)
    die = pool.sum()
    total = die.denominator()
    expected = {int(v): Fraction(int(q), total) for v, q in die.items()}
    assert dict(odds.uncanceled_hits.items()) == expected
