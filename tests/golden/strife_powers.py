"""The second golden Realm of Strife fight, scripted: powers, dual wielding, Disengage, Impale.

Sera casts Arcane Torrent on two Goblins with one casting roll (SA-49, SA-60), Aldric charges
into a Goblin's Spear and is impaled (SA-64), Sera strikes with both Daggers (SA-46, SA-47) and
later Disengages (SA-52), and the fight is run to its end. Every die comes from the seeded
stream except the Initiative d20s typed in, which fix the Turn Order.

Regenerate the checked-in transcript on purpose with:
    .venv/bin/python tests/golden/strife_powers.py --write
"""

from __future__ import annotations

from pathlib import Path

from golden_script import ScriptedFight, Step, main

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "strife_powers_fight.log"
SEED = 25
LIMIT = 400
SCRIPT: list[Step] = [
    ("add", {"id": "Sera", "model": "Sera", "side": "heroes", "position": [0, 0, 0]}, (19,)),
    ("add", {"id": "Aldric", "model": "Aldric", "side": "heroes", "position": [0, 3, 0]}, (15,)),
    ("add", {"id": "Goblin-1", "model": "Goblin", "side": "monsters", "position": [6, 0, 0]}, (2,)),
    ("add", {"id": "Goblin-2", "model": "Goblin", "side": "monsters", "position": [6, 3, 0]}, (1,)),
    ("start", {}, None),
    # Round 1 -- Sera: one casting roll of Arcane Torrent over both Goblins (SA-49, SA-60).
    (
        "cast",
        {"caster": "Sera", "targets": ["Goblin-1", "Goblin-2"], "power": "Arcane Torrent"},
        None,
    ),
    ("next", {}, None),
    # Aldric charges 5" into Goblin-2's Spear; Goblin-2 Impales (SA-64), then Aldric strikes.
    ("move", {"id": "Aldric", "to": [5, 3, 0]}, None),
    ("impale", {"impaler": "Goblin-2", "target": "Aldric"}, None),
    ("attack", {"attacker": "Aldric", "attacks": [{"defender": "Goblin-2"}]}, None),
    ("next", {}, None),
    # Goblin-1 closes on Sera and thrusts.
    ("move", {"id": "Goblin-1", "to": [1, 0, 0]}, None),
    ("attack", {"attacker": "Goblin-1", "attacks": [{"defender": "Sera"}]}, None),
    ("next", {}, None),
    # Goblin-2 (its Reaction spent on the Impale) thrusts at Aldric.
    ("attack", {"attacker": "Goblin-2", "attacks": [{"defender": "Aldric"}]}, None),
    ("next", {}, None),
    # Round 2 -- Sera: both Daggers at Goblin-1 (dual wielding, SA-46, SA-47).
    (
        "attack",
        {"attacker": "Sera", "attacks": [{"defender": "Goblin-1"}, {"defender": "Goblin-1"}]},
        None,
    ),
    ("next", {}, None),
    # Aldric backs away from Goblin-2 with a Disengage Action: half Movement, no AoO (SA-52).
    ("disengage", {"id": "Aldric", "to": [2.5, 3, 0]}, None),
    ("next", {}, None),
]

FIGHT = ScriptedFight(SCRIPT, SEED, LIMIT)
run_fight = FIGHT.run_fight
transcript = FIGHT.transcript


if __name__ == "__main__":
    main(GOLDEN, transcript)
