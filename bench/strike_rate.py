"""Single Strikes resolved per second with the full breakdown, with and without `best`.

Baseline (same process): rolling plain 7d12 with the same SeededRng and nothing else.
Prints figures; it is not a timed test. Run: ``make bench`` or ``python bench/strike_rate.py``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from tableside.dice import SeededRng
from tableside.majesty.adjust import AdjustMode, best_faces
from tableside.majesty.catalog import builtin_catalog
from tableside.majesty.character import Attributes, Character, WarOverrides
from tableside.majesty.report import strike_dict
from tableside.majesty.strike import StrikeOptions, StrikeSetup, roll_strike


def setup_for(mode: AdjustMode, precision: int, guard: int) -> StrikeSetup:
    catalog = builtin_catalog()
    striker = Character(
        "Herald", Attributes(42, 31, 30, 60, 48, 72), overrides=WarOverrides(precision=precision)
    )
    defender = Character(
        "Warrior", Attributes(56, 22, 40, 70, 30, 40), overrides=WarOverrides(guard=guard)
    )
    return StrikeSetup(
        striker, defender, catalog.weapon("Sword"), catalog.weapon("Axe"),
        options=StrikeOptions(mode=mode),
    )  # fmt: skip


def rate(label: str, body: Callable[[int], object], seconds: float) -> float:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for i in range(200):
            body(count + i)
        count += 200
    per_second = count / (time.perf_counter() - start)
    print(f"{label:<58} {per_second:>12,.0f} /s")
    return per_second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args()
    rng = SeededRng(1)
    baseline = rate(
        "baseline: plain 7d12 rolls (SeededRng)",
        lambda _: [rng.roll(12) for _ in range(7)],
        args.seconds,
    )
    cases = [
        ("Strike+JSON breakdown, mode none", AdjustMode.NONE, 2, 2, False),
        ("Strike+JSON, best, 1 Adjustment (memo kept)", AdjustMode.BEST, 3, 2, False),
        ("Strike+JSON, best, 3 Adjustments (memo kept)", AdjustMode.BEST, 8, 2, False),
        ("Strike+JSON, best, 3 Adjustments (memo cleared)", AdjustMode.BEST, 8, 2, True),
        ("Strike+JSON, best, 5 Adjustments (memo cleared)", AdjustMode.BEST, 17, 2, True),
    ]  # fmt: skip
    for label, mode, precision, guard, cold in cases:
        setup = setup_for(mode, precision, guard)
        strike_rng = SeededRng(2)

        def one(
            _: int,
            setup: StrikeSetup = setup,
            cold: bool = cold,
            strike_rng: SeededRng = strike_rng,
        ) -> object:
            if cold:
                best_faces.cache_clear()
            return strike_dict(roll_strike(setup, strike_rng))

        per_second = rate(label, one, args.seconds)
        print(f"{'':<58} ratio to baseline: {per_second / baseline:.4f}")


if __name__ == "__main__":
    main()
