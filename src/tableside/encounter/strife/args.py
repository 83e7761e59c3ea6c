"""The arguments of a Realm of Strife fight's commands and the distances its handlers share.

Each command's arguments are a pydantic model read by ``war.args.parse_args``; the web's
strict check (``web/strict.py``) reads the same models.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from tableside.encounter.war.args import ID, Args, Coordinates
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
from tableside.strife.catalog import TARGETS_MAX, Element, Resource
from tableside.strife.dice import MAX_DICE
from tableside.strife.movement import MoveMode
from tableside.strife.size import WeaponSize

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
    # Climbing and swimming tests (S-6, SA-84 … SA-86, :mod:`~tableside.encounter.strife.climbing`).
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
    faces they entered, stage by stage (D-6, :mod:`tableside.encounter.strife.dice`).
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
