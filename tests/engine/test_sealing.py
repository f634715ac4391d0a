"""Sealed states: an engine with a key accepts only states sealed with that key."""

from __future__ import annotations

import hashlib
import hmac

import grpc
import patience
from patience_engine.client import EngineClient
from patience_engine.sealing import Sealer
from solitaire.v1 import game_pb2

from tests.engine.helpers import SEAL_KEY, EngineThread, expect_error, state_of, unsealed


def _is_seal_error(error: object) -> bool:
    return (
        getattr(error, "code", None) == grpc.StatusCode.INVALID_ARGUMENT
        and getattr(error, "reason", None) == "STATE_SEAL_INVALID"
    )


async def test_sealed_engine_seals_with_hmac_sha256(sealed_client: EngineClient) -> None:
    game = await sealed_client.new_game("bisley", deal=3)
    expected = hmac.new(SEAL_KEY, game.state.state, hashlib.sha256).digest()
    assert game.state.seal == expected
    moved = await sealed_client.apply_move(game.state, game.view.legal_moves[0])
    assert moved.state.seal == hmac.new(SEAL_KEY, moved.state.state, hashlib.sha256).digest()


async def test_unsealed_engine_leaves_seals_empty_and_ignores_them(client: EngineClient) -> None:
    game = await client.new_game("bisley", deal=3)
    assert game.state.seal == b""
    with_junk_seal = game_pb2.SealedState(state=game.state.state, seal=b"anything")
    assert await client.player_view(with_junk_seal) == game.view


async def test_sealed_engine_takes_its_own_states(sealed_client: EngineClient) -> None:
    game = await sealed_client.new_game("cody", deal=9)
    for move in list(game.view.legal_moves)[:3]:
        game = await sealed_client.apply_move(game.state, move)
    assert game.view.counters.moves_made == 3
    assert (await sealed_client.player_view(game.state)) == game.view


async def test_tampered_state_bytes_are_refused(sealed_client: EngineClient) -> None:
    game = await sealed_client.new_game("usk", deal=5)
    data = bytearray(game.state.state)
    data[-1] ^= 0x01
    tampered = game_pb2.SealedState(state=bytes(data), seal=game.state.seal)
    error = await expect_error(sealed_client.player_view(tampered))
    assert _is_seal_error(error)
    assert error.metadata == {}


async def test_tampered_seal_is_refused(sealed_client: EngineClient) -> None:
    game = await sealed_client.new_game("usk", deal=5)
    seal = bytearray(game.state.seal)
    seal[0] ^= 0x80
    for bad_seal in (bytes(seal), game.state.seal[:-1], game.state.seal + b"\x00"):
        tampered = game_pb2.SealedState(state=game.state.state, seal=bad_seal)
        assert _is_seal_error(await expect_error(sealed_client.apply_move(tampered, "t1-f1")))


async def test_missing_seal_is_refused(sealed_client: EngineClient) -> None:
    game = await sealed_client.new_game("usk", deal=5)
    bare = game_pb2.SealedState(state=game.state.state)
    error = await expect_error(sealed_client.legal_moves(bare))
    assert _is_seal_error(error)
    assert "no seal" in error.message


async def test_seal_is_checked_before_the_bytes_are_read(sealed_client: EngineClient) -> None:
    # Garbage with a wrong seal is a seal error, not a parse error.
    garbage = game_pb2.SealedState(state=b"\xff\xff", seal=b"\x00" * 32)
    assert _is_seal_error(await expect_error(sealed_client.player_view(garbage)))
    # A well-formed state that this engine never made is refused too.
    forged = unsealed(patience.get_variant("usk").new_game(5))
    assert _is_seal_error(await expect_error(sealed_client.player_view(forged)))


async def test_state_sealed_with_another_key_is_refused(
    sealed_client: EngineClient, other_sealed_engine: EngineThread
) -> None:
    async with EngineClient(other_sealed_engine.target, timeout=30) as other:
        game = await other.new_game("bisley", deal=3)
        assert state_of(game.state) == patience.get_variant("bisley").new_game(3)
    assert _is_seal_error(await expect_error(sealed_client.player_view(game.state)))


def test_sealer_without_key() -> None:
    sealer = Sealer(None)
    assert not sealer.enabled
    assert sealer.seal(b"abc") == game_pb2.SealedState(state=b"abc")
    assert sealer.unseal(game_pb2.SealedState(state=b"abc", seal=b"x")) == b"abc"
    assert not Sealer(b"").enabled
