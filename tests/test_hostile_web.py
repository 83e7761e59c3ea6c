"""Issue 10's hostile-input suite for the web table, against a real ``tableside serve``.

The table (built through the API, tests/hostile.py): a Host, Ann (plays Herald in the War and
Aldric in the fight), Bo (plays nobody), a War with a secret NPC Boss whose Guard, Precision,
Endurance, Resolve, Passion, Might and Control are distinctive numbers, and a Realm of Strife
fight with a secret Brute (distinctive HP, AC, Dodge, Initiative). Eve hosts another table.

Ann, Bo, an anonymous attacker, a forged token and Eve then send (1) the scripted commands that
reach the secret values (best Strikes with Adjustments, break_free and interpose Checks,
refusals, previews with typed dice, odds) and (2) hypothesis-generated mutations of every
endpoint's body, path, method and content type. Every answer is checked as it arrives
(tests/hostile.py: no 5xx, no traceback, JSON ``{"error"}`` refusals that echo no long input,
nothing written on a refusal, no secret number, no answer slower than 5 s, wrong input refused);
at the end each attacker's state, log, options, decisions, map, chat, page and live stream
(sent its token as a Bearer header, W-11) are read and scanned too, and the Host's and Bo's
whispers must not reach Ann's chat or stream (W-30).

Violations are collected and reported together (one line per invariant and request), with the
figures (requests tried, refusals by status, leaks found) printed and written to
``hostile-web-<backend>.json`` in the test's tmp dir. The generation is derandomized
(reproducible in CI); it does not shrink: a live server that hung is killed and restarted, and
shrinking would only hang it again.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from hostile import (
    BRUTE_AC,
    BRUTE_DODGE,
    BRUTE_INITIATIVE,
    HANG,
    HERALD,
    STRONG_TEXT,
    Answer,
    Probe,
    Request,
    Server,
    Tally,
    World,
    build_world,
    fuzz_settings,
    json_body,
    long_inputs,
    settle,
    strong_leaks,
    turn_of,
)
from hypothesis import given
from hypothesis import strategies as st
from patience import EVENT_WAIT
from test_store_support import BACKENDS, database_url

# generated requests per backend (about 40 s on a loaded 2-core machine); more for a longer hunt
EXAMPLES = int(os.environ.get("TABLESIDE_HOSTILE_EXAMPLES", "300"))
ARRANGE_EVERY = 12  # the Host gives Herald and Aldric a Turn again every so many requests
MANEUVERS = ["piercing thrust", "disarm", "lunge", "crushing blow"]
HUGE_INTS = [10**30, 2**63, 2**63 - 1, 2**31, -1, -(2**63) - 1, 10**4999, 10**6]
FLOATS = [math.nan, math.inf, -math.inf, 1e308, -0.0, 0.5]
CONTROL = ["a\x00b", "Ann\x07", "line\nbreak", "\x1b[31mred", "tab\there", "‮evil"]
STRINGS = [
    "",
    " ",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "../../etc/passwd",
    "%00",
    "😀" * 50,
    "L" * 41 + "ong" * 30,
]
WRONG_TYPES: list[Any] = ["yes", "no", "1", 1, None, [], {}, [[[]]]]
BIG = 5_000_000  # bytes of the oversized name (the body limit, item 5, must refuse it: 413)
DEEP = 5000  # levels of the deeply nested body
BOOLEAN_KEYS = {
    "hidden",
    "secret",
    "npcs_secret",
    "ranged",
    "two_ap",
    "full_defensive_stance",
    "on",
    "precision",
    "difficult",
    "separate_rolls",
    "instant",
    "resists",
    "wave",
    "battle_within_2_minutes",
}
NAME_KEYS = {"name", "characters", "id", "striker", "defender", "attacker", "side"}
RULE_COUNTS = {
    "boon",
    "bane",
    "striker_adjustments",
    "defender_adjustments",
    "inspiration",
    "obstruction",
    "ignore_stops",
    "superiority",
    "spell_power",
    "rounds",
    "ap",
}
MALFORMED = [
    b'{"kind":',
    b"\xff\xfe{}",
    b"NaN",
    b"1e999999",
    b'{"a":1}}',
    b"{'kind': 'next'}",
    b"[]",
    b"null",
    b"",
]
OPTIONAL_BODY = ("/undo", "/redo")  # an empty or null body is theirs to accept
WRONG_CONTENT_TYPES = [
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/xml",
]
PUBLIC = ("/api/tables", "/tables", "/")  # routes anyone may POST or GET


# --- the server and the table -------------------------------------------------------------------


@contextmanager
def attacked(backend: str, tmp_path: Path) -> Iterator[tuple[Probe, World]]:
    """``tableside serve`` on a new database of ``backend``, with the table set up."""
    with database_url(backend, tmp_path) as url:
        if backend == "sqlite":
            server = Server(["--db", url.removeprefix("sqlite:///")], {}, tmp_path / "serve.log")
        else:
            server = Server([], {"TABLESIDE_DATABASE_URL": url}, tmp_path / "serve.log")
        server.start()
        probe = Probe(server, Tally())
        try:
            yield probe, build_world(probe)
        finally:
            probe.client.close()
            server.stop()


def api(eid: int, rest: str = "") -> str:
    return f"/api/encounters/{eid}{rest}"


# --- the scripted commands that reach secret values (items 2 and 3) ---------------------------


def post(
    probe: Probe, path: str, body: Any, note: str, who: str = "ann", must_refuse: str | None = None
) -> Answer | None:
    return probe.send(
        Request(who, "POST", path, json_body(body), note=note, must_refuse=must_refuse)
    )


HERALD_READY = [
    {"kind": "host_set", "args": {"id": "Herald", "field": field, "value": value}}
    for field, value in (
        ("ap", 7),
        ("wear_e", 0),
        ("wear_r", 0),
        ("wear_p", 0),
        ("exertion", 0),
        ("falter", 0),
    )
]


def war_secrets_reached(probe: Probe, world: World) -> None:
    """Best Strikes with Adjustments, a refusal, previews, odds, interpose and break_free."""
    strike = {"striker": "Herald", "defender": "Boss"}
    war = world.war
    turn_of(probe, war, "Herald", HERALD_READY)
    for mode in ({"mode": "best", "striker_adjustments": 2}, {"mode": "best"}, {"mode": "none"}):
        post(
            probe,
            api(war, "/preview"),
            {"kind": "strike", "args": {**strike, **mode}, "dice": [12, 9, 3, 8, 1, 10, 11]},
            "preview",
        )
    post(probe, api(war, "/odds"), {"kind": "strike", "args": strike}, "odds vs secret")
    post(
        probe,
        api(war, "/odds"),
        {"kind": "strike", "args": {**strike, "defender": "Ward"}},
        "odds vs open NPC",
    )
    steps = [{"die": 0, "delta": 1, "side": "striker"}] * 5
    post(
        probe,
        api(war, "/commands"),
        {"kind": "strike", "args": {**strike, "mode": "explicit", "steps": steps}},
        "too many",
    )
    proposal = post(
        probe,
        api(war, "/commands"),
        {"kind": "strike", "args": {**strike, "striker_adjustments": 2, "boon": 2}},
        "best Strike, proposing Boon and Adjustments (D-4)",
    )
    if proposal is not None and proposal.status == 202:  # the Host approves Ann's proposal
        settle(probe, war, "approve")
    turn_of(probe, war, "Herald", HERALD_READY)
    post(probe, api(war, "/commands"), {"kind": "stance", "args": {"id": "Herald"}}, "stance")
    interpose = {"id": "Herald", "striker": "Boss", "defender": "Ward"}
    post(
        probe,
        api(war, "/preview"),
        {"kind": "interpose", "args": interpose, "dice": [5] * 7},
        "interpose preview",
    )
    post(probe, api(war, "/commands"), {"kind": "interpose", "args": interpose}, "interpose")
    grappled = {
        "kind": "apply_effect",
        "args": {"id": "Herald", "effect": "grappled", "by": "Boss"},
    }
    turn_of(probe, war, "Herald", [*HERALD_READY, grappled])
    post(
        probe,
        api(war, "/preview"),
        {"kind": "break_free", "args": {"id": "Herald"}, "dice": [5] * 7},
        "break_free preview",
    )
    post(
        probe, api(war, "/commands"), {"kind": "break_free", "args": {"id": "Herald"}}, "break_free"
    )


def extreme_strikes(probe: Probe, world: World) -> None:
    """Item 1: a player's Strike with Boon or Bane past the rules is refused at once (it hung)."""
    released = {"kind": "apply_effect", "args": {"id": "Herald", "effect": "released"}}
    for key in ("boon", "bane"):
        turn_of(probe, world.war, "Herald", [*HERALD_READY, released])
        strike = {"striker": "Herald", "defender": "Boss", "mode": "best", key: 10**30}
        post(
            probe,
            api(world.war, "/commands"),
            {"kind": "strike", "args": strike},
            f"{key} 10**30",
            must_refuse=f"{key} past what the rules use",
        )


def fight_secrets_reached(probe: Probe, world: World) -> list[str]:
    """Previews of Aldric's attack on the secret Brute for many d100 faces, odds, the attack.

    Returns the problems found: a preview whose verdict depends on the face reveals the Brute's
    AC or Dodge (item 3), a field or sentence that shows its AC, Dodge or Initiative (item 2).
    """
    fight = world.fight
    turn_of(probe, fight, "Aldric", [])
    attack = {"attacker": "Aldric", "attacks": [{"defender": "Brute"}]}
    verdicts: dict[str, list[int]] = {}
    for face in range(10, 91, 4):  # clear of the crit and critical-miss ranges
        answer = post(
            probe,
            api(fight, "/preview"),
            {"kind": "attack", "args": attack, "dice": [face, 3, 3, 3, 3, 3]},
            f"preview face {face}",
        )
        if answer is None:
            continue
        verdicts.setdefault(preview_verdict(answer), []).append(face)
    post(probe, api(fight, "/odds"), {"kind": "attack", "args": attack}, "odds vs secret")
    answer = post(probe, api(fight, "/commands"), {"kind": "attack", "args": attack}, "attack")
    problems = []
    if len(verdicts) > 1:
        shown = {v[:60]: faces[:3] for v, faces in verdicts.items()}
        problems.append(
            f"preview oracle: Ann's previews against the secret Brute differ by face: {shown}"
        )
    if answer is not None:
        problems += weak_leaks(answer.text, "Ann's attack answer")
    return problems


def preview_verdict(answer: Answer) -> str:
    """What a preview tells of the hit: its status, or the attack's outcome as shown."""
    if answer.status != 200:  # a refusal tells too: "the roll used only 1 (a miss) / 2 dice"
        return f"refused {answer.status} {answer.text[:200]}"
    events = json.loads(answer.text).get("record", {}).get("events", [])
    found = [e["data"].get("result", {}) for e in events if e.get("kind") == "attack_resolved"]
    outcome = [{k: r.get(k) for k in ("outcome", "hit", "dodged", "saved")} for r in found]
    return json.dumps(outcome, sort_keys=True)


WEAK_KEYS = {"ac", "dodge", "initiative", "score", "hp", "hp_max", "defence", "target"}


def weak_leaks(text: str, where: str) -> list[str]:
    """The Brute's two-digit secrets in the fields and sentences that describe the Brute."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    found: list[str] = []

    def walk(value: Any, key: str, brute: bool) -> None:
        if isinstance(value, dict):
            about = brute or value.get("id") == "Brute" or value.get("defender") == "Brute"
            for k, v in value.items():
                walk(v, k, about)
        elif isinstance(value, list):
            for v in value:
                walk(v, key, brute)
        elif brute and key in WEAK_KEYS and value in (BRUTE_AC, BRUTE_DODGE, BRUTE_INITIATIVE):
            found.append(f"leak: {where} shows the Brute's {key} {value}")
        elif brute and isinstance(value, str):
            for n in (BRUTE_AC, BRUTE_DODGE, BRUTE_INITIATIVE):
                for word in ("AC", "Dodge", "Initiative"):
                    if f"{word} {n}" in value or f"{word}: {n}" in value:
                        found.append(f"leak: {where} says {value[:80]!r}")

    walk(data, "", False)
    return found


# --- the generated requests ---------------------------------------------------------------------


def who_values() -> st.SearchStrategy[str]:
    return st.sampled_from(["ann", "ann", "ann", "bo", "anon", "forged", "eve", "eve_own"])


def hostile_value() -> st.SearchStrategy[Any]:
    plain = st.integers(min_value=-(10**6), max_value=10**6) | st.text(max_size=30)
    return st.sampled_from(HUGE_INTS + FLOATS + CONTROL + STRINGS + WRONG_TYPES) | plain


def war_command(world: World) -> st.SearchStrategy[dict[str, Any]]:
    mine = st.sampled_from(["Herald", "Herald", "Boss", "Ward", "Nobody"])
    point = st.lists(st.integers(-5, 5), min_size=3, max_size=3)
    strike = st.fixed_dictionaries(
        {"striker": mine, "defender": mine},
        optional={
            "mode": st.sampled_from(["best", "none", "explicit"]),
            "boon": st.integers(0, 6) | st.sampled_from(HUGE_INTS),
            "bane": st.integers(0, 6) | st.sampled_from(HUGE_INTS),
            "striker_adjustments": st.integers(0, 3),
            "defender_adjustments": st.integers(0, 3),
            "maneuvers": st.lists(st.sampled_from(MANEUVERS), max_size=3),
            "ranged": st.booleans(),
            "two_ap": st.booleans(),
            "path": st.lists(point, max_size=3),
            "steps": st.lists(
                st.fixed_dictionaries(
                    {"die": st.integers(0, 8), "delta": st.sampled_from([1, -1])}
                ),
                max_size=4,
            ),
            "weapon": st.sampled_from(["Sword", "Bow", "Banana"]),
        },
    )
    ident = st.fixed_dictionaries({"id": mine})
    others = {
        "move": st.fixed_dictionaries({"id": mine, "to": point}),
        "stance": st.fixed_dictionaries({"id": mine}, optional={"on": st.booleans()}),
        "rest": st.fixed_dictionaries({"id": mine, "ap": st.integers(0, 8)}),
        "carry_over": st.fixed_dictionaries({"id": mine, "ap": st.integers(0, 8)}),
        "stand_ready": st.fixed_dictionaries(
            {"id": mine, "ap": st.integers(0, 8), "uses": st.lists(st.text(max_size=8), max_size=3)}
        ),
        "break_free": ident,
        "interpose": st.fixed_dictionaries({"id": mine, "striker": mine, "defender": mine}),
        "next": st.just({}),
        "remove": ident,
        "apply_effect": st.fixed_dictionaries(
            {
                "id": mine,
                "effect": st.sampled_from(["falter", "grappled", "wear_e", "knock_back", "bogus"]),
            },
            optional={"amount": st.floats(0, 1e9), "by": mine},
        ),
        "host_set": st.fixed_dictionaries(
            {
                "id": mine,
                "field": st.sampled_from(["ap", "wear_e", "position", "stance"]),
                "value": st.integers(0, 9),
            }
        ),
    }
    kinds = st.sampled_from(["strike", "strike", "strike", *others])
    return kinds.flatmap(
        lambda kind: st.fixed_dictionaries(
            {"kind": st.just(kind), "args": strike if kind == "strike" else others[kind]}
        )
    )


def fight_command(world: World) -> st.SearchStrategy[dict[str, Any]]:
    mine = st.sampled_from(["Aldric", "Aldric", "Brute", "Nobody"])
    point = st.lists(st.integers(-5, 5), min_size=3, max_size=3)
    item = st.fixed_dictionaries(
        {"defender": mine},
        optional={
            "weapon": st.sampled_from(["Long Sword", "Spear", "Banana"]),
            "precision": st.booleans(),
            "modifiers": st.lists(st.integers(-50, 50) | st.sampled_from(HUGE_INTS), max_size=3),
            "reaction": st.sampled_from(["block", "parry", "ward_off", "dance"]),
        },
    )
    args = {
        "attack": st.fixed_dictionaries(
            {"attacker": mine, "attacks": st.lists(item, min_size=1, max_size=9)}
        ),
        "move": st.fixed_dictionaries(
            {"id": mine, "to": point}, optional={"mode": st.sampled_from(["walk", "run", "fly"])}
        ),
        "bottom": st.fixed_dictionaries({"id": mine}),
        "hide": st.fixed_dictionaries({"id": mine}),
        "instant": st.fixed_dictionaries({"id": mine, "name": st.text(max_size=20)}),
        "whole_turn": st.fixed_dictionaries(
            {"id": mine, "kind": st.sampled_from(["recover", "sprint", "skill", "nap"])}
        ),
        "cast": st.fixed_dictionaries(
            {
                "caster": mine,
                "targets": st.lists(mine, max_size=3),
                "power": st.text(max_size=10),
                "element": st.just("fire"),
                "spell_power": st.integers(0, 10**6),
            }
        ),
        "aoo": st.fixed_dictionaries(
            {"attacker": mine, "target": mine, "weapon": st.just("Spear")}
        ),
        "roll_with_the_blow": st.fixed_dictionaries({"id": mine, "to": point}),
        "next": st.just({}),
        "condition": st.fixed_dictionaries({"id": mine, "name": st.text(max_size=10)}),
        "host_set": st.fixed_dictionaries(
            {"id": mine, "field": st.just("hp"), "value": st.integers(0, 9)}
        ),
    }
    kinds = st.sampled_from(["attack", "attack", *args])
    return kinds.flatmap(
        lambda kind: st.fixed_dictionaries({"kind": st.just(kind), "args": args[kind]})
    )


def dice() -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(1, 12), min_size=1, max_size=12) | st.lists(
        st.integers(-5, 200) | st.sampled_from(HUGE_INTS), max_size=20
    )


def endpoints(world: World, eve: bool) -> st.SearchStrategy[tuple[str, str, Any]]:
    """(method, path, body) of every endpoint, at table 1 or (``eve``) at Eve's own table."""
    tid, war = (world.tid2, world.war2) if eve else (world.tid, world.war)
    fight = world.war2 if eve else world.fight
    command = st.one_of(
        war_command(world).map(lambda c: (war, c)),
        st.just(fight).flatmap(lambda f: fight_command(world).map(lambda c: (f, c))),
    )
    with_dice = st.tuples(
        command,
        st.none() | dice(),
        st.none() | st.integers(0, 40) | st.sampled_from(HUGE_INTS),
        st.booleans() | st.sampled_from(["yes", 1]),
    )

    def command_request(parts: Any, path: str) -> tuple[str, str, Any]:
        (eid, body), rolled, revision, hidden = parts
        body = dict(body)
        if rolled is not None:
            body["dice"] = rolled
        if path == "/commands" and revision is not None:
            body["revision"] = revision
        if path == "/commands" and hidden is not True:
            body["hidden"] = hidden
        return ("POST", api(eid, path), body)

    character = st.sampled_from(
        [
            {
                "character": {
                    "format": "tableside/majesty-character",
                    "version": 1,
                    "name": "Imp",
                    "side": "fallen",
                    "weapon": "Sword",
                    "attributes": {
                        "might": 40,
                        "swiftness": 30,
                        "control": 30,
                        "endurance": 50,
                        "resolve": 40,
                        "passion": 40,
                    },
                }
            },
            {"model": "Goblin", "side": "monsters", "position": [2, 0, 0]},
            {"character": {"name": "x" * 60}, "secret": "yes"},
        ]
    )
    name = st.sampled_from(["Ann's", "Night", *CONTROL, *STRINGS])
    simple: list[tuple[str, str, Any]] = [
        ("GET", f"/api/tables/{tid}", None),
        ("GET", api(war), None),
        ("GET", api(war, "/log"), None),
        ("GET", api(war, "/log?before=4&limit=2"), None),
        ("GET", api(fight), None),
        ("GET", api(war, "/options"), None),
        ("GET", api(fight, "/options"), None),
        ("GET", api(war, "/secrets"), None),
        ("POST", api(war, "/undo"), {}),
        ("POST", api(war, "/redo"), {"revision": 3}),
        ("PUT", api(war, "/secrets"), {"npcs_secret": False}),
        ("PUT", api(war, "/secrets/Boss"), {"secret": False}),
        ("GET", api(war, "/decisions"), None),
        ("GET", api(fight, "/decisions"), None),
        ("POST", api(war, "/decisions/0.0"), {"choice": "approve"}),
        ("POST", api(fight, "/decisions/1.0"), {"choice": None}),
        ("GET", api(war, "/settings"), None),
        ("PUT", api(fight, "/settings"), {"trust_modifiers": True}),
        ("PUT", api(war, "/settings"), {"decision_timeout": 5}),
        ("GET", "/", None),
        ("GET", f"/tables/{tid}", None),
        ("GET", f"/tables/{tid}/encounters/{war}", None),
        ("GET", f"/tables/{tid}/encounters/{fight}", None),
        ("GET", f"/tables/{tid}/encounters/{war}/setup", None),
        ("GET", "/api/nothing/here", None),
        ("DELETE", api(war), None),
        ("PATCH", f"/api/tables/{tid}", {"name": "x"}),
        ("GET", "/api/tables", None),
        ("GET", "/join/not-a-token", None),
    ]
    return st.one_of(
        with_dice.map(lambda p: command_request(p, "/commands")),
        with_dice.map(lambda p: command_request(p, "/preview")),
        with_dice.map(lambda p: command_request(p, "/odds")),
        st.sampled_from(simple),
        name.map(lambda n: ("POST", "/api/tables", {"name": n})),
        st.tuples(name, st.sampled_from([[], ["Boss"], ["Herald"], ["a b"]])).map(
            lambda p: ("POST", f"/api/tables/{tid}/players", {"name": p[0], "characters": p[1]})
        ),
        st.tuples(
            name,
            st.sampled_from(["majesty-war", "strife-combat", "chess"]),
            st.none() | st.sampled_from(HUGE_INTS),
        ).map(
            lambda p: (
                "POST",
                f"/api/tables/{tid}/encounters",
                {"game": p[1], "name": p[0], "seed": p[2]},
            )
        ),
        character.map(lambda c: ("POST", api(war, "/characters"), c)),
        st.sampled_from(["form"]).map(
            lambda _: ("FORM", f"/tables/{tid}/players", "name=Eve%00&others=Boss")
        ),
        st.sampled_from(["form"]).map(lambda _: ("FORM", "/tables", "name=" + "%07" * 3)),
        st.sampled_from(["stream"]).map(lambda _: ("STREAM", api(war, "/stream"), None)),
    )


def mutated(world: World) -> st.SearchStrategy[Request]:
    return who_values().flatmap(lambda who: build_request(world, who))


def build_request(world: World, who: str) -> st.SearchStrategy[Request]:
    base = endpoints(world, who == "eve_own")
    op = st.sampled_from(
        [
            "as is",
            "as is",
            "leaf",
            "leaf",
            "leaf",
            "unknown key",
            "deep",
            "malformed",
            "content type",
            "path id",
            "method",
            "big",
        ]
    )
    return st.tuples(
        base, op, hostile_value(), st.integers(0, 10**6), st.sampled_from(PATH_IDS)
    ).map(lambda p: make_request(world, who, *p))


PATH_IDS = [
    "0",
    "-1",
    str(2**31),
    str(2**63),
    str(10**30),
    "9" * 5000,
    "abc",
    "1.5",
    "NaN",
    "%00",
    "..%2F..",
    "1e3",
]


def leaf_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    paths: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            paths += [(*prefix, k), *leaf_paths(v, (*prefix, k))]
    elif isinstance(value, list):
        for i, v in enumerate(value):
            paths += [(*prefix, i), *leaf_paths(v, (*prefix, i))]
    return paths


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    items = list(value)
    items[head] = replaced(items[head], rest, new)
    return items


def refusal_reason(key: Any, new: Any) -> str | None:
    """Why putting ``new`` under ``key`` must be refused (None: it might be valid)."""
    if isinstance(new, float) and not math.isfinite(new):
        return "NaN or Infinity"
    if isinstance(new, int) and not isinstance(new, bool) and not -(2**63) <= new < 2**63:
        return "an integer past 64 bits"
    if key in BOOLEAN_KEYS and not isinstance(new, bool):
        return f"{key} is a boolean"
    if key in RULE_COUNTS and isinstance(new, int) and not isinstance(new, bool) and new >= 10**6:
        return f"{key} past what the rules use"
    if key in NAME_KEYS and isinstance(new, str) and any(ord(c) < 32 for c in new):
        return "a name with a control character"
    return None


def body_reason(body: Any) -> str | None:
    """Why a generated body must be refused whatever it is sent to."""
    text = json_body(body).decode()
    if "NaN" in text or "Infinity" in text:
        return "NaN or Infinity"
    for path in leaf_paths(body):
        value: Any = body
        for part in path:
            value = value[part]
        why = refusal_reason(path[-1], value)
        if why:
            return why
        if (
            path[-1] == "maneuvers"
            and isinstance(value, list)
            and len(set(map(str, value))) < len(value)
        ):
            return "duplicate Maneuvers"
        if (
            path[-1] == "dice"
            and isinstance(value, list)
            and any(isinstance(v, int) and not 1 <= v <= 100 for v in value)
        ):
            return "a die face no die has"
    return None


def make_request(
    world: World, who: str, base: tuple[str, str, Any], op: str, new: Any, pick: int, path_id: str
) -> Request:
    method, path, body = base
    sender = "eve" if who == "eve_own" else who
    if method == "FORM":
        named = "a name with a control character" if who == "eve_own" or path == "/tables" else None
        return Request(
            sender,
            "POST",
            path,
            body.encode(),
            "application/x-www-form-urlencoded",
            note="form",
            must_refuse=named or f"{who} may not post this form",
        )
    if method == "STREAM":
        return Request(
            sender,
            "GET",
            path,
            None,
            None,
            params={"after": str(pick % 5)},
            stream=True,
            note="stream",
        )
    why: str | None = None
    content: bytes | None = None
    content_type: str | None = "application/json"
    note = op
    if body is not None and op == "leaf" and leaf_paths(body):
        paths = leaf_paths(body)
        at = paths[pick % len(paths)]
        body = replaced(body, at, new)
        note = f"leaf {'.'.join(map(str, at))}"
    elif body is not None and op == "unknown key":
        body = {**body, "zzz_unknown": 1}
        why = "an unknown key"
    elif op == "deep" and method != "GET":
        content = b'{"kind": "next", "args": ' + b"[" * DEEP + b"]" * DEEP + b"}"
        why = "a body nested 5000 deep"
    elif op == "malformed" and method != "GET":
        content = MALFORMED[pick % len(MALFORMED)]
        empty = content in (b"null", b"") and path.endswith(OPTIONAL_BODY)
        why = None if empty else "malformed JSON or not an object"
    elif op == "content type" and body is not None:
        content_type = WRONG_CONTENT_TYPES[pick % len(WRONG_CONTENT_TYPES)]
        why = "a JSON body sent as another content type"
    elif op == "path id":
        changed = "/".join(path_id if p.isdigit() else p for p in path.split("/"))
        why = "an id no table or encounter has" if changed != path and path_id != "1e3" else None
        path = changed
    elif op == "method":
        method = ["DELETE", "PATCH", "OPTIONS"][pick % 3]
        why = "a method the route does not take"
    elif op == "big" and body is not None and method != "GET":
        body = {**body, "name": "N" * BIG}
        why = "413: a body over the limit"
    if content is None and body is not None:
        content = json_body(body)
        why = why or body_reason(body)
    if (
        method in ("DELETE", "PATCH", "OPTIONS")
        or path.startswith("/api/nothing")
        or (method, path) == ("GET", "/api/tables")
        or path.startswith("/join/not")
    ):
        why = why or "no such route, method or token"
    if not authorised(world, who, method, path, body):
        why = why or f"{who} may not {method} {path[:40]}"
    inputs = tuple(long_inputs(body)) + tuple(p for p in path.split("/") if len(p) > 40)
    return Request(
        sender, method, path, content, content_type, note=note, must_refuse=why, inputs=inputs
    )


PLAYER_ACTORS = {
    "strike": "striker",
    "move": "id",
    "stance": "id",
    "rest": "id",
    "stand_ready": "id",
    "carry_over": "id",
    "break_free": "id",
    "interpose": "id",
    "attack": "attacker",
    "aoo": "attacker",
    "cast": "caster",
    "bottom": "id",
    "instant": "id",
    "whole_turn": "id",
    "roll_with_the_blow": "id",
    "hide": "id",
    "act": "id",
    "react": "id",
    "pick_up": "id",
}
ANNS = ("Herald", "Aldric")


def authorised(world: World, who: str, method: str, path: str, body: Any) -> bool:
    """Whether ``who`` may make this request at all (False: it must be refused)."""
    if path in PUBLIC or who == "eve_own" or (method == "GET" and who in ("ann", "bo")):
        return True
    if who != "ann":  # anonymous, forged, another table's Host, or Bo writing
        return False
    if not path.endswith(("/commands", "/preview", "/odds")) or not isinstance(body, dict):
        return False  # undo, redo, secrets, characters, seats, encounters: the Host's
    kind, args = body.get("kind"), body.get("args")
    if kind == "next":
        return True
    field = PLAYER_ACTORS.get(kind) if isinstance(kind, str) else None
    if field is None:
        return False
    return not (
        isinstance(args, dict) and isinstance(args.get(field), str) and args[field] not in ANNS
    )


# --- the final reads ----------------------------------------------------------------------------


def stream_for_a_moment(
    probe: Probe, who: str, eid: int, seconds: float = 1.5
) -> tuple[int | None, str]:
    """The live stream ``who`` receives from revision 0, read for ``seconds``: its status and
    text. The token goes as a Bearer header (W-11: a token in a URL is refused, and a refused
    stream would leave nothing to scan)."""
    got: list[str] = []
    status: int | None = None
    url = f"{probe.server.base}{api(eid, '/stream')}"
    deadline = time.monotonic() + seconds
    try:
        with probe.client.stream(
            "GET",
            url,
            params={"after": "0"},
            headers=probe.auth(who),
            timeout=httpx.Timeout(HANG, read=seconds),
        ) as r:
            status = r.status_code
            for chunk in r.iter_text():
                got.append(chunk)
                if time.monotonic() > deadline:
                    break
    except httpx.TimeoutException:
        pass
    return status, "".join(got)


# Chat that only the Host and Bo may read (W-30), and what everyone reads
WHISPERS = ("for Bo alone 9911", "Bo to the Host 8822", "a roll for Bo 7733")
OPEN_NOTE = "a note for the whole table"


def whispers_stay_private(probe: Probe, world: World) -> list[str]:
    """W-30: while Ann's stream is open, the Host whispers to Bo, Bo to the Host, the Host rolls
    for Bo and posts one public message: Ann's stream and chat carry the public one only."""
    seats = probe.host("GET", f"/api/tables/{world.tid}")["seats"]
    bo = next(seat["id"] for seat in seats if seat["name"] == "Bo")
    chat = api(world.war, "/chat")

    def talk() -> None:
        time.sleep(0.4)  # Ann's stream is open by now
        probe.host("POST", chat, {"text": WHISPERS[0], "to": bo})
        probe.host("POST", chat, {"text": WHISPERS[1], "to": "host"}, who="bo")
        probe.host("POST", api(world.war, "/rolls"), {"kind": "d12", "label": WHISPERS[2],
                                                      "to": bo})  # fmt: skip
        probe.host("POST", chat, {"text": OPEN_NOTE})

    talking = threading.Thread(target=talk)
    talking.start()
    status, streamed = stream_for_a_moment(probe, "ann", world.war, 2.5)
    talking.join()
    read = probe.send(Request("ann", "GET", chat, note="Ann's chat"))
    problems = []
    for where, text in (("live stream", streamed), ("chat", "" if read is None else read.text)):
        if OPEN_NOTE not in text:
            problems.append(f"Ann's {where} never carried the public message (status {status})")
        problems += [
            f"leak: Ann's {where} carries the whisper {w!r}" for w in WHISPERS if w in text
        ]
    bo_read = probe.host("GET", chat, who="bo")
    if not all(w in json.dumps(bo_read) for w in WHISPERS):
        problems.append("Bo's chat is missing a whisper of his own (the check would be vacuous)")
    return problems


def final_reads(probe: Probe, world: World) -> list[str]:
    """Every attacker's state, log, options, pages and stream, scanned for secret numbers."""
    problems = []
    for who in ("ann", "bo"):
        for eid in (world.war, world.fight):
            reads = [
                probe.send(Request(who, "GET", api(eid, rest), note="final read"))
                for rest in ("", "/log", "/options", "/decisions", "/map", "/chat")
            ]
            reads += older_log(probe, who, eid)
            page_path = f"/tables/{world.tid}/encounters/{eid}"
            page = probe.send(Request(who, "GET", page_path, note="page"))
            for answer in [*reads, page]:
                if answer is not None and eid == world.fight:
                    problems += weak_leaks(answer.text, f"{who}'s read of the fight")
            status, text = stream_for_a_moment(probe, who, eid)
            if status != 200:
                problems.append(f"{who}'s live stream of {eid} answered {status}: nothing scanned")
            leaked = strong_leaks(text)
            if leaked:
                probe.tally.leaks.append(f"{sorted(leaked)}: {who}'s stream of {eid}")
                problems.append(f"leak {sorted(leaked)}: {who}'s live stream of encounter {eid}")
            for line in text.splitlines():
                if line.startswith("data:") and eid == world.fight:
                    problems += weak_leaks(line[5:], f"{who}'s stream")
    return problems


def older_log(probe: Probe, who: str, eid: int) -> list[Answer | None]:
    """Every page of the log, newest first, as the page's "Older records" reads it (W-74)."""
    answers: list[Answer | None] = []
    params = {"before": str(2**31 - 1), "limit": "3"}
    for _page in range(100):
        answer = probe.send(Request(who, "GET", api(eid, "/log"), params=params, note="older"))
        answers.append(answer)
        page = json.loads(answer.text) if answer is not None and answer.status == 200 else {}
        if not page.get("more") or not page.get("records"):
            return answers
        params = {**params, "before": str(page["records"][0]["revision"])}
    return answers


def decisions_reached(probe: Probe, world: World) -> None:
    """Boss Strikes Herald: Ann reads and answers her Obstruction decision (D-1, W-16).

    The request's options carry the outcomes on Boss's secret values for the Host; what Ann
    receives (the 202's pending, her decisions, the records) is checked like every answer.
    """
    war = world.war
    turn_of(probe, war, "Boss", [])
    strike = {"kind": "strike", "args": {"striker": "Boss", "defender": "Herald"}}
    probe.host("POST", api(war, "/commands"), strike)
    answer = probe.send(Request("ann", "GET", api(war, "/decisions"), note="Ann's decisions"))
    mine = [] if answer is None else json.loads(answer.text).get("decisions", [])
    for asked in mine:
        first = asked["options"][0]["value"] if asked["options"] else None
        body = {"choice": first}
        post(probe, api(war, f"/decisions/{asked['id']}"), body, f"Ann answers {asked['kind']}")
    settle(probe, war)


def host_sees_the_secrets(probe: Probe, world: World) -> None:
    """The scripted commands reached the secret values: the Host's log shows them."""
    log = probe.host("GET", api(world.war, "/log"))
    text = json.dumps(log)
    assert all(n in text for n in ("977", "853")), "the scripted commands missed the secrets"
    assert any(n in json.dumps(probe.host("GET", api(world.fight))) for n in STRONG_TEXT)


# --- issue 22: strict numbers, rates, ids (W-50) --------------------------------------------------

NON_FINITE = ("NaN", "Infinity", "-Infinity", "1e999")


def strict_cases(world: World) -> list[tuple[str, str, str, bytes, str]]:
    """(who, method, path, body, the field the refusal names): numbers as strings, NaN, ±Infinity
    and 1e999 in every kind of body, each of which must be refused naming its field."""
    war, tid = world.war, world.tid
    strike = {"striker": "Herald", "defender": "Boss"}
    typed = [
        ("host", "POST", api(war, "/commands"), {"kind": "strike",
                                                 "args": {**strike, "boon": "1"}}, "boon"),
        ("host", "PUT", api(war, "/settings"), {"decision_timeout": "10"}, "decision_timeout"),
        ("host", "POST", api(war, "/undo"), {"revision": "3"}, "revision"),
        ("host", "POST", api(war, "/commands"), {"kind": "next", "revision": "3"}, "revision"),
        ("host", "POST", f"/api/tables/{tid}/encounters",
         {"game": "majesty-war", "name": "Typed", "seed": "7"}, "seed"),
        ("ann", "POST", api(war, "/rolls"), {"kind": "d12", "boon": "1"}, "boon"),
        ("ann", "POST", api(war, "/move-cost"), {"id": "Herald", "to": ["1", 0, 0]}, "to"),
        ("ann", "POST", api(war, "/odds"), {"kind": "strike",
                                           "args": {**strike, "bane": True}}, "bane"),
    ]  # fmt: skip
    cases = [(who, m, path, json_body(body), name) for who, m, path, body, name in typed]
    for literal in NON_FINITE:
        for who, method, path, text, name in (
            ("ann", "POST", api(war, "/move-cost"), f'{{"id": "Herald", "to": [{literal}, 0, 0]}}',
             "to.0"),
            ("host", "POST", api(war, "/move-cost"), f'{{"id": "Boss", "to": [0, {literal}, 0]}}',
             "to.1"),
            ("host", "POST", api(war, "/commands"),
             f'{{"kind": "move", "args": {{"id": "Boss", "to": [{literal}, 0, 0]}}}}', "to.0"),
            ("ann", "POST", api(war, "/preview"),
             f'{{"kind": "strike", "args": {{"striker": "Herald", "defender": "Boss", '
             f'"boon": {literal}}}}}', "boon"),
            ("ann", "POST", api(war, "/rolls"), f'{{"kind": "d12", "bane": {literal}}}', "bane"),
            ("host", "PUT", api(war, "/settings"), f'{{"decision_timeout": {literal}}}',
             "decision_timeout"),
        ):  # fmt: skip
            cases.append((who, method, path, text.encode(), name))
    return cases


def strict_numbers_refused(probe: Probe, world: World, state: str) -> dict[str, int]:
    """Send every strict case; each must be refused naming its field. Returns status by case."""
    seen: dict[str, int] = {}
    for who, method, path, body, name in strict_cases(world):
        note = f"strict numbers ({state}): {name}"
        answer = probe.send(Request(who, method, path, body, note=note, must_refuse=note))
        if answer is None:
            continue
        seen[f"{who} {method} {path} {body[:80]!r}"] = answer.status
        if answer.status < 500 and name.split(".")[0] not in answer.text:
            probe.tally.violations.append(f"refusal names no field {name}: {answer.text[:200]}")
    return seen


def strict_whatever_waits(probe: Probe, world: World) -> list[str]:
    """Issue 22: the same bodies are refused alike whether or not a command waits (D-3)."""
    settle(probe, world.war)
    probe.known = probe.fingerprint()
    idle = strict_numbers_refused(probe, world, "nothing waits")
    turn_of(probe, world.war, "Boss", [])
    strike = {"kind": "strike", "args": {"striker": "Boss", "defender": "Herald"}}
    probe.host("POST", api(world.war, "/commands"), strike)
    waiting = probe.host("GET", api(world.war, "/decisions"))["decisions"]
    probe.known = probe.fingerprint()  # the Host's own command: what the refusals must keep
    busy = strict_numbers_refused(probe, world, "a command waits")
    settle(probe, world.war)
    problems = [f"{case}: {idle[case]} when idle, {busy.get(case)} while waiting"
                for case in idle if busy.get(case) != idle[case]]  # fmt: skip
    if not waiting:
        problems.append("no decision waited: the 'while waiting' cases tested nothing")
    return problems


def rates_refuse_with_retry_after(probe: Probe, world: World) -> list[str]:
    """Issue 22: chat and commands are rate-limited per token (429 with Retry-After)."""
    problems = []
    chat = api(world.war2, "/chat")
    spam = {"kind": "next", "args": {"spam": 1}}
    burst = [("chat", chat, {"text": "spam"}), ("commands", api(world.war2, "/commands"), spam)]
    for what, path, body in burst:
        headers = {**probe.auth("eve"), "Content-Type": "application/json"}
        for _ in range(700):  # past the default 30 chat messages and 600 commands a minute
            r = probe.client.post(probe.server.base + path, headers=headers,
                                  content=json_body(body))  # fmt: skip
            if r.status_code == 429:
                break
        probe.known = probe.fingerprint()  # the accepted part of the burst wrote
        answer = probe.send(Request("eve", "POST", path, json_body(body), note=f"{what} burst",
                                    must_refuse=f"{what} past the rate"))  # fmt: skip
        if answer is not None and answer.status != 429:
            problems.append(f"{what} burst: answered {answer.status}, not 429")
    return problems


def ids_never_reused(probe: Probe, world: World) -> list[str]:
    """Issue 22: a removed seat's id is never given to the next seat (records keep naming)."""
    players = f"/api/tables/{world.tid}/players"
    first = probe.host("POST", players, {"name": "Passing"})["id"]
    probe.host("DELETE", f"{players}/{first}")
    second = probe.host("POST", players, {"name": "Later"})["id"]
    probe.host("DELETE", f"{players}/{second}")
    probe.known = probe.fingerprint()
    return [] if second > first else [f"seat id {first} given again ({second})"]


# --- the test ---------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_w7_to_w15_a_hostile_player_gets_no_500_no_hang_no_leak_and_writes_nothing(
    backend: str, tmp_path: Path
) -> None:
    """Issue 10 "Done means": the hostile suite against a real server on each backend."""
    started = time.monotonic()
    with attacked(backend, tmp_path) as (probe, world):
        war_secrets_reached(probe, world)
        decisions_reached(probe, world)
        problems = fight_secrets_reached(probe, world)
        host_sees_the_secrets(probe, world)
        extreme_strikes(probe, world)
        problems += strict_whatever_waits(probe, world)
        problems += rates_refuse_with_retry_after(probe, world)
        problems += ids_never_reused(probe, world)
        sent = [0]

        @fuzz_settings(EXAMPLES)
        @given(mutated(world))
        def attack(request: Request) -> None:
            if sent[0] % ARRANGE_EVERY == 0 and not probe.gave_up:
                turn_of(probe, world.war, "Herald", HERALD_READY)
                turn_of(probe, world.fight, "Aldric", [])
            sent[0] += 1
            probe.send(request)

        attack()
        if not probe.gave_up:
            problems += whispers_stay_private(probe, world)
            problems += final_reads(probe, world)
        tracebacks = probe.server.tracebacks()
    tally = probe.tally
    summary = tally.summary(backend, time.monotonic() - started)
    summary["leaks_found"] += sum(p.startswith("leak") for p in problems)
    summary["server_tracebacks"] = tracebacks
    summary["other_problems"] = len(problems)
    (tmp_path / f"hostile-web-{backend}.json").write_text(json.dumps(summary, indent=2))
    print(f"\nhostile web {backend}: {json.dumps(summary)}")
    everything = tally.violations + problems
    if tracebacks:
        everything.append(f"the server printed {tracebacks} tracebacks on its standard error")
    assert not everything, f"{len(everything)} violations:\n" + "\n".join(
        v[:600] for v in everything[:80]
    )


# --- issue 22: one address cannot starve another table (W-50) ----------------------------------

STARVE_LIMITS = {
    "TABLESIDE_TABLES_PER_MINUTE": "3",
    "TABLESIDE_MAX_SEATS": "10",
    "TABLESIDE_SEATS_PER_MINUTE": "12",
    "TABLESIDE_STREAMS_PER_ADDRESS": "6",
    "TABLESIDE_STREAMS_PER_TABLE": "8",
    "TABLESIDE_MAX_STREAMS": "10",
    "TABLESIDE_ADDRESS_COMMANDS_PER_MINUTE": "40",
}


def client_at(address: str) -> httpx.Client:
    """A client whose connections come from ``address`` (a loopback address of its own)."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(transport=transport, timeout=httpx.Timeout(HANG, read=HANG))


class Listening:
    """A live stream read on a thread of its own until :meth:`close`."""

    def __init__(self, client: httpx.Client, url: str, token: str) -> None:
        self.status: int | None = None
        self.text: list[str] = []
        self.opened = threading.Event()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.read, args=(client, url, token), daemon=True)
        self.thread.start()
        self.opened.wait(HANG)

    def read(self, client: httpx.Client, url: str, token: str) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        timeout = httpx.Timeout(HANG, read=30)
        try:
            with client.stream("GET", url, headers=headers, timeout=timeout) as r:
                self.status = r.status_code
                self.opened.set()
                for chunk in r.iter_text():
                    self.text.append(chunk)
                    if self.done.is_set():
                        return
        except httpx.HTTPError:
            self.opened.set()

    def heard(self, marker: str) -> None:
        """Wait until the stream has carried ``marker`` (at most :data:`EVENT_WAIT`)."""
        deadline = time.monotonic() + EVENT_WAIT
        while marker not in "".join(self.text) and time.monotonic() < deadline:
            time.sleep(0.05)

    def close(self) -> str:
        self.done.set()
        self.thread.join(35)
        return "".join(self.text)


@pytest.mark.parametrize("backend", BACKENDS)
def test_w50_one_address_cannot_starve_another_tables_host_and_player(
    backend: str, tmp_path: Path
) -> None:
    """Issue 22 "Done means": 127.0.0.1 makes tables, seats, streams and commands until every
    limit refuses it; a Host and a player from 127.0.0.2 then still make their table, connect,
    command and see the command on both their live streams."""
    with database_url(backend, tmp_path) as url:
        env = {**STARVE_LIMITS}
        args: list[str] = []
        if backend == "sqlite":
            args = ["--db", url.removeprefix("sqlite:///")]
        else:
            env["TABLESIDE_DATABASE_URL"] = url
        server = Server(args, env, tmp_path / "serve.log")
        server.start()
        base = server.base
        attacker, victim = client_at("127.0.0.1"), client_at("127.0.0.2")
        streams: list[Listening] = []
        try:
            figures = exhaust(attacker, base, streams)
            assert figures["tables"] == 3 and figures["table_refusals"] == [429], figures
            assert figures["seat_refusals"] and set(figures["seat_refusals"]) <= {413, 429}
            assert figures["streams"] == 6 and figures["stream_refusals"] == [429], figures
            assert figures["command_refusals"] == [429], figures
            heard = play_from(victim, base, streams)
            print(f"\nstarvation {backend}: {json.dumps(figures)}")
        finally:
            for listening in streams:
                listening.close()
            attacker.close()
            victim.close()
            server.stop()
        assert server.tracebacks() == 0
        for who, text in heard.items():
            assert '"stance"' in text, f"the {who}'s stream missed the player's command: {text!r}"


def exhaust(http: httpx.Client, base: str, streams: list[Listening]) -> dict[str, Any]:
    """One address takes all it can: tables, seats, live streams, commands."""
    figures: dict[str, Any] = {"tables": 0, "table_refusals": set(), "seats": 0,
                               "seat_refusals": set(), "streams": 0, "stream_refusals": set(),
                               "commands": 0, "command_refusals": set()}  # fmt: skip
    made: list[tuple[int, str, int]] = []  # table, Host token, encounter
    for n in range(6):
        r = http.post(f"{base}/api/tables", json={"name": f"Hog {n}"})
        if r.status_code != 201:
            figures["table_refusals"].add(r.status_code)
            assert r.headers.get("retry-after", "").isdigit()
            continue
        figures["tables"] += 1
        tid, token = r.json()["id"], r.json()["host_token"]
        host = {"Authorization": f"Bearer {token}"}
        eid = http.post(f"{base}/api/tables/{tid}/encounters", headers=host,
                        json={"game": "majesty-war", "name": "Hog"}).json()["id"]  # fmt: skip
        made.append((tid, token, eid))
    tokens: list[tuple[str, int]] = []
    for tid, token, eid in made:
        tokens.append((token, eid))
        host = {"Authorization": f"Bearer {token}"}
        for n in range(12):
            r = http.post(f"{base}/api/tables/{tid}/players", headers=host, json={"name": f"S{n}"})
            if r.status_code != 201:
                figures["seat_refusals"].add(r.status_code)
                continue
            figures["seats"] += 1
            tokens.append((r.json()["token"], eid))
    for token, eid in tokens[:30]:
        listening = Listening(http, f"{base}/api/encounters/{eid}/stream", token)
        streams.append(listening)
        if listening.status == 200:
            figures["streams"] += 1
        else:
            figures["stream_refusals"].add(listening.status)
    _tid, token, eid = made[0]
    for _ in range(60):
        host = {"Authorization": f"Bearer {token}"}
        r = http.post(f"{base}/api/encounters/{eid}/commands", headers=host, json={"kind": "next"})
        if r.status_code == 429:
            assert r.headers.get("retry-after", "").isdigit()
            figures["command_refusals"].add(429)
            break
        figures["commands"] += 1
    return {k: sorted(v) if isinstance(v, set) else v for k, v in figures.items()}


def play_from(http: httpx.Client, base: str, streams: list[Listening]) -> dict[str, str]:
    """Another address: a Host makes a table and a seat, both stream, the player commands."""
    r = http.post(f"{base}/api/tables", json={"name": "Friday"})
    assert r.status_code == 201, r.text
    tid, host_token = r.json()["id"], r.json()["host_token"]
    host = {"Authorization": f"Bearer {host_token}"}
    r = http.post(f"{base}/api/tables/{tid}/encounters", headers=host,
                  json={"game": "majesty-war", "name": "Ford", "seed": 3})  # fmt: skip
    assert r.status_code == 201, r.text
    eid = r.json()["id"]
    for body in ({"character": HERALD}, {"character": {**HERALD, "name": "Foe", "side": "fallen"},
                                         "position": [1, 0, 0]}):  # fmt: skip
        r = http.post(f"{base}/api/encounters/{eid}/characters", headers=host, json=body)
        assert r.status_code == 201, r.text
    r = http.post(f"{base}/api/tables/{tid}/players", headers=host,
                  json={"name": "Ann", "characters": ["Herald"]})  # fmt: skip
    assert r.status_code == 201, r.text
    ann = {"Authorization": f"Bearer {r.json()['token']}"}
    for _ in range(6):
        state = http.get(f"{base}/api/encounters/{eid}", headers=host).json()["state"]
        if state.get("current") == "Herald":
            break
        r = http.post(f"{base}/api/encounters/{eid}/commands", headers=host, json={"kind": "next"})
        assert r.status_code == 200, r.text
    stream = f"{base}/api/encounters/{eid}/stream"
    heard = {"Host": Listening(http, stream, host_token),
             "player": Listening(http, stream, ann["Authorization"].split()[1])}  # fmt: skip
    streams.extend(heard.values())
    assert {who: s.status for who, s in heard.items()} == {"Host": 200, "player": 200}
    r = http.post(f"{base}/api/encounters/{eid}/commands", headers=ann,
                  json={"kind": "stance", "args": {"id": "Herald"}})  # fmt: skip
    assert r.status_code == 200, r.text
    for listening in heard.values():
        listening.heard('"stance"')
    return {who: listening.close() for who, listening in heard.items()}
