"""Server-rendered pages (Jinja2, every value auto-escaped) with a little script for live updates.

The script builds every node with ``textContent`` (never ``innerHTML``) and the page's data is
passed to it as JSON through ``tojson``; a Content-Security-Policy with a per-page nonce lets no
other script run, and the token in the URL is not sent on as a referrer.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import DictLoader, Environment, select_autoescape

from tableside.store.db import EncounterInfo

BASE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{% block title %}{% endblock %} · Tableside</title>
<style>
body{font-family:system-ui,sans-serif;margin:1rem;max-width:70rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .4rem}
.current{background:#ffe9a8}#log{font-family:monospace;white-space:pre-wrap;max-height:30rem;
overflow:auto;border:1px solid #ccc;padding:.4rem}.hidden{color:#777}#error{color:#b00}
</style></head><body>{% block body %}{% endblock %}</body></html>
"""

JOIN = """{% extends "base.html" %}
{% block title %}{{ view.name }}{% endblock %}
{% block body %}
<h1>{{ view.name }}</h1>
<p>You are {% if view.role == "host" %}the Host{% else %}{{ view.seat.name }}, playing
{{ view.seat.characters | join(", ") or "no character yet" }}{% endif %}.</p>
<ul>{% for e in view.encounters %}
<li><a href="/tables/{{ view.id }}/encounters/{{ e.id }}?token={{ token | urlencode }}">
{{- e.name }}</a>
({{ e.game }}, revision {{ e.revision }})</li>
{% else %}<li>No encounter yet.</li>{% endfor %}</ul>
{% endblock %}
"""

ENCOUNTER = """{% extends "base.html" %}
{% block title %}{{ info.name }}{% endblock %}
{% block body %}
<h1>{{ info.name }}</h1>
<p>{{ view.name }} · {{ info.game }} ·
{% if view.role == "host" %}Host{% else %}{{ view.seat.name }}
({{ view.seat.characters | join(", ") }}){% endif %} ·
revision <span id="revision">{{ state.revision }}</span></p>
<h2>{% if info.game == "majesty-war" %}War Scroll{% else %}Turn order{% endif %}</h2>
<ol id="order">{% for turn in order %}
<li{% if turn.current %} class="current"{% endif %}>{{ turn.text }}</li>{% endfor %}</ol>
<h2>Combatants</h2>
<table id="combatants"><thead><tr>{% for c in columns %}<th>{{ c }}</th>{% endfor %}</tr></thead>
<tbody>{% for row in rows %}
<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>{% endfor %}
</tbody></table>
<h2>Command</h2>
<form id="command">
<label>Kind <input id="kind" name="kind" required maxlength="40"></label>
<label>Arguments (JSON) <textarea id="args" name="args" rows="2" cols="50">{}</textarea></label>
<label>Dice <input id="dice" name="dice" placeholder="9,4,12,…"></label>
{% if view.role == "host" %}<label><input type="checkbox" id="hidden" name="hidden"> hidden</label>
{% endif %}<button id="send">Send</button>
{% if view.role == "host" %}<button type="button" id="undo">Undo</button>
<button type="button" id="redo">Redo</button>{% endif %}
</form><p id="error" role="alert"></p>
<h2>Log</h2><div id="log">{% for line in log %}<div{% if line.hidden %} class="hidden"{% endif %}>
{{- line.text }}</div>{% endfor %}</div>
<script type="application/json" id="boot">{{ boot | tojson }}</script>
<script nonce="{{ nonce }}">{{ script | safe }}</script>
{% endblock %}
"""

SCRIPT = r"""
const boot = JSON.parse(document.getElementById('boot').textContent);
const api = '/api/encounters/' + boot.encounter;
const auth = {'Authorization': 'Bearer ' + boot.token, 'Content-Type': 'application/json'};
const el = (tag, text, cls) => { const n = document.createElement(tag);
  n.textContent = text; if (cls) n.className = cls; return n; };
const cell = v => (v !== null && typeof v === 'object') ? JSON.stringify(v) : String(v);
function lines(r) {
  const c = r.command || {};
  const head = '#' + r.revision + ' ' + (r.kind === 'command' ? c.kind + ' ' +
    JSON.stringify(c.args || {}) : r.kind + ' (' + (c.kind || '?') + ', command ' + r.seq + ')');
  const out = [head];
  if (r.kind === 'command') for (const e of r.events) {
    const s = e.data && e.data.result;
    if (s && s.schema === 'tableside/majesty-strike') out.push(...strike(e, s));
    else out.push('    ' + e.kind + ' ' + JSON.stringify(e.data) + '  [' + (e.rule || '-') + ']');
  }
  return out;
}
function strike(e, s) {
  const dice = d => d.join(' ');
  const adj = s.adjustments.map(a => a.by + ' ' + a.from + '→' + a.to).join(', ');
  const out = ['    ' + e.kind + ' ' + s.striker + ' → ' + s.defender + ' with ' +
    (s.weapon || 'no weapon') + s.maneuvers.map(m => ' + ' + m).join('') +
    '  [' + (e.rule || '-') + ']',
    '      Precision ' + s.precision.value + ' · Guard ' + s.guard.value + ' · Force ' +
    s.force.value,
    '      rolled ' + dice(s.rolled) + ' → final ' + dice(s.final) +
    (adj ? ' (' + adj + ')' : ''),
    '      ' + s.hits + ' hits, ' + s.stops + ' stops → ' + s.uncanceled_hits +
    ' hits uncanceled, ' + s.uncanceled_stops + ' stops'];
  const d = s.defender_after;
  if (s.wear && d) out.push('      ' + d.name + ' takes ' + s.wear.amount + ' ' + s.wear.kind +
    ' Wear: Endurance ' + d.endurance + ', Resolve ' + d.resolve + ', Passion ' + d.passion +
    ', ' + d.status);
  return out;
}
function show(state) {
  document.getElementById('revision').textContent = state.revision;
  const order = document.getElementById('order'); order.replaceChildren();
  (state.order || []).forEach((t, i) => {
    const name = typeof t === 'string' ? t : t.segment + ': ' + t.combatant + ' (' + t.ap + ' AP)';
    const who = typeof t === 'string' ? t : t.combatant;
    order.append(el('li', name, (who === state.current && (typeof t === 'string' ||
      i === state.turn)) ? 'current' : ''));
  });
  const rows = state.combatants || state.models || [];
  const table = document.getElementById('combatants');
  const head = table.tHead.rows[0]; head.replaceChildren();
  const cols = rows.length ? Object.keys(rows[0]) : [];
  cols.forEach(c => head.append(el('th', c)));
  const body = table.tBodies[0]; body.replaceChildren();
  for (const row of rows) { const tr = document.createElement('tr');
    cols.forEach(c => tr.append(el('td', cell(row[c])))); body.append(tr); }
}
async function refresh() {
  const r = await fetch(api, {headers: auth});
  if (r.ok) show((await r.json()).state);
}
const source = new EventSource(api + '/stream?token=' + encodeURIComponent(boot.token) +
  '&after=' + boot.revision);
source.addEventListener('record', ev => {
  const r = JSON.parse(ev.data); const log = document.getElementById('log');
  for (const line of lines(r)) log.append(el('div', line, r.hidden ? 'hidden' : ''));
  log.scrollTop = log.scrollHeight; refresh();
});
async function post(path, body) {
  const r = await fetch(api + path, {method: 'POST', headers: auth, body: JSON.stringify(body)});
  document.getElementById('error').textContent = r.ok ? '' : (await r.json()).error;
}
document.getElementById('command').addEventListener('submit', ev => {
  ev.preventDefault(); const f = ev.target; let args;
  try { args = JSON.parse(f.args.value || '{}'); }
  catch (e) { document.getElementById('error').textContent = 'Arguments are not JSON.'; return; }
  const body = {kind: f.kind.value, args: args};
  if (f.dice.value.trim()) body.dice = f.dice.value.split(',').map(Number);
  if (f.hidden && f.hidden.checked) body.hidden = true;
  post('/commands', body);
});
for (const step of ['undo', 'redo']) { const b = document.getElementById(step);
  if (b) b.addEventListener('click', () => post('/' + step, {})); }
"""

ENV = Environment(
    loader=DictLoader({"base.html": BASE, "join.html": JOIN, "encounter.html": ENCOUNTER}),
    autoescape=select_autoescape(default=True, default_for_string=True),
)


def html(template: str, nonce: str = "", **values: Any) -> HTMLResponse:
    """A rendered page with headers that keep the token and other scripts out."""
    body = ENV.get_template(template).render(nonce=nonce, **values)
    script = f"'nonce-{nonce}'" if nonce else "'none'"
    headers = {
        "Content-Security-Policy": f"default-src 'self'; script-src {script}; "
        "style-src 'unsafe-inline'; object-src 'none'; base-uri 'none'",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-store",
    }
    return HTMLResponse(body, headers=headers)


def join_page(view: dict[str, Any], token: str) -> HTMLResponse:
    """The page a join link opens: the table's encounters."""
    return html("join.html", view=view, token=token)


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


def log_lines(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log as lines, as the script writes them."""
    out = []
    for r in records:
        c = r["command"] or {}
        if r["kind"] == "command":
            head = f"#{r['revision']} {c.get('kind')} {json.dumps(c.get('args', {}))}"
        else:
            head = f"#{r['revision']} {r['kind']} ({c.get('kind', '?')}, command {r['seq']})"
        out.append({"text": head, "hidden": r["hidden"]})
        if r["kind"] == "command":
            for e in r["events"]:
                result = e["data"].get("result") if isinstance(e["data"], dict) else None
                if isinstance(result, dict) and result.get("schema") == STRIKE_SCHEMA:
                    texts = strike_lines(e, result)
                else:
                    texts = [f"    {e['kind']} {json.dumps(e['data'])}  [{e['rule'] or '-'}]"]
                out += [{"text": text, "hidden": r["hidden"]} for text in texts]
    return out


STRIKE_SCHEMA = "tableside/majesty-strike"


def strike_lines(event: dict[str, Any], s: dict[str, Any]) -> list[str]:
    """A Strike's breakdown as a few readable lines (as the script writes them)."""

    def dice(values: list[int]) -> str:
        return " ".join(str(v) for v in values)

    adj = ", ".join(f"{a['by']} {a['from']}→{a['to']}" for a in s["adjustments"])
    maneuvers = "".join(f" + {m}" for m in s["maneuvers"])
    out = [
        f"    {event['kind']} {s['striker']} → {s['defender']} with "
        f"{s['weapon'] or 'no weapon'}{maneuvers}  [{event['rule'] or '-'}]",
        f"      Precision {s['precision']['value']} · Guard {s['guard']['value']} · "
        f"Force {s['force']['value']}",
        f"      rolled {dice(s['rolled'])} → final {dice(s['final'])}"
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
    return out


def encounter_page(
    view: dict[str, Any],
    info: EncounterInfo,
    state: dict[str, Any],
    records: list[dict[str, Any]],
    token: str,
) -> HTMLResponse:
    """The fight: order, combatants, a command form and the live log."""
    rows = state.get("combatants", state.get("models", []))
    columns = list(rows[0]) if rows else []
    boot = {"encounter": info.id, "token": token, "revision": state["revision"]}
    return html(
        "encounter.html",
        nonce=secrets.token_urlsafe(16),
        view=view,
        info=info,
        state=state,
        order=order_rows(state),
        columns=columns,
        rows=[[cell(r[c]) for c in columns] for r in rows],
        log=log_lines(records),
        boot=boot,
        script=SCRIPT,
    )
