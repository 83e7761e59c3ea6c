"""The golden War: a seeded 4-against-4 War run to its end by the simple policy.

Regenerate the checked-in transcript on purpose with:
    .venv/bin/python tests/golden/war.py --write
"""

from __future__ import annotations

from pathlib import Path

from golden_script import main, play_out, rendered

from tableside.encounter.engine import Encounter
from tableside.encounter.policy import next_command
from tableside.encounter.roster import add_commands
from tableside.encounter.war.game import MajestyWar
from tableside.encounter.war.state import WarState

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "war_4v4.log"
SEED = 2026
LIMIT = 2000


def run_war(seed: int = SEED) -> Encounter[WarState]:
    """Add the roster and let the policy fight until the War ends."""
    encounter: Encounter[WarState] = Encounter(MajestyWar(), seed)
    for command in add_commands():
        encounter.execute(command)
    play_out(encounter, next_command, LIMIT)
    return encounter


def transcript() -> str:
    """The rendered log of the golden War."""
    return rendered(run_war())


if __name__ == "__main__":
    main(GOLDEN, transcript)
