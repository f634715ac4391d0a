"""The speed path equals the reference, byte for byte, on every reply the engine writes.

For every variant: games from the opening (with and without its options, small and
huge deal numbers) through random play to their end or a few hundred moves, and the
golden win to its won end; at every position both writers write the state, the view
(deal secret or not), the legal moves and each move, and at every step each of the four
game replies for the move, for a batch of moves, and for no move at all.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import patience
import pytest
from patience_engine.codec import Position
from patience_engine.encoding import REFERENCE, SPEED_PATH, GameReply
from patience_engine.sealing import Sealer
from patience_engine.views import player_view_bytes
from solitaire.v1 import engine_pb2

from tests.engine.helpers import SEAL_KEY, load_wins

GAME_REPLIES: tuple[GameReply, ...] = (
    engine_pb2.NewGameResponse,
    engine_pb2.ApplyMoveResponse,
    engine_pb2.ApplyMovesResponse,
    engine_pb2.AutoplayResponse,
)
# Random play stops here if the game has not ended (some never do: redeals, cycles).
MOST_MOVES = 300
BATCH = 5
SEALER = Sealer(SEAL_KEY)


def same(fast: bytes, reference: bytes, what: str) -> None:
    """Says where the two writings part, when they do."""
    if fast != reference:
        at = next(
            (i for i, (a, b) in enumerate(zip(fast, reference, strict=False)) if a != b),
            min(len(fast), len(reference)),
        )
        pytest.fail(
            f"{what}: the speed path ({len(fast)} bytes) and the reference "
            f"({len(reference)} bytes) part at byte {at}"
        )


# A game: its opening and the moves played from it.
Game = tuple[patience.State, list[patience.Move]]


def random_game(variant: patience.Variant, deal: int, options: Sequence[str], seed: int) -> Game:
    chooser = random.Random(seed)
    opening = state = variant.new_game(deal, options)
    moves: list[patience.Move] = []
    while len(moves) < MOST_MOVES and (legal := state.legal_moves()):
        moves.append(chooser.choice(legal))
        state = state.apply(moves[-1])
    return opening, moves


def won_game(variant_id: str) -> Game:
    win = load_wins()[variant_id]
    opening = patience.get_variant(variant_id).new_game(int(win["deal"]), win["options"])
    return opening, [patience.Move.parse(notation) for notation in win["moves"]]


def games(variant_id: str) -> Iterator[Game]:
    variant = patience.get_variant(variant_id)
    yield random_game(variant, 3, (), seed=1)
    yield random_game(variant, 10**18 + 7, tuple(variant.options), seed=2)
    yield random_game(variant, 99_999_999_999_999_999_999, (), seed=3)
    yield won_game(variant_id)


def check_position(state: patience.State) -> None:
    legal = state.legal_moves()
    for secret in (False, True):
        position = Position(state, secret)
        same(
            SPEED_PATH.game_state(state, secret),
            REFERENCE.game_state(state, secret),
            f"GameState at move {state.moves_made}",
        )
        fast_view = player_view_bytes(position, writer=SPEED_PATH)
        same(
            fast_view,
            player_view_bytes(position, writer=REFERENCE),
            f"PlayerView at move {state.moves_made} (deal secret: {secret})",
        )
        same(
            SPEED_PATH.player_view_response(fast_view),
            REFERENCE.player_view_response(fast_view),
            "GetPlayerViewResponse",
        )
    same(
        SPEED_PATH.legal_moves_response(legal),
        REFERENCE.legal_moves_response(legal),
        f"ListLegalMovesResponse at move {state.moves_made}",
    )
    for move in legal:
        same(SPEED_PATH.move_message(move), REFERENCE.move_message(move), f"Move {move}")


def check_replies(before: patience.State, moves: Sequence[patience.Move], *, secret: bool) -> None:
    """Every game reply for `moves` played from `before`, by both writers."""
    state = before
    events: list[patience.CardMoved] = []
    for move in moves:
        state, moved = state.apply_with_events(move)
        events.extend(moved)
    data = REFERENCE.game_state(state, secret)
    view = player_view_bytes(Position(state, secret), writer=REFERENCE)
    for sealed in (
        REFERENCE.sealed_state(data, b""),
        REFERENCE.sealed_state(SEALER.wrap(data), b""),
        REFERENCE.sealed_state(data, b"\x01" * 32),
    ):
        for reply in GAME_REPLIES:
            same(
                SPEED_PATH.game_response(reply, sealed, view, moves, events),
                REFERENCE.game_response(reply, sealed, view, moves, events),
                f"{reply.__name__} for {len(moves)} moves from move {before.moves_made}",
            )
    for state_bytes, seal in ((data, b"\x01" * 32), (data, b""), (b"", b"")):
        same(
            SPEED_PATH.sealed_state(state_bytes, seal),
            REFERENCE.sealed_state(state_bytes, seal),
            "SealedState",
        )


@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
def test_the_speed_path_writes_what_the_reference_writes(variant_id: str) -> None:
    ends = set()
    for opening, moves in games(variant_id):
        state = opening
        for index in range(len(moves) + 1):
            check_position(state)
            secret = index % 2 == 1
            check_replies(state, [], secret=secret)  # nothing played: Autoplay, NewGame
            check_replies(state, moves[index : index + 1], secret=secret)
            if index % BATCH == 0:
                check_replies(state, moves[index : index + BATCH], secret=secret)
            if index < len(moves):
                state = state.apply(moves[index])
        ends.add(state.status)
    assert patience.Status.WON in ends  # the golden win, played to its end
