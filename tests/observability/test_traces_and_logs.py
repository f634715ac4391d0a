"""Traces and logs of a real `patience serve`, its spans exported over OTLP/HTTP to a
receiver in this test process (tests/observability/otlp_receiver.py):

- one REST move is one trace: the gateway's request span, its engine call, the engine's
  own span of that call (joined by the W3C traceparent the gRPC client sends) and its
  Redis commands, all under one trace id, which is also the request's id;
- an incoming traceparent is continued, and its trace id is the request's id;
- a hint's search, run in a search process, is a span of the hint's trace;
- a call the engine refuses says its gRPC status on the engine's span as on the
  gateway's;
- the request id is in the answer's Request-Id header, in its problem body and in the
  gateway's log line for it; every line the services log is one JSON object;
- a played game (create, moves, hint, a player signed up, a refresh) leaves no token,
  key, sealed state or hidden card in any line of the logs (LOG_LEVEL=debug, so that
  every line that could be written is).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import patience
import pytest
import redis
from patience.cards import card_name
from patience_launcher.postgres_server import PASSWORD_FILE

from tests.observability.conftest import Served, start_serve
from tests.observability.otlp_receiver import OtlpReceiver, Span

SERVER, CLIENT = 2, 3  # OTLP span kinds
UNSET, ERROR = 0, 2  # OTLP span status codes
# the module's tests share its served stack: on one worker it starts once
pytestmark = pytest.mark.xdist_group("otlp")

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.fixture(scope="module")
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as receiver:
        yield receiver


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, receiver: OtlpReceiver) -> Iterator[Served]:
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
        "OTEL_BSP_SCHEDULE_DELAY": "100",
        "LOG_LEVEL": "debug",
    }
    yield from start_serve(tmp_path_factory.mktemp("serve"), env)


@pytest.fixture
def http(served: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.rest, timeout=30) as client:
        yield client


def new_game(http: httpx.Client, variant: str = "bisley", deal: int = 7) -> dict[str, Any]:
    answer = http.post("/v1/games", json={"variant": variant, "deal": deal})
    assert answer.status_code == 201, answer.text
    game: dict[str, Any] = answer.json()
    return game


def auth(game: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {game['token']}"}


def of_trace(trace_id: str, *wanted: tuple[str, str]) -> Any:
    """A condition for OtlpReceiver.wait_for: spans of `trace_id` with each (service,
    name) wanted."""

    def found(spans: list[Span]) -> bool:
        seen = {(s.service, s.name) for s in spans if s.trace_id == trace_id}
        return set(wanted) <= seen

    return found


def one(spans: list[Span], trace_id: str, service: str, name: str) -> Span:
    [span] = [s for s in spans if (s.trace_id, s.service, s.name) == (trace_id, service, name)]
    return span


def test_one_move_is_one_trace_through_gateway_engine_and_redis(
    http: httpx.Client, receiver: OtlpReceiver
) -> None:
    game = new_game(http)
    answer = http.post(f"/v1/games/{game['id']}/moves", json={"move": "t6-f3"}, headers=auth(game))
    assert answer.status_code == 200, answer.text
    trace_id = answer.headers["Request-Id"]
    assert re.fullmatch("[0-9a-f]{32}", trace_id)
    route = "POST /v1/games/{game_id}/moves"
    rpc = "/solitaire.v1.EngineService/ApplyMove"
    spans = receiver.wait_for(
        of_trace(
            trace_id,
            ("patience-gateway", route),
            ("patience-gateway", rpc),
            ("patience-engine", rpc),
            ("patience-gateway", "EVALSHA"),
        )
    )
    request = one(spans, trace_id, "patience-gateway", route)
    call = one(spans, trace_id, "patience-gateway", rpc)
    served_call = one(spans, trace_id, "patience-engine", rpc)
    assert (request.kind, call.kind, served_call.kind) == (SERVER, CLIENT, SERVER)
    assert request.parent_id == ""  # the trace's root: no traceparent came in
    assert call.parent_id == request.span_id
    assert served_call.parent_id == call.span_id  # joined across gRPC
    redis_calls = [
        s for s in spans if s.trace_id == trace_id and s.attributes.get("db.system") == "redis"
    ]
    assert redis_calls and all(s.parent_id == request.span_id for s in redis_calls)
    # every span of the move is in that one trace
    assert {s.trace_id for s in spans if s.parent_id == request.span_id} == {trace_id}


def test_an_incoming_traceparent_is_continued(http: httpx.Client, receiver: OtlpReceiver) -> None:
    game = new_game(http)
    answer = http.post(
        f"/v1/games/{game['id']}/moves",
        json={"move": "t6-f3"},
        headers={**auth(game), "traceparent": TRACEPARENT},
    )
    assert answer.status_code == 200, answer.text
    trace_id, parent = TRACEPARENT.split("-")[1:3]
    assert answer.headers["Request-Id"] == trace_id
    route = "POST /v1/games/{game_id}/moves"
    spans = receiver.wait_for(
        of_trace(
            trace_id,
            ("patience-gateway", route),
            ("patience-engine", "/solitaire.v1.EngineService/ApplyMove"),
        )
    )
    assert one(spans, trace_id, "patience-gateway", route).parent_id == parent


def test_a_hints_search_is_a_span_of_the_hints_trace(
    http: httpx.Client, receiver: OtlpReceiver
) -> None:
    game = new_game(http)
    answer = http.get(f"/v1/games/{game['id']}/hint", headers=auth(game))
    assert answer.status_code == 200, answer.text
    trace_id = answer.headers["Request-Id"]
    rpc = "/solitaire.v1.EngineService/Hint"
    spans = receiver.wait_for(
        of_trace(trace_id, ("patience-engine", rpc), ("patience-engine", "search hint"))
    )
    search = one(spans, trace_id, "patience-engine", "search hint")
    assert search.parent_id == one(spans, trace_id, "patience-engine", rpc).span_id
    assert search.attributes["patience.search.kind"] == "hint"


def test_a_refused_calls_span_says_its_grpc_status(
    http: httpx.Client, receiver: OtlpReceiver
) -> None:
    """An illegal move: FAILED_PRECONDITION (9) on both sides of the call. By
    OpenTelemetry's conventions a client's span of a failed call is an error; a server's
    is only where the failure is the server's own (INTERNAL, UNAVAILABLE, ...), so the
    engine's span keeps its status unset and says the refusal by its code."""
    game = new_game(http)
    answer = http.post(f"/v1/games/{game['id']}/moves", json={"move": "t1-t1"}, headers=auth(game))
    assert answer.status_code == 422, answer.text
    trace_id = answer.headers["Request-Id"]
    rpc = "/solitaire.v1.EngineService/ApplyMove"
    spans = receiver.wait_for(
        of_trace(trace_id, ("patience-gateway", rpc), ("patience-engine", rpc))
    )
    call = one(spans, trace_id, "patience-gateway", rpc)
    served_call = one(spans, trace_id, "patience-engine", rpc)
    assert call.attributes["rpc.grpc.status_code"] == 9
    assert served_call.attributes["rpc.grpc.status_code"] == 9
    assert (call.status, served_call.status) == (ERROR, UNSET)
    # a call answered is OK on both sides
    moved = http.post(f"/v1/games/{game['id']}/moves", json={"move": "t6-f3"}, headers=auth(game))
    assert moved.status_code == 200, moved.text
    trace_id = moved.headers["Request-Id"]
    spans = receiver.wait_for(of_trace(trace_id, ("patience-engine", rpc)))
    assert one(spans, trace_id, "patience-engine", rpc).attributes["rpc.grpc.status_code"] == 0


def service_lines(served: Served) -> list[tuple[str, str]]:
    """(service, line) for each line the engine and the gateway wrote."""
    lines = []
    for line in (served.run.stdout + served.run.stderr).splitlines():
        service, bar, text = line.partition("|")
        if bar and service.strip() in ("engine", "gateway"):
            lines.append((service.strip(), text.strip()))
    return lines


def logged(served: Served) -> list[dict[str, Any]]:
    return [json.loads(text) for _, text in service_lines(served)]


def test_the_request_id_is_in_the_answer_the_problem_and_the_log(
    http: httpx.Client, served: Served
) -> None:
    game = new_game(http)
    answer = http.post(f"/v1/games/{game['id']}/moves", json={"move": "t1-t1"}, headers=auth(game))
    assert answer.status_code == 422
    request_id = answer.headers["Request-Id"]
    assert answer.json()["request_id"] == request_id

    def access_lines() -> list[dict[str, Any]]:
        return [
            line
            for line in logged(served)
            if line.get("request_id") == request_id and line["logger"] == "patience_gateway.access"
        ]

    served.run.wait_until(lambda: bool(access_lines()))
    [access] = access_lines()
    assert access["status"] == 422
    assert access["game_id"] == game["id"]
    assert access["route"] == "/v1/games/{game_id}/moves"
    assert access["trace_id"] == request_id
    # an answer that is no problem carries one too, and an untraced path gets a new one
    assert re.fullmatch("[0-9a-f]{32}", http.get("/livez").headers["Request-Id"])


def test_every_line_the_services_log_is_one_json_object(served: Served) -> None:
    lines = service_lines(served)
    assert lines
    for service, text in lines:
        line = json.loads(text)
        assert isinstance(line, dict), (service, text)
        assert {"time", "level", "logger", "message"} <= set(line), (service, text)


def hidden_cards(variant: str, deal: int) -> list[str]:
    """The stock of a deal, top to bottom: cards no player may see."""
    state = patience.VARIANTS[variant].new_game(deal, ())
    return [card_name(card) for card in state.pile("stock")]


def spellings(secret: bytes | str) -> set[str]:
    """How a secret could be written in a log line."""
    if isinstance(secret, str):
        return {secret}
    encoded = (base64.b64encode(secret), base64.urlsafe_b64encode(secret))
    return {secret.hex(), *(text.decode() for text in encoded)}


def test_a_played_game_leaves_no_secret_in_the_logs(
    http: httpx.Client, served: Served, tmp_path: Path
) -> None:
    secrets: set[str] = set()
    player = http.post("/v1/players", json={"display_name": "Ada"})
    assert player.status_code == 201, player.text
    session = player.json()
    secrets |= {session["access_token"], session["refresh_token"]}
    refreshed = http.post("/v1/sessions/refresh", json={"refresh_token": session["refresh_token"]})
    assert refreshed.status_code == 200, refreshed.text
    secrets |= {refreshed.json()["access_token"], refreshed.json()["refresh_token"]}
    mine = {"Authorization": f"Bearer {refreshed.json()['access_token']}"}
    variant, deal = "napoleon-at-st-helena", 7
    anonymous = new_game(http, variant, deal)
    secrets.add(anonymous["token"])
    owned = http.post("/v1/games", json={"variant": variant, "deal": deal}, headers=mine)
    assert owned.status_code == 201, owned.text
    games = [anonymous, owned.json()]
    for game, headers in zip(games, (auth(anonymous), mine), strict=True):
        legal = http.get(f"/v1/games/{game['id']}/legal-moves", headers=headers)
        assert legal.status_code == 200, legal.text
        moves = legal.json()["moves"]
        for move in moves[:3]:
            http.post(
                f"/v1/games/{game['id']}/moves", json={"move": move["notation"]}, headers=headers
            )
        assert http.get(f"/v1/games/{game['id']}/hint", headers=headers).status_code == 200
    # the keys, the database's password and the sealed states kept in Redis
    data = Path(served.run.banner_value("Data"))
    for key_file in ("engine-seal.key", "player-token.key"):
        for line in (data / key_file).read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                secrets.add(line.strip())
    secrets.add((data / "postgres" / PASSWORD_FILE).read_text().strip())
    store = redis.Redis.from_url(served.run.banner_value("Redis"))
    states: list[bytes] = []
    for game in games:
        key = f"game:{{{game['id']}}}:states".encode()
        kind = store.type(key)
        states += store.lrange(key, 0, -1) if kind == b"list" else list(store.hgetall(key).values())
    store.close()
    assert states
    for state in states:
        secrets |= spellings(state[len(state) // 2 : len(state) // 2 + 24])
    stock = hidden_cards(variant, deal)
    for start in range(len(stock) - 3):
        run = stock[start : start + 4]
        secrets |= {"".join(run), " ".join(run), ",".join(run), '","'.join(run)}
    text = served.run.stdout + served.run.stderr
    assert served.run.stderr.count("patience_gateway.access") > 10  # the scan saw the play
    leaked = sorted(secret for secret in secrets if secret in text)
    assert not leaked, f"secrets in the logs: {leaked}"
