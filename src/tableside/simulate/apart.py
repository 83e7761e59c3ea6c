"""Balances played in a process of their own (issue 26, W-76).

The web server never imports numba nor holds the fast engines' kernels or the Strike tables
they build: a served app (``tableside serve``) hands every slice of a balance
(:func:`~tableside.simulate.balance.play_slice`) and the question whether the fast engines play
an encounter (:func:`~tableside.simulate.balance.covered_document`) to one balance process,
started (``spawn``: a fresh interpreter, nothing of the server's threads or memory) when the
server warms the simulator. The server's balance thread still chooses which slice runs next,
so tables take turns as before (F-53); the figures depend only on the document, the runs and
the seed, so they are the same in either process. The values of a "make it even" proposal
(F-54) are played there too, one call each, taking turns with the balances' slices (W-78).
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from tableside.simulate.balance import covered_document, play_slice, warm
from tableside.simulate.runs import SimulationError
from tableside.simulate.sweep import _point


def quiet() -> None:
    """The balance process ignores Ctrl+C: the server that started it ends it (:meth:`Apart.close`).

    A Ctrl+C in a terminal reaches every process of the server's group; the server then stops
    and ends its balance process itself, which would otherwise print a traceback as it went.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def loaded() -> int:
    """The balance process's warm-up (F-25): the kernels loaded; its process id."""
    warm()
    return os.getpid()


class Apart:
    """One balance process, started when first asked (a :class:`~balance.Runner`)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pool: ProcessPoolExecutor | None = None
        self.pid: int | None = None  # the balance process, once warmed (the bench reads it)

    def executor(self) -> ProcessPoolExecutor:
        """The balance process's executor, started now if there is none."""
        with self.lock:
            if self.pool is None:
                context = multiprocessing.get_context("spawn")
                self.pool = ProcessPoolExecutor(1, mp_context=context, initializer=quiet)
            return self.pool

    def call(self, job: Callable[..., Any], *args: Any) -> Any:
        """``job(*args)`` in the balance process; what it returned (its error raised here).

        Raises:
            SimulationError: The balance process stopped (killed, out of memory): one sentence,
                and the next call starts another.
        """
        pool = self.executor()
        try:
            return pool.submit(job, *args).result()
        except BrokenProcessPool:
            with self.lock:
                if self.pool is pool:
                    self.pool, self.pid = None, None
            raise SimulationError(
                "The balance process stopped before it answered; ask for the balance again."
            ) from None

    def warm(self) -> None:
        """Start the balance process and load the fast engines there (F-25)."""
        self.pid = self.call(loaded)

    def covered(self, document: dict[str, Any]) -> str | None:
        """:func:`~tableside.simulate.balance.covered_document` in the balance process."""
        found: str | None = self.call(covered_document, document)
        return found

    def play(self, document: dict[str, Any], count: int, seed: int, engine: str) -> dict[str, Any]:
        """:func:`~tableside.simulate.balance.play_slice` in the balance process."""
        found: dict[str, Any] = self.call(play_slice, document, count, seed, engine)
        return found

    def point(self, document: dict[str, Any], runs: int, seed: int | None) -> dict[str, Any]:
        """One value of a "make it even" proposal (F-54) on the fast engine, here (W-78).

        The call the proposal makes in one process (``sweep._point``, one worker), so the
        figures are the same.
        """
        found: dict[str, Any] = self.call(_point, document, runs, seed, "fast", None, 1)
        return found

    def close(self) -> None:
        """Stop the balance process now: the slices queued are dropped, the one running too.

        The process is ended first, so a stopping server never waits for a balance; then the
        executor is shut down and collected, which releases its queues' semaphores.
        """
        with self.lock:
            pool, self.pool, self.pid = self.pool, None, None
        if pool is None:
            return
        for pid in list(getattr(pool, "_processes", None) or {}):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        pool.shutdown(wait=True, cancel_futures=True)
        del pool
        gc.collect()
