"""A simple, documented policy for automated Realm of Strife fights (golden transcript, simulation).

In order of preference:
1. Attacks of Opportunity on offer are taken (S-18).
2. A model that has just taken damage, is below half HP and still has its Reaction Rolls with the
   Blow 1" straight back from its attacker (less if half its Movement is less; not at all with
   no Movement) (S-19).
3. On its Turn, a model below half its HP that is in contact disengages: it moves as far as its
   Movement pays for (half as far when crawling, Knocked Down: S-6, S-23) straight away from the
   nearest enemy (S-18), then ends its Turn.
4. A model with a power it can cast casts it at the nearest enemy instead (F-40): the first power
   of its sheet's ``powers`` that is a damaging offensive catalogue power with a casting roll of
   its own, cast as an Action, that it can pay for and that reaches that enemy (a touch power in
   base contact; a ranged one within its range and, offensive, not in base contact: SA-60,
   SA-61) — on that enemy and, for a power that may reach several, on the next nearest enemies
   it reaches, up to its most targets; each Blocks a blockable power when it has a shield and its
   Reaction (SA-68); then the Turn ends.
5. Otherwise it attacks an enemy in contact with its first equipped weapon (the defender Blocks
   with a shield, or Parries with a weapon that can, while its Reaction lasts), or moves toward
   the nearest enemy (as far as its Movement pays for, stopping 0.9" short) and attacks if it
   then can; then the Turn ends. A model with no weapon equipped, or no Movement, does only what
   it can of this (no attack; no move) and ends its Turn.
"""

from __future__ import annotations

from collections.abc import Sequence

from tableside.encounter.log import Command
from tableside.encounter.strife_fight import CONTACT
from tableside.encounter.strife_state import FightState, Model
from tableside.majesty.geometry import Point, distance
from tableside.strife.catalog import (
    TARGETS_MAX,
    Catalog,
    Combatant,
    PowerEntry,
    PowerRoll,
    PowerTargets,
    builtin_catalog,
)
from tableside.strife.loadout import loadout
from tableside.strife.movement import Leg, MoveMode, inch_cost, under_conditions

ROUNDING = 0.005  # positions are rounded to 1/1000"; stay this far inside a hard limit


def _enemies(state: FightState, me: Model) -> list[Model]:
    return sorted((m for m in state.models.values() if m.side != me.side and not m.down),
                  key=lambda m: (distance(me.position, m.position), m.id))  # fmt: skip


def _away(start: Point, source: Point, inches: float) -> Point:
    gap = distance(start, source) or 1.0
    return tuple(round(a + (a - b) / gap * inches, 3) for a, b in zip(start, source, strict=True))  # type: ignore[return-value]


def _toward(start: Point, goal: Point, inches: float) -> Point:
    gap = distance(start, goal) or 1.0
    t = min(1.0, inches / gap)
    return tuple(round(a + (b - a) * t, 3) for a, b in zip(start, goal, strict=True))  # type: ignore[return-value]


def reach(me: Model) -> float:
    """Inches its Movement pays for: 1 per inch walking, 2 crawling or swimming (S-6, S-23).

    A model under water that does not live in water swims (SA-76); a hidden model sneaks at half
    its Movement (SA-42).
    """
    leg = Leg(1, MoveMode.SWIM) if swims(me) else Leg(1)
    movement = me.sheet.movement / 2 if me.hidden else me.sheet.movement
    return movement / inch_cost(under_conditions(leg, me.conditions))


def swims(me: Model) -> bool:
    """Under water and not aquatic: its moves are swimming (SA-76)."""
    return me.submerged and not me.sheet.aquatic


def _move(me: Model, to: Sequence[float]) -> Command:
    mode = {"mode": MoveMode.SWIM.value} if swims(me) else {}
    return Command("move", {"id": me.id, "to": list(to), **mode})


def reaction_for(catalog: Catalog, state: FightState, defender: Model) -> str | None:
    """Block with a shield, else Parry with a weapon that can, while the Reaction lasts.

    An untrained weapon has no Parry (S-24).
    """
    if not state.rounds.can_react(defender.id):
        return None
    gear = loadout(catalog, defender.sheet)
    if gear.shield is not None:
        return "block"
    main = gear.main_hand
    if main is not None and main.attributes.parry is not None:
        return "parry" if defender.sheet.proficient(main.group) else None
    return None


def castable_powers(catalog: Catalog, sheet: Combatant) -> tuple[PowerEntry, ...]:
    """The powers of a sheet the policy casts, in the sheet's order (F-40).

    A catalogue power with a casting roll of its own (not a combined one, S-9), cast as an
    Action (not an Instant), offensive and dealing damage.
    """
    found = []
    for name in sheet.powers:
        entry = catalog.find_power(name)
        if (
            entry is not None
            and entry.roll == PowerRoll.CASTING
            and entry.timing == "action"
            and entry.offensive
            and entry.damage is not None
        ):
            found.append(entry)
    return tuple(found)


def affordable(entry: PowerEntry, pool: int) -> bool:
    """Whether a caster with ``pool`` of the power's resource can pay its cost (SA-49)."""
    return entry.cost == 0 or (entry.resource is not None and pool >= entry.cost)


def pool_of(sheet: Combatant, entry: PowerEntry) -> int:
    """What the sheet holds of the resource a power's cost is paid from (0 without one)."""
    pool = None if entry.resource is None else sheet.resources.get(entry.resource)
    return 0 if pool is None else pool.current


def reaches(entry: PowerEntry, gap: float) -> bool:
    """A touch power in base contact; a ranged one within range, offensive not in contact.

    (SA-60, SA-61: inches between centres.)
    """
    if entry.touch:
        return gap <= CONTACT
    return gap <= float(entry.range) and not (entry.offensive and gap <= CONTACT)


def most_targets(entry: PowerEntry) -> int:
    """The most targets one cast of a power may have (SA-60)."""
    return entry.max_targets or (1 if entry.targets == PowerTargets.ONE else TARGETS_MAX)


def _cast(catalog: Catalog, state: FightState, me: Model, enemies: list[Model]) -> Command | None:
    """F-40: the first castable power it can pay for that reaches the nearest enemy, cast.

    On the nearest enemy and, for a power reaching several, the next nearest it reaches, up to
    its most; each Blocks a blockable power with a shield while its Reaction lasts.
    """
    gaps = [distance(me.position, m.position) for m in enemies]
    for entry in castable_powers(catalog, me.sheet):
        if affordable(entry, pool_of(me.sheet, entry)) and reaches(entry, gaps[0]):
            reached = [m for m, gap in zip(enemies, gaps, strict=True) if reaches(entry, gap)]
            targets = reached[: most_targets(entry)]
            args: dict[str, object] = {"caster": me.id, "targets": [m.id for m in targets],
                                       "power": entry.name}  # fmt: skip
            if entry.blockable:
                blocks = {m.id: "block" for m in targets
                          if reaction_for(catalog, state, m) == "block"}  # fmt: skip
                if blocks:
                    args["blocks"] = blocks
            return Command("cast", args)
    return None


def next_command(state: FightState, catalog: Catalog | None = None) -> Command:
    """The policy's next command."""
    catalog = catalog or builtin_catalog()
    if state.offers:
        o = state.offers[0]
        return Command("aoo", {"attacker": o.attacker, "target": o.target, "weapon": o.weapon})
    rolled = _roll_with_the_blow(state)
    if rolled is not None:
        return rolled
    return _turn(catalog, state)


def _roll_with_the_blow(state: FightState) -> Command | None:
    hurt = state.models.get(state.last_damaged or "")
    attacker = state.models.get(state.last_damaged_by or state.current or "")
    if hurt is None or attacker is None or hurt.down or 2 * hurt.sheet.hp >= hurt.sheet.hp_max:
        return None
    if not state.rounds.can_react(hurt.id) or hurt.id in state.rounds.failed_parry:
        return None
    inches = min(1.0, hurt.sheet.movement / 2 - ROUNDING)  # at most half Movement (S-6, S-19)
    if inches <= 0:
        return None
    return Command(
        "roll_with_the_blow",
        {"id": hurt.id, "to": list(_away(hurt.position, attacker.position, inches))},
    )


def _turn(catalog: Catalog, state: FightState) -> Command:
    me = state.models.get(state.current or "")
    if me is None or state.ended or "action" in me.elements:
        return Command("next")
    enemies = _enemies(state, me)
    if not enemies:
        return Command("next")
    near = enemies[0]
    gap = distance(me.position, near.position)
    can_move = "move" not in me.elements and reach(me) > 0
    armed = bool(loadout(catalog, me.sheet).weapons)
    if gap <= CONTACT and can_move and 2 * me.sheet.hp < me.sheet.hp_max:
        away = _away(me.position, near.position, reach(me))
        return _move(me, away)
    cast = _cast(catalog, state, me, enemies) if me.sheet.powers else None
    if cast is not None:
        return cast
    if gap <= CONTACT and armed:
        item = {"defender": near.id, "reaction": reaction_for(catalog, state, near)}
        return Command(
            "attack", {"attacker": me.id, "attacks": [{k: v for k, v in item.items() if v}]}
        )
    if gap > CONTACT and can_move and armed:
        step = min(reach(me), gap - 0.9)
        return _move(me, _toward(me.position, near.position, step))
    return Command("next")
