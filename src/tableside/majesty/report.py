"""Plain-data views of results (the stable ``--json`` schema, documented in docs/json.md).

Renderers for text live in the command line; these functions only turn immutable results into
dictionaries of JSON types.
"""

from __future__ import annotations

from typing import Any

from tableside.dice import Adjustment
from tableside.majesty.character import Attribute, Character, WearKind
from tableside.majesty.checks import CheckResult
from tableside.majesty.rolls import EXPOSED, SURPRISED, NaturalRoll, Reading, Tally
from tableside.majesty.strike import Rated, StrikeResult, StrikeSetup
from tableside.majesty.wear import Part, WearLine

STRIKE_SCHEMA = "tableside/majesty-strike"
CHECK_SCHEMA = "tableside/majesty-check"
SCHEMA_VERSION = 1


def parts(items: tuple[Part, ...]) -> list[dict[str, Any]]:
    """Labelled parts as ``{label, amount}``."""
    return [{"label": p.label, "amount": p.amount} for p in items]


def rated(value: Rated) -> dict[str, Any]:
    """An effective value with its parts."""
    return {"value": value.value, "parts": parts(value.parts)}


def adjustment(item: Adjustment) -> dict[str, Any]:
    """One Adjustment as ``{die, from, to, by, why}`` (die is a 0-based index into natural)."""
    return {
        "die": item.die,
        "from": item.from_,
        "to": item.to,
        "by": item.by.value,
        "why": item.why,
    }


def reading_name(reading: Reading) -> str:
    """plain, surprised or exposed (M-19)."""
    return "exposed" if reading == EXPOSED else "surprised" if reading == SURPRISED else "plain"


def roll_block(roll: NaturalRoll) -> dict[str, Any]:
    """The dice as rolled, discarded and kept (M-7)."""
    return {
        "rolled": list(roll.rolled),
        "discarded": list(roll.discarded_faces),
        "discarded_indices": list(roll.discarded),
        "boon_net": roll.boon_net,
        "natural": list(roll.natural),
    }


def wear_line(line: WearLine) -> dict[str, Any]:
    """``{kind, base, flat, percent, delta, minimum, amount}`` with the labelled parts."""
    return {
        "kind": line.kind.value,
        "hits": line.hits,
        "force": line.force,
        "base": line.base,
        "flat": line.flat,
        "flats": parts(line.flats),
        "percent": line.percent,
        "percents": parts(line.percents),
        "delta": line.delta,
        "minimum": line.minimum,
        "amount": line.amount,
    }


def vitals(character: Character) -> dict[str, Any]:
    """Status and current Endurance, Resolve, Passion."""
    return {
        "name": character.name,
        "status": character.status.value,
        **{k.attribute.value: character.current(k.attribute) for k in WearKind},
        "wear": {k.value: character.wear.of(k) for k in WearKind},
    }


def strike_dict(result: StrikeResult) -> dict[str, Any]:
    """The whole Strike in the stable JSON schema."""
    setup, outcome, effects = result.setup, result.outcome, result.effects
    main = result.adjusting.main
    final_tally = Tally.of(result.final, result.reading)
    return {
        "schema": STRIKE_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        **strike_setup_dict(setup),
        "cost": {
            "ap": result.cost.ap,
            "movement": result.cost.movement,
            "exertion": result.cost.exertion,
        },
        "reach": None
        if result.reach is None
        else {
            "closest": round(result.reach.closest, 3),
            "farthest": round(result.reach.farthest, 3),
        },
        "precision": rated(result.precision),
        "guard": rated(result.guard),
        "force": rated(result.force),
        "advantage": result.adjusting.advantage,
        **roll_block(result.roll),
        "reading": reading_name(result.reading),
        "adjuster": None if main is None else main.side.value,
        "adjustments_available": 0 if main is None else main.count,
        "raw_adjustments": {
            "striker": parts(result.adjusting.striker_raw),
            "defender": parts(result.adjusting.defender_raw),
        },
        "tokens": {"striker": setup.options.inspiration, "defender": setup.options.obstruction},
        "adjustments": [adjustment(a) for a in result.adjustments],
        "final": list(result.final),
        "epic": result.epic_kind,
        "natural_unpaired_twelves": result.epic.unpaired_twelves,
        "natural_unpaired_ones": result.epic.unpaired_ones,
        "pairs": final_tally.pairs,
        "hits": outcome.hits,
        "stops": outcome.stops,
        "ignored_stops": outcome.ignored_stops,
        "hits_regardless_of_stops": outcome.hits,
        "net": outcome.net,
        "uncanceled_hits": outcome.uncanceled_hits,
        "uncanceled_stops": outcome.uncanceled_stops,
        "twelve_effects": outcome.twelve_effects,
        "twelve_effects_fired": effects.twelve_fired,
        "striker_falter": result.striker_falter,
        "defender_falter": result.defender_falter,
        "defender_falter_parts": parts(effects.defender_falter),
        "defensive_hits": result.defensive_hits,
        "passion_triggers": effects.passion_triggers,
        "passion_applied": effects.passion_applied,
        "ap_gained": effects.ap_gained,
        "defender_exertion": effects.defender_exertion,
        "knock_back": effects.knock_back,
        "wear": wear_line(result.wear[0]),
        "additional_wear": [wear_line(line) for line in result.wear[1:]],
        "wear_to_striker": None
        if result.wear_to_striker is None
        else wear_line(result.wear_to_striker),
        "defender_status_change": result.defender_status_change,
        "striker_status_change": result.striker_status_change,
        "defender_after": vitals(result.defender_after),
        "striker_after": vitals(result.striker_after),
        "rulings": list(result.rulings),
    }


def check_dict(result: CheckResult) -> dict[str, Any]:
    """A Check in the stable JSON schema."""
    setup = result.setup
    main = [p for p in result.passes if "token" not in p.why]
    return {
        "schema": CHECK_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "kind": setup.kind.value,
        "factor": setup.factor,
        "opposing": setup.opposing,
        "difficulty": setup.difficulty,
        "advantage": result.advantage,
        "translated": result.translated,
        "adjustments_for": parts(result.parts_for),
        "adjustments_against": parts(result.parts_against),
        **roll_block(result.roll),
        "adjuster": None if result.adjuster is None else result.adjuster.value,
        "adjustments_available": main[0].count if main else 0,
        "tokens": {"roller": setup.inspiration, "opponent": setup.obstruction},
        "adjustments": [adjustment(a) for a in result.adjustments],
        "final": list(result.final),
        "epic": "positive"
        if result.epic.positive
        else "negative"
        if result.epic.negative
        else None,
        "natural_unpaired_twelves": result.epic.unpaired_twelves,
        "natural_unpaired_ones": result.epic.unpaired_ones,
        "positives": result.tally.total_positive,
        "negatives": result.tally.total_negative,
        "pairs": result.tally.pairs,
        "net": result.net,
        "outcome": result.outcome.value,
        "automatic": None if result.automatic is None else result.automatic.value,
        "passes_short": result.passes_short,
        "degree": result.degree,
        "rulings": list(result.rulings),
    }


def attribute_names() -> list[str]:
    """The Basic Attribute names, for help texts."""
    return [a.value for a in Attribute]


def strike_setup_dict(setup: StrikeSetup) -> dict[str, Any]:
    """Who Strikes whom with what, as a Strike's JSON and its odds' JSON both say it."""
    return {
        "ruleset": setup.ruleset.name,
        "striker": setup.striker.name,
        "defender": setup.defender.name,
        "weapon": setup.weapon.name,
        "maneuvers": [m.name for m in setup.maneuvers],
        "ranged": setup.options.ranged,
    }
