"""The set-up page's balance request (issue 15, F-7, F-23, F-25), timed through the web app.

Each line is a fresh Python process running the app as ``tableside serve`` builds it
(``create_app(warm=True)`` on a fresh SQLite file, ``TestClient``) with the roster of
``examples/war_4v4.json`` loaded in three encounters; its start-up warming (the odds tables,
F-22, and the simulator, F-25, unless ``TABLESIDE_WARM=off``) is over before the clock starts.
Timed, wall clock and CPU of the process:

* ``first``: the first ``GET /api/encounters/{eid}/balance?runs=N`` of the process;
* ``warm``: the same roster in another encounter (another seed: a new simulation, every Strike
  table known) — the simulation's own cost;
* ``changed``: the balance after Herald is removed from an encounter whose balance nobody asked
  (no early start: the clock covers the balance request only; a roster not simulated before);
* ``early``: Brute removed from the first encounter, whose balance was asked (F-23's early
  start): from the remove's request to the answer of the balance request that follows it.

Rows: *disk cache off* (``TABLESIDE_CACHE=off``: every Strike table computed); *disk cache
warm*: a copy, for each process, of the cache an earlier process left after the same cases with
other seeds (a server restarted after balancing these rosters); *no warm-up*: the same with
``TABLESIDE_WARM=off``. The load average before each process ends its line; the figures print,
nothing is asserted.

Run: ``python bench/balance_rate.py [--runs N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

SCRIPT = """
import json, time
from pathlib import Path
from fastapi.testclient import TestClient
from tableside.web import create_app

try:
    app = create_app("sqlite:///" + FOLDER + "/balance.db", warm=True)
except TypeError:  # before F-25 (to measure the code before it)
    app = create_app("sqlite:///" + FOLDER + "/balance.db")
client = TestClient(app)
client.__enter__()
client.app.state.warming.join()
table = client.post("/api/tables", json={"name": "Bench"}).json()
auth = {"Authorization": "Bearer " + table["host_token"]}
document = json.loads((Path(ROOT) / "examples" / "war_4v4.json").read_text())
def encounter(seed):
    eid = client.post(f"/api/tables/{table['id']}/encounters", headers=auth,
                      json={"game": "majesty-war", "name": "Bench", "seed": seed}).json()["id"]
    r = client.post(f"/api/encounters/{eid}/roster", headers=auth, json={"document": document})
    assert r.status_code == 201, r.text
    return eid
def balance(eid):
    r = client.get(f"/api/encounters/{eid}/balance?runs={RUNS}", headers=auth)
    assert r.status_code == 200, r.text
    return r.json()
def remove(eid, who):
    r = client.post(f"/api/encounters/{eid}/commands", headers=auth,
                    json={"kind": "remove", "args": {"id": who}})
    assert r.status_code == 200, r.text
def timed(work):
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu
figures = {}
one, two, three = encounter(SEED), encounter(SEED + 1), encounter(SEED + 2)
figures["first"] = timed(lambda: balance(one))
figures["warm"] = timed(lambda: balance(two))
remove(three, "Herald")
figures["changed"] = timed(lambda: balance(three))
figures["early"] = timed(lambda: (remove(one, "Brute"), balance(one)))
print(json.dumps(figures))
"""


def case(cache: str, runs: int, warm: str = "on", seed: int = 1) -> dict[str, list[float]]:
    """The figures of one fresh process (``cache``: TABLESIDE_CACHE, ``warm``: TABLESIDE_WARM;
    the encounters' seeds from ``seed``)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as folder:
        head = f"FOLDER = {folder!r}\nROOT = {root!r}\nRUNS = {runs}\nSEED = {seed}\n"
        env = {**os.environ, "TABLESIDE_CACHE": cache, "TABLESIDE_WARM": warm}
        out = subprocess.run([sys.executable, "-c", head + textwrap.dedent(SCRIPT)], env=env,
                             capture_output=True, text=True, check=False)  # fmt: skip
        if out.returncode != 0:
            raise SystemExit(out.stderr)
        found: dict[str, list[float]] = json.loads(out.stdout.strip().splitlines()[-1])
        return found


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=2000, help="runs per balance (the page's)")
    parser.add_argument("--repeat", type=int, default=2, help="fresh processes per cache")
    args = parser.parse_args()
    print(f"war_4v4 roster, {args.runs} runs per balance; seconds wall (CPU); "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    rows = (("disk cache off", "off", "on"), ("disk cache warm", "", "on"),
            ("warm, no warm-up", "", "off"))  # fmt: skip
    with tempfile.TemporaryDirectory() as cache:
        case(cache, args.runs, seed=101)  # an earlier server: these rosters, other seeds
        for label, chosen, warm in rows:
            for _ in range(args.repeat):
                load = os.getloadavg()[0]
                with tempfile.TemporaryDirectory() as copy:  # each process: the same cache
                    shutil.copytree(cache, copy, dirs_exist_ok=True)
                    found = case(chosen or copy, args.runs, warm)
                cells = "  ".join(f"{k} {w:5.2f} ({c:4.2f})" for k, (w, c) in found.items())
                print(f"  {label:<17} {cells}  load {load:.2f}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
