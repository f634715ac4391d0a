"""A request's id reaches the engine, traced or not: the gateway sends it with every
engine call (the gRPC metadata `request-id`) and the engine's log lines for the call
carry it. The engine here is a real `patience-engine` process of the test's own, logging
at debug level (a line for every call) into a file; nothing traces."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from patience_contract.client import SyncEngineClient
from patience_contract.logs import REQUEST_ID_METADATA, request_id_of
from patience_gateway.settings import Settings
from patience_launcher.addresses import free_port

from tests.gateway.engines import SEAL_KEY
from tests.gateway.helpers import Gateway, running_gateway

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
WAIT = 60.0


class LoggingEngine:
    """`python -m patience_engine` (one process) with its JSON lines in a file."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.log = folder / "engine.log"
        env = {
            **os.environ,
            "ENGINE_LISTEN": f"127.0.0.1:{self.port}",
            "ENGINE_WORKERS": "1",
            "ENGINE_SOLVER_PROCESSES": "1",
            "ENGINE_SEAL_KEY": SEAL_KEY.decode(),
            "LOG_LEVEL": "debug",
        }
        for name in [name for name in env if name.startswith("OTEL_")]:
            del env[name]
        with self.log.open("wb") as sink:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "patience_engine"],
                env=env,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + WAIT
        with SyncEngineClient(self.target, timeout=1.0) as client:
            while not client.health():
                assert self.process.poll() is None, self.log.read_text()
                assert time.monotonic() < deadline, self.log.read_text()
                time.sleep(0.05)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def lines(self) -> list[dict[str, Any]]:
        text = self.log.read_text(errors="replace")
        return [json.loads(line) for line in text.splitlines() if line.startswith("{")]

    def calls(self, request_id: str, rpc: str) -> list[dict[str, Any]]:
        """The engine's lines for its calls of `rpc` made for the request `request_id`,
        waited for (a line is written as the call is answered)."""
        deadline = time.monotonic() + WAIT
        while True:
            found = [
                line
                for line in self.lines()
                if line.get("rpc") == rpc and line.get("request_id") == request_id
            ]
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def engine_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoggingEngine]:
    engine = LoggingEngine(tmp_path_factory.mktemp("engine"))
    try:
        yield engine
    finally:
        engine.stop()


@pytest.fixture(scope="module")
async def gateway_to_it(
    settings: Settings, engine_process: LoggingEngine
) -> AsyncIterator[Gateway]:
    async with running_gateway(replace(settings, engine_addr=engine_process.target)) as gateway:
        yield gateway


async def test_the_engines_line_for_a_move_carries_the_requests_id(
    gateway_to_it: Gateway, engine_process: LoggingEngine
) -> None:
    game = await gateway_to_it.create("bisley", deal=7)
    moved = await gateway_to_it.move(game, "t6-f3")
    assert moved.status_code == 200, moved.text
    request_id = moved.headers["Request-Id"]
    [line] = engine_process.calls(request_id, "ApplyMove")
    assert (line["level"], line["code"], line["logger"]) == ("debug", "OK", "patience_engine")
    assert "trace_id" not in line  # nothing traces: the id came in the call's metadata


async def test_a_refused_move_and_a_given_traceparent_reach_the_engines_line(
    gateway_to_it: Gateway, engine_process: LoggingEngine
) -> None:
    """The id a client gives (the trace id of its traceparent, continued as the
    request's id even where the gateway does not trace) is the one the engine logs, on
    the line of a call it refused too."""
    game = await gateway_to_it.create("bisley", deal=7)
    refused = await gateway_to_it.http.post(
        f"/v1/games/{game.id}/moves",
        json={"move": "t1-t1"},
        headers={**game.auth(), "traceparent": TRACEPARENT},
    )
    assert refused.status_code == 422, refused.text
    request_id = TRACEPARENT.split("-")[1]
    assert refused.headers["Request-Id"] == request_id
    [line] = engine_process.calls(request_id, "ApplyMove")
    assert (line["code"], line["reason"]) == ("FAILED_PRECONDITION", "ILLEGAL_MOVE")


async def test_every_engine_call_of_a_request_carries_its_id(
    gateway_to_it: Gateway, engine_process: LoggingEngine
) -> None:
    """A game's creation asks the engine for the game, then for nothing else it needs;
    a readiness probe asks for health and the engine's keys: each call with the id."""
    created = await gateway_to_it.http.post("/v1/games", json={"variant": "bisley", "deal": 3})
    assert created.status_code == 201, created.text
    assert engine_process.calls(created.headers["Request-Id"], "NewGame")
    ready = await gateway_to_it.http.get("/readyz")
    assert ready.status_code == 200, ready.text
    assert engine_process.calls(ready.headers["Request-Id"], "GetEngineInfo")


def test_only_an_id_like_value_is_taken_from_a_calls_metadata() -> None:
    def taken(value: str | bytes) -> str | None:
        return request_id_of([("user-agent", "grpc"), (REQUEST_ID_METADATA, value)])

    assert taken("4bf92f3577b34da6a3ce929d0e0e4736") == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert taken("support-case-1234") == "support-case-1234"
    for refused in ("", "a b", "x" * 65, "caf\u00e9", "line\nbreak", b"4bf9"):
        assert taken(refused) is None, refused
    assert request_id_of(None) is None
    assert request_id_of([("user-agent", "grpc")]) is None
