"""Random deals proven winnable: from a pool kept in Redis, else searched on demand.

A winnable deal is a random deal (its number drawn and hidden by the engine, like any
random deal) whose state the engine's Solve answered WON: the sealed state as dealt is
all the gateway keeps of it, so the number stays hidden. Searching takes from a few
milliseconds to many seconds a deal, and most deals of some games are not decided
quickly, so deals are tried one after another, each within a small budget
(WINNABLE_SOLVE_MILLISECONDS), until one is proven or the time for the request
(WINNABLE_SEARCH_SECONDS) is spent.

Pools: `winnable:{<variant>/<options>}` lists (one key each, so any Redis Cluster slot
will do) hold up to WINNABLE_POOL_SIZE proven states per variant and options, taken from
the right. `winnable:pools` is the set of pools to keep full: every variant without
options, and any variant and options asked for. One gateway process at a time refills
them (`PoolRefill`): the one holding the lock `winnable:refill-lock`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf.message import DecodeError
from patience_engine.client import EngineClient, EngineError, EngineUnavailable
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from solitaire.v1 import engine_pb2, game_pb2

from patience_gateway.failures import STORAGE_DOWN, engine_problem, search_problem
from patience_gateway.problems import ProblemError

log = logging.getLogger("patience_gateway")

POOLS_KEY = "winnable:pools"
LOCK_KEY = "winnable:refill-lock"
# How long the refill lock lasts unless renewed: a process that dies lets another take
# over within this.
LOCK_MILLISECONDS = 30_000
# Time between two looks at the pools (and two tries for the lock).
REFILL_PAUSE_SECONDS = 5.0

# Extends the lock if this process still holds it.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""


def pool_name(variant: str, options: Sequence[str]) -> str:
    """The pool's name: the variant and its options in a stable order."""
    return f"{variant}/{','.join(sorted(set(options)))}"


def pool_key(name: str) -> str:
    # the whole name is the hash tag: a pool is one key, in a slot of its own
    return f"winnable:{{{name}}}"


@dataclass(frozen=True, slots=True)
class WinnableSettings:
    pool_size: int
    search_seconds: float
    solve_milliseconds: int
    solve_positions: int = 0  # 0: the engine's default


class WinnableDeals:
    def __init__(
        self,
        engine: EngineClient,
        redis: Redis | RedisCluster,
        settings: WinnableSettings,
        *,
        retry_after: int,
    ) -> None:
        self.engine = engine
        self.redis = redis
        self.settings = settings
        self.retry_after = retry_after

    async def deal(self, variant: str, options: Sequence[str]) -> engine_pb2.NewGameResponse:
        """A new game proven winnable: from the pool if one is ready, else searched."""
        name = pool_name(variant, options)
        pooled = await self._from_pool(name)
        if pooled is not None:
            return pooled
        game = await self.search(variant, options, self.settings.search_seconds)
        if self.settings.pool_size > 0:
            try:  # a variant and options that deal: worth keeping a pool of
                await self.redis.sadd(POOLS_KEY, name)
            except STORAGE_DOWN as error:
                log.warning("winnable pool %s not marked as wanted: %s", name, error)
        return game

    async def _from_pool(self, name: str) -> engine_pb2.NewGameResponse | None:
        """A state from the pool, with its view; None when the pool is empty or Redis
        does not answer (the search stands in)."""
        if self.settings.pool_size == 0:
            return None
        try:
            while isinstance(raw := await self.redis.rpop(pool_key(name)), bytes):
                try:
                    state = game_pb2.SealedState.FromString(raw)
                    view = await self.engine.player_view(state)
                except DecodeError:
                    log.warning("a pooled winnable deal of %s is not a state", name)
                    continue
                except EngineError as error:
                    if isinstance(error, EngineUnavailable):
                        raise engine_problem(error, self.retry_after) from None
                    # sealed with a key the engine no longer holds: of no use, drop it
                    log.warning("a pooled winnable deal of %s was refused: %s", name, error)
                    continue
                return engine_pb2.NewGameResponse(state=state, view=view)
        except STORAGE_DOWN as error:
            log.warning("winnable pool %s not read: %s", name, error)
        return None

    async def search(
        self, variant: str, options: Sequence[str], seconds: float
    ) -> engine_pb2.NewGameResponse:
        """Random deals tried one after another until one is proven winnable; 503
        no-winnable-deal when `seconds` pass first."""
        deadline = time.monotonic() + seconds
        busy: EngineError | None = None
        while (left := deadline - time.monotonic()) > 0.05:
            try:
                game = await self.engine.new_game(variant, options=options)
            except EngineError as error:
                raise engine_problem(error, self.retry_after) from None
            budget = min(self.settings.solve_milliseconds, int(left * 1000))
            try:
                solved = await self.engine.solve(
                    game.state,
                    max_positions=self.settings.solve_positions,
                    max_milliseconds=budget,
                    # the budget caps the search; the deadline only guards against an
                    # engine that does not answer, as on any other call
                    timeout=budget / 1000 + self.engine.timeout,
                )
            except EngineError as error:
                problem = search_problem(error, self.retry_after)
                if problem.kind.code != "solver-busy":
                    raise problem from None
                busy = error  # every search process taken: wait a little, try again
                await asyncio.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
                continue
            if solved.verdict == engine_pb2.VERDICT_WON:
                return game
        if busy is not None:
            raise search_problem(busy, self.retry_after)
        raise ProblemError(
            "no-winnable-deal",
            f"no deal of {variant} was proven winnable within {seconds:g} s",
            headers={"Retry-After": str(self.retry_after)},
        )


class PoolRefill:
    """Keeps the wanted pools full, in the one gateway process that holds the lock."""

    def __init__(self, deals: WinnableDeals, engine: EngineClient) -> None:
        self.deals = deals
        self.engine = engine
        self.redis = deals.redis
        self.token = secrets.token_hex(8)
        self._renew = self.redis.register_script(_RENEW)

    async def run(self) -> None:
        """Refills, pausing between rounds, until cancelled."""
        while True:
            try:
                if await self._hold_lock():
                    await self._refill_round()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a round that failed is tried again later
                log.warning("winnable pool refill: %s", error)
            await asyncio.sleep(REFILL_PAUSE_SECONDS)

    async def _hold_lock(self) -> bool:
        taken = await self.redis.set(LOCK_KEY, self.token, nx=True, px=LOCK_MILLISECONDS)
        if taken:
            await self._wanted_from_variants()
            return True
        return bool(await self._renew(keys=[LOCK_KEY], args=[self.token, LOCK_MILLISECONDS]))

    async def _wanted_from_variants(self) -> None:
        """Every variant without options is wanted from the start."""
        variants = await self.engine.list_variants()
        if variants:
            await self.redis.sadd(POOLS_KEY, *(pool_name(v.id, ()) for v in variants))

    async def _refill_round(self) -> None:
        size = self.deals.settings.pool_size
        members = await self.redis.smembers(POOLS_KEY)
        names = sorted(n.decode() if isinstance(n, bytes) else n for n in members)
        for name in names:
            variant, _, joined = name.partition("/")
            options = [o for o in joined.split(",") if o]
            while await self.redis.llen(pool_key(name)) < size:
                if not await self._renew(keys=[LOCK_KEY], args=[self.token, LOCK_MILLISECONDS]):
                    return  # another process holds the lock now
                try:
                    game = await self.deals.search(variant, options, LOCK_MILLISECONDS / 2000)
                except ProblemError as problem:
                    log.info("winnable pool %s not refilled: %s", name, problem.detail)
                    break
                await self.redis.lpush(pool_key(name), game.state.SerializeToString())
