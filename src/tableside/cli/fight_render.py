"""Text for a Realm of Strife fight: Turn Order, whose Turn, every model's state."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table

from tableside.encounter.strife.forced import commander_of
from tableside.encounter.strife.state import FightState
from tableside.strife.catalog import builtin_catalog
from tableside.strife.conditions import Condition
from tableside.strife.loadout import effective_ac


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
        ac = effective_ac(builtin_catalog(), m.sheet).value  # S-16: with armour, as attacks use
        table.add_row(m.id, m.side, f"{m.sheet.hp}/{m.sheet.hp_max}", str(ac),
                      ",".join(f"{v:g}" for v in m.position)
                      + (" (under water)" if m.submerged else "")  # SA-76
                      + (" (perched)" if m.perched else " (flying)" if m.position[2] > 0
                         else ""),  # SA-90, SA-93
                      ", ".join(m.elements) or "–",
                      "; ".join(condition_text(c) for c in m.conditions) or "–")  # fmt: skip
    return table


def fight_view(state: FightState, revision: int) -> RenderableType:
    """The whole fight at a glance."""
    whose = "not started" if state.current is None else f"{state.current}'s Turn"
    controller = None if state.current is None else commander_of(state, state.current)
    if controller is not None and controller != state.current:
        whose += f", commanded by {controller} (SA-97)"
    if state.ended:
        whose = f"ended — winner: {state.winner or 'nobody'}"
    parts: list[RenderableType] = [f"Revision {revision}: {whose}", order_table(state),
                                   models_table(state)]  # fmt: skip
    if state.ground:  # thrown weapons lying where they fell (SA-72)
        lying = ", ".join(f"{w} at {tuple(round(c, 2) for c in at)}" for w, at in state.ground)
        parts.append(f"On the ground: {lying}")
    return Group(*parts)
