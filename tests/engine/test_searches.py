"""Solve, Hint and Autoplay over gRPC, and the outlook in the view: answers, rejections,
the deadline, the search processes (busy, cancelled, apart from the moves)."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterator

import grpc
import patience
import pytest
from patience_contract.client import EngineClient, EngineError
from patience_engine import searches
from patience_engine.search_budgets import (
    DEADLINE_MARGIN_SECONDS,
    DEADLINE_MARGIN_SHARE,
    HINT_LIMITS,
    SOLVE_LIMITS,
    time_to_answer,
)
from patience_engine.search_replies import answer
from patience_engine.searches import (
    LEAST_HINT_SHARE,
    SEARCH_NICENESS,
    SearchJob,
    SearchPool,
    hint_seconds,
)
from solitaire.v1 import engine_pb2, game_pb2

from tests.engine.helpers import (
    EngineThread,
    engine_running,
    expect_error,
    searching_config,
    state_of,
    unsealed,
)
from tests.oracle import position
from tests.solver.positions import shuttle

HEARTS_BLOCKED = {"t1": "2H KH", "t2": "QH JH TH 9H 8H 7H 6H 5H 4H 3H"}
# A deal whose search runs for many seconds without a verdict.
HARD = ("napoleon-at-st-helena", 5)
# A budget that keeps a search on HARD running until it is cancelled.
LONG_SEARCH = {"max_positions": SOLVE_LIMITS.max_positions, "max_milliseconds": 60_000}


@pytest.fixture(scope="module")
def solo_engine() -> Iterator[EngineThread]:
    """An engine with one search process and no queue: a second search is refused."""
    with engine_running(searching_config(processes=1, queue=0)) as engine:
        yield engine


async def until(condition: Callable[[], bool], what: str) -> None:
    """Waits for a condition another process brings about (no timing is asserted: the
    limit only keeps a broken run from hanging)."""
    give_up = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < give_up, f"still waiting for {what}"
        await asyncio.sleep(0.01)


def _never() -> bool:
    return False


def searches_running(engine: EngineThread) -> int:
    assert engine.running is not None
    return engine.running.searches.running


# --------------------------------------------------------------------------- Solve


async def test_solve_wins_and_the_line_replays_to_won(client: EngineClient) -> None:
    game = await client.new_game("bisley", deal=7)
    reply = await client.solve(game.state)
    assert reply.verdict == engine_pb2.VERDICT_WON
    assert reply.positions > 0
    end = await client.apply_moves(game.state, list(reply.line))
    assert end.view.status == game_pb2.GAME_STATUS_WON
    assert all(move.notation for move in reply.line)


async def test_solve_proves_a_deal_lost(client: EngineClient) -> None:
    """A budget in positions (some 3,600 are needed) with time to spare: a loaded
    machine's slower search (at a lower priority than everything else there) still ends
    in the proof, not at the default's 800 ms."""
    game = await client.new_game("bisley", deal=18398980010621342871)
    reply = await client.solve(
        game.state, max_positions=1_000_000, max_milliseconds=60_000, timeout=60
    )
    assert (reply.verdict, list(reply.line)) == (engine_pb2.VERDICT_LOST, [])


async def test_solve_budget_in_positions_gives_unknown(client: EngineClient) -> None:
    """A minute of time and a deadline as long: only the positions can end the search."""
    game = await client.new_game(*HARD[:1], deal=HARD[1])
    reply = await client.solve(game.state, max_positions=1000, max_milliseconds=60_000, timeout=60)
    assert reply.verdict == engine_pb2.VERDICT_UNKNOWN
    assert 1000 <= reply.positions < 1000 + 1024  # the search looks every 512 positions


def test_the_answer_is_due_at_the_deadline_less_a_margin() -> None:
    assert time_to_answer(None) == math.inf  # no deadline
    assert time_to_answer(10.0) == 10.0 - DEADLINE_MARGIN_SECONDS
    assert time_to_answer(0.5) == pytest.approx(0.5 * (1 - DEADLINE_MARGIN_SHARE))


def test_the_budget_counts_from_when_a_process_takes_the_search_up() -> None:
    """A hint taken up long after the call came (it waited behind another search), with
    the deadline still far, gets its whole budget: the clock is the job's."""
    data = unsealed(patience.get_variant("bisley").new_game(7)).state
    job = SearchJob("hint", data, positions=200_000, seconds=0.8, deadline=100.0)
    hinted = engine_pb2.HintResponse.FromString(answer(job, _never, clock=lambda: 50.0))
    assert hinted.kind == engine_pb2.HINT_KIND_WINNING
    assert hinted.positions > 0


def test_a_search_reached_past_its_deadline_answers_without_searching() -> None:
    """The clock is the job's: a search whose deadline has passed when its process takes
    it up enters no position; a hint still gives a legal move, as best effort."""
    state = patience.get_variant(HARD[0]).new_game(HARD[1])
    data = unsealed(state).state
    late = SearchJob("solve", data, positions=5_000_000, seconds=60.0, deadline=100.0)
    solved = engine_pb2.SolveResponse.FromString(answer(late, _never, clock=lambda: 100.5))
    assert (solved.verdict, solved.positions) == (engine_pb2.VERDICT_UNKNOWN, 0)
    late_hint = SearchJob("hint", data, positions=2_000_000, seconds=5.0, deadline=100.0)
    hinted = engine_pb2.HintResponse.FromString(answer(late_hint, _never, clock=lambda: 100.5))
    assert (hinted.kind, hinted.positions) == (engine_pb2.HINT_KIND_BEST_EFFORT, 0)
    assert hinted.move.notation in {str(move) for move in state.legal_moves()}


async def test_the_deadline_caps_the_search(client: EngineClient) -> None:
    """A search with the largest budget (millions of positions, a minute) under a deadline
    of five seconds answers, before the deadline, UNKNOWN (a hint: best effort) with far
    fewer positions than its budget: the deadline, not the budget, ended it. No duration
    is asserted; the call returning at all, rather than failing with DEADLINE_EXCEEDED,
    is what the deadline's margin is for. On a loaded machine no search process may take
    the job up before the deadline: then it answers having searched nothing."""
    game = await client.new_game(*HARD[:1], deal=HARD[1])
    reply = await client.solve(
        game.state,
        max_positions=SOLVE_LIMITS.max_positions,
        max_milliseconds=60_000,
        timeout=5.0,
    )
    assert reply.verdict == engine_pb2.VERDICT_UNKNOWN
    assert 0 <= reply.positions < SOLVE_LIMITS.max_positions
    hint = await client.hint(
        game.state,
        max_positions=HINT_LIMITS.max_positions,
        max_milliseconds=60_000,
        timeout=5.0,
    )
    assert hint.kind == engine_pb2.HINT_KIND_BEST_EFFORT
    assert 0 <= hint.positions < HINT_LIMITS.max_positions


@pytest.mark.parametrize("rpc", ["solve", "hint"])
async def test_searches_refuse_a_missing_or_forged_state(client: EngineClient, rpc: str) -> None:
    search = getattr(client, rpc)
    missing = await expect_error(search(game_pb2.SealedState()))
    assert (missing.code, missing.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MISSING_FIELD")
    garbage = await expect_error(search(game_pb2.SealedState(state=b"\xff\xff")))
    assert (garbage.code, garbage.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_STATE")


@pytest.mark.parametrize("rpc", ["solve", "hint", "autoplay"])
async def test_a_sealed_engine_refuses_a_forged_state(
    sealed_client: EngineClient, rpc: str
) -> None:
    state = unsealed(patience.get_variant("bisley").new_game(7))
    error = await expect_error(getattr(sealed_client, rpc)(state))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.reason == "STATE_SEAL_INVALID"


async def test_searches_on_a_sealed_engine(sealed_client: EngineClient) -> None:
    game = await sealed_client.new_game("bisley", deal=7)
    assert (await sealed_client.solve(game.state)).verdict == engine_pb2.VERDICT_WON
    assert (await sealed_client.hint(game.state)).kind == engine_pb2.HINT_KIND_WINNING


# --------------------------------------------------------------------------- Hint


async def test_a_winning_hint_is_a_legal_move(client: EngineClient) -> None:
    game = await client.new_game("bisley", deal=7)
    reply = await client.hint(game.state)
    assert (reply.kind, reply.verdict) == (engine_pb2.HINT_KIND_WINNING, engine_pb2.VERDICT_WON)
    assert reply.move.notation in {move.notation for move in game.view.legal_moves}
    await client.apply_move(game.state, reply.move)


async def test_a_hint_names_no_card(client: EngineClient) -> None:
    """A hint is a move between piles, like the view's legal moves: no field of it
    holds a card, so it cannot name one the player does not see."""
    game = await client.new_game(*HARD[:1], deal=HARD[1])
    reply = await client.hint(game.state, max_positions=2000)
    assert reply.kind == engine_pb2.HINT_KIND_BEST_EFFORT
    legal = {move.SerializeToString() for move in game.view.legal_moves}
    assert reply.move.SerializeToString() in legal
    hidden = set(state_of(game.state).piles[-2])  # the stock
    text = str(reply)
    assert not any(patience.card_name(card) in text.split() for card in hidden)


async def test_hint_on_a_lost_deal_and_a_finished_game(client: EngineClient) -> None:
    lost = position(  # a king of hearts on the two, in a fan it never leaves
        "la-belle-lucie",
        t={**HEARTS_BLOCKED, "t3": "5S", "t4": "4S", "t5": "KS QS JS TS 9S 8S 7S 6S"},
        f={"f2": "3S", "f3": "AH"},
        n=0,
        dump=None,
    )
    reply = await client.hint(unsealed(lost))
    assert (reply.kind, reply.verdict) == (engine_pb2.HINT_KIND_LOST, engine_pb2.VERDICT_LOST)
    assert not reply.HasField("move")
    won = unsealed(position("bisley", dump=None))
    reply = await client.hint(won)
    assert (reply.kind, reply.verdict) == (engine_pb2.HINT_KIND_NONE, engine_pb2.VERDICT_WON)


# --------------------------------------------------------------------------- processes


async def test_a_move_is_answered_while_a_search_runs(solo_engine: EngineThread) -> None:
    async with EngineClient(solo_engine.target, timeout=60) as client:
        game = await client.new_game(*HARD[:1], deal=HARD[1])
        search = asyncio.create_task(client.solve(game.state, **LONG_SEARCH))
        await until(lambda: searches_running(solo_engine) == 1, "the search to start")
        moved = await client.apply_move(game.state, game.view.legal_moves[0])
        assert moved.applied
        assert not search.done() and searches_running(solo_engine) == 1
        search.cancel()
        await until(lambda: searches_running(solo_engine) == 0, "the search to stop")


async def test_busy_search_processes_refuse_and_a_cancelled_search_frees_one(
    solo_engine: EngineThread,
) -> None:
    async with EngineClient(solo_engine.target, timeout=60) as client:
        game = await client.new_game(*HARD[:1], deal=HARD[1])
        search = asyncio.create_task(client.solve(game.state, **LONG_SEARCH))
        await until(lambda: searches_running(solo_engine) == 1, "the search to start")
        busy = await expect_error(client.hint(game.state))
        assert (busy.code, busy.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "SOLVER_BUSY")
        assert busy.metadata == {"processes": "1", "queue_limit": "0"}
        search.cancel()  # the client goes away: the only search process is freed
        await until(lambda: searches_running(solo_engine) == 0, "the search to stop")
        reply = await client.hint(game.state, max_positions=1000)
        assert reply.kind == engine_pb2.HINT_KIND_BEST_EFFORT


@contextlib.asynccontextmanager
async def one_search_process_busy(
    timeout: float,
) -> AsyncIterator[tuple[EngineThread, EngineClient, asyncio.Task[engine_pb2.SolveResponse]]]:
    """An engine with one search process and a queue of four, the process busy with a
    long solve: the engine, a client (calls of `timeout` seconds) and the solve's task."""
    with engine_running(searching_config(processes=1, queue=4)) as engine:
        async with EngineClient(engine.target, timeout=timeout) as client:
            hard = await client.new_game(*HARD[:1], deal=HARD[1])
            running = asyncio.create_task(client.solve(hard.state, **LONG_SEARCH))
            await until(lambda: searches_running(engine) == 1, "the long solve to start")
            yield engine, client, running


async def test_a_hint_waits_ahead_of_solves_and_keeps_its_whole_budget() -> None:
    """One search process, busy with a long solve, and a second solve waiting: a hint
    that comes last is taken up first when the process is free, and searches with its
    whole budget (not the budget less the time it waited)."""
    async with one_search_process_busy(timeout=120) as (engine, client, running):
        hard = await client.new_game(*HARD[:1], deal=HARD[1])
        easy = await client.new_game("bisley", deal=7)
        waiting = asyncio.create_task(client.solve(hard.state, **LONG_SEARCH))
        await until(
            lambda: engine.running is not None and engine.running.searches.waiting == 1,
            "the second solve to queue",
        )
        # 3 s: time for the search on a loaded machine (Bisley's deal 7 takes a few
        # hundredths of a second on a quiet one)
        hint = asyncio.create_task(client.hint(easy.state, max_milliseconds=3000))
        await until(
            lambda: engine.running is not None and engine.running.searches.waiting == 2,
            "the hint to queue",
        )
        await asyncio.sleep(3.5)  # longer than the hint's 3 s: it must not count
        running.cancel()
        reply = await hint
        assert reply.kind == engine_pb2.HINT_KIND_WINNING and reply.positions > 0
        assert not waiting.done()  # the solve that came first still waits or runs
        waiting.cancel()
        await until(lambda: searches_running(engine) == 0, "the solves to stop")


async def test_a_search_no_process_takes_up_by_its_deadline_is_answered_unsearched() -> None:
    """The only search process busy with a long solve: a hint and a solve queued behind it
    with deadlines of two seconds are answered by then, without a search (a hint: a legal
    move, best effort; a solve: UNKNOWN), rather than failing with DEADLINE_EXCEEDED. The
    hint's answer, having searched nothing, is not remembered: asked again once the
    process is free, the same hint is searched."""
    async with one_search_process_busy(timeout=60) as (engine, client, running):
        easy = await client.new_game("bisley", deal=7)
        budget = {"max_positions": 100_000, "max_milliseconds": 5000}
        hinted, solved = await asyncio.gather(
            client.hint(easy.state, **budget, timeout=2.0),
            client.solve(easy.state, **budget, timeout=2.0),
        )
        assert (hinted.kind, hinted.verdict, hinted.positions) == (
            engine_pb2.HINT_KIND_BEST_EFFORT,
            engine_pb2.VERDICT_UNKNOWN,
            0,
        )
        assert hinted.move.notation in {m.notation for m in easy.view.legal_moves}
        assert (solved.verdict, solved.positions) == (engine_pb2.VERDICT_UNKNOWN, 0)
        assert not running.done() and searches_running(engine) == 1
        running.cancel()
        await until(lambda: searches_running(engine) == 0, "the long solve to stop")
        searched = await client.hint(easy.state, **budget)
        assert searched.kind == engine_pb2.HINT_KIND_WINNING and searched.positions > 0


async def test_a_killed_search_process_is_replaced_and_its_search_taken_up_again(
    solo_engine: EngineThread,
) -> None:
    """kill -9 of the search process mid-search: another process takes the dead one's
    place and the search again, and the call is answered (never hangs, never INTERNAL)."""
    assert solo_engine.running is not None
    pool = solo_engine.running.searches
    async with EngineClient(solo_engine.target, timeout=60) as client:
        game = await client.new_game(*HARD[:1], deal=HARD[1])
        budget = {"max_positions": 10**6, "max_milliseconds": 1500}
        search = asyncio.create_task(client.solve(game.state, **budget))
        await until(lambda: searches_running(solo_engine) == 1, "the search to start")
        [victim] = pool.process_ids
        os.kill(victim, signal.SIGKILL)
        await until(lambda: pool.process_ids not in ([], [victim]), "a new search process")
        reply = await search
        assert reply.verdict == engine_pb2.VERDICT_UNKNOWN and reply.positions > 0


async def test_a_search_whose_process_dies_twice_is_refused_as_retryable(
    solo_engine: EngineThread,
) -> None:
    """The process that took the search again dies too: RESOURCE_EXHAUSTED, reason
    SEARCH_FAILED (try again later), not INTERNAL; the next search is answered."""
    assert solo_engine.running is not None
    pool = solo_engine.running.searches
    async with EngineClient(solo_engine.target, timeout=60) as client:
        game = await client.new_game(*HARD[:1], deal=HARD[1])
        search = asyncio.create_task(client.solve(game.state, **LONG_SEARCH))
        for _ in range(2):
            await until(
                lambda: searches_running(solo_engine) == 1 and pool.process_ids != [],
                "the search to start",
            )
            [victim] = pool.process_ids
            os.kill(victim, signal.SIGKILL)
            await until(lambda v=victim: pool.process_ids not in ([], [v]), "a new process")
        failed = await expect_error(search)
        assert (failed.code, failed.reason) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "SEARCH_FAILED",
        )
        easy = await client.new_game("bisley", deal=7)
        reply = await client.hint(easy.state)
        assert reply.kind == engine_pb2.HINT_KIND_WINNING


# --------------------------------------------------------------------------- Autoplay


async def test_autoplay_plays_the_safe_moves_as_one_change(client: EngineClient) -> None:
    state = position("bisley", t={"t3": "7C", "t5": "8C"}, f={"f1": "6C", "f5": "9C"}, dump=None)
    reply = await client.autoplay(unsealed(state))
    assert [move.notation for move in reply.applied] == ["t3-f1", "t5-f1"]
    assert [(e.card, e.source, e.target) for e in reply.events] == [
        ("7C", "t3", "f1"),
        ("8C", "t5", "f1"),
    ]
    assert reply.view.status == game_pb2.GAME_STATUS_WON
    assert state_of(reply.state).status is patience.Status.WON


async def test_autoplay_without_safe_moves_changes_nothing(client: EngineClient) -> None:
    """Usk with its redeal left: no tableau card is sent home at once (it would change
    what the redeal deals)."""
    game = await client.new_game("usk", deal=3)
    assert state_of(game.state).redeals_left == 1
    reply = await client.autoplay(game.state)
    assert list(reply.applied) == [] and list(reply.events) == []
    assert state_of(reply.state) == state_of(game.state)


async def test_autoplay_refuses_a_missing_state(client: EngineClient) -> None:
    error = await expect_error(client.autoplay(game_pb2.SealedState()))
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MISSING_FIELD")


# --------------------------------------------------------------------------- outlook


async def test_the_view_tells_the_outlook(client: EngineClient) -> None:
    game = await client.new_game("bisley", deal=7)
    assert game.view.outlook == game_pb2.OUTLOOK_OPEN
    won = await client.player_view(unsealed(position("bisley", dump=None)))
    assert won.outlook == game_pb2.OUTLOOK_WON
    stuck = position(
        "la-belle-lucie",
        t=HEARTS_BLOCKED,
        f={"f3": "AH"},
        n=0,
        dump=None,
    )
    assert (await client.player_view(unsealed(stuck))).outlook == game_pb2.OUTLOOK_STUCK
    cycling = shuttle()
    view = await client.player_view(unsealed(cycling))
    assert (view.status, view.outlook) == (game_pb2.GAME_STATUS_PLAYING, game_pb2.OUTLOOK_CYCLING)
    moved = await client.apply_move(unsealed(cycling), "t3-t4")
    assert moved.view.outlook == game_pb2.OUTLOOK_CYCLING


def test_sync_client_searches(sync_client: object) -> None:
    from patience_contract.client import SyncEngineClient

    assert isinstance(sync_client, SyncEngineClient)
    game = sync_client.new_game("bisley", deal=7)
    assert sync_client.solve(game.state).verdict == engine_pb2.VERDICT_WON
    assert sync_client.hint(game.state, max_positions=5000).move.notation
    assert [m.notation for m in sync_client.autoplay(game.state).applied] == ["t6-f3"]
    with pytest.raises(EngineError) as caught:
        sync_client.solve(game_pb2.SealedState())
    assert caught.value.reason == "MISSING_FIELD"


async def test_search_processes_run_below_the_server_in_cpu_priority() -> None:
    """Where cores are short a move takes the CPU from a search, not the reverse."""
    pool = SearchPool(processes=1, queue_limit=0)
    pool.start(asyncio.get_running_loop())
    try:
        [pid] = pool.process_ids
        await until(lambda: _niceness(pid) != os.nice(0), "the niceness set")
        assert _niceness(pid) == min(19, os.nice(0) + SEARCH_NICENESS)
    finally:
        pool.close()


def _niceness(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def test_a_hints_time_is_shared_with_the_hints_waiting_behind_it() -> None:
    assert hint_seconds(0.8, 0, 1) == 0.8
    assert hint_seconds(0.8, 1, 1) == pytest.approx(0.4)
    assert hint_seconds(0.9, 2, 1) == pytest.approx(0.3)
    assert hint_seconds(0.8, 2, 2) == pytest.approx(0.4)  # one waiting per process
    assert hint_seconds(0.8, 10, 1) == pytest.approx(0.8 * LEAST_HINT_SHARE)


async def test_hints_waiting_behind_one_another_search_a_share_of_their_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One search process busy with a solve, then three hints of positions no search
    decides quickly, each allowed 3 s. When the process frees, the first hint taken up
    has two waiting behind it and searches a third of its 3 s; the second, with one
    behind it, half; the last its whole time. The shares are read where the pool gives
    them (the engine runs in this process), not from the time each search took, which
    a loaded machine stretches."""
    shares: list[float] = []

    def noted(seconds: float, hints_waiting: int, processes: int) -> float:
        shares.append(hint_seconds(seconds, hints_waiting, processes))
        return shares[-1]

    monkeypatch.setattr(searches, "hint_seconds", noted)
    with engine_running(searching_config(processes=1, queue=4)) as engine:
        async with EngineClient(engine.target, timeout=120) as client:
            hard = await client.new_game(*HARD[:1], deal=HARD[1])
            # three positions of the deal: hints of one position would share one search
            states = [hard.state] + [
                (await client.apply_move(hard.state, move)).state
                for move in hard.view.legal_moves[:2]
            ]
            running = asyncio.create_task(client.solve(hard.state, **LONG_SEARCH))
            await until(lambda: searches_running(engine) == 1, "the solve to start")
            hints = []
            for n, state in enumerate(states, start=1):
                hints.append(asyncio.create_task(client.hint(state, max_milliseconds=3000)))
                await until(
                    lambda n=n: engine.running is not None and engine.running.searches.waiting == n,
                    f"hint {n} to queue",
                )
            running.cancel()
            first, second, last = [await hint for hint in hints]
            assert first.verdict == second.verdict == engine_pb2.VERDICT_UNKNOWN
            assert last.positions > 0
            # the last, alone in the queue when taken up, keeps its 3 s unshared
            assert shares == [pytest.approx(1.0), pytest.approx(1.5)]
