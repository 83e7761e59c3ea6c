"""Encounters with their append-only log records, and characters as JSON documents.

Revision ID: 0001
Revises:
Create Date: 2026-11-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the three tables."""
    op.create_table(
        "encounters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.CheckConstraint("revision >= 0", name=op.f("ck_encounters_revision_not_negative")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_encounters")),
    )
    op.create_table(
        "log_records",
        sa.Column("encounter_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("revision", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=True),
        sa.Column("command", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.CheckConstraint("revision >= 1", name=op.f("ck_log_records_revision_positive")),
        sa.ForeignKeyConstraint(
            ["encounter_id"],
            ["encounters.id"],
            name=op.f("fk_log_records_encounter_id_encounters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("encounter_id", "revision", name=op.f("pk_log_records")),
    )
    op.create_table(
        "characters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_characters")),
    )


def downgrade() -> None:
    """Drop the three tables."""
    op.drop_table("log_records")
    op.drop_table("characters")
    op.drop_table("encounters")
