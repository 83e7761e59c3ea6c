"""Monte Carlo of Strikes and Checks: seeded, reproducible, within 5 standard errors of exact."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from builders import character, defender_adjusts, strike_setup, striker_adjusts

from tableside.errors import RulesError
from tableside.majesty.checks import CheckKind, CheckSetup
from tableside.majesty.odds import (
    Distribution,
    check_odds,
    simulate_checks,
    simulate_strikes,
    strike_odds,
)
from tableside.majesty.odds_law import sample_runs
from tableside.majesty.odds_tables import kept_law, kept_rolls
from tableside.majesty.strike import DefenderState

N = 300_000


def assert_close(estimate: Distribution, exact: Distribution, n: int) -> None:
    """Every P(=) within 5 standard errors; values expected fewer than 25 times are lumped
    together (a normal approximation needs some counts), and nothing the exact law rules out."""
    assert set(estimate.values) <= set(exact.values)
    rare_estimate, rare_exact = Fraction(0), Fraction(0)
    for value, p in exact.items():
        if n * p < 25:
            rare_estimate += estimate.p(value)
            rare_exact += p
            continue
        assert_chance(estimate.p(value), p, n)
    assert_chance(rare_estimate, rare_exact, n)


def assert_chance(estimate: Fraction, exact: Fraction, n: int) -> None:
    """Within 5 standard errors (at least one count: a chance of about 1/n may be seen once)."""
    se = (float(exact) * (1 - float(exact)) / n) ** 0.5
    assert abs(float(estimate) - float(exact)) <= max(5 * se, 1 / n), (estimate, exact)


SETUPS = {
    "k0": lambda: strike_setup(weapon="Axe", defender=character("Warrior", endurance=20)),
    "m13_striker_k3": lambda: strike_setup(weapon="Sword", **striker_adjusts(3)),
    "m19_surprised_defender_k2_boon2": lambda: strike_setup(
        boon=2, state=DefenderState(surprised=True), **defender_adjusts(2)
    ),
    "m7_bane3_exposed": lambda: strike_setup(bane=3, state=DefenderState(exposed=True)),
}


@pytest.mark.parametrize("name", list(SETUPS))
def test_monte_carlo_strikes_agree_with_the_exact_law(name: str) -> None:
    setup = SETUPS[name]()
    exact = strike_odds(setup)
    estimate = simulate_strikes(setup, N, seed=5)
    assert not estimate.exact and estimate.samples == N
    for field in ("net", "uncanceled_hits", "twelve_effects", "striker_falter", "wear_to_striker"):
        assert_close(getattr(estimate, field), getattr(exact, field), N)
    assert_close(estimate.wear[0][1], exact.wear[0][1], N)
    assert_chance(estimate.defeat, exact.defeat, N)
    for label, p in exact.epic.items():
        assert_chance(estimate.epic[label], p, N)


def test_monte_carlo_checks_agree_with_the_exact_law() -> None:
    setup = CheckSetup(CheckKind.ATTRIBUTE, factor=5, opposing=3, bane=1)
    exact = check_odds(setup)
    estimate = simulate_checks(setup, N, seed=8)
    assert_close(estimate.net, exact.net, N)
    for label, p in exact.outcome.items():
        assert_chance(estimate.outcome[label], p, N)


def test_monte_carlo_is_seeded_and_reproducible() -> None:
    setup = strike_setup(**striker_adjusts(2))
    first = simulate_strikes(setup, 50_000, seed=1)
    assert simulate_strikes(setup, 50_000, seed=1) == first
    assert simulate_strikes(setup, 50_000, seed=2).net != first.net


@pytest.mark.slow  # make check leaves it out (issue 23: among its slowest)
@pytest.mark.parametrize("boon_net", [0, 1, -2, 4])
def test_m7_sampled_natural_rolls_follow_the_kept_law(boon_net: int) -> None:
    # The sampler maps each roll of 7+n dice to its kept multiset (M-7): the frequency of
    # every kept multiset's class of "any 12 kept" matches the exact weights.
    law = kept_law(boon_net)
    runs = sample_runs(boon_net, np.random.default_rng(3), N)
    kept = kept_rolls()
    has_twelve = kept.counts[:, 11] > 0
    sampled = np.mean(np.where(runs >= 0, has_twelve[law.run_kept[np.maximum(runs, 0)]], False))
    exact = Fraction(int(law.weights[has_twelve].sum()), law.total)
    assert_chance(Fraction(float(sampled)), exact, N)


def test_monte_carlo_needs_a_positive_number_of_rolls() -> None:
    with pytest.raises(RulesError, match="at least one roll"):
        simulate_strikes(strike_setup(), 0, seed=1)
