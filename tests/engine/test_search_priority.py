"""Searches run below moves: the search processes' CPU priority (ENGINE_SEARCH_NICENESS,
the lowest by default), and a move answered while every search process is busy.

Nothing here measures speed: the priorities are read from the kernel, and the move is
answered while the searches hold every search process (the mechanism, not how fast);
bench/README.md ("Searches beside moves") has the figures."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

import grpc
import pytest
from patience_contract.client import EngineClient
from patience_engine.config import DEFAULT_SEARCH_NICENESS, MAX_NICENESS, EngineConfig
from patience_engine.search_budgets import SOLVE_LIMITS
from patience_engine.searches import SEARCH_NICENESS, SearchPool

from tests.engine.helpers import EngineThread, expect_error

# A deal whose search runs for many seconds without a verdict.
HARD = ("napoleon-at-st-helena", 5)
LONG_SEARCH = {"max_positions": SOLVE_LIMITS.max_positions, "max_milliseconds": 60_000}
# Upper bound for what another process brings about; only keeps a broken run from
# hanging (no speed is asserted).
PATIENCE_SECONDS = 60


async def until(condition: Callable[[], bool], what: str) -> None:
    give_up = time.monotonic() + PATIENCE_SECONDS
    while not condition():
        assert time.monotonic() < give_up, f"gave up waiting for {what}"
        await asyncio.sleep(0.02)


def _niceness(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def _below_this_process(niceness: int) -> int:
    return min(MAX_NICENESS, os.nice(0) + niceness)


def test_searches_run_at_the_lowest_priority_unless_told_otherwise() -> None:
    assert SEARCH_NICENESS == DEFAULT_SEARCH_NICENESS == MAX_NICENESS
    assert EngineConfig.from_env({}).search_niceness == DEFAULT_SEARCH_NICENESS
    assert EngineConfig.from_env({"ENGINE_SEARCH_NICENESS": "10"}).search_niceness == 10
    assert EngineConfig.from_env({"ENGINE_SEARCH_NICENESS": "0"}).search_niceness == 0


@pytest.mark.parametrize("text", ["20", "-1", "low", "1.5"])
def test_a_search_niceness_out_of_range_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="ENGINE_SEARCH_NICENESS"):
        EngineConfig.from_env({"ENGINE_SEARCH_NICENESS": text})


@pytest.mark.parametrize("niceness", [0, 7, MAX_NICENESS])
async def test_search_processes_run_the_niceness_they_are_given_below_the_server(
    niceness: int,
) -> None:
    own = os.nice(0)
    pool = SearchPool(processes=1, queue_limit=0, niceness=niceness)
    pool.start(asyncio.get_running_loop())
    try:
        [pid] = pool.process_ids
        # a search process sets its niceness as it starts; the server's is left as it was
        await until(lambda: _niceness(pid) == _below_this_process(niceness), "the niceness")
        assert os.nice(0) == own
    finally:
        pool.close()


async def test_a_move_is_answered_while_every_search_process_is_busy() -> None:
    """Both search processes hold a long search and nothing may queue (a hint is refused
    as busy): a move is still answered, by the server process, and the searches go on."""
    config = EngineConfig(listen="127.0.0.1:0", workers=1, solver_processes=2, solver_queue=0)
    engine = EngineThread(config).start()
    try:
        assert engine.running is not None
        pool = engine.running.searches
        async with EngineClient(engine.target, timeout=120) as client:
            game = await client.new_game(*HARD[:1], deal=HARD[1])
            searches = [
                asyncio.create_task(client.solve(game.state, **LONG_SEARCH)) for _ in range(2)
            ]
            await until(lambda: pool.running == 2, "both searches to be handed over")
            busy = await expect_error(client.hint(game.state))
            assert (busy.code, busy.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "SOLVER_BUSY")
            moved = await client.apply_move(game.state, game.view.legal_moves[0])
            assert moved.applied
            assert pool.running == 2 and not any(search.done() for search in searches)
            for search in searches:
                search.cancel()
            await until(lambda: pool.running == 0, "the searches to stop")
    finally:
        engine.stop()
