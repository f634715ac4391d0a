"""Tracing with OpenTelemetry, configured by the standard OTEL_* variables alone, and off
unless they ask for it: a process that traces nothing installs no instrumentation at
all, so tracing costs a move nothing until it is turned on.

Tracing is on when OTEL_TRACES_EXPORTER names an exporter (`otlp`, `console`; `none`
alone: off), or, that variable unset, when OTEL_EXPORTER_OTLP_ENDPOINT or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names a receiver; OTEL_SDK_DISABLED=true turns it off
whatever else is set. Everything else is read by OpenTelemetry's SDK itself, as its
specification says: the sampler (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG), the
service's name and attributes (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES), the batch
(OTEL_BSP_*), the receiver (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, _TIMEOUT,
_PROTOCOL: `http/protobuf`, the default, or `grpc`), and the propagators
(OTEL_PROPAGATORS; W3C traceparent by default).

Each service starts tracing in each of its processes (`start_tracing`) and then
installs OpenTelemetry's instrumentation of the libraries it uses. A unit of work handed
to another process (a search) carries its context as a W3C carrier (`carrier`) and is
continued there (`continued`). A call the engine refuses is said on its span as
OpenTelemetry's conventions for gRPC servers say (`refused_call`): the instrumentation
sees only the refusals it is told of through its own wrapper of the call's context.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping

import grpc
from opentelemetry import context, propagate, trace
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from opentelemetry.trace import Status, StatusCode

__all__ = [
    "TracingError",
    "carrier",
    "continued",
    "flush",
    "refused_call",
    "start_tracing",
    "tracing_requested",
    "tracing_started",
]

_EXPORTERS = "OTEL_TRACES_EXPORTER"
_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
_PROTOCOLS = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")

# OpenTelemetry's attribute of a gRPC call's status code (its rpc conventions).
GRPC_STATUS_CODE = "rpc.grpc.status_code"
# The codes that make a gRPC server's span an error, by those conventions: the server's
# own failures. Any other (a refused move: FAILED_PRECONDITION) is the caller's, and
# leaves the span's status unset; its code says it.
_SERVER_ERRORS = frozenset(
    {
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DATA_LOSS,
    }
)

# Set once this process traces: what `carrier` looks at before doing any work.
_provider: TracerProvider | None = None


class TracingError(ValueError):
    """An OTEL_* variable asks for something this service cannot do."""


def _exporter_names(environ: Mapping[str, str]) -> list[str]:
    """The exporters asked for, `none` left out; none at all when tracing is off."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    raw = environ.get(_EXPORTERS, "").strip()
    if not raw:
        return ["otlp"] if any(environ.get(name, "").strip() for name in _ENDPOINTS) else []
    names = [name.strip().lower() for name in raw.split(",") if name.strip()]
    return [name for name in names if name != "none"]


def tracing_requested(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the OTEL_* variables turn tracing on (the module's doc says when)."""
    return bool(_exporter_names(os.environ if environ is None else environ))


def _exporter(name: str, environ: Mapping[str, str]) -> SpanExporter:
    if name == "console":
        return ConsoleSpanExporter()
    if name != "otlp":
        raise TracingError(f"{_EXPORTERS}: no exporter {name!r} here (otlp, console or none)")
    protocol = next(
        (environ[n].strip() for n in _PROTOCOLS if environ.get(n, "").strip()), "http/protobuf"
    )
    if protocol == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter()
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcSpanExporter,
        )

        return GrpcSpanExporter()
    raise TracingError(f"OTLP protocol {protocol!r} is not served here (http/protobuf or grpc)")


def start_tracing(service: str, environ: Mapping[str, str] | None = None) -> bool:
    """Starts tracing in this process as `service` (unless OTEL_SERVICE_NAME names it)
    when the OTEL_* variables ask for it; whether it did. Spans are exported in batches
    and the rest flushed when the process exits. TracingError for a setting that
    cannot be honoured."""
    global _provider
    env = os.environ if environ is None else environ
    names = _exporter_names(env)
    if not names:
        return False
    if _provider is not None:
        return True
    exporters = [_exporter(name, env) for name in dict.fromkeys(names)]
    own = {} if env.get("OTEL_SERVICE_NAME", "").strip() else {SERVICE_NAME: service}
    # The sampler comes from OTEL_TRACES_SAMPLER, read by the provider itself.
    provider = TracerProvider(resource=Resource.create(own))
    for exporter in exporters:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    _provider = provider
    return True


def tracing_started() -> bool:
    """Whether this process traces (`start_tracing` started it)."""
    return _provider is not None


def flush(timeout_millis: int = 2000) -> None:
    """Exports the spans still in the batch now (a process about to be killed)."""
    if _provider is not None:
        _provider.force_flush(timeout_millis)


def refused_call(code: grpc.StatusCode, message: str) -> None:
    """Says on the current span, a gRPC server's span of a call, the status the call is
    answered with: `rpc.grpc.status_code`, and the span's status where the code is the
    server's own failure. Nothing when this process does not trace."""
    if _provider is None:
        return
    span = trace.get_current_span()
    if not span.is_recording():
        return
    span.set_attribute(GRPC_STATUS_CODE, code.value[0])
    if code in _SERVER_ERRORS:
        span.set_status(Status(StatusCode.ERROR, f"{code.name}: {message}"))


def carrier() -> dict[str, str]:
    """The current trace context as W3C headers (traceparent, tracestate), for work
    handed to another process; empty when this process does not trace."""
    if _provider is None:
        return {}
    headers: dict[str, str] = {}
    propagate.inject(headers)
    return headers


@contextlib.contextmanager
def continued(headers: Mapping[str, str]) -> Iterator[None]:
    """Runs the block in the trace context that `headers` (from `carrier`) carry."""
    if not headers:
        yield
        return
    token = context.attach(propagate.extract(headers))
    try:
        yield
    finally:
        context.detach(token)
