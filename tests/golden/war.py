"""The golden War: a seeded 4-against-4 War run to its end by the simple policy.

Regenerate the checked-in transcript on purpose with:
    .venv/bin/python tests/golden/war.py --write
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from war_builders import doc  # noqa: E402

from tableside.cli.war_render import log_lines  # noqa: E402
from tableside.encounter.engine import Encounter  # noqa: E402
from tableside.encounter.log import Command  # noqa: E402
from tableside.encounter.policy import next_command  # noqa: E402
from tableside.encounter.war import MajestyWar  # noqa: E402
from tableside.encounter.war_state import WarState  # noqa: E402

GOLDEN = HERE / "war_4v4.log"
SEED = 2026
LIMIT = 2000
ROSTER = [
    ("Herald", "holy", "Sword", (0.0, 0.0, 0.0), {"might": 42, "swiftness": 31, "control": 30}),
    ("Watcher", "holy", "Spear", (0.0, 2.0, 0.0), {"might": 35, "swiftness": 40, "control": 45}),
    ("Guardian", "holy", "Hammer", (0.0, 4.0, 1.0), {"might": 60, "swiftness": 15, "control": 28}),
    ("Messenger", "holy", "Axe", (0.0, 6.0, 0.0), {"might": 48, "swiftness": 25, "control": 35}),
    ("Warrior", "fallen", "Axe", (8.0, 0.0, 0.0), {"might": 56, "swiftness": 22, "control": 40}),
    ("Jackal", "fallen", "Club", (8.0, 2.0, 0.0), {"might": 30, "swiftness": 48, "control": 20}),
    ("Deceiver", "fallen", "Sword", (8.0, 4.0, 2.0), {"might": 38, "swiftness": 33, "control": 50}),
    ("Brute", "fallen", "Hammer", (8.0, 6.0, 0.0), {"might": 70, "swiftness": 10, "control": 25}),
]


def run_war() -> Encounter[WarState]:
    """Add the roster and let the policy fight until the War ends."""
    encounter: Encounter[WarState] = Encounter(MajestyWar(), SEED)
    for name, side, weapon, at, attributes in ROSTER:
        character = doc(name, side=side, weapon=weapon, **attributes)
        encounter.execute(
            Command("add", {"id": name, "character": character, "position": list(at)})
        )
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
