"""Decisions (D-1): a log record's ``data`` (a request's decisions or an answer's choice).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``log_records.data``."""
    with op.batch_alter_table("log_records", schema=None) as batch_op:
        batch_op.add_column(sa.Column("data", sa.JSON(none_as_null=True), nullable=True))


def downgrade() -> None:
    """Drop ``log_records.data``."""
    with op.batch_alter_table("log_records", schema=None) as batch_op:
        batch_op.drop_column("data")
