"""The Hint RPC is fair: for a game that hides cards, its answer (and the view's outlook)
is the same whatever the hidden cards are, for the same seen position; only Solve, the
trusted call, answers with full knowledge of them. Over gRPC, as a client calls it.

The budgets are in positions only (the time allowed is the most a hint may have), so
that each answer is the same search however loaded the machine is."""

from __future__ import annotations

import random

import patience
import pytest
from patience_contract.client import EngineClient
from solitaire.v1 import engine_pb2

from tests.engine.helpers import unsealed
from tests.solver.test_fair_hints import HIDDEN, TWO_LEFT, played_positions, rearranged

POSITIONS = 2_000
MILLISECONDS = 5_000  # the Hint's maximum: never reached by these searches


def _told(reply: engine_pb2.HintResponse) -> bytes:
    """The reply less the time it took."""
    told = engine_pb2.HintResponse()
    told.CopyFrom(reply)
    told.milliseconds = 0
    data: bytes = told.SerializeToString(deterministic=True)
    return data


async def _hint(client: EngineClient, state: patience.State, positions: int = POSITIONS) -> bytes:
    reply = await client.hint(
        unsealed(state), max_positions=positions, max_milliseconds=MILLISECONDS
    )
    assert reply.kind != engine_pb2.HINT_KIND_LOST
    # no arrangement searched only when a line that turns up no hidden card wins
    assert reply.arrangements > 0 or reply.verdict == engine_pb2.VERDICT_WON
    return _told(reply)


async def test_the_stock_order_changes_the_solve_and_not_the_hint(client: EngineClient) -> None:
    won = patience.parse_state(TWO_LEFT)
    lost = patience.parse_state(TWO_LEFT.replace("s:9S2D", "s:2D9S"))
    # a minute for the 20,000 positions: a crowded machine searches them slowly
    solved = [
        (
            await client.solve(
                unsealed(state), max_positions=20_000, max_milliseconds=60_000, timeout=90
            )
        ).verdict
        for state in (won, lost)
    ]
    assert solved == [engine_pb2.VERDICT_WON, engine_pb2.VERDICT_LOST]
    hints = [await _hint(client, state, 20_000) for state in (won, lost)]
    assert hints[0] == hints[1]
    reply = engine_pb2.HintResponse.FromString(hints[0])
    assert (reply.kind, reply.verdict) == (
        engine_pb2.HINT_KIND_WINS_SOME,
        engine_pb2.VERDICT_UNKNOWN,
    )
    assert (reply.arrangements, reply.winning_arrangements, reply.lost_arrangements) == (2, 1, 1)
    assert reply.every_arrangement
    assert reply.move.notation in {str(move) for move in won.legal_moves()}


@pytest.mark.parametrize("variant_id", HIDDEN)
async def test_a_hint_over_grpc_is_the_same_whatever_the_hidden_cards(
    client: EngineClient, variant_id: str
) -> None:
    rng = random.Random(variant_id)
    for state in played_positions(variant_id, 2, seed=3 * len(variant_id)):
        other = rearranged(state, rng)
        assert await _hint(client, state) == await _hint(client, other)
        views = [await client.player_view(unsealed(s)) for s in (state, other)]
        assert views[0].outlook == views[1].outlook
        assert views[0].piles == views[1].piles  # the same seen position


async def test_a_dealt_game_gets_a_fair_hint(client: EngineClient) -> None:
    """A game as the engine deals it: its hint searches arrangements, and names a legal
    move."""
    game = await client.new_game("napoleon-at-st-helena")
    reply = await client.hint(game.state, max_positions=POSITIONS, max_milliseconds=MILLISECONDS)
    assert reply.arrangements > 0 and not reply.every_arrangement
    assert reply.move.notation in {move.notation for move in game.view.legal_moves}
