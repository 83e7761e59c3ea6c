"""The third golden Realm of Strife fight, scripted: Shield Blow, knock-back, taunt, a thrown
Dagger picked up again, and a crushing injury offered to the Host.

Aldric strikes a Goblin with his Long Sword and a Shield Blow (SA-73) and the Host knocks it
back (SA-70); Sera throws a Dagger at the other Goblin (SA-69, SA-72); Aldric's taunt draws the
knocked-back Goblin to him (SA-71), whose thrust carries a crushing injury should Aldric Block a
critical (SA-74); the Host puts that Goblin under water for a Turn (SA-76); Sera walks to her
Dagger and picks it up (SA-72); then the simple policy fights to the end. Every die comes from
the seeded stream except the Initiative d20s typed in, which fix the Turn Order, and Goblin-1's
thrust (a critical that Aldric Blocks).

Regenerate the checked-in transcript on purpose with:
    .venv/bin/python tests/golden/strife_forced.py --write
"""

from __future__ import annotations

from pathlib import Path

from golden_script import AUTO, ScriptedFight, Step, main

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "strife_forced_fight.log"
SEED = 14
LIMIT = 400
SCRIPT: list[Step] = [
    ("add", {"id": "Aldric", "model": "Aldric", "side": "heroes", "position": [0, 0, 0]}, (20,)),
    ("add", {"id": "Sera", "model": "Sera", "side": "heroes", "position": [0, 3, 0]}, (14,)),
    ("add", {"id": "Goblin-1", "model": "Goblin", "side": "monsters", "position": [1, 0, 0]}, (2,)),
    ("add", {"id": "Goblin-2", "model": "Goblin", "side": "monsters", "position": [6, 3, 0]}, (1,)),
    ("start", {}, None),
    # Round 1 -- Aldric: Long Sword, then a Shield Blow as the off hand's attack (SA-73) ...
    (
        "attack",
        {
            "attacker": "Aldric",
            "attacks": [{"defender": "Goblin-1"}, {"defender": "Goblin-1", "shield_blow": True}],
        },
        None,
    ),
    # ... which the Host rules knocks Goblin-1 back 3" (SA-70): no Attack of Opportunity.
    (
        "forced_move",
        {"id": "Goblin-1", "kind": "knock_back", "by": "Aldric", "to": [4, 0, 0]},
        None,
    ),
    ("next", {}, None),
    # Sera throws her main-hand Dagger 6" at Goblin-2: it leaves her hand (SA-69, SA-72).
    ("attack", {"attacker": "Sera", "attacks": [{"defender": "Goblin-2", "thrown": True}]}, None),
    # Aldric's taunt (the Host's condition) binds Goblin-1's next Turn (SA-71).
    ("condition", {"id": "Goblin-1", "name": "Taunted", "rounds": 1, "source": "Aldric"}, None),
    ("next", {}, None),
    # Goblin-1 must close on Aldric and may strike only him; a blocked crit would crush (SA-74).
    ("move", {"id": "Goblin-1", "to": [1, 0, 0]}, None),
    (
        "attack",
        {
            "attacker": "Goblin-1",
            "attacks": [{"defender": "Aldric", "reaction": "block", "crushing_injury": "arm"}],
        },
        (100, 15),  # typed: a critical, Blocked (15 + 6 + 4 > 20): the arm is crushed
    ),
    ("next", {}, None),
    # Goblin-2 is pushed into the ford by the Host (SA-76), then the policy plays its Turn.
    ("water", {"id": "Goblin-2"}, None),
    (AUTO, {"until": "Sera"}, None),
    # Round 2 -- Sera walks to the Dagger where Goblin-2 stood and picks it up (SA-72).
    ("move", {"id": "Sera", "to": [5.5, 3, 0]}, None),
    ("pick_up", {"id": "Sera", "weapon": "Dagger"}, None),
    ("next", {}, None),
]

FIGHT = ScriptedFight(SCRIPT, SEED, LIMIT)
run_fight = FIGHT.run_fight
transcript = FIGHT.transcript


if __name__ == "__main__":
    main(GOLDEN, transcript)
