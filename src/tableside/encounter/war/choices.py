"""The choices of a War's Strike and who owns each (issue 11; readings D-8 … D-13).

A Strike involves choices that are not the Striker's, listed in this order:

- the Host's approval of the situational modifiers the War's state does not give (D-11);
- whether an eligible elohim in Defensive Stance interposes (its controller, M-16, D-13): the
  rest waits for these answers, since they decide who is struck;
- the Target's Obstruction tokens (its controller, M-11, D-10);
- the Target's Adjustments, when it has the surplus (its controller, M-10, M-13, D-8), offered
  as ``best``, ``none`` and ``explicit`` with the outcome of each on the very dice the Strike
  will roll.

Each option's outcome is found by running the War's own ``decide`` on a copy of the command's
dice stream, so what the chooser sees is what the resolved command then does.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from tableside.dice import Rng, ScriptedRng, SeededRng
from tableside.dice.laws import probability
from tableside.encounter.decisions import APPROVE, APPROVED, REJECTED, Choice, approval
from tableside.encounter.log import JSON, Command, Event
from tableside.encounter.war.args import StrikeArgs, parse_args
from tableside.encounter.war.grapple import grappling
from tableside.encounter.war.state import Combatant, WarState
from tableside.encounter.war.strike import interposers, memo_key, strike_setup
from tableside.errors import TablesideError
from tableside.limits import ADJUSTMENTS_MAX, STEPS_MAX
from tableside.majesty.checks import CheckSetup
from tableside.majesty.interpose import interpose_check
from tableside.majesty.report import adjustment

if TYPE_CHECKING:
    from tableside.encounter.war.game import MajestyWar
    from tableside.majesty.strike import StrikeResult

HOST_MODIFIERS: dict[str, int] = {
    "boon": 0,
    "bane": 0,
    "wear_flat": 0,
    "wear_percent": 0,
    "ignore_stops": 0,
    "striker_adjustments": 0,
    "defender_adjustments": 0,
    "superiority": 0,
}
"""A Strike's modifiers that only the Host sets, with their values when nobody sets them (D-11)."""

OBSTRUCTION_SHOWN = 7
"""Obstruction counts offered with their outcomes, 0 … this (one per die kept, D-10)."""

ADJUSTMENT_OPTIONS: tuple[tuple[JSON, str], ...] = (
    ({"mode": "best"}, "best"),
    ({"mode": "none"}, "none"),
    ({"mode": "explicit", "steps": []}, "explicit"),
)
"""The Defender's Adjustment options shown with their outcomes (any explicit steps: D-8)."""

CHECK_SIDES = {"roller": "striker", "opponent": "defender"}


@dataclass(frozen=True)
class Seen:
    """What a Strike does on the dice it will roll, as its chooser is shown it."""

    target: str
    adjuster: str | None
    available: int
    data: JSON

    def label(self) -> str:
        """The outcome in a few words: Hits or Stops, Wear, 12 Effects, the dice."""
        d = self.data
        if "net_passes" in d:
            head = counted(d["net_passes"], "net Pass", "net Passes")
        elif d["uncanceled_stops"]:
            head = counted(d["uncanceled_stops"], "uncanceled Stop")
        else:
            head = counted(d["uncanceled_hits"], "uncanceled Hit")
        wear = "; ".join(
            f"{amount} Wear ({kind}) to {who}"
            for who, kinds in d["wear"].items()
            for kind, amount in kinds.items()
        )
        twelves = d.get("twelve_effects", 0)
        parts = [head, wear or "no Wear", counted(twelves, "12 Effect") if twelves else ""]
        dice = " ".join(str(f) for f in d["final"])
        return ", ".join(p for p in parts if p) + f" (dice {dice})"

    def effect(self) -> str:
        """The option's effect in the game's words: ``die 3, 4 → 3: 1 uncanceled Hit, …``."""
        moves = [f"die {a['die'] + 1}, {a['from']} → {a['to']}" for a in self.data["adjustments"]]
        return ("; ".join(moves) + ": " if moves else "no die moved: ") + self.label()


def counted(n: int, one: str, many: str | None = None) -> str:
    """A count with its noun, singular for one: "1 uncanceled Hit", "3 uncanceled Hits"."""
    return f"{n} {one if n == 1 else many or one + 's'}"


@dataclass(frozen=True)
class Trial:
    """The command decided on a copy of its dice stream, with other arguments (nothing kept)."""

    game: MajestyWar
    state: WarState
    command: Command
    rng: Rng
    lean: bool = False  # options' outcomes read from the Strike's result (:meth:`read`)
    shared: SharedDice | None = None  # one roll of the dice for every option (:meth:`read`)

    def run(self, args: Mapping[str, Any]) -> Seen | None:
        """What the Strike does with ``args``; None when the War refuses them.

        The same Strike (arguments, state and unused dice stream) is decided once: the options
        of a card share some (``best`` Adjustments is the Obstruction question's no token).
        """
        command = Command(self.command.kind, dict(args), self.command.dice)
        rng = fresh(self.rng)
        key = memo_key(command, rng)
        with _tried_lock:
            kept = _tried.get(key) if key is not None else None
        if kept is not None and kept[0] is self.state:
            return kept[1]
        try:
            found = self.read(command, rng) if self.lean and LEAN else None
            if found is None:
                events = self.game.decide_keyed(self.state, command, fresh(self.rng), key)
                found = seen(events, str(args.get("defender")))
        except TablesideError:
            return None
        if key is not None:
            with _tried_lock:
                _tried[key] = (self.state, found)
                while len(_tried) > TRIED_KEPT:
                    _tried.pop(next(iter(_tried)))
        return found

    def read(self, command: Command, rng: Rng) -> Seen | None:
        """What the Strike does, decided without its full reports (read from its result).

        None for what a Strike Roll does not cover (the Grappler's Check): the full decide. The
        same as :func:`seen` on the full decide's events (issue 21, item 8: the Host's card
        reads every option; ``tests/test_war_card_lean.py`` checks them equal).
        """
        if self.shared is not None and SHARED:
            try:
                return self.decided(command, self.shared.replay())
            except DiceDivergedError:
                pass  # this option rolls other dice than those drawn so far: its own stream
        return self.decided(command, rng)

    def decided(self, command: Command, rng: Rng) -> Seen | None:
        """:meth:`read` on the dice stream ``rng``."""
        p = self.game.pending(self.state, command, rng, describe=False)
        if len(p.strikes) != 1:
            return None
        resolved = next(e for e in p.events if e.kind == "strike_resolved")
        return strike_seen(p.strikes[0], p.events, str(resolved.data["defender"]))


class DiceDivergedError(Exception):
    """An option asked its shared dice for another die than the stream drew at that place."""


class SharedDice:
    """One unused seeded dice stream drawn once for every option of a card (issue 21, item 8).

    The options of an Obstruction or Adjustments question differ in tokens only: each decides
    the same Strike on a fresh copy of the same stream, so each draws the same dice. The k-th
    face of a fresh stream follows only from the sides of the k dice asked so far, so an option
    whose dice have the same sides as those drawn so far gets the very faces a fresh copy gives
    it, and a die beyond them is drawn from the one stream, then in the same place; a die with
    other sides raises :class:`DiceDivergedError` and that option takes its own fresh stream
    (``tests/test_war_card_lean.py`` compares the outcomes with and without).
    """

    def __init__(self, rng: Rng) -> None:
        self.stream = fresh(rng)
        self.drawn: list[tuple[int, int]] = []  # (sides, face), in the order drawn

    @classmethod
    def of(cls, rng: Rng) -> SharedDice | None:
        """Shared dice for an unused seeded stream; None for any other (typed dice)."""
        if isinstance(rng, SeededRng) and getattr(rng, "_generator", None) is None:
            return cls(rng)
        return None

    def replay(self) -> Rng:
        """A stream that plays the dice drawn so far, then draws more."""
        return _Replay(self)


class _Replay:
    """One option's view of :class:`SharedDice`."""

    def __init__(self, shared: SharedDice) -> None:
        self.shared = shared
        self.at = 0

    def roll(self, sides: int) -> int:
        """The next face: the one drawn at this place, or drawn now."""
        drawn = self.shared.drawn
        if self.at == len(drawn):
            drawn.append((sides, self.shared.stream.roll(sides)))
        was, face = drawn[self.at]
        if was != sides:
            raise DiceDivergedError(f"die {self.at + 1} is a d{sides}, drawn as a d{was}")
        self.at += 1
        return face


SHARED = True
"""Whether a card's options share one roll of the dice (:class:`SharedDice`; tests turn it off
to compare)."""
LEAN = True
"""Whether :class:`Trial` reads an option's outcome from the Strike's result (tests turn it off
to compare with the full decide)."""
TRIED_KEPT = 64
_tried: dict[str, tuple[WarState, Seen | None]] = {}
_tried_lock = threading.Lock()


def fresh(rng: Rng) -> Rng:
    """A copy of a dice stream not yet drawn from, made anew (cheaper than a deep copy)."""
    if isinstance(rng, SeededRng) and getattr(rng, "_generator", None) is None:
        stream = getattr(rng, "_stream", None)
        return SeededRng(rng.seed) if stream is None else SeededRng.stream(rng.seed, stream)
    if isinstance(rng, ScriptedRng) and rng.used == 0:
        return ScriptedRng(rng.faces, rng.label)
    return copy.deepcopy(rng)


def strike_seen(result: StrikeResult, events: list[Event], target: str) -> Seen:
    """A Strike's outcome read from its result: the keys :func:`seen` reads from its report."""
    main = result.adjusting.main
    data: dict[str, Any] = {
        "natural": list(result.roll.natural),
        "final": list(result.final),
        "adjustments": [adjustment(a) for a in result.adjustments],
        "uncanceled_hits": result.outcome.uncanceled_hits,
        "uncanceled_stops": result.outcome.uncanceled_stops,
        "twelve_effects": result.effects.twelve_fired,
    }
    adjuster = None if main is None else main.side.value
    available = 0 if main is None else main.count
    return Seen(target, adjuster, available, {**data, "wear": wear_dealt(events)})


def seen(events: list[Event], defender: str) -> Seen | None:
    """The Strike's outcome read from its events: the Strike Roll, or the Grappler's Check."""
    for event in events:
        if event.kind == "strike_resolved":
            r = event.data["result"]
            data = {
                key: r[key]
                for key in (
                    "natural",
                    "final",
                    "adjustments",
                    "uncanceled_hits",
                    "uncanceled_stops",
                )
            }
            data["twelve_effects"] = r["twelve_effects_fired"]
            target = str(event.data["defender"])
            return Seen(
                target,
                r["adjuster"],
                r["adjustments_available"],
                {**data, "wear": wear_dealt(events)},
            )
        if event.kind == "check_resolved" and str(event.data.get("purpose", "")).startswith(
            "Grappler's Strike"
        ):
            r = event.data["result"]
            data = {key: r[key] for key in ("natural", "final", "adjustments")}
            data["net_passes"] = r["net"]
            adjuster = CHECK_SIDES.get(r["adjuster"] or "")
            return Seen(
                defender, adjuster, r["adjustments_available"], {**data, "wear": wear_dealt(events)}
            )
    return None


def wear_dealt(events: list[Event]) -> dict[str, dict[str, int]]:
    """Every Wear the command deals, by combatant and kind."""
    wear: dict[str, dict[str, int]] = {}
    for event in events:
        if event.kind == "wear_taken":
            kinds = wear.setdefault(str(event.data["id"]), {})
            kind = str(event.data["kind"])
            kinds[kind] = kinds.get(kind, 0) + int(event.data["amount"])
    return wear


def war_choices(game: MajestyWar, state: WarState, command: Command, rng: Rng) -> list[Choice]:
    """The choices of a War command (only a Strike has any that are not its sender's).

    The Strike is decided once on a copy of its dice (to refuse at once what the War refuses,
    and to read the dice and who adjusts); the options' outcomes are not computed here but when
    a question is read (:func:`war_effects`), so a Strike costs about two decides (issue 21).
    """
    if command.kind != "strike":
        return []
    try:
        args = parse_args(StrikeArgs, command.args, "strike")
    except TablesideError:
        return []  # the War refuses it with its own sentence
    striker = state.combatants.get(args.striker)
    defender = state.combatants.get(args.defender)
    if striker is None or defender is None or striker.id == defender.id:
        return []
    trial = Trial(game, state, command, rng)
    chosen = {k: v for k, v in command.args.items() if k not in ("mode", "steps")}
    bare = {k: v for k, v in chosen.items() if k != "interpose"}
    dry = trial.run(bare)
    if dry is None:
        return []  # the War refuses this Strike at once: nobody is asked anything
    found: list[Choice] = []
    what = f"{striker.id}'s Strike on {defender.id}"
    approve = approval(striker.id, args.model_dump(), HOST_MODIFIERS, what)
    if approve is not None:
        found.append(approve)
    offers = interpose_choices(state, args, command.args, striker, defender)
    found += offers
    if any(not offer.given for offer in offers):
        return found  # who is struck follows the offers: the Target's choices come after (D-13)
    base = trial.run(chosen) if len(bare) != len(chosen) else dry
    if base is None:
        return found  # refused with these offers: the War says why when it decides
    what = f"{striker.id}'s Strike on {base.target}"
    if base.target != defender.id:
        what += f" (interposing for {defender.id})"
    found.append(obstruction_choice(command.args, base, what))
    adjust = adjustments_choice(command.args, base, what)
    if adjust is not None:
        found.append(adjust)
    return found


def war_effects(
    game: MajestyWar, state: WarState, command: Command, rng: Rng, choice: Choice
) -> list[JSON | None]:
    """What each option of an Obstruction or Adjustments question does: effect and outcome.

    Computed when the question is read (the Strike decided on a copy of its dice with the
    option), never when the Strike is sent (issue 21). Each is ``{"effect": words, "outcome":
    {...}}`` (the outcome's keys as D-8 lists them), None where the War refuses the option.
    """
    if choice.kind == APPROVE:
        return approval_effects(game, state, command, choice)
    if choice.kind not in ("obstruction", "adjustments"):
        return [None for _ in choice.options]
    # the full decide is not kept here; the options share one roll of their dice
    trial = Trial(game, state, command, rng, lean=True, shared=SharedDice.of(rng))
    effects: list[JSON | None] = []
    for option in choice.options:
        value = option.get("value")
        args = dict(command.args)
        if choice.kind == "obstruction":
            args["obstruction"] = value
        elif isinstance(value, Mapping):
            args = {k: v for k, v in args.items() if k not in ("mode", "steps")}
            args.update(value)
        outcome = trial.run(args)
        effects.append(None if outcome is None else {"effect": outcome.effect(),
                                                     "outcome": outcome.data})  # fmt: skip
    return effects


def approval_effects(
    game: MajestyWar, state: WarState, command: Command, choice: Choice
) -> list[JSON | None]:
    """The Strike's exact odds with the proposed modifiers (Approve) and without them (Reject).

    Only the Host answers an approval, and the Host sees every value: nothing secret feeds
    them for their reader (issue 21, W-53). Computed when the card is read, before any die is
    rolled (the approval is a gate); None for a Strike the odds do not cover (the Grappler's
    Check) or that the War would refuse.
    """
    from tableside.majesty.adjust import AdjustMode
    from tableside.majesty.odds import strike_odds

    try:
        args = parse_args(StrikeArgs, command.args, "strike")
        striker, defender = state.get(args.striker), state.get(args.defender)
        if args.two_ap and args.body is None and defender in grappling(state, striker.id):
            return [None for _ in choice.options]
        plain = {"mode": AdjustMode.BEST, "steps": ()}
        found: dict[Any, JSON] = {}
        for value, changes in ((APPROVED, {}), (REJECTED, HOST_MODIFIERS)):
            chosen = args.model_copy(update={**plain, **changes})
            law = strike_odds(strike_setup(game, chosen, striker, defender, state))
            found[value] = odds_effect(law, "with them" if changes == {} else "without them")
    except TablesideError:
        return [None for _ in choice.options]
    return [found.get(option.get("value")) for option in choice.options]


def odds_effect(law: Any, which: str) -> JSON:
    """A Strike's law in a few words and numbers: the chance of a Hit, the Wear on average."""
    hit = 1 - law.uncanceled_hits.p(0)
    wear = sum((w.mean for _kind, w in law.wear), Fraction(0))
    return {
        "effect": f"{which}: {float(hit) * 100:.0f} % to land an uncanceled Hit, "
        f"{float(wear):.1f} Wear on average",
        "odds": {"uncanceled_hit": probability(hit), "mean_wear": float(wear)},
    }


def interpose_choices(
    state: WarState,
    args: StrikeArgs,
    raw: Mapping[str, Any],
    striker: Combatant,
    defender: Combatant,
) -> list[Choice]:
    """One "interpose?" per elohim that may take this Strike instead (M-16, D-13)."""
    if args.two_ap and args.body is None and defender in grappling(state, striker.id):
        return []  # the Grappler's Strike is a Might Check on the one it holds (M-37)
    answered = raw.get("interpose")
    given = answered if isinstance(answered, Mapping) else {}
    return [
        Choice(
            kind="interpose",
            combatant=c.id,
            path=("interpose", c.id),
            options=(
                {
                    "value": True,
                    "label": f"Yes: {c.id} takes the Strike if its Control Check "
                    f"against {striker.id}'s Control passes",
                    "odds": {"pass": probability(interpose_odds(c, striker))},
                },
                {"value": False, "label": f"No: the Strike stays on {defender.id}"},
            ),
            suggested=False,
            given=c.id in given,
            prompt=f"{striker.id} Strikes {defender.id}. Does {c.id} interpose?",
            key=f"interpose:{c.id}",
            info={"title": f"Does {c.id} interpose?", "details": {"rules": ["M-16", "D-13"]}},
        )
        for c in interposers(state, args, striker, defender)
    ]


def interpose_odds(interposer: Combatant, striker: Combatant) -> Fraction:
    """The exact chance that the interposer's Control Check passes (M-16, M-30, M-31)."""
    return _passing(interpose_check(interposer.character, striker.character))


@lru_cache(maxsize=1024)
def _passing(check: CheckSetup) -> Fraction:
    """P(no Passes short) of a Check, exact (the War's interposition: M-16)."""
    from tableside.majesty.odds import check_odds

    return check_odds(check).passes_short.p(0)


def obstruction_choice(raw: Mapping[str, Any], base: Seen, what: str) -> Choice:
    """How many Obstruction tokens the Defender spends (M-11, D-10): 0 suggested.

    The War keeps no pool of tokens (D-10): 0 … 7 are offered as buttons (one per die kept), a
    number box takes more up to the arguments' limit. No option depends on an outcome, so the
    question always has its buttons (issue 21, item 1).
    """
    options = [
        {"value": count, "label": "No Obstruction token" if count == 0
         else counted(count, "Obstruction token")}
        for count in range(OBSTRUCTION_SHOWN + 1)
    ]  # fmt: skip
    target = base.target
    return Choice(
        kind="obstruction",
        combatant=target,
        path=("obstruction",),
        options=tuple(options),
        suggested=0,
        given="obstruction" in raw,
        prompt=f"{what}: the dice are {dice_words(base)}. How many Obstruction tokens does "
        f"{target} spend?",
        free=True,
        key=f"obstruction:{target}",
        info={
            "title": f"{target}'s Obstruction tokens",
            "dice": {"natural": list(base.data["natural"]), "for": what},
            "input": {"type": "count", "min": 0, "max": ADJUSTMENTS_MAX},
            "details": {"rules": ["M-11", "D-10"]},
        },
    )


def dice_words(base: Seen) -> str:
    """The Strike's natural dice in words: ``3, 4 and 9``."""
    faces = [str(f) for f in base.data["natural"]]
    return faces[0] if len(faces) == 1 else ", ".join(faces[:-1]) + " and " + faces[-1]


def adjustments_choice(raw: Mapping[str, Any], base: Seen, what: str) -> Choice | None:
    """The Defender's use of its surplus Adjustments (M-10, M-13, D-8), or None: not its.

    ``limit`` (the Adjustments it has) clamps an explicit list instead of refusing it: the count
    may follow values secret to the Defender's player (W-16, issue 21).
    """
    if base.adjuster != "defender":
        return None
    target = base.target
    labels = {"best": f"Best for {target}", "none": "No Adjustments", "explicit": "Choose dice…"}
    options = [
        {
            "value": {k: list(v) if isinstance(v, list) else v for k, v in value.items()},
            "label": labels[name],
        }
        for value, name in ADJUSTMENT_OPTIONS
    ]  # fmt: skip  (a copy per option: one level of dicts and lists, cheaper than deepcopy)
    return Choice(
        kind="adjustments",
        combatant=target,
        path=(),
        options=tuple(options),
        suggested={"mode": "best"},
        given="mode" in raw or "steps" in raw,
        prompt=(
            f"{what}: the dice are {dice_words(base)}. How does {target} use its Adjustments: "
            "best for it, none, or chosen die by die?"
        ),
        free=True,
        key=f"adjustments:{target}",
        info={
            "title": f"{target}'s Adjustments",
            "dice": {"natural": list(base.data["natural"]), "for": what},
            "input": {"type": "steps", "modes": ["best", "none", "explicit"],
                      "dice": len(base.data["natural"]), "side": "defender",
                      "max_steps": STEPS_MAX},
            "details": {"rules": ["M-10", "M-13", "D-8"]},
            "limit": base.available,
            "available": base.available,
        },
    )  # fmt: skip
