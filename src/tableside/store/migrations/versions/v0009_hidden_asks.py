"""Who decides a hidden command's player choices (issue 21): ``hidden_asks``.

``player`` (the default, and every existing encounter's value) asks the character's player;
``host`` has the Host decide them, and both screens say so.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``encounter_settings.hidden_asks`` (existing rows: ``player``)."""
    with op.batch_alter_table("encounter_settings") as batch:
        batch.add_column(
            sa.Column("hidden_asks", sa.String(length=16), nullable=False, server_default="player")
        )


def downgrade() -> None:
    """Drop ``encounter_settings.hidden_asks``."""
    with op.batch_alter_table("encounter_settings") as batch:
        batch.drop_column("hidden_asks")
