"""How every error is answered: an RFC 9457 problem (`problem_response`), whatever
raised it (a ProblemError, a request FastAPI could not validate, an unknown path, a
method the path does not answer, an engine or Redis that does not answer, a bug)."""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from patience_contract.client import EngineError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match
from typing_extensions import Unpack

from patience_gateway.games.engine_errors import engine_problem
from patience_gateway.http.metrics import Metrics
from patience_gateway.problems import (
    PROBLEM_MEDIA_TYPE,
    Code,
    ProblemError,
    ProblemExtensions,
    problem_body,
)
from patience_gateway.settings import Settings
from patience_gateway.storage.database import DatabaseUnavailable
from patience_gateway.storage.failures import STORAGE_DOWN

log = logging.getLogger("patience_gateway")

_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")

_HTTP_STATUS_CODES: dict[int, Code] = {
    400: "malformed-body",
    404: "not-found",
    405: "method-not-allowed",
    408: "body-timeout",
    413: "body-too-large",
}


# RFC 6750: every 401 says how to authenticate. `invalid_token` on each of them, a
# missing token included: a client switches on the problem's `code`, and a generic one
# (an HTTP library) learns from `error` that the bearer token is to be got again.
REALM = "patience"


def www_authenticate(detail: str) -> str:
    """The WWW-Authenticate of a 401 (RFC 6750, section 3): the Bearer scheme, `error`,
    and the problem's detail as `error_description` (quoted-string: no `"` or `\\`)."""
    description = "".join(c for c in detail if c.isascii() and c.isprintable() and c not in '"\\')
    return f'Bearer realm="{REALM}", error="invalid_token", error_description="{description}"'


def problem_response(
    code: Code,
    detail: str,
    instance: str,
    *,
    status: int | None = None,
    headers: dict[str, str] | None = None,
    **extensions: Unpack[ProblemExtensions],
) -> Response:
    body = problem_body(code, detail, instance, status, **extensions)
    if body["status"] == 401:
        headers = {**(headers or {}), "WWW-Authenticate": www_authenticate(detail)}
    return Response(
        json.dumps(body, separators=(",", ":")).encode(),
        status_code=body["status"],
        headers=headers,
        media_type=PROBLEM_MEDIA_TYPE,
    )


def storage_problem(error: Exception, retry_after: int) -> ProblemError:
    log.warning("redis unavailable: %s", error)
    return ProblemError(
        "storage-unavailable",
        "the game store did not answer",
        headers={"Retry-After": str(retry_after)},
    )


def records_problem(error: Exception, retry_after: int) -> ProblemError:
    log.warning("postgresql unavailable: %s", error)
    return ProblemError(
        "records-unavailable",
        "the players' records did not answer; games go on",
        headers={"Retry-After": str(retry_after)},
    )


def install_error_handlers(app: FastAPI, settings: Settings, metrics: Metrics) -> None:
    retry_after = settings.retry_after_seconds

    def send(request: Request, problem: ProblemError) -> Response:
        metrics.problem(problem.kind.code)
        return problem_response(
            problem.kind.code,
            problem.detail,
            request.url.path,
            status=problem.status,
            headers=problem.headers,
            **problem.extensions,
        )

    async def on_problem(request: Request, error: Exception) -> Response:
        assert isinstance(error, ProblemError)
        return send(request, error)

    async def on_validation(request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        details = error.errors()
        unparseable = any(detail.get("type") == "json_invalid" for detail in details)
        where = [
            {"loc": [str(part) for part in detail.get("loc", ())], "msg": str(detail.get("msg"))}
            for detail in details
        ]
        if unparseable:
            problem = ProblemError("malformed-body", "the body is not valid JSON", errors=where)
        elif any(tuple(detail.get("loc", ()))[:2] == ("body", "deal") for detail in details):
            # docs/errors.md promises invalid-deal for any deal that is not a whole number
            problem = ProblemError(
                "invalid-deal", "deal must be a whole number 0..10^20, as a number or a string"
            )
        else:
            problem = ProblemError(
                "malformed-body",
                "the request does not have the documented shape",
                status=422,
                errors=where,
            )
        return send(request, problem)

    async def on_http(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        code = _HTTP_STATUS_CODES.get(error.status_code, "internal")
        detail = {
            "not-found": f"nothing lives at {request.url.path}",
            "method-not-allowed": f"{request.method} is not allowed on {request.url.path}",
            "malformed-body": "the body could not be read",
        }.get(code, str(error.detail))
        headers = dict(error.headers or {})
        if error.status_code == 405:
            headers["Allow"] = ", ".join(_allowed_methods(app, request))
        return send(request, ProblemError(code, detail, status=error.status_code, headers=headers))

    async def on_engine(request: Request, error: Exception) -> Response:
        assert isinstance(error, EngineError)
        return send(request, engine_problem(error, retry_after))

    async def on_storage(request: Request, error: Exception) -> Response:
        return send(request, storage_problem(error, retry_after))

    async def on_records(request: Request, error: Exception) -> Response:
        return send(request, records_problem(error, retry_after))

    async def on_anything(request: Request, error: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return send(request, ProblemError("internal", "the server failed; the error is logged"))

    handlers: dict[Any, Any] = {
        ProblemError: on_problem,
        RequestValidationError: on_validation,
        HTTPException: on_http,
        EngineError: on_engine,
        DatabaseUnavailable: on_records,
        Exception: on_anything,
    }
    for kind in STORAGE_DOWN:
        handlers[kind] = on_storage
    for kind, handler in handlers.items():
        app.add_exception_handler(kind, handler)


def _allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """Every method some route answers at the request's path (Starlette's own 405
    names only the first route whose path matches), asked of the routes themselves."""
    allowed = []
    for method in _METHODS:
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] == Match.FULL for route in app.router.routes):
            allowed.append(method)
    return allowed
