"""Hint answers remembered by position, and one search for a position asked at once by
many.

Many players ask for a hint on the same position: the same daily deal, the same opening,
a friend's challenge. So each engine process

- remembers the answers of its last searches (`REMEMBERED` of them), so that the next
  hint of a position already searched is answered from the table, without a search. An
  answer the search *decided* (a winning move of a line proven to win, a position proven
  lost, or, where the position hides cards, an answer over every arrangement of them)
  holds whatever the budget and however it was cut short, and answers any budget; an
  undecided one answers the same budget only; one that searched nothing (its call's
  deadline came before a search process was free) is not remembered;
- lets a hint asked while the same hint (the same position and budget) is being searched
  wait for that search instead of queueing another: a flood of hints on one position
  costs one search, decided or not.

A position here is the position as the player sees it (`patience.solver.seen_key`): the
variant and its options, every card in sight, the foundations, the stock's size and the
redeals left. A hint is made from that alone (where the position hides cards, from
arrangements of the unseen cards drawn from it: patience.solver.hints), so the key holds
nothing a player could probe for (not the stock's order, the deal number or the
generator's draws), players who reach a position by different paths share it, and
sharing an answer tells no player more than their own search would. A remembered answer
is the reply as it was first written, its positions and milliseconds those of the
search that found it, its plan the same for every player (the plan's line is named by
seen positions too). A search that fails is not remembered: its callers get its error,
and the next call searches again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Protocol

import patience
from patience.solver import seen_key
from solitaire.v1 import engine_pb2

from patience_engine.memo import Memo

# Answers each engine process keeps: a few hundred bytes each.
REMEMBERED = 4096
DECIDED = frozenset({engine_pb2.VERDICT_WON, engine_pb2.VERDICT_LOST})


class HintObserver(Protocol):
    def hint_answered(self, how: str) -> None:
        """`how`: "searched", "remembered" (from the table) or "shared" (a search
        already under way)."""


def position_key(state: patience.State) -> bytes:
    """What a hint of `state` is made from (the module docstring)."""
    return seen_key(state)


def decided(reply: bytes) -> bool:
    """Whether a HintResponse's search decided the position (WON or LOST)."""
    return engine_pb2.HintResponse.FromString(reply).verdict in DECIDED


def kept_as(position: Hashable, searching: Hashable, reply: bytes) -> Hashable | None:
    """Where an answer is remembered: a decided one for the position, an undecided one
    for the position and budget; one that searched nothing (no time was left before its
    call's deadline) not at all, since it tells nothing of the position."""
    parsed = engine_pb2.HintResponse.FromString(reply)
    if parsed.verdict in DECIDED:
        return position
    return searching if parsed.positions else None


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
        """The remembered answer for `position` (decided, or searched with `budget`),
        else that of the search of the same position and budget under way, else
        `search()`'s (remembered)."""
        searching = (position, budget)
        while True:
            remembered = self._answers.get(position) or self._answers.get(searching)
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
            kept = kept_as(position, searching, reply)
            if kept is not None:
                self._answers.put(kept, reply)
            future.set_result(reply)
            self._observer.hint_answered("searched")
            return reply
        finally:
            if self._running.get(searching) is future:
                del self._running[searching]


def _retrieved(future: asyncio.Future[bytes]) -> None:
    if not future.cancelled():
        future.exception()
