"""The third golden Realm of Strife fight, scripted: hiding declared, climbing, Reactions, acts.

Sera declares before the fight that she is hiding (SA-88) and keeps her Stealth; she Hustles
along a wall (a Sprint while hidden, SA-42); Aldric walks into a Goblin's reach; Goblin-1 comes at
Sera, who answers with a Skill Reaction, Swift Kick, with an Agility test (SA-82), and tries a
Role-play Action, a Strength roll-off to pin her to the wall (SA-80); in round 2 Sera climbs the
wall at normal speed after a Strength test while sneaking (SA-84, SA-42) and Aldric takes a Full
Action (SA-80); the simple policy then fights to the end. Every die comes from
the seeded stream except the Initiative d20s typed in, which fix the Turn Order.

Regenerate the checked-in transcript on purpose with:
    .venv/bin/python tests/golden/strife_react.py --write
"""

from __future__ import annotations

from pathlib import Path

from golden_script import ScriptedFight, Step, main

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "strife_react_fight.log"
SEED = 1
LIMIT = 400
SCRIPT: list[Step] = [
    ("add", {"id": "Sera", "model": "Sera", "side": "heroes", "position": [0, 0, 0]}, (19,)),
    ("add", {"id": "Aldric", "model": "Aldric", "side": "heroes", "position": [0, 3, 0]}, (15,)),
    ("add", {"id": "Goblin-1", "model": "Goblin", "side": "monsters", "position": [5, 0, 0]}, (2,)),
    ("add", {"id": "Goblin-2", "model": "Goblin", "side": "monsters", "position": [6, 3, 0]}, (1,)),
    # Before the fight: Sera declares that she is hiding, so she keeps her Stealth (SA-88).
    ("hide", {"id": "Sera"}, None),
    ("start", {}, None),
    # Round 1 -- Sera Hustles along the wall: a Sprint while hidden, at most Movement 6 (SA-42).
    ("whole_turn", {"id": "Sera", "kind": "sprint", "to": [0, -5, 0]}, None),
    ("next", {}, None),
    # Aldric walks up to Goblin-2.
    ("move", {"id": "Aldric", "to": [5, 3, 0]}, None),
    ("attack", {"attacker": "Aldric", "attacks": [{"defender": "Goblin-2"}]}, None),
    ("next", {}, None),
    # Goblin-1 runs at Sera and tries to pin her to the wall: a Role-play Action, a Strength
    # roll-off against her (SA-80); Sera answers its approach with a Skill Reaction (SA-82).
    ("move", {"id": "Goblin-1", "to": [2, -4, 0]}, None),
    (
        "react",
        {
            "id": "Sera",
            "kind": "skill",
            "name": "Swift Kick",
            "trigger": "Goblin-1 comes at her",
            "test": "AGIL",
        },
        None,
    ),
    (
        "act",
        {
            "id": "Goblin-1",
            "kind": "roleplay",
            "name": "pin her to the wall",
            "test": "STR",
            "against": "Sera",
        },
        None,
    ),
    ("next", {}, None),
    ("attack", {"attacker": "Goblin-2", "attacks": [{"defender": "Aldric"}]}, None),
    ("next", {}, None),
    # Round 2 -- Sera climbs the wall at normal speed: a Strength test, sneaking (SA-84, SA-42).
    ("move", {"id": "Sera", "to": [0, -5, 3], "mode": "climb", "normal_speed": True}, None),
    ("next", {}, None),
    # Aldric binds a wound from his backpack: a Full Action, which ends his Turn (SA-80).
    ("act", {"id": "Aldric", "kind": "full", "name": "bandage from the backpack"}, None),
    ("next", {}, None),
]

FIGHT = ScriptedFight(SCRIPT, SEED, LIMIT)
run_fight = FIGHT.run_fight
transcript = FIGHT.transcript


if __name__ == "__main__":
    main(GOLDEN, transcript)
