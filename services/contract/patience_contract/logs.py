"""The services' logs: one JSON object a line, on standard error, at the level LOG_LEVEL
names, each line carrying what joins it to the rest of what was seen of the same
request: the trace id (and span id) when the request is traced, the request's id and
the game's, where a service knows them (`request_id`, `game_id`, `trace_id`: context
variables the gateway sets for each request it serves).

    {"time": "2025-01-31T12:00:00.123Z", "level": "info", "logger": "patience_gateway.access",
     "message": "POST /v1/games/{game_id}/moves 200", "pid": 41, "request_id": "4bf9...",
     "trace_id": "4bf9...", "game_id": "PiiV...", "status": 200, ...}

The request's id also travels with every call the gateway makes to the engine, as the
gRPC metadata `request-id` (`REQUEST_ID_METADATA`), traced or not: the engine's lines
for that call carry the same `request_id` (`request_id_of` reads it back).

A log call's `extra` fields become members of the line. No line is ever given a token,
a key, a state or a hidden card: the services log ids, routes, codes and counts only.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

import orjson
from opentelemetry import trace

__all__ = [
    "REQUEST_ID_METADATA",
    "JsonFormatter",
    "configure_logging",
    "game_id",
    "granian_log_config",
    "log_level",
    "request_id",
    "request_id_metadata",
    "request_id_of",
    "trace_id",
]

# The request being served, set by the service for its duration.
request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
game_id: ContextVar[str | None] = ContextVar("game_id", default=None)
# The trace an incoming traceparent names, for a process that records no span of it.
trace_id: ContextVar[str | None] = ContextVar("trace_id", default=None)

# The gRPC metadata key a call carries its request's id in.
REQUEST_ID_METADATA = "request-id"
# The most characters of a request id taken from a caller (the gateway's are 32).
_MAX_REQUEST_ID = 64

# What every LogRecord has: anything else on a record came from `extra`.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
    "taskName",
}


def request_id_metadata() -> tuple[tuple[str, str], ...] | None:
    """The metadata that carries the id of the request being served to the service
    called for it; None outside a request."""
    request = request_id.get()
    return None if request is None else ((REQUEST_ID_METADATA, request),)


def request_id_of(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The request id a call's metadata carries, if it is one: at most 64 printable
    ASCII characters, no space."""
    for key, value in metadata or ():
        if key == REQUEST_ID_METADATA:
            if not isinstance(value, str) or not 0 < len(value) <= _MAX_REQUEST_ID:
                return None
            fits = value.isascii() and value.isprintable() and " " not in value
            return value if fits else None
    return None


def log_level(name: str) -> int:
    """The logging level LOG_LEVEL names (`trace`, uvicorn's, is `debug`); info when
    the name is none of them."""
    name = name.strip().upper()
    if name == "TRACE":
        return logging.DEBUG
    level = logging.getLevelName(name)
    return level if isinstance(level, int) else logging.INFO


class JsonFormatter(logging.Formatter):
    """A record as one line of JSON (the module's doc shows one)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _utc(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        span = trace.get_current_span().get_span_context()
        if span.is_valid:
            line["trace_id"] = format(span.trace_id, "032x")
            line["span_id"] = format(span.span_id, "016x")
        elif (traced := trace_id.get()) is not None:
            line["trace_id"] = traced
        if (request := request_id.get()) is not None:
            line["request_id"] = request
        if (game := game_id.get()) is not None:
            line["game_id"] = game
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        try:
            # orjson: a twentieth of the stdlib's time, on every request's access line
            return orjson.dumps(line, default=str).decode()
        except TypeError:  # what orjson refuses (an integer past 64 bits): the stdlib's
            return json.dumps(line, default=str, separators=(",", ":"))


def _utc(created: float) -> str:
    seconds = int(created)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{stamp}.{int((created - seconds) * 1000):03d}Z"


def configure_logging(level: str) -> None:
    """Every logger of this process writes JSON lines to standard error from `level`
    (a LOG_LEVEL value) up."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(log_level(level))


def granian_log_config(level: str) -> dict[str, Any]:
    """The logging configuration for Granian's processes (its `log_dictconfig`): the
    server's own lines and every logger of the app as JSON lines on standard error."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "formatters": {"json": {"()": "patience_contract.logs.JsonFormatter"}},
        "handlers": {"console": handler, "access": handler},
        "loggers": {
            "_granian": {"handlers": ["console"], "propagate": False},
            "granian.access": {"handlers": ["console"], "propagate": False},
        },
        "root": {"handlers": ["console"], "level": log_level(level)},
    }
