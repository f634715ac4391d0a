"""Sealed states: with a key, states leave the engine encrypted and authenticated (an
AEAD envelope), tell nothing hidden to whoever holds them, and only states sealed with
one of the engine's keys are taken."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import patience
import pytest
from google.protobuf.message import DecodeError
from hypothesis import given
from hypothesis import strategies as st
from patience_contract.client import EngineClient, EngineError
from patience_contract.errors import Rejected
from patience_engine.config import EngineConfig
from patience_engine.encoding import REFERENCE
from patience_engine.sealing import (
    ENVELOPE_VERSION,
    HEADER_BYTES,
    NONCE_BYTES,
    OVERHEAD_BYTES,
    Sealer,
    key_id_of,
)
from patience_engine.server import describe_sealing, warn_if_unsealed
from solitaire.v1 import engine_pb2, game_pb2

from tests.engine.helpers import (
    OTHER_SEAL_KEY,
    SEAL_KEY,
    EngineThread,
    expect_error,
    game_state_of,
    key_id_in,
    mutated,
    state_of,
    unsealed,
)

NEW_KEY = b"the-key-after-rotation"


def _is_seal_error(error: object) -> bool:
    return (
        getattr(error, "code", None) == grpc.StatusCode.INVALID_ARGUMENT
        and getattr(error, "reason", None) == "STATE_SEAL_INVALID"
    )


def _is_unknown_key(error: EngineError, key: bytes) -> bool:
    return (
        error.code == grpc.StatusCode.FAILED_PRECONDITION
        and error.reason == "STATE_KEY_UNKNOWN"
        and error.metadata == {"key_id": key_id_of(key)}
    )


@pytest.fixture(scope="module")
def rotated_engine() -> Iterator[EngineThread]:
    """An engine whose key was rotated: it seals with NEW_KEY and still opens SEAL_KEY's."""
    config = EngineConfig(
        listen="127.0.0.1:0", workers=1, seal_key=NEW_KEY, old_seal_keys=(SEAL_KEY,)
    )
    engine = EngineThread(config).start()
    try:
        yield engine
    finally:
        engine.stop()


async def test_a_sealed_state_is_an_envelope_under_the_engine_key(
    sealed_client: EngineClient,
) -> None:
    game = await sealed_client.new_game("bisley", deal=3)
    data = game.state.state
    assert data[0] == ENVELOPE_VERSION
    assert key_id_in(game.state) == key_id_of(SEAL_KEY)
    assert game.state.seal == b""
    # Only the key opens it, and inside is the game as dealt.
    assert state_of(game.state, SEAL_KEY) == patience.get_variant("bisley").new_game(3)
    assert len(data) == len(game_state_of(game.state, SEAL_KEY).SerializeToString()) + (
        OVERHEAD_BYTES
    )


async def test_a_sealed_state_tells_nothing_hidden(sealed_client: EngineClient) -> None:
    """Napoleon's stock order and a random deal's number are not in the bytes a client
    holds, in any form the engine writes them (finding: the state was plain GameState)."""
    game = await sealed_client.new_game("napoleon-at-st-helena")
    inside = game_state_of(game.state, SEAL_KEY)
    assert inside.deal_secret and game.view.deal == ""
    stock = inside.piles[patience.get_variant("napoleon-at-st-helena").pile_ids.index("stock")]
    data = game.state.state
    assert len(stock.cards) > 8
    for secret in (inside.deal.encode(), stock.cards[:8], inside.SerializeToString()[:12]):
        assert secret not in data
    try:
        parsed = game_pb2.GameState.FromString(data)
    except DecodeError:
        pass
    else:
        assert parsed.variant != "napoleon-at-st-helena"
    # The same position sealed twice gives unrelated bytes (a fresh nonce each time).
    again = await sealed_client.apply_moves(game.state, [])
    assert again.state.state != data
    assert again.state.state[HEADER_BYTES + NONCE_BYTES :] != data[HEADER_BYTES + NONCE_BYTES :]


async def test_unsealed_engine_hands_out_plain_states_and_ignores_seals(
    client: EngineClient,
) -> None:
    game = await client.new_game("bisley", deal=3)
    assert game.state.seal == b""
    assert state_of(game.state) == patience.get_variant("bisley").new_game(3)
    with_junk_seal = game_pb2.SealedState(state=game.state.state, seal=b"anything")
    assert await client.player_view(with_junk_seal) == game.view


async def test_sealed_engine_takes_its_own_states(sealed_client: EngineClient) -> None:
    game = await sealed_client.new_game("cody", deal=9)
    for move in list(game.view.legal_moves)[:3]:
        game = await sealed_client.apply_move(game.state, move)
    assert game.view.counters.moves_made == 3
    assert (await sealed_client.player_view(game.state)) == game.view


async def test_a_changed_envelope_is_refused(sealed_client: EngineClient) -> None:
    game = await sealed_client.new_game("usk", deal=5)
    data = game.state.state
    for at in (0, HEADER_BYTES, HEADER_BYTES + NONCE_BYTES, len(data) // 2, len(data) - 1):
        changed = bytearray(data)
        changed[at] ^= 0x01
        tampered = game_pb2.SealedState(state=bytes(changed))
        error = await expect_error(sealed_client.apply_move(tampered, "t1-f1"))
        assert _is_seal_error(error), at
        assert error.metadata == {}
    for cut in (data[:-1], data + b"\x00", data[: OVERHEAD_BYTES - 1]):
        error = await expect_error(sealed_client.player_view(game_pb2.SealedState(state=cut)))
        assert _is_seal_error(error)


async def test_a_plain_state_is_refused_by_a_sealed_engine(sealed_client: EngineClient) -> None:
    # A well-formed state that this engine never made, e.g. one with its stock rearranged.
    state = patience.get_variant("napoleon-at-st-helena").new_game(5)
    stock = state.variant.pile_ids.index("stock")
    piles = list(state.piles)
    piles[stock] = tuple(reversed(piles[stock]))
    forged = patience.State.from_parts(
        state.variant, tuple(piles), redeals_left=0, moves_made=0, deal=5, draws=state.draws
    )
    for plain in (unsealed(state), unsealed(forged)):
        error = await expect_error(sealed_client.legal_moves(plain))
        assert _is_seal_error(error)
        assert "not sealed" in error.message
    garbage = game_pb2.SealedState(state=b"\xff\xff", seal=b"\x00" * 32)
    assert _is_seal_error(await expect_error(sealed_client.player_view(garbage)))


async def test_state_sealed_with_another_key_is_refused(
    sealed_client: EngineClient, other_sealed_engine: EngineThread
) -> None:
    async with EngineClient(other_sealed_engine.target, timeout=30) as other:
        game = await other.new_game("bisley", deal=3)
    error = await expect_error(sealed_client.player_view(game.state))
    assert _is_unknown_key(error, OTHER_SEAL_KEY)


async def test_unsealed_engine_refuses_a_sealed_state(
    client: EngineClient, sealed_client: EngineClient
) -> None:
    game = await sealed_client.new_game("bisley", deal=3)
    error = await expect_error(client.player_view(game.state))
    assert _is_unknown_key(error, SEAL_KEY)
    assert "no key" in error.message


async def test_a_rotated_engine_opens_old_states_and_seals_with_the_new_key(
    sealed_client: EngineClient, rotated_engine: EngineThread
) -> None:
    old = await sealed_client.new_game("la-belle-lucie", deal=11)
    async with EngineClient(rotated_engine.target, timeout=30) as rotated:
        assert await rotated.player_view(old.state) == old.view
        moved = await rotated.apply_move(old.state, old.view.legal_moves[0])
        assert key_id_in(moved.state) == key_id_of(NEW_KEY)
        fresh = await rotated.new_game("la-belle-lucie", deal=11)
        assert key_id_in(fresh.state) == key_id_of(NEW_KEY)
    # The engine that has only the old key cannot open what the new key sealed.
    error = await expect_error(sealed_client.player_view(moved.state))
    assert _is_unknown_key(error, NEW_KEY)


def test_sealer_round_trip_and_key_ids() -> None:
    sealer = Sealer(NEW_KEY, [SEAL_KEY, OTHER_SEAL_KEY])
    assert sealer.enabled
    assert sealer.key_id == key_id_of(NEW_KEY)
    assert sealer.key_ids[0] == sealer.key_id
    assert set(sealer.key_ids) == {key_id_of(k) for k in (NEW_KEY, SEAL_KEY, OTHER_SEAL_KEY)}
    assert len({key_id_of(k) for k in (NEW_KEY, SEAL_KEY, OTHER_SEAL_KEY)}) == 3
    sealed = sealer.seal(b"some state")
    assert Sealer(NEW_KEY).unseal(sealed) == b"some state"
    # An old key's envelopes open; the sealer's own remembered envelopes need no key.
    assert sealer.unseal(Sealer(OTHER_SEAL_KEY).seal(b"older")) == b"older"
    with pytest.raises(Rejected) as caught:
        Sealer(SEAL_KEY).unseal(sealed)
    assert caught.value.reason == "STATE_KEY_UNKNOWN"


def test_sealer_without_key() -> None:
    sealer = Sealer(None)
    assert not sealer.enabled
    assert sealer.key_id == "" and sealer.key_ids == ()
    assert sealer.seal(b"abc") == game_pb2.SealedState(state=b"abc")
    assert sealer.unseal(game_pb2.SealedState(state=b"abc", seal=b"x")) == b"abc"
    assert not Sealer(b"").enabled
    with pytest.raises(ValueError, match="without a current key"):
        Sealer(None, [SEAL_KEY])


async def test_engine_info_tells_how_states_are_protected(
    client: EngineClient, sealed_client: EngineClient, rotated_engine: EngineThread
) -> None:
    plain = await client.engine_info()
    assert plain.state_protection == engine_pb2.STATE_PROTECTION_NONE
    assert (plain.seal_key_id, list(plain.seal_key_ids)) == ("", [])
    sealed = await sealed_client.engine_info()
    assert sealed.state_protection == engine_pb2.STATE_PROTECTION_SEALED
    assert sealed.seal_key_id == key_id_of(SEAL_KEY)
    assert list(sealed.seal_key_ids) == [key_id_of(SEAL_KEY)]
    async with EngineClient(rotated_engine.target, timeout=30) as rotated:
        info = await rotated.engine_info()
    assert info.seal_key_id == key_id_of(NEW_KEY)
    assert list(info.seal_key_ids) == [key_id_of(NEW_KEY), key_id_of(SEAL_KEY)]


def test_an_engine_without_a_key_says_so_loudly(caplog: pytest.LogCaptureFixture) -> None:
    unsealed_config = EngineConfig(listen="127.0.0.1:0", workers=1)
    sealed_config = EngineConfig(
        listen="127.0.0.1:0", workers=1, seal_key=NEW_KEY, old_seal_keys=(SEAL_KEY,)
    )
    with caplog.at_level("WARNING", logger="patience_engine"):
        warn_if_unsealed(sealed_config)
        assert caplog.records == []
        warn_if_unsealed(unsealed_config)
    (record,) = caplog.records
    assert record.levelname == "WARNING" and "UNSAFE DEVELOPMENT MODE" in record.getMessage()
    assert describe_sealing(unsealed_config) == "states NOT encrypted"
    assert describe_sealing(sealed_config) == (
        f"states encrypted with key {key_id_of(NEW_KEY)} (+1 old key)"
    )


async def test_an_engine_without_a_key_calls_out_a_rearranged_stock(
    client: EngineClient,
) -> None:
    """It cannot trust a state's hidden parts; what it can check, it does: a stock that
    is not what is left of the deal's stock is refused (finding: it was taken)."""
    state = patience.get_variant("napoleon-at-st-helena").new_game(5)
    for _ in range(3):
        state = state.apply(patience.Move.deal())
    stock = state.variant.pile_ids.index("stock")
    for rearranged in (
        tuple(reversed(state.piles[stock])),
        state.piles[stock][1:] + state.piles[stock][:1],
    ):
        piles = list(state.piles)
        piles[stock] = rearranged
        forged = patience.State.from_parts(
            state.variant,
            tuple(piles),
            redeals_left=0,
            moves_made=state.moves_made,
            deal=5,
            draws=state.draws,
        )
        # Written without `encode_state`, whose memo (shared with the engine running in
        # this process) would take the bytes for the engine's own.
        plain = game_pb2.SealedState(state=REFERENCE.game_state(forged, False))
        for call in (client.player_view, client.legal_moves):
            error = await expect_error(call(plain))
            assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_STATE")
            assert error.metadata == {"detail": "STOCK_NOT_FROM_DEAL"}
    # The true stock, three cards dealt, is taken.
    assert (await client.player_view(unsealed(state))).counters.stock_size == 61


@given(
    st.binary(min_size=1, max_size=400),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=4),
    st.sampled_from(["flip", "insert", "delete", "truncate"]),
)
def test_an_envelope_opens_to_what_was_sealed_or_not_at_all(
    state: bytes, edits: list[tuple[int, int]], how: str
) -> None:
    sealer = Sealer(SEAL_KEY, [OTHER_SEAL_KEY])
    envelope = sealer.wrap(state)
    assert Sealer(SEAL_KEY).unseal(game_pb2.SealedState(state=envelope)) == state
    changed = mutated(envelope, edits, how)
    if changed == envelope:
        return
    try:
        opened = Sealer(SEAL_KEY, [OTHER_SEAL_KEY]).unseal(game_pb2.SealedState(state=changed))
    except Rejected as rejected:
        assert rejected.reason in ("STATE_SEAL_INVALID", "STATE_KEY_UNKNOWN")
    else:
        raise AssertionError(f"a changed envelope opened to {opened!r}")
