"""The battle map's server side: a move's cost decided on a copy, and the reach rings (W-20 … W-22).

Nothing here writes. ``POST …/move-cost`` decides the ``move`` command exactly as the engine
would, on the live encounter's current state (immutable: a snapshot under its lock is a copy),
with throwaway dice, and answers what it would cost (War: AP, M-40; Realm of Strife: inches of
Movement, S-6), what is left after it, or why the engine refuses it. The map never prices a move
itself (W-20). The request is authorised like the command (a player only for its own
characters), its refusal reaches a player as public values only (W-9), and what it reports is
read from the would-be record as that player would see it in the log (W-21).

``GET …/map`` gives the reach and range rings of the combatants the caller plays (the Host: all
of them): a War combatant's Melee Range and its sheet weapon's Ranged range (M-15), a Realm of
Strife model's melee reach (base contact plus the weapon's usable Reach, S-13, S-24, SA-37) and
each ranged weapon's range (S-16). A player gets no ring of anyone else's (W-22).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any

from fastapi import FastAPI, Header
from pydantic import BaseModel, ConfigDict, Field

from tableside.dice import SeededRng
from tableside.encounter.log import Command, LogRecord, RecordKind
from tableside.encounter.strife.args import CONTACT
from tableside.encounter.strife.state import FightState
from tableside.encounter.war.state import WarState
from tableside.errors import DataError, RulesError
from tableside.limits import ID_MAX, Coordinate
from tableside.majesty.geometry import MELEE_RANGE
from tableside.strife.loadout import loadout
from tableside.strife.penalties import PenaltyContext, attack_range, usable_reach
from tableside.web.auth import Principal, authorise_command, commands, credential
from tableside.web.decisions import FightWaitingError
from tableside.web.play import DRY_RUN_SEED, Snapshot, snapshot
from tableside.web.redact import redact_record
from tableside.web.strict import check_args
from tableside.web.table import WebTable
from tableside.web.table_views import record_view
from tableside.web.unseen import conceal

WAR = "majesty-war"
PLACE = "host_set"  # the Host's placement of a combatant, at no cost (logged like the rest)


def move_cost(
    table: WebTable, who: Principal, encounter_id: int, args: dict[str, Any]
) -> dict[str, Any]:
    """What the ``move`` command with ``args`` would cost now, decided on a copy (W-20).

    Returns:
        ``revision``; ``id``; ``from`` and ``to`` (inches); ``path`` (the points of the straight
        line the engine moves along); ``allowed``; when allowed, ``inches``, ``cost`` and
        ``unit`` ("AP" or "inches" of Movement), ``left`` (AP, or inches of Movement, after the
        move; None when a War move is paid from Readied AP) and ``offers`` (the Attacks of
        Opportunity it would offer, S-18); when not, ``reason`` (the engine's refusal, as
        ``who`` may read it, or who the fight waits for, D-3). ``place``: whether ``who`` may
        put the combatant there instead (the Host, with ``host_set``, at no cost).

    Raises:
        ForbiddenError: A player asking for a character it does not play (as the command).
        DataError: Malformed arguments, or no such combatant (one sentence naming the value).
    """
    command = Command("move", args)
    snap = snapshot(table, encounter_id)
    authorise_command(who, snap.game.name, "move", args, snap.current, snap.state)
    check_args(snap.game.name, "move", args)  # refused alike whether or not the fight waits
    mover = combatant(snap, args.get("id"))
    start = [float(v) for v in mover.position]
    secret = table.secret_to(who, encounter_id)
    answer: dict[str, Any] = {
        "revision": snap.revision, "id": mover.id, "from": start, "place": who.is_host,
    }  # fmt: skip
    try:
        table.require_not_waiting(who, encounter_id, "a move")
        with table.refusals(who, encounter_id, snap.game.name, snap.state, command, secret):
            events = tuple(snap.game.decide(snap.state, command, SeededRng(DRY_RUN_SEED)))
    except DataError:
        raise
    except (RulesError, FightWaitingError) as refusal:
        to = [float(v) for v in args["to"]]
        found = {**answer, "to": to, "path": [start, to], "allowed": False, "reason": str(refusal)}
    else:
        record = LogRecord(snap.revision + 1, RecordKind.COMMAND, snap.next_seq, command, events)
        shown = redact_record(record_view(record, frozenset()), secret)["events"]
        after = snap.state
        for event in events:
            after = snap.game.evolve(after, event)
        found = {**answer, **priced(shown, after, mover.id, start)}
    return dict(conceal(found, table.unseen_said(who, encounter_id)))  # W-66: offers, reasons


def combatant(snap: Snapshot, who: object) -> Any:
    """The combatant (War) or model (Realm of Strife) ``who``, or a DataError naming it."""
    found = everyone(snap.state).get(who) if isinstance(who, str) else None
    if found is None:
        raise DataError(f"There is no combatant {who!r} in this encounter to move.")
    return found


def everyone(state: WarState | FightState) -> dict[str, Any]:
    """The encounter's combatants (War) or models (Realm of Strife) by id."""
    return dict(state.combatants) if isinstance(state, WarState) else dict(state.models)


def priced(
    events: list[dict[str, Any]], after: WarState | FightState, mover: str, start: list[float]
) -> dict[str, Any]:
    """The move's cost read from its events (as the caller sees them), and what is left after."""
    moved = next(e["data"] for e in events if e["kind"] == "moved" and e["data"]["id"] == mover)
    offers = [o for e in events if e["kind"] == "aoo_offered" for o in e["data"]["offers"]]
    to = [float(v) for v in moved["to"]]
    left: float | None
    if isinstance(after, WarState):
        spent_turn = any(e["kind"] == "ap_set" and e["data"]["id"] == mover for e in events)
        left = after.combatants[mover].ap if spent_turn else None
        cost, unit, inches = moved["ap"], "AP", moved["inches"]
    else:
        model = after.models[mover]
        cost, unit, inches = moved["cost"], "inches", moved["moved"]
        left = round(model.sheet.movement - model.movement_spent, 3)
    return {
        "to": to, "path": [start, to], "inches": inches, "allowed": True, "cost": cost,
        "unit": unit, "left": left, "offers": offers,
    }  # fmt: skip


# --- reach and range rings ----------------------------------------------------------------------


def rings(table: WebTable, who: Principal, encounter_id: int) -> dict[str, Any]:
    """The reach and range rings of the combatants ``who`` plays (the Host: all), W-22."""
    snap = snapshot(table, encounter_id)
    mine = {k: v for k, v in everyone(snap.state).items() if commands(who, k, snap.state)}
    if snap.game.name == WAR:
        found = {k: war_rings(snap, c) for k, c in mine.items()}
    else:
        found = {k: fight_rings(snap, m) for k, m in mine.items()}
    return {"revision": snap.revision, "rings": found}


def war_rings(snap: Snapshot, c: Any) -> list[dict[str, Any]]:
    """Melee Range, and the sheet weapon's Ranged range if it has one (M-15)."""
    out = [{"label": "Melee Range", "inches": MELEE_RANGE}]
    weapon = snap.game.catalog.weapons.get(c.character.weapon)
    if weapon is not None and weapon.ranged_range is not None:
        out.append({"label": f"{weapon.name} range", "inches": weapon.ranged_range})
    return out


def fight_rings(snap: Snapshot, m: Any) -> list[dict[str, Any]]:
    """Each held weapon's reach (base contact plus usable Reach), range or thrown range.

    S-13, S-16, S-24, SA-37, SA-69; a ring named twice (two Daggers) is given once.
    """
    out: list[dict[str, Any]] = []
    found: list[tuple[str, float | Fraction | None]]
    weapons = loadout(snap.game.catalog, m.sheet).weapons
    for w in weapons:
        if w.ranged:
            found = [(f"{w.name} range", attack_range(m.sheet, w, PenaltyContext()))]
        else:
            found = [(f"{w.name} reach", CONTACT + usable_reach(m.sheet, w))]
        if w.attributes.thrown is not None:
            found.append(
                (f"{w.name} thrown", attack_range(m.sheet, w, PenaltyContext(thrown=True)))
            )
        for label, inches in found:
            ring = {"label": label, "inches": float(inches)} if inches is not None else None
            if ring is not None and ring not in out:
                out.append(ring)
    if not weapons:
        out.append({"label": "base contact", "inches": CONTACT})
    return out


# --- routes -------------------------------------------------------------------------------------


class MoveCostBody(BaseModel):
    """POST …/move-cost: the ``move`` command's arguments (terrain only in a Realm of Strife)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(min_length=1, max_length=ID_MAX)
    to: list[Coordinate] = Field(min_length=3, max_length=3)
    mode: str | None = Field(default=None, max_length=20)
    difficult: bool | None = None


def add_map(app: FastAPI, table: WebTable) -> None:
    """The map's endpoints: a move's cost on a copy, the reach and range rings."""

    @app.post("/api/encounters/{encounter_id}/move-cost")
    def cost(
        encounter_id: int, body: MoveCostBody, authorization: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        who, _info = table.at_encounter(credential(authorization), encounter_id)
        with table.concealing(who, encounter_id):  # W-66
            return move_cost(table, who, encounter_id, body.model_dump(exclude_none=True))

    @app.get("/api/encounters/{encounter_id}/map")
    def reach(
        encounter_id: int, authorization: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        who, _info = table.at_encounter(credential(authorization), encounter_id)
        return rings(table, who, encounter_id)
