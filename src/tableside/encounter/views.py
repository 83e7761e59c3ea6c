"""Plain-JSON views of an encounter's state, shared by the command line and the web table.

``war show --json`` / ``fight show --json`` print them, and the web table sends them (after
redaction) as ``state``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: a War's view never loads the Realm of Strife
    from tableside.encounter.strife.state import FightState, Model
    from tableside.encounter.war.state import WarState


def state_json(state: WarState, revision: int) -> dict[str, Any]:
    """The War's state as plain JSON."""
    return {
        "revision": revision,
        "cycle": state.cycle,
        "turn": state.turn,
        "current": None if state.current is None else state.current.combatant,
        "ended": state.ended,
        "winner": state.winner,
        "order": [
            {"combatant": t.combatant, "segment": t.segment, "ap": t.ap} for t in state.order
        ],
        "combatants": [combatant_json(c) for c in state.combatants.values()],
        "ruleset": state.ruleset,
        "dominions": [
            {"id": name, "center": list(d.center), "radius": d.radius}
            for name, d in state.dominions.items()
        ],
        "barriers": [
            {"id": name, "center": list(b.center), "radius": b.radius, "resolve": b.resolve}
            for name, b in state.barriers.items()
        ],
    }


def combatant_json(c: Any) -> dict[str, Any]:
    """One combatant as plain JSON."""
    ch = c.character
    return {
        "id": c.id, "side": ch.side.value, "status": ch.status.value,
        "endurance": ch.current_endurance, "resolve": ch.current_resolve,
        "passion": ch.current_passion, "wear": {"E": ch.wear.E, "R": ch.wear.R, "P": ch.wear.P},
        "falter": c.falter, "poison": c.poison, "ap": c.ap,
        "readied": c.readied, "exertion": ch.exertion, "position": list(c.position),
        "stance": c.stance, "full_stance": c.full_stance, "bound": c.bound,
        "grappled_by": c.grappled_by, "entangled_strength": c.entangled_strength,
        "exposed": c.exposed, "asleep": c.asleep, "surprised_by": list(c.surprised_by),
        "timed": [{"name": t.name, "source": t.source,
                   "ends": None if t.ends is None else t.ends.to_json()} for t in c.timed],
    }  # fmt: skip


def model_json(m: Model) -> dict[str, Any]:
    """One model as plain JSON, with the AC attacks use: the sheet's plus its armour (S-16)."""
    from tableside.strife.catalog import builtin_catalog  # kept out of the CLI's start-up
    from tableside.strife.loadout import loadout
    from tableside.strife.penalties import armour_class

    kit = loadout(builtin_catalog(), m.sheet)
    return {
        "id": m.id, "side": m.side, "hp": m.sheet.hp, "hp_max": m.sheet.hp_max,
        "ac": armour_class(m.sheet, kit.armour).value, "dodge": m.sheet.dodge,
        "movement": m.sheet.movement, "weapons": [w.name for w in kit.weapons],
        "position": list(m.position), "score": m.score, "elements": list(m.elements),
        "conditions": [{"name": c.name, "source": c.source, "rounds_left": c.rounds_left,
                        "until": c.until, "stacks": c.stacks} for c in m.conditions],
        "initiative_penalty": m.initiative_penalty, "hidden": m.hidden,
        "submerged": m.submerged,  # SA-76
        "perched": m.perched, "flying": m.position[2] > 0 and not m.perched,  # SA-90, SA-93
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
        "ground": [{"weapon": w, "at": list(at)} for w, at in state.ground],  # SA-72
    }  # fmt: skip
