"""What the gateway tells operators, in process: each request's id (the Request-Id
header, the problem body's request_id, a traceparent's trace id taken as it), its
access line and the JSON its log lines are written as, and the metrics read at the
scrape (Redis and PostgreSQL answering, the outbox, the winnable pools) or sampled
(connections). tests/observability sees the same on a real `patience serve`."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import AsyncIterator

import pytest
from patience_contract import logs
from patience_gateway.http.access import traceparent_trace_id
from patience_gateway.settings import Settings
from patience_gateway.storage.winnable_pools import pool_name
from prometheus_client.parser import text_string_to_metric_families

from tests.gateway.helpers import Gateway, assert_problem, running_gateway

HEX32 = re.compile("[0-9a-f]{32}")
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


async def samples(gateway: Gateway) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = (await gateway.http.get("/metrics")).text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def test_every_answer_has_a_request_id_and_a_problem_carries_it(gateway: Gateway) -> None:
    first = await gateway.http.get("/livez")
    second = await gateway.http.get("/livez")
    assert HEX32.fullmatch(first.headers["request-id"])
    assert first.headers["request-id"] != second.headers["request-id"]
    missing = await gateway.http.get("/v1/nowhere")
    body = assert_problem(missing, 404, "not-found")
    assert body["request_id"] == missing.headers["request-id"]
    game = await gateway.create("bisley", deal=7)
    refused = await gateway.move(game, "t1-t1")  # the move speed path answers it
    assert (
        assert_problem(refused, 422, "illegal-move")["request_id"] == refused.headers["request-id"]
    )


async def test_a_traceparents_trace_id_is_the_request_id(gateway: Gateway) -> None:
    sent = f"00-{TRACE}-00f067aa0ba902b7-01"
    answer = await gateway.http.get("/v1/nowhere", headers={"traceparent": sent})
    assert answer.headers["request-id"] == TRACE
    assert answer.json()["request_id"] == TRACE
    bad = await gateway.http.get("/livez", headers={"traceparent": f"00-{'0' * 32}-00f0-01"})
    assert bad.headers["request-id"] != "0" * 32


@pytest.mark.parametrize(
    ("header", "trace"),
    [
        (f"00-{TRACE}-00f067aa0ba902b7-01", TRACE),
        (f"01-{TRACE}-00f067aa0ba902b7-01-later-fields", TRACE),
        (f"00-{TRACE}-00f067aa0ba902b7-01-more", None),  # version 00 has four fields
        (f"ff-{TRACE}-00f067aa0ba902b7-01", None),
        (f"00-{'0' * 32}-00f067aa0ba902b7-01", None),
        (f"00-{TRACE}-{'0' * 16}-01", None),
        (f"00-{TRACE.upper()}-00f067aa0ba902b7-01", None),
        ("00-abc-def-01", None),
        ("", None),
    ],
)
def test_traceparents_are_read_as_the_standard_says(header: str, trace: str | None) -> None:
    assert traceparent_trace_id(header.encode()) == trace


async def test_one_access_line_per_request_with_its_ids_and_never_the_query(
    gateway: Gateway, caplog: pytest.LogCaptureFixture
) -> None:
    game = await gateway.create("bisley", deal=7)
    caplog.set_level(logging.INFO, logger="patience_gateway.access")
    caplog.clear()
    answer = await gateway.http.get(f"/v1/games/{game.id}/events?ticket=secret-ticket")
    [line] = [r for r in caplog.records if r.name == "patience_gateway.access"]
    assert line.__dict__["status"] == answer.status_code
    assert line.__dict__["path"] == f"/v1/games/{game.id}/events"
    assert line.__dict__["route"] == "/v1/games/{game_id}/events"
    assert "secret-ticket" not in line.getMessage() + json.dumps(line.__dict__, default=str)


def test_log_lines_are_json_with_the_requests_ids() -> None:
    formatter = logs.JsonFormatter()
    tokens = (logs.request_id.set("r" * 32), logs.game_id.set("g1"), logs.trace_id.set(TRACE))
    try:
        record = logging.LogRecord("patience_gateway", logging.WARNING, "", 0, "%s!", ("x",), None)
        record.status = 503
        line = json.loads(formatter.format(record))
    finally:
        logs.request_id.reset(tokens[0])
        logs.game_id.reset(tokens[1])
        logs.trace_id.reset(tokens[2])
    assert line["message"] == "x!" and line["level"] == "warning"
    assert line["logger"] == "patience_gateway" and line["status"] == 503
    assert (line["request_id"], line["game_id"], line["trace_id"]) == ("r" * 32, "g1", TRACE)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["time"])


@pytest.mark.parametrize(("name", "level"), [("debug", 10), ("TRACE", 10), ("warning", 30)])
def test_log_level_names(name: str, level: int) -> None:
    assert logs.log_level(name) == level


@pytest.fixture
async def pooled(records_settings: Settings) -> AsyncIterator[Gateway]:
    """A gateway with players and records that keeps pools of two winnable deals."""
    settings = dataclasses.replace(records_settings, winnable_pool_size=2)
    async with running_gateway(settings) as gateway:
        yield gateway


async def test_the_metrics_read_at_the_scrape_and_sampled(pooled: Gateway) -> None:
    pools = pooled.app.state.services.scrape.pools
    await pools.want(pool_name("bisley", ()))
    while await pools.take(pool_name("bisley", ())) is not None:
        pass  # an empty pool: the create below is searched
    game = await pooled.http.post("/v1/games", json={"variant": "bisley", "winnable": True})
    assert game.status_code == 201, game.text
    found = await samples(pooled)

    def value(name: str, **labels: str) -> float | None:
        return found.get((name, tuple(sorted(labels.items()))))

    assert value("patience_gateway_redis_up") == 1
    assert value("patience_gateway_postgres_up") == 1
    assert value("patience_gateway_outbox_pending_games") is not None
    assert value("patience_gateway_outbox_oldest_age_seconds") is not None
    assert value("patience_gateway_winnable_pool_deals", variant="bisley", options="") is not None
    assert value("patience_gateway_winnable_pool_target_deals", variant="bisley", options="") == 2
    served = value(
        "patience_gateway_winnable_deals_served_total", variant="bisley", source="search"
    )
    assert served is not None and served >= 1
    assert value("patience_gateway_redis_pool_connections", state="idle") is not None
    assert value("patience_gateway_postgres_pool_max_connections") is not None


async def test_without_postgresql_its_figure_is_left_out(gateway: Gateway) -> None:
    names = {name for name, _ in await samples(gateway)}
    assert "patience_gateway_redis_up" in names
    assert "patience_gateway_postgres_up" not in names
