"""Migrations of several databases at once in one process (the tests run many apps in
one process; a gateway process runs one app): each database reaches the newest revision.

Alembic keeps the running migration's context in module globals, so two runs at once in
one process would take it from each other mid-run (storage/schema.py)."""

from __future__ import annotations

import threading

import psycopg
from alembic.script import ScriptDirectory
from patience_gateway.storage import schema

from tests.conftest import new_database


def revision_of(url: str) -> str | None:
    with psycopg.connect(url) as connection:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    return None if row is None else str(row[0])


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
    head = ScriptDirectory.from_config(schema.alembic_config(urls[0])).get_current_head()
    assert [revision_of(url) for url in urls] == [head] * len(urls)
