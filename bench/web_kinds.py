"""Server CPU per command by kind (issue 26): a state read, a Strike, an answer, an attack.

``tableside serve`` on a SQLite file (a subprocess, as ``web_load.py`` starts it) and, in the
same run, the reference server (``reference_server.py``: parse a JSON command, append one row,
answer). Each request is sent alone, ``--repeat`` times, and the server's CPU (user + system,
its own ``/proc`` file) read before and after it, once its start-up warm-ups are over, and
summed over the ``--repeat`` requests of one kind (the clock ticks' granularity averages out);
``--samples`` rounds of every kind in turn give the median per request (and the range), with
its ratio to the ``stance`` of the same run (issue 21: an attack at most 2x a stance). Undo
after a command (not counted) keeps every repeat on the same state:

- ``state read``: a player's ``GET /api/encounters/{eid}`` of the War;
- ``stance``: the Host's ``stance`` for Herald (a command with no decision: the path alone);
- ``Strike, NPC automatic``: Herald's player Strikes the NPC Warrior (its choices taken at once);
- ``Strike, choices given (Host)`` / ``attack, Reaction given (Host)``: the Host names the
  defender's choices (no Obstruction token, best Adjustments; no Reaction);
- ``Strike, asking a player``: the same Strike when Warrior is a player's (202, its question);
- ``answer``: Warrior's player answers that question (its suggestion; the Strike resolves);
- ``attack``: Aldric's player attacks the NPC Goblin in a Realm of Strife fight (its Reaction
  taken at once);
- ``attack, HP changed``: the same, each after the Host set both models' HP to a pair not met
  lately (not counted), as in play;
- ``reference command``: one command on the reference server.

On SQLite and, when ``TABLESIDE_TEST_POSTGRES_URL`` is set, on PostgreSQL (a scratch schema,
dropped afterwards), one server process each; the reference is SQLite's (its own design).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2 as httpx
from decision_cost import HERALD, WARRIOR
from web_load import TICKS, free_port, server, started

from tableside.encounter.roster import character_doc
from tableside.store.scratch import scratch_schema

Auth = dict[str, str]
STANCE = "stance (the Host's; no decision)"


def auth(token: str) -> Auth:
    return {"Authorization": f"Bearer {token}"}


class Kinds:
    """The War and the fight on one server, and the CPU of requests sent to it."""

    def __init__(self, http: httpx.Client, pid: int, repeat: int) -> None:
        self.http, self.pid, self.repeat = http, pid, repeat
        made = http.post("/api/tables", json={"name": "Kinds"}).json()
        self.tid, self.host = made["id"], auth(made["host_token"])
        self.ann = self.seat("Ann", ["Herald", "Aldric"])
        self.bob = self.seat("Bob", [])
        self.war = self.encounter("majesty-war", 7)
        for name, side, weapon, at, attributes in (
            ("Herald", "holy", "Sword", [0.0, 0.0, 0.0], HERALD),
            ("Warrior", "fallen", "Axe", [2.0, 0.0, 0.0], WARRIOR),
        ):
            doc = character_doc(name, side, weapon, attributes)
            self.command(self.war, self.host, "add", id=name, position=at, character=doc)
        self.command(self.war, self.host, "next")
        self.fight = self.encounter("strife-combat", 5)
        for args in (
            {"id": "Aldric", "model": "Aldric", "side": "heroes", "position": [0, 0, 0]},
            {"id": "Gob", "model": "Goblin", "side": "monsters", "position": [1, 0, 0]},
        ):
            self.command(self.fight, self.host, "add", **args)
        self.command(self.fight, self.host, "start")
        while self.get(f"/api/encounters/{self.fight}", self.host)["state"]["current"] != "Aldric":
            self.command(self.fight, self.host, "next")

    def seat(self, name: str, characters: list[str]) -> Auth:
        body = {"name": name, "characters": characters}
        made = self.http.post(f"/api/tables/{self.tid}/players", headers=self.host, json=body)
        self.seat_ids = {**getattr(self, "seat_ids", {}), name: made.json()["id"]}
        return auth(made.json()["token"])

    def encounter(self, game: str, seed: int) -> int:
        body = {"game": game, "name": game, "seed": seed}
        made = self.http.post(f"/api/tables/{self.tid}/encounters", headers=self.host, json=body)
        return int(made.json()["id"])

    def get(self, path: str, who: Auth) -> Any:
        answer = self.http.get(path, headers=who)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def command(self, eid: int, who: Auth, kind: str, **args: Any) -> Any:
        answer = self.http.post(f"/api/encounters/{eid}/commands", headers=who,
                                json={"kind": kind, "args": args})  # fmt: skip
        assert answer.status_code in (200, 202), answer.text
        return answer.json()

    def answer(self, path: str, question: dict[str, Any]) -> Any:
        answer = self.http.post(path, headers=self.bob, json={"choice": question["suggested"]})
        assert answer.status_code in (200, 202), answer.text
        return answer.json()

    def undo(self, eid: int) -> None:
        assert self.http.post(f"/api/encounters/{eid}/undo", headers=self.host, json={}).is_success

    def cpu(self, call: Callable[[], Any]) -> tuple[float, Any]:
        before = process_cpu(self.pid)
        answer = call()
        return process_cpu(self.pid) - before, answer

    def each(self, call: Callable[[], Any], after: Callable[[Any], None]) -> float:
        """Mean server CPU of ``call`` over ``repeat`` requests, summed (the ticks average out)."""
        spent = 0.0
        for _ in range(self.repeat):
            took, answer = self.cpu(call)
            spent += took
            after(answer)
        return spent / self.repeat

    def asking(self) -> tuple[float, float]:
        """Mean CPU of a Strike that asks Warrior's player (202) and of each answer to it."""
        strike = {"striker": "Herald", "defender": "Warrior"}
        asked: list[float] = []
        answered: list[float] = []
        for _ in range(self.repeat):
            took, sent = self.cpu(lambda: self.command(self.war, self.ann, "strike", **strike))
            asked.append(took)
            while "pending" in sent:  # each question answered by its owner, one by one
                question = sent["pending"][0]
                path = f"/api/encounters/{self.war}/decisions/{question['id']}"
                took, sent = self.cpu(lambda q=question, p=path: self.answer(p, q))  # type: ignore[misc]
                answered.append(took)
            self.undo(self.war)  # the Strike and its answers
        return sum(asked) / self.repeat, sum(answered) / max(1, len(answered))

    def sample(self) -> dict[str, float]:
        """One round: each kind ``repeat`` times in turn, its mean CPU per request."""
        strike = {"striker": "Herald", "defender": "Warrior"}
        attack = {"attacker": "Aldric", "attacks": [{"defender": "Gob"}]}
        war_state = f"/api/encounters/{self.war}"
        found = {
            "state read (a player's)": self.each(lambda: self.get(war_state, self.ann),
                                                 lambda _: None),
            STANCE: self.each(lambda: self.command(self.war, self.host, "stance", id="Herald"),
                              lambda _: self.undo(self.war)),
            "Strike, NPC automatic": self.each(
                lambda: self.command(self.war, self.ann, "strike", **strike),
                lambda _: self.undo(self.war)),
            "Strike, choices given (Host)": self.each(
                lambda: self.command(self.war, self.host, "strike", **strike, obstruction=0,
                                     mode="best"),
                lambda _: self.undo(self.war)),
            "attack, Reaction given (Host)": self.each(
                lambda: self.command(self.fight, self.host, "attack", attacker="Aldric",
                                     attacks=[{"defender": "Gob", "reaction": None}]),
                lambda _: self.undo(self.fight)),
            "attack, NPC Reaction automatic": self.each(
                lambda: self.command(self.fight, self.ann, "attack", **attack),
                lambda _: self.undo(self.fight)),
            "attack, Goblin's HP changed": self.each(
                lambda: self.command(self.fight, self.ann, "attack", **attack),
                lambda _: self.hurt_and_undo()),
        }  # fmt: skip
        self.give_warrior("Bob")
        found["Strike, asking a player (202)"], found["answer (the question's owner)"] = (
            self.asking()
        )
        self.give_warrior(None)
        return found

    def hurt_and_undo(self) -> None:
        """Undo the attack, then set both models' HP to a pair not met lately (as in play, the
        next attack meets new HP; a law kept by HP would be weighed anew)."""
        self.undo(self.fight)
        self.hurts = getattr(self, "hurts", 0) + 1
        for model, hp in (("Gob", self.hurts % 7 + 1), ("Aldric", 30 - self.hurts // 7 % 30)):
            self.command(self.fight, self.host, "host_set", id=model, field="hp", value=hp)

    def give_warrior(self, player: str | None) -> None:
        """Warrior to Bob's seat (his decisions asked of him), or back to the Host (an NPC)."""
        bob = self.seat_ids["Bob"]
        self.http.patch(f"/api/tables/{self.tid}/players/{bob}", headers=self.host,
                        json={"characters": [] if player is None else ["Warrior"]},
                        ).raise_for_status()  # fmt: skip

    def run(self, floor: float, samples: int) -> None:
        """``samples`` rounds of every kind; the median of each kind's means, with its ratio to
        the stance's median in the same run."""
        rounds = [self.sample() for _ in range(samples)]
        stance = statistics.median(r[STANCE] for r in rounds)
        for label in rounds[0]:
            figures = [r[label] for r in rounds]
            middle = statistics.median(figures)
            spread = f"{min(figures) * 1000:5.2f}–{max(figures) * 1000:5.2f}"
            print(f"{label:<36} {middle * 1000:6.2f} ms CPU ({spread})  "
                  f"{middle / stance:4.2f}x a stance", flush=True)  # fmt: skip
        print(f"{'reference command':<36} {floor * 1000:6.2f} ms CPU", flush=True)


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of one process (its own ``/proc`` file only: cheap to read)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def settled(pid: int) -> None:
    """Wait until the server's start-up work (its warm-ups) is over: 1 s with under 20 ms CPU."""
    for _ in range(60):
        before = process_cpu(pid)
        time.sleep(1.0)
        if process_cpu(pid) - before < 0.02:
            return


def reference_cost(repeat: int) -> float:
    """The reference server's CPU per command, sent alone as above."""
    port = free_port()
    script = str(Path(__file__).with_name("reference_server.py"))
    with tempfile.TemporaryDirectory() as folder:
        argv = [sys.executable, script, "--port", str(port), "--db", f"{folder}/ref.db"]
        with started(argv, port, dict(os.environ), "/ready") as (base, pid):
            http = httpx.Client(base_url=base, timeout=30)
            spent = 0.0
            body = {"kind": "strike", "args": {"striker": "Herald", "defender": "Warrior"}}
            for revision in range(repeat):
                before = process_cpu(pid)
                http.post("/api/encounters/1/commands", json={**body, "revision": revision},
                          headers=auth("reference")).raise_for_status()  # fmt: skip
                spent += process_cpu(pid) - before
            http.close()
    return spent / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=100, help="requests per kind per sample")
    parser.add_argument("--samples", type=int, default=5, help="rounds of every kind")
    parser.add_argument("--postgres-only", action="store_true", help="skip the SQLite server")
    args = parser.parse_args()
    floor = reference_cost(args.repeat)
    if not args.postgres_only:
        with tempfile.TemporaryDirectory() as folder:
            measure("SQLite", f"sqlite:///{folder}/k.db", floor, args)
    pg = os.environ.get("TABLESIDE_TEST_POSTGRES_URL")
    if not pg:
        print("PostgreSQL: skipped (set TABLESIDE_TEST_POSTGRES_URL)", flush=True)
        return
    with scratch_schema(pg, prefix="tableside_kinds") as url:
        measure("PostgreSQL, 1 process", url, floor, args)


def measure(backend: str, url: str, floor: float, args: argparse.Namespace) -> None:
    """Every kind's CPU on ``tableside serve`` (one process) on the store at ``url``."""
    load = os.getloadavg()[0]
    print(f"-- {backend}: server CPU per request, median of {args.samples} samples of "
          f"{args.repeat} requests each (range), load {load:.1f}", flush=True)  # fmt: skip
    with server(url, 1) as (base, pid):
        http = httpx.Client(base_url=base, timeout=30)
        kinds = Kinds(http, pid, args.repeat)
        settled(pid)
        kinds.run(floor, args.samples)
        http.close()


if __name__ == "__main__":
    main()
