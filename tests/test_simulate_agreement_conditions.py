"""F-55 … F-58: the fast War engine plays Stances, Readied and carried AP, Exposed, Surprised,
Bound and Asleep combatants as the full engine does (issue 26, "Fast engines play every rule").

* **Exact** (the guard against drift, as F-30): full-engine runs from starts with each effect
  are replayed command by command; before each command a fast batch of one run is built from
  the engine's state, the fast policy must choose the engine policy's command and, after it (a
  Strike given the consequences of the engine's own dice), every number the fast engine keeps —
  Readied and carried AP and who is Surprised by whom included — must equal the engine's.
* **Deterministic**: a command or a seeded run whose result follows from the rules alone (a
  Striker in Stance with 3 AP does not Strike; carried AP arrive with the next Turn's; Readied
  AP rest; Surprise ends at the Surprised one's Turn; the Bound pass their Turns).
* **Statistical** (as F-31): small duels (``tests/data/war_*.json``, made by
  ``tests/data/make_war_effects.py``) where each effect plays in every run; fast against full
  engine at the project's power (``agreement.sized``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from replays import wear_taken
from test_simulate_agreement_effects import effect
from test_simulate_fast import (
    GAME,
    engine_view,
    fast_view,
    forced_row,
    positions_agree,
    replay,
    same_command,
    war_start,
)

from tableside.encounter.log import Command
from tableside.encounter.war_state import WarState
from tableside.simulate.fast_war import Batch, unsupported
from tableside.simulate.runs import StreamRng, run_seed


def play(state: WarState, kind: str, **args: Any) -> WarState:
    """One command played by the engine."""
    return GAME.play(state, Command(kind, args), StreamRng(7, 0))[1]


def started() -> WarState:
    """war_4v4 with its first Turn begun."""
    return play(war_start(), "next")


def stances() -> WarState:
    """F-55: Defensive Stance on both sides, one Full, under the newer Full Stance rule (A-41)."""
    state = play(war_start(), "ruleset", name="newer-full-stance")
    for who, full in (("Herald", False), ("Guardian", True), ("Warrior", False),
                      ("Jackal", True)):  # fmt: skip
        state = play(state, "stance", id=who, on=True, full=full)
    return state


def ready() -> WarState:
    """F-56: the first Turn's combatant Stands Ready and Carries Over; others hold Readied AP.

    The Brute's Readied AP meet its Falter (wasted first, M-34); the rest rest (M-41).
    """
    state = started()
    first = state.order[state.turn].combatant
    state = play(state, "carry_over", id=first, ap=1)
    state = play(state, "stand_ready", id=first, ap=2, uses=["Strike"])
    for who, ap in (("Brute", 3), ("Herald", 2), ("Deceiver", 4)):
        if who != first:
            state = play(state, "host_set", id=who, field="readied", value=ap)
            state = play(state, "host_set", id=who, field="exertion", value=6)
    return effect(state, "Brute", "falter", amount=2)


def exposed() -> WarState:
    """F-57: two Exposed combatants (Guard 0, M-19)."""
    return effect(effect(war_start(), "Warrior", "exposed"), "Watcher", "exposed")


def surprised() -> WarState:
    """F-57: Surprise on both sides, until each Surprised one's next Turn (M-19)."""
    state = started()
    for who, by in (("Warrior", "Herald"), ("Warrior", "Watcher"), ("Jackal", "Herald"),
                    ("Herald", "Warrior"), ("Messenger", "Brute")):  # fmt: skip
        state = effect(state, who, "surprised", by=by)
    return state


def bound() -> WarState:
    """F-58: one Bound (no Turn's action, Exposed, Falter converts) and one Asleep (M-34, M-36)."""
    state = effect(war_start(), "Jackal", "falter", amount=3)
    state = effect(state, "Jackal", "bound")
    state = effect(state, "Watcher", "asleep")
    return effect(state, "Guardian", "asleep")


STARTS = {
    "stances": stances,
    "ready": ready,
    "exposed": exposed,
    "surprised": surprised,
    "bound": bound,
}


def fast_extras(batch: Batch) -> dict[str, tuple[int, int, tuple[str, ...]]]:
    """Readied AP, carried AP and Surprisers per combatant, from the fast engine."""
    ids = batch.roster.ids
    return {
        who: (
            int(batch.readied[0, i]), int(batch.carried[0, i]),
            tuple(sorted(by for j, by in enumerate(ids) if int(batch.surprised[0, i]) >> j & 1)),
        )
        for i, who in enumerate(ids)
    }  # fmt: skip


def engine_extras(state: WarState) -> dict[str, tuple[int, int, tuple[str, ...]]]:
    """The same from the engine."""
    return {
        c.id: (c.readied, c.carried, tuple(sorted(set(c.surprised_by))))
        for c in state.combatants.values()
    }


@pytest.mark.parametrize(
    ("start", "runs", "rest"),
    [("stances", 2, True), ("stances", 1, False), ("ready", 2, True), ("exposed", 1, True),
     ("surprised", 2, True), ("bound", 2, True)],
)  # fmt: skip
def test_f55_f58_fast_transitions_with_conditions_equal_the_engines(
    start: str, runs: int, rest: bool
) -> None:
    """F-55 … F-58 (M-17, M-19, M-34, M-36, M-41): each fast command leaves the engine's state."""
    state = STARTS[start]()
    assert unsupported(state, GAME.catalog) is None
    known: Batch | None = None
    for run in range(runs):
        seed = run_seed(55, run)
        for before, command, seq in replay(state, seed, rest):
            batch = Batch(before, 1, known)
            known = batch
            assert fast_extras(batch) == engine_extras(before)
            same_command(batch, command, rest)
            forced = None
            if command.kind == "strike":
                forced = forced_row(before, command, StreamRng(seed, seq))
            events, after = GAME.play(before, command, StreamRng(seed, seq))
            batch.step(np.array([0]), rest, np.random.default_rng(0), forced)
            assert fast_view(batch) == engine_view(after), (run, seq, command)
            assert fast_extras(batch) == engine_extras(after), (run, seq, command)
            assert positions_agree(batch, after), (run, seq, command)
            assert (batch.taken[0] == wear_taken(events, batch.roster.ids)).all(), (run, seq)
