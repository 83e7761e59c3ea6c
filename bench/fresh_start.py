"""A server's start, fresh and after set-up (issue 26, F-52, W-76): memory and the first balance.

``tableside serve --demo`` (as ``make run`` starts it; a subprocess on a SQLite file) is started
twice: with the machine set up (the kernels compiled by ``tableside warm``, as ``make setup``
leaves it), and as on a fresh machine (``XDG_CACHE_HOME`` and ``HOME`` pointed at an empty
folder: no kernels, no marker, so the kernels are compiled in a process of their own). For each
it prints the seconds until the server answers and its resident memory then (VmRSS); the
seconds the first Balance request (``GET …/balance?runs=2000`` of the example 4-against-4 War,
asked as soon as the War is loaded) took, from the request and from the server's launch, and
which engine answered; the server's memory after its first fight page and its first command (a
Move); when the first fast answer came; the server's peak (VmHWM) and, apart, the peaks of its
balance process (W-76) and of the compiling process, which are not the server's.

``--before PATH`` measures another ``tableside`` (the code before a change, say) the same way in
the same run, first: its figures are the baseline printed beside these.
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


def roles(pid: int) -> dict[str, list[int]]:
    """The server's child processes by role: balance process, compiler, other."""
    found: dict[str, list[int]] = {"balance process": [], "compiler": [], "other": []}
    for child in children(pid):
        try:
            line = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "spawn_main" in line:
            found["balance process"].append(child)
        elif "import warm" in line:
            found["compiler"].append(child)
        else:
            found["other"].append(child)  # multiprocessing's resource tracker
    return found


class Peaks:
    """The peaks (VmHWM, MB) of the server's child processes by role, read while they live."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak: dict[str, float] = {}

    def read(self) -> None:
        """Read every child's peak now."""
        for role, pids in roles(self.pid).items():
            for child in pids:
                self.peak[role] = max(self.peak.get(role, 0.0), memory(child, "VmHWM"))


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


def fast_answer(
    http: httpx.Client, path: str, host: dict[str, str], began: float, patience: float,
    peaks: Peaks,
) -> float | None:  # fmt: skip
    """Ask the balance every 2 s until the fast engines answer; the seconds from the launch."""
    while time.perf_counter() - began < patience:
        peaks.read()
        if http.get(path, headers=host).json().get("engine") == "fast":
            return time.perf_counter() - began
        time.sleep(2.0)
    return None


def run(label: str, tableside: str, env: dict[str, str], patience: float) -> None:
    """Start ``tableside serve --demo`` and print its figures in one line."""
    port = free_port()
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        argv = [tableside, "serve", "--demo", "--port", str(port), "--db", f"{folder}/f.db"]
        with started(argv, port, env, "/openapi.json") as (base, pid):
            up = time.perf_counter() - began
            rss = memory(pid, "VmRSS")
            peaks = Peaks(pid)
            http = httpx.Client(base_url=base, timeout=120)
            tid, eid, host = war(http)
            path = f"/api/encounters/{eid}/balance?runs=2000"
            asked = time.perf_counter()
            first: Any = http.get(path, headers=host).json()
            took, since = time.perf_counter() - asked, time.perf_counter() - began
            used = first_use(http, pid, tid, eid, host)
            fast_after = None if first.get("engine") == "fast" else (
                fast_answer(http, path, host, began, patience, peaks))  # fmt: skip
            peaks.read()
            peak = memory(pid, "VmHWM")
            http.close()
            left = children(pid)  # a compiler still at work when patience ran out
        for child in left:
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGTERM)
    fast = "" if fast_after is None else f"; the first fast answer {fast_after:.0f} s after launch"
    apart = "".join(f"; {role}'s peak {mb:.0f} MB" for role, mb in peaks.peak.items() if mb)
    print(f"{label:<40} up in {up:5.1f} s, {rss:4.0f} MB then; first balance {took:4.2f} s"
          f" ({since:4.1f} s after launch; {first.get('engine')}, {first.get('runs')} runs"
          f"{', provisional' if first.get('provisional') else ''}); {used};"
          f" server's peak {peak:4.0f} MB{fast}{apart};"
          f" load average {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--patience", type=float, default=900.0,
                        help="seconds to wait for the first fast answer")  # fmt: skip
    parser.add_argument("--fresh-only", action="store_true")
    parser.add_argument("--set-up-only", action="store_true")
    parser.add_argument("--before", help="another tableside executable: the baseline, first")
    args = parser.parse_args()
    env = {**os.environ, **UNTHROTTLED}
    env.pop("TABLESIDE_WARM", None)
    codes = ([("before", args.before)] if args.before else []) + [("after", TABLESIDE)]
    if not args.fresh_only:
        for code, tableside in codes:
            run(f"set up (tableside warm ran), {code}", tableside, env, args.patience)
    if args.set_up_only:
        return
    for code, tableside in codes:
        with tempfile.TemporaryDirectory() as home:
            fresh = {**env, "XDG_CACHE_HOME": f"{home}/cache", "HOME": home}
            run(f"fresh machine (nothing compiled), {code}", tableside, fresh, args.patience)


if __name__ == "__main__":
    main()
