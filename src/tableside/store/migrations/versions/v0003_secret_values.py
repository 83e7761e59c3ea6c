"""Secret values: an encounter's NPC setting and the Host's choice per combatant.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``encounter_secrecy`` and ``secret_values``."""
    op.create_table(
        "encounter_secrecy",
        sa.Column("encounter_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("npcs_secret", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["encounter_id"],
            ["encounters.id"],
            name=op.f("fk_encounter_secrecy_encounter_id_encounters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("encounter_id", name=op.f("pk_encounter_secrecy")),
    )
    op.create_table(
        "secret_values",
        sa.Column("encounter_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("combatant", sa.String(length=40), nullable=False),
        sa.Column("secret", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["encounter_id"],
            ["encounters.id"],
            name=op.f("fk_secret_values_encounter_id_encounters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("encounter_id", "combatant", name=op.f("pk_secret_values")),
    )


def downgrade() -> None:
    """Drop both tables."""
    op.drop_table("secret_values")
    op.drop_table("encounter_secrecy")
