"""Daily deals, their first attempts, and challenges between players.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    # One deal per variant and UTC day, proven winnable, prepared ahead. Its number is
    # published once the day is over; until then only the gateway reads it.
    op.create_table(
        "daily_deals",
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("variant", sa.Text, nullable=False),
        sa.Column("deal", sa.Text, nullable=False),
        # the state as dealt, sealed by the engine, the number hidden in its views
        sa.Column("dealt", sa.LargeBinary, nullable=False),
        sa.Column("prepared_at", TIME, nullable=False, server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("day", "variant"),
    )
    # A player's first attempt at a day's deal: the one that counts on its board.
    op.create_table(
        "daily_attempts",
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("variant", sa.Text, nullable=False),
        sa.Column(
            "player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("game_id", sa.Text, nullable=False),
        sa.Column("started_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("day", "variant", "player_id"),
    )
    op.add_column("games", sa.Column("daily", sa.Date))
    op.create_index("games_by_daily", "games", ["daily", "variant"])
    # A challenge: one player's deal dealt again to another, who takes it with a code.
    op.create_table(
        "challenges",
        sa.Column("code_hash", sa.LargeBinary, primary_key=True),
        sa.Column("game_id", sa.Text, nullable=False),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("variant", sa.Text, nullable=False),
        sa.Column("dealt", sa.LargeBinary, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.Column("taken_by", sa.Text, sa.ForeignKey("players.id")),
        sa.Column("taken_game_id", sa.Text),
        sa.Column("taken_at", TIME),
    )
    op.create_index("challenges_by_game", "challenges", ["game_id"])


def downgrade() -> None:
    op.drop_table("challenges")
    op.drop_index("games_by_daily", "games")
    op.drop_column("games", "daily")
    op.drop_table("daily_attempts")
    op.drop_table("daily_deals")
