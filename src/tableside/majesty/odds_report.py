"""Plain-data views of odds (the ``--json`` schema of ``tableside odds``, docs/odds.md).

Every probability appears as a float and, exactly, as a fraction string "numerator/denominator".
"""

from __future__ import annotations

from typing import Any

from tableside.dice.laws import chances_dict, distribution_dict, probability
from tableside.majesty.adjust import AdjustPass
from tableside.majesty.odds import CheckOdds, StrikeOdds
from tableside.majesty.report import reading_name, strike_setup_dict

STRIKE_ODDS_SCHEMA = "tableside/majesty-strike-odds"
CHECK_ODDS_SCHEMA = "tableside/majesty-check-odds"
SCHEMA_VERSION = 1


def passes_list(passes: tuple[AdjustPass, ...]) -> list[dict[str, Any]]:
    """Who adjusts, how many times and why, in the order the passes are made."""
    return [{"side": p.side.value, "count": p.count, "why": p.why} for p in passes]


def _sampling(samples: int | None) -> dict[str, Any]:
    return {"exact": samples is None, "samples": samples}


def strike_odds_dict(odds: StrikeOdds) -> dict[str, Any]:
    """The law of a Strike's results in the stable JSON schema."""
    setup = odds.setup
    laws = {
        "net": odds.net,
        "uncanceled_hits": odds.uncanceled_hits,
        "uncanceled_stops": odds.uncanceled_stops,
        **{f"wear_{kind.value}": law for kind, law in odds.wear},
        "twelve_effects": odds.twelve_effects,
        "striker_falter": odds.striker_falter,
        "defensive_hits": odds.defensive_hits,
        "wear_to_striker": odds.wear_to_striker,
    }
    return {
        "schema": STRIKE_ODDS_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        **_sampling(odds.samples),
        **strike_setup_dict(setup),
        "reading": reading_name(odds.reading),
        "boon_net": setup.options.boon - setup.options.bane,
        "passes": passes_list(odds.passes),
        "endurance": odds.endurance,
        "defeat": probability(odds.defeat),
        "wear_kinds": [kind.value for kind, _ in odds.wear],
        "wear_to_striker_kind": odds.wear_to_striker_kind.value,
        "distributions": {name: distribution_dict(law) for name, law in laws.items()},
        "chances": {
            "epic": chances_dict(odds.epic),
            "defender_status": chances_dict(odds.defender_status),
            "striker_status": chances_dict(odds.striker_status),
        },
    }


def check_odds_dict(odds: CheckOdds) -> dict[str, Any]:
    """The law of a Check's results in the stable JSON schema."""
    setup = odds.setup
    return {
        "schema": CHECK_ODDS_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        **_sampling(odds.samples),
        "kind": setup.kind.value,
        "factor": setup.factor,
        "opposing": setup.opposing,
        "difficulty": setup.difficulty,
        "boon_net": setup.boon - setup.bane,
        "passes": passes_list(odds.passes),
        "outcome": chances_dict(odds.outcome),
        "automatic": chances_dict(odds.automatic),
        "epic": chances_dict(odds.epic),
        "distributions": {
            "net": distribution_dict(odds.net),
            "passes_short": distribution_dict(odds.passes_short),
            "degree": distribution_dict(odds.degree),
        },
    }
