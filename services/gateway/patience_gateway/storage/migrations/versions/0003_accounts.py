"""Accounts: outside identities, deleted players' tombstones, unique display names.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def name_key(name: str) -> str:
    """As `players.names.name_key`, written out here: a migration runs as it was written,
    whatever the code becomes."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def upgrade() -> None:
    # A deleted player's row stays as a tombstone (its id and when it was deleted,
    # nothing else) until every step of the deletion is done, then goes too: tokens are
    # refused from the moment it is marked, and a deletion cut short is finished from it.
    op.add_column("players", sa.Column("deleted_at", TIME))
    op.create_index(
        "players_being_deleted",
        "players",
        ["deleted_at"],
        postgresql_where=sa.text("deleted_at IS NOT NULL"),
    )
    # A display name's key: NFKC, case folded. Two players cannot hold names that
    # differ only in case or width.
    op.add_column("players", sa.Column("name_key", sa.Text))
    bind = op.get_bind()
    taken: set[str] = set()
    rows = bind.execute(
        sa.text(
            "SELECT id, display_name FROM players WHERE display_name IS NOT NULL "
            "ORDER BY created_at, id"
        )
    )
    for player_id, display_name in rows.fetchall():
        key = name_key(display_name)
        if key in taken:  # the older player keeps the name's key; this one its name alone
            continue
        taken.add(key)
        bind.execute(
            sa.text("UPDATE players SET name_key = :key WHERE id = :id"),
            {"key": key, "id": player_id},
        )
    op.create_index("players_by_name_key", "players", ["name_key"], unique=True)
    # Identities of outside issuers (OpenID Connect) linked to players: one player an
    # identity, found again by its issuer and subject.
    op.create_table(
        "identities",
        sa.Column("issuer", sa.Text, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column(
            "player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("linked_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("issuer", "subject"),
    )
    op.create_index("identities_by_player", "identities", ["player_id"])


def downgrade() -> None:
    op.drop_table("identities")
    op.drop_index("players_by_name_key", "players")
    op.drop_column("players", "name_key")
    op.drop_index("players_being_deleted", "players")
    op.drop_column("players", "deleted_at")
