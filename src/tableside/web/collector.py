"""The served process's garbage collector (SV-14): no pause that grows with the live encounters.

CPython's collector walks its oldest generation whenever the objects promoted there since the
last walk reach a quarter of those it holds. A server keeps its live encounters (their logs and
states: about 3,000 objects a War) in that generation, so under play it walked them every second
or two, each walk a pause of every request of the process that grew with them (37 to 155 ms
with some 240,000 objects, in ``bench/web_load.py``'s 10 s), finding next to nothing there
(0 to 662 objects a walk): the encounters are freed by their reference counts when they are
let go (SV-16).

So ``tableside serve`` (one process or each worker) freezes what start-up built, collects the
young generations less often (every :data:`GEN0` net allocations instead of 700) and never the
oldest on its own: :func:`collect_periodically` walks it every :data:`COLLECT_EVERY` seconds
instead, a pause at a known rate that frees any cycle left there. Tests' apps keep Python's own
settings.
"""

from __future__ import annotations

import asyncio
import gc

GEN0 = 10_000
"""Net allocations of tracked objects between two collections of the youngest generation."""
GEN1 = 10
"""Collections of the youngest generation between two of the middle one (Python's own)."""
NEVER = 2**30
"""The oldest generation's threshold: never reached, so never walked on Python's own rule."""
COLLECT_EVERY = 60.0
"""Seconds between two walks of every generation by :func:`collect_periodically`."""


def tune() -> None:
    """Freeze what start-up built and leave the oldest generation to the periodic walk.

    What is frozen is never walked again; it lives until the process exits, which then ends at
    once instead of spending seconds collecting it (W-27).
    """
    gc.freeze()
    gc.set_threshold(GEN0, GEN1, NEVER)


async def collect_periodically(every: float = COLLECT_EVERY) -> None:
    """Walk every generation every ``every`` seconds, for as long as the server runs."""
    while True:
        await asyncio.sleep(every)
        gc.collect()
