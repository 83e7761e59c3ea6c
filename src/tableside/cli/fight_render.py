"""Text for a Realm of Strife fight: Turn Order, whose Turn, every model's state."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table

from tableside.encounter.strife_state import FightState, Model
from tableside.strife.conditions import Condition


def condition_text(item: Condition) -> str:
    """'Stun (Mace; 1 round left)'."""
    span = f"{item.rounds_left} round(s) left" if item.rounds_left else f"until {item.until}"
    stacks = f" ×{item.stacks}" if item.stacks > 1 else ""
    return f"{item.name}{stacks} ({item.source}; {span})"


def order_table(state: FightState) -> Table:
    """This round's Turn Order with the current Turn marked (S-4)."""
    title = (
        "Turn Order"
        if state.round < 0
        else (f"Round {state.round}" + (f" — ambush by {state.ambush}" if state.round == 0 else ""))
    )
    table = Table(title=title)
    for column in ("", "model", "score", "Reaction"):
        table.add_column(column)
    for i, name in enumerate(state.order):
        m = state.models.get(name)
        marker = "▶" if i == state.turn else ("✓" if i < state.turn else "")
        reacted = "spent" if not state.rounds.can_react(name) else "ready"
        table.add_row(marker, name, "–" if m is None else str(m.score), reacted)
    return table


def models_table(state: FightState) -> Table:
    """Every model's HP, position, Turn elements used and conditions (S-23)."""
    table = Table(title="Models")
    for column in ("id", "side", "HP", "AC", "position", "this Turn", "conditions"):
        table.add_column(column)
    for m in state.models.values():
        table.add_row(m.id, m.side, f"{m.sheet.hp}/{m.sheet.hp_max}", str(m.sheet.ac),
                      ",".join(f"{v:g}" for v in m.position), ", ".join(m.elements) or "–",
                      "; ".join(condition_text(c) for c in m.conditions) or "–")  # fmt: skip
    return table


def fight_view(state: FightState, revision: int) -> RenderableType:
    """The whole fight at a glance."""
    whose = "not started" if state.current is None else f"{state.current}'s Turn"
    if state.ended:
        whose = f"ended — winner: {state.winner or 'nobody'}"
    return Group(f"Revision {revision}: {whose}", order_table(state), models_table(state))


def model_json(m: Model) -> dict[str, Any]:
    """One model as plain JSON."""
    return {
        "id": m.id, "side": m.side, "hp": m.sheet.hp, "hp_max": m.sheet.hp_max,
        "position": list(m.position), "score": m.score, "elements": list(m.elements),
        "conditions": [{"name": c.name, "source": c.source, "rounds_left": c.rounds_left,
                        "until": c.until, "stacks": c.stacks} for c in m.conditions],
        "initiative_penalty": m.initiative_penalty, "hidden": m.hidden,
    }  # fmt: skip


def fight_json(state: FightState, revision: int) -> dict[str, Any]:
    """The fight's state as plain JSON."""
    return {
        "revision": revision, "round": state.round, "ambush": state.ambush,
        "order": list(state.order), "current": state.current, "ended": state.ended,
        "winner": state.winner,
        "reactions_spent": sorted(state.rounds.reactions_spent),
        "offers": [{"attacker": o.attacker, "weapon": o.weapon, "target": o.target}
                   for o in state.offers],
        "models": [model_json(m) for m in state.models.values()],
    }  # fmt: skip
