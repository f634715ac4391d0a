"""Hints of one position asked by many (patience_engine.hint_answers): an answer is
remembered and given again without a search, whatever the path to the position (a
decided one for any budget, an undecided one for the same budget); a flood of the same
hint costs one search; what is cancelled or failed is not remembered."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import patience
import pytest
from patience_contract.client import EngineClient
from patience_engine.hint_answers import HintAnswers, decided, position_key
from solitaire.v1 import engine_pb2

from tests.engine.helpers import EngineThread, engine_running, searching_config, unsealed
from tests.engine.test_searches import HARD
from tests.solver.test_fair_hints import TWO_LEFT, played_positions, rearranged

# A deal whose hint is decided (a winning line found) within the default budget.
EASY = ("bisley", 7)


@pytest.fixture
def own_engine() -> Iterator[EngineThread]:
    """An engine of this test's alone, with two search processes: nothing another test
    asked is remembered in it."""
    with engine_running(searching_config(processes=2, queue=8)) as engine:
        yield engine


def hints_counted(engine: EngineThread) -> dict[str, float]:
    assert engine.running is not None
    metrics = engine.running.metrics
    return {
        sample.labels["answer"]: sample.value
        for metric in metrics.hints.collect()
        for sample in metric.samples
        if sample.name.endswith("_total")
    }


def searches_of_hints(engine: EngineThread) -> float:
    assert engine.running is not None
    histogram = engine.running.metrics.search_duration
    return sum(
        sample.value
        for metric in histogram.collect()
        for sample in metric.samples
        if sample.name.endswith("_count") and sample.labels["kind"] == "hint"
    )


async def test_a_decided_hint_is_given_again_without_a_search(own_engine: EngineThread) -> None:
    async with EngineClient(own_engine.target, timeout=60) as client:
        game = await client.new_game(*EASY[:1], deal=EASY[1])
        first = await client.hint(game.state)
        assert first.verdict == engine_pb2.VERDICT_WON and first.positions > 0
        searched = searches_of_hints(own_engine)
        # the same position, asked with another budget: a decided answer holds for any
        again = await client.hint(game.state, max_positions=500, max_milliseconds=50)
        assert again == first
        assert searches_of_hints(own_engine) == searched
        assert hints_counted(own_engine) == {"searched": 1.0, "remembered": 1.0}


async def test_the_same_position_reached_another_way_shares_the_answer(
    own_engine: EngineThread,
) -> None:
    """Positions differ only by the moves made to reach them: one search between them."""
    state = patience.get_variant(EASY[0]).new_game(EASY[1])
    later = patience.State.from_parts(
        state.variant,
        state.piles,
        options=state.options,
        deal=state.deal,
        moves_made=state.moves_made + 12,
        redeals_left=state.redeals_left,
        draws=state.draws,
    )
    assert later != state and position_key(later) == position_key(state)
    async with EngineClient(own_engine.target, timeout=60) as client:
        first = await client.hint(unsealed(state))
        second = await client.hint(unsealed(later))
    assert second == first
    assert hints_counted(own_engine) == {"searched": 1.0, "remembered": 1.0}


async def test_a_flood_of_one_undecided_hint_costs_one_search_and_is_remembered_for_its_budget(
    own_engine: EngineThread,
) -> None:
    async with EngineClient(own_engine.target, timeout=60) as client:
        game = await client.new_game(*HARD[:1], deal=HARD[1])
        budget = {"max_positions": 20_000, "max_milliseconds": 2000}
        replies = await asyncio.gather(*(client.hint(game.state, **budget) for _ in range(8)))
        assert all(reply == replies[0] for reply in replies)
        assert replies[0].verdict == engine_pb2.VERDICT_UNKNOWN
        assert searches_of_hints(own_engine) == 1
        counted = hints_counted(own_engine)
        assert counted["searched"] == 1 and counted["shared"] == 7
        assert "remembered" not in counted
        # the same budget later: the answer found
        assert await client.hint(game.state, **budget) == replies[0]
        assert searches_of_hints(own_engine) == 1
        assert hints_counted(own_engine)["remembered"] == 1
        # undecided: another budget may decide it, so it searches again
        await client.hint(game.state, max_positions=20_001, max_milliseconds=2000)
        assert searches_of_hints(own_engine) == 2


async def test_positions_alike_to_the_player_share_an_answer_whatever_they_hide(
    own_engine: EngineThread,
) -> None:
    """The key is the position as the player sees it: the stock's order, the deal
    number and the generator's draws are not in it, so a player cannot learn anything
    hidden by which hints come back remembered. A position the player sees otherwise
    (one card moved) is searched for itself."""
    rng = random.Random(5)
    for variant_id in ("napoleon-at-st-helena", "la-belle-lucie"):
        [state] = played_positions(variant_id, 1, seed=3)
        other = rearranged(state, rng)
        assert (other.piles, other.deal) != (state.piles, state.deal)
        assert position_key(other) == position_key(state)
        moved = state.apply(state.legal_moves()[0])
        assert position_key(moved) != position_key(state)
    async with EngineClient(own_engine.target, timeout=60) as client:
        state = patience.parse_state(TWO_LEFT)
        hidden_otherwise = patience.parse_state(TWO_LEFT.replace("s:9S2D", "s:2D9S"))
        budget = {"max_positions": 2_000, "max_milliseconds": 5_000}
        first = await client.hint(unsealed(state), **budget)
        second = await client.hint(unsealed(hidden_otherwise), **budget)
        assert second == first
        assert hints_counted(own_engine) == {"searched": 1.0, "remembered": 1.0}
        moved = state.apply(state.legal_moves()[0])
        await client.hint(unsealed(moved), **budget)
        assert hints_counted(own_engine)["searched"] == 2


# ---------------------------------------------------------------- the table alone


class Counted:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def hint_answered(self, how: str) -> None:
        self.seen.append(how)


def hint_reply(verdict: int) -> bytes:
    return engine_pb2.HintResponse(verdict=verdict, positions=7).SerializeToString()


async def test_decided_answers_hold_for_any_budget_undecided_ones_for_their_own() -> None:
    counted = Counted()
    answers = HintAnswers(counted)
    for verdict, any_budget in (
        (engine_pb2.VERDICT_WON, True),
        (engine_pb2.VERDICT_LOST, True),
        (engine_pb2.VERDICT_UNKNOWN, False),
    ):
        reply = hint_reply(verdict)
        assert decided(reply) is any_budget
        other = hint_reply(engine_pb2.VERDICT_UNKNOWN) + b"\x20\x01"  # another answer

        async def search(reply: bytes = reply) -> bytes:
            return reply

        async def search_other(other: bytes = other) -> bytes:
            return other

        position = ("position", verdict)
        assert await answers.answer(position, "budget", search) == reply
        assert await answers.answer(position, "budget", search_other) == reply
        again = await answers.answer(position, "another budget", search_other)
        assert again == (reply if any_budget else other)
    assert counted.seen == ["searched", "remembered", "remembered"] * 2 + [
        "searched",
        "remembered",
        "searched",
    ]


async def test_when_the_searching_call_goes_away_a_waiting_call_searches_itself() -> None:
    counted = Counted()
    answers = HintAnswers(counted)
    started = asyncio.Event()
    reply = hint_reply(engine_pb2.VERDICT_UNKNOWN)

    async def never_ends() -> bytes:
        started.set()
        await asyncio.Event().wait()
        raise AssertionError("not reached")

    async def answers_at_once() -> bytes:
        return reply

    first = asyncio.create_task(answers.answer("p", "b", never_ends))
    await started.wait()
    second = asyncio.create_task(answers.answer("p", "b", answers_at_once))
    for _ in range(5):  # the second call finds the search under way, and waits on it
        await asyncio.sleep(0)
    assert not second.done()
    first.cancel()
    assert await second == reply
    with pytest.raises(asyncio.CancelledError):
        await first
    assert counted.seen == ["searched"]


async def test_a_failed_search_fails_its_waiters_and_is_not_remembered() -> None:
    answers = HintAnswers(Counted())
    release = asyncio.Event()

    async def fails() -> bytes:
        await release.wait()
        raise RuntimeError("the search process died")

    calls = [asyncio.create_task(answers.answer("p", "b", fails)) for _ in range(3)]
    await asyncio.sleep(0.05)
    release.set()
    for call in calls:
        with pytest.raises(RuntimeError, match="died"):
            await call
    assert len(answers) == 0
    reply = hint_reply(engine_pb2.VERDICT_WON)

    async def wins() -> bytes:
        return reply

    assert await answers.answer("p", "b", wins) == reply
