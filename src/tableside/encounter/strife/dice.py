"""Physical dice entered stage by stage by the one who rolls them (D-6).

An ``attack`` may name its physical rollers (``physical: [ids]``) and carry the faces they
entered so far (``rolled: {"<attack index>.<stage>": [faces] | null}``). Each stage of each
attack comes from its roller's entry when the roller is physical, and from the command's seeded
stream otherwise (``null``: the server rolls that stage from the stream after all). Without
``physical`` nothing changes: every die comes from the stream in the order of ``attack.py``.

The stages of attack ``i``, in the order they are drawn, and who rolls them:
``i.ward_off_attacker`` (the attacker's d20) and ``i.ward_off_defender`` (the defender's d20)
of a Ward-off roll-off, ``i.hit`` (the attacker's d100, two for a Precision Attack),
``i.reaction`` (the defender's Block/Parry d20), ``i.damage`` (the attacker's damage dice) and
``i.effects`` (the attacker's d100 per % effect). A stage is only rolled when the attack gets
there (no damage dice after a miss). A physical stage without faces stops the decision with
:class:`DiceNeededError`, which names the stage to ask next. People typing dice are asked in
table order (issue 21): a physical attacker's ``i.hit`` comes before the Ward-off contest's
d20s, though the seeded stream draws the roll-off first (so seeded outcomes are unchanged).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tableside.dice import Rng
from tableside.errors import RulesError
from tableside.strife.attack import AttackSetup, check_attack, usable_effects
from tableside.strife.hit import D100

PHYSICAL_ARGS = ("physical", "rolled")
"""The arguments of an attack that carry physical dice stage by stage."""


D20 = 20


STAGE_ROLLER = {
    "ward_off_attacker": "attacker",
    "ward_off_defender": "defender",
    "hit": "attacker",
    "reaction": "defender",
    "damage": "attacker",
    "effects": "attacker",
}
"""Who rolls each stage of an attack."""


STAGE_WORDS = {
    "ward_off_attacker": "the Ward-off roll-off (attacker)",
    "ward_off_defender": "the Ward-off roll-off (defender)",
    "hit": "the hit roll",
    "reaction": "the Block/Parry test",
    "damage": "the damage",
    "effects": "the % effects",
}


@dataclass(frozen=True, slots=True)
class StageDice:
    """One stage's dice: its key in ``rolled``, its roller, how many dice of how many sides."""

    key: str
    roller: str
    count: int
    sides: int
    what: str


def upper_first(text: str) -> str:
    """``text`` with its first letter capitalised (the rest kept: ``Block/Parry``)."""
    return text[:1].upper() + text[1:]


class DiceNeededError(RulesError):
    """A physical roller's stage has no faces yet: the decision waits for them.

    ``used``: the stages entered so far that the decision played back before it stopped.
    """

    def __init__(self, stage: StageDice, used: frozenset[str]) -> None:
        super().__init__(
            f"{upper_first(stage.what)} needs {stage.roller}'s physical dice: {stage.count}d"
            f"{stage.sides} in rolled[{stage.key!r}] (or null for the server to roll them)."
        )
        self.stage = stage
        self.used = used


@dataclass(slots=True)
class Entered:
    """The physical dice of one command: who rolls physically, the faces, the stages used."""

    physical: frozenset[str]
    rolled: Mapping[str, Sequence[int] | None]
    used: set[str] = field(default_factory=set)

    def finish(self) -> None:
        """Refuse faces entered for a stage the command did not roll (as typed dice are)."""
        for key, faces in self.rolled.items():
            if faces is not None and key not in self.used:
                raise RulesError(
                    f"rolled gives dice for {key!r}, a stage this attack did not roll."
                )


class _Chain:
    """One die from each Rng in turn (a roll-off whose two dice have two rollers)."""

    def __init__(self, *sources: Rng) -> None:
        self.sources = list(sources)

    def roll(self, sides: int) -> int:
        if not self.sources:
            raise RulesError("A roll-off asked for more than its two dice.")
        return self.sources.pop(0).roll(sides)


class _Physical:
    """The faces a physical roller entered for one stage, checked on the first die asked."""

    def __init__(self, entered: Entered, stage: StageDice, faces: Sequence[int] | None) -> None:
        self.entered, self.stage, self.faces, self.next = entered, stage, faces, 0

    def roll(self, sides: int) -> int:
        stage = self.stage
        if self.faces is None:
            raise DiceNeededError(stage, frozenset(self.entered.used))
        if self.next == 0:
            check_faces(stage, self.faces)
            self.entered.used.add(stage.key)
        if self.next >= len(self.faces):  # pragma: no cover - check_faces counted them
            raise RulesError(f"{upper_first(stage.what)} ran out of dice.")
        face = self.faces[self.next]
        self.next += 1
        return face


def check_faces(stage: StageDice, faces: Sequence[int]) -> None:
    """Refuse faces that are not ``count`` dice of 1 to ``sides`` (one sentence)."""
    dice = f"{stage.count} {'die' if stage.count == 1 else 'dice'} of 1 to {stage.sides}"
    bad = [f for f in faces if not 1 <= f <= stage.sides]
    if len(faces) != stage.count or bad:
        raise RulesError(
            f"{upper_first(stage.what)} ({stage.roller}'s {stage.count}d{stage.sides}) needs "
            f"{dice}, not {list(faces)}."
        )


@dataclass(slots=True)
class AttackStages:
    """The dice of attack ``index``: a physical roller's entries, else the command's stream."""

    entered: Entered
    stream: Rng
    index: int
    setup: AttackSetup
    attacker: str
    defender: str
    precision: bool

    def rng_for(self, stage: str) -> Rng:
        """The Rng of one stage of ``attack.py`` (the Ward-off's two d20s have two rollers).

        A physical attacker types its hit d100 before the Ward-off contest (table order, issue
        21): ``attack.py`` still draws the roll-off first (the seeded stream keeps its order),
        so the hit's faces are asked, and checked, before the roll-off's are.
        """
        if stage == "ward_off":
            self._hit_first()
            return _Chain(self._one("ward_off_attacker"), self._one("ward_off_defender"))
        return self._one(stage)

    def _hit_first(self) -> None:
        """Ask a physical attacker's hit d100 before the Ward-off contest (table order).

        Its faces, once typed, are checked now and count as used even when the defender wins
        the contest and the attack never rolls to hit (they stay in the command's ``rolled``).
        """
        key = f"{self.index}.hit"
        if self.attacker not in self.entered.physical:
            return
        if key in self.entered.rolled and self.entered.rolled[key] is None:
            return  # the server rolls it from the stream, in the stream's order
        faces = self.entered.rolled.get(key)
        stage = self.describe("hit")
        if faces is None:
            raise DiceNeededError(stage, frozenset(self.entered.used))
        check_faces(stage, faces)
        self.entered.used.add(key)

    def _one(self, stage: str) -> Rng:
        roller = self.attacker if STAGE_ROLLER[stage] == "attacker" else self.defender
        key = f"{self.index}.{stage}"
        if roller not in self.entered.physical:
            if self.entered.rolled.get(key) is not None:
                raise RulesError(
                    f"rolled gives dice for {key!r}, but {roller} does not roll physically "
                    "(add it to physical)."
                )
            return self.stream
        if key in self.entered.rolled and self.entered.rolled[key] is None:
            self.entered.used.add(key)
            return self.stream  # null: the server rolls this stage after all
        return _Physical(self.entered, self.describe(stage), self.entered.rolled.get(key))

    def describe(self, stage: str) -> StageDice:
        """One stage of this attack: its key, roller and dice."""
        roller = self.attacker if STAGE_ROLLER[stage] == "attacker" else self.defender
        count, sides = self._dice(stage)
        what = f"{STAGE_WORDS[stage]} of attack {self.index + 1}"
        return StageDice(f"{self.index}.{stage}", roller, count, sides, what)

    def _dice(self, stage: str) -> tuple[int, int]:
        """How many dice of how many sides a stage rolls (when it is rolled)."""
        if stage == "hit":
            return (2 if self.precision else 1), D100
        if stage == "damage":
            expr = self.setup.weapon.dice
            return expr.count, expr.sides
        if stage == "effects":
            return len(usable_effects(self.setup, check_attack(self.setup))), D100
        return 1, D20


def stage_key(key: str, attacks: int) -> tuple[int, str]:
    """``(attack index, stage)`` of a ``rolled`` key such as ``0.hit`` (refusing others)."""
    index, _, stage = key.partition(".")
    if not index.isdigit() or int(index) >= attacks or stage not in STAGE_ROLLER:
        stages = ", ".join(STAGE_ROLLER)
        raise RulesError(
            f"rolled names stage {key!r}; a stage is '<attack index>.<stage>' with an index "
            f"below {attacks} and a stage of {stages}."
        )
    return int(index), stage


def entered_dice(
    physical: Sequence[str], rolled: Mapping[str, Sequence[int] | None], attacks: int
) -> Entered:
    """The command's physical dice (refusing entries that name no stage of its attacks)."""
    for key in rolled:
        stage_key(key, attacks)
    return Entered(frozenset(physical), rolled)
