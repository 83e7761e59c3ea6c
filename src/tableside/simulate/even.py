"""Make it even (issue 26, F-54): the one change that brings a side's chance to a target.

The Host names a side and the chance it should have (``holy=60%``), and one change to try:
either one combatant's number over a range (a sweep, ``Brute.guard=2..8``, F-5, F-20), how
many copies of one of the encounter's combatants fight (``Goblin-1=1..6``: the combatant and
``N − 1`` copies of it beside it) or how many of a catalogue NPC join a side
(``catalog:Goblin@monsters=0..4``, F-61: in a Realm of Strife fight, whose catalogue has
NPCs). Every value is simulated with the same seed, on the local cores or on a Dask cluster
(F-21, as sweeps), and the proposal is the value whose chance is closest to the target (the
lower value on a tie). Nothing is changed here: the proposal is
applied only when the Host accepts it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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
from tableside.strife.catalog import builtin_catalog

_TARGET = re.compile(r"^\s*([^=]+?)\s*=\s*(\d{1,3}(?:\.\d+)?)\s*(%?)\s*$")
_COUNT = re.compile(r"^\s*([^=]+?)\s*=\s*(\d{1,3})\s*\.\.\s*(\d{1,3})\s*$")
_CATALOG = re.compile(
    r"^\s*catalog:\s*([^@=]+?)\s*@\s*([^=]+?)\s*=\s*(\d{1,3})\s*\.\.\s*(\d{1,3})\s*$"
)
CATALOG_PREFIX = "catalog:"
COPY_STEP = 1.0  # inches between a combatant and each of its copies (along y)
CATALOG_GAMES = frozenset({"strife-combat"})  # games whose catalogue holds NPCs (F-61)


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


@dataclass(frozen=True)
class CatalogCount:
    """How many of a catalogue NPC join ``side`` (F-61), for each N of ``values`` (0 upward)."""

    name: str
    side: str
    values: tuple[int, ...]

    @property
    def combatant(self) -> str:
        """How the change is named in a report."""
        return f"{self.name}@{self.side}"


Change = Sweep | Count | CatalogCount


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


def parse_change(text: str) -> Change:
    """A change: one number, how many of a combatant, or how many of a catalogue NPC.

    ``ID.FIELD=LOW..HIGH``, ``ID=LOW..HIGH`` or ``catalog:NAME@SIDE=LOW..HIGH`` (F-54, F-61).
    """
    if text.strip().startswith(CATALOG_PREFIX):
        return parse_catalog_count(text)
    if "." in text.split("=", 1)[0]:
        return parse_sweep(text)
    found = _COUNT.match(text)
    if found is None:
        raise SimulationError(
            "A change is written ID.FIELD=LOW..HIGH (a number, for example Brute.guard=2..8) or "
            f"ID=LOW..HIGH (how many of a combatant, for example Goblin-1=1..6), got {text!r}."
        )
    return Count(found.group(1), counted(found.group(2), found.group(3), 1, "A count"))


def counted(low_text: str, high_text: str, least: int, what: str) -> tuple[int, ...]:
    """The values ``LOW..HIGH`` of a count, upward from ``least``, at most :data:`MAX_VALUES`."""
    low, high = int(low_text), int(high_text)
    if not least <= low <= high or high - low + 1 > MAX_VALUES:
        floor = "at least 1" if least == 1 else f"{least} or more"
        raise SimulationError(
            f"{what} runs upward from {floor} over at most {MAX_VALUES} values, got {low}..{high}."
        )
    return tuple(range(low, high + 1))


def parse_catalog_count(text: str) -> CatalogCount:
    """``catalog:NAME@SIDE=LOW..HIGH``: 0 to at most :data:`MAX_VALUES` values (F-61)."""
    found = _CATALOG.match(text)
    if found is None:
        raise SimulationError(
            "A catalogue change is written catalog:NAME@SIDE=LOW..HIGH (how many of a catalogue "
            f"NPC join a side, for example catalog:Goblin@monsters=0..4), got {text!r}."
        )
    values = counted(found.group(3), found.group(4), 0, "A catalogue count")
    return CatalogCount(found.group(1), found.group(2), values)


def with_count(document: Any, count: Count | CatalogCount, how_many: int) -> Any:
    """The encounter with the combatant's copies or the catalogue NPCs added (F-54, F-61).

    ``how_many − 1`` copies beside the combatant, or ``how_many`` catalogue NPCs on the side.
    """
    doc, records = parse_encounter(document)
    encounter: Encounter[Any] = Encounter.from_records(game_for(doc.game), doc.seed, records)
    if isinstance(count, CatalogCount):
        commands, what = catalog_commands(document, count, how_many), f"{count.name!r}"
    else:
        commands = copy_commands(document, count.combatant, how_many)
        what = f"{count.combatant!r}"
    for command in commands:
        try:
            encounter.execute(command)
        except Exception as error:  # a rule refused it (a fight already started, W-26)
            raise SimulationError(f"{what} cannot be added: {error}") from None
    return encounter_document(doc.name, doc.game, doc.seed, encounter.records)


def catalog_commands(document: Any, count: CatalogCount, how_many: int) -> list[Command]:
    """The ``add`` commands of ``how_many`` catalogue NPCs on the side, beside its others (F-61).

    Each 1" further along y than the side's model furthest along y, at its x and z; named
    ``NAME-k`` (spaces as dashes) with the lowest numbers the encounter does not use.

    Raises:
        SimulationError: A game without an NPC catalogue, an unknown NPC or side.
    """
    game = document.get("game")
    if game not in CATALOG_GAMES:
        raise SimulationError(
            f"Only a Realm of Strife fight has a catalogue of NPCs to add ({game!r} has none): "
            "name one of the encounter's combatants to copy instead (ID=LOW..HIGH)."
        )
    entry = builtin_catalog().combatants.get(count.name.lower())
    if entry is None:
        raise SimulationError(f"The catalogue has no character or monster {count.name!r}.")
    placed = [args for kind, args in _adds(document) if kind == "add"]
    side = [args for args in placed if args.get("side") == count.side]
    if not side:
        sides = sorted({str(args.get("side")) for args in placed})
        raise SimulationError(
            f"The encounter has no side {count.side!r} to add {entry.name} to (its sides: "
            f"{', '.join(sides) or 'none'})."
        )
    x, y, z = max((_position(args) for args in side), key=lambda p: p[1])
    taken = {str(args.get("id")) for args in placed}
    stem = re.sub(r"[^A-Za-z0-9_.\-]+", "-", entry.name)
    names = (f"{stem}-{k}" for k in range(1, 10_000) if f"{stem}-{k}" not in taken)
    return [
        Command("add", {"id": next(names), "side": count.side, "model": entry.name,
                        "position": [x, y + n * COPY_STEP, z]})
        for n in range(1, how_many + 1)
    ]  # fmt: skip


def _adds(document: Any) -> list[tuple[str, dict[str, Any]]]:
    """The encounter's commands, (kind, arguments), in order."""
    found = []
    for record in document.get("records", []):
        command = record.get("command") or {}
        found.append((str(command.get("kind")), dict(command.get("args") or {})))
    return found


def _position(args: dict[str, Any]) -> tuple[float, float, float]:
    x, y, z = [*(args.get("position") or []), 0.0, 0.0, 0.0][:3]
    return float(x), float(y), float(z)


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


def change_commands(document: Any, change: Change, value: int) -> list[Command]:
    """The Host's commands that make a proposal so (F-54, F-61).

    The copies or catalogue NPCs added, or the combatant removed and added again, where it
    stood, with the number changed.
    """
    if isinstance(change, CatalogCount):
        return catalog_commands(document, change, value)
    if isinstance(change, Count):
        return copy_commands(document, change.combatant, value)
    changed = added_args(with_value(document, change, value), change.combatant)
    return [Command("remove", {"id": change.combatant}), Command("add", changed)]


def make_even(
    document: Any, target: Target, change: Change, runs: int, *,
    seed: int | None = None, workers: int = 1, cluster: str | None = None,
    fresh_processes: bool = False, play: Callable[[list[Any]], list[Any]] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Simulate every value of the change; the one whose chance is closest to the target.

    ``fresh_processes``: local worker processes are spawned, not forked (a threaded server's).
    ``play``: given every value's document, in order, their reports (a served app plays them in
    its balance process, W-78); ``workers`` and ``cluster`` are then not used.

    Raises:
        SimulationError: A bad change, side or encounter, or a cluster that cannot be used.
    """
    if isinstance(change, Sweep):
        documents = [with_value(document, change, v) for v in change.values]
    else:
        documents = [with_count(document, change, v) for v in change.values]

    def spread(count: int) -> Point:
        return partial(_point, runs=runs, seed=seed, engine="fast", rest=None, workers=count)

    if play is not None:
        reports = play(documents)
    elif cluster is not None:
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
    kind: dict[str, Any] = {"kind": "count"}
    if isinstance(change, Sweep):
        kind = {"kind": "number", "field": change.field}
    elif isinstance(change, CatalogCount):
        kind = {"kind": "catalog", "catalog": change.name, "side": change.side}
    return {
        "format": "tableside/even", "version": 1, "side": target.side, "target": target.p,
        "change": {**kind, "combatant": change.combatant}, "runs": runs, "points": points,
        "proposal": best["value"], "p": best["wins"]["p"], "reached": low <= target.p <= high,
    }  # fmt: skip
