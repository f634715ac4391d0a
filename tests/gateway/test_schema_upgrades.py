"""The schema's upgrades: migrations of several databases at once in one process (the
tests run many apps in one process; a gateway process runs one app) each reach the
newest revision; a gateway finds a database already there without Alembic, and migrates
one that is not.

Alembic keeps the running migration's context in module globals, so two runs at once in
one process would take it from each other mid-run (storage/schema.py)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import psycopg
import pytest
from alembic.script import ScriptDirectory
from patience_gateway.storage import schema

from tests.conftest import new_database


def revision_of(url: str) -> str | None:
    """Read here, not through `schema.revision_of`: the tests' own reading of the table."""
    with psycopg.connect(url) as connection:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    return None if row is None else str(row[0])


def newest_in_migrations(url: str) -> str | None:
    return ScriptDirectory.from_config(schema.alembic_config(url)).get_current_head()


def test_the_newest_revision_named_is_the_newest_migration(database_url: str) -> None:
    assert newest_in_migrations(database_url) == schema.NEWEST_REVISION


# A gateway process's first use of its database, as `patience serve` starts it: which of
# Alembic and SQLAlchemy it imported by the end.
FIRST_USE = """
import asyncio, sys
import patience_gateway.app
from patience_gateway.storage.schema import SchemaReady
asyncio.run(SchemaReady(sys.argv[1])())
print(sorted({name.partition(".")[0] for name in sys.modules} & {"alembic", "sqlalchemy"}))
"""


def first_use(url: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", FIRST_USE, url], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_gateway_finds_a_migrated_database_without_alembic(database_url: str) -> None:
    url = new_database(database_url)
    schema.upgrade(url)
    assert first_use(url) == "[]"
    assert revision_of(url) == schema.NEWEST_REVISION


@pytest.mark.parametrize("first", [None, "0001"], ids=["new", "behind"])
def test_a_database_new_or_behind_is_brought_to_the_newest_revision(
    database_url: str, first: str | None
) -> None:
    url = new_database(database_url)
    if first is not None:
        schema.upgrade(url, first)
    asyncio.run(schema.SchemaReady(url)())
    assert revision_of(url) == schema.NEWEST_REVISION


def test_databases_migrated_at_once_in_one_process_each_reach_the_newest_revision(
    database_url: str,
) -> None:
    urls = [new_database(database_url) for _ in range(3)]
    start = threading.Barrier(len(urls))
    failures: list[BaseException] = []

    def migrate(url: str) -> None:
        start.wait()
        try:
            schema.upgrade(url)
        except BaseException as failure:  # the test's verdict, not a crash of the thread
            failures.append(failure)

    threads = [threading.Thread(target=migrate, args=(url,)) for url in urls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures, failures
    head = newest_in_migrations(urls[0])
    assert [revision_of(url) for url in urls] == [head] * len(urls)
