"""Crash safety of a War: a process killed with SIGKILL mid-stream of War commands.

The child (``python tests/test_war_crash.py URL ID``) runs the simple policy's commands through a
:class:`tableside.service.Session` as fast as it can (undoing the last commands when the War
ends, so it never runs dry), printing each committed revision. The parent kills it, reopens the
store, and checks: the log is whole (revisions 1..n), every reported command is in it, and the
live state rebuilt from the log equals the replay of the committed commands from the seed.
"""

from __future__ import annotations

import sys

import crashing

from tableside import service
from tableside.encounter.policy import next_command
from tableside.encounter.roster import add_commands
from tableside.store import Store

KILL_AFTER = 120
CRASHES = 2


def child_main(url: str, encounter_id: int) -> None:
    """Fight on from wherever the stored log ends, printing each committed revision."""
    with Store.open(url) as store:
        session = service.Session(store, encounter_id)
        if not session.encounter.state.combatants:
            for command in add_commands():
                report(session.execute(command).revision)
        while True:
            state = session.encounter.state
            record = session.undo() if state.ended else session.execute(next_command(state))
            report(record.revision)


def report(revision: int) -> None:
    sys.stdout.write(f"{revision}\n")
    sys.stdout.flush()


def run_and_kill(url: str, encounter_id: int) -> list[int]:
    """Start a child, let it commit ``KILL_AFTER`` records, SIGKILL it; the revisions it printed."""
    return crashing.run_and_kill([__file__, url, str(encounter_id)], KILL_AFTER)


def test_a_war_killed_mid_stream_reopens_as_the_replay_of_its_commands(url: str) -> None:
    with Store.open(url) as store:
        encounter_id = service.new_encounter(store, "Crash War", 77)
    for _ in range(CRASHES):
        reported = run_and_kill(url, encounter_id)
        with Store.open(url) as store:
            live = service.open_encounter(store, encounter_id)
        assert [r.revision for r in live.records] == list(range(1, live.revision + 1))
        assert live.revision >= max(reported)
        replay = live.verify_replay()
        assert replay.state == live.state
    assert live.revision >= CRASHES * KILL_AFTER


if __name__ == "__main__":
    child_main(sys.argv[1], int(sys.argv[2]))
