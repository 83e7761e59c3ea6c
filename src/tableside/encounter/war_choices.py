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
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from tableside.dice import Rng
from tableside.dice.laws import probability
from tableside.encounter.decisions import Choice, approval
from tableside.encounter.log import JSON, Command, Event
from tableside.encounter.war_args import StrikeArgs, parse_args
from tableside.encounter.war_state import Combatant, WarState
from tableside.errors import TablesideError
from tableside.majesty.checks import CheckSetup
from tableside.majesty.interpose import interpose_check

if TYPE_CHECKING:
    from tableside.encounter.war import MajestyWar

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
    ({"mode": "explicit", "steps": []}, "explicit (the steps named; with none named, as none)"),
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

    def run(self, args: Mapping[str, Any]) -> Seen | None:
        """What the Strike does with ``args``; None when the War refuses them."""
        command = Command(self.command.kind, dict(args), self.command.dice)
        try:
            events = self.game.decide(self.state, command, copy.deepcopy(self.rng))
        except TablesideError:
            return None
        return seen(events, str(args.get("defender")))


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
    """The choices of a War command (only a Strike has any that are not its sender's)."""
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
    if trial.run({k: v for k, v in chosen.items() if k != "interpose"}) is None:
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
    base = trial.run(chosen)
    if base is None:
        return found  # refused with these offers: the War says why when it decides
    what = f"{striker.id}'s Strike on {base.target}"
    if base.target != defender.id:
        what += f" (interposing for {defender.id})"
    found.append(obstruction_choice(trial, command.args, base, what))
    adjust = adjustments_choice(trial, command.args, chosen, base, what)
    if adjust is not None:
        found.append(adjust)
    return found


def interpose_choices(
    state: WarState,
    args: StrikeArgs,
    raw: Mapping[str, Any],
    striker: Combatant,
    defender: Combatant,
) -> list[Choice]:
    """One "interpose?" per elohim that may take this Strike instead (M-16, D-13)."""
    from tableside.encounter.war import grappling, interposers

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
            prompt=f"{striker.id} Strikes {defender.id}. Does {c.id} interpose (M-16)?",
            key=f"interpose:{c.id}",
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


def obstruction_choice(trial: Trial, raw: Mapping[str, Any], base: Seen, what: str) -> Choice:
    """How many Obstruction tokens the Defender spends (M-11, D-10): 0 suggested."""
    options = []
    for count in range(OBSTRUCTION_SHOWN + 1):
        outcome = trial.run({**raw, "obstruction": count})
        if outcome is None:
            continue
        options.append(
            {
                "value": count,
                "label": f"{counted(count, 'Obstruction token')}: {outcome.label()}",
                "outcome": outcome.data,
            }
        )
    return Choice(
        kind="obstruction",
        combatant=base.target,
        path=("obstruction",),
        options=tuple(options),
        suggested=0,
        given="obstruction" in raw,
        prompt=f"{what}: how many Obstruction tokens does {base.target} spend (M-11)?",
        free=True,
        key=f"obstruction:{base.target}",
    )


def adjustments_choice(
    trial: Trial, raw: Mapping[str, Any], chosen: Mapping[str, Any], base: Seen, what: str
) -> Choice | None:
    """The Defender's use of its surplus Adjustments (M-10, M-13, D-8), or None: not its."""
    if base.adjuster != "defender":
        return None
    options = []
    for value, name in ADJUSTMENT_OPTIONS:
        outcome = trial.run({**chosen, **value})
        if outcome is None:
            continue
        options.append({"value": copy.deepcopy(value), "label": f"{name}: {outcome.label()}",
                        "outcome": outcome.data})  # fmt: skip
    dice = " ".join(str(f) for f in base.data["natural"])
    return Choice(
        kind="adjustments",
        combatant=base.target,
        path=(),
        options=tuple(options),
        suggested={"mode": "best"},
        given="mode" in raw or "steps" in raw,
        prompt=(
            f"{what}: the dice are {dice}. {base.target} has {base.available} Adjustments "
            "(M-10, M-13): best, none, or explicit steps."
        ),
        free=True,
        key=f"adjustments:{base.target}",
    )
