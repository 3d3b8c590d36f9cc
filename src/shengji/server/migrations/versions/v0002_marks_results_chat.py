"""Stand-in marks on actions, finished tables' results, table chat.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add `actions.by`, `tables.result`, `tables.finished` and the `chat` table."""
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("by", sa.String(16), nullable=True))
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("result", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("finished", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "chat",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("n", sa.Integer(), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.String(400), nullable=False),
    )


def downgrade() -> None:
    """Drop what `upgrade` added."""
    op.drop_table("chat")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("finished")
        batch.drop_column("result")
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("by")
