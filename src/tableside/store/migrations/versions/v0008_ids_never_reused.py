"""Ids never reused (W-50): SQLite's AUTOINCREMENT on every table whose rows have an id.

Without it SQLite gives a new row the largest id plus one, so the id of the last seat removed
went to the next seat added, and old records' ``by: seat:N`` then named the new seat. On SQLite
each table is rebuilt with ``AUTOINCREMENT`` (its rows, ids, keys and indexes kept; the
migration runs with foreign keys off and checks them before it commits, see
``tableside.store.migrate``). PostgreSQL's sequences never give an id twice: nothing changes
there.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("game_tables", "encounters", "characters", "seats", "web_sessions", "chat_messages")


def _rebuild(autoincrement: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for name in TABLES:
        with op.batch_alter_table(
            name, recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}
        ):
            pass


NAMED_SEAT = re.compile(r"seat:([0-9]{1,10})")


def _seats_named_in_records() -> None:
    """Start the seats' ids past every seat a record names (``by: seat:N``), removed or not."""
    bind = op.get_bind()
    rows = bind.execute(
        sa.text(
            "SELECT command, events, data FROM log_records WHERE command LIKE '%seat:%' "
            "OR events LIKE '%seat:%' OR data LIKE '%seat:%'"
        )
    )
    named = [int(n) for row in rows for part in row if part for n in NAMED_SEAT.findall(part)]
    highest = max(
        [*named, bind.execute(sa.text("SELECT coalesce(max(id), 0) FROM seats")).scalar_one()]
    )
    bind.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = 'seats'"))
    bind.execute(
        sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES ('seats', :n)"), {"n": highest}
    )


def upgrade() -> None:
    """Rebuild the SQLite tables with AUTOINCREMENT; seats' ids start past any record names."""
    _rebuild(True)
    if op.get_bind().dialect.name == "sqlite":
        _seats_named_in_records()


def downgrade() -> None:
    """Rebuild them without (ids may then be reused again)."""
    _rebuild(False)
