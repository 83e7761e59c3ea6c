"""The golden Realm of Strife fight: two heroes ambush three monsters, run to its end.

Regenerate the checked-in transcript on purpose with:
    .venv/bin/python tests/golden/strife.py --write
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from golden_script import main, play_strife, rendered

from tableside.encounter.engine import Encounter
from tableside.encounter.strife.state import FightState

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
    script = [("add", args, None) for args in ROSTER] + [("start", {"ambush": "heroes"}, None)]
    return play_strife(script, seed, LIMIT)


def transcript() -> str:
    """The rendered log of the golden fight."""
    return rendered(run_fight())


if __name__ == "__main__":
    main(GOLDEN, transcript)
