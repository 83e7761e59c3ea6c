"""Make it even (issue 26, F-54): the one change that brings a side's chance to a target.

The Host names a side and the chance it should have (``holy=60%``), and one change to try:
either one combatant's number over a range (a sweep, ``Brute.guard=2..8``, F-5, F-20) or how
many copies of one of the encounter's combatants fight (``Goblin-1=1..6``: the combatant and
``N − 1`` copies of it beside it). Every value is simulated with the same seed, on the local
cores or on a Dask cluster (F-21, as sweeps), and the proposal is the value whose chance is
closest to the target (the lower value on a tie). Nothing is changed here: the proposal is
applied only when the Host accepts it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from typing import Any

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.service import game_for
from tableside.simulate.runs import SimulationError
from tableside.simulate.sweep import (
    MAX_VALUES,
    Point,
    Sweep,
    _point,
    cluster_reports,
    local_reports,
    parse_sweep,
    with_value,
)
from tableside.store.formats import encounter_document, parse_encounter

_TARGET = re.compile(r"^\s*([^=]+?)\s*=\s*(\d{1,3}(?:\.\d+)?)\s*(%?)\s*$")
_COUNT = re.compile(r"^\s*([^=]+?)\s*=\s*(\d{1,3})\s*\.\.\s*(\d{1,3})\s*$")
COPY_STEP = 1.0  # inches between a combatant and each of its copies (along y)


@dataclass(frozen=True)
class Target:
    """A side and the chance it should have of winning."""

    side: str
    p: float


@dataclass(frozen=True)
class Count:
    """How many of one combatant fight: it and ``N − 1`` copies, for each N of ``values``."""

    combatant: str
    values: tuple[int, ...]


def parse_target(text: str) -> Target:
    """``SIDE=P`` (``holy=60%`` or ``holy=0.6``) as a :class:`Target` (one sentence if bad)."""
    found = _TARGET.match(text)
    chance = None
    if found is not None:
        number = float(found.group(2))
        chance = number / 100 if found.group(3) or number > 1 else number
    if found is None or chance is None or not 0 < chance < 1:
        raise SimulationError(
            f"A target is written SIDE=PERCENT (for example holy=60%), strictly between 0 and "
            f"100 %, got {text!r}."
        )
    return Target(found.group(1), chance)


def parse_change(text: str) -> Sweep | Count:
    """``ID.FIELD=LOW..HIGH`` (one number) or ``ID=LOW..HIGH`` (how many of a combatant)."""
    if "." in text.split("=", 1)[0]:
        return parse_sweep(text)
    found = _COUNT.match(text)
    if found is None:
        raise SimulationError(
            "A change is written ID.FIELD=LOW..HIGH (a number, for example Brute.guard=2..8) or "
            f"ID=LOW..HIGH (how many of a combatant, for example Goblin-1=1..6), got {text!r}."
        )
    low, high = int(found.group(2)), int(found.group(3))
    if not 1 <= low <= high or high - low + 1 > MAX_VALUES:
        raise SimulationError(
            f"A count runs upward from at least 1 over at most {MAX_VALUES} values, "
            f"got {low}..{high}."
        )
    return Count(found.group(1), tuple(range(low, high + 1)))


def with_count(document: Any, count: Count, how_many: int) -> Any:
    """The encounter with ``how_many − 1`` copies of the combatant added beside it."""
    doc, records = parse_encounter(document)
    encounter: Encounter[Any] = Encounter.from_records(game_for(doc.game), doc.seed, records)
    for command in copy_commands(document, count.combatant, how_many):
        try:
            encounter.execute(command)
        except Exception as error:  # a rule refused it (a fight already started, W-26)
            raise SimulationError(f"{count.combatant!r} cannot be copied: {error}") from None
    return encounter_document(doc.name, doc.game, doc.seed, encounter.records)


def added_args(document: Any, combatant: str) -> dict[str, Any]:
    """The arguments of the ``add`` command that brought ``combatant`` into the encounter."""
    for record in document.get("records", []):
        command = record.get("command") or {}
        args = command.get("args") or {}
        if command.get("kind") == "add" and args.get("id") == combatant:
            return dict(args)
    raise SimulationError(f"The encounter has no combatant {combatant!r} to change.")


def copy_commands(document: Any, combatant: str, how_many: int) -> list[Command]:
    """The ``add`` commands of ``how_many − 1`` copies of ``combatant``, 1" apart beside it."""
    added = added_args(document, combatant)
    x, y, z = [*(added.get("position") or []), 0.0, 0.0, 0.0][:3]
    return [
        Command("add", {**added, "id": f"{combatant}.{n + 1}",
                        "position": [x, y + n * COPY_STEP, z]})
        for n in range(1, how_many)
    ]  # fmt: skip


def change_commands(document: Any, change: Sweep | Count, value: int) -> list[Command]:
    """The Host's commands that make a proposal so (F-54).

    The copies added, or the combatant removed and added again, where it stood, with the
    number changed.
    """
    if isinstance(change, Count):
        return copy_commands(document, change.combatant, value)
    changed = added_args(with_value(document, change, value), change.combatant)
    return [Command("remove", {"id": change.combatant}), Command("add", changed)]


def make_even(
    document: Any, target: Target, change: Sweep | Count, runs: int, *,
    seed: int | None = None, workers: int = 1, cluster: str | None = None,
    fresh_processes: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Simulate every value of the change; the one whose chance is closest to the target.

    ``fresh_processes``: local worker processes are spawned, not forked (a threaded server's).

    Raises:
        SimulationError: A bad change, side or encounter, or a cluster that cannot be used.
    """
    if isinstance(change, Sweep):
        documents = [with_value(document, change, v) for v in change.values]
    else:
        documents = [with_count(document, change, v) for v in change.values]

    def spread(count: int) -> Point:
        return partial(_point, runs=runs, seed=seed, engine="fast", rest=None, workers=count)

    if cluster is not None:
        reports = cluster_reports(spread(1), documents, cluster)
    else:
        reports = local_reports(spread(1), documents, workers, spread, fresh_processes)
    sides = list(reports[0]["outcome"]["wins"])
    if target.side not in sides:
        raise SimulationError(
            f"The side {target.side!r} is not in the encounter (its sides: {', '.join(sides)})."
        )
    points = [
        {"value": v, "wins": r["outcome"]["wins"][target.side], "engine": r.get("engine", "full")}
        for v, r in zip(change.values, reports, strict=True)
    ]
    best = min(points, key=lambda p: (abs(p["wins"]["p"] - target.p), p["value"]))
    low, high = best["wins"]["ci95"]
    kind = {"kind": "number", "field": change.field} if isinstance(change, Sweep) else {
        "kind": "count"}  # fmt: skip
    return {
        "format": "tableside/even", "version": 1, "side": target.side, "target": target.p,
        "change": {**kind, "combatant": change.combatant}, "runs": runs, "points": points,
        "proposal": best["value"], "p": best["wins"]["p"], "reached": low <= target.p <= high,
    }  # fmt: skip
