"""W-7 and W-8: every argument bounded to what the rules can use, names, Maneuvers and booleans.

Each refusal is a 4xx with ``{"error": ...}`` on the web (the encounter's revision unchanged) or
exit code 2 with one sentence on the CLI, before any die is rolled.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
import typer
from clirun import refusal
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_cli import HERALD, WARRIOR, run
from test_web_api import Fight, auth, client, fight

from tableside import limits
from tableside.cli.app import app
from tableside.errors import RulesError
from tableside.strife.attack import AttackSetup
from tableside.strife.catalog import builtin_catalog
from tableside.strife.odds import simulate_attacks
from tableside.web.auth import SESSION_COOKIE, csrf_token

__all__ = ["client", "fight"]  # the fixtures, imported from test_web_api

ROOT = Path(__file__).resolve().parents[1]
HUGE = 10**30
DIGITS_5000 = "9" * 5000
FAST = 1.0  # CPU seconds (steady when other work shares the cores): a refusal comes before any die


# --- helpers ------------------------------------------------------------------------------------


def players_strike(fight: Fight) -> tuple[dict[str, str], dict[str, Any]]:
    """The token of the player whose character's Turn it is, and a Strike it may make."""
    current = fight.state()["current"]
    holy = current in ("Herald", "Watcher")
    owner = fight.holy if holy else fight.fallen
    defender = "Warrior" if holy else "Herald"
    return owner, {"striker": current, "defender": defender}


def refused(fight: Fight, response: Any, before: int) -> str:
    """The refusal's sentence, after checking it is a 4xx JSON error that wrote nothing."""
    assert 400 <= response.status_code < 500, response.text
    body = response.json()
    assert set(body) == {"error"} and isinstance(body["error"], str), body
    assert len(body["error"]) < 400, body["error"]  # a huge value is never echoed back
    assert fight.state()["revision"] == before
    error: str = body["error"]
    return error


def strike(fight: Fight, **args: Any) -> tuple[Any, int]:
    before = fight.state()["revision"]
    owner, base = players_strike(fight)
    return fight.command(owner, "strike", args={**base, **args}), before


def strife_fight(client: TestClient) -> Fight:
    r = client.post("/api/tables", json={"name": "Mill night"})
    tid, host = r.json()["id"], auth(r.json()["host_token"])
    r = client.post(
        f"/api/tables/{tid}/encounters",
        headers=host,
        json={"game": "strife-combat", "name": "Mill", "seed": 5},
    )
    eid = r.json()["id"]
    table = client.app.state.table  # type: ignore[attr-defined]
    f = Fight(client, table, tid, eid, host, host, host, [])
    for args in (
        {"id": "Aldric", "model": "Aldric", "side": "heroes"},
        {"id": "Goblin", "model": "Goblin", "side": "monsters", "position": [1, 0, 0]},
    ):
        assert f.command(host, "add", args=args).status_code == 200
    assert f.command(host, "start").status_code == 200
    return f


# --- W-7 on the web: every argument of every command ----------------------------------------------


@pytest.mark.parametrize("value", [7, 10**6, HUGE])
@pytest.mark.parametrize("field", ["boon", "bane"])
def test_w7_a_players_strike_with_a_huge_boon_or_bane_is_refused_fast(
    fight: Fight, field: str, value: int
) -> None:
    start = time.process_time()
    response, before = strike(fight, **{field: value})
    elapsed = time.process_time() - start
    error = refused(fight, response, before)
    assert f"field {field}" in error and "6" in error
    assert elapsed < FAST, elapsed


# (argument, lowest allowed, highest allowed) of a War Strike (W-7)
STRIKE_BOUNDS = [
    ("boon", 0, limits.BOON_MAX),
    ("bane", 0, limits.BOON_MAX),
    ("ignore_stops", 0, limits.IGNORE_STOPS_MAX),
    ("striker_adjustments", 0, limits.ADJUSTMENTS_MAX),
    ("defender_adjustments", 0, limits.ADJUSTMENTS_MAX),
    ("inspiration", 0, limits.ADJUSTMENTS_MAX),
    ("obstruction", 0, limits.ADJUSTMENTS_MAX),
    ("superiority", -limits.SUPERIORITY_MAX, limits.SUPERIORITY_MAX),
    ("wear_flat", -limits.WEAR_FLAT_MAX, limits.WEAR_FLAT_MAX),
    ("wear_percent", limits.WEAR_PERCENT_MIN, limits.WEAR_PERCENT_MAX),
]


def outside(low: int, high: int) -> st.SearchStrategy[int]:
    return st.one_of(
        st.integers(max_value=low - 1, min_value=low - 10**40),
        st.integers(min_value=high + 1, max_value=high + 10**40),
    )


@pytest.mark.parametrize(("field", "low", "high"), STRIKE_BOUNDS, ids=[b[0] for b in STRIKE_BOUNDS])
def test_w7_any_out_of_range_strike_argument_is_refused_and_writes_nothing(
    fight: Fight, field: str, low: int, high: int
) -> None:
    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(outside(low, high))
    def check(value: int) -> None:
        response, before = strike(fight, **{field: value})
        assert f"field {field}" in refused(fight, response, before)

    check()


def test_w7_the_bounds_themselves_are_accepted(fight: Fight) -> None:
    response, _ = strike(
        fight, boon=limits.BOON_MAX, bane=limits.BOON_MAX, ignore_stops=limits.IGNORE_STOPS_MAX
    )
    # the arguments pass; what answers is the rules' own reading (range, M-15) or the Strike
    assert response.status_code == 200 or "field" not in response.json()["error"], response.text


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"maneuvers": ["Feint"] * (limits.MANEUVERS_MAX + 1)}, "maneuvers"),
        ({"path": [[0, 0, 0]] * (limits.PATH_MAX + 1)}, "path"),
        ({"mode": "explicit", "steps": [{"die": limits.DICE_MAX, "delta": 1}]}, "steps.0.die"),
        ({"mode": "explicit", "steps": [{"die": 0, "delta": 1}] * (limits.STEPS_MAX + 1)}, "steps"),
        ({"weapon": "S" * (limits.NAME_MAX + 1)}, "weapon"),
    ],
    ids=["maneuvers", "path", "step die", "steps", "weapon name"],
)
def test_w7_counts_and_lengths_of_a_strike_are_bounded(
    fight: Fight, args: dict[str, Any], field: str
) -> None:
    response, before = strike(fight, **args)
    assert f"field {field}" in refused(fight, response, before)


@pytest.mark.parametrize(
    ("kind", "args", "field"),
    [
        ("apply_effect", {"id": "Herald", "effect": "falter", "amount": 10**9}, "amount"),
        ("host_set", {"id": "Herald", "field": "exertion", "value": HUGE}, "value"),
        ("rest", {"id": "Herald", "ap": 8}, "ap"),
    ],
)
def test_w7_host_commands_of_the_war_are_bounded(
    fight: Fight, kind: str, args: dict[str, Any], field: str
) -> None:
    before = fight.state()["revision"]
    response = fight.command(fight.host, kind, args=args)
    assert f"field {field}" in refused(fight, response, before)


@pytest.mark.parametrize(
    ("kind", "args", "field"),
    [
        (
            "attack",
            {"attacker": "Aldric", "attacks": [{"defender": "Goblin", "modifiers": [HUGE]}]},
            "attacks.0.modifiers.0",
        ),
        (
            "attack",
            {"attacker": "Aldric", "attacks": [{"defender": "Goblin", "modifiers": [1] * 11}]},
            "attacks.0.modifiers",
        ),
        (
            "cast",
            {
                "caster": "Aldric",
                "targets": ["Goblin"],
                "power": "Bolt",
                "element": "fire",
                "damage": "1d6",
                "spell_power": HUGE,
            },
            "spell_power",
        ),
        ("condition", {"id": "Goblin", "name": "Stun", "rounds": HUGE}, "rounds"),
        ("host_set", {"id": "Goblin", "field": "hp", "value": -HUGE}, "value"),
        ("move", {"id": "Aldric", "to": [limits.POSITION_MAX * 2, 0, 0]}, "to"),
    ],
    ids=["modifier", "modifier count", "spell power", "rounds", "hp", "position"],
)
def test_w7_strife_command_arguments_are_bounded(
    client: TestClient, kind: str, args: dict[str, Any], field: str
) -> None:
    f = strife_fight(client)
    before = f.state()["revision"]
    response = f.command(f.host, kind, args=args)
    assert f"field {field}" in refused(f, response, before)


def test_w7_strife_damage_dice_of_5000_digits_are_refused(client: TestClient) -> None:
    f = strife_fight(client)
    before = f.state()["revision"]
    args = {
        "caster": "Aldric",
        "targets": ["Goblin"],
        "power": "Bolt",
        "element": "fire",
        "damage": f"{DIGITS_5000}d6",
    }
    refused(f, f.command(f.host, "cast", args=args), before)


# --- W-7 on the web: numbers the JSON parser and the documents hold -----------------------------


@pytest.mark.parametrize("digits", [4000, 5000])
def test_w7_numbers_of_thousands_of_digits_in_a_body_are_4xx_not_500(
    fight: Fight, digits: int
) -> None:
    before = fight.state()["revision"]
    owner, base = players_strike(fight)
    body = (
        f'{{"kind": "strike", "args": {{"striker": "{base["striker"]}", '
        f'"defender": "{base["defender"]}", "boon": {"9" * digits}}}}}'
    )
    response = fight.client.post(
        f"/api/encounters/{fight.eid}/commands",
        content=body,
        headers={**owner, "Content-Type": "application/json"},
    )
    assert 400 <= response.status_code < 500, response.text
    assert fight.state()["revision"] == before


def test_w7_typed_dice_faces_are_bounded(fight: Fight) -> None:
    before = fight.state()["revision"]
    owner, base = players_strike(fight)
    body = {"kind": "strike", "args": base, "dice": [HUGE, 1, 1, 1, 1, 1, 1]}
    response = fight.post("/commands", owner, body)
    assert "field dice.0" in refused(fight, response, before)


def test_w7_a_character_documents_numbers_are_bounded(fight: Fight) -> None:
    doc = dict(fight.state()["combatants"][0].get("character") or {})
    doc = {
        "format": "tableside/majesty-character",
        "version": 1,
        "name": "Giant",
        "attributes": {
            "might": HUGE,
            "swiftness": 30,
            "control": 30,
            "endurance": 30,
            "resolve": 30,
            "passion": 30,
        },
    }
    before = fight.state()["revision"]
    response = fight.post("/characters", fight.host, {"character": doc})
    assert "attributes.might" in refused(fight, response, before)
    doc["attributes"]["might"] = 30
    doc["tier"] = limits.TIER_MAX + 1
    assert "tier" in refused(
        fight, fight.post("/characters", fight.host, {"character": doc}), before
    )


def test_w7_a_strife_sheets_numbers_are_bounded(client: TestClient) -> None:
    f = strife_fight(client)
    sheet = builtin_catalog().combatant("Goblin").model_dump(mode="json")
    before = f.state()["revision"]
    for key, value in (("hp", HUGE), ("hp_max", 10**9)):
        response = f.post(
            "/characters", f.host, {"id": "Big", "sheet": {**sheet, key: value}, "side": "monsters"}
        )
        assert f"field {key}" in refused(f, response, before)


def test_w7_the_set_up_form_refuses_numbers_of_5000_digits_and_nan(fight: Fight) -> None:
    base = f"/tables/{fight.tid}/encounters/{fight.eid}/characters"
    token = fight.host["Authorization"].removeprefix("Bearer ")
    # The Host's browser: the join link gives the session cookie, forms carry its proof (W-11).
    assert fight.client.get(f"/join/{token}", follow_redirects=False).status_code == 303
    proof = csrf_token(fight.client.cookies[SESSION_COOKIE])
    form = {
        "mode": "form",
        "name": "Giant",
        "side": "holy",
        "might": DIGITS_5000,
        "swiftness": "30",
        "control": "30",
        "endurance": "30",
        "resolve": "30",
        "passion": "30",
    }
    before = fight.state()["revision"]
    form["csrf"] = proof
    response = fight.client.post(base, data=form)
    assert response.status_code == 400 and "more than 20 digits" in response.text
    assert DIGITS_5000 not in response.text.replace(f'value="{DIGITS_5000}"', "")
    for bad in ("nan", "inf", "1e308"):
        response = fight.client.post(base, data={**form, "might": "30", "x": bad})
        assert response.status_code == 400 and "Position x must be a number" in response.text
    fight.client.cookies.clear()
    assert fight.state()["revision"] == before


# --- W-8 on the web --------------------------------------------------------------------------


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_w8_nan_and_infinity_positions_are_refused(fight: Fight, literal: str) -> None:
    before = fight.state()["revision"]
    current = fight.state()["current"]
    body = f'{{"kind": "move", "args": {{"id": "{current}", "to": [{literal}, 0, 0]}}}}'
    response = fight.client.post(
        f"/api/encounters/{fight.eid}/commands",
        content=body,
        headers={**fight.host, "Content-Type": "application/json"},
    )
    assert "field to.0" in refused(fight, response, before)
    body = (
        f'{{"character": {{"format": "tableside/majesty-character", "version": 1, '
        f'"name": "Far", "attributes": {{"might": 30, "swiftness": 30, "control": 30, '
        f'"endurance": 30, "resolve": 30, "passion": 30}}}}, "position": [0, {literal}, 0]}}'
    )
    response = fight.client.post(
        f"/api/encounters/{fight.eid}/characters",
        content=body,
        headers={**fight.host, "Content-Type": "application/json"},
    )
    refused(fight, response, before)


@pytest.mark.parametrize("value", ["yes", 1, "true", 0, None, [True]])
def test_w8_hidden_is_a_json_boolean_only(fight: Fight, value: Any) -> None:
    before = fight.state()["revision"]
    response = fight.command(fight.host, "next", hidden=value)
    assert "hidden" in refused(fight, response, before)


@pytest.mark.parametrize(
    ("kind", "args", "field"),
    [
        ("strike", {"ranged": "yes"}, "ranged"),
        ("strike", {"two_ap": 1}, "two_ap"),
        ("strike", {"full_defensive_stance": "false"}, "full_defensive_stance"),
        ("stance", {"on": "yes"}, "on"),
    ],
)
def test_w8_boolean_arguments_are_booleans(
    fight: Fight, kind: str, args: dict[str, Any], field: str
) -> None:
    owner, base = players_strike(fight)
    given_args = {**base, **args} if kind == "strike" else {"id": base["striker"], **args}
    before = fight.state()["revision"]
    response = fight.command(owner, kind, args=given_args)
    assert f"field {field}" in refused(fight, response, before)


def test_w8_the_secrecy_settings_take_booleans_only(fight: Fight) -> None:
    path = f"/api/encounters/{fight.eid}/secrets"
    for body in ({"npcs_secret": "yes"}, {"npcs_secret": 1}):
        response = fight.client.put(path, headers=fight.host, json=body)
        assert response.status_code == 422, response.text
    response = fight.client.put(f"{path}/Herald", headers=fight.host, json={"secret": "no"})
    assert response.status_code == 422, response.text


def test_w8_a_maneuver_named_twice_in_one_strike_is_refused(fight: Fight) -> None:
    response, before = strike(fight, maneuvers=["Feint", "Feint"])
    error = refused(fight, response, before)
    assert "field maneuvers" in error and "twice" in error
    response, _ = strike(fight, maneuvers=["Feint", "feint"])
    assert "twice" in refused(fight, response, before)


BAD_NAMES = ["Ann\x1b[31m", "Ann\nBo", "Ann\u202eoB", "A\u200bnn", "Ann\x85", "Ann\u2028"]


@pytest.mark.parametrize("name", BAD_NAMES, ids=["esc", "newline", "rlo", "zwsp", "nel", "ls"])
def test_w8_names_refuse_control_and_format_characters(fight: Fight, name: str) -> None:
    client = fight.client
    assert client.post("/api/tables", json={"name": name}).status_code in (400, 422)
    r = client.post(
        f"/api/tables/{fight.tid}/encounters",
        headers=fight.host,
        json={"game": "majesty-war", "name": name},
    )
    assert r.status_code in (400, 422), r.text
    r = client.post(f"/api/tables/{fight.tid}/players", headers=fight.host, json={"name": name})
    assert r.status_code in (400, 422), r.text
    doc = {
        "format": "tableside/majesty-character",
        "version": 1,
        "name": name,
        "attributes": {
            a: 30 for a in ("might", "swiftness", "control", "endurance", "resolve", "passion")
        },
    }
    before = fight.state()["revision"]
    response = fight.post("/characters", fight.host, {"id": "Newcomer", "character": doc})
    assert "control or format characters" in refused(fight, response, before)
    table = client.get(f"/api/tables/{fight.tid}", headers=fight.host).json()
    assert [e["name"] for e in table["encounters"]] == ["Ford"]
    assert [s["name"] for s in table["seats"]] == ["Ann", "Bo"]


def test_w8_a_table_name_with_control_characters_is_refused_by_the_form(client: TestClient) -> None:
    response = client.post("/tables", data={"name": "Friday\u202e"})
    assert response.status_code == 400 and "control characters" in response.text


def test_w8_strife_condition_and_side_names_refuse_control_characters(client: TestClient) -> None:
    f = strife_fight(client)
    before = f.state()["revision"]
    response = f.command(f.host, "condition", args={"id": "Goblin", "name": "Stun\x07"})
    assert "field name" in refused(f, response, before)
    response = f.command(
        f.host, "add", args={"id": "Rat", "model": "Goblin", "side": "mon\u202esters"}
    )
    assert "field side" in refused(f, response, before)


# --- W-7 on the command line --------------------------------------------------------------------


HUGE_TEXT = str(HUGE)
CLI_REFUSALS = [
    (["majesty", "roll", "--bane", HUGE_TEXT], "--bane must be 0 to 6"),
    (["majesty", "roll", "--boon", "7"], "--boon must be 0 to 6"),
    (["odds", "strike", "--mc", HUGE_TEXT], "--mc must be 1 to 10000000"),
    (["odds", "strike", "--force", HUGE_TEXT], "--force must be 0 to 10000"),
    (["odds", "strike", "--boon", HUGE_TEXT], "--boon must be 0 to 6"),
    (["odds", "check", "--attribute", "30", "--mc", HUGE_TEXT], "--mc must be"),
    (
        ["majesty", "strike", "--striker", HERALD, "--defender", WARRIOR, "--ignore-stops", "14"],
        "--ignore-stops must be 0 to 13",
    ),
    (["majesty", "strike", "--inspiration", HUGE_TEXT], "--inspiration must be 0 to 143"),
    (["majesty", "strike", "--distance", "nan"], "--distance must be"),
    (["majesty", "strike", "--distance", "inf"], "--distance must be"),
    (["majesty", "check", "--attribute", HUGE_TEXT], "--attribute must be -40 to 10000"),
    (["strife", "attack", "Aldric", "Goblin", "--modifier", HUGE_TEXT], "--modifier must be"),
    (["strife", "attack", "Aldric", "Goblin", "--seed", str(2**64)], "--seed must be"),
    (
        ["odds", "attack", "Aldric", "Goblin", "--mc", str(limits.ATTACK_MC_MAX + 1)],
        f"at most {limits.ATTACK_MC_MAX} attacks",
    ),
    (["majesty", "roll", "--dice", DIGITS_5000], "--dice faces are at most 100"),
    (
        ["majesty", "roll", "--dice", ",".join(["1"] * (limits.DICE_TYPED_MAX + 1))],
        "--dice lists at most",
    ),
    (["majesty", "strike", "--striker-at", "nan,0,0"], "--striker-at needs finite positions"),
    (
        ["majesty", "strike", "--path", ";".join(["1,0,0"] * (limits.PATH_MAX + 1))],
        "--path has at most",
    ),
    (
        ["majesty", "strike", "--mode", "explicit", "--adjust", f"{DIGITS_5000}+"],
        "--adjust entries look like",
    ),
    (
        ["majesty", "strike", "--striker-attributes", f"{DIGITS_5000},1,1,1,1,1"],
        "--striker-attributes needs six whole numbers",
    ),
    (
        ["strife", "attack", "Aldric", "Goblin", "--dice", f"hit={DIGITS_5000}"],
        "--dice must list whole numbers",
    ),
    (
        ["simulate", str(ROOT / "examples" / "war_4v4.json"), "--runs", HUGE_TEXT],
        "The number of runs must be",
    ),
]


@pytest.mark.parametrize(
    ("args", "named"),
    CLI_REFUSALS,
    ids=[" ".join(a[:3])[:40] + f" {i}" for i, (a, _) in enumerate(CLI_REFUSALS)],
)
def test_w7_cli_out_of_range_numbers_exit_2_with_one_sentence_quickly(
    args: list[str],
    named: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    start = time.process_time()
    result = run(args, capsys, monkeypatch)
    elapsed = time.process_time() - start
    sentence = refusal(result)
    assert named in sentence
    assert len(sentence) < 300
    assert elapsed < 5 * FAST, elapsed


def numeric_parameters() -> list[tuple[str, Any]]:
    found = []

    def walk(command: Any, path: str) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}")
        for param in getattr(command, "params", []):
            annotation = str(param.type_descriptor.annotation)
            if re.search(r"\b(int|float)\b", annotation):
                found.append((f"{path} --{param.name}", param))

    walk(typer.main.get_command(app), "tableside")
    return found


def test_w7_every_numeric_cli_option_has_a_named_bound() -> None:
    parameters = numeric_parameters()
    assert len(parameters) > 150
    for where, param in parameters:
        assert param.name in limits.CLI_BOUNDS, where
        if param.name not in limits.CLI_OWN_CHECKS:
            assert param.callback is not None, f"{where} is not bounded"


def test_w7_monte_carlo_of_attacks_is_capped_before_any_roll() -> None:
    catalog = builtin_catalog()
    setup = AttackSetup(
        catalog.combatant("Aldric"), catalog.combatant("Goblin"), catalog.weapon("Long Sword")
    )
    start = time.process_time()
    with pytest.raises(RulesError, match="at most"):
        simulate_attacks(setup, HUGE, 1)
    assert time.process_time() - start < FAST


# --- the documentation and the code agree -------------------------------------------------------


def test_w7_the_security_docs_state_every_bound_as_the_code_has_it() -> None:
    text = (ROOT / "docs" / "security.md").read_text("utf-8")
    section = text.split("## Bounds on every argument", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `([A-Z_]+)` \| ([^|]+?) \|", section, re.MULTILINE))
    constants = {
        name: value
        for name, value in vars(limits).items()
        if name.isupper() and isinstance(value, int | float) and not name.startswith("_")
    }
    assert set(constants) <= set(rows), sorted(set(constants) - set(rows))
    for name, shown in rows.items():
        assert name in constants, name
        literal = shown.replace("_", "")
        value = float(literal) if "." in literal else int(literal)
        assert value == constants[name], name
