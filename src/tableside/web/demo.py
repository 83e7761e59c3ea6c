"""A demo table: a War of the example roster, a Host and two players (one per side)."""

from __future__ import annotations

from dataclasses import dataclass

from tableside.encounter.log import Command
from tableside.encounter.roster import FOUR_AGAINST_FOUR, add_commands
from tableside.web.auth import Principal
from tableside.web.table import WebTable

DEMO_SEED = 7


@dataclass(frozen=True, slots=True)
class DemoLinks:
    """The demo's ids and the paths to open (tokens inside: share each with its holder only)."""

    table_id: int
    encounter_id: int
    host_page: str
    player_links: dict[str, str]


def create_demo(table: WebTable) -> DemoLinks:
    """Create the demo table, its War (roster added, Cycle 1 begun) and one seat per side."""
    table_id, host_token = table.create_table("Demo table")
    host = Principal(table_id, None)
    info = table.create_encounter(host, table_id, "majesty-war", "Skirmish at the ford", DEMO_SEED)
    for command in add_commands():
        table.execute(host, info.id, command, None)
    table.execute(host, info.id, Command("next"), None)
    sides: dict[str, list[str]] = {}
    for name, side, *_rest in FOUR_AGAINST_FOUR:
        sides.setdefault(side, []).append(name)
    links = {}
    for side, names in sides.items():
        seat, token = table.add_player(host, table_id, f"The {side} player", tuple(names))
        links[seat.name] = f"/join/{token}"
    page = f"/tables/{table_id}/encounters/{info.id}?token={host_token}"
    return DemoLinks(table_id, info.id, page, links)
