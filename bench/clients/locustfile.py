"""A realistic mix of what players do, for Locust (run by bench/clients/locust_runner.py).

Each simulated player keeps one game at a time: creates it, looks at it, lists the
legal moves, plays one of them (with If-Match, the ETag it last saw), sometimes takes
a move back, and starts a new game when the current one is over or when it feels
like it. Variants are drawn from the nine the rules library knows.
"""

from __future__ import annotations

import random
from typing import Any

import patience
from locust import FastHttpUser, between, task

from bench.clients.gateway_api import GAMES, legal_moves_of, new_game_body

VARIANTS = list(patience.VARIANTS)


class Player(FastHttpUser):
    # a person thinks between moves; a short pause keeps the mix realistic while still
    # loading the server with 20 players on one machine
    wait_time = between(0.0, 0.05)

    game_id: str = ""
    token: str = ""
    etag: str = ""
    moves: list[str]

    def _headers(self, *, if_match: bool = False) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.token}"}
        if if_match:
            headers["If-Match"] = self.etag
        return headers

    def on_start(self) -> None:
        self.moves = []
        self.new_game()

    def _read(self, r: Any, what: str, expected: int) -> dict[str, Any] | None:
        """The answer's JSON when it has the expected status; otherwise (or when it
        cannot be read) the request is marked failed and None is returned."""
        if r.status_code != expected:
            r.failure(f"{what}: {r.status_code} {(r.text or '')[:200]}")
            return None
        try:
            data: dict[str, Any] = r.json()
        except ValueError as exc:
            r.failure(f"{what}: unreadable answer: {exc}")
            return None
        return data

    def _remember(self, r: Any, what: str, body: dict[str, Any]) -> None:
        """Keep the ETag and the legal moves of an answer about the current game."""
        try:
            self.moves = legal_moves_of(body)
        except (KeyError, TypeError) as exc:
            r.failure(f"{what}: unexpected answer: {exc!r}")
            self.moves = []
        self.etag = r.headers.get("etag") or self.etag

    @task(1)
    def new_game(self) -> None:
        body = new_game_body(random.choice(VARIANTS))
        with self.client.post(GAMES, json=body, name="create game", catch_response=True) as r:
            data = self._read(r, "create", 201)
            if data is None:
                return
            if "id" not in data or "token" not in data:
                r.failure(f"create: no id or token in {str(data)[:200]}")
                return
            self.game_id, self.token = data["id"], data["token"]
            self._remember(r, "create", data)

    def _play(self, method: str, path: str, name: str, **kwargs: Any) -> None:
        """A request about the current game, whose answer is remembered."""
        with self.client.request(method, path, name=name, catch_response=True, **kwargs) as r:
            if r.status_code == 409 and '"nothing-to-undo"' in (r.text or ""):
                r.success()  # an undo at the deal: a correct answer, not a failure
                return
            data = self._read(r, name, 200)
            if data is not None:
                self._remember(r, name, data)

    @task(3)
    def view(self) -> None:
        self._play("GET", f"{GAMES}/{self.game_id}", "view game", headers=self._headers())

    @task(3)
    def list_moves(self) -> None:
        path = f"{GAMES}/{self.game_id}/legal-moves"
        self._play("GET", path, "legal moves", headers=self._headers())

    @task(6)
    def move(self) -> None:
        if not self.moves:
            self.new_game()  # the game is over (won or stuck): deal another
            return
        body = {"move": random.choice(self.moves)}
        path = f"{GAMES}/{self.game_id}/moves"
        self._play("POST", path, "move", json=body, headers=self._headers(if_match=True))

    @task(1)
    def undo(self) -> None:
        path = f"{GAMES}/{self.game_id}/undo"
        self._play("POST", path, "undo", headers=self._headers(if_match=True))
