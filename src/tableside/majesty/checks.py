"""Checks and interactions (M-30 … M-33): Attribute, Resist, Perception and Social rolls.

Checks use the roll core of M-6 … M-12 with the Check names (Pass / Neutral / Fail). The roller's
side maximises net Passes; an opponent who holds the Adjustments minimises them (M-13).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tableside.dice import Adjustment, Rng, Side
from tableside.errors import require_non_negative
from tableside.majesty.adjust import AdjustMode, AdjustPass, Step, run_passes
from tableside.majesty.rolls import (
    PLAIN,
    EpicState,
    NaturalRoll,
    Tally,
    adjustments_from_advantage,
    face_bounds,
    natural_roll_from,
    net_boon,
    roll_natural,
)
from tableside.majesty.wear import Part

SUCCESS_AT = 3  # M-31
DEGREES = (3, 7, 12)  # M-32
EPIC_CHECK = 3  # M-33


class CheckKind(StrEnum):
    """The kinds of Check (M-30 … M-32)."""

    ATTRIBUTE = "attribute"
    RESIST = "resist"
    PERCEPTION = "perception"
    SOCIAL = "social"

    @property
    def interaction(self) -> bool:
        """Perception and Social take raw Adjustments with no translation (M-32)."""
        return self in (CheckKind.PERCEPTION, CheckKind.SOCIAL)


class CheckOutcome(StrEnum):
    """Success, partial success or failure (M-31, M-33)."""

    SUCCESS = "success"
    PARTIAL = "partial"
    FAILURE = "failure"


def factor_value(attribute: int) -> int:
    """Factor Value = attribute // 10 (M-30); an Allotment likewise."""
    return attribute // 10


def song_factor(spp: int) -> int:
    """A Song's Factor Value is 2 × SPP (M-30)."""
    return 2 * spp


@dataclass(frozen=True, slots=True)
class CheckSetup:
    """A Check to roll.

    For Attribute and Resist Checks ``factor`` is the roller's Factor Value and ``opposing`` the
    opposing one (None: unopposed, with ``difficulty``). For Perception and Social interactions
    ``factor`` and ``opposing`` are raw Adjustments for and against.
    """

    kind: CheckKind
    factor: int
    opposing: int | None = None
    difficulty: int = 0
    raw_for: int = 0
    raw_against: int = 0
    inspiration: int = 0
    obstruction: int = 0
    boon: int = 0
    bane: int = 0
    mode: AdjustMode = AdjustMode.BEST
    steps: tuple[Step, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckObjective:
    """Net Passes, maximised by the roller and minimised by the opponent (M-13)."""

    side: Side

    def __call__(self, tally: Tally) -> tuple[int, ...]:
        """Key to maximise."""
        return (tally.net if self.side == Side.ROLLER else -tally.net,)


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Everything a Check did and why."""

    setup: CheckSetup
    advantage: int
    translated: int
    parts_for: tuple[Part, ...]
    parts_against: tuple[Part, ...]
    passes: tuple[AdjustPass, ...]
    roll: NaturalRoll
    epic: EpicState
    adjustments: tuple[Adjustment, ...]
    final: tuple[int, ...]
    tally: Tally
    rulings: tuple[str, ...]

    @property
    def net(self) -> int:
        """Net Passes (signed)."""
        return self.tally.net

    @property
    def adjuster(self) -> Side | None:
        """The side left with Adjustments after cancellation (tokens aside)."""
        main = [p for p in self.passes if "token" not in p.why]
        return main[0].side if main else None

    @property
    def automatic(self) -> CheckOutcome | None:
        """Epic Checks: U12 ≥ 3 succeed, U1 ≥ 3 fail, whatever the net (M-33)."""
        if self.epic.unpaired_twelves >= EPIC_CHECK:
            return CheckOutcome.SUCCESS
        if self.epic.unpaired_ones >= EPIC_CHECK:
            return CheckOutcome.FAILURE
        return None

    @property
    def outcome(self) -> CheckOutcome:
        """Success at 3 net Passes, partial at 1–2, failure at 0 or less (M-31, M-33)."""
        if self.automatic is not None:
            return self.automatic
        if self.net >= SUCCESS_AT:
            return CheckOutcome.SUCCESS
        return CheckOutcome.PARTIAL if self.net >= 1 else CheckOutcome.FAILURE

    @property
    def passes_short(self) -> int:
        """max(0, 3 − net), net signed (M-31)."""
        return max(0, SUCCESS_AT - self.net)

    @property
    def degree(self) -> int:
        """Degrees of an interaction's success: how many of 3, 7, 12 net positives (M-32)."""
        return sum(1 for threshold in DEGREES if self.net >= threshold)


def _check_setup(setup: CheckSetup) -> None:
    counts = {
        "Boon": setup.boon, "Bane": setup.bane, "raw Adjustments for": setup.raw_for,
        "raw Adjustments against": setup.raw_against, "Inspiration tokens": setup.inspiration,
        "Obstruction tokens": setup.obstruction,
    }  # fmt: skip
    if setup.kind.interaction:
        counts |= {"Adjustments for": setup.factor, "Adjustments against": setup.opposing or 0}
    else:
        counts |= {"Factor Value": setup.factor, "opposing Factor Value": setup.opposing or 0}
    require_non_negative(counts)


def plan_check(setup: CheckSetup) -> tuple[int, int, list[Part], list[Part], list[AdjustPass]]:
    """Who adjusts a Check and how many times (M-10, M-11, M-30, M-32)."""
    parts_for: list[Part] = []
    parts_against: list[Part] = []
    advantage, translated = 0, 0
    if setup.kind.interaction:
        parts_for.append(Part("Adjustments for", setup.factor))
        parts_against.append(Part("Adjustments against", setup.opposing or 0))
    else:
        advantage = setup.factor - (setup.opposing or 0)
        translated = adjustments_from_advantage(abs(advantage))
        target = parts_for if advantage > 0 else parts_against
        target.append(Part(f"advantage {advantage}", translated))
        _difficulty(setup, parts_for, parts_against)
    parts_for.append(Part("raw Adjustments", setup.raw_for))
    parts_against.append(Part("raw Adjustments", setup.raw_against))
    surplus = sum(p.amount for p in parts_for) - sum(p.amount for p in parts_against)
    passes = []
    if surplus:
        side = Side.ROLLER if surplus > 0 else Side.OPPONENT
        passes.append(
            AdjustPass(side, abs(surplus), "advantage and raw sources (M-10, M-11, M-30)")
        )
    if setup.inspiration:
        passes.append(AdjustPass(Side.ROLLER, setup.inspiration, "Inspiration token (M-11)"))
    if setup.obstruction:
        passes.append(AdjustPass(Side.OPPONENT, setup.obstruction, "Obstruction token (M-11)"))
    keep_for = [p for p in parts_for if p.amount]
    keep_against = [p for p in parts_against if p.amount]
    return advantage, translated, keep_for, keep_against, passes


def _difficulty(setup: CheckSetup, parts_for: list[Part], parts_against: list[Part]) -> None:
    if setup.opposing is not None or not setup.difficulty:
        return
    if setup.difficulty > 0:
        parts_against.append(Part(f"Difficulty {setup.difficulty}", setup.difficulty))
    else:
        parts_for.append(Part(f"Difficulty {setup.difficulty}", -setup.difficulty))


def roll_check(setup: CheckSetup, rng: Rng) -> CheckResult:
    """Roll 7d12 (with Boon/Bane extras) and resolve the Check."""
    _check_setup(setup)
    return resolve_check(setup, roll_natural(rng, net_boon(setup.boon, setup.bane)))


def check_with_dice(setup: CheckSetup, rolled: tuple[int, ...]) -> CheckResult:
    """Resolve the Check from dice already rolled, in the order rolled."""
    _check_setup(setup)
    return resolve_check(setup, natural_roll_from(rolled, net_boon(setup.boon, setup.bane)))


def resolve_check(setup: CheckSetup, roll: NaturalRoll) -> CheckResult:
    """Adjust and read a Check whose natural roll is known."""
    advantage, translated, parts_for, parts_against, passes = plan_check(setup)
    natural = roll.natural
    faces, made = run_passes(
        natural,
        face_bounds(natural, PLAIN),
        PLAIN,
        passes,
        setup.mode,
        setup.steps,
        CheckObjective,
    )
    rulings = _check_rulings(setup)
    return CheckResult(
        setup, advantage, translated, tuple(parts_for), tuple(parts_against), tuple(passes),
        roll, EpicState.of(natural, PLAIN), tuple(made), faces, Tally.of(faces, PLAIN), rulings,
    )  # fmt: skip


def _check_rulings(setup: CheckSetup) -> tuple[str, ...]:
    used = ["M-6", "M-8", "M-9", "M-10", "M-11", "M-12", "M-13", "M-31", "M-33"]
    used.append("M-32" if setup.kind.interaction else "M-30")
    if setup.boon != setup.bane:
        used.append("M-7")
    return tuple(sorted(set(used), key=lambda r: int(r.split("-")[1])))
