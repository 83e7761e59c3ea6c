"""A server's start, fresh and after set-up (issue 26, F-52): memory and the first balance.

``tableside serve`` (a subprocess on a SQLite file) is started twice: with the machine set up
(the kernels compiled by ``tableside warm``, as ``make setup`` leaves it), and as on a fresh
machine (``XDG_CACHE_HOME`` and ``HOME`` pointed at an empty folder: no kernels, no marker, so
the server compiles them in a process of its own). For each it prints the seconds until the
server answers, its resident memory then (VmRSS) and its peak over the run (VmHWM), the seconds
the first Balance request (``GET …/balance?runs=2000`` of the example 4-against-4 War) took and
which engine answered, and, fresh, when the first fast answer came. The compiling process's
own peak is printed beside it (it is not the server's). Before the balance, the server's memory
is read again after its first page (the Host's fight page) and its first command (a Move):
what a table's first use costs before any balance (issue 26, W-75).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx
from web_load import TABLESIDE, UNTHROTTLED, free_port, started

EXAMPLE = Path(__file__).parent.parent / "examples" / "war_4v4.json"


def memory(pid: int, field: str) -> float:
    """A ``/proc/<pid>/status`` memory field in MB (0 when the process is gone)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    line = next((x for x in text.splitlines() if x.startswith(field + ":")), "")
    return int(line.split()[1]) / 1024 if line else 0.0


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def war(http: httpx.Client) -> tuple[int, int, dict[str, str]]:
    """A table with the example War loaded; the table, its encounter and the Host's header."""
    made = http.post("/api/tables", json={"name": "Fresh"}).json()
    host = {"Authorization": f"Bearer {made['host_token']}"}
    body = {"game": "majesty-war", "name": "Ford", "seed": 7}
    eid = http.post(f"/api/tables/{made['id']}/encounters", headers=host, json=body).json()["id"]
    document = json.loads(EXAMPLE.read_text())
    r = http.post(f"/api/encounters/{eid}/roster", headers=host, json={"document": document})
    r.raise_for_status()
    return made["id"], eid, host


def first_use(http: httpx.Client, pid: int, tid: int, eid: int, host: dict[str, str]) -> str:
    """The server's memory after its first fight page and after its first command (a Move)."""
    http.get(f"/tables/{tid}/encounters/{eid}", headers=host).raise_for_status()
    page = memory(pid, "VmRSS")
    move = {"kind": "move", "args": {"id": "Herald", "to": [1, 0, 0]}}
    http.post(f"/api/encounters/{eid}/commands", headers=host, json=move)
    return f"after the first page {page:4.0f} MB, the first command {memory(pid, 'VmRSS'):4.0f} MB"


def run(label: str, env: dict[str, str], patience: float) -> None:
    port = free_port()
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        argv = [TABLESIDE, "serve", "--port", str(port), "--db", f"{folder}/f.db"]
        with started(argv, port, env, "/openapi.json") as (base, pid):
            up = time.perf_counter() - began
            rss = memory(pid, "VmRSS")
            http = httpx.Client(base_url=base, timeout=120)
            tid, eid, host = war(http)
            used = first_use(http, pid, tid, eid, host)
            asked = time.perf_counter()
            first: Any = http.get(f"/api/encounters/{eid}/balance?runs=2000", headers=host).json()
            took = time.perf_counter() - asked
            peak_child = 0.0
            fast_after = None
            while first.get("engine") != "fast" and time.perf_counter() - began < patience:
                for child in children(pid):
                    peak_child = max(peak_child, memory(child, "VmHWM"))
                found = http.get(f"/api/encounters/{eid}/balance?runs=2000", headers=host).json()
                if found.get("engine") == "fast":
                    fast_after = time.perf_counter() - began
                    break
                time.sleep(2.0)
            peak = memory(pid, "VmHWM")
            http.close()
            left = children(pid)  # a compiler still at work when patience ran out
        for child in left:
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGTERM)
    fast = "" if fast_after is None else f"; the first fast answer {fast_after:.0f} s after start"
    compiler = f"; the compiling process's peak {peak_child:.0f} MB" if peak_child else ""
    print(f"{label:<34} up in {up:5.1f} s, {rss:4.0f} MB then, {used}, peak {peak:4.0f} MB;"
          f" first balance {took:4.2f} s ({first.get('engine')}, {first.get('runs')} runs)"
          f"{fast}{compiler};"
          f" load average {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--patience", type=float, default=900.0,
                        help="seconds to wait for the first fast answer")  # fmt: skip
    parser.add_argument("--fresh-only", action="store_true")
    parser.add_argument("--set-up-only", action="store_true")
    args = parser.parse_args()
    env = {**os.environ, **UNTHROTTLED}
    env.pop("TABLESIDE_WARM", None)
    if not args.fresh_only:
        run("set up (tableside warm ran)", env, args.patience)
    if args.set_up_only:
        return
    with tempfile.TemporaryDirectory() as home:
        fresh = {**env, "XDG_CACHE_HOME": f"{home}/cache", "HOME": home}
        run("fresh machine (nothing compiled)", fresh, args.patience)


if __name__ == "__main__":
    main()
