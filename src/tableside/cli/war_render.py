"""Text for a War: the War Scroll, every combatant's state, and the event log."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table

from tableside.encounter.engine import Encounter
from tableside.encounter.log import Event, LogRecord, RecordKind
from tableside.encounter.war.state import Combatant, EndPoint, WarState
from tableside.majesty import scroll


def end_point_text(state: WarState, ends: EndPoint | None) -> str:
    """Where a timed effect ends (M-39)."""
    if ends is None:
        return "just before its next Activation"
    if ends.cycle == state.cycle and ends.turn < len(state.order):
        turn = state.order[ends.turn]
        return f"Cycle {ends.cycle}, Segment {turn.segment}, before {turn.combatant}'s Turn"
    return f"Cycle {ends.cycle}, before Turn {ends.turn + 1}"


def conditions(state: WarState, c: Combatant) -> str:
    """Flags and timed effects with their end points."""
    stance = "Full Defensive Stance" if c.full_stance else "Defensive Stance"
    parts = [name for name, on in ((stance, c.stance), ("Bound", c.bound),
                                   ("Exposed", c.exposed), ("Asleep", c.asleep),
                                   ("Weary", c.weary)) if on]  # fmt: skip
    if c.grappled_by and c.entangled_strength is not None:
        parts.append(f"Entangled by {c.grappled_by} (strength {c.entangled_strength})")
    elif c.grappled_by:
        parts.append(f"Grappled by {c.grappled_by}")
    if c.surprised_by:
        parts.append(f"Surprised by {', '.join(c.surprised_by)} (until just before its next Turn)")
    names = {"status_lowered": "Status lowered", "falter_cycle": "F:1 Cycle"}
    parts += [f"{names.get(t.name, t.name)} until {end_point_text(state, t.ends)}" for t in c.timed]
    return "; ".join(parts) or "–"


def scroll_table(state: WarState) -> Table:
    """The War Scroll of the current Cycle, with the current Turn marked (M-40)."""
    title = "War Scroll" if state.cycle == 0 else f"War Scroll — Cycle {state.cycle}"
    table = Table(title=title)
    for column in ("", "Turn", "Segment", "Combatant", "AP"):
        table.add_column(column)
    carried = upcoming_carry(state)
    for i, turn in enumerate(state.order):
        marker = "▶" if i == state.turn else ("✓" if i < state.turn else "")
        ap = str(turn.ap)
        if i in carried:  # the Turn gets the carried AP, never above 7
            ap = f"{min(turn.ap + carried[i], scroll.TURN_AP)} ({turn.ap} + {carried[i]} carried)"
        table.add_row(marker, str(i + 1), turn.segment, turn.combatant, ap)
    return table


def upcoming_carry(state: WarState) -> dict[int, int]:
    """The Turn (index) that gets each combatant's carried AP: its next one this Cycle (M-41)."""
    found: dict[int, int] = {}
    for c in state.combatants.values():
        if not c.carried:
            continue
        later = [i for i, t in enumerate(state.order) if i > state.turn and t.combatant == c.id]
        if later:
            found[later[0]] = c.carried
    return found


def combatants_table(state: WarState) -> Table:
    """Every combatant's state."""
    table = Table(title="Combatants")
    for column in ("id", "side", "Status", "E", "R", "P", "Falter", "Poison", "AP", "Ready",
                   "Exertion", "position", "conditions"):  # fmt: skip
        table.add_column(column)
    for c in state.combatants.values():
        ch = c.character
        table.add_row(
            c.id, ch.side.value, ch.status.value,
            f"{ch.current_endurance}/{ch.natural.endurance}",
            f"{ch.current_resolve}/{ch.natural.resolve}",
            f"{ch.current_passion}/{ch.natural.passion}",
            f"F:{c.falter}", str(c.poison), str(c.ap), str(c.readied), str(ch.exertion),
            ",".join(f"{v:g}" for v in c.position), conditions(state, c),
        )  # fmt: skip
    return table


def war_view(state: WarState, revision: int) -> RenderableType:
    """The whole War at a glance."""
    current = state.current
    whose = "not started" if current is None else f"{current.combatant}'s Turn ({current.segment})"
    if state.ended:
        whose = f"ended — winner: {state.winner or 'nobody'}"
    head = f"Revision {revision}: {whose}"
    if state.ruleset is not None:
        head += f"; ruleset {state.ruleset}"
    parts: list[RenderableType] = [head, scroll_table(state), combatants_table(state)]
    if state.dominions:
        parts.append(
            "Spiritual Dominions (Strikes cannot pass through): "
            + "; ".join(
                f'{name} at {",".join(f"{v:g}" for v in d.center)} radius {d.radius:g}"'
                for name, d in state.dominions.items()
            )
        )
    if state.barriers:
        parts.append(
            "Barriers (Knock Back stops at them): "
            + "; ".join(
                f'{name} at {",".join(f"{v:g}" for v in b.center)} radius {b.radius:g}", '
                f"Resolve {b.resolve}"
                for name, b in state.barriers.items()
            )
        )
    return Group(*parts)


def _strike_line(d: dict[str, Any]) -> str:
    r = d["result"]
    adjust = ", ".join(
        f"d{a['die'] + 1} {a['from']}→{a['to']} ({a['by']})" for a in r["adjustments"]
    )
    return (
        f"{d['striker']} Strikes {d['defender']} with {r['weapon']}: natural {r['natural']}"
        f"{' adjusted ' + adjust if adjust else ''} → final {r['final']}; Hits {r['hits']}, "
        f"Stops {r['stops']}, net {r['net']:+d}"
    )


def _attack_line(d: dict[str, Any]) -> str:
    r = d["result"]
    head = f"{d['attacker']} attacks {d['defender']} with {r['weapon']}: "
    if r["outcome"] is None:
        return head + "warded off"
    text = head + f"d100 {r['natural']} → {r['modified']} {r['outcome']}"
    reaction = r.get("reaction")
    if reaction:
        roll = f"d20 {reaction['roll']} → {reaction['total']}"
        text += f"; {reaction['kind']} {roll} {reaction['result']}"
    if r.get("damage"):
        text += f"; damage {r['damage']['total']}"
    return text


def event_text(event: Event) -> str:
    """One event as a line of the log."""
    d = event.data
    special = {
        "strike_resolved": lambda: _strike_line(d),
        "check_resolved": lambda: (
            f"{d['id']} {d['purpose']}: natural {d['result']['natural']}, "
            f"net {d['result']['net']:+d} → {d['result']['outcome']}"
        ),
        "combatant_added": lambda: f"{d['id']} joins at {d['position']}",
        "attack_resolved": lambda: _attack_line(d),
        "cast_resolved": lambda: (
            f"{d['caster']} casts {d['result'].get('power', '')} on "
            f"{d['target']}: d100 {d['result']['natural']} → {d['result']['outcome']}"
        ),
        "model_added": lambda: (
            f"{d['id']} ({d['side']}) joins at {d['position']}: "
            f"Initiative d20 {d['natural']} → score {d['score']}"
        ),
        "condition_added": lambda: (
            f"{d['id']} gains {d['condition']['name']} "
            f"(from {d['condition']['source']}; "
            + (
                f"{d['condition']['rounds_left']} rounds"
                if d["condition"]["rounds_left"]
                else f"until {d['condition']['until']}"
            )
            + ")"
        ),
        "turn_started": lambda: (
            f"Cycle {d['cycle']}, Turn {d['turn'] + 1} (Segment {d['segment']}): {d['id']}'s "
            f"Turn, {d['ap']} AP" + (f" + {d['carried']} carried" if d.get("carried") else "")
        ),
        "turn_skipped": lambda: f"Turn {d['turn'] + 1} skipped: {d['id']} ({d['reason']})",
        "cycle_started": lambda: (
            f"Cycle {d['cycle']} begins: "
            + ", ".join(f"{t['segment']}:{t['combatant']}({t['ap']})" for t in d["order"])
        ),
    }
    war_only = event.kind == "turn_started" and "cycle" not in d
    if event.kind in special and not war_only:  # a fight's Turn has a round, not a Cycle
        return special[event.kind]()
    shown = {k: v for k, v in d.items() if k not in ("character", "sheet")}
    return f"{event.kind} " + " ".join(f"{k}={v}" for k, v in shown.items())


def log_lines(encounter: Encounter[Any]) -> list[str]:
    """The whole log: each record, then each of its events with its ruling."""
    lines = []
    for record in encounter.records:
        lines.append(record_head(record))
        if record.kind == RecordKind.COMMAND:
            lines += [f"    {event_text(e)}  [{e.rule or '-'}]" for e in record.events]
    return lines


def record_head(record: LogRecord) -> str:
    """'#12 strike {…}' or '#13 undo of #12'."""
    if record.kind == RecordKind.COMMAND and record.command is not None:
        hidden = ("character", "sheet")
        args = " ".join(f"{k}={v}" for k, v in record.command.args.items() if k not in hidden)
        dice = f" dice={list(record.command.dice)}" if record.command.dice else ""
        return f"#{record.revision} {record.command.kind} {args}{dice}".rstrip()
    what = record.command.kind if record.command else "?"
    return f"#{record.revision} {record.kind.value} ({what}, command {record.seq})"


def _wear_phrases(record: LogRecord) -> list[str]:
    return [
        f"{e.data['id']} takes {e.data['amount']} Wear{e.data['kind']}"
        for e in record.events
        if e.kind == "wear_taken"
    ]


def strike_sentence(record: LogRecord) -> str:
    """One plain sentence of what a ``strike`` command did (before its full breakdown)."""
    args = record.command.args if record.command is not None else {}
    wear = _wear_phrases(record)
    released = any(
        e.kind == "condition_set" and e.data.get("reason") == "released after the Grappler's Strike"
        for e in record.events
    )
    strike = next((e for e in record.events if e.kind == "strike_resolved"), None)
    if strike is None:
        check = next(e for e in record.events if e.kind == "check_resolved")
        r = check.data["result"]
        head = (
            f"{args['striker']} Strikes {args['defender']}, whom it Grapples, with a Might Check: "
            f"net {r['net']:+d} ({r['outcome']})"
        )
    else:
        r = strike.data["result"]
        net = int(r["net"])
        outcome = (
            f"{net} uncanceled Hit(s)"
            if net > 0
            else f"{-net} uncanceled Stop(s)"
            if net < 0
            else "every Hit canceled"
        )
        head = f"{args['striker']} Strikes {args['defender']} with {r['weapon']}: {outcome}"
    tail = ", ".join(wear) if wear else "no Wear"
    if released:
        tail += f"; {args['defender']} is released from the Grapple"
    return f"{head}; {tail}."
