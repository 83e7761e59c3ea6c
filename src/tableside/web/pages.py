"""Server-rendered pages (Jinja2, every value auto-escaped) with a script for live play.

The fight page shows whose Turn it is, the combatants and the live log, and has the Strike or
attack form: its odds (``POST …/odds``), the server's dice or physical dice with ``best``'s
suggestion (``POST …/preview``), accepted or changed into explicit steps (docs/web.md, The play
form). The log's breakdown lines are written here for the first render and by the script for
live records, the same lines (a browser test compares them).

The script builds every node with ``textContent`` (never ``innerHTML``) and the page's data is
passed to it as JSON through ``tojson``; a Content-Security-Policy with a per-page nonce lets no
other script run, and no page is sent on as a referrer. No page carries a token: the browser's
session cookie authenticates the script's requests, which send the page's CSRF proof back as
``X-CSRF-Token`` (W-11); a stream whose token is revoked ends with a ``revoked`` event (W-12).
"""

from __future__ import annotations

import json
import secrets
from importlib import resources
from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, select_autoescape

from tableside.store.db import EncounterInfo

# The War Strike's numeric options (StrikeArgs) under "More options", with their labels.
WAR_NUMBERS = (
    ("inspiration", "Inspiration tokens"),
    ("obstruction", "Obstruction tokens"),
    ("striker_adjustments", "Striker raw Adjustments"),
    ("defender_adjustments", "Defender raw Adjustments"),
    ("wear_flat", "Wear +flat"),
    ("wear_percent", "Wear %"),
    ("ignore_stops", "Ignore Stops"),
    ("superiority", "Superiority"),
)

# The Strike's modifiers that only the Host sets: a player's are proposals (D-4).
HOST_NUMBERS = frozenset(
    {"striker_adjustments", "defender_adjustments", "wear_flat", "wear_percent", "ignore_stops",
     "superiority"}
)  # fmt: skip

# The fight page's scripts, inlined in this order as one script under the page's CSP nonce:
# core.js first (shared names, the state and its listeners), play.js last (it starts the page).
STATIC = resources.files("tableside.web").joinpath("static")
SCRIPTS = ("core.js", "log.js", "cards.js", "decisions.js", "map.js", "play.js")
SCRIPT = "\n".join(STATIC.joinpath(f).read_text("utf-8") for f in SCRIPTS)
# Every page's style sheet, inlined in base.html: base.css, then one file per part of the page.
STYLES = ("base.css", "cards.css", "play.css", "map.css", "log.css", "chat.css")
STYLE = "\n".join(STATIC.joinpath(f).read_text("utf-8") for f in STYLES)

ENV = Environment(
    loader=PackageLoader("tableside.web", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
)
# ``tojson`` keeps the keys in the order the state has them (the combatants table's columns).
ENV.policies["json.dumps_kwargs"] = {"sort_keys": False}


def html(template: str, nonce: str = "", **values: Any) -> HTMLResponse:
    """A rendered page with headers that keep the token and other scripts out."""
    body = ENV.get_template(template).render(nonce=nonce, styles=STYLE, **values)
    script = f"'nonce-{nonce}'" if nonce else "'none'"
    headers = {
        "Content-Security-Policy": f"default-src 'self'; script-src {script}; "
        "style-src 'unsafe-inline'; object-src 'none'; base-uri 'none'",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-store",
    }
    return HTMLResponse(body, headers=headers)


def join_page(view: dict[str, Any]) -> HTMLResponse:
    """A player's table page (where a join link leads): the table's encounters."""
    return html("join.html", view=view)


def order_rows(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The War Scroll (or turn order) as text lines, the current Turn marked."""
    rows = []
    for i, turn in enumerate(state.get("order", [])):
        if isinstance(turn, str):
            rows.append({"text": turn, "current": turn == state.get("current")})
        else:
            text = f"{turn['segment']}: {turn['combatant']} ({turn['ap']} AP)"
            rows.append({"text": text, "current": i == state.get("turn")})
    return rows


def cell(value: Any) -> str:
    """A table cell's text."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def until(timed: dict[str, Any]) -> str:
    """When a timed effect ends (M-39): just before a Turn of a Cycle, or at its next Turn."""
    ends = timed.get("ends")
    if ends is None:
        return " until its next Turn"
    return f" until Cycle {ends['cycle']}, Turn {ends['turn'] + 1}"


def condition_text(c: dict[str, Any]) -> str:
    """A Realm of Strife condition with what ends it (S-23)."""
    return (
        str(c["name"])
        + (f" ({c['source']})" if c["source"] else "")
        + (f", {c['rounds_left']} rounds left" if c["rounds_left"] is not None else "")
        + (f", until {c['until']}" if c["until"] else "")
        + (f", {c['stacks']} stacks" if c["stacks"] > 1 else "")
    )


def cell_text(column: str, value: Any) -> str:
    """A combatants-table cell: timed effects and conditions as words, the rest as JSON."""
    if column == "timed" and isinstance(value, list):
        return "; ".join(f"{t['name']} ({t['source']}){until(t)}" for t in value) or "–"
    if column == "conditions" and isinstance(value, list):
        return "; ".join(condition_text(c) for c in value) or "–"
    return cell(value)


def whose(state: dict[str, Any], war: bool) -> str:
    """Whose Turn it is, in which Cycle (War) or round (fight)."""
    if state.get("ended"):
        return f"Ended — winner: {state.get('winner') or 'nobody'}"
    if not state.get("current"):
        return "Not started"
    when = f"Cycle {state['cycle']}" if war else f"Round {state['round']}"
    if not war and state["round"] == 0 and state.get("ambush"):
        when = f"Ambush round ({state['ambush']})"
    return f"{when}: {state['current']}'s Turn"


def compact(value: Any) -> str:
    """JSON as the script's ``JSON.stringify`` writes it (no spaces; non-ASCII kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


BY = {"host": "the Host", "timeout": "the deadline: the suggestion", "cli": "the command line"}


def by_words(by: object) -> str:
    """Who answered a decision, in words (a seat as "a player")."""
    text = str(by)
    return BY.get(text, "a player" if text.startswith("seat:") else text)


def choice_word(value: Any) -> str:
    """A decision's answer as the log shows it."""
    if value is None:
        return "none"
    return value if isinstance(value, str) else compact(value)


def record_head(r: dict[str, Any]) -> str:
    """A record's first line after its revision: a command, a request, an answer, undo, redo."""
    c = r["command"] or {}
    data = r.get("data") or {}
    asked = ", ".join(
        f"{q.get('combatant') or 'the Host'} ({q.get('kind')})" for q in data.get("requests") or []
    )
    if r["kind"] == "command":
        return f"{c.get('kind')} {compact(c.get('args', {}))}"
    if r["kind"] == "request":
        return f"{c.get('kind')} (command {r['seq']}) waits for {asked}"
    if r["kind"] == "answer":
        a = data.get("answer") or {}
        return (
            f"answer ({c.get('kind', '?')}, command {r['seq']}): {choice_word(a.get('value'))} "
            f"by {by_words(a.get('by'))}"
            + (f", {data['outcome']}" if data.get("outcome") else "")
            + (f"; then waits for {asked}" if asked else "")
        )
    return f"{r['kind']} ({c.get('kind', '?')}, command {r['seq']})"


def log_lines(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log as lines, as the script writes them."""
    out = []
    for r in records:
        out.append({"text": f"#{r['revision']} {record_head(r)}", "hidden": r["hidden"]})
        if r["kind"] in ("command", "answer"):
            for e in r["events"]:
                result = e["data"].get("result") if isinstance(e["data"], dict) else None
                if isinstance(result, dict) and result.get("schema") == STRIKE_SCHEMA:
                    texts = strike_lines(e, result)
                elif isinstance(result, dict) and result.get("schema") == ATTACK_SCHEMA:
                    texts = attack_lines(e, result)
                else:
                    texts = [f"    {e['kind']} {compact(e['data'])}  [{e['rule'] or '-'}]"]
                out += [{"text": text, "hidden": r["hidden"]} for text in texts]
    return out


STRIKE_SCHEMA = "tableside/majesty-strike"
ATTACK_SCHEMA = "tableside/strife-attack"


def strike_lines(event: dict[str, Any], s: dict[str, Any]) -> list[str]:
    """A Strike's breakdown as a few readable lines (as the script writes them)."""
    adj = ", ".join(f"{a['by']} {a['from']}→{a['to']}" for a in s["adjustments"])
    maneuvers = "".join(f" + {m}" for m in s["maneuvers"])
    out = [
        f"    {event['kind']} {s['striker']} → {s['defender']} with "
        f"{s['weapon'] or 'no weapon'}{maneuvers}  [{event['rule'] or '-'}]",
        f"      Precision {s['precision']['value']} · Guard {s['guard']['value']} · "
        f"Force {s['force']['value']}",
        f"      rolled {dice_text(s['rolled'])} → final {dice_text(s['final'])}"
        + (f" ({adj})" if adj else ""),
        f"      {s['hits']} hits, {s['stops']} stops → {s['uncanceled_hits']} hits uncanceled, "
        f"{s['uncanceled_stops']} stops",
    ]
    d = s.get("defender_after")
    if s.get("wear") and d:
        out.append(
            f"      {d['name']} takes {s['wear']['amount']} {s['wear']['kind']} Wear: "
            f"Endurance {d['endurance']}, Resolve {d['resolve']}, Passion {d['passion']}, "
            f"{d['status']}"
        )
    return out + strike_details(s)


def signed(n: float | str) -> str:
    """A number with its sign, as the script writes it (+0, +2, -1); a secret value as it is."""
    return f"{n:+g}" if isinstance(n, int | float) else str(n)


def labelled(items: list[dict[str, Any]]) -> str:
    """Labelled parts in brackets, or nothing."""
    shown = ", ".join(f"{p['label']} {p['amount']}" for p in items)
    return f" ({shown})" if items else ""


def wear_text(w: dict[str, Any]) -> str:
    """One Wear line's arithmetic (M-26)."""
    return (
        f"      Wear {w['kind']}: base {w['base']} ({w['hits']} hits, Force {w['force']}), "
        f"flat {signed(w['flat'])}, {signed(w['percent'])}% ({signed(w['delta'])}), "
        f"minimum {w['minimum']} → {w['amount']}"
    )


def strike_details(s: dict[str, Any]) -> list[str]:
    """The rest of a Strike's breakdown, as the script writes it.

    Every Adjustment and why, Boon/Bane discards, Epic, Effects fired, the Wear arithmetic,
    Falter, Status changes and the rulings used.
    """
    out = [
        f"      Adjustment die {a['die'] + 1}: {a['from']}→{a['to']} by {a['by']} — {a['why']}"
        for a in s["adjustments"]
    ]
    if s["discarded"]:
        out.append(
            f"      Boon/Bane {signed(s['boon_net'])}: discarded {dice_text(s['discarded'])}"
        )
    if s["epic"]:
        out.append(
            f"      Epic {s['epic']}: {s['natural_unpaired_twelves']} unpaired 12s, "
            f"{s['natural_unpaired_ones']} unpaired 1s in the natural roll"
        )
    if s["twelve_effects"] or s["passion_triggers"] or s["ap_gained"] or s["knock_back"]:
        out.append(
            f"      Effects fired: 12 Effects {s['twelve_effects_fired']} of "
            f"{s['twelve_effects']}, Passion Effects {s['passion_applied']} of "
            f"{s['passion_triggers']}, AP gained {s['ap_gained']}, Knock Back "
            f'{s["knock_back"]:g}"'
        )
    out += [wear_text(w) for w in (s["wear"], *s["additional_wear"]) if w]
    back = s["wear_to_striker"]
    if back:
        out.append(
            f"      {s['striker']} takes {back['amount']} {back['kind']} Wear from "
            f"{s['defensive_hits']} Defensive Hits"
        )
    return out + falter_status(s) + [f"      rulings {', '.join(s['rulings'])}"]


def falter_status(s: dict[str, Any]) -> list[str]:
    """Falter dealt (M-22, M-27) and Status changes (M-24) of a Strike."""
    out = []
    if s["defender_falter"] or s["striker_falter"]:
        out.append(
            f"      Falter: {s['defender']} {s['defender_falter']}"
            f"{labelled(s['defender_falter_parts'])}, {s['striker']} {s['striker_falter']}"
        )
    if s["defender_status_change"] or s["striker_status_change"]:
        out.append(
            f"      Status: {s['defender']} {s['defender_status_change'] or 'unchanged'}, "
            f"{s['striker']} {s['striker_status_change'] or 'unchanged'}"
        )
    return out


def dice_text(values: list[int]) -> str:
    """Dice as the log shows them."""
    return " ".join(str(v) for v in values)


def encounter_page(
    view: dict[str, Any],
    info: EncounterInfo,
    state: dict[str, Any],
    records: list[dict[str, Any]],
    csrf: str,
) -> HTMLResponse:
    """The fight: order, combatants, the Strike or attack form with odds, commands, the log.

    ``csrf`` is the session's CSRF proof (W-11), which the script sends with every request.
    """
    rows = state.get("combatants", state.get("models", []))
    columns = [*rows[0], "distance"] if rows else []
    war = info.game == "majesty-war"
    boot = {
        "encounter": info.id,
        "csrf": csrf,
        "revision": state["revision"],
        "game": info.game,
        "state": state,
        "numbers": [name for name, _label in WAR_NUMBERS],
        "role": view["role"],
        "characters": view["seat"]["characters"] if "seat" in view else [],
    }
    return html(
        "encounter.html",
        nonce=secrets.token_urlsafe(16),
        view=view,
        info=info,
        state=state,
        war=war,
        war_numbers=WAR_NUMBERS,
        host_numbers=HOST_NUMBERS,
        whose=whose(state, war),
        order=order_rows(state),
        columns=columns,
        rows=[[cell_text(c, r.get(c, "")) for c in columns] for r in rows],
        log=log_lines(records),
        boot=boot,
        script=SCRIPT,
    )


def words(text: object) -> str:
    """An identifier as words (critical_hit → critical hit)."""
    return str(text).replace("_", " ")


def attack_effect(x: dict[str, Any], s: dict[str, Any]) -> str:
    """One % effect roll, condition inflicted or item damaged (S-23)."""
    if x["kind"] == "percent":
        applied = "applied" if x["applied"] else "not applied"
        return f"      {x['name']}: d100 {x['roll']} vs {x['chance']}% → {applied}"
    if x["kind"] == "condition":
        who = s["attacker"] if x["target"] == "attacker" else s["defender"]
        return f"      {who} gets {x['name']} ({x['source']})"
    return f"      {x['item']} damaged"


def attack_lines(event: dict[str, Any], s: dict[str, Any]) -> list[str]:
    """A Realm of Strife attack's breakdown (S-7 … S-14, S-23), as the script writes it."""
    precision = " (Precision Attack)" if s["precision"] is True else ""
    out = [
        f"    {event['kind']} {s['attacker']} → {s['defender']} with {s['weapon']}{precision}"
        f"  [{event['rule'] or '-'}]"
    ]
    if isinstance(s["ward_off"], dict):
        warded = ", the attack is warded off" if s["warded_off"] else ""
        out.append(f"      Ward-off roll-off: {s['ward_off']['winner']} wins{warded}")
    if s["natural"] is not None:
        out.append(
            f"      d100 {dice_text(s['naturals'])}{labelled(s['modifiers'])} → {s['modified']} "
            f"vs AC {s['ac']}, Dodge {s['dodge']}: {words(s['outcome'])}"
        )
    return (
        out
        + reaction_damage(s)
        + [attack_effect(x, s) for x in s["effects"]]
        + [f"      rulings {', '.join(s['rulings'])}"]
    )


def is_positive(value: Any) -> bool:
    """Whether ``value`` is a number above 0 (a secret value is not, W-4)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def reaction_damage(s: dict[str, Any]) -> list[str]:
    """The reaction's roll (S-10 … S-13) and the damage dealt (S-14) of one attack.

    A flag prints only when it is true: a secret one (``"secret"``) is not said to have happened.
    """
    out = []
    r = s["reaction"]
    if isinstance(r, dict):
        out.append(
            f"      {words(r['kind'])} with {', '.join(r['items'])}: d20 {r['roll']}"
            f"{labelled(r['parts'])} = {r['total']}, {r['result']}"
            + (", stopped" if r["stopped"] is True else "")
            + (", disarmed" if r["disarmed"] is True else "")
            + (", item damaged" if r["item_damaged"] is True else "")
        )
    d = s["damage"]
    if isinstance(d, dict):
        multiplier = d["crit_multiplier"]
        crit = f", ×{multiplier}" if isinstance(multiplier, int) and multiplier > 1 else ""
        absorbed = f", {d['absorbed']} absorbed" if is_positive(d["absorbed"]) else ""
        out.append(
            f"      damage {d['dice']}: rolled {dice_text(d['rolls'])}{labelled(d['parts'])} = "
            f"{d['total']} ({d['basis']}{crit}{absorbed})"
        )
    return out
