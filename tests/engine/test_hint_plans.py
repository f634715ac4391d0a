"""Following hints over gRPC (HintRequest.plan): the plan of a hint, passed back with
the game's next hint, gives the next move of the same line without a search, to the
win; a plan is sealed like a state, and one the engine cannot open, or made for another
position, is ignored (the hint is searched as if none came)."""

from __future__ import annotations

import patience
import pytest
from patience.solver import HintKind, Verdict
from patience_contract.client import EngineClient
from patience_engine import hint_plans
from patience_engine.sealing import Sealer
from solitaire.v1 import engine_pb2, game_pb2

from tests.engine.helpers import OTHER_SEAL_KEY, SEAL_KEY, expect_error, state_of

# Bisley deal 1: following fresh hints goes round in circles after 25 moves (t2-t4,
# t4-t2, ...); the first search proves it won.
CYCLING = ("bisley", 1)


async def test_following_plans_wins_with_one_search(sealed_client: EngineClient) -> None:
    game = await sealed_client.new_game(CYCLING[0], deal=CYCLING[1])
    state, plan = game.state, b""
    searched = seen = 0
    positions: set[bytes] = set()
    while True:
        reply = await sealed_client.hint(state, plan=plan)
        if reply.kind == engine_pb2.HINT_KIND_NONE:
            break
        assert reply.kind == engine_pb2.HINT_KIND_WINNING
        assert reply.verdict == engine_pb2.VERDICT_WON
        searched += reply.positions > 0
        # the plan stays the first hint's: each answer finds its place on the line
        assert reply.plan and (not plan or reply.plan == plan)
        plan = reply.plan
        moved = await sealed_client.apply_move(state, reply.move.notation)
        state = moved.state
        seen += 1
        key = patience.solver.seen_key(state_of(state, SEAL_KEY))
        assert key not in positions, f"position repeated after {seen} hints"
        positions.add(key)
    assert moved.view.status == game_pb2.GAME_STATUS_WON
    assert searched == 1 and seen > 25


async def test_a_hint_asked_again_before_a_move_is_the_same_move(
    sealed_client: EngineClient,
) -> None:
    game = await sealed_client.new_game(CYCLING[0], deal=CYCLING[1])
    first = await sealed_client.hint(game.state)
    again = await sealed_client.hint(game.state, plan=first.plan)
    assert (again.kind, again.move, again.plan) == (first.kind, first.move, first.plan)
    assert again.positions == 0


async def test_the_plan_s_line_is_continued_after_an_undo(sealed_client: EngineClient) -> None:
    game = await sealed_client.new_game(CYCLING[0], deal=CYCLING[1])
    first = await sealed_client.hint(game.state)
    second_state = (await sealed_client.apply_move(game.state, first.move.notation)).state
    second = await sealed_client.hint(second_state, plan=first.plan)
    assert second.positions == 0 and second.move != first.move
    # back at the first position (as after an undo): the plan's first move again
    back = await sealed_client.hint(game.state, plan=second.plan)
    assert (back.move, back.positions) == (first.move, 0)


async def test_a_plan_off_the_line_is_not_used(sealed_client: EngineClient) -> None:
    """The player went another way: the hint is searched for where the game is."""
    other = await sealed_client.new_game("bisley", deal=3)
    game = await sealed_client.new_game(CYCLING[0], deal=CYCLING[1])
    plan = (await sealed_client.hint(other.state)).plan
    own = await sealed_client.hint(game.state)
    given = await sealed_client.hint(game.state, plan=plan)
    assert given.move == own.move and given.plan == own.plan  # the remembered search


@pytest.mark.parametrize(
    "how", ["garbage", "a byte changed", "another engine's key", "a state's envelope"]
)
async def test_a_plan_the_engine_cannot_open_is_ignored(
    sealed_client: EngineClient, how: str
) -> None:
    game = await sealed_client.new_game(CYCLING[0], deal=CYCLING[1])
    first = await sealed_client.hint(game.state)
    state = state_of(game.state, SEAL_KEY)
    decoded = hint_plans.open_plan(Sealer(SEAL_KEY), first.plan, state)
    assert decoded is not None and decoded.kind is HintKind.WINNING
    forged = hint_plans.encode(
        patience.solver.Hint(HintKind.WINS_ALL, None, Verdict.WON, 0, 0.0, line=decoded.line),
        state,
    )
    plans = {
        "garbage": b"\x01" + bytes(60),
        "a byte changed": first.plan[:-1] + bytes((first.plan[-1] ^ 1,)),
        "another engine's key": hint_plans.seal(Sealer(OTHER_SEAL_KEY), forged),
        "a state's envelope": game.state.state,
    }
    given = await sealed_client.hint(game.state, plan=plans[how])
    # answered as without a plan (from the search remembered), never the forged kind
    assert (given.kind, given.move, given.plan) == (first.kind, first.move, first.plan)


async def test_a_plan_is_not_a_state(sealed_client: EngineClient) -> None:
    game = await sealed_client.new_game(CYCLING[0], deal=CYCLING[1])
    plan = (await sealed_client.hint(game.state)).plan
    failed = await expect_error(sealed_client.hint(game_pb2.SealedState(state=plan)))
    assert failed.reason == "STATE_SEAL_INVALID"


def test_a_plan_is_read_back_as_it_was_written() -> None:
    for variant, deal, moves in (
        (CYCLING[0], CYCLING[1], ()),
        ("napoleon-at-st-helena", 7, ()),  # the line stops at its first deal
        ("the-fifteen", 1, ("withdraw t4 t14",)),  # a withdraw
    ):
        state = patience.get_variant(variant).new_game(deal)
        line = (
            tuple((bytes(6), patience.Move.parse(m)) for m in moves)
            or patience.solver.hint(state).line
        )
        found = patience.solver.Hint(
            HintKind.WINS_MOST, None, Verdict.UNKNOWN, 0, 0.0, 8, 5, 2, True, line
        )
        data = hint_plans.encode(found, state)
        assert hint_plans.decode(data, state) == found
        for cut in (0, 5, 11, len(data) - 1):
            assert hint_plans.decode(data[:cut], state) is None
