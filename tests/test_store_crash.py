"""Crash safety: a writer killed with SIGKILL mid-stream leaves a whole log, 1..n, no gaps.

The test starts this file as a child process (``python tests/test_store_crash.py URL ID LIMIT``)
that appends ``records_for(LIMIT)`` as fast as it can, printing each committed revision. The
parent kills it with SIGKILL after a few hundred, reopens the store, and checks the log; the
next child resumes where the store says the log ends, and is killed again.
"""

from __future__ import annotations

import random
import sys

import crashing
from sqlalchemy import select

from tableside.encounter.log import Command, Event, LogRecord, RecordKind
from tableside.store import Store
from tableside.store.models import LogRecordRow

KILL_AFTER = 250  # committed records the parent waits for before each kill
CRASHES = 3
CHILD_LIMIT = CRASHES * KILL_AFTER + 2_000  # records a child would append if never killed


def records_for(n: int) -> list[LogRecord]:
    """The first ``n`` records of the crash test's encounter (revisions 1..n), deterministic.

    The child appends them and the parent compares the stored log with them; a later version
    can produce them by running commands through the encounter engine instead.
    """
    return [record_for(revision) for revision in range(1, n + 1)]


def record_for(revision: int) -> LogRecord:
    """A command with three events of a few hundred bytes each, all made from ``revision``."""
    rng = random.Random(revision)
    dice = tuple(rng.randint(1, 12) for _ in range(7))
    command = Command("strike", {"striker": f"fighter-{revision % 5}", "maneuver": None}, dice)
    events = tuple(
        Event(
            f"step-{index}",
            {
                "dice": [rng.randint(1, 12) for _ in range(40)],
                "text": rng.randbytes(100).hex(),
                "wear": {"E": rng.randint(0, 9), "R": rng.random(), "P": -index},
                "revision": revision,
            },
            f"M-{index + 1}",
        )
        for index in range(3)
    )
    return LogRecord(revision, RecordKind.COMMAND, revision - 1, command, events)


# -- the child -----------------------------------------------------------------------------


def child_main(url: str, encounter_id: int, limit: int) -> None:
    """Append the records after the stored revision, printing each revision once committed."""
    with Store.open(url) as store:
        done = store.encounter(encounter_id).revision
        for record in records_for(limit)[done:]:
            store.append(encounter_id, record)
            sys.stdout.write(f"{record.revision}\n")
            sys.stdout.flush()


# -- the parent ----------------------------------------------------------------------------


def run_and_kill(url: str, encounter_id: int) -> list[int]:
    """Start a child, let it commit ``KILL_AFTER`` records, SIGKILL it; the revisions it printed."""
    return crashing.run_and_kill([__file__, url, str(encounter_id), str(CHILD_LIMIT)], KILL_AFTER)


def check_log(url: str, encounter_id: int, reported: list[int]) -> int:
    """The log is whole and holds every reported revision; returns its length n."""
    with Store.open(url) as store:
        info, records = store.load(encounter_id)
        with store.engine.connect() as connection:
            stored = connection.execute(
                select(LogRecordRow.revision)
                .where(LogRecordRow.encounter_id == encounter_id)
                .order_by(LogRecordRow.revision)
            ).all()
    n = info.revision
    assert [row[0] for row in stored] == list(range(1, n + 1))
    assert [r.to_json() for r in records] == [r.to_json() for r in records_for(n)]
    assert n >= max(reported)
    return n


def test_a_writer_killed_mid_stream_leaves_a_whole_log(url: str) -> None:
    with Store.open(url) as store:
        encounter_id = store.create_encounter("Crash", "majesty", 20261101)
    previous = 0
    for _ in range(CRASHES):
        reported = run_and_kill(url, encounter_id)
        assert reported == list(range(previous + 1, reported[-1] + 1))
        previous = check_log(url, encounter_id, reported)
    assert previous >= CRASHES * KILL_AFTER


if __name__ == "__main__":
    child_main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
