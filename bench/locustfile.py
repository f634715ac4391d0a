"""A realistic mix of what players do, for Locust (run through `python -m bench.load`).

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

from bench.gateway_api import GAMES, legal_moves_of, new_game_body

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

    def _remember(self, response: Any, body: dict[str, Any] | None) -> None:
        self.etag = response.headers.get("etag") or self.etag
        if body is not None:
            self.moves = legal_moves_of(body)

    @task(1)
    def new_game(self) -> None:
        body = new_game_body(random.choice(VARIANTS))
        with self.client.post(GAMES, json=body, name="create game", catch_response=True) as r:
            if r.status_code != 201:
                r.failure(f"create: {r.status_code} {(r.text or '')[:200]}")
                return
            data = r.json()
            self.game_id, self.token = data["id"], data["token"]
            self._remember(r, data)

    @task(3)
    def view(self) -> None:
        path = f"{GAMES}/{self.game_id}"
        with self.client.get(
            path, headers=self._headers(), name="view game", catch_response=True
        ) as r:
            if r.status_code != 200:
                r.failure(f"view: {r.status_code} {(r.text or '')[:200]}")
                return
            self._remember(r, r.json())

    @task(3)
    def list_moves(self) -> None:
        path = f"{GAMES}/{self.game_id}/legal-moves"
        with self.client.get(
            path, headers=self._headers(), name="legal moves", catch_response=True
        ) as r:
            if r.status_code != 200:
                r.failure(f"legal moves: {r.status_code} {(r.text or '')[:200]}")
                return
            self.moves = legal_moves_of(r.json())

    @task(6)
    def move(self) -> None:
        if not self.moves:
            self.new_game()  # the game is over (won or stuck): deal another
            return
        body = {"move": random.choice(self.moves)}
        path = f"{GAMES}/{self.game_id}/moves"
        headers = self._headers(if_match=True)
        with self.client.post(
            path, json=body, headers=headers, name="move", catch_response=True
        ) as r:
            if r.status_code != 200:
                r.failure(f"move: {r.status_code} {(r.text or '')[:200]}")
                return
            self._remember(r, r.json())

    @task(1)
    def undo(self) -> None:
        path = f"{GAMES}/{self.game_id}/undo"
        headers = self._headers(if_match=True)
        with self.client.post(path, headers=headers, name="undo", catch_response=True) as r:
            if r.status_code == 200:
                self._remember(r, r.json())
            elif r.status_code == 409 and '"nothing-to-undo"' in (r.text or ""):
                r.success()  # at the deal: a correct answer, not a failure
            else:
                r.failure(f"undo: {r.status_code} {(r.text or '')[:200]}")
