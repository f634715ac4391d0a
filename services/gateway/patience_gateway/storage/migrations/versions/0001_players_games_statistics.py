"""Players, their refresh tokens, their games and statistics.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("display_name", sa.Text),
        sa.Column("created_at", TIME, nullable=False, server_default=sa.func.now()),
    )
    # A refresh token is kept only as its SHA-256. Tokens of one device form a family:
    # each refresh marks the token used and issues the next; a used token presented
    # again revokes the whole family (someone else holds a copy).
    op.create_table(
        "refresh_tokens",
        sa.Column("token_hash", sa.LargeBinary, primary_key=True),
        sa.Column("family_id", sa.Text, nullable=False),
        sa.Column(
            "player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("issued_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.Column("used_at", TIME),
        sa.Column("revoked_at", TIME),
        # the answer to this token's refresh, sealed under a key derived from the token
        # itself (which is not kept): a retry within moments gets the same answer
        sa.Column("answer", sa.LargeBinary),
    )
    op.create_index("refresh_tokens_family", "refresh_tokens", ["family_id"])
    # One row per game a player owns: written when it starts, completed when it ends
    # (through the outbox, records.outbox).
    op.create_table(
        "games",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("variant", sa.Text, nullable=False),
        sa.Column("options", postgresql.JSONB, nullable=False),
        # random | winnable | practice (docs/api.md, Statistics)
        sa.Column("category", sa.Text, nullable=False),
        # the deal number, when the player may know it (chosen, or shown at the end)
        sa.Column("deal", sa.Text),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("first_move_at", TIME),
        sa.Column("last_change_at", TIME, nullable=False),
        sa.Column("finished_at", TIME),
        sa.Column("outcome", sa.Text),
        sa.Column("clean", sa.Boolean),
        sa.Column("winnable", sa.Boolean, nullable=False),
        sa.Column("replayed", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("claimed", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("active_ms", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("moves", sa.Integer, nullable=False, server_default="0"),
        sa.Column("undos", sa.Integer, nullable=False, server_default="0"),
        sa.Column("redos", sa.Integer, nullable=False, server_default="0"),
        sa.Column("hints", sa.Integer, nullable=False, server_default="0"),
        sa.Column("autoplays", sa.Integer, nullable=False, server_default="0"),
        sa.Column("restarts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("redeals", sa.Integer, nullable=False, server_default="0"),
        sa.Column("deals", sa.Integer, nullable=False, server_default="0"),
        # the moves from the deal, in order, and the deal as the engine sealed it: with
        # the engine's key, any finished game replays move by move
        sa.Column("history", postgresql.ARRAY(sa.Text)),
        sa.Column("deal_state", sa.LargeBinary),
        # in play: when the abandonment check looks at the game again
        sa.Column("check_after", TIME),
    )
    op.create_index("games_by_player", "games", ["player_id", sa.text("created_at DESC"), "id"])
    op.create_index(
        "games_to_check",
        "games",
        ["check_after"],
        postgresql_where=sa.text("finished_at IS NULL"),
    )
    op.create_table(
        "statistics",
        sa.Column(
            "player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("variant", sa.Text, nullable=False),
        sa.Column("category", sa.Text, nullable=False),
        sa.Column("played", sa.Integer, nullable=False),
        sa.Column("won", sa.Integer, nullable=False),
        sa.Column("lost", sa.Integer, nullable=False),
        sa.Column("resigned", sa.Integer, nullable=False),
        sa.Column("abandoned", sa.Integer, nullable=False),
        sa.Column("clean_wins", sa.Integer, nullable=False),
        sa.Column("current_streak", sa.Integer, nullable=False),
        sa.Column("best_streak", sa.Integer, nullable=False),
        sa.Column("best_time_ms", sa.BigInteger),
        sa.Column("fewest_moves", sa.Integer),
        sa.Column("last_finished_at", TIME),
        sa.Column("last_game_id", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "variant", "category"),
    )


def downgrade() -> None:
    op.drop_table("statistics")
    op.drop_table("games")
    op.drop_table("refresh_tokens")
    op.drop_table("players")
