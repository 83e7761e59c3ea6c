"""What the golden scripts share: a Realm of Strife script played to its end by the policy, the
rendered transcript, and the command line that prints it or (``--write``) rewrites the file."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tableside.cli.war_render import log_lines
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.strife.fight import StrifeFight
from tableside.encounter.strife.policy import next_command
from tableside.encounter.strife.state import FightState

# (command kind, its args, typed dice or None); kind AUTO: the policy plays until args["until"]
Step = tuple[str, dict[str, Any], tuple[int, ...] | None]
AUTO = "auto"


class Policy(Protocol):
    """A game's simple policy: the next command for a state."""

    def __call__(self, state: Any, /) -> Command: ...


def play_out(encounter: Encounter[Any], policy: Policy, limit: int,
             done: Callable[[Any], bool] = lambda state: False) -> None:  # fmt: skip
    """Let ``policy`` play at most ``limit`` commands, until the end or ``done(state)``."""
    for _ in range(limit):
        if encounter.state.ended or done(encounter.state):
            return
        encounter.execute(policy(encounter.state))


def turn_of(combatant: str) -> Callable[[Any], bool]:
    """Whether it is ``combatant``'s Turn."""
    return lambda state: bool(state.current == combatant)


def play_strife(script: Sequence[Step], seed: int, limit: int) -> Encounter[FightState]:
    """Play ``script`` on a new Realm of Strife fight, then let the simple policy end it."""
    encounter: Encounter[FightState] = Encounter(StrifeFight(), seed)
    for kind, args, dice in script:
        if kind == AUTO:
            play_out(encounter, next_command, limit, turn_of(args["until"]))
        else:
            encounter.execute(Command(kind, args, dice))
    play_out(encounter, next_command, limit)
    return encounter


@dataclass(frozen=True)
class ScriptedFight:
    """A golden script's fight: ``script`` from ``seed``, then the policy (``limit`` commands)."""

    script: Sequence[Step]
    seed: int
    limit: int

    def run_fight(self, seed: int | None = None) -> Encounter[FightState]:
        """Play the script, then let the simple policy fight to the end."""
        return play_strife(self.script, self.seed if seed is None else seed, self.limit)

    def transcript(self) -> str:
        """The rendered log of the scripted fight."""
        return rendered(self.run_fight())


def rendered(encounter: Encounter[Any]) -> str:
    """The encounter's log as the golden files hold it."""
    return "\n".join(log_lines(encounter)) + "\n"


def main(golden: Path, transcript: Callable[[], str]) -> None:
    """Print the transcript, or with ``--write`` rewrite the checked-in file on purpose."""
    if "--write" in sys.argv:
        golden.write_text(transcript(), "utf-8")
        print(f"wrote {golden}")
    else:
        sys.stdout.write(transcript())
