"""Forcing races in the gateway: a dependency of its game operations (the engine client
or the store, `app.state.services.games`) replaced for a block by a wrapper that holds or
interleaves calls, so that the order a test needs happens for sure instead of by
scheduling."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tests.gateway.helpers import Gateway


class Around:
    """`part` with one of its coroutine methods, `method`, run as `around(call)`:
    every other attribute is the part's own."""

    def __init__(
        self, part: Any, method: str, around: Callable[[Awaitable[Any]], Awaitable[Any]]
    ) -> None:
        self._part = part
        self._method = method
        self._around = around

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._part, name)
        if name != self._method:
            return attribute

        async def wrapped(*args: Any, **kwargs: Any) -> Any:
            return await self._around(attribute(*args, **kwargs))

        return wrapped


@contextmanager
def wrapped(gateway: Gateway, part: str, method: str, around: Any) -> Iterator[None]:
    """The games' `part` ("engine" or "store") with `method` wrapped, in the block."""
    games = gateway.app.state.services.games
    original = getattr(games, part)
    setattr(games, part, Around(original, method, around))
    try:
        yield
    finally:
        setattr(games, part, original)


@contextmanager
def gated(gateway: Gateway, method: str = "apply_move", parties: int = 2) -> Iterator[None]:
    """Holds every reply of the engine's `method` until `parties` requests have theirs:
    all of them have read the store before any of them writes."""
    barrier = asyncio.Barrier(parties)

    async def hold(call: Awaitable[Any]) -> Any:
        reply = await call
        async with asyncio.timeout(30):
            await barrier.wait()
        return reply

    with wrapped(gateway, "engine", method, hold):
        yield


@contextmanager
def before_the_store(
    gateway: Gateway, method: str, meanwhile: Callable[[], Awaitable[None]]
) -> Iterator[None]:
    """Runs `meanwhile` before the first call of the store's `method` (a write): another
    request commits between this one's read and its write (its own writes, through the
    same method, go straight through)."""
    pending = [meanwhile]

    async def first_meanwhile(call: Awaitable[Any]) -> Any:
        if pending:
            await pending.pop()()
        return await call

    with wrapped(gateway, "store", method, first_meanwhile):
        yield
