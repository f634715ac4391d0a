"""Fair play: players kept off the boards by an operator (and the audit of it), and the
finished games counted again under the boards' rules.

- A ranked game (random, winnable, daily) counts from its deal: one abandoned or
  deleted before a move is played and not won, and ends a streak.
- `moves` counts every card moved, autoplay's too. A game finished before this revision
  counted one move per change: the cards autoplay moved with a change that is still in
  its history are added (those of a change later undone are not kept anywhere, and
  stay uncounted).
- Every statistics row is counted again from the finished games, none of which is
  dropped. The boards (in Redis) are rebuilt from PostgreSQL under the new rules when
  first read: their keys changed with them (storage.boards).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)
# as records.record.RANKED, written out: a migration runs as it was written
RANKED = ("random", "winnable", "daily")


class _Figures:
    """As records.statistics.Figures (a plain class: alembic loads this file outside
    the module system, where a dataclass cannot read its annotations)."""

    def __init__(self) -> None:
        self.played = self.won = self.lost = self.resigned = self.abandoned = 0
        self.clean_wins = self.current_streak = self.best_streak = 0
        self.best_time_ms: int | None = None
        self.fewest_moves: int | None = None
        self.last_finished_at: datetime | None = None
        self.last_game_id = ""

    def add(
        self, game_id: str, finished: datetime, outcome: str, clean: bool, active: int, moves: int
    ) -> None:
        """As records.statistics.add, for a game that counts."""
        self.played += 1
        self.last_finished_at, self.last_game_id = finished, game_id
        if outcome != "won":
            self.lost += outcome in ("stuck", "proven-lost")
            self.resigned += outcome == "resigned"
            self.abandoned += outcome == "abandoned"
            self.current_streak = 0
            return
        self.won += 1
        self.clean_wins += clean
        self.current_streak += 1
        self.best_streak = max(self.best_streak, self.current_streak)
        self.best_time_ms = active if self.best_time_ms is None else min(self.best_time_ms, active)
        self.fewest_moves = moves if self.fewest_moves is None else min(self.fewest_moves, moves)


def _recount(bind: Any) -> None:
    rows = bind.execute(
        sa.text(
            "SELECT player_id, variant, category, id, finished_at, outcome, "
            "coalesce(clean, false), active_ms, moves FROM games "
            "WHERE finished_at IS NOT NULL AND outcome IS NOT NULL "
            "ORDER BY player_id, variant, category, finished_at, id"
        )
    )
    bind.execute(sa.text("DELETE FROM statistics"))
    insert = sa.text(
        "INSERT INTO statistics (player_id, variant, category, played, won, lost, resigned, "
        "abandoned, clean_wins, current_streak, best_streak, best_time_ms, fewest_moves, "
        "last_finished_at, last_game_id) VALUES (:player, :variant, :category, :played, :won, "
        ":lost, :resigned, :abandoned, :clean_wins, :current_streak, :best_streak, "
        ":best_time_ms, :fewest_moves, :last_finished_at, :last_game_id)"
    )
    key: tuple[str, str, str] | None = None
    figures = _Figures()

    def write() -> None:
        if key is not None and figures.played:
            player, variant, category = key
            bind.execute(
                insert,
                {"player": player, "variant": variant, "category": category, **vars(figures)},
            )

    for player, variant, category, game_id, finished, outcome, clean, active, moves in rows:
        if (player, variant, category) != key:
            write()
            key, figures = (player, variant, category), _Figures()
        if category not in RANKED and outcome == "abandoned" and moves == 0:
            continue  # practice left without a move: nothing was played
        figures.add(game_id, finished, outcome, bool(clean), active, moves)
    write()


def upgrade() -> None:
    # Players an operator keeps off every board and the days' rankings; their games
    # and statistics stay theirs.
    op.create_table(
        "board_exclusions",
        sa.Column(
            "player_id",
            sa.Text,
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("excluded_at", TIME, nullable=False, server_default=sa.func.now()),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("operator", sa.Text, nullable=False),
    )
    # Every change of the above: who, when, why. Kept when the player is deleted.
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("player_id", sa.Text, nullable=False),
        # 'exclude' | 'restore'
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("operator", sa.Text, nullable=False),
        sa.Column("at", TIME, nullable=False, server_default=sa.func.now()),
    )
    op.create_index("moderation_log_by_player", "moderation_log", ["player_id", "at"])
    bind = op.get_bind()
    bind.execute(
        sa.text(
            "UPDATE games SET moves = moves + coalesce((SELECT sum(cardinality("
            "string_to_array(step, ',')) - 1) FROM unnest(history) AS step "
            "WHERE step <> 'restart'), 0) "
            "WHERE finished_at IS NOT NULL AND autoplays > 0 AND history IS NOT NULL"
        )
    )
    _recount(bind)


def downgrade() -> None:
    op.drop_index("moderation_log_by_player", "moderation_log")
    op.drop_table("moderation_log")
    op.drop_table("board_exclusions")
