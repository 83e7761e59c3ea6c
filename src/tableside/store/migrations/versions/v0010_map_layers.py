"""The map's layers (issue 24, W-65, W-66): ``map_layers``.

One row per encounter that has a background image or fog: the image's bytes and type, where it
lies and how many inches it spans, the Host's hidden areas, and a version that grows with each
change (the pages read the layers again when it moves).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``map_layers``."""
    op.create_table(
        "map_layers",
        sa.Column("encounter_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=True),
        sa.Column("image_type", sa.String(length=16), nullable=True),
        sa.Column("image_x", sa.Float(), nullable=True),
        sa.Column("image_y", sa.Float(), nullable=True),
        sa.Column("image_width", sa.Float(), nullable=True),
        sa.Column("image_height", sa.Float(), nullable=True),
        sa.Column("fog", sa.JSON(none_as_null=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["encounter_id"],
            ["encounters.id"],
            name=op.f("fk_map_layers_encounter_id_encounters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("encounter_id", name=op.f("pk_map_layers")),
    )


def downgrade() -> None:
    """Drop ``map_layers``."""
    op.drop_table("map_layers")
