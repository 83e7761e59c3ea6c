"""The golden War: a seeded 4-against-4 War run to its end by the simple policy.

Regenerate the checked-in transcript on purpose with:
    .venv/bin/python tests/golden/war.py --write
"""

from __future__ import annotations

import sys
from pathlib import Path

from tableside.cli.war_render import log_lines
from tableside.encounter.engine import Encounter
from tableside.encounter.policy import next_command
from tableside.encounter.roster import add_commands
from tableside.encounter.war import MajestyWar
from tableside.encounter.war_state import WarState

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "war_4v4.log"
SEED = 2026
LIMIT = 2000


def run_war(seed: int = SEED) -> Encounter[WarState]:
    """Add the roster and let the policy fight until the War ends."""
    encounter: Encounter[WarState] = Encounter(MajestyWar(), seed)
    for command in add_commands():
        encounter.execute(command)
    for _ in range(LIMIT):
        if encounter.state.ended:
            break
        encounter.execute(next_command(encounter.state))
    return encounter


def transcript() -> str:
    """The rendered log of the golden War."""
    return "\n".join(log_lines(run_war())) + "\n"


if __name__ == "__main__":
    if "--write" in sys.argv:
        GOLDEN.write_text(transcript(), "utf-8")
        print(f"wrote {GOLDEN}")
    else:
        sys.stdout.write(transcript())
