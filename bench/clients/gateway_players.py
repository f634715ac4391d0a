"""Players of the gateway for closed-loop measurements: each concurrent client has its
own keep-alive connection and plays its own games (created before the clock starts),
so moves never contend for a game's version: each move sends If-Match with the ETag its
game last returned, and goes back and forth along a reversible pair of moves so that a
game never ends. Optionally each client also has a connection to the bare endpoint,
where it makes the same request the bare way."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bench.clients import gateway_api
from bench.clients.endless_games import EndlessGame
from bench.clients.http_client import Connection


@dataclass
class PlayedGame:
    ref: gateway_api.GameRef
    step: int = 0  # index into the reversible pair


class Players:
    """Connections and games of every concurrent client, kept across measurements."""

    def __init__(
        self,
        gateway_url: str,
        bare_url: str | None,
        plan: EndlessGame,
        games_per_client: int,
        *,
        as_players: bool = False,
    ) -> None:
        """`as_players`: each client is a player (POST /v1/players) whose games its
        access token opens, instead of anonymous games opened by their own tokens."""
        self.as_players = as_players
        self.gateway_url = gateway_url
        self.bare_url = bare_url  # None: gateway moves only
        self.plan = plan
        self.games_per_client = games_per_client
        self.gateway_conns: list[Connection] = []
        self.bare_conns: list[Connection] = []
        self.games: list[list[PlayedGame]] = []
        self.turn: list[int] = []
        self.bare_versions: list[str] = []

    async def prepare(self, clients: int) -> None:
        """Open connections and create the games of `clients` clients (not timed)."""
        first_new = len(self.gateway_conns)
        for _ in range(first_new, clients):
            self.gateway_conns.append(Connection(self.gateway_url))
            if self.bare_url is not None:
                self.bare_conns.append(Connection(self.bare_url))
            self.turn.append(0)
            self.bare_versions.append('"0"')
        # clients in parallel, each creating its games one after the other on its
        # own connection (a connection carries one request at a time)
        self.games.extend(
            await asyncio.gather(*(self._new_games(c) for c in range(first_new, clients)))
        )

    async def _new_games(self, client: int) -> list[PlayedGame]:
        conn = self.gateway_conns[client]
        player = await gateway_api.create_player(conn) if self.as_players else None
        return [await self._new_game(conn, player) for _ in range(self.games_per_client)]

    async def _new_game(self, conn: Connection, access_token: str | None) -> PlayedGame:
        ref = await gateway_api.create_game(
            conn, self.plan.variant, deal=self.plan.deal, access_token=access_token
        )
        for notation in self.plan.prefix:
            await gateway_api.move(conn, ref, notation)
        return PlayedGame(ref)

    async def gateway_move(self, client: int) -> None:
        games = self.games[client]
        if not games:
            await asyncio.sleep(0.01)  # every game of this client failed: do not spin
            raise RuntimeError(f"client {client} has no game left")
        game = games[self.turn[client] % len(games)]
        self.turn[client] += 1
        try:
            await gateway_api.move(self.gateway_conns[client], game.ref, self.plan.cycle[game.step])
        except Exception:
            # its version or position is unknown now: later moves on it would fail too
            games.remove(game)
            raise
        game.step ^= 1

    async def bare_move(self, client: int) -> None:
        # a key per game (one per client where the clients have no games)
        key = f"{client}-{self.turn[client] % max(self.games_per_client, 1)}"
        self.turn[client] += 1
        response = await self.bare_conns[client].request(
            "POST",
            f"/bare/{key}",
            body={"move": self.plan.cycle[0]},
            headers={"If-Match": self.bare_versions[client]},
            expect=(200,),
        )
        self.bare_versions[client] = response.headers.get("etag", '"0"')

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.gateway_conns + self.bare_conns))
