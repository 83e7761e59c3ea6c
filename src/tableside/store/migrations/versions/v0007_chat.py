"""The fight's chat and free rolls (W-30 … W-33): ``chat_messages``.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``chat_messages``."""
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("encounter_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("by_host", sa.Boolean(), nullable=False),
        sa.Column("author", sa.String(length=200), nullable=False),
        sa.Column("author_seat_id", sa.Integer(), nullable=True),
        sa.Column("whisper_seat_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("text", sa.String(length=500), nullable=False),
        sa.Column("data", sa.JSON(none_as_null=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["encounter_id"],
            ["encounters.id"],
            name=op.f("fk_chat_messages_encounter_id_encounters"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["author_seat_id"],
            ["seats.id"],
            name=op.f("fk_chat_messages_author_seat_id_seats"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["whisper_seat_id"],
            ["seats.id"],
            name=op.f("fk_chat_messages_whisper_seat_id_seats"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_messages")),
    )
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_chat_messages_encounter_id"), ["encounter_id"], unique=False
        )


def downgrade() -> None:
    """Drop ``chat_messages``."""
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chat_messages_encounter_id"))
    op.drop_table("chat_messages")
