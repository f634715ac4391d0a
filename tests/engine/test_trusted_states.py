"""Sealed states are read on trust: an engine with a key skips the deep validation of
bytes whose seal checks out, and only of those.

Which path a read takes is seen by counting the calls of the two rules-library
constructors (`State.from_parts` validates in full, `State.from_trusted_parts` checks
the shape only); the memos of states already read are emptied first, so that every
read is a real one.
"""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import grpc
import patience
import pytest
from hypothesis import given
from hypothesis import strategies as st
from patience_contract.client import EngineClient
from patience_contract.errors import Reason, Rejected
from patience_engine import codec
from patience_engine.codec import Position, decode_state, encode_state
from patience_engine.sealing import Sealer
from patience_engine.views import player_view_bytes
from solitaire.v1 import game_pb2

from tests.engine.helpers import SEAL_KEY, expect_error, game_state_of, mutated


def played(variant_id: str, deal: int, moves: int, seed: int = 0) -> patience.State:
    chooser = random.Random(seed)
    state = patience.get_variant(variant_id).new_game(deal)
    for _ in range(moves):
        legal = state.legal_moves()
        if not legal:
            break
        state = state.apply(chooser.choice(legal))
    return state


def forget_read_states() -> None:
    codec.RECENT_STATES.clear()
    codec.TRUSTED_STATES.clear()


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How often each constructor ran, the memos of read states emptied first."""
    counts: Counter[str] = Counter()
    for name in ("from_parts", "from_trusted_parts"):
        original = getattr(patience.State, name)

        def counted(*args: Any, _name: str = name, _original: Any = original, **kw: Any) -> Any:
            counts[_name] += 1
            return _original(*args, **kw)

        monkeypatch.setattr(patience.State, name, counted)
    forget_read_states()
    yield counts
    forget_read_states()


def message_of(state: patience.State, **changes: Any) -> bytes:
    message = game_pb2.GameState.FromString(encode_state(Position(state, False)))
    for name, value in changes.items():
        if name == "piles":
            del message.piles[:]
            for pile in value:
                message.piles.add(cards=bytes(pile))
        else:
            setattr(message, name, value)
    forget_read_states()  # encode_state remembered the original
    data: bytes = message.SerializeToString()
    return data


# --------------------------------------------------------------------------- the codec


def test_a_trusted_read_skips_the_validation(builds: Counter[str]) -> None:
    state = played("house-on-the-hill", 4, 30)
    data = message_of(state)
    assert decode_state(data, trusted=True) == Position(state, False)
    assert builds == {"from_trusted_parts": 1}


def test_an_untrusted_read_validates(builds: Counter[str]) -> None:
    state = played("usk", 4, 12)
    data = message_of(state)
    assert decode_state(data) == Position(state, False)
    assert builds == {"from_parts": 1}


def test_trusted_reads_are_not_remembered_for_untrusted_ones(builds: Counter[str]) -> None:
    data = message_of(played("cody", 2, 5))
    decode_state(data, trusted=True)
    decode_state(data, trusted=True)  # remembered
    decode_state(data)  # not taken from what was read on trust
    assert builds == {"from_trusted_parts": 1, "from_parts": 1}


def test_both_reads_give_the_same_positions() -> None:
    for index, variant_id in enumerate(patience.VARIANTS):
        for moves in (0, 7, 60):
            state = played(variant_id, 100 + index, moves, seed=moves)
            data = message_of(state)
            trusted = decode_state(data, trusted=True)
            forget_read_states()
            assert trusted == decode_state(data) == Position(state, False)


def test_a_trusted_read_skips_only_the_reachability_checks() -> None:
    """An impossible position that is well shaped is taken on trust, and refused
    otherwise (the key vouches for it, not the checks)."""
    state = played("usk", 9, 0)
    piles = [list(pile) for pile in state.piles]
    piles[0][-1] = piles[1][-1]  # one card twice, another missing
    data = message_of(state, piles=piles)
    assert decode_state(data, trusted=True).state.piles[0][-1] == piles[1][-1]
    with pytest.raises(Rejected) as caught:
        decode_state(data)
    assert caught.value.metadata["detail"] == "WRONG_CARDS"


def trusted_rejection(data: bytes) -> Rejected:
    with pytest.raises(Rejected) as caught:
        decode_state(data, trusted=True)
    return caught.value


def test_a_trusted_read_still_refuses_bad_shapes() -> None:
    state = played("la-belle-lucie", 3, 5)
    piles = [list(pile) for pile in state.piles]
    cases: list[tuple[bytes, str]] = [
        (message_of(state, piles=piles[:-1]), "WRONG_PILE_COUNT"),
        (message_of(state, piles=[[*piles[0][:-1], 52], *piles[1:]]), "WRONG_CARDS"),
        (message_of(state, piles=[piles[0][:-1], *piles[1:]]), "WRONG_CARDS"),
        (message_of(state, redeals_left=9), "BAD_COUNTER"),
        (message_of(state, draws=2**32 - 1), "BAD_COUNTER"),
        (message_of(state, deal=str(10**20 + 1)), "BAD_DEAL"),
        (message_of(state, variant="klondike"), "UNKNOWN_VARIANT"),
    ]
    for data, detail in cases:
        error = trusted_rejection(data)
        assert (error.reason, error.metadata["detail"]) == (Reason.INVALID_STATE, detail)
    assert trusted_rejection(b"\xff\xff").reason == Reason.MALFORMED_STATE
    good = message_of(state)
    assert trusted_rejection(good + b"\x50\x01").reason == Reason.MALFORMED_STATE


def test_a_trusted_read_refuses_an_overfull_foundation() -> None:
    state = played("bisley", 1, 0)
    piles = [list(pile) for pile in state.piles]
    first = state.variant.pile_ids.index("f1")
    # Fourteen cards on f1, taken from the tableau so that the count stays right.
    moved = [card for pile in piles[:first] for card in pile][: 14 - len(piles[first])]
    for card in moved:
        for pile in piles[:first]:
            if card in pile:
                pile.remove(card)
                break
    piles[first] += moved
    error = trusted_rejection(message_of(state, piles=piles))
    assert error.metadata["detail"] == "BAD_FOUNDATION"


base_states = [
    encode_state(Position(played(variant_id, index + 1, 6, seed=index), index % 2 == 1))
    for index, variant_id in enumerate(patience.VARIANTS)
]


@given(
    st.integers(min_value=0, max_value=len(base_states) - 1),
    st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), min_size=1, max_size=4),
    st.sampled_from(["flip", "insert", "delete", "truncate"]),
)
def test_trusted_reads_of_any_bytes_never_fault(
    which: int, edits: list[tuple[int, int]], how: str
) -> None:
    """Even bytes no engine wrote (as if the key had leaked) are refused cleanly or
    give a position the rules can play on without faults."""
    data = mutated(base_states[which], edits, how)
    forget_read_states()
    try:
        position = decode_state(bytes(data), trusted=True)
    except Rejected as rejected:
        assert rejected.reason in {Reason.INVALID_STATE, Reason.MALFORMED_STATE}
        return
    state = position.state
    player_view_bytes(position)
    for move in state.legal_moves():
        state.apply_with_events(move)
    for move in (patience.Move.deal(), patience.Move.redeal(), patience.Move.withdraw("t1")):
        with contextlib.suppress(patience.IllegalMove):
            state.apply_with_events(move)


# --------------------------------------------------------------------------- the engine


async def test_a_sealed_engine_reads_its_sealed_states_on_trust(
    sealed_client: EngineClient, builds: Counter[str]
) -> None:
    game = await sealed_client.new_game("napoleon-at-st-helena", deal=77)
    for _ in range(3):
        forget_read_states()  # as if another engine process had written the state
        game = await sealed_client.apply_move(game.state, game.view.legal_moves[-1])
    forget_read_states()
    assert await sealed_client.player_view(game.state) == game.view
    assert builds["from_parts"] == 0
    assert builds["from_trusted_parts"] == 4


async def test_an_unsealed_engine_validates_every_state(
    client: EngineClient, builds: Counter[str]
) -> None:
    game = await client.new_game("napoleon-at-st-helena", deal=77)
    for _ in range(3):
        forget_read_states()
        game = await client.apply_move(game.state, game.view.legal_moves[-1])
    forget_read_states()
    assert await client.player_view(game.state) == game.view
    assert builds["from_trusted_parts"] == 0
    assert builds["from_parts"] == 4


async def test_a_sealed_engine_refuses_a_changed_state_however_plausible(
    sealed_client: EngineClient, builds: Counter[str]
) -> None:
    """A valid position that is not the engine's own envelope, or an envelope changed
    in any byte, is a seal error, and is not read at all."""
    game = await sealed_client.new_game("usk", deal=5)
    message = game_state_of(game.state, SEAL_KEY)
    message.moves_made += 1  # as possible a state as the original
    envelope = bytearray(game.state.state)
    envelope[-20] ^= 0x01  # a ciphertext byte
    for changed in (message.SerializeToString(), bytes(envelope)):
        error = await expect_error(
            sealed_client.apply_move(game_pb2.SealedState(state=changed), "t1-f1")
        )
        assert (error.code, error.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "STATE_SEAL_INVALID",
        )
    assert builds == {}


async def test_an_impossible_state_under_a_good_seal_is_taken_but_harmless(
    sealed_client: EngineClient,
) -> None:
    """Only someone holding the key can do this; the engine answers without fault."""
    state = played("usk", 9, 0)
    piles = [list(pile) for pile in state.piles]
    piles[0][-1] = piles[1][-1]
    data = message_of(state, piles=piles)
    sealed = Sealer(SEAL_KEY).seal(data)
    view = await sealed_client.player_view(sealed)
    assert view.piles[0].cards[-1] == view.piles[1].cards[-1]
