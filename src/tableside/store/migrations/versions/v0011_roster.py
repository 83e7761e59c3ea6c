"""The table's roster (issue 25): characters that live beyond one fight.

``roster_characters`` keeps each table's characters (either game's sheet with its current values,
its owner seat or the Host, a player's edit waiting for the Host, and the last carry-over);
``encounter_combatants`` says which roster character a combatant was made from, or that it is
the Host's (a combatant loaded from a file), so that a seat plays it by binding and not by a
name (CH-1, CH-2); ``game_tables.trust_players`` lets players' edits apply without approval
(CH-14). Existing encounters have no binding rows and keep their seats' names (CH-2).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the roster's two tables and the table's trust setting."""
    op.create_table(
        "roster_characters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("sheet", sa.JSON(), nullable=False),
        sa.Column("owner_seat_id", sa.Integer(), nullable=True),
        sa.Column("pending", sa.JSON(), nullable=True),
        sa.Column("carried", sa.JSON(), nullable=True),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["owner_seat_id"],
            ["seats.id"],
            name=op.f("fk_roster_characters_owner_seat_id_seats"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name=op.f("fk_roster_characters_table_id_game_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_roster_characters")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("roster_characters", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_roster_characters_table_id"), ["table_id"], unique=False
        )
    op.create_table(
        "encounter_combatants",
        sa.Column("encounter_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("combatant", sa.String(length=40), nullable=False),
        sa.Column("character_id", sa.Integer(), nullable=True),
        sa.Column("carried", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["roster_characters.id"],
            name=op.f("fk_encounter_combatants_character_id_roster_characters"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["encounter_id"],
            ["encounters.id"],
            name=op.f("fk_encounter_combatants_encounter_id_encounters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("encounter_id", "combatant", name=op.f("pk_encounter_combatants")),
    )
    with op.batch_alter_table("encounter_combatants", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_encounter_combatants_character_id"), ["character_id"], unique=False
        )
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(
            sa.Column("trust_players", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    """Drop the roster (its characters and bindings) and the trust setting."""
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("trust_players")
    with op.batch_alter_table("encounter_combatants", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_encounter_combatants_character_id"))
    op.drop_table("encounter_combatants")
    with op.batch_alter_table("roster_characters", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_roster_characters_table_id"))
    op.drop_table("roster_characters")
