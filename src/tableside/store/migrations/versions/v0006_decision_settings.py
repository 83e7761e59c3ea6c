"""Decision settings (D-4, D-5): an encounter's decision timeout, NPCs deciding, trust.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``encounter_settings``."""
    op.create_table(
        "encounter_settings",
        sa.Column("encounter_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("decision_timeout", sa.Integer(), nullable=True),
        sa.Column("npcs_decide", sa.String(length=16), nullable=False),
        sa.Column("trust_modifiers", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["encounter_id"],
            ["encounters.id"],
            name=op.f("fk_encounter_settings_encounter_id_encounters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("encounter_id", name=op.f("pk_encounter_settings")),
    )


def downgrade() -> None:
    """Drop ``encounter_settings``."""
    op.drop_table("encounter_settings")
