"""The gateway's traces, where the OTEL_* variables turn tracing on
(`patience_contract.tracing` says when): OpenTelemetry's own instrumentation of each
library a request goes through, installed in each worker process before the app opens
its connections, and not installed at all otherwise.

A request is one trace: the ASGI app's span (FastAPI's instrumentation, wrapping every
middleware, the move speed path included), a span for each engine call (the gRPC
client's, which sends the W3C traceparent on, so the engine's spans join the trace),
each Redis command (the Redis instrumentation) and each PostgreSQL query (psycopg's).
An incoming traceparent is continued. Probes and scrapes are not traced, nor is the
background work (the winnable pools' refill, the outbox drain): their polling would
bury the requests' traces (`untraced`).

Traced, the Redis scripts of a move are run through redis-py's `evalsha`, the
reference of the speed path `speed.node_runners.NodeRunner` (which talks to Redis below
the layer the instrumentation sees), so that each is a span.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from fastapi import FastAPI
from patience_contract import tracing

# Not traced: the probes and the scrapes (regular expressions, searched in the URL).
UNTRACED = "/livez$,/readyz$,/metrics$"


def start() -> bool:
    """Starts tracing in this process and instruments the gRPC client, Redis and
    psycopg, if the OTEL_* variables say so; whether it did."""
    if not tracing.start_tracing("patience-gateway"):
        return False
    from opentelemetry.instrumentation.grpc import GrpcAioInstrumentorClient
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    instrumentors = (
        GrpcAioInstrumentorClient(),  # type: ignore[no-untyped-call]
        RedisInstrumentor(),
        PsycopgInstrumentor(),
    )
    for instrumentor in instrumentors:
        if not instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.instrument()
    return True


def instrument(app: FastAPI) -> None:
    """Traces the app's requests (outside all its middleware)."""
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

    FastAPIInstrumentor.instrument_app(
        app, excluded_urls=UNTRACED, exclude_spans=["receive", "send"]
    )


@contextlib.contextmanager
def untraced() -> Iterator[None]:
    """Nothing done in the block, nor in the tasks it starts, is traced."""
    if not tracing.tracing_started():
        yield
        return
    from opentelemetry.instrumentation.utils import suppress_instrumentation

    with suppress_instrumentation():
        yield
