"""A real Prometheus (Debian's, started here on a free loopback port) scrapes a real
`patience serve`: after a few moves every series operators are told about is there, the
metrics pass `promtool check metrics`, and when the engine is killed the alert rules of
deploy/prometheus fire (their `for` shortened, and the scrapes and evaluations made
frequent, so that a test need not wait minutes)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from patience_launcher.addresses import free_port

from tests.observability.conftest import PROMETHEUS_FOLDER, Served, start_serve

# the module's tests share its served stack: on one worker it starts once
pytestmark = pytest.mark.xdist_group("prometheus")

INTERVAL = "250ms"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from start_serve(tmp_path_factory.mktemp("serve"), {})


class Prometheus:
    def __init__(self, binary: str, folder: Path, served: Served) -> None:
        rules = yaml.safe_load((PROMETHEUS_FOLDER / "alerts.yml").read_text())
        for group in rules["groups"]:
            for rule in group["rules"]:
                if "alert" in rule:  # recording rules have no `for`
                    rule["for"] = "0s"  # the test cannot wait the minutes they wait
        (folder / "alerts.yml").write_text(yaml.safe_dump(rules))

        def target(url: str) -> str:
            return urllib.parse.urlsplit(url).netloc

        config = {
            "global": {
                "scrape_interval": INTERVAL,
                "scrape_timeout": INTERVAL,
                "evaluation_interval": INTERVAL,
            },
            "rule_files": ["alerts.yml"],
            "scrape_configs": [
                {
                    "job_name": "patience-gateway",
                    "static_configs": [{"targets": [target(served.gateway_metrics)]}],
                },
                {
                    "job_name": "patience-engine",
                    "static_configs": [{"targets": [target(served.engine_metrics)]}],
                },
            ],
        }
        (folder / "prometheus.yml").write_text(yaml.safe_dump(config))
        self.port = free_port()
        self.log = (folder / "prometheus.log").open("wb")
        self.process = subprocess.Popen(
            [
                binary,
                f"--config.file={folder / 'prometheus.yml'}",
                f"--storage.tsdb.path={folder / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        self.folder = folder

    def query(self, promql: str) -> list[dict[str, Any]]:
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode(
            {"query": promql}
        )
        with urllib.request.urlopen(url, timeout=5) as answer:
            body = json.load(answer)
        assert body["status"] == "success", body
        result: list[dict[str, Any]] = body["data"]["result"]
        return result

    def wait_for(self, promql: str, timeout: float = 60.0) -> list[dict[str, Any]]:
        """The query's result once it is not empty."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.process.poll() is None, self.output()
            try:
                found = self.query(promql)
            except OSError:
                found = []
            if found:
                return found
            assert time.monotonic() < deadline, f"nothing for {promql}\n{self.output()}"
            time.sleep(0.25)

    def output(self) -> str:
        return (self.folder / "prometheus.log").read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def scraper(
    prometheus: str, served: Served, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Prometheus]:
    server = Prometheus(prometheus, tmp_path_factory.mktemp("prometheus"), served)
    try:
        server.wait_for('up{job="patience-engine"} == 1')
        server.wait_for('up{job="patience-gateway"} == 1')
        yield server
    finally:
        server.stop()


def play(rest: str) -> None:
    """A game: created, three moves, an illegal one, a hint."""
    with httpx.Client(base_url=rest, timeout=30) as http:
        game = http.post("/v1/games", json={"variant": "bisley", "deal": 7}).json()
        auth = {"Authorization": f"Bearer {game['token']}"}
        for move in ("t6-f3", "t9-t10", "t1-t1"):
            http.post(f"/v1/games/{game['id']}/moves", json={"move": move}, headers=auth)
        assert http.get(f"/v1/games/{game['id']}/hint", headers=auth).status_code == 200


EXPECTED = (
    # the gateway: requests, moves, problems
    'patience_gateway_requests_total{route="/v1/games/{game_id}/moves",status="200"}',
    'patience_gateway_request_duration_seconds_bucket{route="/v1/games/{game_id}/moves"}',
    'patience_gateway_moves_applied_total{variant="bisley"}',
    'patience_gateway_errors_total{code="illegal-move"}',
    # what it reads at the scrape, and its connections
    "patience_gateway_redis_up == 1",
    "patience_gateway_postgres_up == 1",
    "patience_gateway_outbox_pending_games",
    "patience_gateway_outbox_oldest_age_seconds",
    'patience_gateway_redis_pool_connections{state="idle"}',
    'patience_gateway_postgres_pool_connections{state="used"}',
    "patience_gateway_postgres_pool_max_connections",
    "patience_gateway_postgres_pool_waiting_requests",
    # its processes, its requests in flight and its build
    'process_cpu_seconds_total{job="patience-gateway"}',
    'process_open_fds{job="patience-gateway"}',
    "patience_gateway_requests_in_flight",
    'patience_gateway_build_info{version!=""}',
    # the engine: RPCs by method and code, refusals, the searches
    'patience_engine_rpc_duration_seconds_bucket{method="ApplyMove",code="OK"}',
    'patience_engine_rpc_duration_seconds_count{method="ApplyMove",code="FAILED_PRECONDITION"}',
    'patience_engine_rpc_duration_seconds_count{method="Hint",code="OK"}',
    'patience_engine_refusals_total{method="ApplyMove",reason="ILLEGAL_MOVE"}',
    "patience_engine_search_queue_length",
    "patience_engine_search_queue_capacity > 0",
    "patience_engine_searches_running",
    "patience_engine_search_processes == 1",
    'patience_engine_search_wait_seconds_count{kind="hint"}',
    'patience_engine_search_duration_seconds_count{kind="hint"}',
    "patience_engine_search_processes_replaced_total",
    'patience_engine_hints_total{answer="searched"}',
    'process_start_time_seconds{job="patience-engine"}',
)


def test_the_expected_series_are_there_after_a_few_moves(
    scraper: Prometheus, served: Served
) -> None:
    play(served.rest)
    for series in EXPECTED:
        scraper.wait_for(series, timeout=30)


def test_the_metrics_pass_promtool(promtool: str, served: Served) -> None:
    play(served.rest)
    for url in (served.gateway_metrics, served.engine_metrics):
        text = httpx.get(url, timeout=10).text
        checked = subprocess.run(
            [promtool, "check", "metrics"], input=text, capture_output=True, text=True
        )
        assert checked.returncode == 0 and not checked.stdout.strip(), (
            url,
            checked.stdout,
            checked.stderr,
        )


def test_an_alert_fires_when_the_engine_is_killed(scraper: Prometheus, served: Served) -> None:
    engine = served.run.service("engine")
    assert engine is not None
    os.kill(engine.pid, signal.SIGKILL)
    # the launcher starts it again; meanwhile a scrape failed and the alert fired
    served.run.wait_until(
        lambda: (back := served.run.service("engine")) is not None and back.pid != engine.pid
    )
    fired = scraper.wait_for(
        'max_over_time(ALERTS{alertname="PatienceEngineDown",alertstate="firing"}[5m])'
    )
    assert fired[0]["metric"]["job"] == "patience-engine"
    scraper.wait_for('up{job="patience-engine"} == 1')
