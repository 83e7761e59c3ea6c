"""NPC policies that know the rules, for a table's NPCs (SA-98).

The simulation's policies (:mod:`tableside.encounter.policy` for a War,
:mod:`tableside.encounter.strife.policy` for a Realm of Strife fight) choose an NPC's next
command; here each choice is put to the engine's own validation (the command decided on the
state with throwaway dice, nothing kept) and only an accepted one is chosen, in the policy's
order of preference, the end of the Turn last. ``npc`` says which models the caller lets the
policy act for (at a web table: those no seat commands), so a player's model is never moved,
nor its Reaction chosen, by the Host's NPC Turn: a chosen attack or cast carries no Reaction
or Block of its defenders, whose owners are asked as for any command (D-7, SA-96).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from tableside.dice import SeededRng
from tableside.encounter.log import Command
from tableside.encounter.policy import REST_AP_MAX, WarPolicy, acting, rest
from tableside.encounter.strife import policy as strife_policy
from tableside.encounter.strife.state import FightState
from tableside.encounter.war.state import WarState
from tableside.errors import TablesideError

ACTORS = {"attack": "attacker", "aoo": "attacker", "cast": "caster", "strike": "striker"}
"""The argument naming the model a policy's command acts for (``id`` otherwise)."""
END = Command("next")


def actor_of(command: Command) -> str | None:
    """The model ``command`` acts for (None: ``next``, which ends whoever's Turn it is)."""
    if command.kind == "next":
        return None
    value = command.args.get(ACTORS.get(command.kind, "id"))
    return value if isinstance(value, str) else None


def accepted(game: Any, state: Any, command: Command) -> bool:
    """Whether the engine accepts ``command`` now (decided on the state, nothing kept)."""
    try:
        game.decide(state, command, SeededRng(0))
    except TablesideError:
        return False
    return True


def unanswered(command: Command) -> Command:
    """The command without its defenders' Reactions and Blocks: their owners are asked."""
    args = dict(command.args)
    if command.kind == "attack":
        args["attacks"] = [{k: v for k, v in a.items() if k != "reaction"}
                           for a in args.get("attacks") or ()]  # fmt: skip
    args.pop("blocks", None)
    return Command(command.kind, args, command.dice)


def war_candidates(game: Any, state: WarState) -> Iterator[Command]:
    """The War policy's choices in its order: its choice, with the Rest rule, a Rest, the end."""
    yield WarPolicy(catalog=game.catalog)(state)
    yield WarPolicy(rest=True, catalog=game.catalog)(state)
    me = acting(state)
    resting = None if me is None else rest(me, REST_AP_MAX)
    if resting is not None:
        yield resting


def npc_command(game: Any, state: Any, npc: Callable[[str], bool]) -> Command:
    """The policy's next command for an NPC that the engine accepts; else the end of the Turn.

    Args:
        game: The encounter's game (its ``decide`` validates).
        state: The War's or the fight's state now.
        npc: Whether the policy may act for a model.
    """
    if isinstance(state, FightState):
        found: Iterator[Command] = strife_policy.candidates(state, game.catalog)
    else:
        found = war_candidates(game, state)
    for command in found:
        actor = actor_of(command)
        if command.kind == "next" or actor is None or not npc(actor):
            continue
        command = unanswered(command)
        if accepted(game, state, command):
            return command
    return END
