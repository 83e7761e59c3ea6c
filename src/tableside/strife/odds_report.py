"""Plain-data view of a physical attack's odds (``tableside odds attack --json``, docs/odds.md).

Every probability appears as a float and, exactly, as a fraction string "numerator/denominator".
"""

from __future__ import annotations

from typing import Any

from tableside.dice.laws import chances_dict, distribution_dict, probability
from tableside.strife.attack import check_attack, hit_modifiers
from tableside.strife.odds_law import AttackOdds
from tableside.strife.records import total
from tableside.strife.report import attack_setup_dict

ATTACK_ODDS_SCHEMA = "tableside/strife-attack-odds"
SCHEMA_VERSION = 1


def attack_odds_dict(odds: AttackOdds) -> dict[str, Any]:
    """The law of a physical attack's results in the stable JSON schema."""
    setup = odds.setup
    reaction = setup.reaction
    return {
        "schema": ATTACK_ODDS_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "exact": odds.exact,
        "samples": odds.samples,
        **attack_setup_dict(setup),
        "reaction": None if reaction is None else reaction.kind.value,
        "hit_modifier": total(hit_modifiers(setup, check_attack(setup))),
        "ac": setup.ac,
        "dodge": setup.defender.dodge,
        "crit_chance": setup.attacker.crit_chance,
        "hp": odds.hp,
        "defeat": probability(odds.defeat),
        "hits": probability(odds.hits),
        "stopped": probability(odds.stopped),
        "chances": {
            "outcome": chances_dict(odds.outcome),
            "reaction": chances_dict(odds.reaction),
            "damage_basis": chances_dict(odds.damage_basis),
            "conditions": chances_dict(odds.conditions),
            "damaged_items": chances_dict(odds.damaged_items),
        },
        "distributions": {"damage": distribution_dict(odds.damage)},
    }
