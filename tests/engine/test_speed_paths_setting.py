"""PATIENCE_SPEED_PATHS: on by default, off (or another word for off) runs the reference
writer in the engine and its search processes, anything else is refused; and only the seam
knows the speed path."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc
import patience
import patience_engine
import pytest
from patience.solver import safe_foundation_moves
from patience_engine.codec import Position
from patience_engine.config import EngineConfig
from patience_engine.encoding import REFERENCE, SPEED_PATH, GameReply, ReplyWriter, writer_for
from patience_engine.search_replies import answer
from patience_engine.searches import SearchJob
from patience_engine.servicer import SERVICE_NAME
from patience_engine.views import player_view_bytes
from solitaire.v1 import engine_pb2, game_pb2

from tests.engine.helpers import EngineThread
from tests.engine.test_entry_point import PATIENCE_SECONDS, serving_lines, start_engine, wait_for

SETTING = "PATIENCE_SPEED_PATHS"
WRITER_METHODS = [name for name in vars(ReplyWriter) if not name.startswith("_")]


# --------------------------------------------------------------------------- the setting


@pytest.mark.parametrize(
    ("env", "on"),
    [
        ({}, True),
        ({SETTING: ""}, True),
        ({SETTING: "on"}, True),
        ({SETTING: "TRUE"}, True),
        ({SETTING: " off "}, False),
        ({SETTING: "OFF"}, False),
        ({SETTING: "false"}, False),
        ({SETTING: "no"}, False),
        ({SETTING: "0"}, False),
    ],
)
def test_the_speed_paths_are_on_unless_turned_off(env: dict[str, str], on: bool) -> None:
    config = EngineConfig.from_env(env)
    assert config.speed_paths is on
    assert writer_for(config.speed_paths) is (SPEED_PATH if on else REFERENCE)


@pytest.mark.parametrize("text", ["fast", "reference", "2", "offf"])
def test_any_other_value_is_a_configuration_error(text: str) -> None:
    with pytest.raises(ValueError, match=f"^PATIENCE_SPEED_PATHS must be on or off, not '{text}'$"):
        EngineConfig.from_env({SETTING: text})


def test_only_the_seam_imports_the_speed_path() -> None:
    """Every caller asks `patience_engine.encoding` for a writer: turning the speed path
    off leaves no way round it."""
    package = Path(patience_engine.__file__).parent
    importers = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if "fast" in imported_names(path)
    )
    assert importers == ["encoding/__init__.py"]


def imported_names(path: Path) -> set[str]:
    """The last part of every module, and every name, that `path` imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            names.update((node.module or "").split(".")[-1:])
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name.split(".")[-1] for alias in node.names)
    return names


# --------------------------------------------------------------------------- a server


@pytest.fixture
def engine_off() -> Iterator[EngineThread]:
    """An engine started from an environment that turns the speed paths off."""
    env = {"ENGINE_LISTEN": "127.0.0.1:0", "ENGINE_WORKERS": "1", SETTING: "off"}
    engine = EngineThread(EngineConfig.from_env(env)).start()
    try:
        yield engine
    finally:
        engine.stop()


def spy_on_the_speed_path(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The speed path's methods, each call written down (and still answered)."""
    calls: list[str] = []

    def spying(name: str, method: Callable[..., bytes]) -> Callable[..., bytes]:
        def spy(*args: Any, **kwargs: Any) -> bytes:
            calls.append(name)
            return method(*args, **kwargs)

        return spy

    for name in WRITER_METHODS:
        monkeypatch.setattr(SPEED_PATH, name, spying(name, getattr(SPEED_PATH, name)))
    return calls


def raw_call(channel: grpc.Channel, method: str, request: Any) -> bytes:
    """The reply's bytes as the engine wrote them."""
    call = channel.unary_unary(
        f"/{SERVICE_NAME}/{method}",
        request_serializer=type(request).SerializeToString,
        response_deserializer=None,
    )
    reply: bytes = call(request, timeout=30)
    return reply


def game_reply(
    writer: ReplyWriter, reply: GameReply, before: patience.State, moves: Sequence[patience.Move]
) -> bytes:
    """What an unsealed engine answers for `moves` played from `before` (deal shown)."""
    after = before
    events: list[patience.CardMoved] = []
    for move in moves:
        after, moved = after.apply_with_events(move)
        events.extend(moved)
    return writer.game_response(
        reply,
        writer.sealed_state(writer.game_state(after, False), b""),
        player_view_bytes(Position(after, False), writer=writer),
        moves,
        events,
    )


def test_an_engine_with_the_speed_paths_off_writes_every_reply_with_the_reference(
    engine_off: EngineThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert engine_off.running is not None
    assert engine_off.running.writer is REFERENCE
    assert engine_off.running.searches.speed_paths is False
    # A deal no other test plays, so that nothing the engine answers was remembered.
    opening = patience.get_variant("napoleon-at-st-helena").new_game(424_242)
    first = opening.legal_moves()[0]
    one = opening.apply(first)
    second = one.legal_moves()[0]
    third = one.apply(second).legal_moves()[0]
    three = one.apply(second).apply(third)
    calls = spy_on_the_speed_path(monkeypatch)
    with grpc.insecure_channel(engine_off.target) as channel:
        started = raw_call(
            channel, "NewGame", engine_pb2.NewGameRequest(variant=opening.variant.id, deal="424242")
        )
        state = engine_pb2.NewGameResponse.FromString(started).state
        moved = raw_call(
            channel,
            "ApplyMove",
            engine_pb2.ApplyMoveRequest(state=state, move=game_pb2.Move(notation=str(first))),
        )
        state = engine_pb2.ApplyMoveResponse.FromString(moved).state
        batch = raw_call(
            channel,
            "ApplyMoves",
            engine_pb2.ApplyMovesRequest(
                state=state, moves=[game_pb2.Move(notation=str(m)) for m in (second, third)]
            ),
        )
        state = engine_pb2.ApplyMovesResponse.FromString(batch).state
        autoplayed = raw_call(channel, "Autoplay", engine_pb2.AutoplayRequest(state=state))
        viewed = raw_call(channel, "GetPlayerView", engine_pb2.GetPlayerViewRequest(state=state))
        listed = raw_call(channel, "ListLegalMoves", engine_pb2.ListLegalMovesRequest(state=state))
        hinted = engine_pb2.HintResponse.FromString(
            raw_call(channel, "Hint", engine_pb2.HintRequest(state=state))
        )
    assert calls == [], "an engine with the speed paths off called the speed path"
    monkeypatch.undo()
    safe = safe_foundation_moves(three)
    for writer in (REFERENCE, SPEED_PATH):
        assert started == game_reply(writer, engine_pb2.NewGameResponse, opening, [])
        assert moved == game_reply(writer, engine_pb2.ApplyMoveResponse, opening, [first])
        assert batch == game_reply(writer, engine_pb2.ApplyMovesResponse, one, [second, third])
        assert autoplayed == game_reply(writer, engine_pb2.AutoplayResponse, three, safe)
        view = player_view_bytes(Position(three, False), writer=writer)
        assert viewed == writer.player_view_response(view)
        assert listed == writer.legal_moves_response(three.legal_moves())
    assert patience.Move.parse(hinted.move.notation) in three.legal_moves()


def test_search_replies_are_the_same_from_both_writers() -> None:
    """A search process with the speed paths off writes its replies' moves with the
    reference: the same bytes. (Replies written with no time left carry no timing.)"""
    state = patience.get_variant("usk").new_game(4)
    data = REFERENCE.game_state(state, False)
    replies = {}
    for kind in ("hint", "solve"):
        late = SearchJob(kind, data, 1000, 0.5, deadline=100.0)
        replies[kind] = answer(late, lambda: False, lambda: 100.5, REFERENCE)
        assert replies[kind] == answer(late, lambda: False, lambda: 100.5, SPEED_PATH)
    hint = engine_pb2.HintResponse.FromString(replies["hint"])
    assert hint.move.notation == str(state.legal_moves()[0])


# --------------------------------------------------------------------------- the entry point


def test_the_entry_point_hands_the_setting_to_its_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SETTING, "off")
    process, log = start_engine(tmp_path, workers=2)
    try:
        wait_for(lambda: len(serving_lines(log)) >= 2, "two workers to serve")
        wait_for(
            lambda: log.read_text().count("PATIENCE_SPEED_PATHS=off: replies are written by") == 2,
            "each worker to say it runs the reference",
        )
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=PATIENCE_SECONDS) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_entry_point_refuses_another_value() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "patience_engine"],
        env={**os.environ, SETTING: "fast"},
        capture_output=True,
        timeout=PATIENCE_SECONDS,
    )
    assert result.returncode == 2
    assert b"bad configuration: PATIENCE_SPEED_PATHS must be on or off, not 'fast'" in result.stderr
