"""The golden Realm of Strife fight: two heroes ambush three monsters, run to its end.

Regenerate the checked-in transcript on purpose with:
    .venv/bin/python tests/golden/strife.py --write
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tableside.cli.war_render import log_lines
from tableside.encounter.engine import Encounter
from tableside.encounter.log import Command
from tableside.encounter.strife_fight import StrifeFight
from tableside.encounter.strife_policy import next_command
from tableside.encounter.strife_state import FightState

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "strife_fight.log"
SEED = 44
LIMIT = 600
ROSTER: list[dict[str, Any]] = [
    {"id": "Aldric", "model": "Aldric", "side": "heroes", "position": [0.0, 0.0, 0.0]},
    {"id": "Sera", "model": "Sera", "side": "heroes", "position": [0.0, 3.0, 0.0]},
    {"id": "Goblin-1", "model": "Goblin", "side": "monsters", "position": [6.0, 0.0, 0.0]},
    {"id": "Goblin-2", "model": "Goblin", "side": "monsters", "position": [6.0, 3.0, 0.0]},
    {"id": "Troll", "model": "Cave Troll", "side": "monsters", "position": [8.0, 1.5, 0.0]},
]


def run_fight(seed: int = SEED) -> Encounter[FightState]:
    """Add the roster, start with the heroes' ambush, and let the policy fight to the end."""
    encounter: Encounter[FightState] = Encounter(StrifeFight(), seed)
    for args in ROSTER:
        encounter.execute(Command("add", args))
    encounter.execute(Command("start", {"ambush": "heroes"}))
    for _ in range(LIMIT):
        if encounter.state.ended:
            break
        encounter.execute(next_command(encounter.state))
    return encounter


def transcript() -> str:
    """The rendered log of the golden fight."""
    return "\n".join(log_lines(run_fight())) + "\n"


if __name__ == "__main__":
    if "--write" in sys.argv:
        GOLDEN.write_text(transcript(), "utf-8")
        print(f"wrote {GOLDEN}")
    else:
        sys.stdout.write(transcript())
