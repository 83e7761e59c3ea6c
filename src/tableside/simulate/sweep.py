"""Sweeps (issue 15): the win chance of an encounter at each value of one combatant's number.

``tableside simulate FILE --sweep "Brute.guard=2..8"`` sets Brute's Guard (a War Attribute
override, M-2) to 2, 3, … 8 in turn and simulates each (the fast engine by default), printing the
chance that Brute's side wins at each value and the value closest to an even fight (F-5). In a
War the number may be a Basic Attribute (``might`` … ``passion``), a War Attribute override
(``force``, ``guard``, ``precision``, ``stamina``, ``spp``, ``speed``) or ``tier``; in a Realm of
Strife fight a number of the model's sheet (``str`` … ``stam``, ``movement``, ``ac``, ``dodge``,
``hp``, ``absorption``, ``crit_chance``; F-20). Values are whole numbers ``LOW..HIGH`` (at most
101 of them).

Where the values run (F-21): on every local core by default (one process per value when there
are at least as many values as workers, else one value after another with its runs spread over
the workers), or, given a cluster address, as one task per value on an existing Dask cluster
(``dask.distributed``, the optional ``cluster`` extra). Every value is simulated with the same
base seed wherever it runs, so a sweep's report is the same on one core, many or a cluster.
"""

from __future__ import annotations

import copy
import importlib
import multiprocessing
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

from pydantic import ValidationError

from tableside.simulate.runs import SimulationError
from tableside.strife.catalog import Combatant

ATTRIBUTES = ("might", "swiftness", "control", "endurance", "resolve", "passion")
OVERRIDES = ("force", "guard", "precision", "stamina", "spp", "speed")
FIELDS = (*ATTRIBUTES, *OVERRIDES, "tier")  # a War's (majesty-war)
STATS = ("str", "agil", "int", "wis", "stam")  # a Realm of Strife sheet's stats (F-20)
SHEET = ("movement", "ac", "dodge", "hp", "absorption", "crit_chance")
STRIFE_FIELDS = (*STATS, *SHEET)
WAR, STRIFE = "majesty-war", "strife-combat"
MAX_VALUES = 101
CONNECT_TIMEOUT = 3  # seconds to reach a cluster's scheduler before --cluster is refused
_SPEC = re.compile(r"^\s*([^.=]+)\.([A-Za-z_]+)\s*=\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$")
_ADDRESS = re.compile(r"^(?:(?:tcp|tls)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$")
Point = Callable[[Any], dict[str, Any]]


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
    if field not in FIELDS and field not in STRIFE_FIELDS:
        raise SimulationError(
            f"A sweep can set one of {', '.join(FIELDS)} (a War) or "
            f"{', '.join(STRIFE_FIELDS)} (a Realm of Strife fight), not {field!r}."
        )
    first, last = int(low), int(high)
    if first > last or last - first + 1 > MAX_VALUES:
        raise SimulationError(
            f"A sweep's range must run upward over at most {MAX_VALUES} values, "
            f"got {first}..{last}."
        )
    return Sweep(who, field, tuple(range(first, last + 1)))


def check_field(game: object, sweep: Sweep) -> None:
    """Refuse a field the encounter's game does not have (or a game sweeps do not know)."""
    fields = {WAR: FIELDS, STRIFE: STRIFE_FIELDS}.get(str(game))
    if fields is None:
        raise SimulationError(f"Sweeps apply to a War or a Realm of Strife fight, not {game!r}.")
    if sweep.field not in fields:
        kind = "a War" if game == WAR else "a Realm of Strife fight"
        raise SimulationError(
            f"A sweep of {kind} can set one of {', '.join(fields)}, not {sweep.field!r}."
        )


def with_value(document: Any, sweep: Sweep, value: int) -> Any:
    """The exported encounter with the combatant's number set where it was added.

    A War's ``add`` command and ``combatant_added`` event carry the character; a Realm of
    Strife fight's ``model_added`` event carries the sheet, and its ``add`` command is given
    that sheet in place of the catalogue name (F-20).
    """
    check_field(document.get("game"), sweep)
    changed = copy.deepcopy(document)
    touched = 0
    for record in changed.get("records", []):
        command = record.get("command") or {}
        events = record.get("events") or []
        for data in [command.get("args") or {}, *(e.get("data") or {} for e in events)]:
            if not isinstance(data, dict) or data.get("id") != sweep.combatant:
                continue
            touched += _touch(data, sweep.field, value)
        if changed.get("game") == STRIFE:
            _sheet_into_command(command, events, sweep.combatant)
    if not touched:
        raise SimulationError(f"The encounter has no combatant {sweep.combatant!r} to sweep.")
    return changed


def _touch(data: dict[str, Any], field: str, value: int) -> int:
    character, sheet = data.get("character"), data.get("sheet")
    if isinstance(character, dict):
        _set(character, field, value)
        return 1
    if isinstance(sheet, dict):
        _set_sheet(sheet, field, value)
        return 1
    return 0


def _set(character: dict[str, Any], field: str, value: int) -> None:
    if field in ATTRIBUTES:
        character.setdefault("attributes", {})[field] = value
    elif field in OVERRIDES:
        character.setdefault("overrides", {})[field] = value
    else:
        character[field] = value


def _set_sheet(sheet: dict[str, Any], field: str, value: int) -> None:
    if field in STATS:
        sheet.setdefault("stats", {})[field.upper()] = value
    elif field == "hp":
        sheet["hp"] = sheet["hp_max"] = value
    else:
        sheet[field] = value
    try:
        Combatant.model_validate(sheet)
    except ValidationError as error:
        problem = error.errors()[0].get("msg", "invalid")
        raise SimulationError(
            f"{sheet.get('name', 'The model')}'s {field} cannot be {value}: {problem}."
        ) from None


def _sheet_into_command(command: dict[str, Any], events: list[Any], who: str) -> None:
    args = command.get("args")
    if command.get("kind") != "add" or not isinstance(args, dict) or args.get("id") != who:
        return
    for event in events:
        data = event.get("data") or {}
        if event.get("kind") == "model_added" and isinstance(data.get("sheet"), dict):
            args.pop("model", None)
            args["sheet"] = copy.deepcopy(data["sheet"])


def _point(document: Any, runs: int, seed: int | None, engine: str, rest: bool | None,
           workers: int = 1) -> Any:  # fmt: skip
    from tableside.simulate.driver import simulate  # numba, when first needed (W-75)

    return simulate(document, runs, seed=seed, workers=workers, engine=engine, rest=rest)


def local_reports(point: Point, documents: Sequence[Any], workers: int,
                  spread: Callable[[int], Point], fresh: bool = False) -> list[Any]:  # fmt: skip
    """Every value's report on this machine's ``workers`` processes (F-21).

    With at least as many values as workers, the values run in parallel (one process each, one
    worker inside); with fewer, one value after another, each spreading its runs over every
    worker (``spread(workers)``). ``fresh``: the processes are started anew (spawned), not
    forked: a threaded server forks none (F-54).
    """
    if workers > 1 and len(documents) >= workers:
        context = multiprocessing.get_context("spawn") if fresh else None
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            return list(pool.map(point, documents))
    each = spread(workers) if workers > 1 else point
    return [each(d) for d in documents]


def cluster_reports(point: Point, documents: Sequence[Any], address: str) -> list[Any]:
    """Every value's report as one task each on the Dask cluster at ``address`` (F-21).

    Raises:
        SimulationError: dask.distributed is not installed, or no scheduler answered at the
            address within :data:`CONNECT_TIMEOUT` seconds.
    """
    if not _ADDRESS.match(address):
        raise SimulationError(
            f"A cluster address is written tcp://HOST:PORT (a Dask scheduler), got {address!r}."
        )
    try:
        distributed: Any = importlib.import_module("distributed")  # the optional extra
    except ImportError:
        raise SimulationError(
            "--cluster needs dask.distributed: install the cluster extra "
            "(pip install 'tableside[cluster]')."
        ) from None
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError):
        raise SimulationError(
            f"No Dask scheduler answered at {address!r} within {CONNECT_TIMEOUT} s."
        ) from None
    with client:
        futures = client.map(point, list(documents), pure=False)
        reports: list[Any] = client.gather(futures)
    return reports


def run_sweep(
    document: Any, sweep: Sweep, runs: int, *, seed: int | None = None, workers: int = 1,
    engine: str = "fast", rest: bool | None = None, cluster: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Simulate every value; the side's win chance at each and the value closest to even.

    Args:
        document: The exported encounter (a War or a Realm of Strife fight).
        sweep: The combatant, its number and the values.
        runs: Runs per value.
        seed: The base seed of every value (default: the encounter's own).
        workers: Local worker processes (ignored with ``cluster``).
        engine: ``fast`` or ``full`` (as ``simulate``).
        rest: The War policy's Rest rule (None: the default).
        cluster: A Dask scheduler's address (``tcp://host:8786``), or None for local cores.

    Raises:
        SimulationError: A bad sweep or encounter, or a cluster that cannot be used.
    """
    documents = [with_value(document, sweep, v) for v in sweep.values]
    point = partial(_point, runs=runs, seed=seed, engine=engine, rest=rest)
    if cluster is not None:
        reports = cluster_reports(point, documents, cluster)
    else:

        def spread(count: int) -> Point:
            return partial(point, workers=count)

        reports = local_reports(point, documents, workers, spread)
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
