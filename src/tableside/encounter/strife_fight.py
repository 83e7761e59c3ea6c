"""Deciding a Realm of Strife fight: which events each command produces (S-3 … S-23).

Commands: add, start (with an optional ambush), next, bottom, move, disengage, attack (an
Action of up to four attacks under the 4-3-2 rule), aoo (an Attack of Opportunity on offer),
impale (a Reaction to a foe's Move into melee range), cast, instant, act (Full, Role-play and
Quick acts), react (Skill, Role-play and other Reactions),
whole_turn (recover, skill, sprint), roll_with_the_blow, hide, condition, end_condition,
end_combat, host_set; forced_move, pick_up and water live in
:mod:`tableside.encounter.strife_forced` (SA-70 … SA-77). Reactions are declared with the
attack they answer and refused when the round's one Reaction is spent.
"""

from __future__ import annotations

import math
import pickle
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import Field

from tableside.dice import Rng, ScriptedRng, SeededRng
from tableside.encounter.decisions import Choice
from tableside.encounter.log import Command, Event
from tableside.encounter.strife_acts import do_act, do_react, take_reactions
from tableside.encounter.strife_climbing import (
    climb_streak,
    consecutive_sprints,
    distance_left,
    move_leg,
    movement_tests,
    rounded,
)
from tableside.encounter.strife_dice import AttackStages, Entered, entered_dice
from tableside.encounter.strife_state import FightState, Model, condition_json, evolve
from tableside.encounter.war.args import ID, Args, Coordinates, parse_args
from tableside.errors import RulesError
from tableside.limits import (
    AOO_OFFERS_MAX,
    DIE_FACE_MAX,
    DIE_FACE_MIN,
    HOST_VALUE_MAX,
    ID_MAX,
    MODIFIER_MAX,
    MODIFIERS_MAX,
    POWER_COST_MAX,
    REACTIONS_MAX,
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
from tableside.strife.attack import (
    AttackResult,
    AttackSetup,
    resolve_impale,
    roll_attack,
    roll_attack_in_stages,
)
from tableside.strife.casting import (
    CastDice,
    CastResult,
    CastSetup,
    CombinedResult,
    CombinedSetup,
    Power,
    SpiritPortion,
    cast_on_roll,
    cast_with_dice,
    combined_damage_setup,
    roll_cast,
    roll_combined,
    spell_power_share,
)
from tableside.strife.catalog import (
    TARGETS_MAX,
    Catalog,
    Combatant,
    Element,
    PowerEntry,
    PowerRoll,
    PowerTargets,
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
from tableside.strife.dice import MAX_DICE
from tableside.strife.hit import D100
from tableside.strife.limits import PlannedAttack, check_4_3_2
from tableside.strife.loadout import effective_ac, loadout
from tableside.strife.movement import (
    Leg,
    MoveMode,
    check_path,
    disengage_action_limit,
    path_cost,
    roll_with_the_blow_limit,
    sprint_plan,
)
from tableside.strife.penalties import PenaltyContext, attack_range, usable_reach
from tableside.strife.records import Part
from tableside.strife.report import attack_dict, cast_dict, combined_dict, stat_test_dict
from tableside.strife.resources import end_of_combat, start_of_combat
from tableside.strife.ruleset import STANDARD, StrifeRuleset
from tableside.strife.size import WeaponSize
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
Face = Annotated[int, Field(ge=DIE_FACE_MIN, le=DIE_FACE_MAX)]  # checked against its die (D-6)
STAGES_MAX = 8 * 6  # ``rolled``: eight attacks of six stages each (D-6)
CONTACT = 1.0  # inches between centres that count as base contact (SA addendum)
NEXT_TURN_END = "the end of its next Turn"
STRAIGHT_BACK_TOLERANCE = 0.05  # inches off the attacker–defender line a roll may stray (SA-44)


class AddArgs(Args):
    """add: a model from the catalogue (by name) or a sheet, on a side, at a position.

    ``hiding`` declares, before the fight starts, that the model is hiding: it keeps its Stealth
    when the fight starts (S-22, SA-16). ``perched`` says whether a model set above the ground
    stands there (true) or flies (false); unsaid, it flies only if its sheet can fly (SA-93).
    """

    id: str = ID
    model: Name | None = None
    sheet: dict[str, Any] | None = None
    side: SideName
    position: Coordinates = (0.0, 0.0, 0.0)
    hiding: bool = False
    perched: bool | None = None


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
    # Climbing and swimming tests (S-6, SA-84 … SA-86, :mod:`strife_climbing`).
    normal_speed: Flag = False
    agility_test: Flag = False
    current: Literal["none", "with", "against"] = "none"
    # Each Attack of Opportunity this move offers ("attacker/weapon"), taken or let go by its
    # owner when the move is made (S-18, D-14); one not named stays on offer as before.
    aoo: dict[Annotated[str, Field(max_length=2 * ID_MAX + 1)], Flag] = Field(
        default_factory=dict, max_length=AOO_OFFERS_MAX
    )


class DisengageArgs(Args):
    """disengage: the Disengage Action, half Movement without Attacks of Opportunity (S-6)."""

    id: str = ID
    to: Coordinates
    difficult: Flag = False


ReactionName = Literal[
    "block",
    "parry",
    "combined_parry",
    "block_and_parry",
    "ward_off",
    "improvised_block",
    "improvised_parry",
]


class AttackItem(Args):
    """One attack of an Action, with the defender's declared reaction (if any).

    An improvised Block or Parry (S-12, SA-65) uses ``reaction_item``: a weapon the defender
    holds (its main hand by default), or for a Block any item of ``reaction_item_size``.
    """

    defender: str = ID
    weapon: Name | None = None
    precision: Flag = False
    modifiers: tuple[Modifier, ...] = Field(default=(), max_length=MODIFIERS_MAX)
    reaction: ReactionName | None = None
    reaction_item: Name | None = None
    reaction_item_size: WeaponSize | None = None
    power: Name | None = None  # a combined power riding the main-hand attack (S-9, SA-66)
    combined_damage: tuple[Element, ...] = Field(default=(), max_length=8)  # S-9, SA-67
    thrown: Flag = False  # the weapon is thrown: a ranged attack at its Thrown range (SA-69)
    shield_blow: Flag = False  # an attack with the equipped shield (S-16, SA-73)
    # The Host's call that a Block of this attack's melee critical crushes a limb (S-10, SA-74).
    crushing_injury: Literal["hand", "arm", "shoulder"] | None = None
    # Situational modifiers by name, e.g. {"high ground": 10, "cover": -20} (SA-75).
    situational: dict[Label, Modifier] = Field(default_factory=dict, max_length=MODIFIERS_MAX)


class AttackArgs(Args):
    """attack: the Action of a model — up to four attacks (S-17) — which ends its Turn (S-5).

    ``physical`` names the models whose dice are rolled at the table and ``rolled`` holds the
    faces they entered, stage by stage (D-6, :mod:`tableside.encounter.strife_dice`).
    """

    attacker: str = ID
    attacks: tuple[AttackItem, ...] = Field(min_length=1, max_length=8)
    physical: tuple[Annotated[str, ID], ...] = Field(default=(), max_length=16)
    rolled: dict[
        Annotated[str, Field(max_length=ID_MAX)],
        Annotated[tuple[Face, ...], Field(max_length=MAX_DICE)] | None,
    ] = Field(default_factory=dict, max_length=STAGES_MAX)
    # The Reactions the attack sets off, taken or not (None), by model (SA-96).
    reactions: dict[Annotated[str, ID], Name | None] = Field(
        default_factory=dict, max_length=REACTIONS_MAX
    )


class CastArgs(Args):
    """cast: a power on one or more targets — an Action, or the Instant for an instant power.

    ``power`` may name a power of the catalogue (SA-60): its element, damage, cost, resource,
    targets, range and timing come from there; the explicit fields stay for a power typed by
    hand (then ``element`` is needed) or for the Host to override the catalogue's.
    """

    caster: str = ID
    targets: tuple[str, ...] = Field(min_length=1, max_length=TARGETS_MAX)
    power: Name
    element: Element | None = None
    damage: str | None = Field(default=None, max_length=20)
    spell_power: int = Field(default=0, ge=0, le=SPELL_POWER_MAX)
    separate_rolls: Flag = False
    instant: Flag = False
    resists: Flag = True
    cost: int | None = Field(default=None, ge=0, le=POWER_COST_MAX)  # spent on a miscast (SA-49)
    resource: Resource | None = None
    # Targets that Block a blockable (Missile-type) power, rolled with the casting roll (SA-68).
    blocks: dict[Annotated[str, ID], Literal["block", "improvised_block"]] = Field(
        default_factory=dict, max_length=TARGETS_MAX
    )
    # The Reactions the cast sets off, taken or not (None), by model (SA-96).
    reactions: dict[Annotated[str, ID], Name | None] = Field(
        default_factory=dict, max_length=REACTIONS_MAX
    )


class AooArgs(Args):
    """aoo: take an Attack of Opportunity on offer (S-18)."""

    attacker: str = ID
    target: str = ID
    weapon: Name


class ImpaleArgs(Args):
    """impale: a Reaction to a foe's Move into melee range, before any other roll (S-13, SA-64).

    ``reaction`` is the mover's own Reaction to the impaling attack (SA-22).
    """

    impaler: str = ID
    target: str = ID
    weapon: Name | None = None
    reaction: ReactionName | None = None


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
    """host_set: the Host's adjustment of HP or position (logged).

    A position above the ground may say ``perched`` (true) or flying (false) (SA-93).
    """

    id: str = ID
    field: Literal["hp", "position"]
    value: Annotated[int, Field(ge=-HOST_VALUE_MAX, le=HOST_VALUE_MAX)] | Coordinates
    perched: bool | None = None


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
        """Validate a command and return its events.

        A command just rehearsed on the same state with the same fresh dice stream
        (:func:`rehearse`: the attack's dry run, issue 21 item 8) is not decided again: its
        events are the rehearsal's (checked equal in ``tests/test_strife_rehearsal.py``).
        """
        found = rehearsed(self, state, command, rng)
        if found is not None:
            return found.events
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

        # A controlled model's choices are its controller's for the duration (SA-95).
        return [forced.to_controller(state, c) for c in strife_choices(self, state, command, rng)]

    def settles_for(self, command: Command) -> frozenset[str]:
        """The choices whose suggestion, taken, opens no other choice of ``command`` (item 8).

        A Reaction taken opens nothing when the attack has no physical dice (no stage to ask)
        and no two of its attacks share a defender (no later Reaction waits on it), so the
        engine need not list the attack's choices a second time.
        """
        attacks = command.args.get("attacks")
        if (
            command.kind != "attack"
            or command.args.get("physical")
            or not isinstance(attacks, list)
        ):
            return frozenset()
        defenders = [a.get("defender") if isinstance(a, dict) else None for a in attacks]
        return frozenset({"reaction"}) if len(set(defenders)) == len(defenders) else frozenset()

    def effects(
        self, state: FightState, command: Command, rng: Rng, choice: Choice
    ) -> list[dict[str, Any] | None]:
        """What each option of an asked question does (read when the question is read)."""
        from tableside.encounter.strife_choices import strife_effects

        return strife_effects(self, state, command, choice)

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


# --- the rehearsal: a dry run whose events the real command reuses (issue 21, item 8) -------


@dataclass(frozen=True)
class Rehearsal:
    """A command decided on a throwaway copy of its fresh dice stream: what it was and gave."""

    game: StrifeFight
    state: FightState
    key: tuple[bytes, int, int | None]
    pending: Pending


_rehearsal = threading.local()  # each thread's last rehearsal (one request at a time)


def stream_key(command: Command, rng: Rng) -> tuple[bytes, int, int | None] | None:
    """What fixes a command's events on a given state, with its dice stream.

    Its kind and arguments (pickled, so ``True``, ``1`` and ``1.0`` differ) and an unused seeded
    stream's seed and number.

    None: dice typed in, or a stream already rolled from (never rehearsed).
    """
    if command.dice is not None or not isinstance(rng, SeededRng):
        return None
    if rng._generator is not None:
        return None
    try:
        args = pickle.dumps((command.kind, command.args), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    return (args, rng.seed, rng._stream)


def rehearse(game: StrifeFight, state: FightState, command: Command, rng: Rng) -> Pending:
    """Decide ``command`` on ``rng`` (a throwaway copy) with full reports, and keep it.

    The real :meth:`StrifeFight.decide` of the same command on the same state and stream takes
    it (raise to refuse).
    """
    key = stream_key(command, rng)
    _rehearsal.last = None
    p = game.pending(state, command, rng, describe=True)
    if key is not None:
        _rehearsal.last = Rehearsal(game, state, key, p)
    return p


def rehearsed(game: StrifeFight, state: FightState, command: Command, rng: Rng) -> Pending | None:
    """The kept rehearsal of exactly this command, state and fresh stream, taken once.

    The state must be the very object rehearsed on. None: decide it.
    """
    kept: Rehearsal | None = getattr(_rehearsal, "last", None)
    if kept is None or kept.game is not game or kept.state is not state:
        return None
    _rehearsal.last = None
    return kept.pending if stream_key(command, rng) == kept.key else None


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
    """A new round: Reactions come back, the queue resets (S-4); conditions tick per Turn."""
    p.emit("round_started", "S-4", round=number, order=order, ambush=ambush)
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
    for power in sheet.powers:
        game.catalog.power(power)
    perch = forced.placed_perched(args.id, sheet, args.position, args.perched)  # SA-93
    entry = initiative_with_natural(args.id, args.side, sheet.initiative, rng.roll(20))
    sheet_json = sheet.model_dump(mode="json")
    p.emit("model_added", "S-3", id=args.id, side=args.side, position=list(args.position),
           sheet=sheet_json, score=entry.score, natural=entry.natural,
           **({} if perch is None else {"perched": perch}))  # fmt: skip
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
    """The Turn ends, and with it conditions lasting until the end of its next Turn (S-19).

    Its round-counted conditions lose a round, except those put on it during this Turn (SA-50).
    """
    p.emit("turn_ended", "S-5", id=who)
    m = p.state.models.get(who)
    if m is not None and (m.fresh or any(c.rounds_left is not None for c in m.conditions)):
        p.emit("conditions_ticked", "SA-50", id=who)
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
    inches = distance(m.position, args.to)
    leg = move_leg(inches, args.mode, args.difficult, normal_speed=args.normal_speed,
                   agility_test=args.agility_test, current=args.current)  # fmt: skip
    resumed = resumes_move(p, m)
    if not resumed:
        use_element(p, m.id, TurnElement.MOVE)
    forced.check_water_move(m, args.mode)  # SA-76
    compelled = forced.compelled_move(p.state, m, args.to)  # SA-71
    spent = Fraction(m.movement_spent).limit_denominator(100)
    cost = check_path(m.sheet.movement, [leg], m.conditions)
    if spent + cost > m.sheet.movement:
        raise RulesError(
            f"This move costs {float(cost):.1f} inches of movement but only "
            f"{float(m.sheet.movement - spent):.1f} of {m.id}'s Movement {m.sheet.movement} "
            "is left this Turn (S-6, SA-51)."
        )
    if m.hidden:
        check_sneak(m, cost + spent)
    reached = movement_tests(p, m, args.to, leg, distance_left(m, m.hidden), rng, inches=inches,
                             agility_test=args.agility_test, current=args.current)  # fmt: skip
    before = contacts(game.catalog, p.state, m.id)
    extra: dict[str, Any] = {"resumed": True} if resumed else {}
    if reached.stopped is not None:
        extra["stopped"] = reached.stopped
    if compelled:
        extra["compelled"] = compelled
    p.emit("moved", "S-6", id=m.id, to=list(reached.to), moved=rounded(reached.inches),
           cost=round(float(reached.cost), 3), **extra)  # fmt: skip
    climb_streak(p, m, args.mode, reached.inches, rng)
    left = {k: v for k, v in before.items() if k not in contacts(game.catalog, p.state, m.id)}
    if compelled is None:  # a move under compulsion is no Disengaging (S-18, SA-71)
        offer_aoos(p, m.id, left)
    answer_aoos(game, p, m.id, args.aoo, rng)


def resumes_move(p: Pending, m: Model) -> bool:
    """Whether this move goes on with the Turn's Move after an Instant made during it (SA-51).

    An Instant may come before, after or during movement (S-5): after Move then Instant, a
    second ``move`` of the same Turn resumes the Move, within what is left of Movement.
    """
    if p.state.current != m.id or TurnElement.ACTION.value in m.elements:
        return False
    done = acted(m)
    return TurnElement.MOVE.value in done and done[-1:] == (TurnElement.INSTANT.value,)


def check_sneak(m: Model, cost: Fraction) -> None:
    """Moving while hidden (sneaking) has half the Movement (SA-42)."""
    half = Fraction(m.sheet.movement, 2)
    if cost > half:
        raise RulesError(
            f'{m.id} is hidden: sneaking halves Movement to {float(half):g}", and this move '
            f'costs {float(cost):g}" (SA-42).'
        )


def offer_aoos(p: Pending, mover: str, left: dict[str, list[str]]) -> None:
    """Every enemy left behind may take free attacks, each weapon once per Turn (S-18).

    A Taunted enemy is offered none on a model other than its taunter (SA-91).
    """
    _, _, offered = disengage(p.state.aoo, p.state.rounds, mover, MoveCause.REGULAR_MOVE, left)
    free = [f for f in offered if forced.taunt_allows(p.state, f.attacker, f.target)]  # SA-91
    if free:
        p.emit("aoo_offered", "S-18", offers=[{"attacker": f.attacker, "weapon": f.weapon,
                                               "target": f.target} for f in free])  # fmt: skip


def aoo_key(attacker: str, weapon: str) -> str:
    """How a move's ``aoo`` names one offer: ``attacker/weapon`` (D-14)."""
    return f"{attacker}/{weapon}"


def answer_aoos(
    game: StrifeFight, p: Pending, mover: str, answers: dict[str, bool], rng: Rng
) -> None:
    """The Attacks of Opportunity this move offered, taken or let go as answered (S-18, D-14)."""
    offered = {aoo_key(o.attacker, o.weapon): o for o in p.state.offers if o.target == mover}
    for key, take in answers.items():
        offer = offered.get(key)
        if offer is None:
            shown = ", ".join(offered) or "none"
            raise RulesError(
                f"This move offers no Attack of Opportunity {key[:80]!r} (offered: {shown})."
            )
        raw = {"attacker": offer.attacker, "target": mover, "weapon": offer.weapon}
        if take:
            do_aoo(game, p, raw, rng)
        else:
            p.emit("aoo_declined", "D-14", **raw)


def do_aoo(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Take an Attack of Opportunity on offer; the first one spends the Reaction (S-4, S-18)."""
    args = parse_args(AooArgs, raw, "aoo")
    forced.check_taunted_targets(p.state, p.model(args.attacker), [args.target], "aoo")  # SA-91
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
    # A model that holds no weapon names one with each attack (SA-45): no default is needed.
    args = args.model_copy(update={"attacks": default_weapons(game, attacker, args.attacks)})
    planned = [PlannedAttack(a.defender, planned_weapon(game, attacker, a)) for a in args.attacks]
    forced.check_shield_blows(game.catalog, attacker, args.attacks)  # SA-73
    forced.check_taunted_targets(p.state, attacker, [a.defender for a in args.attacks])  # SA-71
    check_allowance(
        game,
        attacker,
        [w.weapon for w, a in zip(planned, args.attacks, strict=True) if not a.shield_blow],
    )
    if sum(1 for a in args.attacks if a.power is not None) > 1:
        raise RulesError(
            "Only one attack of an Action carries a power: the main-hand attack (SA-66)."
        )
    check_4_3_2(planned, npc=attacker.sheet.npc)
    entered = physical_dice(args, rng)
    take_reactions(p, attacker.id, [a.defender for a in args.attacks], False, args.reactions,
                   rng)  # SA-96  # fmt: skip
    for index, item in enumerate(args.attacks):
        if p.model(item.defender).down:
            continue
        stages = None if entered is None else (entered, index)
        resolve_attack(game, p, p.model(attacker.id), item, rng, stages=stages)
        if item.thrown:  # the weapon leaves the hand (SA-72)
            forced.throw_away(p, attacker.id, planned[index].weapon, item.defender)
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


def check_allowance(game: StrifeFight, attacker: Model, weapons: Sequence[str]) -> None:
    """An Action's attacks: one with each weapon held (main hand, off hand), each once (SA-46).

    A model with no weapon equipped makes one attack. ``extra_attacks`` on the sheet (skills,
    abilities, enchants) adds attacks, with any weapon held; 4-3-2 stays the ceiling for a
    player character (S-17).
    """
    held = [w.name for w in loadout(game.catalog, attacker.sheet).weapons]
    extra = attacker.sheet.extra_attacks
    allowed = max(1, len(held)) + extra
    if len(weapons) > allowed:
        listed = " and ".join(held) or "no weapon equipped"
        raise RulesError(
            f"{attacker.id} may make {allowed} attack(s) in one Action (one with each weapon "
            f"held: {listed}; {extra} extra), not {len(weapons)} (SA-46)."
        )
    if extra == 0:
        names = [game.catalog.weapon(w).name for w in weapons]
        twice = next((w for w in names if names.count(w) > max(1, held.count(w))), None)
        if twice is not None:
            raise RulesError(
                f"{attacker.id} attacks with its {twice} once per Action; a second attack "
                "needs a second weapon or an ability that grants one (SA-46)."
            )


def default_weapons(
    game: StrifeFight, m: Model, items: Sequence[AttackItem]
) -> tuple[AttackItem, ...]:
    """Each attack that names no weapon takes the next weapon held (SA-92).

    "If an off hand weapon is equipped, a regular attack may also be made with the off-hand
    weapon": the weapons held are taken in order (main hand, off hand), skipping those the
    Action's other attacks name; once all are taken (attacks granted beyond them, SA-46), the
    main hand again. A Shield Blow strikes with the shield (SA-73); a model holding no weapon
    names one with each attack (SA-45).
    """
    held = [w.name for w in loadout(game.catalog, m.sheet).weapons]
    if not held:
        return tuple(items)
    taken = [game.catalog.weapon(i.weapon).name for i in items
             if i.weapon is not None and not i.shield_blow]  # fmt: skip
    out = []
    for item in items:
        if item.weapon is None and not item.shield_blow:
            free = [w for w in dict.fromkeys(held) if taken.count(w) < held.count(w)]
            chosen = free[0] if free else held[0]
            taken.append(chosen)
            item = item.model_copy(update={"weapon": chosen})
        out.append(item)
    return tuple(out)


def planned_weapon(game: StrifeFight, m: Model, item: AttackItem) -> str:
    """The weapon an attack item names: the shield for a Shield Blow (SA-73), else its own."""
    if item.shield_blow:
        return forced.shield_blow_weapon(game.catalog, m.sheet).name
    return game.catalog.weapon(item.weapon or _default_weapon(game, m)).name


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
    if item.power is not None:
        if stages is not None:
            raise RulesError(
                "A combined attack's dice come from the stream or typed at once (dice), not "
                "stage by stage (physical)."
            )
        resolve_combined(game, p, (attacker, defender), item.power, setup, rng)
        return
    if stages is None:
        result = roll_attack(setup, rng)
    else:
        entered, index = stages
        source = AttackStages(entered, rng, index, setup, attacker.id, defender.id, item.precision)
        result = roll_attack_in_stages(setup, source)
    p.emit("attack_resolved", "S-7", attacker=attacker.id, defender=defender.id,
           result=attack_dict(result) if p.describe else None)  # fmt: skip
    apply_attack(p, attacker.id, defender.id, result)
    forced.crushing_injury(p, attacker.id, defender.id, item.crushing_injury, result)  # SA-74


def combined_power(
    game: StrifeFight, pair: tuple[Model, Model], name: str, setup: AttackSetup
) -> CastPlan:
    """The catalogue's combined power an attack carries, checked against the attack (SA-66).

    It rides the main-hand attack only (the Combat page: skill-based attacks apply to the main
    hand), a touch power only a melee attack, a ranged one a ranged attack within its range.
    """
    attacker, defender = pair
    entry = game.catalog.power(name)
    if entry.roll != PowerRoll.COMBINED:
        raise RulesError(
            f"{entry.name} makes a casting roll of its own: cast it; only a combined power rides "
            "an attack (S-9, SA-66)."
        )
    held = loadout(game.catalog, attacker.sheet).weapons
    if held and setup.weapon.name != held[0].name:
        raise RulesError(
            f"{entry.name} rides the main-hand attack ({held[0].name}), not the "
            f"{setup.weapon.name} (SA-66)."
        )
    if entry.touch == setup.ranged:
        kind = "a melee" if entry.touch else "a ranged"
        raise RulesError(
            f"{entry.name} rides {kind} attack, not one with {setup.weapon.name} (SA-66)."
        )
    gap = distance(attacker.position, defender.position)
    if not entry.touch and gap > float(entry.range):
        raise RulesError(
            f'{defender.id} is {gap:.1f}" away, beyond the range of {entry.name} '
            f'({float(entry.range):g}") (SA-66).'
        )
    power = Power(entry.name, entry.element, entry.damage, entry.blockable, entry.dodge_allowed)
    return CastPlan(power, entry, False, False, entry.resistible, entry.cost, entry.resource)


def resolve_combined(
    game: StrifeFight,
    p: Pending,
    pair: tuple[Model, Model],
    name: str,
    setup: AttackSetup,
    rng: Rng,
) -> None:
    """A physical attack with a spirit portion on the same hit roll (S-9, SA-18, SA-66).

    The power's cost is spent first (even if the attack misses); both portions' damage comes
    off the defender's HP; the weapon's conditions apply as for any attack.
    """
    attacker, defender = pair
    plan = combined_power(game, pair, name, setup)
    spend_cost(p, p.model(attacker.id), plan)
    combined = CombinedSetup(setup, SpiritPortion(plan.power), resists=plan.resists)
    result = roll_combined(combined, rng)
    p.emit("combined_resolved", "S-9", attacker=attacker.id, defender=defender.id,
           result=combined_dict(result) if p.describe else None)  # fmt: skip
    apply_combined(p, attacker.id, defender.id, result)


def apply_combined(p: Pending, attacker: str, defender: str, result: CombinedResult) -> None:
    """Spend the defender's reaction, deal both portions' damage, put conditions on (S-9)."""
    reaction = result.setup.attack.reaction
    if reaction is not None:
        failed = (
            result.reaction is not None
            and result.reaction.verdict.value == "failure"
            and reaction.family == react.Family.PARRY
        )
        p.emit("reaction_spent", "S-4", id=defender, failed_parry=failed, reason="reaction")
    dealt = sum(d.total for d in (result.physical_damage, result.spirit_damage) if d is not None)
    if dealt:
        hp = max(0, p.model(defender).sheet.hp - dealt)
        p.emit("hp_set", "S-14", id=defender, hp=hp, damage=dealt, source=attacker)
    for inflicted in result.inflicted:
        who = attacker if inflicted.target == "attacker" else defender
        p.emit("condition_added", "S-23", id=who, condition=condition_json(inflicted.condition))


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
    if item.shield_blow:  # the shield is held: it strikes (S-16, SA-73)
        weapon = forced.shield_blow_weapon(game.catalog, attacker.sheet)
    else:
        weapon = game.catalog.weapon(item.weapon or _default_weapon(game, attacker))
        check_held(game, attacker, weapon)
    context = penalty_context(game, attacker, weapon, item.thrown)
    context = replace(context, underwater=defender.submerged)  # S-16, SA-76
    check_ranged_contact(attacker, defender, weapon, context.thrown)
    if not free_attack:
        check_reach(attacker, defender, weapon, context)
    reaction = declare_reaction(game, p, defender, item.reaction, item)
    setup = AttackSetup(attacker.sheet, defender.sheet, weapon, precision=item.precision,
                        hit_modifiers=(*(Part("modifier", m) for m in item.modifiers),
                                       *forced.situational_parts(item.situational)),
                        defender_ac=effective_ac(game.catalog, defender.sheet).value,
                        reaction=reaction, ruleset=game.ruleset, context=context)  # fmt: skip
    if item.combined_damage:
        if item.power is not None:
            raise RulesError(
                "An attack is either a combined attack with a power (its portions apart) or "
                "Combined Damage without portions, not both (S-9)."
            )
        return combined_damage_setup(setup, item.combined_damage)  # lowest AC/Resistance (S-9)
    return setup


def penalty_context(
    game: StrifeFight, attacker: Model, weapon: Weapon, thrown: bool = False
) -> PenaltyContext:
    """The S-16 circumstances of an attack from the fight's state (SA-47, SA-69).

    Moving and shooting counts the whole inches the attacker moved this Turn; a shooter above
    the ground (z > 0) is flying unless it climbed there (SA-90); holding a weapon in each hand
    is dual wielding, whichever hand attacks; ``thrown`` throws the weapon. Whether the
    defender is under water is set by the caller (SA-76).
    """
    held = loadout(game.catalog, attacker.sheet).weapons
    other = None
    if len(held) == 2:  # the attacking hand is the first holding this weapon
        other = held[1] if held[0].name == weapon.name else held[0]
    return PenaltyContext(
        inches_moved=int(attacker.moved),
        flying=forced.flying(attacker),  # SA-77, SA-90
        other_hand=other,
        thrown=thrown,
    )


def check_ranged_contact(
    attacker: Model, defender: Model, weapon: Weapon, thrown: bool = False
) -> None:
    """No ranged or thrown attack on a target in base contact, unless otherwise stated (SA-48)."""
    if (weapon.ranged or thrown) and distance(attacker.position, defender.position) <= CONTACT:
        act = (
            f"throw {weapon.name} at {defender.id}"
            if thrown
            else f"shoot {defender.id} with {weapon.name}"
        )
        raise RulesError(
            f"{attacker.id} cannot {act}: ranged attacks cannot be used against a target in "
            "base contact (SA-48)."
        )


def check_held(game: StrifeFight, attacker: Model, weapon: Weapon) -> None:
    """An armed model attacks only with a weapon it holds (SA-45).

    A model with no weapon equipped may name a catalogue weapon (its natural weapons, or an
    improvised one), as before.
    """
    held = loadout(game.catalog, attacker.sheet).weapons
    if held and weapon.name not in {w.name for w in held}:
        names = " and ".join(w.name for w in held)
        raise RulesError(f"{attacker.id} does not hold a {weapon.name}: it holds {names} (SA-45).")


def check_reach(
    attacker: Model, defender: Model, weapon: Weapon, context: PenaltyContext | None = None
) -> None:
    """Melee needs base contact (plus the weapon's Reach); ranged, the weapon's range (SA-37).

    Untrained, a weapon has no Reach: base contact only (S-24). Thrown, its range is the
    Thrown range (halved untrained), or STR / 2 for an item not made to be thrown (S-16, SA-69).
    """
    gap = distance(attacker.position, defender.position)
    context = context or PenaltyContext()
    if weapon.ranged or context.thrown:
        gap = forced.water_gap(attacker, defender, gap)  # through water, 2 an inch (SA-76)
        limit = attack_range(attacker.sheet, weapon, context) or Fraction(0)
        what = f"{weapon.name} thrown" if context.thrown else weapon.name
        if gap > limit:
            raise RulesError(
                f'{defender.id} is {gap:.1f}" away, beyond the range of {what} ({float(limit):g}").'
            )
    elif gap > CONTACT + (reach := usable_reach(attacker.sheet, weapon)):
        untrained = "" if reach == weapon.reach else ", untrained: S-24"
        raise RulesError(
            f"{attacker.id} must be in base contact with {defender.id} to attack with "
            f'{weapon.name} (Reach {reach}{untrained}); the distance is {gap:.1f}".'
        )


def declare_reaction(
    game: StrifeFight,
    p: Pending,
    defender: Model,
    kind: str | None,
    item: AttackItem | None = None,
) -> react.Reaction | None:
    """A declared reaction, refused when the round's Reaction is spent (S-4, S-10 … S-13)."""
    if (
        item is not None
        and kind not in ("improvised_block", "improvised_parry")
        and (item.reaction_item is not None or item.reaction_item_size is not None)
    ):
        raise RulesError(
            "reaction_item and reaction_item_size are for an improvised Block or Parry (S-12), "
            f"not {'no reaction' if kind is None else kind.replace('_', ' ')}."
        )
    if kind is None:
        return None
    if not p.state.rounds.can_react(defender.id):
        raise RulesError(f"{defender.id} has already used its Reaction this round (S-4).")
    gear = loadout(game.catalog, defender.sheet)
    main = gear.main_hand
    if kind in ("improvised_block", "improvised_parry"):
        return improvised(game, defender, kind, item)
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


def improvised(
    game: StrifeFight, defender: Model, kind: str, item: AttackItem | None
) -> react.Reaction:
    """An improvised Block or Parry (S-12, SA-28, SA-65).

    A Parry uses a weapon held (the main hand's unless ``reaction_item`` names the other); a
    Block uses a weapon held, or any item given with its size (a serving tray, a broken door).
    """
    held = loadout(game.catalog, defender.sheet).weapons
    named = None if item is None else item.reaction_item
    size = None if item is None else item.reaction_item_size
    weapon = next((w for w in held if named is None or w.name.lower() == named.lower()), None)
    if kind == "improvised_block" and named is not None and size is not None:
        if weapon is not None and weapon.size != size:
            raise RulesError(
                f"{defender.id}'s {weapon.name} is size {weapon.size.value}, not {size.value}."
            )
        return react.improvised_block(named, size)
    if weapon is None:
        what = f"a {named}" if named else "a weapon"
        hint = " (or name an item and its size)" if kind == "improvised_block" else ""
        raise RulesError(
            f"{defender.id} holds no {what.removeprefix('a ')} to use for "
            f"{react.ReactionKind(kind).phrase}{hint} (S-12)."
        )
    if kind == "improvised_block":
        return react.improvised_block(weapon.name, weapon.size)
    return react.improvised_parry(weapon)


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


@dataclass(frozen=True, slots=True)
class CastPlan:
    """What a cast does, from the catalogue's power and the command's own fields (SA-60).

    ``entry`` is the catalogue's power (None for a power typed by hand).
    """

    power: Power
    entry: PowerEntry | None
    separate_rolls: bool
    instant: bool
    resists: bool
    cost: int
    resource: Resource | None


def cast_plan(catalog: Catalog, args: CastArgs) -> CastPlan:
    """The power cast: the catalogue's, with the command's explicit fields over it (SA-60)."""
    entry = catalog.find_power(args.power)
    if entry is None:
        if args.element is None:
            known = ", ".join(e.name for e in catalog.powers.values()) or "none"
            raise RulesError(
                f"{args.power!r} is not a power of the catalogue (known: {known}); a power "
                "typed by hand needs its element (SA-60)."
            )
        power = Power(args.power, args.element, args.damage)
        return CastPlan(power, None, args.separate_rolls, args.instant, args.resists,
                        args.cost or 0, args.resource)  # fmt: skip
    if entry.roll == PowerRoll.COMBINED:
        raise RulesError(
            f"{entry.name} is the spirit portion of a weapon attack (S-9): make it with attack "
            "and its power, not with cast (SA-60)."
        )
    power = Power(entry.name, args.element or entry.element,
                  args.damage if args.damage is not None else entry.damage,
                  entry.blockable, entry.dodge_allowed)  # fmt: skip
    separate = args.separate_rolls or entry.targets == PowerTargets.SEPARATE_ROLLS
    cost = entry.cost if args.cost is None else args.cost
    resource = args.resource or entry.resource
    instant = args.instant or entry.timing == "instant"
    return CastPlan(power, entry, separate, instant, args.resists and entry.resistible, cost,
                    resource)  # fmt: skip


def offensive(plan: CastPlan) -> bool:
    """An offensive power: the catalogue's flag; typed by hand, one dealing damage (SA-91)."""
    if plan.entry is not None:
        return plan.entry.offensive
    return plan.power.damage is not None


def check_power_targets(p: Pending, caster: Model, plan: CastPlan, targets: Sequence[str]) -> None:
    """A catalogue power's targets: how many, and each within its range (SA-60, SA-61).

    A touch power needs base contact (1"); a ranged one its range in inches, and an offensive
    ranged power cannot target a model in base contact (the Combat page: "unless otherwise
    stated"; SA-61).
    """
    entry = plan.entry
    if entry is None:
        return
    most = entry.max_targets or (1 if entry.targets == PowerTargets.ONE else TARGETS_MAX)
    if len(targets) > most:
        raise RulesError(
            f"{entry.name} reaches at most {most} target(s), not {len(targets)} (SA-60)."
        )
    for name in targets:
        target = p.model(name)
        gap = distance(caster.position, target.position)
        if entry.touch:
            if gap > CONTACT and target.id != caster.id:
                raise RulesError(
                    f"{entry.name} is a touch power: {caster.id} must be in base contact with "
                    f'{target.id}, {gap:.1f}" away (SA-60).'
                )
            continue
        far = gap  # a projectile (Missile-type) power counts inches through water twice (SA-76)
        if entry.blockable or entry.dodge_allowed:
            far = forced.water_gap(caster, target, gap)
        if far > float(entry.range):
            raise RulesError(
                f'{target.id} is {far:.1f}" away, beyond the range of {entry.name} '
                f'({float(entry.range):g}") (SA-60).'
            )
        if entry.offensive and target.id != caster.id and gap <= CONTACT:
            raise RulesError(
                f"{caster.id} cannot cast {entry.name} on {target.id}: offensive ranged powers "
                "cannot be used against a target in base contact (SA-61)."
            )


def do_cast(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Cast a power (S-8); spell power is shared among the targets hit (S-15)."""
    args = parse_args(CastArgs, raw, "cast")
    caster = p.model(args.caster)
    plan = cast_plan(game.catalog, args)
    use_element(p, caster.id, TurnElement.INSTANT if plan.instant else TurnElement.ACTION)
    check_power_targets(p, caster, plan, args.targets)
    if offensive(plan):  # a Taunted caster's offensive power aims only at its taunter (SA-91)
        forced.check_taunted_targets(p.state, caster, args.targets, "power")
    take_reactions(p, caster.id, args.targets, True, args.reactions, rng)  # SA-96
    spend_cost(p, caster, plan)
    rolls = cast_rolls(game, p, caster, args, plan, rng)
    hit = sum(1 for r in rolls if r.damage is not None)
    share = spell_power_share(args.spell_power, hit, plan.separate_rolls) if hit else 0
    results = []
    for name, first in zip(args.targets, rolls, strict=True):
        result = first
        if first.damage is not None and share:
            result = cast_with_share(first, share)
        results.append(result)
        p.emit("cast_resolved", "S-8", caster=caster.id, target=name,
               result=cast_dict(result) if p.describe else None,
               spell_power=share)  # fmt: skip
        if result.damage is not None and result.damage.total:
            hp = max(0, p.model(name).sheet.hp - result.damage.total)
            p.emit("hp_set", "S-8", id=name, hp=hp, damage=result.damage.total, source=caster.id)
    if plan.entry is not None and plan.entry.effects:
        power_effects(p, caster, plan.entry, list(zip(args.targets, results, strict=True)), rng)


def power_effects(
    p: Pending,
    caster: Model,
    entry: PowerEntry,
    results: Sequence[tuple[str, CastResult]],
    rng: Rng,
) -> None:
    """A power's effects on each target it hit and no Block stopped (S-8 steps 2 and 3, SA-62).

    Guaranteed effects are put on at once; a % effect rolls a d100 (≤ its chance applies it),
    target by target after every target's damage, in the listed order.
    """
    source = f"{caster.id}'s {entry.name}"
    for name, result in results:
        stopped = result.reaction is not None and result.reaction.effect.stopped
        if not result.outcome.succeeds or stopped or p.model(name).down:
            continue
        for effect in entry.effects:
            if effect.chance is not None:
                natural = rng.roll(D100)
                applied = natural <= effect.chance
                p.emit("effect_rolled", "SA-62", id=name, name=effect.name,
                       chance=effect.chance, roll=natural, applied=applied)  # fmt: skip
                if not applied:
                    continue
            item = condition(effect.name, source, effect.rounds, effect.until)
            p.emit("condition_added", "SA-62", id=name, condition=condition_json(item))


def cast_rolls(
    game: StrifeFight, p: Pending, caster: Model, args: CastArgs, plan: CastPlan, rng: Rng
) -> list[CastResult]:
    """Each target's cast: one casting roll for all unless separate rolls (SA-49).

    A one-roll power over several targets is one casting roll, so a miscast (or a critical)
    is the cast's, met by every target; each target still resists, Blocks and takes damage on
    its own dice.
    """
    reactions = cast_blocks(game, p, plan, args)

    def setup(target: str) -> CastSetup:
        return CastSetup(caster.sheet, p.model(target).sheet, plan.power, resists=plan.resists,
                         reaction=reactions.get(target), ruleset=game.ruleset,
                         caster_submerged=caster.submerged,  # S-16, SA-76
                         target_submerged=p.model(target).submerged)  # fmt: skip

    if plan.separate_rolls:
        return [roll_cast(setup(t), rng) for t in args.targets]
    first = roll_cast(setup(args.targets[0]), rng)
    return [first, *(cast_on_roll(setup(t), first.natural, rng) for t in args.targets[1:])]


def cast_blocks(
    game: StrifeFight, p: Pending, plan: CastPlan, args: CastArgs
) -> dict[str, react.Reaction]:
    """Each Blocking target's Block of a blockable power (S-8 step 1b, S-10, SA-23, SA-68).

    Only a blockable (Missile-type) power can be Blocked, only by one of its targets, each with
    its round's Reaction (spent here); an improvised Block uses a weapon the target holds.
    """
    found: dict[str, react.Reaction] = {}
    for name, kind in args.blocks.items():
        if name not in args.targets:
            raise RulesError(f"{name} is not a target of this {plan.power.name}.")
        if not plan.power.blockable:
            raise RulesError(
                f"{plan.power.name} cannot be Blocked: only a blockable (Missile-type) power "
                "can (S-8, S-10)."
            )
        target = p.model(name)
        reaction = declare_reaction(game, p, target, kind)
        if reaction is not None:
            found[name] = reaction
            p.emit("reaction_spent", "S-4", id=name, failed_parry=False, reason="reaction")
    return found


def spend_cost(p: Pending, caster: Model, plan: CastPlan) -> None:
    """Spend the power's cost from the caster's resource, miscast or not (SA-49)."""
    if not plan.cost:
        return
    if plan.resource is None:
        raise RulesError(f"A cost of {plan.cost} needs the resource it is paid from.")
    pools = caster.sheet.resources
    pool = pools.get(plan.resource)
    have = 0 if pool is None else pool.current
    if pool is None or have < plan.cost:
        raise RulesError(
            f"{caster.id} has {have} {plan.resource.value}, not the {plan.cost} "
            f"{plan.power.name} costs (SA-49)."
        )
    after = {**pools, plan.resource: pool.model_copy(update={"current": have - plan.cost})}
    spent = {k.value: v.model_dump(mode="json") for k, v in after.items()}
    p.emit("resources_set", "SA-49", id=caster.id, resources=spent, spent=plan.cost)


def cast_with_share(first: CastResult, share: int) -> CastResult:
    """The same casting roll and dice with the target's spell-power share added (S-15)."""
    rolls = () if first.damage is None else first.damage.rolls
    reaction = None if first.reaction is None else first.reaction.test.natural
    dice = CastDice(first.natural, reaction, rolls)
    return cast_with_dice(replace(first.setup, spell_power=share), dice)


def do_impale(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """Impale: the foe just moved into melee range; an Initiative test, then an attack (S-13).

    Declared after the foe's Move and before any other roll of its Turn (SA-64): a Reaction of
    the impaler's; on a passed Initiative test a regular main-hand attack with the impaling
    weapon, +1 damage per whole straight-line inch of that Move (SA-22). The foe then goes on.
    """
    args = parse_args(ImpaleArgs, raw, "impale")
    impaler, target = p.model(args.impaler), p.model(args.target)
    weapon = game.catalog.weapon(args.weapon or _default_weapon(game, impaler))
    inches = impale_window(p, impaler, target, weapon)
    if not p.state.rounds.can_react(impaler.id):
        raise RulesError(f"{impaler.id} has already used its Reaction this round (S-4).")
    react.impale(impaler.sheet, weapon)  # an Impale weapon its wielder is trained with
    item = AttackItem(defender=target.id, weapon=weapon.name, reaction=args.reaction)
    setup = attack_setup(game, p, impaler, item)
    setup = replace(setup, context=replace(setup.context, inches_moved=0, flying=False))
    p.emit("reaction_spent", "S-13", id=impaler.id, failed_parry=False, reason="Impale")
    result = resolve_impale(setup, inches, rng)
    p.emit("test_resolved", "S-13", id=impaler.id, purpose=f'Impale Initiative test ({inches}")',
           result=stat_test_dict(result.test) if p.describe else None)  # fmt: skip
    if result.attack is None:
        return
    p.emit("attack_resolved", "S-13", attacker=impaler.id, defender=target.id,
           result=attack_dict(result.attack) if p.describe else None, impale=inches)  # fmt: skip
    apply_attack(p, impaler.id, target.id, result.attack)


def impale_window(p: Pending, impaler: Model, target: Model, weapon: Weapon) -> int:
    """The whole straight-line inches of the Move an Impale answers (S-13, SA-22, SA-64).

    Refused unless ``target`` is the model whose Turn it is, its last Turn element was a Move
    with nothing after it, and that Move brought it from beyond the impaling weapon's melee
    range (base contact plus Reach) into it.
    """
    last = p.state.last_move
    if last is None or last[0] != target.id or p.state.current != target.id:
        raise RulesError(
            f"An Impale answers a Move just made, before any other roll: {target.id} has not "
            "just moved (S-13)."
        )
    if impaler.side == target.side:
        raise RulesError(f"{impaler.id} cannot Impale {target.id}, a model of its own side.")
    reach = CONTACT + usable_reach(impaler.sheet, weapon)
    before = distance(last[1], impaler.position)
    after = distance(target.position, impaler.position)
    if after > reach or before <= reach:
        where = "did not come into" if after > reach else "was already within"
        raise RulesError(
            f"{target.id} {where} the melee range of {impaler.id}'s {weapon.name} ({reach:g}\") "
            "with this Move, so it cannot be impaled (S-13)."
        )
    return int(last[2])


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
    run = sprint_plan(m.sheet.movement, consecutive_sprints(p.state, m))
    forced.check_sprint_ground(m, to)  # SA-77
    compelled = forced.compelled_move(p.state, m, to)  # SA-71
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
    p.emit("moved", "S-5", id=m.id, to=list(to), moved=round(inches, 3),
           **({"compelled": compelled} if compelled else {}))  # fmt: skip
    hustle = {"hustle": True} if m.hidden else {}  # a Sprint while hidden (SA-42)
    p.emit("sprinted", "S-5", id=m.id, sprints=consecutive_sprints(p.state, m), **hustle)
    if compelled is None:  # S-18, SA-71
        offer_aoos(p, m.id, {k: v for k, v in before.items()
                             if k not in contacts(game.catalog, p.state, m.id)})  # fmt: skip


def do_disengage(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The Disengage Action: at most half Movement, before any move, provoking nothing (S-6).

    Being an Action, it ends the Turn (S-5); leaving base contact this way offers no Attack of
    Opportunity (S-18, SA-52).
    """
    args = parse_args(DisengageArgs, raw, "disengage")
    m = p.model(args.id)
    limit = disengage_action_limit(m.sheet.movement, TurnElement.MOVE.value in acted(m))
    use_element(p, m.id, TurnElement.ACTION)
    inches = distance(m.position, args.to)
    leg = Leg(Fraction(inches).limit_denominator(100), MoveMode.WALK, args.difficult)
    cost = path_cost([leg], m.conditions)
    if cost > limit:
        raise RulesError(
            f"A Disengage Action moves at most half of {m.id}'s Movement ({float(limit):g}\"); "
            f'this one costs {float(cost):.1f}" (S-6).'
        )
    p.emit("moved", "S-6", id=m.id, to=list(args.to), moved=round(inches, 3),
           cost=round(float(cost), 3), disengage=True)  # fmt: skip


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
    if p.state.round < 0:  # before the fight: the declaration that keeps Stealth (S-22, SA-88)
        if m.hidden:
            raise RulesError(f"{m.id} has already declared that it is hiding.")
        p.emit("hidden_set", "SA-88", id=m.id, hidden=True, declared=True)
        return
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


def do_remove(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """A model leaves the fight before it starts (W-26); once begun, the Turn Order holds it."""
    args = parse_args(IdArgs, raw, "remove")
    m = p.model(args.id)
    if p.state.round >= 0:
        raise RulesError(
            f"The fight has started, so {m.id} cannot be removed: it holds a place in the Turn "
            "Order; set its HP to 0 instead, or undo back to before the start."
        )
    p.emit("model_removed", "W-26", id=m.id)


def do_end_combat(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """End of combat: Vigor back, Fury halves and is lost, the rest carries over (S-22)."""
    args = parse_args(EndCombatArgs, raw, "end_combat")
    for m in list(p.state.models.values()):
        after = end_of_combat(m.sheet.resources, wave=args.wave,
                              battle_within_2_minutes=args.battle_within_2_minutes)  # fmt: skip
        pools = {k.value: v.model_dump(mode="json") for k, v in after.pools.items()}
        fury = (
            {}
            if after.fury_decayed is None
            else {  # the Host's Fury choice (SA-89)
                "fury_decayed": after.fury_decayed,
                "battle_within_2_minutes": args.battle_within_2_minutes,
            }
        )
        p.emit("resources_set", "S-22", id=m.id, resources=pools, **fury)
    if not p.state.ended:
        p.emit("fight_ended", "S-22", winner=None)


def do_host_set(game: StrifeFight, p: Pending, raw: dict[str, Any], rng: Rng) -> None:
    """The Host sets HP or a position by hand."""
    args = parse_args(HostArgs, raw, "host_set")
    m = p.model(args.id)
    if args.field == "hp":
        if args.perched is not None:
            raise RulesError("perched goes with a position above the ground, not with hp (SA-93).")
        if not isinstance(args.value, int) or not 0 <= args.value <= m.sheet.hp_max:
            raise RulesError(
                f"HP must be a whole number from 0 to {m.sheet.hp_max}, not {args.value!r}."
            )
        p.emit("hp_set", "host", id=m.id, hp=args.value, damage=0, host=True)
    else:
        if not isinstance(args.value, tuple):
            raise RulesError(f"position needs [x, y, z], not {args.value!r}.")
        perch = forced.host_placed_perched(m, args.value, args.perched)  # SA-93
        p.emit("moved", "host", id=m.id, to=list(args.value), moved=0.0, host=True,
               **({} if perch is None else {"perched": perch}))  # fmt: skip


HANDLERS: dict[str, Any] = {
    "add": do_add,
    "remove": do_remove,
    "start": do_start,
    "next": do_next,
    "bottom": do_bottom,
    "move": do_move,
    "disengage": do_disengage,
    "attack": do_attack,
    "aoo": do_aoo,
    "cast": do_cast,
    "impale": do_impale,
    "instant": do_instant,
    "whole_turn": do_whole_turn,
    "roll_with_the_blow": do_roll,
    "hide": do_hide,
    "condition": do_condition,
    "end_condition": do_end_condition,
    "end_combat": do_end_combat,
    "host_set": do_host_set,
    "act": do_act,
    "react": do_react,
}

from tableside.encounter import strife_forced as forced  # noqa: E402  (it uses this module)

HANDLERS.update(forced.FORCED_HANDLERS)
