"""Alembic's environment: the database comes from the caller (`schema.upgrade`), never
from a file, and every run holds a PostgreSQL advisory lock, so that gateway processes
starting together migrate one at a time (the second finds the schema at head)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, text

# Any number of this project's own: the lock that serialises migrations.
MIGRATION_LOCK = 7_318_006_541

url = context.config.attributes["url"]
engine = create_engine(url, future=True)
with engine.connect() as connection:
    connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
    try:
        context.configure(connection=connection, target_metadata=None)
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()
    finally:
        connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
        connection.commit()
engine.dispose()
