"""Players driving a running `patience serve` over REST, as a real client would: each
keeps its own game, retries a move it got no answer for with the same Idempotency-Key,
and writes down every move the service acknowledged and every answer it saw."""

from __future__ import annotations

import collections
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

VARIANTS = ("bisley", "la-belle-lucie", "napoleon-at-st-helena", "house-on-the-hill", "usk")
# Each wait after a 503 or a connection error: short, so the test sees the service come
# back quickly (a real client would honour Retry-After; the test checks it is there).
RETRY_PAUSE_SECONDS = 0.05


@dataclass(frozen=True)
class Acknowledged:
    """A move the service answered 200 to: `version` is the game's version after it."""

    game: str
    version: int
    notation: str


@dataclass
class Game:
    id: str
    token: str
    version: int
    legal_moves: list[str]

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass
class Outcomes:
    """What the players saw, shared between their threads."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    acknowledged: list[Acknowledged] = field(default_factory=list)
    games: dict[str, Game] = field(default_factory=dict)
    # What is being done to the service now ("redis killed", ...): answers are counted
    # per phase.
    phase: str = "start"
    # (phase, answer): how many times; answers are "200", "503 storage-unavailable",
    # "connection error (ConnectError)", ...
    answers: collections.Counter[tuple[str, str]] = field(default_factory=collections.Counter)
    # answers that break the promise (another 5xx, a 503 without Retry-After, ...)
    wrong: list[str] = field(default_factory=list)

    def saw(self, answer: str, wrong: str | None = None) -> None:
        with self.lock:
            self.answers[self.phase, answer] += 1
            if wrong is not None:
                self.wrong.append(wrong)

    def enter(self, phase: str) -> None:
        with self.lock:
            self.phase = phase

    def table(self) -> str:
        """The answers per phase, one line each."""
        with self.lock:
            lines = [
                f"{phase}: {answer} x{count}" for (phase, answer), count in self.answers.items()
            ]
        return "\n".join(lines)

    def acked(self) -> int:
        with self.lock:
            return len(self.acknowledged)


class Player(threading.Thread):
    """Plays random legal moves on one game after another until `stop` is set."""

    def __init__(self, base_url: str, seed: int, outcomes: Outcomes, stop: threading.Event):
        super().__init__(name=f"player-{seed}", daemon=True)
        self.http = httpx.Client(base_url=base_url, timeout=10.0)
        self.random = random.Random(seed)
        self.outcomes = outcomes
        self.stop = stop

    def run(self) -> None:
        try:
            game: Game | None = None
            while not self.stop.is_set():
                if game is None or not game.legal_moves:
                    game = self.new_game()
                else:
                    self.move(game, self.random.choice(game.legal_moves))
        finally:
            self.http.close()

    def send(self, method: str, path: str, **kwargs: Any) -> httpx.Response | None:
        """One request until it gets an answer that is not "unavailable" (None once
        `stop` is set); records every answer."""
        while not self.stop.is_set():
            try:
                response = self.http.request(method, path, **kwargs)
            except httpx.TransportError as error:
                self.outcomes.saw(f"connection error ({type(error).__name__})")
                time.sleep(RETRY_PAUSE_SECONDS)
                continue
            status = response.status_code
            if status == 503:
                code = response.json().get("code", "?")
                retry_after = response.headers.get("retry-after", "")
                bad = None if retry_after.isdigit() else f"503 without Retry-After: {response.text}"
                self.outcomes.saw(f"503 {code}", bad)
                time.sleep(RETRY_PAUSE_SECONDS)
                continue
            if status >= 500:
                self.outcomes.saw(str(status), f"{method} {path}: {status} {response.text}")
            else:
                self.outcomes.saw(str(status))
            return response
        return None

    def new_game(self) -> Game | None:
        body = {"variant": self.random.choice(VARIANTS), "deal": self.random.randrange(1, 10**6)}
        response = self.send("POST", "/v1/games", json=body)
        if response is None:
            return None
        if response.status_code != 201:
            self.outcomes.saw("unexpected", f"create: {response.status_code} {response.text}")
            return None
        data = response.json()
        game = Game(data["id"], data["token"], data["version"], data["legal_moves"])
        with self.outcomes.lock:
            self.outcomes.games[game.id] = game
        return game

    def move(self, game: Game, notation: str) -> None:
        headers = {
            **game.auth(),
            "If-Match": f'"{game.version}"',
            "Idempotency-Key": uuid.uuid4().hex,  # the same for every retry of this move
        }
        response = self.send(
            "POST", f"/v1/games/{game.id}/moves", json={"move": notation}, headers=headers
        )
        if response is None:
            return
        if response.status_code != 200:
            self.outcomes.saw("unexpected", f"move: {response.status_code} {response.text}")
            game.legal_moves = []  # give this game up, start another
            return
        data = response.json()
        with self.outcomes.lock:
            self.outcomes.acknowledged.append(
                Acknowledged(game.id, data["version"], data["move"]["notation"])
            )
        game.version, game.legal_moves = data["version"], data["legal_moves"]
        if data["status"] != "playing":
            game.legal_moves = []


def lost_moves(base_url: str, outcomes: Outcomes) -> list[Acknowledged]:
    """The acknowledged moves that the service's histories no longer hold."""
    histories: dict[str, list[str]] = {}
    with httpx.Client(base_url=base_url, timeout=10.0) as http:
        for game_id, game in outcomes.games.items():
            response = http.get(f"/v1/games/{game_id}/history", headers=game.auth())
            assert response.status_code == 200, response.text
            histories[game_id] = response.json()["moves"]
    lost = []
    for ack in outcomes.acknowledged:
        moves = histories[ack.game]
        index = ack.version - 2  # version 1 is the deal; the n-th move makes version n + 1
        if index >= len(moves) or moves[index] != ack.notation:
            lost.append(ack)
    return lost
