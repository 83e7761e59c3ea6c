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

The policy knows the rules (SA-94): each choice above is put to the engine's own validation (the
command run on a copy of the fight, nothing kept) and a refused one is passed over for the next
that the engine accepts: first the choices above in their order, then the same choices at other
enemies (a Taunted model's attacks, offensive powers and moves go to its taunter, SA-71, SA-91;
a Feared one's moves away), and last the end of the Turn. Where the first choice is accepted, it
is the choice the policy always made.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tableside.dice import SeededRng
from tableside.encounter.log import Command
from tableside.encounter.strife.args import CONTACT
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.state import FightState, Model
from tableside.errors import TablesideError
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


def _cast_args(
    catalog: Catalog, state: FightState, me: Model, entry: PowerEntry, targets: list[Model]
) -> Command:
    """A cast of ``entry`` on ``targets``; each Blocks a blockable power while it may (SA-68)."""
    args: dict[str, object] = {"caster": me.id, "targets": [m.id for m in targets],
                               "power": entry.name}  # fmt: skip
    if entry.blockable:
        blocks = {m.id: "block" for m in targets
                  if reaction_for(catalog, state, m) == "block"}  # fmt: skip
        if blocks:
            args["blocks"] = blocks
    return Command("cast", args)


def _casts(
    catalog: Catalog, state: FightState, me: Model, enemies: list[Model]
) -> Iterator[Command]:
    """F-40: the first castable power it can pay for that reaches the nearest enemy, cast.

    On the nearest enemy and, for a power reaching several, the next nearest it reaches, up to
    its most; each Blocks a blockable power with a shield while its Reaction lasts.
    """
    gaps = [distance(me.position, m.position) for m in enemies]
    for entry in castable_powers(catalog, me.sheet):
        if affordable(entry, pool_of(me.sheet, entry)) and reaches(entry, gaps[0]):
            reached = [m for m, gap in zip(enemies, gaps, strict=True) if reaches(entry, gap)]
            yield _cast_args(catalog, state, me, entry, reached[: most_targets(entry)])
            return


def _other_casts(
    catalog: Catalog, state: FightState, me: Model, enemies: list[Model]
) -> Iterator[Command]:
    """SA-94: each power it can pay for at each enemy it reaches, with others, then alone.

    A Taunted caster's offensive powers go only to its taunter (SA-91).
    """
    gaps = [distance(me.position, m.position) for m in enemies]
    reached_by = {}
    for entry in castable_powers(catalog, me.sheet):
        if affordable(entry, pool_of(me.sheet, entry)):
            reached_by[entry.name] = (entry, [m for m, gap in zip(enemies, gaps, strict=True)
                                              if reaches(entry, gap)])  # fmt: skip
    for entry, reached in reached_by.values():
        for first in reached:
            others = [m for m in reached if m.id != first.id]
            yield _cast_args(catalog, state, me, entry, [first, *others][: most_targets(entry)])
            yield _cast_args(catalog, state, me, entry, [first])


def accepts(game: StrifeFight, state: FightState, command: Command) -> bool:
    """Whether the engine accepts ``command`` now: its own validation on a copy (SA-94).

    The handler runs on a Pending copy with throwaway dice; nothing is kept.
    """
    try:
        game.pending(state, command, SeededRng(0), describe=False)
    except TablesideError:
        return False
    return True


def next_command(
    state: FightState, catalog: Catalog | None = None, game: StrifeFight | None = None
) -> Command:
    """The policy's next command: the first of its choices, in order, the engine accepts (SA-94).

    When none is accepted, the end of the Turn (``next``).
    """
    if game is None:
        game = StrifeFight(catalog or builtin_catalog())
    for command in candidates(state, game.catalog):
        if accepts(game, state, command):
            return command
    return Command("next")


def first_choice(state: FightState, catalog: Catalog) -> Command:
    """The policy's first choice, not yet put to the engine (``next`` when it has none)."""
    return next(candidates(state, catalog), Command("next"))


def candidates(state: FightState, catalog: Catalog) -> Iterator[Command]:
    """The policy's choices in its order of preference (see the module's documentation)."""
    for o in state.offers:
        yield Command("aoo", {"attacker": o.attacker, "target": o.target, "weapon": o.weapon})
    rolled = _roll_with_the_blow(state)
    if rolled is not None:
        yield rolled
    yield from _turn(catalog, state)


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


def _attack(catalog: Catalog, state: FightState, me: Model, target: Model) -> Command:
    item = {"defender": target.id, "reaction": reaction_for(catalog, state, target)}
    return Command("attack", {"attacker": me.id, "attacks": [{k: v for k, v in item.items() if v}]})


def _turn(catalog: Catalog, state: FightState) -> Iterator[Command]:
    me = state.models.get(state.current or "")
    if me is None or state.ended or "action" in me.elements:
        return
    enemies = _enemies(state, me)
    if not enemies:
        return
    near = enemies[0]
    gap = distance(me.position, near.position)
    can_move = "move" not in me.elements and reach(me) > 0
    armed = bool(loadout(catalog, me.sheet).weapons)
    if gap <= CONTACT and can_move and 2 * me.sheet.hp < me.sheet.hp_max:
        yield _move(me, _away(me.position, near.position, reach(me)))
    first_cast = next(_casts(catalog, state, me, enemies), None) if me.sheet.powers else None
    if first_cast is not None:  # refused, the same powers at other targets (SA-91, SA-94)
        yield first_cast
        yield from _other_casts(catalog, state, me, enemies)
    if gap <= CONTACT and armed:
        yield _attack(catalog, state, me, near)
    if gap > CONTACT and can_move and armed:
        yield _move(me, _toward(me.position, near.position, min(reach(me), gap - 0.9)))
    yield from _other_choices(catalog, state, me, enemies)


def _other_choices(
    catalog: Catalog, state: FightState, me: Model, enemies: list[Model]
) -> Iterator[Command]:
    """SA-94: the same attacks and moves at the other enemies, the first choices refused."""
    armed = bool(loadout(catalog, me.sheet).weapons)
    can_move = "move" not in me.elements and reach(me) > 0
    for other in enemies[1:]:
        gap = distance(me.position, other.position)
        if gap <= CONTACT and armed:
            yield _attack(catalog, state, me, other)
        elif can_move and armed:
            yield _move(me, _toward(me.position, other.position, min(reach(me), gap - 0.9)))
