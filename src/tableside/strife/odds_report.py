"""Plain-data view of a physical attack's odds (``tableside odds attack --json``, docs/odds.md).

Every probability appears as a float and, exactly, as a fraction string "numerator/denominator".
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tableside.strife.attack import check_attack, hit_modifiers
from tableside.strife.odds_law import AttackOdds, Chances, Distribution
from tableside.strife.records import total

ATTACK_ODDS_SCHEMA = "tableside/strife-attack-odds"
SCHEMA_VERSION = 1


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


def attack_odds_dict(odds: AttackOdds) -> dict[str, Any]:
    """The law of a physical attack's results in the stable JSON schema."""
    setup = odds.setup
    reaction = setup.reaction
    return {
        "schema": ATTACK_ODDS_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "exact": odds.exact,
        "samples": odds.samples,
        "ruleset": setup.ruleset.name,
        "attacker": setup.attacker.name,
        "defender": setup.defender.name,
        "weapon": setup.weapon.name,
        "ranged": setup.ranged,
        "precision": setup.precision,
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
