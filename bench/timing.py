"""Timing helpers shared by the simulator benchmarks (``fast_rate.py``, ``fast_strife_rate.py``)."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def workers_line(label: str, runs: int, play: Callable[[], object], base: float | None) -> float:
    """Print the wall-clock rate of ``play`` (``runs`` runs) and the CPU of its processes.

    The CPU counts this process and its finished worker processes, which shows whether the
    cores were free. ``base``: the rate the ratio is printed against (one worker on as many
    runs). Returns the wall-clock rate.
    """
    load = os.getloadavg()[0]
    began, cpu_self = time.perf_counter(), time.process_time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    play()
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    cpu = time.process_time() - cpu_self + children
    rate = runs / wall
    ratio = "" if base is None else f"  x{rate / base:.2f} one worker on as many runs;"
    print(f"  {label:<26} {runs:>7} runs  {rate:>9,.1f} /s wall{ratio}"
          f"  {runs / cpu:,.1f} /s per CPU second ({cpu / wall:.2f} cores busy)"
          f"; load average {load:.2f} → {os.getloadavg()[0]:.2f}")  # fmt: skip
    return rate
