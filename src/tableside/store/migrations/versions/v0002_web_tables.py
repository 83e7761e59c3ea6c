"""The web table: tables (Host token hashed), their encounters, player seats, hidden commands.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the web table's four tables."""
    op.create_table(
        "game_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("host_token_hash", sa.String(length=64), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_tables")),
        sa.UniqueConstraint("host_token_hash", name=op.f("uq_game_tables_host_token_hash")),
    )
    op.create_table(
        "hidden_commands",
        sa.Column("encounter_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.ForeignKeyConstraint(
            ["encounter_id"],
            ["encounters.id"],
            name=op.f("fk_hidden_commands_encounter_id_encounters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("encounter_id", "seq", name=op.f("pk_hidden_commands")),
    )
    op.create_table(
        "seats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("characters", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name=op.f("fk_seats_table_id_game_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seats")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_seats_token_hash")),
    )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seats_table_id"), ["table_id"], unique=False)

    op.create_table(
        "table_encounters",
        sa.Column("encounter_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["encounter_id"],
            ["encounters.id"],
            name=op.f("fk_table_encounters_encounter_id_encounters"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name=op.f("fk_table_encounters_table_id_game_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("encounter_id", name=op.f("pk_table_encounters")),
    )
    with op.batch_alter_table("table_encounters", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_table_encounters_table_id"), ["table_id"], unique=False
        )


def downgrade() -> None:
    """Drop the web table's four tables."""
    with op.batch_alter_table("table_encounters", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_table_encounters_table_id"))

    op.drop_table("table_encounters")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seats_table_id"))

    op.drop_table("seats")
    op.drop_table("hidden_commands")
    op.drop_table("game_tables")
