"""A child writer killed with SIGKILL mid-stream (the crash tests' parent side, issue 23).

The child prints each revision once it is committed, one per line; the parent reads them until
it has seen ``kill_after``, kills the child and reads what the child had printed before it died.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

TIMEOUT_S = 120.0  # a child that prints nothing for this long is killed (the test then fails)


def run_and_kill(argv: list[str], kill_after: int) -> list[int]:
    """Run ``python ARGV``, SIGKILL it after ``kill_after`` committed revisions; all it printed."""
    child = subprocess.Popen(
        [sys.executable, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    watchdog = threading.Timer(TIMEOUT_S, child.kill)
    watchdog.start()
    assert child.stdout is not None and child.stderr is not None
    reported: list[int] = []
    try:
        while len(reported) < kill_after and (line := child.stdout.readline()):
            reported.append(int(line))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        # Read the rest through the same text reader as readline(): communicate() would read the
        # pipe underneath it and miss the lines the reader had already buffered (issue 23).
        rest, errors = child.stdout.read(), child.stderr.read()
    finally:
        watchdog.cancel()
        child.kill()
    assert len(reported) == kill_after, f"the child stopped early: {errors}"
    assert child.returncode == -signal.SIGKILL
    return reported + [int(line) for line in rest.split()]
