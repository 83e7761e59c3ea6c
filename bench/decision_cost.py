"""What a Strike costs the server against a ``stance``, whether its choices are given, automatic
or asked (issue 21: at most 2x a stance).

In process, on a WebTable over a SQLite file (no HTTP): Herald (a player's) and Warrior (an NPC)
face each other 2" apart on Herald's Turn. Each case is sent ``--repeat`` times, the Host
undoing it after each, and the process CPU time (``time.process_time``) of the calls the server
makes for it is reported per command (median and mean):

- ``stance``: the Host's ``stance`` for Herald;
- ``strike, given``: the Host's Strike with the Target's choices in its arguments;
- ``strike, automatic``: Herald's player's Strike, the NPC's choices taken at once (the default);
- ``strike, asked``: the same Strike with NPC decisions asked of the Host: the command (202),
  then the Host's read of its card (``GET …/decisions``, the options' effects computed there) and
  its one submission of both answers, each reported, and the three together.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from tableside.encounter.log import Command
from tableside.encounter.roster import character_doc
from tableside.store import Store
from tableside.web.auth import Principal
from tableside.web.table import WebTable

HERALD = {"might": 42, "swiftness": 45, "control": 30}
WARRIOR = {"might": 56, "swiftness": 22, "control": 40}


def set_up(table: WebTable) -> tuple[Principal, Principal, int]:
    """The table, Herald's player and the War on Herald's Turn: (host, player, encounter)."""
    table_id, _token = table.create_table("Cost")
    host = Principal(table_id, None)
    _seat, token = table.add_player(host, table_id, "Ann", ("Herald",))
    info = table.create_encounter(host, table_id, "majesty-war", "Cost", 7)
    for name, side, weapon, at, attributes in (
        ("Herald", "holy", "Sword", [0.0, 0.0, 0.0], HERALD),
        ("Warrior", "fallen", "Axe", [2.0, 0.0, 0.0], WARRIOR),
    ):
        doc = character_doc(name, side, weapon, attributes)
        table.execute(
            host, info.id, Command("add", {"id": name, "position": at, "character": doc}), None
        )
    table.execute(host, info.id, Command("next"), None)
    player, _info = table.at_encounter(token, info.id)
    return host, player, info.id


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    """The CPU seconds ``call`` took, and what it answered."""
    start = time.process_time()
    answer = call()
    return time.process_time() - start, answer


def report(label: str, samples: list[float], stance: float | None) -> float:
    """One line: median and mean CPU ms, and the ratio to a stance's median."""
    median = statistics.median(samples) * 1000
    mean = statistics.fmean(samples) * 1000
    ratio = "" if stance is None else f"  {median / stance:4.2f}x a stance"
    print(f"{label:<44} median {median:6.2f} ms  mean {mean:6.2f} ms{ratio}", flush=True)
    return median


def run(repeat: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        table = WebTable(Store.open(f"sqlite:///{folder}/cost.db"))
        try:
            host, ann, eid = set_up(table)
            strike = {"striker": "Herald", "defender": "Warrior"}

            def case(who: Principal, command: Command) -> list[float]:
                samples = []
                for _ in range(repeat):
                    took, _answer = timed(lambda: table.execute(who, eid, command, None))
                    samples.append(took)
                    table.step_back(host, eid, None, redo=False)
                return samples

            stance = report("stance (Host)", case(host, Command("stance", {"id": "Herald"})),
                            None)  # fmt: skip
            given = Command("strike", {**strike, "obstruction": 0, "mode": "best"})
            report("strike, choices given (Host)", case(host, given), stance)
            report("strike, NPC automatic (player)", case(ann, Command("strike", strike)), stance)
            table.set_settings(host, eid, {"npcs_decide": "ask"})
            asked: dict[str, list[float]] = {"command": [], "read": [], "answers": []}
            for _ in range(repeat):
                took, sent = timed(lambda: table.execute(ann, eid, Command("strike", strike), None))
                asked["command"].append(took)
                took, seen = timed(lambda: table.decisions(host, eid))
                asked["read"].append(took)
                answers = {q["id"]: q["suggested"] for q in seen["decisions"]}
                took, _ = timed(partial(table.answer_decisions, host, eid, answers))
                asked["answers"].append(took)
                assert "pending" in sent
                table.step_back(host, eid, None, redo=False)
            report("strike, NPC asked: the command (202)", asked["command"], stance)
            report("strike, NPC asked: the Host reads its card", asked["read"], stance)
            report("strike, NPC asked: one submission of answers", asked["answers"], stance)
            whole = [sum(t) for t in zip(*asked.values(), strict=True)]
            report("strike, NPC asked: all three", whole, stance)
        finally:
            table.store.close()


def over_http(repeat: int) -> None:
    """The same cases against ``tableside serve`` (SQLite): the server's CPU per command.

    The server's CPU (``/proc``) is read before and after each command (not its undo), and the
    differences summed: the ticks' granularity averages out over the repeats.
    """
    from web_load import cpu_seconds, server

    with (
        tempfile.TemporaryDirectory() as folder,
        server(f"sqlite:///{folder}/c.db", 1) as (
            base,
            pid,
        ),
    ):
        import httpx2 as httpx

        http = httpx.Client(base_url=base, timeout=30)
        made = http.post("/api/tables", json={"name": "Cost"}).json()
        host = {"Authorization": f"Bearer {made['host_token']}"}
        tid = made["id"]
        seat = http.post(f"/api/tables/{tid}/players", headers=host,
                         json={"name": "Ann", "characters": ["Herald"]}).json()  # fmt: skip
        ann = {"Authorization": f"Bearer {seat['token']}"}
        war = {"game": "majesty-war", "name": "Cost", "seed": 7}
        eid = http.post(f"/api/tables/{tid}/encounters", headers=host, json=war).json()["id"]
        for name, side, weapon, at, attributes in (
            ("Herald", "holy", "Sword", [0.0, 0.0, 0.0], HERALD),
            ("Warrior", "fallen", "Axe", [2.0, 0.0, 0.0], WARRIOR),
        ):
            body = {"kind": "add", "args": {"id": name, "position": at,
                                            "character": character_doc(name, side, weapon,
                                                                       attributes)}}  # fmt: skip
            http.post(f"/api/encounters/{eid}/commands", headers=host, json=body)
        http.post(f"/api/encounters/{eid}/commands", headers=host, json={"kind": "next"})
        strike = {"striker": "Herald", "defender": "Warrior"}

        def case(who: dict[str, str], kind: str, args: dict[str, Any]) -> float:
            spent = 0.0
            for _ in range(repeat):
                before = cpu_seconds(pid) or 0.0
                r = http.post(f"/api/encounters/{eid}/commands", headers=who,
                              json={"kind": kind, "args": args})  # fmt: skip
                spent += (cpu_seconds(pid) or 0.0) - before
                assert r.status_code == 200, r.text
                http.post(f"/api/encounters/{eid}/undo", headers=host, json={})
            return spent / repeat * 1000

        stance = case(host, "stance", {"id": "Herald"})
        print(f"HTTP: stance (Host)                    {stance:6.2f} ms CPU", flush=True)
        given = case(host, "strike", {**strike, "obstruction": 0, "mode": "best"})
        print(f"HTTP: strike, choices given (Host)     {given:6.2f} ms CPU  "
              f"{given / stance:4.2f}x a stance", flush=True)  # fmt: skip
        auto = case(ann, "strike", strike)
        print(f"HTTP: strike, NPC automatic (player)   {auto:6.2f} ms CPU  "
              f"{auto / stance:4.2f}x a stance", flush=True)  # fmt: skip
        http.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=40, help="times each case is sent")
    parser.add_argument("--http", action="store_true", help="also against tableside serve")
    args = parser.parse_args()
    run(args.repeat)
    if args.http:
        over_http(args.repeat)


if __name__ == "__main__":
    main()
