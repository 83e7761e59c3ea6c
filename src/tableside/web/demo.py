"""A demo table with both games: a War of the example roster and a Realm of Strife ambush.

The War (Allies of Majesty) has its eight combatants added and Cycle 1 begun, with one seat for
the holy and one for the fallen side. The fight (Realm of Strife) is the golden fight's roster,
two heroes against three monsters, begun with the heroes' ambush, with one seat per side. Every
seat's join link opens the table, where both encounters are listed; the Host's page of each is
printed too. The seeds are fixed, so the server's dice are the same on every run.

Serving the demo again on the same database reuses the demo table, its encounters as they were
left and its seats, with new links: the Host's and every seat's token are replaced (the old
links stop working), since only their hashes are stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tableside.encounter.log import Command
from tableside.encounter.roster import FOUR_AGAINST_FOUR, add_commands
from tableside.store import tables
from tableside.web.auth import Principal
from tableside.web.table import WebTable

DEMO_SEED = 7
TABLE_NAME = "Demo table"
WAR_NAME = "Skirmish at the ford"
FIGHT_SEED = 44
FIGHT_NAME = "Ambush at the mill"
FIGHT_ROSTER: tuple[dict[str, Any], ...] = (
    {"id": "Aldric", "model": "Aldric", "side": "heroes", "position": [0.0, 0.0, 0.0]},
    {"id": "Sera", "model": "Sera", "side": "heroes", "position": [0.0, 3.0, 0.0]},
    {"id": "Goblin-1", "model": "Goblin", "side": "monsters", "position": [6.0, 0.0, 0.0]},
    {"id": "Goblin-2", "model": "Goblin", "side": "monsters", "position": [6.0, 3.0, 0.0]},
    {"id": "Troll", "model": "Cave Troll", "side": "monsters", "position": [8.0, 1.5, 0.0]},
)


@dataclass(frozen=True, slots=True)
class DemoLinks:
    """The demo's ids and the paths to open (tokens inside: share each with its holder only).

    Attributes:
        table_id: The demo table.
        encounter_id: Its War.
        host_page: The Host's page of the War.
        player_links: The War's seats' join links, by seat name.
        fight_id: Its Realm of Strife fight.
        fight_page: The Host's page of the fight.
        fight_links: The fight's seats' join links, by seat name.
    """

    table_id: int
    encounter_id: int
    host_page: str
    player_links: dict[str, str]
    fight_id: int
    fight_page: str
    fight_links: dict[str, str]


def open_demo(table: WebTable) -> DemoLinks:
    """The demo table left by an earlier run, with new links, or a new one (see the module)."""
    for table_id in tables.tables_named(table.store, TABLE_NAME):
        found = reuse_demo(table, table_id)
        if found is not None:
            return found
    return create_demo(table)


def reuse_demo(table: WebTable, table_id: int) -> DemoLinks | None:
    """New links to an earlier demo table, if it still has its War and its fight."""
    host = Principal(table_id, None)
    names = {
        table.store.encounter(i).name: i for i in tables.table_encounters(table.store, table_id)
    }
    if WAR_NAME not in names or FIGHT_NAME not in names:
        return None
    host_token = table.rotate_host(host, table_id)
    war_links: dict[str, str] = {}
    fight_links: dict[str, str] = {}
    for seat in tables.seats(table.store, table_id):
        rotated, token = table.rotate_player(host, table_id, seat.id)
        links = fight_links if rotated.name.endswith("' player") else war_links
        links[rotated.name] = f"/join/{token}"
    war_id, fight_id = names[WAR_NAME], names[FIGHT_NAME]
    return DemoLinks(table_id, war_id, page(table_id, war_id, host_token), war_links, fight_id,
                     page(table_id, fight_id, host_token), fight_links)  # fmt: skip


def create_demo(table: WebTable) -> DemoLinks:
    """Create the demo table, its War and its fight, each under way, with one seat per side."""
    table_id, host_token = table.create_table(TABLE_NAME)
    host = Principal(table_id, None)
    war = table.create_encounter(host, table_id, "majesty-war", WAR_NAME, DEMO_SEED)
    for command in [*add_commands(), Command("next")]:
        table.execute(host, war.id, command, None)
    war_sides: dict[str, list[str]] = {}
    for name, side, *_rest in FOUR_AGAINST_FOUR:
        war_sides.setdefault(side, []).append(name)
    fight = table.create_encounter(host, table_id, "strife-combat", FIGHT_NAME, FIGHT_SEED)
    for args in FIGHT_ROSTER:
        table.execute(host, fight.id, Command("add", dict(args)), None)
    table.execute(host, fight.id, Command("start", {"ambush": "heroes"}), None)
    fight_sides: dict[str, list[str]] = {}
    for args in FIGHT_ROSTER:
        fight_sides.setdefault(str(args["side"]), []).append(str(args["id"]))
    return DemoLinks(
        table_id,
        war.id,
        page(table_id, war.id, host_token),
        seat_links(table, host, war_sides, "The {} player"),
        fight.id,
        page(table_id, fight.id, host_token),
        seat_links(table, host, fight_sides, "The {}' player"),
    )


def page(table_id: int, encounter_id: int, token: str) -> str:
    """The path of an encounter's page for the holder of ``token``."""
    return f"/tables/{table_id}/encounters/{encounter_id}?token={token}"


def seat_links(
    table: WebTable, host: Principal, sides: dict[str, list[str]], name: str
) -> dict[str, str]:
    """One seat per side, playing that side's combatants; its join link by seat name."""
    links = {}
    for side, combatants in sides.items():
        seat, token = table.add_player(host, host.table_id, name.format(side), tuple(combatants))
        links[seat.name] = f"/join/{token}"
    return links
