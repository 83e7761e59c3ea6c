"""Exact odds and Monte Carlo of Strikes: how fast (issue 5; figures for docs/odds.md).

Prints, for one exact Strike distribution (every quantity of ``odds.strike_odds``):
  * cold: the first call after ``odds.clear_caches()`` (tables built for this reading, pass and
    Boon/Bane), warm: the same Strike again, and warm with new Strike values (Force, Wear, …)
    that reuse the roll tables but not the per-Strike Wear/Status memos;
  * for no Adjustments and k = 3 and 10 (Striker), Boon 3 / Bane 3, and two passes (a token);
  * an ``icepool`` evaluator of the same law (net Hits − Stops with the 12/1 pairing, M-8) with
    no Adjustments, in the same process, and the ratio;
  * Monte Carlo Strikes per second with `best` Adjustments and the ratio to plain numpy sampling
    of 7d12 with no rules at all (``rng.integers(1, 13, size=(n, 7))``);
  * Realm of Strife: one exact attack law (``strife.odds.attack_odds``) cold (its cache of
    dice-sum counts emptied) and warm, against the brute-force baseline in the same process
    (every die sequence through ``roll_attack``, ``strife.odds_oracle``), asserted equal; and
    Monte Carlo attacks per second through the engine (``simulate_attacks``).

Every time is the minimum (and median) of several repeats: other work may share the machine.
Run: ``python bench/odds_rate.py`` (``--quick`` for fewer repeats, ``--strife`` for the Realm
of Strife lines only).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import icepool  # type: ignore[import-untyped]
import numpy as np

from tableside.dice import SeededRng
from tableside.majesty.adjust import AdjustMode
from tableside.majesty.catalog import builtin_catalog
from tableside.majesty.character import Attributes, Character, WarOverrides
from tableside.majesty.odds import clear_caches, simulate_strikes, strike_odds
from tableside.majesty.strike import StrikeOptions, StrikeSetup
from tableside.strife import reactions
from tableside.strife.attack import AttackSetup, roll_attack
from tableside.strife.catalog import builtin_catalog as strife_catalog
from tableside.strife.loadout import effective_ac
from tableside.strife.odds import attack_odds, simulate_attacks
from tableside.strife.odds_damage import dice_sum_counts
from tableside.strife.odds_oracle import brute_force_attack_odds

GUARD = 2
ADVANTAGE = {0: 0, 3: 6, 10: 40}  # M-10: 6 → 3 Adjustments, 40 → 4 + 30 // 5 = 10


def setup_for(k: int, **options: Any) -> StrikeSetup:
    catalog = builtin_catalog()
    striker = Character(
        "Herald",
        Attributes(42, 31, 30, 60, 48, 72),
        overrides=WarOverrides(precision=GUARD + ADVANTAGE[k]),
    )
    defender = Character(
        "Warrior", Attributes(56, 22, 40, 70, 30, 40), overrides=WarOverrides(guard=GUARD)
    )
    return StrikeSetup(
        striker, defender, catalog.weapon("Axe"), catalog.weapon("Sword"),
        options=StrikeOptions(**options),
    )  # fmt: skip


def timed(body: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(minimum, median) seconds over ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        body()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def ms(value: float) -> str:
    return f"{value * 1000:9.2f} ms"


def exact_rows(repeat: int) -> None:
    print("Exact Strike distribution (all quantities), times in ms: min / median")
    print(f"{'case':<40} {'cold':>12} {'warm, same Strike':>24} {'warm, new Strike values':>24}")
    cases = [
        ("no Adjustments (k=0)", 0, {}),
        ("Striker k=3", 3, {}),
        ("Striker k=10", 10, {}),
        ("Boon 3, Striker k=3", 3, {"boon": 3}),
        ("Bane 3, Striker k=3", 3, {"bane": 3}),
        ("Striker k=3 + Obstruction 1 (2 passes)", 3, {"obstruction": 1}),
        ("Boon 3, k=3 + Obstruction 1", 3, {"boon": 3, "obstruction": 1}),
    ]
    for label, k, options in cases:
        setup = setup_for(k, **options)
        colds = []
        for _ in range(max(1, repeat // 3)):
            clear_caches()
            start = time.perf_counter()
            strike_odds(setup)
            colds.append(time.perf_counter() - start)

        def again(setup: StrikeSetup = setup) -> object:
            return strike_odds(setup)

        same = timed(again, repeat)
        counter = iter(range(1, 10**9))

        def fresh(setup: StrikeSetup = setup, counter: Any = counter) -> object:
            options = replace(setup.options, wear_flat=next(counter))
            return strike_odds(replace(setup, options=options))

        new = timed(fresh, repeat)
        print(
            f"{label:<40} {ms(min(colds))} {ms(same[0])} /{ms(same[1])} {ms(new[0])} /{ms(new[1])}"
        )


class Net(icepool.MultisetEvaluator):  # type: ignore[misc]
    """net Hits − Stops of plain 7d12 with 12/1 pairing (M-8), and Boon/Bane discards (M-7)."""

    def __init__(self, boon_net: int) -> None:
        self.boon_net = boon_net

    def initial_state(self, order: Any, outcomes: Any, *sizes: Any, **kwargs: Any) -> Any:
        wanted = icepool.Order.Ascending if self.boon_net >= 0 else icepool.Order.Descending
        if order != wanted:
            raise icepool.UnsupportedOrder()
        return (0, 0, 0, 0, abs(self.boon_net))

    def next_state(self, state: Any, order: Any, face: int, count: int) -> Any:
        positives, twelves, ones, negatives, left = state
        if face != (1 if self.boon_net > 0 else 12) and left:
            dropped = min(left, count)
            count, left = count - dropped, left - dropped
        if face == 12:
            twelves += count
        elif face >= 9:
            positives += count
        elif face == 1:
            ones += count
        elif face <= 3:
            negatives += count
        return (positives, twelves, ones, negatives, left)

    def final_outcome(self, state: Any, order: Any, outcomes: Any, *sizes: Any) -> int:
        positives, twelves, ones, negatives, _ = state
        return int(positives + 2 * twelves - min(twelves, ones) - negatives - ones)

    @property
    def next_state_key(self) -> Any:
        return icepool.NoCache  # measure the evaluation, not icepool's cache


def icepool_rows(repeat: int) -> None:
    print("\nSame law with no Adjustments: icepool evaluator vs tableside (min / median, ms)")
    for boon_net in (0, 3):
        evaluator = Net(boon_net)
        pool = icepool.d12.pool(7 + boon_net)
        setup = setup_for(0, mode=AdjustMode.NONE, boon=boon_net)

        def with_icepool(evaluator: Net = evaluator, pool: Any = pool) -> Any:
            return evaluator.evaluate(pool)

        def with_tableside(setup: StrikeSetup = setup) -> object:
            return strike_odds(setup)

        ice = timed(with_icepool, repeat)
        die = with_icepool()
        total = die.denominator()
        exact = {v: p * total for v, p in strike_odds(setup).net.items()}
        assert {int(v): q for v, q in die.items()} == exact  # the very same law
        ours = timed(with_tableside, repeat)
        print(
            f"  Boon {boon_net}: icepool {ms(ice[0])} /{ms(ice[1])}   tableside (every quantity)"
            f" {ms(ours[0])} /{ms(ours[1])}   icepool / tableside = {ice[0] / ours[0]:6.1f}"
        )


def monte_carlo_rows(n: int, repeat: int) -> None:
    print(f"\nMonte Carlo of single Strikes, {n:,} rolls per run (one core)")
    rng = np.random.default_rng(1)

    def plain_dice() -> object:
        return rng.integers(1, 13, size=(n, 7))

    plain = timed(plain_dice, repeat)
    plain_rate = n / plain[0]
    print(f"  plain numpy 7d12, no rules:        {plain_rate / 1e6:8.1f} M rolls/s")
    for label, setup in (
        ("best, Striker k=3", setup_for(3)),
        ("best, Striker k=10", setup_for(10)),
        ("best, k=3 + Obstruction 1", setup_for(3, obstruction=1)),
        ("best, Boon 3, k=3", setup_for(3, boon=3)),
    ):
        simulate_strikes(setup, 1000, seed=0)  # tables built
        seeds = iter(range(10**6))

        def simulate(setup: StrikeSetup = setup, seeds: Any = seeds) -> object:
            return simulate_strikes(setup, n, seed=next(seeds))

        run = timed(simulate, repeat)
        rate = n / run[0]
        print(
            f"  {label:<33} {rate / 1e6:8.1f} M Strikes/s "
            f"(ratio to plain sampling {rate / plain_rate:.2f})"
        )


def strife_cases() -> list[tuple[str, AttackSetup]]:
    """Attacks from the built-in Realm of Strife catalogue."""
    catalog = strife_catalog()
    aldric, sera = catalog.combatant("Aldric"), catalog.combatant("Sera")
    goblin, troll = catalog.combatant("Goblin"), catalog.combatant("Cave Troll")
    armoured = effective_ac(catalog, aldric).value
    kite = reactions.block(aldric, catalog.shield("Kite Shield"))
    return [
        ("Aldric, Long Sword 1d8 → Goblin",
         AttackSetup(aldric, goblin, catalog.weapon("Long Sword"))),
        ("Goblin, Spear 1d8 → Aldric, Block",
         AttackSetup(goblin, aldric, catalog.weapon("Spear"), defender_ac=armoured,
                     reaction=kite)),
        ("Aldric, Mace 1d6+1, 10 % Stun → Troll",
         AttackSetup(aldric, troll, catalog.weapon("Mace"))),
        ("Sera, Dagger 1d4, Precision → Goblin",
         AttackSetup(sera, goblin, catalog.weapon("Dagger"), precision=True)),
        ("Sera, Dagger 1d4 → Goblin, Ward-off",
         AttackSetup(sera, goblin, catalog.weapon("Dagger"),
                     reaction=reactions.ward_off(goblin, catalog.weapon("Spear")))),
    ]  # fmt: skip


def strife_rows(repeat: int, samples: int) -> None:
    print("\nRealm of Strife: one exact attack law (every quantity), times in ms: min / median")
    print(f"{'case':<48} {'cold':>10} {'warm':>22} {'brute force':>14} {'ratio':>8}")
    for label, setup in strife_cases():
        colds = []
        for _ in range(max(1, repeat // 3)):
            dice_sum_counts.cache_clear()
            start = time.perf_counter()
            attack_odds(setup)
            colds.append(time.perf_counter() - start)

        def warm(setup: AttackSetup = setup) -> object:
            return attack_odds(setup)

        fast = timed(warm, repeat)
        start = time.perf_counter()
        assert brute_force_attack_odds(setup) == attack_odds(setup)  # the very same law
        brute = time.perf_counter() - start
        print(
            f"{label:<48} {ms(min(colds))} {ms(fast[0])} /{ms(fast[1])} "
            f"{brute:12.2f} s {brute / fast[0]:8.0f}"
        )
    setup = strife_cases()[1][1]
    rng = SeededRng(1)
    engine = timed(lambda: [roll_attack(setup, rng) for _ in range(samples)], max(1, repeat // 3))
    run = timed(lambda: simulate_attacks(setup, samples, seed=1), max(1, repeat // 3))
    print(
        f"  Monte Carlo (Goblin → Aldric, Block), {samples:,} attacks: "
        f"{samples / run[0]:,.0f} attacks/s; roll_attack alone {samples / engine[0]:,.0f}/s "
        f"(ratio {engine[0] / run[0]:.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--rolls", type=int, default=10_000_000, help="Monte Carlo rolls per run")
    parser.add_argument("--strife", action="store_true", help="Realm of Strife lines only")
    args = parser.parse_args()
    repeat = 3 if args.quick else 9
    strife_rows(repeat, 20_000)
    if args.strife:
        return
    exact_rows(repeat)
    icepool_rows(repeat)
    monte_carlo_rows(args.rolls, 3 if args.quick else 5)


if __name__ == "__main__":
    main()
