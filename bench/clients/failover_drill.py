"""A Redis Cluster primary killed mid-game: what the gateway's clients see, and which
acknowledged moves are lost.

The drill plays games of a deal with a reversible pair of moves (one client per game,
each move sent with If-Match and an Idempotency-Key, retried with the same key after a
503), then, with the load running:

1. cuts the replica of the primary that serves the first game off for `lag` seconds
   (frozen with SIGSTOP, and its link closed by the primary with CLIENT KILL TYPE
   replica), as a network partition or a stalled replica would: the primary goes on
   answering, and what it writes meanwhile reaches no replica;
2. kills that primary outright (SIGKILL) and lets the replica run again: the cluster
   promotes it once the primary's failure is agreed (cluster-node-timeout);
3. starts the killed node again once the replica has taken over (as an orchestrator
   restarts a failed pod): it rejoins as the new primary's replica;
4. keeps playing until every game has moved again after the switch, then `after`
   seconds more, and compares every game's stored history with what was acknowledged.

With asynchronous replication, moves acknowledged while the replica was frozen exist
only on the killed primary and are lost; with REDIS_WAIT_REPLICAS=1 they are answered
503 instead (the replica does not confirm them) and nothing acknowledged is lost.
With WAIT for one replica and one replica per primary, the promoted replica has none
of its own until the killed node is back: its games wait for that (with two replicas
per primary they do not).

Used by the bench's cluster part (real gateway processes) and by the test suite
(tests/gateway/test_gateway_failover.py, the app in-process): both hand it an
httpx.AsyncClient.
"""

from __future__ import annotations

import asyncio
import signal
import time
from dataclasses import dataclass, field

import httpx
from patience_gateway.storage.keys import game_keys
from patience_launcher.redis_cluster import EmbeddedRedisCluster
from patience_launcher.redis_server import EmbeddedRedis

from bench.clients.endless_games import find_endless_game

# the games: a deal with a reversible pair of moves, so that they never run out of moves
GAME = find_endless_game("house-on-the-hill")
RETRY_PAUSE = 0.05  # seconds between a 503 and its retry (shorter than Retry-After: to see)
CREATE_ATTEMPTS = 100


@dataclass
class Answer:
    at: float  # seconds since the drill started
    status: int
    code: str = ""
    retry_after: str = ""


@dataclass
class PlayedGame:
    id: str
    token: str
    etag: str
    affected: bool  # its primary is the one killed
    acknowledged: int = 0  # moves answered 200
    position: int = 0  # moves in the game as the client last knew it
    answers: list[Answer] = field(default_factory=list)
    stored: int = -1  # moves in its history afterwards
    consistent: bool = False  # history and view read back as a legal line

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "If-Match": self.etag}


@dataclass
class FailoverResult:
    games: list[PlayedGame]
    killed_at: float
    replaced_after: float  # seconds from the kill until the cluster agreed on a new primary
    rejoined_after: float  # seconds from the kill until the killed node was a replica again
    seconds: float

    @property
    def answers(self) -> list[Answer]:
        return [a for g in self.games for a in g.answers]

    @property
    def acknowledged(self) -> int:
        return sum(g.acknowledged for g in self.games)

    @property
    def lost(self) -> int:
        """Moves answered 200 that the store no longer has."""
        return sum(max(0, g.acknowledged - g.stored) for g in self.games)

    @property
    def unacknowledged_kept(self) -> int:
        """Moves the store has that were never answered 200 (a 503 after the change)."""
        return sum(max(0, g.stored - g.acknowledged) for g in self.games)

    @property
    def unavailable(self) -> list[Answer]:
        return [a for a in self.answers if a.status == 503]

    @property
    def others(self) -> list[Answer]:
        """Anything but 200 and 503 storage-unavailable with Retry-After: none expected."""
        return [
            a
            for a in self.answers
            if a.status != 200
            and not (a.status == 503 and a.code == "storage-unavailable" and a.retry_after)
        ]

    @property
    def longest_wait(self) -> float:
        """The longest time one game went without a successful move once the primary
        died (from the kill to its first 200 after it)."""
        waits = []
        for game in self.games:
            after = [a.at for a in game.answers if a.at > self.killed_at and a.status == 200]
            if after:
                waits.append(after[0] - self.killed_at)
        return max(waits, default=float("nan"))

    @property
    def all_consistent(self) -> bool:
        return all(g.consistent for g in self.games)


class FailoverDrill:
    def __init__(
        self,
        http: httpx.AsyncClient,
        cluster: EmbeddedRedisCluster,
        *,
        games: int = 12,
        before: float = 1.0,
        lag: float = 0.5,
        after: float = 1.0,
    ) -> None:
        self.http = http
        self.cluster = cluster
        self.games_wanted = games
        self.before = before
        self.lag = lag
        self.after = after
        self._started = 0.0
        self._stopping = False

    def _now(self) -> float:
        return time.monotonic() - self._started

    async def run(self) -> FailoverResult:
        games = [await self._create() for _ in range(self.games_wanted)]
        primaries = [self.cluster.primary_of(game_keys(game.id).meta) for game in games]
        victim = primaries[0]
        # Game ids are random: all of them may lie on the victim (1 in 243 for 6 games
        # on 3 primaries), and the drill would show nothing of the games it spares.
        while len(games) < 4 * self.games_wanted and all(p is victim for p in primaries):
            games.append(await self._create())
            primaries.append(self.cluster.primary_of(game_keys(games[-1].id).meta))
        for game, primary in zip(games, primaries, strict=True):
            game.affected = primary is victim
        replica = self.cluster.replica_of(victim)
        self._started = time.monotonic()
        players = [asyncio.create_task(self._play(game)) for game in games]
        try:
            await asyncio.sleep(self.before)
            killed_at, replaced_after = await self._fail_over(victim, replica)
            await asyncio.to_thread(self._restore, victim)
            rejoined_after = self._now() - killed_at
            await self._until_all_moved_since(games, killed_at)
            await asyncio.sleep(self.after)
        finally:
            self._stopping = True
            await asyncio.gather(*players, return_exceptions=True)
        seconds = self._now()
        for game in games:
            await self._read_back(game)
        return FailoverResult(games, killed_at, replaced_after, rejoined_after, seconds)

    async def _create(self) -> PlayedGame:
        """A new game; a 503 (a busy replica, before the drill starts) is retried."""
        for _ in range(CREATE_ATTEMPTS):
            response = await self.http.post(
                "/v1/games", json={"variant": GAME.variant, "deal": GAME.deal}
            )
            if response.status_code != 503:
                break
            await asyncio.sleep(RETRY_PAUSE)
        if response.status_code != 201:
            raise RuntimeError(f"create answered {response.status_code}: {response.text[:300]}")
        data = response.json()
        return PlayedGame(data["id"], data["token"], response.headers["etag"], affected=False)

    async def _play(self, game: PlayedGame) -> None:
        attempt = 0
        while not self._stopping:
            key = f"{game.id}-{game.acknowledged}-{attempt}"
            notation = GAME.move_at(game.position)
            while not self._stopping:
                response = await self.http.post(
                    f"/v1/games/{game.id}/moves",
                    json={"move": notation},
                    headers={**game.headers, "Idempotency-Key": key},
                )
                answer = Answer(self._now(), response.status_code)
                if response.status_code != 200:
                    body = response.json() if response.content else {}
                    answer.code = str(body.get("code", ""))
                    answer.retry_after = response.headers.get("retry-after", "")
                game.answers.append(answer)
                if response.status_code == 200:
                    game.acknowledged += 1
                    game.position += 1
                    game.etag = response.headers["etag"]
                    break
                if response.status_code != 503:
                    attempt += 1  # not retried: the next move gets a fresh key
                    await self._resync(game)
                    break
                await asyncio.sleep(RETRY_PAUSE)  # the same request again, same key

    async def _resync(self, game: PlayedGame) -> None:
        """After an unexpected answer (the game is not where the client thought: moves
        it was told were made are gone), carry on from the stored game."""
        auth = {"Authorization": f"Bearer {game.token}"}
        response = await self.http.get(f"/v1/games/{game.id}/history", headers=auth)
        if response.status_code == 200:
            game.etag = response.headers["etag"]
            game.position = int(response.json()["position"])

    async def _fail_over(
        self, victim: EmbeddedRedis, replica: EmbeddedRedis
    ) -> tuple[float, float]:
        assert replica.process is not None
        if self.lag > 0:
            replica.process.send_signal(signal.SIGSTOP)
            await asyncio.to_thread(self._cut_replicas, victim)
            await asyncio.sleep(self.lag)
        await asyncio.to_thread(self.cluster.kill, victim)
        killed_at = self._now()
        replica.process.send_signal(signal.SIGCONT)
        await asyncio.to_thread(self.cluster.wait_replaced, victim)
        return killed_at, self._now() - killed_at

    async def _until_all_moved_since(self, games: list[PlayedGame], since: float) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if all(any(a.at > since and a.status == 200 for a in g.answers) for g in games):
                return
            await asyncio.sleep(0.05)

    async def _read_back(self, game: PlayedGame) -> None:
        auth = {"Authorization": f"Bearer {game.token}"}
        history = await self.http.get(f"/v1/games/{game.id}/history", headers=auth)
        view = await self.http.get(f"/v1/games/{game.id}", headers=auth)
        if history.status_code != 200 or view.status_code != 200:
            return
        data = history.json()
        moves = data["moves"][: data["position"]]
        game.stored = len(moves)
        line = GAME.moves(len(moves))
        game.consistent = moves == line and data["version"] == len(moves) + 1

    def _cut_replicas(self, primary: EmbeddedRedis) -> None:
        client = self.cluster.client(primary)
        try:
            client.client_kill_filter(_type="replica")
        finally:
            client.close()

    def _restore(self, victim: EmbeddedRedis) -> None:
        self.cluster.restart(victim)
        self.cluster.wait_healthy()
