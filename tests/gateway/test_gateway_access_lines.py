"""A request's line at the production overlay's log settings: the gateway served as in
production (`python -m patience_gateway`) with the logging variables of the gateway in
deploy/kubernetes/overlays/production, which logs from warning up. Every answer, a
200, a 422 and a 503 alike, still has its access line, found by the answer's
Request-Id, while the application's own lines below warning stay out; and in process,
GATEWAY_ACCESS_LOG off writes none."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from patience_gateway.settings import Settings
from patience_launcher.addresses import free_port

from tests.deploy.kustomize import find, render
from tests.gateway.engines import EngineThread
from tests.gateway.helpers import running_gateway

PRODUCTION = Path(__file__).parents[2] / "deploy" / "kubernetes" / "overlays" / "production"
LOGGING = ("LOG_LEVEL", "GATEWAY_ACCESS_LOG")
WAIT = 60.0


def production_logging() -> dict[str, str]:
    """The logging variables the production overlay gives the gateway's container."""
    deployment = find(render(PRODUCTION), "Deployment", "patience-gateway")
    [container] = [
        c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == "gateway"
    ]
    return {e["name"]: str(e["value"]) for e in container["env"] if e["name"] in LOGGING}


class LoggedGateway:
    def __init__(self, base: str, log: Path) -> None:
        self.base = base
        self.log = log

    def lines(self) -> list[dict[str, Any]]:
        text = self.log.read_text(errors="replace")
        return [json.loads(line) for line in text.splitlines() if line.startswith("{")]

    def lines_of(self, request_id: str) -> list[dict[str, Any]]:
        """The lines carrying `request_id`, waited for (the line is written as the
        answer goes out, by another process)."""
        deadline = time.monotonic() + WAIT
        while True:
            found = [line for line in self.lines() if line.get("request_id") == request_id]
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)


@pytest.fixture(scope="module")
def gateway_process(
    redis_url: str, engine: EngineThread, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LoggedGateway]:
    port = free_port()
    log = tmp_path_factory.mktemp("gateway") / "gateway.log"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
        "REDIS_URL": redis_url,
        "ENGINE_ADDR": engine.target,
        "GATEWAY_HOST": "127.0.0.1",
        "GATEWAY_PORT": str(port),
        "GATEWAY_WORKERS": "1",
        "WINNABLE_POOL_SIZE": "0",
        **production_logging(),
    }
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "patience_gateway"],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    gateway = LoggedGateway(f"http://127.0.0.1:{port}", log)
    try:
        deadline = time.monotonic() + WAIT
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if httpx.get(f"{gateway.base}/livez", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield gateway
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_production_logs_from_warning_up() -> None:
    """The premise: the overlay keeps the application's lines below warning out."""
    assert production_logging()["LOG_LEVEL"] in ("warning", "error")


def test_every_answer_has_its_line_at_the_production_level(gateway_process: LoggedGateway) -> None:
    with httpx.Client(base_url=gateway_process.base, timeout=WAIT) as http:
        answers = {
            200: http.get("/v1/variants"),
            422: http.post("/v1/games", json={"variant": "bisley", "options": "none"}),
            # no DATABASE_URL: the player routes are unavailable
            503: http.post("/v1/players", json={}),
        }
    for status, answer in answers.items():
        assert answer.status_code == status, answer.text
        [line] = gateway_process.lines_of(answer.headers["Request-Id"])
        assert (line["logger"], line["level"], line["status"]) == (
            "patience_gateway.access",
            "info",
            status,
        )
        assert line["path"] == answer.request.url.path
    assert not [
        line
        for line in gateway_process.lines()
        if line["level"] in ("debug", "info") and line["logger"] != "patience_gateway.access"
    ]


@pytest.mark.parametrize(("access_log", "lines"), [(True, 1), (False, 0)])
async def test_the_access_lines_follow_their_own_setting(
    settings: Settings, caplog: pytest.LogCaptureFixture, access_log: bool, lines: int
) -> None:
    """GATEWAY_ACCESS_LOG, whatever LOG_LEVEL says: on, a line; off, none."""
    caplog.set_level(logging.DEBUG, logger="patience_gateway.access")
    quiet = replace(settings, log_level="error", access_log=access_log)
    async with running_gateway(quiet) as gateway:
        caplog.clear()
        answer = await gateway.http.get("/v1/variants")
    access = [r for r in caplog.records if r.name == "patience_gateway.access"]
    assert answer.status_code == 200 and len(access) == lines
