"""Loopback ports for the tests' servers: each xdist worker draws from a block of its own.

A port found free by binding and closing a probe may be taken by anyone before the server binds
it; with the suite on several xdist workers, two workers asking the kernel for a free port at
the same moment are the likeliest to collide. So each worker probes only its own block of
ports, below Linux's ephemeral range (32768 and up, where the kernel hands out port 0), and
never offers the same port twice in a run.
"""

from __future__ import annotations

import itertools
import os
import socket

FIRST = 20000  # the blocks lie in 20000 … 32767, below the ephemeral ports
BLOCK = 1500


def worker_index() -> int:
    """The xdist worker's number (gw3: 3), 0 without xdist."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    digits = name.removeprefix("gw")
    return int(digits) % 8 if digits.isdigit() else 0


_NEXT = itertools.count(FIRST + worker_index() * BLOCK + (os.getpid() % 97) * 10)


def free_port() -> int:
    """A loopback port nobody listens on, from this worker's block."""
    start = FIRST + worker_index() * BLOCK
    for _ in range(BLOCK):
        port = start + (next(_NEXT) - start) % BLOCK
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {start} … {start + BLOCK - 1}")
