"""What a Strike or an attack costs the server against a ``stance``, whether its choices are given,
automatic or asked (issue 21: at most 2x a stance).

Every figure is a ratio to the ``stance`` measured in the same process, in the same run.

In process, on a WebTable over a SQLite file (no HTTP), each request made as the server makes
it: the token authorised (``at_encounter``, the request's first read), then the call. A War:
Herald (a player's) and Warrior (an NPC) 2" apart on Herald's Turn; a Realm of Strife fight:
Aldric (a player's) and a Goblin (an NPC) in base contact on Aldric's Turn. Each case is sent
``--repeat`` times, the Host undoing it after each, and the process CPU time
(``time.process_time``) of the request is reported per command (median and mean):

- ``stance``: the Host's ``stance`` for Herald (the baseline);
- ``strike, given``: the Host's Strike with the Target's choices in its arguments;
- ``strike, automatic``: Herald's player's Strike, the NPC's choices taken at once (the default);
- ``strike, asked``: the same Strike with NPC decisions asked of the Host: the command (202),
  then the Host's read of its card (``GET …/decisions``, the options' effects computed there) and
  its one submission of both answers, each reported, and the three together;
- the same four for Aldric's ``attack`` on the Goblin (the Goblin's Reaction);
- ``attack, NPC automatic, HP changed``: that attack after the Host set both models' HP to a
  pair not seen before (not counted), as in play where each attack finds the foe's HP lowered.

``--http``: the same cases against ``tableside serve`` (SQLite), the server's CPU (``/proc``)
around each request, with the ratio to a ``stance`` over HTTP.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from tableside.encounter.log import Command
from tableside.encounter.roster import character_doc
from tableside.store import Store
from tableside.web.auth import Principal
from tableside.web.table import WebTable

HERALD = {"might": 42, "swiftness": 45, "control": 30}
WARRIOR = {"might": 56, "swiftness": 22, "control": 40}
STRIKE = {"striker": "Herald", "defender": "Warrior"}
ATTACK = {"attacker": "Aldric", "attacks": [{"defender": "Goblin"}]}
Where = tuple[int, dict[str, str], dict[str, str]]  # over HTTP: encounter, Host's, player's headers


@dataclass
class Scene:
    """One encounter at its table: the Host's and the player's tokens."""

    table: WebTable
    eid: int
    host: str
    player: str

    def who(self, token: str) -> Principal:
        """The request's first read: the token authorised at the encounter."""
        return self.table.at_encounter(token, self.eid)[0]

    def request(self, token: str, method: Callable[..., Any], *args: Any) -> Any:
        """One request as the server makes it: the token authorised, then ``method``."""
        return method(self.who(token), self.eid, *args)


def war_scene(table: WebTable) -> Scene:
    """A War on Herald's Turn: Herald (Ann's) and Warrior (an NPC)."""
    table_id, host_token = table.create_table("Cost")
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
    return Scene(table, info.id, host_token, token)


def strife_scene(table: WebTable) -> Scene:
    """A Realm of Strife fight on Aldric's Turn: Aldric (Al's) and a Goblin (an NPC)."""
    table_id, host_token = table.create_table("Cost")
    host = Principal(table_id, None)
    _seat, token = table.add_player(host, table_id, "Al", ("Aldric",))
    info = table.create_encounter(host, table_id, "strife-combat", "Cost", 7)
    for name, side, at in (("Aldric", "heroes", [0, 0, 0]), ("Goblin", "monsters", [1, 0, 0])):
        add = {"id": name, "model": name, "side": side, "position": at}
        table.execute(host, info.id, Command("add", add), None)
    table.execute(host, info.id, Command("start"), None)
    for _ in range(4):
        if table.state(info.id, host).get("current") == "Aldric":
            break
        table.execute(host, info.id, Command("next"), None)
    return Scene(table, info.id, host_token, token)


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    """The CPU seconds ``call`` took, and what it answered."""
    start = time.process_time()
    answer = call()
    return time.process_time() - start, answer


def report(label: str, samples: list[float], stance: float | None) -> float:
    """One line: median and mean CPU ms, and the ratio to a stance's median."""
    median = statistics.median(samples) * 1000
    mean = statistics.fmean(samples) * 1000
    ratio = "" if stance is None else f"  {median / stance:5.2f}x a stance"
    print(f"{label:<46} median {median:6.2f} ms  mean {mean:6.2f} ms{ratio}", flush=True)
    return median


def sent(scene: Scene, token: str, command: Command) -> float:
    """CPU of one request of ``command`` by ``token`` (the Host undoes it after, not counted)."""
    took, _answer = timed(partial(scene.request, token, scene.table.execute, command, None))
    scene.table.step_back(scene.who(scene.host), scene.eid, None, redo=False)
    return took


def hurt_then_sent(scene: Scene, token: str, command: Command, round_: int) -> float:
    """CPU of ``command`` after the Host set both models' HP to a pair not seen before (an
    attack as in play: the foe's HP lowered since the last one); the set and undos not counted."""
    host = scene.who(scene.host)
    for model, hp in (("Goblin", 1 + round_ % 8), ("Aldric", 30 - round_ // 8 % 30)):
        set_hp = Command("host_set", {"id": model, "field": "hp", "value": hp})
        scene.table.execute(host, scene.eid, set_hp, None)
    took = sent(scene, token, command)
    for _ in range(2):
        scene.table.step_back(host, scene.eid, None, redo=False)
    return took


ASKED = ("the command (202)", "the Host reads its card", "one submission of answers")


def asked(scene: Scene, command: Command) -> list[float]:
    """The player's command waiting for the Host (202), the Host's card read and its answers
    (NPC decisions asked in ``scene``), undone after."""
    table = scene.table
    took, answer = timed(partial(scene.request, scene.player, table.execute, command, None))
    assert "pending" in answer, answer
    read, seen = timed(partial(scene.request, scene.host, table.decisions))
    answers = {q["id"]: q["suggested"] for q in seen["decisions"]}
    sending, _ = timed(partial(scene.request, scene.host, table.answer_decisions, answers))
    table.step_back(scene.who(scene.host), scene.eid, None, redo=False)
    return [took, read, sending]


def cases(war: Scene, fight: Scene) -> Iterator[tuple[str, Scene, str, Command]]:
    """The commands measured: label, scene, who sends it and the command."""
    yield (
        "strike, choices given (Host)",
        war,
        war.host,
        Command("strike", {**STRIKE, "obstruction": 0, "mode": "best"}),
    )
    yield "strike, NPC automatic (player)", war, war.player, Command("strike", STRIKE)
    given = {**ATTACK, "attacks": [{"defender": "Goblin", "reaction": None}]}
    yield "attack, Reaction given (Host)", fight, fight.host, Command("attack", given)
    yield "attack, NPC automatic (player)", fight, fight.player, Command("attack", ATTACK)


def run(repeat: int) -> None:
    """Every case once per round, ``repeat`` rounds: a busy machine slows them alike."""
    with tempfile.TemporaryDirectory() as folder:
        table = WebTable(Store.open(f"sqlite:///{folder}/cost.db"))
        try:
            war, fight = war_scene(table), strife_scene(table)
            war_asks, fight_asks = war_scene(table), strife_scene(table)
            for scene in (war_asks, fight_asks):
                table.set_settings(scene.who(scene.host), scene.eid, {"npcs_decide": "ask"})
            singles = [("stance (Host)", war, war.host, Command("stance", {"id": "Herald"})),
                       *cases(war, fight)]  # fmt: skip
            waits = (("strike", war_asks, Command("strike", STRIKE)),
                     ("attack", fight_asks, Command("attack", ATTACK)))  # fmt: skip
            samples: dict[str, list[float]] = {}
            for round_ in range(repeat):
                for label, scene, token, command in singles:
                    samples.setdefault(label, []).append(sent(scene, token, command))
                label = "attack, NPC automatic, HP changed (player)"
                took = hurt_then_sent(fight, fight.player, Command("attack", ATTACK), round_)
                samples.setdefault(label, []).append(took)
                for what, scene, command in waits:
                    parts = asked(scene, command)
                    for part, took in zip((*ASKED, "all three"), (*parts, sum(parts)),
                                          strict=True):  # fmt: skip
                        samples.setdefault(f"{what}, NPC asked: {part}", []).append(took)
            print("In process (WebTable, SQLite), CPU per request, cases alternated:", flush=True)
            stance = report("stance (Host)", samples.pop("stance (Host)"), None)
            for label, found in samples.items():
                report(label, found, stance)
        finally:
            table.store.close()


def over_http(repeat: int) -> None:
    """The same cases against ``tableside serve`` (SQLite): the server's CPU per request.

    The server's CPU (``/proc``) is read before and after each request (not its undo), and the
    differences summed: the ticks' granularity averages out over the repeats.
    """
    import httpx2 as httpx
    from web_load import cpu_seconds, server

    with (
        tempfile.TemporaryDirectory() as folder,
        server(f"sqlite:///{folder}/c.db", 1) as (
            base,
            pid,
        ),
    ):
        http = httpx.Client(base_url=base, timeout=30)

        def scene(game: str, player: str, plays: str, adds: list[dict[str, Any]]) -> tuple[
            int, dict[str, str], dict[str, str]
        ]:  # fmt: skip
            made = http.post("/api/tables", json={"name": "Cost"}).json()
            host = {"Authorization": f"Bearer {made['host_token']}"}
            tid = made["id"]
            seat = http.post(f"/api/tables/{tid}/players", headers=host,
                             json={"name": player, "characters": [plays]}).json()  # fmt: skip
            mine = {"Authorization": f"Bearer {seat['token']}"}
            new = {"game": game, "name": "Cost", "seed": 7}
            eid = http.post(f"/api/tables/{tid}/encounters", headers=host, json=new).json()["id"]
            for body in adds:
                r = http.post(f"/api/encounters/{eid}/commands", headers=host, json=body)
                assert r.status_code == 200, r.text
            return eid, host, mine

        war_adds = [
            {"kind": "add", "args": {"id": name, "position": at,
                                     "character": character_doc(name, side, weapon, attrs)}}
            for name, side, weapon, at, attrs in (
                ("Herald", "holy", "Sword", [0.0, 0.0, 0.0], HERALD),
                ("Warrior", "fallen", "Axe", [2.0, 0.0, 0.0], WARRIOR),
            )
        ] + [{"kind": "next"}]  # fmt: skip
        war = scene("majesty-war", "Ann", "Herald", war_adds)
        fight_adds = [
            {"kind": "add", "args": {"id": n, "model": n, "side": s, "position": at}}
            for n, s, at in (("Aldric", "heroes", [0, 0, 0]), ("Goblin", "monsters", [1, 0, 0]))
        ] + [{"kind": "start"}]
        fight = scene("strife-combat", "Al", "Aldric", fight_adds)

        def turn_of_aldric(where: tuple[int, dict[str, str], dict[str, str]]) -> None:
            for _ in range(4):
                state = http.get(f"/api/encounters/{where[0]}", headers=where[1]).json()
                if state["state"]["current"] == "Aldric":
                    return
                http.post(f"/api/encounters/{where[0]}/commands", headers=where[1],
                          json={"kind": "next"})  # fmt: skip

        turn_of_aldric(fight)

        def cpu(call: Callable[[], Any]) -> tuple[float, Any]:
            before = cpu_seconds(pid) or 0.0
            answer = call()
            return (cpu_seconds(pid) or 0.0) - before, answer

        def once(where: tuple[int, dict[str, str], dict[str, str]], who: dict[str, str],
                 kind: str, args: dict[str, Any]) -> float:  # fmt: skip
            eid, host, _mine = where
            took, r = cpu(partial(http.post, f"/api/encounters/{eid}/commands", headers=who,
                                  json={"kind": kind, "args": args}))  # fmt: skip
            assert r.status_code == 200, r.text
            http.post(f"/api/encounters/{eid}/undo", headers=host, json={})
            return took

        def waits(where: tuple[int, dict[str, str], dict[str, str]], kind: str,
                  args: dict[str, Any]) -> list[float]:  # fmt: skip
            eid, host, mine = where
            api = f"/api/encounters/{eid}"
            took, r = cpu(partial(http.post, f"{api}/commands", headers=mine,
                                  json={"kind": kind, "args": args}))  # fmt: skip
            assert r.status_code == 202, r.text
            read, r = cpu(partial(http.get, f"{api}/decisions", headers=host))
            answers = {q["id"]: q["suggested"] for q in r.json()["decisions"]}
            sending, r = cpu(partial(http.post, f"{api}/decisions", headers=host,
                                     json={"answers": answers}))  # fmt: skip
            assert r.status_code == 200, r.text
            http.post(f"{api}/undo", headers=host, json={})
            return [took, read, sending]

        war_asks = scene("majesty-war", "Ann", "Herald", war_adds)
        fight_asks = scene("strife-combat", "Al", "Aldric", fight_adds)
        for where in (war_asks, fight_asks):
            http.put(f"/api/encounters/{where[0]}/settings", headers=where[1],
                     json={"npcs_decide": "ask"})  # fmt: skip
        turn_of_aldric(fight_asks)
        given = {**STRIKE, "obstruction": 0, "mode": "best"}
        react = {**ATTACK, "attacks": [{"defender": "Goblin", "reaction": None}]}
        singles: list[tuple[str, Where, dict[str, str], str, dict[str, Any]]] = [
            ("stance (Host)", war, war[1], "stance", {"id": "Herald"}),
            ("strike, choices given (Host)", war, war[1], "strike", given),
            ("strike, NPC automatic (player)", war, war[2], "strike", STRIKE),
            ("attack, Reaction given (Host)", fight, fight[1], "attack", react),
            ("attack, NPC automatic (player)", fight, fight[2], "attack", ATTACK),
        ]
        spent: dict[str, float] = {}
        for _ in range(repeat):
            for label, where, who, kind, args in singles:
                spent[label] = spent.get(label, 0.0) + once(where, who, kind, args)
            for what, where, kind, args in (("strike", war_asks, "strike", STRIKE),
                                            ("attack", fight_asks, "attack", ATTACK)):  # fmt: skip
                for part, took in zip(ASKED, waits(where, kind, args), strict=True):
                    label = f"{what}, NPC asked: {part}"
                    spent[label] = spent.get(label, 0.0) + took
        print("Over HTTP (tableside serve, SQLite), server CPU per request, alternated:",
              flush=True)  # fmt: skip
        stance = spent.pop("stance (Host)") / repeat * 1000
        print(f"HTTP: {'stance (Host)':<46} {stance:6.2f} ms CPU", flush=True)
        for label, total in spent.items():
            ms = total / repeat * 1000
            print(f"HTTP: {label:<46} {ms:6.2f} ms CPU  {ms / stance:5.2f}x a stance", flush=True)
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
