"""RFC 9457 problem details: every error the gateway answers with.

Each problem has a stable `code` (also the last segment of its `type` URI) that
clients can switch on; `title` is fixed per code, `detail` explains this
occurrence. The catalog below is the single list of codes (docs/api.md mirrors it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from starlette.responses import Response

PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "/problems/"


@dataclass(frozen=True, slots=True)
class ProblemKind:
    code: str
    status: int
    title: str
    description: str


_KINDS = (
    ProblemKind(
        "malformed-body",
        400,
        "Malformed request body",
        "The body is not valid JSON (400), or is JSON of the wrong shape (422).",
    ),
    ProblemKind(
        "malformed-header",
        400,
        "Malformed header",
        "A header (If-Match, If-None-Match, Idempotency-Key, the bearer token of "
        "Authorization) does not have the documented form.",
    ),
    ProblemKind(
        "missing-token",
        401,
        "Missing token",
        "The request carries no `Authorization: Bearer <token>` header.",
    ),
    ProblemKind(
        "bad-token",
        403,
        "Wrong token",
        "The bearer token is not the one handed out when this game was created.",
    ),
    ProblemKind(
        "unknown-game",
        404,
        "Unknown game",
        "No game has this id: it never existed, was deleted or has expired.",
    ),
    ProblemKind(
        "missing-ticket",
        401,
        "Missing stream ticket",
        "An event stream is opened with `?ticket=` from POST .../stream-tickets.",
    ),
    ProblemKind(
        "bad-ticket",
        403,
        "Bad stream ticket",
        "The stream ticket is not one of this game's, was used already or has expired "
        "(a ticket opens one stream, within 60 s): ask for a new one.",
    ),
    ProblemKind("unknown-variant", 404, "Unknown variant", "The engine knows no such variant."),
    ProblemKind("not-found", 404, "Not found", "No resource lives at this path."),
    ProblemKind(
        "method-not-allowed",
        405,
        "Method not allowed",
        "The resource exists but does not answer this HTTP method.",
    ),
    ProblemKind(
        "concurrent-update",
        409,
        "Concurrent update",
        "Another request changed the game between this request's read and its write "
        "(no If-Match was sent); nothing was applied. Read the game and retry.",
    ),
    ProblemKind("nothing-to-undo", 409, "Nothing to undo", "The game is at its deal."),
    ProblemKind(
        "nothing-to-redo", 409, "Nothing to redo", "No undone move is waiting to be redone."
    ),
    ProblemKind(
        "state-unreadable",
        409,
        "State unreadable",
        "The game is stored, but the engine holds no key that opens its state (the seal "
        "key was changed without keeping the old one, see ENGINE_OLD_SEAL_KEYS), or the "
        "stored state was changed. Nothing was applied; the game answers again once the "
        "engine has the key.",
    ),
    ProblemKind(
        "body-timeout",
        408,
        "Request body too slow",
        "The body did not arrive within the gateway's body timeout "
        "(GATEWAY_BODY_TIMEOUT_SECONDS); the connection is closed.",
    ),
    ProblemKind(
        "stale-version",
        412,
        "Stale version",
        "If-Match does not name the game's current version; nothing was applied.",
    ),
    ProblemKind(
        "body-too-large",
        413,
        "Request body too large",
        "The body is larger than the gateway accepts (MAX_BODY_BYTES).",
    ),
    ProblemKind(
        "unsupported-media-type",
        415,
        "Unsupported media type",
        "The request has a body that is not JSON (`Content-Type: application/json`).",
    ),
    ProblemKind(
        "illegal-move",
        422,
        "Illegal move",
        "The move is well formed but the rules forbid it here; `rule` says which rule.",
    ),
    ProblemKind(
        "malformed-move",
        422,
        "Malformed move",
        "The move is not valid notation, or its structured fields do not make a move.",
    ),
    ProblemKind("unknown-option", 422, "Unknown option", "The variant has no such option."),
    ProblemKind(
        "invalid-deal",
        422,
        "Invalid deal number",
        "A deal number must be a whole number from 0 to 10^20.",
    ),
    ProblemKind(
        "idempotency-key-reused",
        422,
        "Idempotency key reused",
        "This Idempotency-Key was already used on this game for a different request "
        "(on a create: for a different create, or more than 24 hours ago).",
    ),
    ProblemKind(
        "winnable-with-deal",
        422,
        "Winnable with a deal",
        "`winnable: true` asks for a random deal proven winnable; it cannot be combined "
        "with `deal`.",
    ),
    ProblemKind("internal", 500, "Internal error", "The gateway failed; the error is logged."),
    ProblemKind(
        "engine-unavailable",
        503,
        "Engine unavailable",
        "The rules engine cannot be reached; retry after Retry-After seconds.",
    ),
    ProblemKind(
        "solver-busy",
        503,
        "Solver busy",
        "Every search process of the engine is taken and its queue is full; retry after "
        "Retry-After seconds. Moves are not affected.",
    ),
    ProblemKind(
        "no-winnable-deal",
        503,
        "No winnable deal found in time",
        "No deal of this variant was proven winnable within the gateway's search time "
        "(WINNABLE_SEARCH_SECONDS) and none was ready in the pool; retry after Retry-After "
        "seconds, or deal without `winnable`.",
    ),
    ProblemKind(
        "storage-unavailable",
        503,
        "Storage unavailable",
        "Redis cannot be reached; retry after Retry-After seconds.",
    ),
)

KINDS: dict[str, ProblemKind] = {kind.code: kind for kind in _KINDS}


class ProblemError(Exception):
    """Raised anywhere while serving a request; answered as problem+json."""

    def __init__(
        self,
        code: str,
        detail: str,
        *,
        status: int | None = None,
        headers: dict[str, str] | None = None,
        **extensions: Any,
    ) -> None:
        super().__init__(detail)
        self.kind = KINDS[code]
        self.status = status or self.kind.status
        self.detail = detail
        self.headers = headers or {}
        self.extensions = extensions


def problem_body(
    code: str, detail: str, instance: str, status: int | None = None, **extensions: Any
) -> dict[str, Any]:
    kind = KINDS[code]
    body: dict[str, Any] = {
        "type": TYPE_PREFIX + code,
        "title": kind.title,
        "status": status or kind.status,
        "detail": detail,
        "instance": instance,
        "code": code,
    }
    body.update(extensions)
    return body


def problem_response(
    code: str,
    detail: str,
    instance: str,
    *,
    status: int | None = None,
    headers: dict[str, str] | None = None,
    **extensions: Any,
) -> Response:
    body = problem_body(code, detail, instance, status, **extensions)
    return Response(
        json.dumps(body, separators=(",", ":")).encode(),
        status_code=body["status"],
        headers=headers,
        media_type=PROBLEM_MEDIA_TYPE,
    )
