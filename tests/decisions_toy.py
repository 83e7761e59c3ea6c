"""A stand-in for a game's ``choices`` (the RoS Reaction and a Host's approval), for web tests.

The web table's tests must not depend on the games' own ``choices`` (other branches build them):
this one lists, for each attack of a Realm of Strife ``attack``, the defender's Reaction (kind
``reaction``, path ``("attacks", i, "reaction")``, options with odds) and, when the attack has
modifiers, the Host's approval of them (kind ``approve``, D-4).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from tableside.dice import Rng
from tableside.encounter.decisions import Choice, approval
from tableside.encounter.log import Command

REACTIONS: tuple[dict[str, Any], ...] = (
    {"value": None, "label": "No Reaction", "odds": {"hit": 0.61}},
    {"value": "parry", "label": "Parry", "odds": {"hit": 0.42}},
    {"value": "block", "label": "Block", "odds": {"hit": 0.37}},
)


def toy_choices(_game: Any, _state: Any, command: Command, _rng: Rng) -> Sequence[Choice]:
    """The choices of an ``attack``: each defender's Reaction, and an approval of modifiers."""
    if command.kind != "attack":
        return []
    attacker = str(command.args.get("attacker"))
    found: list[Choice] = []
    for index, item in enumerate(command.args.get("attacks") or []):
        defender = str(item.get("defender"))
        found.append(
            Choice(
                kind="reaction",
                combatant=defender,
                path=("attacks", index, "reaction"),
                options=REACTIONS,
                suggested=None,
                given="reaction" in item,
                prompt=f"{attacker} attacks {defender}: how does {defender} react?",
                key=f"reaction.{index}",
            )
        )
        proposal = approval(attacker, item, {"modifiers": []}, f"{attacker}'s attack on {defender}")
        if proposal is not None:
            found.append(dataclasses.replace(proposal, key=f"approve.{index}"))
    return found
