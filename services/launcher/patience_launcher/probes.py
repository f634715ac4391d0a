"""One-shot checks that a service answers: Redis PING, a PostgreSQL query, gRPC health,
HTTP status.

Each returns True or False and never raises, so callers can poll them with a deadline.
"""

from __future__ import annotations

import urllib.error
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

# The header of the gateway's /livez and /readyz that names the instance answering.
INSTANCE_ID_HEADER = "Instance-Id"


def redis_pong(url: str, timeout: float = 1.0) -> bool:
    """True when the Redis at `url` answers PING."""
    import redis  # late: the engine's image path never needs it

    try:
        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError, ValueError):
        return False


def postgres_problem(url: str, timeout: float = 2.0) -> str | None:
    """Why the database at `url` cannot be used (its server's own words), or None when a
    connection to it answers a query."""
    import psycopg  # late: only where a database is used

    try:
        # libpq waits at least 2 s whatever it is told
        with psycopg.connect(url, connect_timeout=max(2, round(timeout))) as connection:
            connection.execute("SELECT 1")
        return None
    except (psycopg.Error, OSError, ValueError) as error:
        return str(error).strip() or type(error).__name__


def postgres_answers(url: str, timeout: float = 2.0) -> bool:
    """True when the database at `url` answers a query."""
    return postgres_problem(url, timeout) is None


def grpc_serving(target: str, timeout: float = 1.0, service: str = "") -> bool:
    """True when the gRPC health service at `target` reports SERVING for `service`
    ("" means the server as a whole)."""
    try:
        with grpc.insecure_channel(target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
            return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
    except (grpc.RpcError, ValueError):
        return False


def http_ok(url: str, timeout: float = 1.0, *, instance: str | None = None) -> bool:
    """True when a GET of `url` answers with a 2xx status; with `instance`, only when it
    also carries that Instance-Id (the gateway's GATEWAY_INSTANCE_ID): the answer of the
    very gateway that was given it, not of another server on its port."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            if not 200 <= int(response.status) < 300:
                return False
            return instance is None or response.headers.get(INSTANCE_ID_HEADER) == instance
    except (urllib.error.URLError, OSError, ValueError):
        return False
