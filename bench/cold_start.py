"""Cold start of the exact odds (issue 15: any first law under 50 ms), fresh processes.

Each figure is the first call in a fresh Python process (imports done before the clock starts,
as in a running server), once with the disk cache off (``TABLESIDE_CACHE=off``) and once with
it warm (a folder filled by an earlier process):

* a War Strike law: ``majesty.odds.strike_odds`` (Sword against Axe, ``best``);
* a Realm of Strife attack law: ``strife.odds.attack_odds`` (Aldric's Long Sword on a Goblin);
* the web's first odds request: ``POST /api/encounters/{eid}/odds`` through ``create_app`` on
  a fresh SQLite file (a War Strike between two combatants in Melee Range, and a Realm of
  Strife attack), the table, the encounter and its combatants made before the clock starts.

The web server builds the shared tables on a thread of its own when it starts (F-22); the
timed request comes after that thread has finished, as in a server started a while ago.

Run: ``python bench/cold_start.py [--repeat N]`` (the best and the worst of N processes; the
CPU time is the whole process's during the call, steadier than the wall clock when the machine
is shared).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap

WAR_LAW = """
from tableside.majesty.catalog import builtin_catalog
from tableside.majesty.character import Attributes, Character, Side
from tableside.majesty.odds import strike_odds
from tableside.majesty.strike import StrikeSetup
import tableside.simulate  # installs the disk cache, as the CLI and the web server do
catalog = builtin_catalog()
a = Character("A", Attributes(42, 31, 30, 60, 40, 40), weapon="Sword")
d = Character("D", Attributes(56, 22, 40, 60, 40, 40), weapon="Axe", side=Side.FALLEN)
setup = StrikeSetup(a, d, catalog.weapon("Sword"), catalog.weapon("Axe"))
began, cpu = time.perf_counter(), time.process_time()
strike_odds(setup)
"""

STRIFE_LAW = """
from tableside.strife.attack import AttackSetup
from tableside.strife.catalog import builtin_catalog
from tableside.strife.odds import attack_odds
import tableside.simulate
catalog = builtin_catalog()
setup = AttackSetup(catalog.combatant("Aldric"), catalog.combatant("Goblin"),
                    catalog.weapon("Long Sword"))
began, cpu = time.perf_counter(), time.process_time()
attack_odds(setup)
"""

WEB = """
from fastapi.testclient import TestClient
from tableside.web import create_app
client = TestClient(create_app("sqlite:///" + FOLDER + "/bench.db"))
client.__enter__()
table = client.post("/api/tables", json={"name": "Bench"}).json()
auth = {"Authorization": "Bearer " + table["host_token"]}
def made(game):
    r = client.post(f"/api/tables/{table['id']}/encounters", headers=auth,
                    json={"game": game, "name": "Cold", "seed": 1})
    return r.json()["id"]
def run(eid, kind, args):
    r = client.post(f"/api/encounters/{eid}/commands", headers=auth,
                    json={"kind": kind, "args": args})
    assert r.status_code == 200, r.text
def character(name, side, weapon, might):
    return {"format": "tableside/majesty-character", "version": 1, "name": name, "side": side,
            "weapon": weapon, "attributes": {"might": might, "swiftness": 31, "control": 30,
            "endurance": 60, "resolve": 40, "passion": 40}}
if GAME == "war":
    eid = made("majesty-war")
    run(eid, "add", {"id": "Herald", "character": character("Herald", "holy", "Sword", 42),
                     "position": [0, 0, 0]})
    run(eid, "add", {"id": "Warrior", "character": character("Warrior", "fallen", "Axe", 56),
                     "position": [2, 0, 0]})
    run(eid, "next", {})
    state = client.get(f"/api/encounters/{eid}", headers=auth).json()["state"]
    striker = state["current"] or "Herald"
    other = "Warrior" if striker == "Herald" else "Herald"
    body = {"kind": "strike", "args": {"striker": striker, "defender": other}}
else:
    eid = made("strife-combat")
    run(eid, "add", {"id": "Aldric", "side": "heroes", "model": "Aldric", "position": [0, 0, 0]})
    run(eid, "add", {"id": "Gob", "side": "monsters", "model": "Goblin", "position": [0.9, 0, 0]})
    run(eid, "start", {})
    state = client.get(f"/api/encounters/{eid}", headers=auth).json()["state"]
    attacker = state.get("current") or "Aldric"
    other = "Gob" if attacker == "Aldric" else "Aldric"
    body = {"kind": "attack", "args": {"attacker": attacker, "attacks": [{"defender": other}]}}
warming = getattr(client.app.state, "warming", None)
if warming is not None:
    warming.join()  # the server started a while ago: its start-up warming is over (F-22)
began, cpu = time.perf_counter(), time.process_time()
r = client.post(f"/api/encounters/{eid}/odds", headers=auth, json=body)
assert r.status_code == 200, r.text
"""

CASES = {
    "War Strike law (strike_odds)": (WAR_LAW, ""),
    "Realm of Strife attack law (attack_odds)": (STRIFE_LAW, ""),
    "web: first War odds request": (WEB, "war"),
    "web: first Strife odds request": (WEB, "strife"),
}


def first_ms(body: str, game: str, cache: str) -> tuple[float, float]:
    """Wall and CPU ms of the timed call in a fresh process (``cache``: TABLESIDE_CACHE)."""
    with tempfile.TemporaryDirectory() as folder:
        head = f"import time\nFOLDER = {folder!r}\nGAME = {game!r}\n"
        tail = (
            '\nprint(f"{1000 * (time.perf_counter() - began):.1f} '
            '{1000 * (time.process_time() - cpu):.1f}")\n'
        )
        script = head + textwrap.dedent(body) + tail
        env = {**os.environ, "TABLESIDE_CACHE": cache}
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, check=False)  # fmt: skip
        if out.returncode != 0:
            raise SystemExit(out.stderr)
        wall, cpu = out.stdout.strip().splitlines()[-1].split()
        return float(wall), float(cpu)


def shown(times: list[tuple[float, float]]) -> str:
    """Best and worst wall ms, each with its CPU ms."""
    best, worst = min(times), max(times)
    return f"{best[0]:.1f} ({best[1]:.1f}) / {worst[0]:.1f} ({worst[1]:.1f})"


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per figure")
    args = parser.parse_args()
    print(f"first law in a fresh process: wall ms (CPU ms), best and worst of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"{'':<42} {'no disk cache':>34} {'disk cache':>30}")
    with tempfile.TemporaryDirectory() as cache:
        for label, (body, game) in CASES.items():
            cold = [first_ms(body, game, "off") for _ in range(args.repeat)]
            first_ms(body, game, cache)  # fill the cache
            warm = [first_ms(body, game, cache) for _ in range(args.repeat)]
            print(f"{label:<42} {shown(cold):>34} {shown(warm):>30}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
