"""Deciding a Realm of Strife fight: which events each command produces (S-3 … S-23).

Commands: add, start (with an optional ambush), next, bottom, move, attack (an Action of up to
four attacks under the 4-3-2 rule), aoo (an Attack of Opportunity on offer), instant,
whole_turn (recover, skill, sprint), roll_with_the_blow, hide, condition, end_condition,
end_combat, host_set. Reactions are declared with the attack they answer and refused when the
round's one Reaction is spent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import Field

from tableside.dice import Rng, ScriptedRng
from tableside.encounter.decisions import Choice
from tableside.encounter.log import Command, Event
from tableside.encounter.strife_dice import AttackStages, Entered, entered_dice
from tableside.encounter.strife_state import FightState, Model, condition_json, evolve
from tableside.encounter.war_args import ID, Args, Coordinates, parse_args
from tableside.errors import RulesError
from tableside.limits import (
    HOST_VALUE_MAX,
    MODIFIER_MAX,
    MODIFIERS_MAX,
    ROUNDS_MAX,
    SPELL_POWER_MAX,
    Flag,
    FreeText,
    Label,
    Name,
    SideName,
)
from tableside.majesty.geometry import distance
from tableside.strife import reactions as react
from tableside.strife.attack import AttackResult, AttackSetup, roll_attack, roll_attack_in_stages
from tableside.strife.casting import (
    CastDice,
    CastResult,
    CastSetup,
    Power,
    cast_with_dice,
    roll_cast,
    spell_power_share,
)
from tableside.strife.catalog import (
    Catalog,
    Combatant,
    Element,
    Resource,
    Stat,
    Weapon,
    builtin_catalog,
)
from tableside.strife.checks import (
    InitiativeEntry,
    initiative_with_natural,
    order_initiative,
    stat_test,
)
from tableside.strife.conditions import EXHAUSTION, KNOCKED_DOWN, condition
from tableside.strife.limits import PlannedAttack, check_4_3_2
from tableside.strife.loadout import effective_ac, loadout
from tableside.strife.movement import (
    Leg,
    MoveMode,
    check_path,
    roll_with_the_blow_limit,
    sprint_plan,
)
from tableside.strife.penalties import PenaltyContext, attack_range, usable_reach
from tableside.strife.records import Part
from tableside.strife.report import attack_dict, cast_dict, stat_test_dict
from tableside.strife.resources import end_of_combat, start_of_combat
from tableside.strife.ruleset import STANDARD, StrifeRuleset
from tableside.strife.turns import (
    ROLL_WITH_THE_BLOW_INITIATIVE,
    MoveCause,
    TurnElement,
    check_turn,
    disengage,
    recover,
    with_bottom_of_queue,
)

Modifier = Annotated[int, Field(ge=-MODIFIER_MAX, le=MODIFIER_MAX)]
Face = Annotated[int, Field(ge=-1000, le=1000)]  # checked against its die by the stage (D-6)
CONTACT = 1.0  # inches between centres that count as base contact (SA addendum)
NEXT_TURN_END = "the end of its next Turn"
STRAIGHT_BACK_TOLERANCE = 0.05  # inches off the attacker–defender line a roll may stray (SA-44)


class AddArgs(Args):
    """add: a model from the catalogue (by name) or a sheet, on a side, at a position.

    ``hiding`` declares, before the fight starts, that the model is hiding: it keeps its Stealth
    when the fight starts (S-22, SA-16).
    """

    id: str = ID
    model: Name | None = None
    sheet: dict[str, Any] | None = None
    side: SideName
    position: Coordinates = (0.0, 0.0, 0.0)
    hiding: bool = False


class StartArgs(Args):
    """start: roll nothing more; order by Initiative Score; optional ambush round (S-3, S-4)."""

    ambush: Label | None = None


class IdArgs(Args):
    """Commands naming one model."""

    id: str = ID


class MoveArgs(Args):
    """move: one Move per Turn along a straight line, with its terrain (S-6, S-18)."""

    id: str = ID
    to: Coordinates
    mode: MoveMode = MoveMode.WALK
    difficult: Flag = False


class AttackItem(Args):
    """One attack of an Action, with the defender's declared reaction (if any)."""

    defender: str = ID
    weapon: Name | None = None
    precision: Flag = False
    modifiers: tuple[Modifier, ...] = Field(default=(), max_length=MODIFIERS_MAX)
    reaction: Literal["block", "parry", "combined_parry", "block_and_parry", "ward_off"] | None = (
        None
    )


class AttackArgs(Args):
    """attack: the Action of a model — up to four attacks (S-17) — which ends its Turn (S-5).

    ``physical`` names the models whose dice are rolled at the table and ``rolled`` holds the
    faces they entered, stage by stage (D-6, :mod:`tableside.encounter.strife_dice`).
    """

    attacker: str = ID
    attacks: tuple[AttackItem, ...] = Field(min_length=1, max_length=8)
    physical: tuple[Annotated[str, ID], ...] = Field(default=(), max_length=16)
    rolled: dict[Annotated[str, Field(max_length=40)], tuple[Face, ...] | None] = Field(
        default_factory=dict, max_length=64
    )


class CastArgs(Args):
    """cast: a power on one or more targets — an Action, or the Instant for an instant power."""

    caster: str = ID
    targets: tuple[str, ...] = Field(min_length=1, max_length=12)
    power: Name
    element: Element
    damage: str | None = Field(default=None, max_length=20)
    spell_power: int = Field(default=0, ge=0, le=SPELL_POWER_MAX)
    separate_rolls: Flag = False
    instant: Flag = False
    resists: Flag = True


class AooArgs(Args):
    """aoo: take an Attack of Opportunity on offer (S-18)."""

    attacker: str = ID
    target: str = ID
    weapon: Name


class InstantArgs(Args):
    """instant: one per Turn, or out of turn at the cost of the next Turn's (S-4, S-5)."""

    id: str = ID
    name: Name


class WholeTurnArgs(Args):
    """whole_turn: Recover, a whole-turn skill, or Sprint (S-5)."""

    id: str = ID
    kind: Literal["recover", "skill", "sprint"]
    to: Coordinates | None = None
    skill: Name | None = None


class RollArgs(Args):
    """roll_with_the_blow: right after taking damage (S-19)."""

    id: str = ID
    to: Coordinates


class ConditionArgs(Args):
    """condition: put a named condition on a model, with a duration and a source (S-23)."""

    id: str = ID
    name: Name
    rounds: int | None = Field(default=None, ge=1, le=ROUNDS_MAX)
    until: FreeText | None = None
    source: FreeText = "host"


class EndConditionArgs(Args):
    """end_condition: remove a condition by name."""

    id: str = ID
    name: Name


class EndCombatArgs(Args):
    """end_combat: class resources after the fight (S-22)."""

    wave: Flag = False
    battle_within_2_minutes: Flag = False


class HostArgs(Args):
    """host_set: the Host's adjustment of HP or position (logged)."""

    id: str = ID
    field: Literal["hp", "position"]
    value: Annotated[int, Field(ge=-HOST_VALUE_MAX, le=HOST_VALUE_MAX)] | Coordinates


@dataclass
class Pending:
    """A working copy of the fight that applies each event as it is emitted."""

    state: FightState
    events: list[Event] = field(default_factory=list)
    describe: bool = True  # full attack/cast/test reports in the informational events

    def emit(self, event_kind: str, rule: str | None = None, /, **data: Any) -> None:
        """Record an event and apply it."""
        event = Event(event_kind, data, rule)
        self.events.append(event)
        self.state = evolve(self.state, event)

    def model(self, name: str) -> Model:
        """A model that must exist."""
        found = self.state.models.get(name)
        if found is None:
            known = ", ".join(self.state.models) or "none yet"
            raise RulesError(f"There is no model {name!r} in this fight (known: {known}).")
        return found


@dataclass(frozen=True)
class StrifeFight:
    """A Realm of Strife combat as an encounter Game."""

    catalog: Catalog = field(default_factory=builtin_catalog)
    ruleset: StrifeRuleset = STANDARD
    name: str = "strife-combat"

    def initial(self) -> FightState:
        """No models yet."""
        return FightState()

    def evolve(self, state: FightState, event: Event) -> FightState:
        """Apply one event."""
        return evolve(state, event)

    def decide(self, state: FightState, command: Command, rng: Rng) -> list[Event]:
        """Validate a command and return its events."""
        return self.pending(state, command, rng, describe=True).events

    def play(
        self, state: FightState, command: Command, rng: Rng, describe: bool = False
    ) -> tuple[list[Event], FightState]:
        """Decide a command and return its events with the state after them (= their fold).

        The simulation's fast path: no second fold, and with ``describe=False`` no full reports
        in the informational events (the state never reads them).
        """
        p = self.pending(state, command, rng, describe)
        return p.events, p.state

    def choices(self, state: FightState, command: Command, rng: Rng) -> Sequence[Choice]:
        """The choices ``command`` involves, each for its owner (D-4, D-6, D-7).

        See :mod:`tableside.encounter.strife_choices`; ``rng`` is a throwaway copy of the
        command's dice stream.
        """
        from tableside.encounter.strife_choices import strife_choices

        return strife_choices(self, state, command, rng)

    def pending(self, state: FightState, command: Command, rng: Rng, describe: bool) -> Pending:
        """Run a command's handler on a Pending copy of the fight (raise to refuse)."""
        handler = HANDLERS.get(command.kind)
        if handler is None:
            raise RulesError(
                f"Unknown fight command {command.kind!r}; known: {', '.join(HANDLERS)}."
            )
        p = Pending(state, describe=describe)
        handler(self, p, command.args, rng)
        check_end(p)
        return p


# --- turn bookkeeping -------------------------------------------------------------------------


def check_end(p: Pending) -> None:
    """The fight ends when only one side has models standing."""
    sides = {m.side for m in p.state.models.values()}
    standing = {m.side for m in p.state.models.values() if not m.down}
    if p.state.round >= 0 and len(sides) > 1 and len(standing) < 2 and not p.state.ended:
        p.emit("fight_ended", None, winner=next(iter(standing), None))


def use_element(p: Pending, who: str, element: TurnElement) -> None:
    """Record a Turn element after checking the Turn's structure (S-5)."""
    if p.state.ended:
        raise RulesError("The fight has ended.")
    if p.state.current != who:
        raise RulesError(f"It is not {who}'s Turn (it is {p.state.current or 'nobody'}'s).")
    m = p.model(who)
    if TurnElement.ACTION.value in m.elements:
        raise RulesError(f"{who} has taken its Action, which ends the Turn (S-5).")
    if element == TurnElement.INSTANT and m.instant_barred:
        raise RulesError(f"{who} used this Turn's one instant out of turn (S-4).")
    check_turn([TurnElement(e) for e in (*acted(m), element.value)])
    p.emit("element_used", "S-5", id=who, element=element.value)


def acted(m: Model) -> tuple[str, ...]:
    """What the model did this Turn: an Instant spent out of turn does not count (S-4, SA-34).

    Only that Turn's Instant is barred, so a Whole Turn may still follow (SA-43).
    """
    if not m.instant_barred:
        return m.elements
    rest = list(m.elements)
    rest.remove(TurnElement.INSTANT.value)
    return tuple(rest)


def turn_order(state: FightState) -> list[str]:
    """This round's order: Initiative Score less any Roll with the Blow penalty (S-3, S-19)."""
    standing = [m for m in state.models.values() if not m.down]
    key = {m.id: (m.score - m.initiative_penalty, m.sheet.initiative) for m in standing}
    return sorted(key, key=lambda name: (-key[name][0], -key[name][1], name))


def start_round(p: Pending, number: int, order: list[str], ambush: str | None = None) -> None:
    """A new round: conditions tick, Reactions come back, the queue resets (S-4, S-23)."""
    p.emit("round_started", "S-4", round=number, order=order, ambush=ambush, tick=number > 1)
    for m in p.state.models.values():
        if m.initiative_penalty and m.id in order:
            p.emit("initiative_penalty", "S-19", id=m.id, penalty=0)
    next_turn(p)


def next_turn(p: Pending) -> None:
    """Begin the next standing model's Turn, or the next round."""
    for index in range(p.state.turn + 1, len(p.state.order)):
        m = p.state.models.get(p.state.order[index])
        if m is not None and not m.down:
            p.emit("turn_started", "S-5", id=m.id, turn=index, round=p.state.round)
            return
    start_round(p, p.state.round + 1, turn_order(p.state))


# --- handlers ---------------------------------------------------------------------------------


def do_add(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A model joins and rolls its Initiative Score at once (S-3)."""
    args = parse_args(AddArgs, raw, "add")
    if args.id in p.state.models:
        raise RulesError(f"There is already a model {args.id!r} in this fight.")
    if args.hiding and p.state.round >= 0:
        raise RulesError("Hiding can be declared with add only before the fight starts (S-22).")
    sheet = model_sheet(game, args)
    loadout(game.catalog, sheet)
    entry = initiative_with_natural(args.id, args.side, sheet.initiative, rng.roll(20))
    sheet_json = sheet.model_dump(mode="json")
    p.emit("model_added", "S-3", id=args.id, side=args.side, position=list(args.position),
           sheet=sheet_json, score=entry.score, natural=entry.natural)  # fmt: skip
    if args.hiding:
        p.emit("hidden_set", "S-22", id=args.id, hidden=True, declared=True)


def model_sheet(game: StrifeFight, args: AddArgs) -> Combatant:
    """The sheet named from the catalogue, or given whole."""
    if (args.model is None) == (args.sheet is None):
        raise RulesError("Give either a catalogue model name or a sheet, not both or neither.")
    if args.model is not None:
        return game.catalog.combatant(args.model)
    from pydantic import ValidationError

    from tableside.strife.catalog import validation_sentence

    try:
        return Combatant.model_validate(args.sheet)
    except ValidationError as error:
        raise RulesError(validation_sentence(error, f"sheet of {args.id}")) from None


def do_start(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Turn Order by Initiative Score (ties: Initiative stat, then a seeded roll-off) (S-3, S-4)."""
    args = parse_args(StartArgs, raw, "start")
    if p.state.round >= 0:
        raise RulesError("The fight has already started.")
    sides = {m.side for m in p.state.models.values()}
    if len(sides) < 2:
        raise RulesError("A fight needs models on at least two sides.")
    reset_stealth(p)
    entries = [
        InitiativeEntry(m.id, m.side, m.sheet.initiative, 0, (), m.score)
        for m in p.state.models.values()
    ]
    order = list(order_initiative(entries, rng).names)
    if args.ambush is not None:
        if args.ambush not in sides:
            raise RulesError(
                f"No side {args.ambush!r} is in this fight (sides: {', '.join(sorted(sides))})."
            )
        p.emit(
            "note",
            "S-4",
            text=f"{args.ambush} ambushes: one free round in Turn Order",
            full_order=order,
        )
        start_round(p, 0, [n for n in order if p.state.models[n].side == args.ambush], args.ambush)
    else:
        start_round(p, 1, order)


def reset_stealth(p: Pending) -> None:
    """Stealth starts the fight at 0 unless hiding was declared beforehand (S-22, SA-16)."""
    for m in list(p.state.models.values()):
        stealth = m.sheet.resources.get(Resource.STEALTH)
        if stealth is None or stealth.current == 0 or m.hidden:
            continue
        after = start_of_combat(m.sheet.resources)
        pools = {k.value: v.model_dump(mode="json") for k, v in after.items()}
        p.emit("resources_set", "S-22", id=m.id, resources=pools)


def do_next(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """End the current Turn and begin the next."""
    parse_args(Args, raw, "next")
    if p.state.ended:
        raise RulesError("The fight has ended.")
    if p.state.round < 0:
        raise RulesError("Start the fight first.")
    if p.state.current is not None:
        end_turn(p, p.state.current)
    next_turn(p)


def end_turn(p: Pending, who: str) -> None:
    """The Turn ends; conditions lasting until the end of its next Turn end with it (S-19)."""
    p.emit("turn_ended", "S-5", id=who)
    m = p.state.models.get(who)
    for item in () if m is None else m.conditions:
        if item.until == NEXT_TURN_END:
            p.emit("condition_ended", "S-19", id=who, name=item.name)


def do_bottom(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The current model goes to the bottom of the queue: one per side per round (S-4)."""
    args = parse_args(IdArgs, raw, "bottom")
    m = p.model(args.id)
    if p.state.current != m.id or acted(m):
        raise RulesError(f"{m.id} may go to the bottom of the queue only at the start of its Turn.")
    rest = list(p.state.order[p.state.turn :])
    sides = {n: p.state.models[n].side for n in p.state.order if n in p.state.models}
    moved = with_bottom_of_queue(rest, sides, [*[b for b in p.state.bottom if b in rest], m.id])
    p.emit("bottom_of_queue", "S-4", id=m.id)
    order = [*p.state.order[: p.state.turn], *moved]
    p.emit("order_set", "S-4", order=order, turn=p.state.turn - 1)
    next_turn(p)


def contacts(catalog: Catalog, state: FightState, who: str) -> dict[str, list[str]]:
    """Enemies in base contact with ``who`` and their equipped weapons."""
    m = state.models[who]
    return {
        o.id: [w.name for w in loadout(catalog, o.sheet).weapons]
        for o in state.models.values()
        if o.side != m.side and not o.down and distance(o.position, m.position) <= CONTACT
    }


def do_move(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """One Move: its cost (S-6), and Attacks of Opportunity when leaving contact (S-18)."""
    args = parse_args(MoveArgs, raw, "move")
    m = p.model(args.id)
    use_element(p, m.id, TurnElement.MOVE)
    inches = distance(m.position, args.to)
    leg = Leg(Fraction(inches).limit_denominator(100), args.mode, args.difficult)
    cost = check_path(m.sheet.movement, [leg], m.conditions)
    if m.hidden:
        check_sneak(m, cost)
    before = contacts(game.catalog, p.state, m.id)
    p.emit("moved", "S-6", id=m.id, to=list(args.to), moved=round(inches, 3))
    left = {k: v for k, v in before.items() if k not in contacts(game.catalog, p.state, m.id)}
    offer_aoos(p, m.id, left)


def check_sneak(m: Model, cost: Fraction) -> None:
    """Moving while hidden (sneaking) has half the Movement (SA-42)."""
    half = Fraction(m.sheet.movement, 2)
    if cost > half:
        raise RulesError(
            f'{m.id} is hidden: sneaking halves Movement to {float(half):g}", and this move '
            f'costs {float(cost):g}" (SA-42).'
        )


def offer_aoos(p: Pending, mover: str, left: dict[str, list[str]]) -> None:
    """Every enemy left behind may take free attacks, each weapon once per Turn (S-18)."""
    _, _, free = disengage(p.state.aoo, p.state.rounds, mover, MoveCause.REGULAR_MOVE, left)
    if free:
        p.emit("aoo_offered", "S-18", offers=[{"attacker": f.attacker, "weapon": f.weapon,
                                               "target": f.target} for f in free])  # fmt: skip


def do_aoo(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Take an Attack of Opportunity on offer; the first one spends the Reaction (S-4, S-18)."""
    args = parse_args(AooArgs, raw, "aoo")
    offer = next((o for o in p.state.offers if (o.attacker, o.target, o.weapon)
                  == (args.attacker, args.target, args.weapon)), None)  # fmt: skip
    if offer is None:
        raise RulesError(
            f"{args.attacker} has no Attack of Opportunity with {args.weapon} on {args.target}."
        )
    if args.attacker not in p.state.aoo.used:
        if not p.state.rounds.can_react(args.attacker):
            raise RulesError(f"{args.attacker} has already used its Reaction this round (S-4).")
        p.emit("reaction_spent", "S-4", id=args.attacker, failed_parry=False, reason="AoO")
    p.emit("aoo_used", "S-18", attacker=args.attacker, weapon=args.weapon, target=args.target)
    item = AttackItem(defender=args.target, weapon=args.weapon)
    resolve_attack(game, p, p.model(args.attacker), item, rng, free_attack=True)


def do_attack(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """An Action of attacks: 4-3-2 for player characters (S-17); the Action ends the Turn."""
    args = parse_args(AttackArgs, raw, "attack")
    attacker = p.model(args.attacker)
    use_element(p, attacker.id, TurnElement.ACTION)
    default = _default_weapon(game, attacker)
    planned = [PlannedAttack(a.defender, a.weapon or default) for a in args.attacks]
    check_4_3_2(planned, npc=attacker.sheet.npc)
    entered = physical_dice(args, rng)
    for index, item in enumerate(args.attacks):
        if p.model(item.defender).down:
            continue
        stages = None if entered is None else (entered, index)
        resolve_attack(game, p, p.model(attacker.id), item, rng, stages=stages)
    if entered is not None:
        entered.finish()


def physical_dice(args: AttackArgs, rng: Rng) -> Entered | None:
    """The Action's physical dice entered stage by stage, or None: all from ``rng`` (D-6)."""
    if not args.physical:
        if args.rolled:
            raise RulesError("rolled gives dice, but physical names nobody who rolls them.")
        return None
    if isinstance(rng, ScriptedRng):
        raise RulesError(
            "Give physical dice either all at once (dice) or stage by stage (physical and "
            "rolled), not both."
        )
    return entered_dice(args.physical, args.rolled, len(args.attacks))


def _default_weapon(game: StrifeFight, m: Model) -> str:
    weapons = loadout(game.catalog, m.sheet).weapons
    if not weapons:
        raise RulesError(f"{m.id} has no weapon equipped; name one with the attack.")
    return weapons[0].name


def resolve_attack(
    game: StrifeFight,
    p: Pending,
    attacker: Model,
    item: AttackItem,
    rng: Rng,
    free_attack: bool = False,
    stages: tuple[Entered, int] | None = None,
) -> None:
    """Roll one attack with the defender's reaction and apply damage and conditions.

    ``stages``: the Action's physical dice and this attack's index in it (D-6); None: every
    die from ``rng``.
    """
    defender = p.model(item.defender)
    setup = attack_setup(game, p, attacker, item, free_attack)
    if stages is None:
        result = roll_attack(setup, rng)
    else:
        entered, index = stages
        source = AttackStages(entered, rng, index, setup, attacker.id, defender.id, item.precision)
        result = roll_attack_in_stages(setup, source)
    p.emit("attack_resolved", "S-7", attacker=attacker.id, defender=defender.id,
           result=attack_dict(result) if p.describe else None)  # fmt: skip
    apply_attack(p, attacker.id, defender.id, result)


def attack_setup(
    game: StrifeFight, p: Pending, attacker: Model, item: AttackItem, free_attack: bool = False
) -> AttackSetup:
    """One attack's setup from the fight's state: weapon, reach, reaction, AC (S-7, S-10 … S-14).

    Refuses an attack on oneself, out of reach (unless ``free_attack``) or with a reaction that
    cannot be declared. The fight and the web table's odds both build attacks here.
    """
    defender = p.model(item.defender)
    if defender.id == attacker.id:
        raise RulesError(f"{attacker.id} cannot attack itself.")
    weapon = game.catalog.weapon(item.weapon or _default_weapon(game, attacker))
    if not free_attack:
        check_reach(attacker, defender, weapon)
    reaction = declare_reaction(game, p, defender, item.reaction)
    return AttackSetup(attacker.sheet, defender.sheet, weapon, precision=item.precision,
                       hit_modifiers=tuple(Part("modifier", m) for m in item.modifiers),
                       defender_ac=effective_ac(game.catalog, defender.sheet).value,
                       reaction=reaction, ruleset=game.ruleset)  # fmt: skip


def check_reach(attacker: Model, defender: Model, weapon: Weapon) -> None:
    """Melee needs base contact (plus the weapon's Reach); ranged, the weapon's range (SA-37).

    Untrained, a weapon has no Reach: base contact only (S-24).
    """
    gap = distance(attacker.position, defender.position)
    if weapon.ranged:
        limit = attack_range(attacker.sheet, weapon, PenaltyContext()) or Fraction(0)
        if gap > limit:
            raise RulesError(
                f'{defender.id} is {gap:.1f}" away, beyond the range of {weapon.name} '
                f'({float(limit):g}").'
            )
    elif gap > CONTACT + (reach := usable_reach(attacker.sheet, weapon)):
        untrained = "" if reach == weapon.reach else ", untrained: S-24"
        raise RulesError(
            f"{attacker.id} must be in base contact with {defender.id} to attack with "
            f'{weapon.name} (Reach {reach}{untrained}); the distance is {gap:.1f}".'
        )


def declare_reaction(
    game: StrifeFight, p: Pending, defender: Model, kind: str | None
) -> react.Reaction | None:
    """A declared reaction, refused when the round's Reaction is spent (S-4, S-10 … S-13)."""
    if kind is None:
        return None
    if not p.state.rounds.can_react(defender.id):
        raise RulesError(f"{defender.id} has already used its Reaction this round (S-4).")
    gear = loadout(game.catalog, defender.sheet)
    main = gear.main_hand
    if kind == "block" and gear.shield is not None:
        return react.block(defender.sheet, gear.shield)
    if kind == "parry" and main is not None:
        return react.parry(defender.sheet, main)
    if kind == "combined_parry" and main is not None and gear.off_hand is not None:
        return react.combined_parry(defender.sheet, main, gear.off_hand)
    if kind == "block_and_parry" and gear.shield is not None and main is not None:
        return react.block_and_parry(defender.sheet, gear.shield, main, react.Family.PARRY)
    if kind == "ward_off" and main is not None:
        return react.ward_off(defender.sheet, main)
    raise RulesError(f"{defender.id} has nothing equipped to {kind.replace('_', ' ')} with.")


def apply_attack(p: Pending, attacker: str, defender: str, result: AttackResult) -> None:
    """Spend the reaction, deal damage, put conditions on (S-7, S-10 … S-14, S-23)."""
    if result.setup.reaction is not None:
        failed = (
            result.reaction is not None
            and result.reaction.verdict.value == "failure"
            and (result.setup.reaction.family == react.Family.PARRY)
        )
        p.emit("reaction_spent", "S-4", id=defender, failed_parry=failed, reason="reaction")
    if result.total_damage:
        hp = max(0, p.model(defender).sheet.hp - result.total_damage)
        p.emit("hp_set", "S-14", id=defender, hp=hp, damage=result.total_damage, source=attacker)
    for inflicted in result.inflicted:
        who = attacker if inflicted.target == "attacker" else defender
        p.emit("condition_added", "S-23", id=who, condition=condition_json(inflicted.condition))


def do_cast(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Cast a power (S-8); spell power is shared among the targets hit (S-15)."""
    args = parse_args(CastArgs, raw, "cast")
    caster = p.model(args.caster)
    use_element(p, caster.id, TurnElement.INSTANT if args.instant else TurnElement.ACTION)
    power = Power(args.power, args.element, args.damage)
    rolls = [roll_cast(CastSetup(caster.sheet, p.model(t).sheet, power, resists=args.resists,
                                 ruleset=game.ruleset), rng) for t in args.targets]  # fmt: skip
    hit = sum(1 for r in rolls if r.damage is not None)
    share = spell_power_share(args.spell_power, hit, args.separate_rolls) if hit else 0
    for name, first in zip(args.targets, rolls, strict=True):
        result = first
        if first.damage is not None and share:
            result = cast_with_share(first, share)
        p.emit("cast_resolved", "S-8", caster=caster.id, target=name,
               result=cast_dict(result) if p.describe else None,
               spell_power=share)  # fmt: skip
        if result.damage is not None and result.damage.total:
            hp = max(0, p.model(name).sheet.hp - result.damage.total)
            p.emit("hp_set", "S-8", id=name, hp=hp, damage=result.damage.total, source=caster.id)


def cast_with_share(first: CastResult, share: int) -> CastResult:
    """The same casting roll and dice with the target's spell-power share added (S-15)."""
    rolls = () if first.damage is None else first.damage.rolls
    reaction = None if first.reaction is None else first.reaction.test.natural
    dice = CastDice(first.natural, reaction, rolls)
    return cast_with_dice(replace(first.setup, spell_power=share), dice)


def do_instant(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """An Instant on its Turn, or out of turn using up its next Turn's Instant (S-4, S-5)."""
    args = parse_args(InstantArgs, raw, "instant")
    m = p.model(args.id)
    if p.state.current == m.id:
        use_element(p, m.id, TurnElement.INSTANT)
    else:
        p.emit("instant_owed", "S-4", id=m.id)
    p.emit("note", "S-5", id=m.id, text=f"Instant: {args.name}")


def do_whole_turn(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Recover (+1 HP), a whole-turn skill, or Sprint with Stamina tests after the first (S-5)."""
    args = parse_args(WholeTurnArgs, raw, "whole_turn")
    m = p.model(args.id)
    use_element(p, m.id, TurnElement.WHOLE_TURN)
    if args.kind == "recover":
        p.emit("hp_set", "S-5", id=m.id, hp=recover(m.sheet.hp, m.sheet.hp_max), damage=0)
    elif args.kind == "skill":
        p.emit("note", "S-5", id=m.id, text=f"whole-turn skill: {args.skill or 'unnamed'}")
    else:
        sprint_to(game, p, m, args.to, rng)
    p.emit("element_used", "S-5", id=m.id, element=TurnElement.ACTION.value)


def sprint_to(game: StrifeFight, p: Pending, m: Model, to: Any, rng: Rng) -> None:
    """Sprint: 2 × natural Movement; each consecutive Sprint needs a Stamina test (S-5)."""
    if to is None:
        raise RulesError("A Sprint needs a destination (to).")
    run = sprint_plan(m.sheet.movement, m.sprints + 1)
    inches = distance(m.position, to)
    if m.hidden and inches > run.distance / 2:
        raise RulesError(
            f"{m.id} is hidden: a Sprint while hidden is a Hustle, which only cancels the halving "
            f'of sneaking: at most {m.sheet.movement}", not {inches:.1f}" (SA-42).'
        )
    if inches > run.distance:
        raise RulesError(f'A Sprint covers at most {run.distance}", not {inches:.1f}" (S-5).')
    if run.stamina_test_needed:
        test = stat_test(rng, Part("STAM", m.sheet.stat(Stat.STAM)))
        p.emit(
            "test_resolved",
            "S-5",
            id=m.id,
            purpose="Sprint Stamina test",
            result=stat_test_dict(test) if p.describe else None,
        )
        if not test.success:
            p.emit("condition_added", "S-5", id=m.id, condition=condition_json(
                condition(EXHAUSTION, "consecutive Sprint")))  # fmt: skip
    before = contacts(game.catalog, p.state, m.id)
    p.emit("moved", "S-5", id=m.id, to=list(to), moved=round(inches, 3))
    p.emit("sprinted", "S-5", id=m.id, sprints=m.sprints + 1)
    offer_aoos(
        p, m.id, {k: v for k, v in before.items() if k not in contacts(game.catalog, p.state, m.id)}
    )


def do_roll(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Roll with the Blow after damage: ≤ half Movement, −10 Initiative, Knocked Down (S-19)."""
    args = parse_args(RollArgs, raw, "roll_with_the_blow")
    m = p.model(args.id)
    if p.state.last_damaged != m.id:
        raise RulesError(f"{m.id} may Roll with the Blow only right after taking damage (S-19).")
    if m.id in p.state.rounds.failed_parry:
        raise RulesError(f"{m.id} failed a Parry this round and cannot Roll with the Blow (S-19).")
    if not p.state.rounds.can_react(m.id):
        raise RulesError(f"{m.id} has already used its Reaction this round (S-4).")
    limit = roll_with_the_blow_limit(m.sheet.movement)
    inches = distance(m.position, args.to)
    if inches > limit:
        raise RulesError(
            f'Rolling with the Blow moves at most {float(limit):g}", not {inches:.1f}" (S-19).'
        )
    check_directly_back(p.state.models.get(p.state.last_damaged_by or ""), m, args.to)
    p.emit("reaction_spent", "S-19", id=m.id, failed_parry=False, reason="Roll with the Blow")
    p.emit("moved", "S-19", id=m.id, to=list(args.to), moved=round(inches, 3), forced=True)
    penalise_initiative(p, m.id)
    knocked = condition(KNOCKED_DOWN, "Roll with the Blow", until=NEXT_TURN_END)
    p.emit("condition_added", "S-19", id=m.id, condition=condition_json(knocked))


def check_directly_back(attacker: Model | None, m: Model, to: Sequence[float]) -> None:
    """The roll goes directly backward from the direction of the attack (S-19, SA-44).

    The destination must lie on the ray from the attacker through the model, within
    ``STRAIGHT_BACK_TOLERANCE`` inches of it. Without a known attacker model (damage set by the
    Host) or when the two share a position, any direction is the Host's call.
    """
    if attacker is None or attacker.id == m.id:
        return
    back = [a - b for a, b in zip(m.position, attacker.position, strict=True)]
    step = [a - b for a, b in zip(to, m.position, strict=True)]
    length = math.sqrt(sum(c * c for c in back))
    if length == 0 or not any(step):
        return
    along = sum(a * b for a, b in zip(step, back, strict=True)) / length
    off = math.sqrt(max(0.0, sum(c * c for c in step) - along * along))
    if along <= 0 or off > STRAIGHT_BACK_TOLERANCE:
        how = "does not go away from it" if along <= 0 else f'strays {off:.2f}" off that line'
        raise RulesError(
            f"{m.id} may Roll with the Blow only directly backward, away from {attacker.id}; "
            f"this move {how} (S-19)."
        )


def penalise_initiative(p: Pending, who: str) -> None:
    """−10 Initiative on the next round it would have a Turn: this round if still to come (S-19).

    A model whose Turn is still to come this round drops in this round's queue at once (SA-44);
    otherwise the penalty waits for the next round's order.
    """
    rest = list(p.state.order[p.state.turn + 1 :]) if p.state.turn >= 0 else []
    if who not in rest:
        p.emit("initiative_penalty", "S-19", id=who, penalty=ROLL_WITH_THE_BLOW_INITIATIVE)
        return
    rest.remove(who)
    m = p.model(who)
    key = (m.score - ROLL_WITH_THE_BLOW_INITIATIVE, m.sheet.initiative)
    at = next((i for i, name in enumerate(rest) if name in p.state.bottom
               or _score_key(p.state.models.get(name)) < key), len(rest))  # fmt: skip
    rest.insert(at, who)
    order = [*p.state.order[: p.state.turn + 1], *rest]
    # ``penalised``, not ``id``: the order is public even when the model is secret (web W-ids).
    p.emit("order_set", "S-19", order=order, turn=p.state.turn, penalised=who,
           penalty=ROLL_WITH_THE_BLOW_INITIATIVE, round=p.state.round)  # fmt: skip


def _score_key(m: Model | None) -> tuple[int, int]:
    if m is None:
        return (-(10**9), 0)
    return (m.score - m.initiative_penalty, m.sheet.initiative)


def do_hide(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Hide: an Action, which ends the Turn (SA-41); out of Line of Sight is the Host's call.

    Hidden is tracked as a flag; Stealth rules beyond it are the Host's (S-22, S-23).
    """
    args = parse_args(IdArgs, raw, "hide")
    m = p.model(args.id)
    use_element(p, m.id, TurnElement.ACTION)
    p.emit("hidden_set", "SA-41", id=m.id, hidden=True)


def do_condition(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A named condition with a duration and a source (S-23)."""
    args = parse_args(ConditionArgs, raw, "condition")
    m = p.model(args.id)
    item = condition(args.name, args.source, args.rounds, args.until)
    p.emit("condition_added", "S-23", id=m.id, condition=condition_json(item))


def do_end_condition(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Remove a condition (e.g. Disarmed when the weapon is picked up)."""
    args = parse_args(EndConditionArgs, raw, "end_condition")
    m = p.model(args.id)
    if not any(c.name == args.name for c in m.conditions):
        raise RulesError(f"{m.id} has no condition {args.name!r}.")
    p.emit("condition_ended", "S-23", id=m.id, name=args.name)


def do_end_combat(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """End of combat: Vigor back, Fury halves and is lost, the rest carries over (S-22)."""
    args = parse_args(EndCombatArgs, raw, "end_combat")
    for m in list(p.state.models.values()):
        after = end_of_combat(m.sheet.resources, wave=args.wave,
                              battle_within_2_minutes=args.battle_within_2_minutes)  # fmt: skip
        pools = {k.value: v.model_dump(mode="json") for k, v in after.pools.items()}
        p.emit("resources_set", "S-22", id=m.id, resources=pools)
    if not p.state.ended:
        p.emit("fight_ended", "S-22", winner=None)


def do_host_set(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The Host sets HP or a position by hand."""
    args = parse_args(HostArgs, raw, "host_set")
    m = p.model(args.id)
    if args.field == "hp":
        if not isinstance(args.value, int) or not 0 <= args.value <= m.sheet.hp_max:
            raise RulesError(
                f"HP must be a whole number from 0 to {m.sheet.hp_max}, not {args.value!r}."
            )
        p.emit("hp_set", "host", id=m.id, hp=args.value, damage=0, host=True)
    else:
        if not isinstance(args.value, tuple):
            raise RulesError(f"position needs [x, y, z], not {args.value!r}.")
        p.emit("moved", "host", id=m.id, to=list(args.value), moved=0.0, host=True)


HANDLERS: dict[str, Any] = {
    "add": do_add,
    "start": do_start,
    "next": do_next,
    "bottom": do_bottom,
    "move": do_move,
    "attack": do_attack,
    "aoo": do_aoo,
    "cast": do_cast,
    "instant": do_instant,
    "whole_turn": do_whole_turn,
    "roll_with_the_blow": do_roll,
    "hide": do_hide,
    "condition": do_condition,
    "end_condition": do_end_condition,
    "end_combat": do_end_combat,
    "host_set": do_host_set,
}
