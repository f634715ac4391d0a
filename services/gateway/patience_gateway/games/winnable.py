"""Random deals proven winnable: from a pool kept in Redis, else searched on demand.

A winnable deal is a random deal (its number drawn and hidden by the engine, like any
random deal) whose state the engine's Solve answered WON: the sealed state as dealt is
all the gateway keeps of it, so the number stays hidden. Searching takes from a few
milliseconds to many seconds a deal, and most deals of some games are not decided
quickly, so deals are tried one after another, each within a small budget
(WINNABLE_SOLVE_MILLISECONDS), until one is proven or the time for the request
(WINNABLE_SEARCH_SECONDS) is spent.

Pools (`storage.winnable_pools`) hold up to WINNABLE_POOL_SIZE proven states per variant
and options. The pools to keep full are every variant without options, and any variant
and options asked for. One gateway process at a time refills them (`PoolRefill`): the
one holding the lock, in its spare time (`spare_time`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from google.protobuf.message import DecodeError
from patience_contract.client import EngineClient, EngineError, EngineUnavailable
from solitaire.v1 import engine_pb2, game_pb2

from patience_gateway.games.engine_errors import engine_problem, search_problem
from patience_gateway.games.spare_time import SpareTime
from patience_gateway.problems import ProblemError
from patience_gateway.storage.failures import STORAGE_DOWN
from patience_gateway.storage.winnable_pools import WinnablePools, pool_name

log = logging.getLogger("patience_gateway")

# Told of each winnable deal dealt (variant, "pool" or "search"), and of each deal put in
# a pool (variant): the metrics.
Served = Callable[[str, str], None]
Added = Callable[[str], None]


def _unheard(*_: str) -> None:
    pass


# Time between two looks at the pools (and two tries for the lock), when no deal was
# taken in this process meanwhile.
REFILL_PAUSE_SECONDS = 5.0
# A pool's turn: a few deals searched of a game slow to prove, well within the lock's
# time.
REFILL_TURN_SECONDS = 3.0


@dataclass(frozen=True, slots=True)
class WinnableSettings:
    pool_size: int
    search_seconds: float
    solve_milliseconds: int
    solve_positions: int = 0  # 0: the engine's default
    # variants whose pools are kept at another size than pool_size
    pool_sizes: tuple[tuple[str, int], ...] = ()

    def size_of(self, name: str) -> int:
        """The deals the pool `name` (variant/options) is kept at."""
        variant = name.partition("/")[0]
        return dict(self.pool_sizes).get(variant, self.pool_size)

    @property
    def pooled(self) -> bool:
        """Whether any pool is kept (else no refill runs)."""
        return self.pool_size > 0 or any(size > 0 for _, size in self.pool_sizes)


class WinnableDeals:
    def __init__(
        self,
        engine: EngineClient,
        pools: WinnablePools,
        settings: WinnableSettings,
        *,
        retry_after: int,
        on_served: Served = _unheard,
    ) -> None:
        self.engine = engine
        self.pools = pools
        self.settings = settings
        self.retry_after = retry_after
        self.on_served = on_served
        # Set when a deal is taken from a pool: wakes this process's refill.
        self.taken = asyncio.Event()

    async def deal(self, variant: str, options: Sequence[str]) -> engine_pb2.NewGameResponse:
        """A new game proven winnable: from the pool if one is ready, else searched."""
        name = pool_name(variant, options)
        pooled = await self._from_pool(name)
        if pooled is not None:
            self.on_served(variant, "pool")
            return pooled
        game = await self.search(variant, options, self.settings.search_seconds)
        self.on_served(variant, "search")
        if self.settings.size_of(name) > 0:
            try:  # a variant and options that deal: worth keeping a pool of
                await self.pools.want(name)
            except STORAGE_DOWN as error:
                log.warning("winnable pool %s not marked as wanted: %s", name, error)
        return game

    async def _from_pool(self, name: str) -> engine_pb2.NewGameResponse | None:
        """A state from the pool, with its view; None when the pool is empty or Redis
        does not answer (the search stands in)."""
        if self.settings.size_of(name) == 0:
            return None
        try:
            while (raw := await self.pools.take(name)) is not None:
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
                self.taken.set()
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
    """Keeps the wanted pools full, in the one gateway process that holds the lock.

    The pools short of deals take turns of REFILL_TURN_SECONDS, the emptiest first, each
    finding as many deals as its turn allows: a pool drained by a burst of creates is
    refilled within a round, not after every other pool is full, a game whose deals are
    proven in milliseconds fills in one turn, and one whose deals are slow to prove (most
    of Napoleon at St Helena's are undecided within a second) takes its share of the
    time instead of holding the refill until its pool is full.
    A deal taken from a pool in this process wakes the refill at once; otherwise it looks
    at the pools every REFILL_PAUSE_SECONDS."""

    def __init__(
        self,
        deals: WinnableDeals,
        engine: EngineClient,
        *,
        on_added: Added = _unheard,
        spare: SpareTime | None = None,
    ) -> None:
        self.deals = deals
        self.engine = engine
        self.on_added = on_added
        # when the searches may run (None: at once)
        self.spare = spare
        self.pools = deals.pools
        self.token = secrets.token_hex(8)

    async def run(self) -> None:
        """Refills, pausing between rounds, until cancelled."""
        while True:
            # Cleared before looking: a deal taken from now on wakes the next wait (the
            # refill reads the pools' sizes, so none taken meanwhile is missed), and a
            # process without the lock waits again instead of going round at once.
            self.deals.taken.clear()
            try:
                if await self._hold_lock():
                    await self._refill()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a round that failed is tried again later
                log.warning("winnable pool refill: %s", error)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.deals.taken.wait(), REFILL_PAUSE_SECONDS)

    async def _hold_lock(self) -> bool:
        if await self.pools.take_lock(self.token):
            await self._wanted_from_variants()
            return True
        return await self.pools.renew_lock(self.token)

    async def _wanted_from_variants(self) -> None:
        """Every variant without options is wanted from the start."""
        variants = await self.engine.list_variants()
        if variants:
            await self.pools.want(*(pool_name(v.id, ()) for v in variants))

    async def _refill(self) -> None:
        """Rounds of turns until every pool is full or another process holds the lock.
        A pool whose search fails for another reason than finding no deal in its time
        (the engine down, busy with hints, or refusing the variant) sits out the rounds
        left; when none is left, the refill waits for the pause."""
        failed: set[str] = set()
        while True:
            turns = [name for name in await self._turns() if name not in failed]
            if not turns:
                return
            for name in turns:
                if not await self.pools.renew_lock(self.token):
                    return  # another process holds the lock now
                if not await self._turn(name):
                    failed.add(name)

    async def _turns(self) -> list[str]:
        """The pools short of deals, the emptiest first (the smallest share of its size
        held, then by name)."""
        size_of = self.deals.settings.size_of
        shares = []
        for name in await self.pools.wanted():
            held, size = await self.pools.size(name), size_of(name)
            if held < size:
                shares.append((held / size, name))
        return [name for _, name in sorted(shares)]

    async def _turn(self, name: str) -> bool:
        """Deals searched for the pool `name` for up to REFILL_TURN_SECONDS, each put in
        the pool as it is found, until the pool is full; False when a search failed for
        another reason than finding none in the time left."""
        variant, _, joined = name.partition("/")
        options = [o for o in joined.split(",") if o]
        deadline = time.monotonic() + REFILL_TURN_SECONDS
        while await self.pools.size(name) < self.deals.settings.size_of(name):
            try:
                game = await self._search(variant, options, deadline)
            except ProblemError as problem:
                log.debug("winnable pool %s: the turn ends: %s", name, problem.detail)
                return problem.kind.code == "no-winnable-deal"
            await self.pools.put(name, game.state.SerializeToString())
            self.on_added(variant)
        return True

    async def _search(
        self, variant: str, options: list[str], deadline: float
    ) -> engine_pb2.NewGameResponse:
        """A winnable deal searched until `deadline`, in spare time when told."""

        def search() -> Awaitable[engine_pb2.NewGameResponse]:
            return self.deals.search(variant, options, deadline - time.monotonic())

        return await (search() if self.spare is None else self.spare.run(search))
