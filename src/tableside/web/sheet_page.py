"""The player's sheet on the phone (issue 25, W-83 … W-85): the roster page and one sheet.

``/tables/{tid}/characters`` lists the roster as the viewer may see it (CH-16: a player's own
characters, and the others' names); ``/characters/{cid}`` is one character's sheet for its
owner and the Host: every stat and resource current against its maximum, its gear and powers in
the game's words, what carried over from the last fight, its fights, and a form to propose a
change (W-83). A change the rules fix waits for the Host, who approves or refuses it on the same
page (W-84, CH-13). The page's own script (``static/sheet.js``) only sends the form and the
Host's answer; everything shown is rendered here, auto-escaped (W-85). The Host's roster page
lists the ended fights whose carry-over waits; each has a page with the changes, the Host's
choices and Apply (W-86, ``static/carry.js``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Header, Query, Request
from fastapi.responses import HTMLResponse

from tableside.campaign import play
from tableside.campaign.carry import Options
from tableside.campaign.sheets import MAJESTY, numbers
from tableside.store import roster, tables
from tableside.store.roster import RosterCharacter
from tableside.web import pages
from tableside.web.asking import bearer, who_at
from tableside.web.auth import ForbiddenError, require_host
from tableside.web.roster_access import at_character, owns
from tableside.web.sessions import csrf_of
from tableside.web.table import WebTable

Authorization = Annotated[str | None, Header()]


def gear(character: RosterCharacter) -> list[tuple[str, str]]:
    """The sheet's weapons, armour, powers and conditions in the game's words."""
    s = character.sheet
    if character.game == MAJESTY:
        defeated = "yes (until a rest)" if s.get("defeated_by_epic") else "no"
        return [("Side", str(s["side"]).capitalize()), ("Weapon", s["weapon"]),
                ("Tier", str(s["tier"])), ("Magnitude", str(s["magnitude"])),
                ("Defeated", defeated)]  # fmt: skip
    rows = [("Main hand", s.get("main_hand")), ("Off hand", s.get("off_hand")),
            ("Shield", s.get("shield")), ("Armour", ", ".join(s.get("armour", ()))),
            ("Powers", ", ".join(s.get("powers", ()))), ("Skills", ", ".join(s.get("skills", ()))),
            ("Proficiencies", ", ".join(s.get("proficiencies", ()))),
            ("AC", str(s["ac"])), ("Dodge", str(s.get("dodge", 0))),
            ("Movement", f'{s["movement"]}"'), ("Initiative", str(s["initiative"]))]  # fmt: skip
    return [(name, value) for name, value in rows if value]


def editable(character: RosterCharacter) -> list[dict[str, Any]]:
    """The form's fields: the name, then the numbers a fight or a rest changes."""
    s = character.sheet
    fields: list[dict[str, Any]] = [{"path": "name", "label": "Name", "value": s["name"],
                                     "kind": "text"}]  # fmt: skip
    if character.game == MAJESTY:
        for kind in ("E", "R", "P"):
            fields.append({"path": f"wear.{kind}", "label": f"Wear {kind}",
                           "value": s["wear"][kind], "kind": "number"})  # fmt: skip
        fields.append({"path": "exertion", "label": "Exertion", "value": s["exertion"],
                       "kind": "number"})  # fmt: skip
        return fields
    fields.append({"path": "hp", "label": "HP", "value": s["hp"], "kind": "number"})
    for name, pool in s.get("resources", {}).items():
        fields.append({"path": f"resources.{name}.current", "label": name,
                       "value": pool["current"], "kind": "number"})  # fmt: skip
    return fields


def sheet_page(table: WebTable, request: Request, who: Any, character: RosterCharacter) -> Any:
    """One character's sheet page."""
    owner = "the Host's" if character.owner is None else next(
        (f"{s.name}'s" for s in tables.seats(table.store, character.table_id)
         if s.id == character.owner), "a seat's")  # fmt: skip
    boot = {"character": character.id, "csrf": csrf_of(request), "sheet": character.sheet,
            "role": who.role}  # fmt: skip
    return pages.html(
        "character_sheet.html", scripts=("send.js", "sheet.js"), c=character, owner=owner,
        game=pages.GAME_WORDS.get(character.game, character.game),
        numbers=numbers(character.game, character.sheet), gear=gear(character),
        fields=editable(character), history=play.history(table.store, character.id),
        host=who.is_host, boot=boot,
    )  # fmt: skip


def waiting_carry(table: WebTable, table_id: int) -> list[dict[str, Any]]:
    """The table's ended fights whose roster combatants' carry-over waits for the Host (CH-9)."""
    waiting = sorted({e for e, _c, cid, done in roster.table_bindings(table.store, table_id)
                      if cid is not None and not done})  # fmt: skip
    found = []
    for encounter_id in waiting:
        try:
            proposed = play.proposal(table.store, encounter_id, Options())
        except play.NotEndedError:
            continue
        if proposed:
            name = table.store.encounter(encounter_id).name
            found.append({"id": encounter_id, "name": name, "count": len(proposed)})
    return found


def carry_page(
    table: WebTable, request: Request, table_id: int, encounter_id: int, options: Options
) -> Any:
    """The Host's page of a fight's carry-over: the changes, the choices, and Apply (W-86)."""
    try:
        proposed = play.proposal(table.store, encounter_id, options)
        ended = True
    except play.NotEndedError:
        proposed, ended = [], False
    boot = {"encounter": encounter_id, "csrf": csrf_of(request), "table": table_id,
            "options": {"wave": options.wave, "battle_soon": options.battle_soon,
                        "keep_exertion": options.keep_exertion}}  # fmt: skip
    return pages.html(
        "character_carry.html", scripts=("send.js", "carry.js"), table_id=table_id,
        name=table.store.encounter(encounter_id).name, ended=ended, proposed=proposed,
        options=options, boot=boot,
    )  # fmt: skip


def add_sheet_pages(app: FastAPI, table: WebTable) -> None:
    """The roster page and the sheet page."""

    @app.get("/tables/{table_id}/characters", response_class=HTMLResponse)
    def roster_page(table_id: int, authorization: Authorization = None) -> Any:
        who = table.at_table(bearer(authorization), table_id)
        found = roster.characters(table.store, table_id)
        mine = [c for c in found if who.is_host or owns(who, c)]
        others = [c for c in found if c not in mine]
        waiting = waiting_carry(table, table_id) if who.is_host else []
        return pages.html("character_roster.html", table_id=table_id, mine=mine, others=others,
                          games=pages.GAME_WORDS, host=who.is_host, waiting=waiting)  # fmt: skip

    @app.get("/tables/{table_id}/encounters/{encounter_id}/carry-over", response_class=HTMLResponse)
    def carry_over_page(
        request: Request,
        table_id: int,
        encounter_id: int,
        wave: Annotated[bool, Query()] = False,
        battle_soon: Annotated[bool, Query()] = False,
        keep_exertion: Annotated[bool, Query()] = False,
        authorization: Authorization = None,
    ) -> Any:
        who = who_at(table, authorization, encounter_id)
        if who.table_id != table_id:
            raise ForbiddenError(f"This token is not for table {table_id}.")
        require_host(who, "see the carry-over")
        options = Options(wave, battle_soon, keep_exertion)
        return carry_page(table, request, table_id, encounter_id, options)

    @app.get("/characters/{character_id}", response_class=HTMLResponse)
    def character_page(
        request: Request, character_id: int, authorization: Authorization = None
    ) -> Any:
        who, character = at_character(table, authorization, character_id)
        return sheet_page(table, request, who, character)
