"""The set-up page's balance request (issue 15, F-7, F-23), timed through the web app.

Each case is a fresh Python process running the app (``create_app`` on a fresh SQLite file,
``TestClient``) with the roster of ``examples/war_4v4.json`` loaded; its start-up warming of the
odds tables (F-22) is over before the clock starts. Timed, wall clock and CPU of the process:

* ``first``: the first ``GET /api/encounters/{eid}/balance?runs=N`` of the process, with the
  disk cache off (every Strike table built) and with a warm disk cache (tables read back);
* ``warm``: the same roster again in the same process, with one run more (not a kept answer:
  a new simulation, every Strike table known) — the simulation's own cost;
* ``changed``: the balance after a combatant is removed, in the same process (the tables it
  shares with the roster before kept in the process; F-23's early start not used: the clock
  covers the balance request only);
* ``early``: the same with the balance asked before the change, so the server starts it as
  soon as the remove is appended (F-23); the time is from the remove's request to the answer
  of the page's balance request, which joins the simulation under way.

Run: ``python bench/balance_rate.py [--runs N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap

SCRIPT = """
import json, time
from pathlib import Path
from fastapi.testclient import TestClient
from tableside.web import create_app

client = TestClient(create_app("sqlite:///" + FOLDER + "/balance.db"))
client.__enter__()
client.app.state.warming.join()
table = client.post("/api/tables", json={"name": "Bench"}).json()
auth = {"Authorization": "Bearer " + table["host_token"]}
document = json.loads((Path(ROOT) / "examples" / "war_4v4.json").read_text())
def encounter():
    eid = client.post(f"/api/tables/{table['id']}/encounters", headers=auth,
                      json={"game": "majesty-war", "name": "Bench", "seed": 1}).json()["id"]
    r = client.post(f"/api/encounters/{eid}/roster", headers=auth, json={"document": document})
    assert r.status_code == 201, r.text
    return eid
def balance(eid, runs=RUNS):
    r = client.get(f"/api/encounters/{eid}/balance?runs={runs}", headers=auth)
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
one, two = encounter(), encounter()
figures["first"] = timed(lambda: balance(one))
figures["warm"] = timed(lambda: balance(one, RUNS + 1))
remove(one, "Herald")
figures["changed"] = timed(lambda: balance(one))
balance(two)
figures["early"] = timed(lambda: (remove(two, "Herald"), balance(two)))
print(json.dumps(figures))
"""


def case(cache: str, runs: int) -> dict[str, list[float]]:
    """The figures of one fresh process (``cache``: TABLESIDE_CACHE)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as folder:
        head = f"FOLDER = {folder!r}\nROOT = {root!r}\nRUNS = {runs}\n"
        env = {**os.environ, "TABLESIDE_CACHE": cache}
        out = subprocess.run([sys.executable, "-c", head + textwrap.dedent(SCRIPT)], env=env,
                             capture_output=True, text=True, check=False)  # fmt: skip
        if out.returncode != 0:
            raise SystemExit(out.stderr)
        import json

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
    with tempfile.TemporaryDirectory() as cache:
        case(cache, 50)  # fill the disk cache
        for label, chosen in (("disk cache off", "off"), ("disk cache warm", cache)):
            for _ in range(args.repeat):
                found = case(chosen, args.runs)
                cells = "  ".join(f"{k} {w:6.2f} ({c:5.2f})" for k, (w, c) in found.items())
                print(f"  {label:<16} {cells}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
