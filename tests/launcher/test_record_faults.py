"""Players' games finishing while `patience serve` is hurt: PostgreSQL frozen for a
while, then each process killed with SIGKILL in turn (Redis, an engine worker, the
engine, a gateway worker, the gateway, PostgreSQL). Afterwards every game a client saw
finish is in PostgreSQL exactly once, no other game is, and the statistics count each
once.

Redis runs with `--appendfsync always` (as in test_faults): what it acknowledged is on
disk, so the claim is exact.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.launcher.launcher_run import LauncherRun, faults, swept_run

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

WINS_FILE = Path(__file__).resolve().parents[1] / "rules" / "golden" / "wins.json"
PLAYERS = 3
FINISHED_BETWEEN_FAULTS = 3  # games the clients saw end between two faults
FROZEN_SECONDS = 5.0
RETRY_PAUSE_SECONDS = 0.05


def bisley_win() -> tuple[int, list[str]]:
    win = json.loads(WINS_FILE.read_text())["bisley"]
    return int(win["deal"]), list(win["moves"])


@dataclass
class Seen:
    """What the clients saw, shared between their threads."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    # player id -> {game id: the outcome its answer showed}
    finished: dict[str, dict[str, str]] = field(default_factory=dict)
    sessions: dict[str, str] = field(default_factory=dict)  # player id -> access token
    wrong: list[str] = field(default_factory=list)

    def count(self) -> int:
        with self.lock:
            return sum(len(games) for games in self.finished.values())


class Client(threading.Thread):
    """A player who deals a Bisley game, then plays its winning line, or resigns it half
    way (every other game), one game after another, retrying each request it got no
    answer for (a move with the same Idempotency-Key) until `stop` is set between two
    games."""

    def __init__(self, base: str, number: int, seen: Seen, stop: threading.Event) -> None:
        super().__init__(name=f"client-{number}", daemon=True)
        self.http = httpx.Client(base_url=base, timeout=15.0)
        self.number = number
        self.seen = seen
        self.stop = stop
        self.player = ""
        self.auth: dict[str, str] = {}

    def send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        while True:
            try:
                response = self.http.request(method, path, **kwargs)
            except httpx.TransportError:
                time.sleep(RETRY_PAUSE_SECONDS)
                continue
            if response.status_code == 503:
                if not response.headers.get("retry-after", "").isdigit():
                    self.note(f"503 without Retry-After: {response.text}")
                time.sleep(RETRY_PAUSE_SECONDS)
                continue
            if response.status_code >= 500:
                self.note(f"{method} {path}: {response.status_code} {response.text}")
            return response

    def note(self, wrong: str) -> None:
        with self.seen.lock:
            self.seen.wrong.append(wrong)

    def run(self) -> None:
        try:
            created = self.send("POST", "/v1/players", json={"display_name": f"p{self.number}"})
            body = created.json()
            self.player = body["player"]["id"]
            self.auth = {"Authorization": f"Bearer {body['access_token']}"}
            with self.seen.lock:
                self.seen.finished[self.player] = {}
                self.seen.sessions[self.player] = body["access_token"]
            round_ = 0
            while not self.stop.is_set():
                self.play_one(resign=round_ % 2 == 1)
                round_ += 1
        finally:
            self.http.close()

    def play_one(self, resign: bool) -> None:
        deal, moves = bisley_win()
        created = self.send(
            "POST",
            "/v1/games",
            json={"variant": "bisley", "deal": deal},
            headers={**self.auth, "Idempotency-Key": uuid.uuid4().hex},
        )
        if created.status_code != 201:
            self.note(f"create: {created.status_code} {created.text}")
            return
        game = created.json()["id"]
        line = moves[: len(moves) // 2] if resign else moves
        answer: dict[str, Any] = {}
        for move in line:
            response = self.send(
                "POST",
                f"/v1/games/{game}/moves",
                json={"move": move},
                headers={**self.auth, "Idempotency-Key": uuid.uuid4().hex},
            )
            if response.status_code != 200:
                self.note(f"move {move}: {response.status_code} {response.text}")
                return
            answer = response.json()
        if resign:
            response = self.send("POST", f"/v1/games/{game}/resign", headers=self.auth)
            if response.status_code == 409:  # a retry of a resignation that went through
                response = self.send("GET", f"/v1/games/{game}", headers=self.auth)
            answer = response.json()
        outcome = answer.get("record", {}).get("outcome")
        if outcome is None:
            self.note(f"game {game} did not end: {answer}")
            return
        with self.seen.lock:
            self.seen.finished[self.player][game] = outcome


# each in turn, a worker before its service where it has workers
KILLED = ("redis", "engine", "gateway", "postgres")


@pytest.fixture
def stack(tmp_path: Path, ports: tuple[int, int]) -> Iterator[LauncherRun]:
    with swept_run(tmp_path, ports, engine_workers=2, gateway_workers=2) as run:
        yield run


def test_every_finished_game_is_recorded_once_through_faults(stack: LauncherRun) -> None:
    base = stack.banner_value("REST API").removesuffix("/v1")
    seen = Seen()
    stop = threading.Event()
    clients = [Client(base, number, seen, stop) for number in range(PLAYERS)]
    for client in clients:
        client.start()

    def progress() -> None:
        target = seen.count() + FINISHED_BETWEEN_FAULTS
        stack.wait_until(lambda: seen.count() >= target or not any(c.is_alive() for c in clients))

    try:
        progress()
        postgres = stack.service("postgres")
        assert postgres is not None, stack.output()
        os.kill(postgres.pid, signal.SIGSTOP)  # frozen: connections hang, then time out
        try:
            progress()  # games go on ending meanwhile
            time.sleep(FROZEN_SECONDS)
        finally:
            os.kill(postgres.pid, signal.SIGCONT)
        for name, find in faults(stack, KILLED):
            progress()
            proc = find()
            assert proc is not None, f"no {name} process\n{stack.output()}"
            os.kill(proc.pid, signal.SIGKILL)
        progress()
    finally:
        stop.set()
        for client in clients:
            client.join(timeout=120)
    assert not any(client.is_alive() for client in clients)
    assert seen.wrong == [], seen.wrong
    assert seen.count() >= FINISHED_BETWEEN_FAULTS * (len(faults(stack, KILLED)) + 2)

    with httpx.Client(base_url=base, timeout=15.0) as http:

        def recorded(player: str) -> dict[str, str]:
            auth = {"Authorization": f"Bearer {seen.sessions[player]}"}
            found: dict[str, str] = {}
            query = "?state=finished&limit=100"
            while True:
                try:
                    page = http.get(f"/v1/players/me/games{query}", headers=auth)
                except httpx.TransportError:  # a connection of before the last fault
                    return {}
                if page.status_code != 200:
                    return {}
                data = page.json()
                for game in data["games"]:
                    assert game["id"] not in found, "a game listed twice"
                    found[game["id"]] = game["record"]["outcome"]
                if data["next"] is None:
                    return found
                query = "?" + data["next"].split("?", 1)[1]

        def all_recorded() -> bool:
            return all(recorded(p) == games for p, games in seen.finished.items())

        stack.wait_until(all_recorded, timeout=120)
        for player, games in seen.finished.items():
            auth = {"Authorization": f"Bearer {seen.sessions[player]}"}
            figures = http.get("/v1/players/me/stats", headers=auth).json()["statistics"]
            practice = next(f for f in figures if f["category"] == "practice")
            outcomes = list(games.values())
            assert practice["played"] == len(outcomes)
            assert practice["won"] == outcomes.count("won")
            assert practice["resigned"] == outcomes.count("resigned")
    assert stack.process.poll() is None, stack.output()
    assert stack.interrupt() == 0, stack.output()
