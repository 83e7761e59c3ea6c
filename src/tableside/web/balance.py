"""The set-up page's Balance panel: each side's chance to win as the roster stands (F-7).

``GET /api/encounters/{eid}/balance?runs=2000`` (the Host only: the simulation reads every
secret NPC value) exports the encounter as it stands and simulates it as ``--balance`` does
(``simulate/balance.py``: the fast engine for a War, the full engine for a Realm of Strife
fight, seeded from the encounter's seed and revision). The endpoint is a plain function, so the
web server runs it on its thread pool, off the event loop; one simulation runs at a time (the
others wait their turn), and at most :data:`RUNS_MAX` runs are asked. The last answers are kept
by encounter, revision and runs (the same seed gives the same figures), so reloading the page
does not simulate again; and a watched encounter's balance is started as soon as a combatant is
added or removed (:class:`Balances`, F-23); a served app warms the simulator on that thread
when it starts (:meth:`Balances.warm`, F-25). A served app (``tableside serve``) plays the
slices in a balance process of its own (``simulate/apart.py``, W-76), so this process never
loads numba; until that process is ready, a first estimate is answered here (``provisional``)
and refined once it is (W-77). Bad ``runs`` answer 400,
an encounter that cannot be simulated (one side so far, already over) answers 422, both with
one sentence.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import FastAPI, Query

from tableside.errors import DataError
from tableside.limits import shown
from tableside.simulate import SimulationError
from tableside.simulate import balance as simulated
from tableside.simulate.apart import Apart
from tableside.simulate.balance import (
    BALANCE_RUNS,
    COMPILING,
    FULL_ENGINE_RUNS,
    HERE,
    LOADING,
    Runner,
    Sliced,
)
from tableside.web.answer_json import JSONResponse
from tableside.web.asking import Authorization, who_at
from tableside.web.table import WebTable

RUNS_MAX = 10_000  # runs of one balance from the web (a War's 10,000 take about a second)
UNSIMULABLE = 422
KEPT = 64  # answers kept: (encounter, revision, runs) -> the balance; a reload reads it again
WATCH_SECONDS = 900.0  # an encounter's balance asked this recently is started early (F-23)
TRACED = 256  # the last slices run, remembered for the tests (F-53)
COMPILE_NICENESS = 10  # the compiling process yields the cores to the server's requests (F-52)
ROSTER_KINDS = frozenset({"add", "remove"})  # the commands that change who fights
Key = tuple[int, int, int]  # (encounter, revision, runs)
Answer = dict[str, Any] | SimulationError
LOG = logging.getLogger(__name__)


def warm_wanted() -> bool:
    """Whether a served app warms the simulator when it starts: unless ``TABLESIDE_WARM=off``."""
    return os.environ.get("TABLESIDE_WARM", "").strip().lower() != "off"


def runs_asked(raw: str | None) -> int:
    """The ``runs`` query: a whole number from 1 to :data:`RUNS_MAX` (2,000 when absent).

    Raises:
        DataError: Anything else, named with its value.
    """
    if raw is None or raw.strip() == "":
        return BALANCE_RUNS
    text = raw.strip()
    if not re.fullmatch(r"\d{1,9}", text) or not 1 <= int(text) <= RUNS_MAX:
        raise DataError(
            f"The number of runs must be a whole number from 1 to {RUNS_MAX:,}, got {shown(text)}."
        )
    return int(text)


class Worker:
    """One daemon thread running jobs in order (a stopping server never waits for a balance)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()

    def submit(self, job: Callable[..., Any], *args: Any) -> Future[Any]:
        """Queue ``job(*args)``; its future holds what it returned or raised."""
        future: Future[Any] = Future()
        self.jobs.put((lambda: job(*args), future))
        with self.lock:
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self.thread.start()
        return future

    def _run(self) -> None:
        while True:
            job, future = self.jobs.get()
            try:
                future.set_result(job())
            except BaseException as error:  # given to whoever waits on the future
                future.set_exception(error)


class Balances:
    """This process's balances: kept answers, those being simulated, and early starts (F-23).

    One simulation runs at a time, on a daemon thread of its own (:class:`Worker`). An
    encounter whose balance was asked in the last :data:`WATCH_SECONDS` is *watched*: when a
    combatant is added to it or removed (a record whose command is ``add`` or ``remove`` is
    appended, by any request), its balance for the runs last asked is started at once, off the
    request path, so the set-up page's request after its reload finds it done or under way (and
    joins it) instead of starting it. The simulated Strike tables stay in the process that
    plays the slices (``fast_laws``: this one, or the balance process, W-76), so later balances
    of a changed roster reuse every table it shares with the earlier one.
    """

    def __init__(self, table: WebTable, apart: Apart | None = None) -> None:
        self.table = table
        self.apart = apart  # the balance process (W-76); None: balances play in this process
        self.runner: Runner = HERE if apart is None else apart
        self.waiting = COMPILING  # why a first estimate is given (F-52, W-76)
        self.deferred: OrderedDict[Key, tuple[dict[str, Any], int]] = OrderedDict()
        self.estimates: OrderedDict[Key, dict[str, Any]] = OrderedDict()  # first ones (W-76)
        self.lock = threading.Lock()
        self.kept: OrderedDict[Key, dict[str, Any]] = OrderedDict()
        self.running: dict[Key, Future[Answer]] = {}
        self.watched: dict[int, tuple[int, float, int]] = {}  # encounter -> runs, when, table
        self.tables: dict[int, deque[Job]] = {}  # balances under way, by table (F-53)
        self.trace: deque[tuple[int, int]] = deque(maxlen=TRACED)  # slices run: table, encounter
        self.pool = Worker("tableside-balance")
        self.started = 0  # early starts (for the tests and the bench)
        self.quick = 0  # balances answered on the full engine while the kernels compiled (F-52)
        self.warming: Future[Any] | None = None
        # set: the fast engines may be asked (an app that does not warm compiles on demand)
        self.ready = threading.Event()
        self.ready.set()

    def expect_warm(self) -> None:
        """A warm-up follows (:meth:`warm`): if it must compile, balances answer quickly (F-52).

        With the kernels compiled at set-up, a balance asked while the warm-up loads them
        waits for numba's loading as it would have done itself, and is the fast engines'; but
        with a balance process (W-76) it is answered at once in this process, as while
        compiling, and refined once that process has loaded them.
        """
        if self.apart is not None or not simulated.warmed():
            self.waiting = LOADING if simulated.warmed() else COMPILING
            self.ready.clear()

    def warm(self, compile_first: Callable[[], None] | None = None) -> Future[Any]:
        """Warm the simulator on a thread of its own (F-25, F-52); its future ends with it.

        When this machine has not compiled the fast engines' kernels for these sources yet
        (``simulate.balance.warmed``: ``make setup`` runs ``tableside warm``), they are compiled
        first in a process of its own at a lower priority (``compile_first``, by default
        :func:`compile_apart`), so the server's memory and its requests are not held by the
        compiler; then this process plays the warm-up, which only loads them. Until then (only
        when they had to be compiled), a balance is answered at once on the full engine
        (``encounter_balance(compiled=False)``) and not kept. A failure is logged, never
        raised: the first balance then pays it.
        """
        self.expect_warm()
        future: Future[Any] = Future()

        def run() -> None:
            try:
                if not simulated.warmed():
                    (compile_first or compile_apart)()
                self.waiting = LOADING
                (simulated.warm if self.apart is None else self.apart.warm)()
            except Exception:  # pragma: no cover - a broken numba cache, say
                LOG.exception("warming the simulator failed")
            finally:
                self.ready.set()
                self.refine()
                future.set_result(None)

        threading.Thread(target=run, name="tableside-warm", daemon=True).start()
        self.warming = future
        return future

    def answer(
        self, encounter_id: int, runs: int, document: dict[str, Any], table_id: int = 0
    ) -> Answer:
        """The balance of the document as it stands: kept, joined, or simulated now.

        While the kernels are being compiled (F-52), a first estimate on the full engine,
        simulated now and not kept.
        """
        return self.submit(encounter_id, runs, document, table_id).result()

    def submit(
        self, encounter_id: int, runs: int, document: dict[str, Any], table_id: int = 0
    ) -> Future[Answer]:
        """:meth:`answer`'s future: a kept answer at once, else the balance's, queued (F-53)."""
        key = (encounter_id, len(document["records"]), runs)
        with self.lock:
            self.watched[encounter_id] = (runs, time.monotonic(), table_id)
            if key in self.kept:
                done: Future[Answer] = Future()
                done.set_result(self.kept[key])
                return done
            if self.ready.is_set():
                return self.running.get(key) or self._start(key, document, table_id)
            if key in self.estimates:  # the page asks again until refined: no second estimate
                done = Future()
                done.set_result(self.estimates[key])
                return done
            self.quick += 1
            if self.apart is not None:  # refined once the balance process is ready (W-76)
                self.deferred[key] = (document, table_id)
                while len(self.deferred) > KEPT:
                    self.deferred.popitem(last=False)
            job = Job(key, document, table_id, keep=False, compiled=False, waiting=self.waiting)
            return self._queue(job)

    def queue(self, job: Job) -> Future[Answer]:
        """Queue ``job`` among its table's balances, a step a turn (F-53; a proposal's, W-78)."""
        with self.lock:
            return self._queue(job)

    def refine(self) -> None:
        """The fast engines are there: start the balances given as first estimates (W-76).

        The page asks again after a first estimate (``provisional``) and joins it or reads it.
        """
        with self.lock:
            for key, (document, table_id) in self.deferred.items():
                if key not in self.kept and key not in self.running:
                    self._start(key, document, table_id)
            self.deferred.clear()
            self.estimates.clear()

    def close(self) -> None:
        """The server stops: its balance process with it (W-76)."""
        if self.apart is not None:
            self.apart.close()

    def changed(self, encounter_id: int) -> None:
        """An encounter changed: start its balance early if it is watched (any thread)."""
        with self.lock:
            watched = self.watched.get(encounter_id)
            if watched is not None and time.monotonic() - watched[1] > WATCH_SECONDS:
                del self.watched[encounter_id]
                watched = None
        if watched is not None:
            self.pool.submit(self._early, encounter_id, watched[0], watched[2])

    def _early(self, encounter_id: int, runs: int, table_id: int) -> None:
        if not self.ready.is_set():  # no early start while the kernels compile (F-52)
            return
        document = self.table.store.export_encounter(encounter_id)
        records = document["records"]
        last = (records[-1].get("command") or {}).get("kind") if records else None
        if last not in ROSTER_KINDS:
            return
        key = (encounter_id, len(records), runs)
        with self.lock:
            if key not in self.kept and key not in self.running:
                self.started += 1
                self._start(key, document, table_id)

    def _start(self, key: Key, document: dict[str, Any], table_id: int) -> Future[Answer]:
        """Queue the balance of ``key``, joinable while it runs (call with the lock held)."""
        future = self._queue(Job(key, document, table_id, runner=self.runner))
        self.running[key] = future
        return future

    def _queue(self, job: Job) -> Future[Answer]:
        """Add ``job`` to its table's balances; the table gets a turn if it had none (F-53)."""
        balances = self.tables.setdefault(job.table_id, deque())
        balances.append(job)
        if len(balances) == 1:
            self.pool.submit(self._turn, job.table_id)
        return job.future

    def _turn(self, table_id: int) -> None:
        """One slice of the table's first balance; then the table's next turn, behind the others.

        Each table with balances under way has exactly one turn queued on the balance thread,
        which runs turns in order: the tables take turns, a slice each (F-53), and a table's
        own balances take turns among its slices.
        """
        with self.lock:
            job = self.tables[table_id].popleft()
        try:
            finished = job.step()
            self.trace.append((table_id, job.key[0]))
        except SimulationError as error:
            finished, job.found = True, error
        except BaseException as error:  # reported to whoever waits (a 500 there)
            finished, job.failed = True, error
        with self.lock:
            balances = self.tables[table_id]
            if finished:
                self._finish(job)
            else:
                balances.append(job)
            if balances:
                self.pool.submit(self._turn, table_id)
            else:
                del self.tables[table_id]
        if finished:
            job.settle()

    def _finish(self, job: Job) -> None:
        """A balance is over: kept (a first estimate apart), no longer joinable (lock held)."""
        if job.keep:
            self.running.pop(job.key, None)
        found = job.found
        if not isinstance(found, dict):
            return
        if job.keep:
            kept = self.kept
        elif self.apart is not None and not self.ready.is_set():
            kept = self.estimates  # the page asks again until it is refined (W-77)
        else:
            return
        kept[job.key] = found
        while len(kept) > KEPT:
            kept.popitem(last=False)


@dataclass(eq=False)
class Job:
    """One balance under way: its slices (:class:`~tableside.simulate.balance.Sliced`)."""

    key: Key
    document: dict[str, Any]
    table_id: int
    keep: bool = True  # kept once done (a first estimate while compiling is not, F-52)
    compiled: bool = True
    waiting: str = COMPILING  # why a first estimate (F-52, W-76)
    runner: Runner = HERE  # where its fast slices play (W-76; a first estimate's, here)
    sliced: Sliced | None = None
    found: Answer | None = None
    failed: BaseException | None = None
    future: Future[Answer] = field(default_factory=Future)

    def step(self) -> bool:
        """Play one slice (the first builds the balance); whether the balance is over."""
        if self.sliced is None:
            runs = self.key[2]
            self.sliced = Sliced(self.document, runs, FULL_ENGINE_RUNS, self.compiled,  # F-24
                                 self.runner, self.waiting)  # fmt: skip
        self.sliced.step()
        if not self.sliced.finished:
            return False
        self.found = {"encounter": self.key[0], **self.sliced.result()}
        return True

    def settle(self) -> None:
        """Give the balance (or its failure) to whoever waits."""
        if self.failed is not None:
            self.future.set_exception(self.failed)
        else:
            assert self.found is not None
            self.future.set_result(self.found)


def compile_apart() -> None:
    """Compile the kernels in a process of its own, at a lower priority, and wait (F-52).

    It does ``tableside warm``'s work; a failure is logged (the first balance then compiles).
    """
    code = "from tableside.simulate.balance import warm; warm()"
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL) as child:
        if hasattr(os, "setpriority"):
            with contextlib.suppress(OSError):  # not allowed here: at the same priority
                os.setpriority(os.PRIO_PROCESS, child.pid, COMPILE_NICENESS)
        if child.wait() != 0:
            LOG.warning("compiling the simulator's kernels failed (exit %s)", child.returncode)


def add_balance(app: FastAPI, table: WebTable, apart: bool = False) -> None:
    """Register the balance endpoint on the application (and its early starts, F-23).

    ``apart``: balances play in a process of their own (W-76), as ``tableside serve`` asks.
    """
    balances = Balances(table, Apart() if apart else None)
    app.state.balances = balances
    table.notifier.listeners.append(balances.changed)

    @app.get("/api/encounters/{encounter_id}/balance", response_model=None)
    def encounter_balance_api(
        encounter_id: int,
        runs: Annotated[str | None, Query()] = None,
        authorization: Authorization = None,
    ) -> dict[str, Any] | JSONResponse:
        who = who_at(
            table, authorization, encounter_id, "see the balance (it reads secret NPC values)"
        )
        count = runs_asked(runs)
        document = table.store.export_encounter(encounter_id)
        found = balances.answer(encounter_id, count, document, who.table_id)
        if isinstance(found, SimulationError):
            return JSONResponse({"error": str(found)}, status_code=UNSIMULABLE)
        return found
