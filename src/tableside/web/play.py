"""The play form's server side: exact odds, previews decided on a copy, and the pickers' options.

Nothing here writes: odds and previews take the live encounter's current state (immutable, so a
snapshot under the encounter's lock is a copy) and decide on it. Every request is authorised
like the command itself (a player only for its own characters) and refused, with one sentence,
when the engine would refuse the command now.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, get_args

from tableside.dice import ScriptedRng, SeededRng
from tableside.dice.laws import probability
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command, LogRecord, RecordKind
from tableside.encounter.strife import attack as strife_attack
from tableside.encounter.strife.args import AttackArgs, AttackItem
from tableside.encounter.strife.hands import held_hands
from tableside.encounter.strife.reactions import declare_reaction
from tableside.encounter.strife.state import FightState
from tableside.encounter.strife.turns import Pending
from tableside.encounter.war.args import EffectName, HostField, StrikeArgs, parse_args
from tableside.encounter.war.grapple import grappling
from tableside.encounter.war.state import WarState
from tableside.encounter.war.strike import strike_setup
from tableside.errors import DataError, RulesError
from tableside.majesty.adjust import AdjustMode
from tableside.majesty.geometry import distance
from tableside.majesty.odds import strike_odds
from tableside.majesty.odds_report import strike_odds_dict
from tableside.majesty.strike import strike_cost
from tableside.store import table_audience
from tableside.strife import odds as strife_odds
from tableside.strife.attack import AttackSetup, check_attack, hit_modifiers, hit_rule
from tableside.strife.catalog import Element, PowerRoll, Stat
from tableside.strife.conditions import DISARMED, EXHAUSTION, KNOCKED_DOWN, VULNERABLE
from tableside.strife.loadout import loadout
from tableside.strife.odds_law import AttackOdds
from tableside.strife.penalties import armour_class, usable_reach
from tableside.strife.records import total
from tableside.web.auth import ForbiddenError, Principal, authorise_command, commander, commands
from tableside.web.redact import IsSecret, redact_record
from tableside.web.table import WebTable
from tableside.web.table_views import (
    current_actor,
    involved,
    record_view,
    seat_view,
    state_view,
)
from tableside.web.unseen import conceal, labels, unseen

# The dry run that checks a command before its odds rolls dice nobody sees: any fixed stream will
# do, since its events are thrown away (the engine's refusals come before any die is rolled).
DRY_RUN_SEED = 0

ODDS_KINDS = {"majesty-war": "strike", "strife-combat": "attack"}
PHYSICAL_DICE = "dice typed in"
STRIFE_REACTIONS = ("block", "parry", "combined_parry", "block_and_parry", "ward_off")
# The conditions the Host puts on from a picker: the engine's own (strife.conditions) and those it
# tracks without effects (its docstring: Stun, Dismount, Silence); any other name stays possible
# from the Host's advanced box (S-23).
STRIFE_CONDITIONS = (VULNERABLE, KNOCKED_DOWN, DISARMED, EXHAUSTION, "Stun", "Dismount", "Silence")


@dataclass(frozen=True)
class Snapshot:
    """The live encounter at one revision: its game, state and whose Turn it is."""

    game: Any
    state: Any
    revision: int
    next_seq: int
    current: str | None


def snapshot(table: WebTable, encounter_id: int) -> Snapshot:
    """The live encounter's current state, taken under its lock (states are immutable)."""
    with table.lock(encounter_id):
        live: Encounter[Any] = table.live(encounter_id)
        return Snapshot(live.game, live.state, live.revision, live.next_seq, current_actor(live))


def authorised(table: WebTable, who: Principal, encounter_id: int, command: Command) -> Snapshot:
    """The snapshot, once ``who`` may send ``command`` (refused as the command would be)."""
    snap = snapshot(table, encounter_id)
    authorise_command(who, snap.game.name, command.kind, command.args, snap.current,
                      snap.state)  # fmt: skip
    return snap


def dry_run(snap: Snapshot, command: Command) -> None:
    """Decide ``command`` on the snapshot with throwaway dice: the engine's own refusals."""
    snap.game.decide(snap.state, command, SeededRng(DRY_RUN_SEED))


# --- odds -------------------------------------------------------------------------------------


def odds(
    table: WebTable, who: Principal, encounter_id: int, kind: str, args: dict[str, Any]
) -> dict[str, Any]:
    """The exact odds of a ``strike`` (War) or ``attack`` (Realm of Strife) from the state now.

    The engine's refusals reach a player as public values only (W-9), as a command's do.
    """
    command = Command(kind, args)
    snap = authorised(table, who, encounter_id, command)
    expected = ODDS_KINDS[snap.game.name]
    if kind != expected:
        raise RulesError(
            f"Odds are given for the {expected!r} command of this encounter, not for {kind!r}."
        )
    with table.refusals(who, encounter_id, snap.game.name, snap.state, command):
        found = war_odds(snap, args) if kind == "strike" else fight_odds(snap, args)
    return {"revision": snap.revision, **found}


def war_odds(snap: Snapshot, raw: dict[str, Any]) -> dict[str, Any]:
    """A Strike's exact law (M-13 best or none; explicit steps are judged as best)."""
    args = parse_args(StrikeArgs, raw, "strike")
    if args.mode == AdjustMode.EXPLICIT:
        args = args.model_copy(update={"mode": AdjustMode.BEST, "steps": ()})
    dry_run(snap, Command("strike", args.model_dump(mode="json")))
    state: WarState = snap.state
    striker, defender = state.get(args.striker), state.get(args.defender)
    if args.two_ap and args.body is None and defender in grappling(state, striker.id):
        raise DataError(
            f"{striker.id}'s 2-AP Strike on {defender.id}, whom it Grapples, is a Might Check, "
            "not a Strike Roll: no Strike odds are given for it (M-37)."
        )
    # The War's state: its Dominions and its ruleset reach the odds too.
    setup = strike_setup(snap.game, args, striker, defender, state)
    law = strike_odds(setup)
    return {
        "kind": "strike",
        "policy": args.mode.value,
        "ap_cost": strike_cost(setup).ap,
        "odds": strike_odds_dict(law),
    }


def fight_odds(snap: Snapshot, raw: dict[str, Any]) -> dict[str, Any]:
    """The hit-roll odds (S-7) of every attack of an Action, each from the state now."""
    args = parse_args(AttackArgs, raw, "attack")
    dry_run(snap, Command("attack", raw))
    state: FightState = snap.state
    attacker = state.models[args.attacker]
    return {
        "kind": "attack",
        "attacks": [
            attack_odds(snap, attacker, item)  # SA-92: unnamed, the next weapon held
            for item in strife_attack.default_weapons(snap.game, attacker, args.attacks)
        ],
    }


def attack_setup(snap: Snapshot, attacker: Any, item: AttackItem) -> AttackSetup:
    """One attack's setup exactly as the fight builds it (``strife.attack.attack_setup``)."""
    return strife_attack.attack_setup(snap.game, Pending(snap.state), attacker, item)


def attack_odds(snap: Snapshot, attacker: Any, item: AttackItem) -> dict[str, Any]:
    """One attack's odds: its hit roll alone (S-7) and the whole attack with its reaction.

    ``outcomes`` is the hit roll's law before any reaction roll; ``whole`` is the law of
    everything the attack decides (Ward-off, a failed Parry ignoring Dodge, the reaction's
    verdict, damage dealt and P(the defender is left at 0 HP), S-7, S-10 … S-14, S-21).
    """
    setup = attack_setup(snap, attacker, item)
    use = check_attack(setup)
    modifier = total(hit_modifiers(setup, use))
    law = strife_odds.hit_odds(hit_rule(setup, use, False), modifier, setup.precision)
    return {
        "defender": item.defender,
        "weapon": setup.weapon.name,
        "reaction": item.reaction,
        "modifier": modifier,
        "ac": setup.ac,
        "dodge": setup.defender.dodge,
        "precision": setup.precision,
        "outcomes": {outcome.value: probability(p) for outcome, p in law.items()},
        "hit": probability(sum((p for o, p in law.items() if o.hits), Fraction(0))),
        "whole": whole_attack(strife_odds.attack_odds(setup)),
    }


def whole_attack(odds: AttackOdds) -> dict[str, Any]:
    """The whole attack's law as JSON (every probability as ``{p, fraction}``)."""
    chances = {
        "outcome": odds.outcome,
        "reaction": odds.reaction,
        "damage_basis": odds.damage_basis,
        "conditions": odds.conditions,
        "damaged_items": odds.damaged_items,
    }
    return {
        "hp": odds.hp,
        "hit": probability(odds.hits),
        "defeat": probability(odds.defeat),
        "stopped": probability(odds.stopped),
        **{name: {k: probability(p) for k, p in c.items()} for name, c in chances.items()},
        "damage": law_dict(odds.damage.items(), odds.damage.mean),
    }


def law_dict(items: Iterable[tuple[int, Fraction]], mean: Fraction) -> dict[str, Any]:
    """A law's mean and, per value, P(=) and P(≥)."""
    rows, below = [], Fraction(0)
    for value, p in items:
        rows.append({"value": value, "eq": probability(p), "ge": probability(1 - below)})
        below += p
    return {"mean": float(mean), "values": rows}


# --- preview ----------------------------------------------------------------------------------


def preview_rng(dice: tuple[int, ...] | None) -> ScriptedRng:
    """Physical dice only: a preview never draws the server's dice (they would be revealed)."""
    if dice is None:
        return ScriptedRng((), "dice typed in (a preview never rolls the server's dice)")
    return ScriptedRng(dice, PHYSICAL_DICE)


def preview(table: WebTable, who: Principal, encounter_id: int, command: Command) -> dict[str, Any]:
    """Decide ``command`` on a copy of the live state with typed dice; nothing is stored.

    The answer is the record the command would make (as the log would show it to ``who``) and,
    for a Strike, the Adjustments made with each die's index, as explicit steps. A player gets
    no preview of a command involving a combatant secret to it (W-10): its outcome would follow
    that combatant's values before anything is committed.
    """
    snap = authorised(table, who, encounter_id, command)
    secret = table.secret_to(who, encounter_id)
    refuse_secret_preview(involved(snap.state, command.args), secret, snap.game.name)
    rng = preview_rng(command.dice)
    with table.refusals(who, encounter_id, snap.game.name, snap.state, command, secret):
        events = tuple(snap.game.decide(snap.state, command, rng))
        rng.expect_all_used()
    record = LogRecord(snap.revision + 1, RecordKind.COMMAND, snap.next_seq, command, events)
    whole = record_view(record, frozenset())
    shown = redact_record(whole, secret)
    if shown != whole:  # something it did is secret to ``who`` (e.g. a collision, M-35)
        refuse_secret_preview([SOMEONE], lambda _combatant: True)
    adjustments = adjustments_of(shown["events"])
    found = {
        "revision": snap.revision,
        "record": shown,
        "adjustments": adjustments,
        "steps": steps_of(adjustments),
    }
    return dict(conceal(found, table.unseen_said(who, encounter_id, command.to_json())))  # W-66


SOMEONE = "a combatant"


def refuse_secret_preview(named: list[str], secret: IsSecret, game: str = "majesty-war") -> None:
    """Refuse a player a preview that involves a combatant secret to it (W-10).

    In Realm of Strife the dice typed all at once are refused too (W-52): the sentence says to
    roll at the table stage by stage instead.
    """
    hidden = [c for c in named if secret(c)]
    if hidden:
        names = " and ".join(hidden)
        instead = (
            "Roll at the table stage by stage instead (W-52)."
            if game == "strife-combat"
            else "Send the command with your dice instead."
        )
        raise ForbiddenError(
            f"Previews involving {names} are not shown to players: the outcome would follow "
            f"values that are secret to you (W-10). {instead}"
        )


def adjustments_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Adjustments of the Strike among ``events`` (die: 0-based index into the natural roll)."""
    for event in events:
        result = event["data"].get("result") if event["kind"] == "strike_resolved" else None
        if isinstance(result, dict):
            return list(result["adjustments"])
    return []


def steps_of(adjustments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Adjustments as the strike command's explicit ``steps`` (one ±1 step per face moved)."""
    steps = []
    for a in adjustments:
        delta = 1 if a["to"] > a["from"] else -1
        steps += [{"die": a["die"], "delta": delta, "side": a["by"]}] * abs(a["to"] - a["from"])
    return steps


# --- options ----------------------------------------------------------------------------------


def options(table: WebTable, who: Principal, encounter_id: int) -> dict[str, Any]:
    """What the play panel offers ``who``: its combatants, targets, actions and pickers.

    Its combatants come with their own values, targets with side and distance (the nearest
    enemy the first choice, W-17).

    A player gets only its own combatants' values; targets carry only what the table sees of
    everyone (W-2): side, position, distance and whether they are out of the fight. ``seat`` is
    the caller's seat as it is now (None for the Host): the page shows it anew after the Host
    edits it (W-36).
    """
    snap = snapshot(table, encounter_id)
    yours = turn_is_yours(table, who, encounter_id, snap.current, snap.state)
    common = {
        "revision": snap.revision, "current": snap.current, "yours": yours,
        "seat": None if who.seat is None else seat_view(who.seat),
    }  # fmt: skip
    if snap.game.name == "majesty-war":
        found = {**common, "kind": "strike", **war_options(snap, who)}
    else:
        found = {**common, "kind": "attack", **fight_options(snap, who)}
    if who.is_host:
        return found
    with table.lock(encounter_id):
        view = state_view(table.live(encounter_id))
    ids = unseen(table.store, view, who, encounter_id)  # W-66
    for actor in found.get("actors", []) if ids else []:
        actor["targets"] = [t for t in actor.get("targets", []) if t.get("id") not in ids]
        if actor.get("nearest") in ids:
            actor["nearest"] = None
    if found["current"] in ids:  # a Turn the player cannot see (W-66)
        found["current"] = None
    return dict(conceal(found, labels(ids)))


def turn_is_yours(
    table: WebTable, who: Principal, encounter_id: int, current: str | None, state: object = None
) -> bool:
    """Whether the Turn now is ``who``'s: a player's character, or for the Host an NPC (W-17).

    A controlled model's Turn is its controller's (SA-97): its seat's, or the Host's for an NPC.
    """
    if current is None:
        return False
    if not who.is_host:
        return commands(who, current, state)
    return commander(state)(current) not in table_audience.secrecy(table.store, encounter_id).played


def war_options(snap: Snapshot, who: Principal) -> dict[str, Any]:
    """Strikers ``who`` plays with values, weapon and targets; weapons, Maneuvers, effects.

    The effects and the values the Host may set are the engine's own tables (``war.args``).
    """
    state: WarState = snap.state
    catalog = snap.game.catalog
    out = state.ended
    actors = []
    for c in state.combatants.values():
        if not commands(who, c.id, state):
            continue
        found = targets(c.id, c.character.side.value, c.position, war_people(state))
        actors.append({
            "id": c.id, "side": c.character.side.value, "weapon": c.character.weapon,
            "ap": c.ap, "position": list(c.position), "targets": found,
            "nearest": nearest_enemy(found), "values": war_values(c),
        })  # fmt: skip
    weapons = [
        {"name": w.name, "melee": w.melee, "ranged_range": w.ranged_range}
        for w in catalog.weapons.values()
    ]
    maneuvers = [
        {"name": m.name, "ap_cost": m.ap_cost, "ranged_only": m.ranged_only,
         "melee_only": m.melee_only, "notes": m.notes}
        for m in catalog.maneuvers.values()
    ]  # fmt: skip
    return {
        "actors": actors, "weapons": weapons, "maneuvers": maneuvers,
        "started": bool(state.order) or out, "ended": out,
        "effects": list(get_args(EffectName)), "host_fields": list(get_args(HostField)),
        "everyone": [c.id for c in state.combatants.values()] if who.is_host else [],
    }  # fmt: skip


def war_people(state: WarState) -> list[tuple[str, str, Any, bool]]:
    """Every combatant as (id, side, position, out of the fight): public values (W-2)."""
    return [
        (c.id, c.character.side.value, c.position, c.character.status.value == "defeated")
        for c in state.combatants.values()
    ]


def war_values(c: Any) -> dict[str, Any]:
    """A War combatant's own values, for its player's panel (M-40 Speed; M-8 … M-12)."""
    ch = c.character
    w = ch.war
    return {
        "speed": w.speed, "precision": w.precision, "guard": w.guard, "force": w.force,
        "endurance": ch.current_endurance, "resolve": ch.current_resolve,
        "passion": ch.current_passion, "exertion": ch.exertion, "readied": c.readied,
        "falter": c.falter, "status": ch.status.value, "stance": c.stance,
    }  # fmt: skip


def fight_options(snap: Snapshot, who: Principal) -> dict[str, Any]:
    """Models ``who`` plays with values, weapons, powers and targets; conditions, Whole Turns.

    Each target carries the reactions it may declare now (S-4, S-10 … S-13).
    """
    state: FightState = snap.state
    catalog = snap.game.catalog
    people = [(m.id, m.side, m.position, m.sheet.hp <= 0) for m in state.models.values()]
    actors = []
    for m in state.models.values():
        if not commands(who, m.id, state):
            continue
        found = targets(m.id, m.side, m.position, people)
        for target in found:
            target["reactions"] = reactions_for(snap, state.models[target["id"]])
        kit = loadout(catalog, m.sheet)
        actors.append({
            "id": m.id, "side": m.side, "position": list(m.position),
            "weapons": [w.name for w in kit.weapons], "targets": found,
            "hands": held_hands(catalog, m.sheet),  # SA-92
            "nearest": nearest_enemy(found), "values": fight_values(m, kit),
            "powers": powers_for(catalog, m.sheet),
            "triggered": [{"name": r.name, "kind": r.kind, "when": r.when}
                          for r in m.sheet.reactions_known()],  # SA-96
        })  # fmt: skip
        if not (who.is_host or who.plays(m.id)):  # commanded under control, not its own (SA-97)
            actors[-1].update(controlled_by=commander(state)(m.id), triggered=[], values={
                "used": list(m.elements), "movement": m.sheet.movement})  # fmt: skip
    return {
        "actors": actors, "reactions": list(STRIFE_REACTIONS), "elements": list(Element),
        "conditions": list(STRIFE_CONDITIONS), "whole_turn": ["recover", "skill", "sprint"],
        "stats": list(Stat),
        "started": state.round >= 0 or state.ended, "ended": state.ended,
        "sides": sorted({m.side for m in state.models.values()}),
        "offers": [{"attacker": o.attacker, "target": o.target, "weapon": o.weapon}
                   for o in state.offers if commands(who, o.attacker, state)],
        "last_damaged": state.last_damaged,
        "controlled": [{"id": m.id, "by": commander(state)(m.id)} for m in state.models.values()
                       if who.plays(m.id) and not commands(who, m.id, state)],  # SA-97
        "everyone": [],
    }  # fmt: skip


def fight_values(m: Any, kit: Any) -> dict[str, Any]:
    """A model's own values for its player's panel.

    AC (with armour, S-16), Dodge, HP, the Reach of its weapons (S-24), Movement, the Turn
    elements used (S-5) and its resources.
    """
    sheet = m.sheet
    return {
        "ac": armour_class(sheet, kit.armour).value, "dodge": sheet.dodge, "hp": sheet.hp,
        "hp_max": sheet.hp_max, "movement": sheet.movement,
        "reach": max((usable_reach(sheet, w) for w in kit.weapons), default=0),
        "used": list(m.elements),
        "resources": {k.value: pool.current for k, pool in sheet.resources.items()},
    }  # fmt: skip


def powers_for(catalog: Any, sheet: Any) -> list[dict[str, Any]]:
    """The Cast picker: the sheet's own ``powers`` first, then those its pools can pay for.

    The sheet's own powers (its optional ``powers`` list, SA-60) come first, marked ``own``, in
    the sheet's order; then every other catalogue power of a resource the model has (W-27).
    Combined powers are cast with an attack, not from the picker.
    """
    have = {k.value for k, pool in sheet.resources.items() if (pool.maximum or pool.current)}
    found = [catalog.find_power(name) for name in getattr(sheet, "powers", ())]
    own = [p for p in found if p is not None and p.roll != PowerRoll.COMBINED]
    names = {p.name for p in own}
    payable = [
        p for p in catalog.powers.values()
        if p.resource.value in have and p.roll != PowerRoll.COMBINED and p.name not in names
    ]  # fmt: skip
    return [power_dict(p, p.name in names) for p in (*own, *payable)]


def power_dict(p: Any, own: bool) -> dict[str, Any]:
    """One power of the Cast picker: its cost, range, damage, element and timing."""
    return {
        "name": p.name, "resource": p.resource.value, "cost": p.cost, "range": p.range,
        "damage": p.damage, "element": p.element.value, "instant": p.timing == "instant",
        "own": own,
    }  # fmt: skip


def reactions_for(snap: Snapshot, defender: Any) -> list[str]:
    """The reactions ``defender`` may declare now: those the fight accepts (S-4, S-10 … S-13)."""
    allowed = []
    for kind in STRIFE_REACTIONS:
        try:
            declare_reaction(snap.game, Pending(snap.state), defender, kind)
        except RulesError:
            continue
        allowed.append(kind)
    return allowed


def targets(
    me: str, side: str, at: Any, everyone: Iterable[tuple[str, str, Any, bool]]
) -> list[dict[str, Any]]:
    """Every other combatant, the nearest first (W-17).

    Each with its side, whether it is an enemy and out of the fight, and its distance from
    ``at`` (inches, 3D).
    """
    found = [
        {"id": who, "side": their, "enemy": their != side, "out": out,
         "distance": round(distance(at, position), 2)}
        for who, their, position, out in everyone
        if who != me
    ]  # fmt: skip
    return sorted(found, key=lambda t: t["distance"])


def nearest_enemy(found: list[dict[str, Any]]) -> str | None:
    """The nearest combatant of another side still in the fight (W-17), or None."""
    return next((t["id"] for t in found if t["enemy"] and not t["out"]), None)
