"""Forced movement, thrown weapons, Shield Blows, crushing injuries and water in a fight.

The Combat page's rules that move or change a model outside its own choices (SA-70 … SA-77):

- ``forced_move``: knock-back, fear, taunt or mind control moves a model at once, along a
  straight line that stops at the first model in the way, without Attacks of Opportunity
  (S-18, SA-70);
- the conditions Feared, Taunted and Mind Controlled bind the victim's own Turn (SA-71);
- a thrown weapon leaves the hand and lies at its target; ``pick_up`` takes it back (SA-72);
- a Shield Blow is an attack with the shield (S-16, SA-73);
- a blocked melee critical may crush the blocker's hand, arm or shoulder (S-10, SA-74);
- an attack's situational modifiers are named (SA-75);
- ``water`` puts a model under water or takes it out, with the underwater rules (S-16, SA-76),
  and a Sprint stays on the ground (S-5, SA-77).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any, Literal

from tableside.dice import Rng
from tableside.encounter.decisions import Choice
from tableside.encounter.strife.args import AttackItem
from tableside.encounter.strife.state import FightState, Model, condition_json
from tableside.encounter.strife.turns import FightRules, Pending, use_element
from tableside.encounter.war.args import ID, Args, Coordinates, parse_args
from tableside.errors import RulesError
from tableside.limits import Flag, Name
from tableside.majesty.geometry import Point, distance
from tableside.strife.attack import AttackResult
from tableside.strife.catalog import Catalog, Combatant, Weapon, WeaponAttributes
from tableside.strife.conditions import UNTIL_HOST, condition
from tableside.strife.hit import HitOutcome
from tableside.strife.loadout import loadout
from tableside.strife.movement import MoveMode
from tableside.strife.reactions import Family, Verdict
from tableside.strife.records import Part
from tableside.strife.turns import TurnElement

CONTACT = 1.0  # inches between centres that count as base contact (SA-29)


KNOCK_BACK_TOLERANCE = 0.05  # inches off the line away from the source a knock-back may stray


FEARED = "Feared"


TAUNTED = "Taunted"


MIND_CONTROLLED = "Mind Controlled"


CONTROLLED = "Controlled"  # the built-in Curse of Control's effect


CRUSHING_INJURY = "Crushing Injury"


SHIELD_BLOW = "Shield Blow"


SHIELDS = "Shields"  # the proficiency a Shield Blow is trained with (S-16)


ForcedKind = Literal["knock_back", "fear", "taunt", "mind_control"]


InjuryPlace = Literal["hand", "arm", "shoulder"]


FORCED_PHRASE = {
    "knock_back": "knocked back",
    "fear": "driven off by fear",
    "taunt": "drawn by a taunt",
    "mind_control": "moved by mind control",
}


class ForcedMoveArgs(Args):
    """forced_move: a model moved against its will, at once (S-18, SA-70).

    ``by`` is the model whose blow, fear, taunt or control moves it; ``stopped_by`` is the
    Host's word when a wall or the edge of the field cut the move short (the fight has no
    terrain, so ``to`` is then where it stopped).
    """

    id: str = ID
    kind: ForcedKind
    by: str = ID
    to: Coordinates
    stopped_by: Literal["wall", "edge"] | None = None


class PickUpArgs(Args):
    """pick_up: take a weapon lying within base contact into a free hand (SA-72)."""

    id: str = ID
    weapon: Name


class WaterArgs(Args):
    """water: the Host puts a model fully under water, or takes it out (S-16, SA-76)."""

    id: str = ID
    submerged: Flag = True


def do_forced_move(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Move a model against its will: no Turn element, no Movement, no AoO (S-18, SA-70)."""
    args = parse_args(ForcedMoveArgs, raw, "forced_move")
    if p.state.round < 0 or p.state.ended:
        raise RulesError("A model can be forced to move only while the fight is on.")
    victim, source = p.model(args.id), p.model(args.by)
    if victim.down:
        raise RulesError(f"{victim.id} is out of the fight and cannot be moved.")
    if source.id == victim.id:
        raise RulesError(f"{victim.id} cannot force itself to move; give who moves it (by).")
    check_forced_direction(args.kind, victim, source.position, args.to)
    end, blocker = path_stop(p.state, victim, args.to)
    inches = distance(victim.position, end)
    stopped = blocker or args.stopped_by
    p.emit("moved", "SA-70", id=victim.id, to=list(end), moved=round(inches, 3), forced=True,
           kind=args.kind, by=source.id,
           **({"stopped_by": stopped, "intended": list(args.to)} if stopped else {}))  # fmt: skip


def check_forced_direction(kind: str, victim: Model, source: Point, to: Sequence[float]) -> None:
    """Which way each forced move goes (SA-70).

    A knock-back goes directly away from its source (within ``KNOCK_BACK_TOLERANCE`` of the
    line from the source through the victim); fear ends farther from the feared model than it
    began; a taunt ends nearer the taunter (or in base contact with it); mind control goes
    wherever the controller moves it.
    """
    before, after = distance(victim.position, source), distance(tuple(to), source)  # type: ignore[arg-type]
    if kind == "knock_back":
        check_directly_away(victim, source, to)
    elif kind == "fear" and after <= before:
        raise RulesError(
            f'{victim.id} flees in fear: it must end farther than {before:.1f}" from what it '
            f'fears, not {after:.1f}" (SA-70).'
        )
    elif kind == "taunt" and after > before and after > CONTACT:
        raise RulesError(
            f'{victim.id} is taunted: it must end nearer than {before:.1f}" to the taunter, '
            f'not {after:.1f}" (SA-70).'
        )


def straying(
    position: Sequence[float], source: Sequence[float], to: Sequence[float], tolerance: float
) -> str | None:
    """How a move from ``position`` to ``to`` fails to go directly away from ``source``.

    Directly away is along the ray from ``source`` through ``position``, within ``tolerance``
    inches of it (a knock-back, SA-70; a Roll with the Blow, S-19). None: it goes directly away,
    or the two share a spot, or there is no move (then the direction is the Host's call).
    """
    back = [a - b for a, b in zip(position, source, strict=True)]
    step = [a - b for a, b in zip(to, position, strict=True)]
    length = math.sqrt(sum(c * c for c in back))
    if length == 0 or not any(step):
        return None
    along = sum(a * b for a, b in zip(step, back, strict=True)) / length
    off = math.sqrt(max(0.0, sum(c * c for c in step) - along * along))
    if along <= 0:
        return "does not go away from it"
    return f'strays {off:.2f}" off that line' if off > tolerance else None


def check_directly_away(victim: Model, source: Point, to: Sequence[float]) -> None:
    """A knock-back moves the victim directly away from its source (SA-70)."""
    how = straying(victim.position, source, to, KNOCK_BACK_TOLERANCE)
    if how is not None:
        raise RulesError(
            f"A knock-back moves {victim.id} directly away from its source; this move {how} "
            "(SA-70)."
        )


def path_stop(state: FightState, victim: Model, to: Sequence[float]) -> tuple[Point, str | None]:
    """Where a forced move ends: at ``to``, or in base contact with the first model in the way.

    Every other standing model blocks the straight line from the victim to ``to``: the victim
    stops where it comes into base contact (1") with it while closing on it; one it is already
    in contact with blocks it at once only when the move closes on it (SA-70).
    """
    start = victim.position
    delta = [b - a for a, b in zip(start, to, strict=True)]
    first, blocker = 1.0, None
    for other in state.models.values():
        if other.id == victim.id or other.down:
            continue
        t = contact_time(start, delta, other.position)
        if t is not None and (t < first or (t == first and blocker is None)):
            first, blocker = t, other.id
    if blocker is None:
        return (float(to[0]), float(to[1]), float(to[2])), None
    end = tuple(a + first * d for a, d in zip(start, delta, strict=True))
    return (end[0], end[1], end[2]), blocker


def contact_time(start: Point, delta: Sequence[float], centre: Point) -> float | None:
    """The fraction of the move at which it comes into base contact with ``centre``, or None."""
    rel = [a - c for a, c in zip(start, centre, strict=True)]
    a = sum(d * d for d in delta)
    if a == 0:
        return None
    b = 2 * sum(d * r for d, r in zip(delta, rel, strict=True))
    c = sum(r * r for r in rel) - CONTACT * CONTACT
    if c <= 0:
        return 0.0 if b < 0 else None  # already in contact: blocked only when closing in
    disc = b * b - 4 * a * c
    if disc < 0:
        return None
    t = (-b - math.sqrt(disc)) / (2 * a)
    if not 0 <= t <= 1:
        return None
    return min(1.0, t + 1e-9)  # a hair on, so the stop counts as base contact (≤ 1")


def compellers(state: FightState, m: Model, name: str) -> list[Model]:
    """The models behind each ``name`` condition on ``m``: its source names the model.

    A source is a model's id, or begins with it and "'s" (a power's effect: "Sera's Curse of
    Control"). A source naming no model in the fight binds nothing the engine can check.
    """
    found = []
    by_length = sorted(state.models.values(), key=lambda o: -len(o.id))
    for item in m.conditions:
        if item.name != name:
            continue
        owner = next((o for o in by_length if names(item.source, o.id)), None)
        if owner is not None and owner.id != m.id and not owner.down:
            found.append(owner)
    return found


def names(source: str, model: str) -> bool:
    """Whether a condition's source names ``model``: its id, or its id and "'s …"."""
    return source == model or source.startswith(f"{model}'s ")


def compelled_move(state: FightState, m: Model, to: Sequence[float]) -> str | None:
    """The compulsion a model's own move is made under, checked for its direction (SA-71).

    Feared: the move must end farther from each feared model; Taunted: nearer each taunter
    (or in base contact with it); Mind Controlled (or Controlled, the Curse of Control's
    effect): the controller moves it anywhere. Such a
    move is made under compulsion, so it offers no Attack of Opportunity (S-18).
    """
    kinds = []
    for owner in compellers(state, m, FEARED):
        check_forced_direction("fear", m, owner.position, to)
        kinds.append("fear")
    for owner in compellers(state, m, TAUNTED):
        check_forced_direction("taunt", m, owner.position, to)
        kinds.append("taunt")
    if compellers(state, m, MIND_CONTROLLED) or compellers(state, m, CONTROLLED):
        kinds.append("mind_control")
    return kinds[0] if kinds else None


def controller_of(state: FightState, model: str | None) -> str | None:
    """Who makes ``model``'s choices: its controller while Mind Controlled or Controlled (SA-95).

    The condition's source names the controller (SA-71); with none standing in the fight (or no
    such condition) the model makes its own. Mind Control before a Controlled, each the first
    put on.
    """
    m = state.models.get(model or "")
    if m is None:
        return model
    owners = compellers(state, m, MIND_CONTROLLED) or compellers(state, m, CONTROLLED)
    return owners[0].id if owners else model


def commander_of(state: object, model: str) -> str | None:
    """Who sends ``model``'s own Turn commands now: its controller for the duration (SA-97).

    Any state but a Realm of Strife fight's (a War knows no control): the model itself. The
    controller is SA-95's; when the condition ends (its rounds, ``end_condition``, an undo of
    the command that put it on) the model's own player commands it again.
    """
    if not isinstance(state, FightState):
        return model
    return controller_of(state, model)


def to_controller(state: FightState, choice: Choice) -> Choice:
    """A choice owed by a controlled model, made by its controller instead (SA-95)."""
    owner = controller_of(state, choice.combatant)
    return choice if owner == choice.combatant else dataclasses.replace(choice, combatant=owner)


def check_taunted_targets(
    state: FightState, attacker: Model, defenders: Sequence[str], act: str = "attack"
) -> None:
    """A Taunted model aims only at the model that taunted it while that one stands.

    ``act`` is what it aims: ``attack`` (its attacks, SA-71), ``power`` (an offensive power,
    SA-91) or ``aoo`` (an Attack of Opportunity, SA-91).
    """
    taunters = {o.id for o in compellers(state, attacker, TAUNTED)}
    if not taunters:
        return
    other = next((d for d in defenders if d not in taunters), None)
    if other is None:
        return
    names = " or ".join(sorted(taunters))
    aims = {
        "attack": f"it may attack only {names}, not {other} (SA-71)",
        "power": f"its offensive powers may target only {names}, not {other} (SA-91)",
        "aoo": f"it may take an Attack of Opportunity only on {names}, not {other} (SA-91)",
    }
    raise RulesError(f"{attacker.id} is taunted: {aims[act]}.")


def taunt_allows(state: FightState, attacker: str, target: str) -> bool:
    """Whether a Taunted model may aim at ``target``: only at a standing taunter (SA-91)."""
    taunters = {o.id for o in compellers(state, state.models[attacker], TAUNTED)}
    return not taunters or target in taunters


def throw_away(p: Pending, attacker: str, weapon: str, target: str) -> None:
    """The thrown weapon leaves the hand and lies at the target's position (SA-72)."""
    m = p.model(attacker)
    held = {h: getattr(m.sheet, h) for h in ("main_hand", "off_hand")}
    hand = next((h for h, w in held.items() if w is not None and w.lower() == weapon.lower()), None)
    p.emit("weapon_thrown", "SA-72", id=m.id, weapon=weapon, hand=hand,
           at=list(p.model(target).position))  # fmt: skip


def do_pick_up(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Pick up a weapon lying within base contact: a Quick Action, so the Instant (S-5, SA-72)."""
    args = parse_args(PickUpArgs, raw, "pick_up")
    m = p.model(args.id)
    wanted = args.weapon.lower()
    near = [(w, at) for w, at in p.state.ground if w.lower() == wanted]
    spot = next(((w, at) for w, at in near if distance(m.position, at) <= CONTACT), None)
    if spot is None:
        where = (
            f"no {args.weapon} lies on the ground"
            if not near
            else f"the nearest {args.weapon} lies "
            f'{min(distance(m.position, at) for _, at in near):.1f}" away'
        )
        raise RulesError(
            f'{m.id} can pick up only a weapon lying within base contact (1"), and {where} (SA-72).'
        )
    hand = "main_hand" if m.sheet.main_hand is None else None
    if hand is None and m.sheet.off_hand is None and m.sheet.shield is None:
        hand = "off_hand"
    if hand is None:
        raise RulesError(f"{m.id} has no free hand to pick up the {spot[0]} with (SA-72).")
    use_element(p, m.id, TurnElement.INSTANT)
    p.emit("picked_up", "SA-72", id=m.id, weapon=spot[0], hand=hand, at=list(spot[1]))


def shield_blow_weapon(catalog: Catalog, sheet: Combatant) -> Weapon:
    """The equipped shield as a weapon: its size, its blow damage and stun chance (SA-73).

    It is trained with the Shields proficiency; untrained it is Clumsy and has no % effects
    (S-16: "does not have the associated stun chance", SA-40). Its Crushing Blow is the
    shield's.
    """
    gear = loadout(catalog, sheet)
    if gear.shield is None:
        raise RulesError(f"{sheet.name} has no shield equipped for a Shield Blow (S-16).")
    shield = gear.shield
    return Weapon(name=f"{shield.name} ({SHIELD_BLOW})", group=SHIELDS, size=shield.size,
                  damage=shield.blow_damage, effects=shield.blow_effects,
                  attributes=WeaponAttributes(crushing_blow=shield.crushing_blow))  # fmt: skip


def check_shield_blows(catalog: Catalog, attacker: Model, items: Sequence[AttackItem]) -> None:
    """A Shield Blow is the off hand's attack: once an Action, with the off hand free (SA-73)."""
    blows = [i for i in items if i.shield_blow]
    if not blows:
        return
    if any(i.weapon is not None or i.thrown for i in blows):
        raise RulesError("A Shield Blow strikes with the shield: give no weapon and no throw.")
    shield_blow_weapon(catalog, attacker.sheet)
    if attacker.sheet.off_hand is not None:
        raise RulesError(
            f"{attacker.id}'s off hand attacks with its {attacker.sheet.off_hand}, so it makes "
            "no Shield Blow (SA-73)."
        )
    if len(blows) > 1:
        raise RulesError(f"{attacker.id} makes at most one Shield Blow per Action (SA-73).")


def crushing_injury(
    p: Pending, attacker: str, defender: str, place: str | None, result: AttackResult
) -> None:
    """A Block that met a melee critical may crush the hand, arm or shoulder (S-10, SA-74).

    ``place`` is the Host's call made with the attack; the injury is put on only when a Block
    (not a Critical Block) took a melee Critical Hit: a named condition until the Host removes
    it, with no invented effect (S-23).
    """
    rolled = result.reaction
    if place is None or rolled is None or result.setup.ranged:
        return
    if result.outcome != HitOutcome.CRITICAL_HIT or rolled.verdict != Verdict.SUCCESS:
        return
    if rolled.reaction.family != Family.BLOCK or p.model(defender).down:
        return
    item = condition(f"{CRUSHING_INJURY} ({place})", f"{attacker}'s blocked critical",
                     until=UNTIL_HOST)  # fmt: skip
    p.emit("condition_added", "SA-74", id=defender, condition=condition_json(item))


def situational_parts(named: dict[str, int]) -> tuple[Part, ...]:
    """An attack's situational modifiers, each under its own name (SA-75)."""
    return tuple(Part(label, amount) for label, amount in named.items())


def do_water(game: FightRules, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The Host puts a model fully under water, or brings it out (S-16, SA-76)."""
    args = parse_args(WaterArgs, raw, "water")
    m = p.model(args.id)
    if m.submerged == args.submerged:
        state = "under water" if m.submerged else "out of the water"
        raise RulesError(f"{m.id} is already {state}.")
    p.emit("submerged_set", "SA-76", id=m.id, submerged=args.submerged)


def check_water_move(m: Model, mode: MoveMode) -> None:
    """A model under water swims, unless it lives in water (S-6, S-16, SA-76)."""
    if m.submerged and not m.sheet.aquatic and mode != MoveMode.SWIM:
        raise RulesError(
            f'{m.id} is under water: it moves by swimming (mode swim, 2" an inch), not '
            f"{mode.value} (S-6, SA-76)."
        )


def water_gap(attacker: Model, defender: Model, gap: float) -> float:
    """A ranged distance where every inch through water counts 2 (S-16, SA-76).

    The fight has no water surface, so the whole line counts as through water when either end
    is under water.
    """
    return 2 * gap if attacker.submerged or defender.submerged else gap


def flying(m: Model) -> bool:
    """A model above the ground (z > 0) flies unless it holds on where it climbed to (SA-90)."""
    return m.position[2] > 0 and not m.perched


def placed_perched(
    who: str, sheet: Combatant, at: Sequence[float], perched: bool | None
) -> bool | None:
    """Whether a model set up above the ground stands there (SA-93); None on the ground.

    The Host's word decides (``perched``: true stands on a roof or a ledge, false flies);
    unsaid, a model whose sheet can fly flies and any other stands where it was put.
    """
    if at[2] <= 0:
        if perched is not None:
            raise RulesError(
                f"{who} is put on the ground (z {at[2]:g}): perched or flying is said only for "
                "a model above the ground (SA-93)."
            )
        return None
    return (not sheet.can_fly) if perched is None else perched


def host_placed_perched(m: Model, to: Sequence[float], perched: bool | None) -> bool | None:
    """The Host's placing of a model (SA-93): None keeps the perch as SA-90 reads it.

    Put up from the ground, a model is placed as ``add`` places it; moved on above the ground,
    it keeps its perch (SA-90) unless the Host says otherwise.
    """
    placed = placed_perched(m.id, m.sheet, to, perched)
    if placed is None or (perched is None and m.position[2] > 0):
        return None
    return placed


def check_sprint_ground(m: Model, to: Sequence[float]) -> None:
    """A Sprint is ground movement with no passive effect such as Flying (S-5, SA-77, SA-90).

    A climber above the ground stands where it climbed to: it may Sprint on at that height
    (along a ledge) or down to the ground, not up or down the wall.
    """
    if to[2] > 0 and not m.perched:
        raise RulesError(
            f"{m.id} cannot Sprint to a point above the ground (z {to[2]:g}): Flying is "
            "prevented while sprinting (S-5, SA-77)."
        )
    if to[2] > 0 and to[2] != m.position[2]:
        raise RulesError(
            f"{m.id} cannot Sprint up or down from where it climbed to (z {m.position[2]:g} to "
            f"{to[2]:g}): a Sprint is ground movement at that height, or down to the ground "
            "(S-5, SA-90)."
        )
    if m.submerged and not m.sheet.aquatic:
        raise RulesError(f"{m.id} is under water and cannot Sprint: it swims (S-5, SA-76).")


FORCED_HANDLERS: dict[str, Any] = {
    "forced_move": do_forced_move,
    "pick_up": do_pick_up,
    "water": do_water,
}
