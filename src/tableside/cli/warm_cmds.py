"""``tableside warm``: compile the fast engines now, at set-up, not at the server's first start.

``make setup`` (and so ``make run`` on a fresh machine) runs it after the installation (F-52):
it plays the warm-up War and fight (``simulate.balance.warm``), which compiles the numba kernels
into the user's cache folder and leaves a marker there; a server started later only loads them.
Run again, it only loads them (a few seconds).
"""

from __future__ import annotations

import time

import typer


def warm() -> None:
    """Compile the fast simulators now (make setup runs it), not at the server's first start.

    The kernels go to the user's cache folder (once per installation; F-52).
    """
    from tableside.simulate import balance

    already = balance.warmed()
    began = time.perf_counter()
    balance.warm()
    took = time.perf_counter() - began
    said = "were already compiled; loaded" if already else "compiled and cached"
    typer.echo(f"The fast simulators {said} in {took:.1f} s ({balance.warm_marker().parent}).")
