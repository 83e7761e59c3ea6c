"""Who is likely to win as the roster stands: the balance of a stored encounter (issue 15).

Shared by ``--balance`` after ``war add`` / ``fight add`` (F-6) and the set-up page's Balance
panel (``GET /api/encounters/{eid}/balance``, F-7). The exported encounter is simulated on the
fast engine where it supports the fight (a War), else on the full engine (a Realm of Strife
fight, as ``tableside simulate`` does). The seed is derived from the encounter's own seed and
its revision (:func:`balance_seed`), so the same roster gives the same figures in the CLI and on
the page, and any change to the roster draws new dice.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from tableside.simulate import disk_cache
from tableside.simulate.runs import load_start
from tableside.simulate.stats import wilson

BALANCE_RUNS = 2000
FULL_ENGINE_RUNS = 200  # the page's runs when the full engine must play (F-24)
SEED_MODULUS = 2**63  # simulation seeds are zero or positive and fit 63 bits
WARM_RUNS = 64  # runs of the warm-up War (F-25): a batch of several runs, as a balance's
WARM_ROSTER = (  # the warm-up War: one Sword against one Axe, 2" apart
    ("Warm-holy", "holy", "Sword", (42, 31, 30, 60, 48, 72), 0.0),
    ("Warm-fallen", "fallen", "Axe", (56, 22, 40, 60, 40, 40), 2.0),
)
ATTRIBUTES = ("might", "swiftness", "control", "endurance", "resolve", "passion")
WARM_FIGHT = (("Warm-hero", "heroes", "Aldric", 0.0), ("Warm-monster", "monsters", "Goblin", 6.0))
QUICK_RUNS = 50  # runs on the full engine while the fast engines are being compiled (F-52)
COMPILING = (
    "the fast engines are still being compiled after an installation: a first estimate "
    f"of at most {QUICK_RUNS} runs on the full engine"
)
SLICE_WORK = 8_000  # combatant-runs of one fast slice (F-53): a 4-against-4 War's is 1,000 runs
FULL_SLICE_WORK = 400  # the same on the full engine (F-53): 50 runs of a 4-against-4 War
SLICE_SEED_STEP = 0x9E3779B97F4A7C15  # between the seeds of a balance's slices (F-53)
NARROW = 0.015  # a balance stops once every side's chance is known within ± 1.5 points (F-53)
KERNEL_SOURCES = (  # the modules numba compiles
    "fast_kernel.py", "fast_strife_kernel.py", "fast_strife_kernel_base.py",
    "fast_strife_kernel_policy.py", "fast_strife_kernel_acts.py", "fast_strife_kernel_turns.py",
    "fast_strife_kernel_compel.py", "fast_strife_kernel_water.py",
)  # fmt: skip


def warm_marker() -> Path:
    """The file :func:`warm` leaves once the kernels of these sources are compiled (F-52).

    In the user's cache folder beside the kernels' machine code, named by a digest of the
    kernels' sources, numba's and Python's versions: any other source or version has no marker
    (a server then compiles in a process of its own first, ``tableside warm``).
    """
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for name in KERNEL_SOURCES:
        digest.update((here / name).read_bytes())
    digest.update(f"{metadata.version('numba')} {sys.version}".encode())  # numba not imported
    return disk_cache.user_folder() / "numba" / f"warm-{digest.hexdigest()[:16]}"


def warmed() -> bool:
    """Whether :func:`warm` has finished for these sources on this machine (F-52)."""
    return warm_marker().exists()


def warm_document(game: str = "majesty-war") -> dict[str, Any]:
    """A small encounter as the store would export it, for the warm-up.

    A War of :data:`WARM_ROSTER`, or (``strife-combat``) a fight of :data:`WARM_FIGHT`.
    """
    from tableside.encounter.engine import Encounter
    from tableside.encounter.log import Command
    from tableside.service import game_for
    from tableside.store.formats import encounter_document

    encounter: Encounter[Any] = Encounter(game_for(game), 0)
    for args in warm_adds(game):
        encounter.execute(Command("add", args))
    return encounter_document("warm-up", game, 0, encounter.records)


def warm_adds(game: str) -> list[dict[str, Any]]:
    """The ``add`` commands' arguments of the warm-up encounter of ``game``."""
    if game == "strife-combat":
        return [{"id": who, "side": side, "model": model, "position": [x, 0.0, 0.0]}
                for who, side, model, x in WARM_FIGHT]  # fmt: skip
    adds = []
    for who, side, weapon, attributes, x in WARM_ROSTER:
        character = {
            "format": "tableside/majesty-character", "version": 1, "name": who, "side": side,
            "tier": 1, "magnitude": 1, "weapon": weapon,
            "attributes": dict(zip(ATTRIBUTES, attributes, strict=True)),
        }  # fmt: skip
        adds.append({"id": who, "character": character, "position": [x, 0.0, 0.0]})
    return adds


def warm() -> list[dict[str, Any]]:
    """Play a small War and a small fight on the fast engines once, before any balance (F-25).

    A server's first balance then need not: this loads the compiled kernel from numba's disk
    cache (the specialisation a balance's batch uses: several runs; compiled there when not
    cached yet, after an installation) and goes once through the Python paths a batch takes
    (forms, Strike tables, the War Scroll; the Realm of Strife engine's). The web server runs it
    on its balance thread after it starts (``web/balance.py``).

    Returns:
        The two warm-up balances (of no interest but to the tests).
    """
    games = ("majesty-war", "strife-combat")
    found = [balance(warm_document(game), WARM_RUNS, 0) for game in games]
    mark_warmed()
    return found


def mark_warmed() -> None:
    """Leave :func:`warm_marker` (a folder that cannot be written: no marker, no error)."""
    marker = warm_marker()
    with contextlib.suppress(OSError):
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text("the fast engines' kernels are compiled for these sources\n")


def balance_seed(encounter_seed: int, revision: int) -> int:
    """The balance's base seed: the encounter's seed plus its revision, modulo 2⁶³ (F-7).

    Args:
        encounter_seed: The encounter's stored seed (may be negative).
        revision: The encounter's revision (its number of records).

    Returns:
        A seed in ``[0, 2⁶³)``.
    """
    return (encounter_seed + revision) % SEED_MODULUS


def encounter_balance(
    document: dict[str, Any],
    runs: int,
    full_engine_runs: int | None = None,
    compiled: bool = True,
) -> dict[str, Any]:
    """The balance of an exported encounter as it stands, seeded from its seed and revision.

    The revision is the number of the document's records (a stored encounter's revision), so
    the figures are recorded with ``revision`` in the answer. Played slice by slice
    (:class:`Sliced`, F-53): at most ``runs`` runs, fewer once every side's chance is known
    within ± 1.5 points.

    Args:
        document: A ``tableside/encounter`` v1 document.
        runs: The most runs to play.
        full_engine_runs: When given, the most runs asked of an encounter the fast engines do
            not cover (F-24: the page's wait stays in seconds); the answer then says why, under
            ``fallback``.
        compiled: False while the fast engines' kernels are being compiled (F-52): then at
            most :data:`QUICK_RUNS` runs on the full engine, which needs no compilation, and
            ``fallback`` says so.

    Raises:
        SimulationError: The encounter cannot be simulated (one side, ended, bad runs).
    """
    sliced = Sliced(document, runs, full_engine_runs, compiled)
    while not sliced.finished:
        sliced.step()
    return sliced.result()


def slice_runs(combatants: int, engine: str) -> int:
    """The runs of one slice: about the same work whatever the roster's size (F-53)."""
    work = SLICE_WORK if engine == "fast" else FULL_SLICE_WORK
    return max(1, work // max(1, combatants))


def slice_seed(seed: int, number: int) -> int:
    """Slice ``number``'s seed: the balance's own for the first, then a step apart (F-53)."""
    return (seed + number * SLICE_SEED_STEP) % SEED_MODULUS


def covered(start: Any) -> str | None:
    """Why the fast engines do not play this start (None: they do); loads numba (W-75)."""
    from tableside.simulate.fast import why_not_fast

    found: str | None = why_not_fast(start.game, start.state)
    return found


class Sliced:
    """One balance played a slice at a time, so that balances can take turns (F-53).

    A slice is :func:`slice_runs` runs (fewer for a larger roster, so that every slice is
    about the same work) with its own seed (:func:`slice_seed`); after each slice the counts
    are added up, and the balance is finished when ``runs`` are played or when every side's
    95 % interval (Wilson) is within :data:`NARROW` of its chance. The figures depend only on
    the document, the runs and the seed, never on what else ran in between.
    """

    def __init__(
        self,
        document: dict[str, Any],
        runs: int,
        full_engine_runs: int | None = None,
        compiled: bool = True,
    ) -> None:
        self.document = document
        self.revision = len(document.get("records", []))
        self.seed = balance_seed(int(document.get("seed", 0)), self.revision)
        start = load_start(document)
        uncovered = covered(start) if compiled else None
        self.engine = "fast" if compiled else "full"  # asked of simulate
        self.fallback = None if compiled else COMPILING
        self.quick = not compiled
        if not compiled:
            runs = min(runs, QUICK_RUNS)
        elif full_engine_runs is not None and runs > full_engine_runs and uncovered is not None:
            runs, self.fallback = full_engine_runs, uncovered
        self.asked = runs
        plays = "fast" if compiled and uncovered is None else "full"
        self.size = slice_runs(len(getattr(start.state, combatants_of(start.game))), plays)
        self.done = self.slices = self.draws = self.unfinished = 0
        self.wins: dict[str, int] = {}
        self.seconds = 0.0
        self.last: dict[str, Any] = {}

    @property
    def finished(self) -> bool:
        """Whether every run asked is played, or every side's chance is known closely enough."""
        return self.done >= self.asked or (self.done > 0 and self.narrow())

    def narrow(self) -> bool:
        """Whether every side's 95 % interval is within :data:`NARROW` of its chance."""
        return all(
            (found.high - found.low) / 2 <= NARROW
            for found in (wilson(k, self.done) for k in self.wins.values())
        )

    def step(self) -> None:
        """Play the next slice and add its counts (raises SimulationError as ``simulate``)."""
        count = min(self.size, self.asked - self.done)
        from tableside.simulate.driver import simulate  # numba, when first needed (W-75)

        began = time.perf_counter()
        found = simulate(self.document, count, seed=slice_seed(self.seed, self.slices),
                         workers=1, engine=self.engine)  # fmt: skip
        self.seconds += time.perf_counter() - began
        outcome = found["outcome"]
        for side, block in outcome["wins"].items():
            self.wins[side] = self.wins.get(side, 0) + int(block["count"])
        self.draws += int(outcome["draws"]["count"])
        self.unfinished += int(outcome["unfinished"]["count"])
        self.done += count
        self.slices += 1
        self.last = found

    def result(self) -> dict[str, Any]:
        """The balance as JSON (as :func:`balance`'s, with ``revision``, ``asked``, ``slices``)."""
        found = {
            "revision": self.revision,
            "runs": self.done,
            "asked": self.asked,
            "slices": self.slices,
            "seed": self.seed,
            "engine": self.last.get("engine", "full"),
            "policy": self.last["policy"],
            "seconds": round(self.seconds, 4),
            "sides": [{"side": side, **share(k, self.done)} for side, k in self.wins.items()],
            "draws": share(self.draws, self.done),
            "unfinished": share(self.unfinished, self.done),
        }
        if self.fallback is None:
            return found
        return {**found, "fallback": self.fallback, **({"compiling": True} if self.quick else {})}


def combatants_of(game: str) -> str:
    """The attribute of a game's state that lists who fights."""
    return "models" if game == "strife-combat" else "combatants"


def share(k: int, n: int) -> dict[str, Any]:
    """A count of the runs as the balance gives it: count, p and its 95 % interval."""
    found = wilson(k, n)
    return {"count": k, "p": found.p, "ci95": [found.low, found.high]}


def balance(document: Any, runs: int, seed: int, engine: str = "fast") -> dict[str, Any]:
    """Simulate an exported encounter ``runs`` times: each side's chance to win (F-6, F-7).

    Args:
        document: A ``tableside/encounter`` v1 document (as the store exports it).
        runs: How many runs.
        seed: The base seed (see :func:`balance_seed`).
        engine: "fast" (the fast engines where they play the encounter) or "full".

    Returns:
        JSON: ``runs``, ``seed``, ``engine``, ``policy``, ``seconds``, ``sides`` (one
        ``{"side", "count", "p", "ci95"}`` per side, 95% Wilson intervals), ``draws`` and
        ``unfinished`` (``{"count", "p", "ci95"}``).

    Raises:
        SimulationError: The encounter cannot be simulated (one side, ended, bad runs).
    """
    from tableside.simulate.driver import simulate  # numba, when first needed (W-75)

    began = time.perf_counter()
    found = simulate(document, runs, seed=seed, workers=1, engine=engine)
    seconds = time.perf_counter() - began
    outcome = found["outcome"]
    return {
        "runs": runs,
        "seed": seed,
        "engine": found.get("engine", "full"),
        "policy": found["policy"],
        "seconds": round(seconds, 4),
        "sides": [{"side": side, **figure(block)} for side, block in outcome["wins"].items()],
        "draws": figure(outcome["draws"]),
        "unfinished": figure(outcome["unfinished"]),
    }


def figure(block: dict[str, Any]) -> dict[str, Any]:
    """A proportion of the report as the balance gives it: count, p and its interval."""
    return {"count": block["count"], "p": block["p"], "ci95": list(block["ci95"])}


def balance_lines(found: dict[str, Any]) -> list[str]:
    """The balance as text lines (the CLI prints them)."""
    lines = [f"balance ({found['runs']} runs, {found['engine']} engine, policy {found['policy']}):"]
    for block in found["sides"]:
        low, high = block["ci95"]
        lines.append(f"  {block['side']} wins {block['p']:.3f} ({low:.3f} – {high:.3f})")
    for label in ("draws", "unfinished"):
        if found[label]["count"]:
            lines.append(f"  {label} {found[label]['p']:.3f}")
    return lines
