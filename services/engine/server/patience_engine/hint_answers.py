"""Hint answers remembered by position, and one search for a position asked at once by
many.

Many players ask for a hint on the same position: the same daily deal, the same opening,
a friend's challenge. So each engine process

- remembers its last answers that the search *decided* (`REMEMBERED` of them): a
  winning move of a line proven to win, a position proven lost, or, where the position
  hides cards, an answer over every arrangement of them. Such an answer holds whatever
  the budget and however it was cut short, so the next hint of that position is answered
  from the table, without a search;
- lets a hint asked while the same hint (the same position and budget) is being searched
  wait for that search instead of queueing another: a flood of hints on one position
  costs one search, not one each, decided or not.

A position here is everything a hint reads: the variant and its options, the piles, the
redeals left, the deal number and the generator's draws (which decide the shuffles of
later redeals); not the count of moves made, which no rule reads, so players who reach a
position by different paths share it. A hint is made from the position alone (where it
hides cards, from what the player has seen: patience.solver.hints), so sharing an answer
tells no player more than their own search would. A remembered answer is the reply as it
was first written, its positions and milliseconds those of the search that found it. A
search that fails is not remembered: its callers get its error, and the next call
searches again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Protocol

import patience
from solitaire.v1 import engine_pb2

from patience_engine.memo import Memo

# Answers each engine process keeps: a few hundred bytes each.
REMEMBERED = 4096
DECIDED = frozenset({engine_pb2.VERDICT_WON, engine_pb2.VERDICT_LOST})


class HintObserver(Protocol):
    def hint_answered(self, how: str) -> None:
        """`how`: "searched", "remembered" (from the table) or "shared" (a search
        already under way)."""


def position_key(state: patience.State) -> Hashable:
    """What a hint of `state` is made from (the module docstring)."""
    return (
        state.variant.id,
        state.options,
        state.piles,
        state.redeals_left,
        state.deal,
        state.draws,
    )


def decided(reply: bytes) -> bool:
    """Whether a HintResponse's search decided the position (WON or LOST)."""
    return engine_pb2.HintResponse.FromString(reply).verdict in DECIDED


class HintAnswers:
    """The answers of one engine process (one event loop)."""

    def __init__(self, observer: HintObserver, size: int = REMEMBERED) -> None:
        self._answers: Memo[Hashable, bytes] = Memo(size)
        self._running: dict[Hashable, asyncio.Future[bytes]] = {}
        self._observer = observer

    def __len__(self) -> int:
        return len(self._answers)

    async def answer(
        self, position: Hashable, budget: Hashable, search: Callable[[], Awaitable[bytes]]
    ) -> bytes:
        """The remembered answer for `position`, else that of the search of the same
        position and budget under way, else `search()`'s (remembered if decided)."""
        searching = (position, budget)
        while True:
            remembered = self._answers.get(position)
            if remembered is not None:
                self._observer.hint_answered("remembered")
                return remembered
            running = self._running.get(searching)
            if running is None:
                return await self._search(position, searching, search)
            try:
                reply = await asyncio.shield(running)
            except asyncio.CancelledError:
                if not running.cancelled():
                    raise  # this call was cancelled, not the search
                continue  # the call that searched went away, and its search with it
            self._observer.hint_answered("shared")
            return reply

    async def _search(
        self, position: Hashable, searching: Hashable, search: Callable[[], Awaitable[bytes]]
    ) -> bytes:
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        # A search that fails with nobody else waiting: its error is the caller's alone.
        future.add_done_callback(_retrieved)
        self._running[searching] = future
        try:
            reply = await search()
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as error:
            future.set_exception(error)
            raise
        else:
            if decided(reply):
                self._answers.put(position, reply)
            future.set_result(reply)
            self._observer.hint_answered("searched")
            return reply
        finally:
            if self._running.get(searching) is future:
                del self._running[searching]


def _retrieved(future: asyncio.Future[bytes]) -> None:
    if not future.cancelled():
        future.exception()
