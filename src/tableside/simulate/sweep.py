"""Sweeps (issue 15): the win chance of a War at each value of one combatant's number.

``tableside simulate FILE --sweep "Brute.guard=2..8"`` sets Brute's Guard (a War Attribute
override, M-2) to 2, 3, … 8 in turn and simulates each (the fast engine by default), printing the
chance that Brute's side wins at each value and the value closest to an even fight (F-5). The
number may be a Basic Attribute (``might`` … ``passion``), a War Attribute override (``force``,
``guard``, ``precision``, ``stamina``, ``spp``, ``speed``) or ``tier``; values are whole numbers
``LOW..HIGH`` (at most 101 of them). The values run on the local cores (one process per value);
distributed engines (Dask, Ray) are not supported.
"""

from __future__ import annotations

import copy
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

from tableside.simulate.driver import simulate
from tableside.simulate.runs import SimulationError

ATTRIBUTES = ("might", "swiftness", "control", "endurance", "resolve", "passion")
OVERRIDES = ("force", "guard", "precision", "stamina", "spp", "speed")
FIELDS = (*ATTRIBUTES, *OVERRIDES, "tier")
MAX_VALUES = 101
_SPEC = re.compile(r"^\s*([^.=]+)\.([A-Za-z]+)\s*=\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$")


@dataclass(frozen=True)
class Sweep:
    """One combatant's number over a range of whole values."""

    combatant: str
    field: str
    values: tuple[int, ...]


def parse_sweep(text: str) -> Sweep:
    """``ID.FIELD=LOW..HIGH`` as a :class:`Sweep` (one sentence on bad input)."""
    found = _SPEC.match(text)
    if found is None:
        raise SimulationError(
            f"A sweep is written ID.FIELD=LOW..HIGH (for example Brute.guard=2..8), got {text!r}."
        )
    who, field, low, high = found.group(1).strip(), found.group(2).lower(), *found.group(3, 4)
    if field not in FIELDS:
        raise SimulationError(f"A sweep can set one of {', '.join(FIELDS)}, not {field!r}.")
    first, last = int(low), int(high)
    if first > last or last - first + 1 > MAX_VALUES:
        raise SimulationError(
            f"A sweep's range must run upward over at most {MAX_VALUES} values, "
            f"got {first}..{last}."
        )
    return Sweep(who, field, tuple(range(first, last + 1)))


def with_value(document: Any, sweep: Sweep, value: int) -> Any:
    """The exported War with the combatant's number set in its ``add`` command and event."""
    changed = copy.deepcopy(document)
    touched = 0
    for record in changed.get("records", []):
        command = record.get("command") or {}
        events = record.get("events") or []
        for data in [command.get("args") or {}, *(e.get("data") or {} for e in events)]:
            character = data.get("character") if isinstance(data, dict) else None
            if isinstance(character, dict) and data.get("id") == sweep.combatant:
                _set(character, sweep.field, value)
                touched += 1
    if not touched:
        raise SimulationError(f"The encounter has no combatant {sweep.combatant!r} to sweep.")
    return changed


def _set(character: dict[str, Any], field: str, value: int) -> None:
    if field in ATTRIBUTES:
        character.setdefault("attributes", {})[field] = value
    elif field in OVERRIDES:
        character.setdefault("overrides", {})[field] = value
    else:
        character[field] = value


def _point(document: Any, runs: int, seed: int | None, engine: str, rest: bool | None) -> Any:
    return simulate(document, runs, seed=seed, workers=1, engine=engine, rest=rest)


def run_sweep(
    document: Any, sweep: Sweep, runs: int, *, seed: int | None = None, workers: int = 1,
    engine: str = "fast", rest: bool | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Simulate every value; the side's win chance at each and the value closest to even."""
    if document.get("game") != "majesty-war":
        raise SimulationError("Sweeps apply to a War (majesty-war encounter) for now.")
    documents = [with_value(document, sweep, v) for v in sweep.values]
    point = partial(_point, runs=runs, seed=seed, engine=engine, rest=rest)
    if workers > 1 and len(documents) > 1:
        with ProcessPoolExecutor(min(workers, len(documents))) as pool:
            reports = list(pool.map(point, documents))
    else:
        reports = [point(d) for d in documents]
    side = reports[0]["combatants"][sweep.combatant]["side"]
    points = [
        {"value": v, "wins": r["outcome"]["wins"][side], "engine": r.get("engine", "full")}
        for v, r in zip(sweep.values, reports, strict=True)
    ]
    even = min(points, key=lambda p: (abs(p["wins"]["p"] - 0.5), p["value"]))
    return {
        "format": "tableside/sweep", "version": 1, "combatant": sweep.combatant,
        "field": sweep.field, "side": side, "runs": runs, "points": points,
        "closest_to_even": even["value"],
    }  # fmt: skip


def plot(result: dict[str, Any], path: str) -> None:
    """Draw the win chance against the value, with its 95% intervals, into ``path``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SimulationError("--plot needs matplotlib (pip install matplotlib).") from None
    values = [p["value"] for p in result["points"]]
    chance = [p["wins"]["p"] for p in result["points"]]
    low = [p["wins"]["p"] - p["wins"]["ci95"][0] for p in result["points"]]
    high = [p["wins"]["ci95"][1] - p["wins"]["p"] for p in result["points"]]
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.errorbar(values, chance, yerr=[low, high], marker="o", capsize=3)
    axes.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    axes.set_xlabel(f"{result['combatant']}.{result['field']}")
    axes.set_ylabel(f"P(side {result['side']} wins)")
    axes.set_ylim(0, 1)
    axes.set_title(f"{result['runs']} runs per value; closest to even: {result['closest_to_even']}")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
