"""Players deleting their accounts while `patience serve` is hurt: each process that a
deletion goes through killed with SIGKILL in turn (Redis, a gateway worker, the
gateway, PostgreSQL) while deletions are in flight, at whatever point of them the
signal lands. Each player sends its DELETE again until it is answered 204. Afterwards
nothing of any deleted player is left in PostgreSQL or Redis (every table and every key
searched, tests/gateway/accounts.py) but the mark docs/api.md names, and every token of
theirs is refused.

Redis runs with `--appendfsync always` (as in test_record_faults): what it acknowledged
is on disk.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from tests.gateway.accounts import postgres_leftovers, redis_leftovers
from tests.launcher.launcher_run import LauncherRun, faults, swept_run

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

WINS_FILE = Path(__file__).resolve().parents[1] / "rules" / "golden" / "wins.json"
PLAYERS_PER_FAULT = 3
RETRY_PAUSE_SECONDS = 0.05
SEED = 20261129


@dataclass
class Account:
    player_id: str
    access: str
    refresh: str
    games: list[str] = field(default_factory=list)

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access}"}


def send(http: httpx.Client, method: str, path: str, **kwargs: Any) -> httpx.Response:
    """The request, sent again while there is no answer or a 503 (a service restarting)."""
    while True:
        try:
            response = http.request(method, path, **kwargs)
        except httpx.TransportError:
            time.sleep(RETRY_PAUSE_SECONDS)
            continue
        if response.status_code == 503:
            assert response.headers.get("retry-after", "").isdigit(), response.text
            time.sleep(RETRY_PAUSE_SECONDS)
            continue
        return response


def an_account(http: httpx.Client, number: int) -> Account:
    """A named player with a won game, a game in play and a live link code."""
    made = send(http, "POST", "/v1/players", json={"display_name": f"leaving {number}"})
    assert made.status_code == 201, made.text
    body = made.json()
    account = Account(body["player"]["id"], body["access_token"], body["refresh_token"])
    win = json.loads(WINS_FILE.read_text())["bisley"]
    won = send(
        http, "POST", "/v1/games", json={"variant": "bisley", "deal": int(win["deal"])},
        headers=account.auth(),
    )  # fmt: skip
    assert won.status_code == 201, won.text
    for move in win["moves"]:
        moved = send(
            http, "POST", f"/v1/games/{won.json()['id']}/moves", json={"move": move},
            headers=account.auth(),
        )  # fmt: skip
        assert moved.status_code == 200, moved.text
    playing = send(
        http, "POST", "/v1/games", json={"variant": "usk", "deal": number}, headers=account.auth()
    )
    assert playing.status_code == 201, playing.text
    code = send(http, "POST", "/v1/players/me/link-codes", headers=account.auth())
    assert code.status_code == 201, code.text
    account.games = [won.json()["id"], playing.json()["id"]]
    return account


class Deleter(threading.Thread):
    """Sends the player's DELETE until it is answered 204."""

    def __init__(self, base: str, account: Account) -> None:
        super().__init__(daemon=True)
        self.base = base
        self.account = account
        self.answers: list[int] = []

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=15.0) as http:
            while True:
                answer = send(http, "DELETE", "/v1/players/me", headers=self.account.auth())
                self.answers.append(answer.status_code)
                if answer.status_code == 204:
                    return


# each in turn, a worker before its service where it has workers
KILLED = ("redis", "gateway", "postgres")


@pytest.fixture
def stack(tmp_path: Path, ports: tuple[int, int]) -> Iterator[LauncherRun]:
    with swept_run(tmp_path, ports, gateway_workers=2) as run:
        yield run


async def leftovers(database_url: str, redis_url: str, accounts: list[Account]) -> list[str]:
    client = aioredis.from_url(redis_url)
    try:
        found: list[str] = []
        for account in accounts:
            needles = [account.player_id, *account.games]
            found += await postgres_leftovers(database_url, needles)
            found += await redis_leftovers(client, account.player_id, needles)
        return found
    finally:
        await client.aclose()


def test_deletions_hit_by_kill_9_leave_nothing_behind(stack: LauncherRun) -> None:
    base = stack.banner_value("REST API").removesuffix("/v1")
    chooser = random.Random(SEED)
    deleted: list[Account] = []
    with httpx.Client(base_url=base, timeout=15.0) as http:
        number = 0
        for name, find in faults(stack, KILLED):
            accounts = []
            for _ in range(PLAYERS_PER_FAULT):
                number += 1
                accounts.append(an_account(http, number))
            deleters = [Deleter(base, account) for account in accounts]
            for deleter in deleters:
                deleter.start()
            time.sleep(chooser.uniform(0.0, 0.05))  # somewhere in the deletions
            proc = find()
            assert proc is not None, f"no {name} process\n{stack.output()}"
            os.kill(proc.pid, signal.SIGKILL)
            for deleter in deleters:
                deleter.join(timeout=120)
                assert not deleter.is_alive(), f"a deletion hung after the {name} was killed"
                # no answer but 503 (sent again) before the 204: never a 500
                assert deleter.answers == [204], deleter.answers
            deleted += accounts

        environment = stack.environment("gateway")
        database_url, redis_url = environment["DATABASE_URL"], environment["REDIS_URL"]
        left: list[str] = []

        def nothing_left() -> bool:
            left[:] = asyncio.run(leftovers(database_url, redis_url, deleted))
            return not left

        # the drain applies no entry of a deleted player's games: it deletes them
        stack.wait_until(nothing_left, timeout=120)
        assert left == []
        for account in deleted:
            me = send(http, "GET", "/v1/players/me", headers=account.auth())
            assert me.status_code == 401, me.text
            refreshed = send(
                http, "POST", "/v1/sessions/refresh", json={"refresh_token": account.refresh}
            )
            assert refreshed.status_code == 401, refreshed.text
    assert stack.process.poll() is None, stack.output()
    assert stack.interrupt() == 0, stack.output()
