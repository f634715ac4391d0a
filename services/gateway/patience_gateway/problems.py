"""RFC 9457 problem details: every error the gateway answers with.

Each problem has a stable `code` (also the last segment of its `type` URI) that
clients can switch on; `title` is fixed per code, `detail` explains this
occurrence. The catalog below is the single list of codes (docs/api.md mirrors it).

Every layer raises `ProblemError`; the HTTP layer answers it (`http.errors`). The
body's shape, `Problem`, is also its schema in the OpenAPI document. Every body made
while a request is served carries that request's id (`request_id`, also its
`Request-Id` header: `http.access`), which finds its log lines and its trace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from patience_contract import logs
from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict, Unpack

from patience_gateway.json_enums import JsonEnum

PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "/problems/"


# Every code, as a type: a code misspelt where a problem is raised is a type error.
# The catalog below gives each its status and words; a test holds the two to one list.
Code = Literal[
    "malformed-body",
    "body-too-deep",
    "malformed-header",
    "unknown-parameter",
    "invalid-cursor",
    "invalid-day",
    "invalid-position",
    "missing-token",
    "invalid-token",
    "expired-token",
    "bad-refresh-token",
    "refresh-token-reused",
    "bad-identity-token",
    "bad-token",
    "not-operator",
    "unknown-player",
    "bad-link-code",
    "bad-challenge-code",
    "unknown-identity",
    "unknown-game",
    "missing-ticket",
    "bad-ticket",
    "unknown-variant",
    "not-found",
    "method-not-allowed",
    "concurrent-update",
    "nothing-to-undo",
    "nothing-to-restart",
    "game-over",
    "game-not-over",
    "challenge-taken",
    "own-challenge",
    "daily-attempt-open",
    "not-challengeable",
    "identity-taken",
    "display-name-taken",
    "already-claimed",
    "nothing-to-redo",
    "state-unreadable",
    "body-timeout",
    "stale-version",
    "body-too-large",
    "unsupported-media-type",
    "illegal-move",
    "malformed-move",
    "unknown-option",
    "invalid-deal",
    "idempotency-key-reused",
    "invalid-display-name",
    "too-many-requests",
    "winnable-with-deal",
    "internal",
    "engine-unavailable",
    "solver-busy",
    "no-winnable-deal",
    "storage-unavailable",
    "identity-unavailable",
    "records-unavailable",
]


@dataclass(frozen=True, slots=True)
class ProblemKind:
    code: Code
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
        "body-too-deep",
        400,
        "Request body nested too deeply",
        "The body's JSON nests arrays and objects deeper than 32 levels (no body the API "
        "takes comes near it).",
    ),
    ProblemKind(
        "malformed-header",
        400,
        "Malformed header",
        "A header (If-Match, If-None-Match, Idempotency-Key, the bearer token of "
        "Authorization) does not have the documented form.",
    ),
    ProblemKind(
        "unknown-parameter",
        400,
        "Unknown query parameter",
        "The daily deals' and the leaderboards' operations refuse a query parameter they "
        "do not take (a misspelt one would otherwise be answered as if left out).",
    ),
    ProblemKind(
        "invalid-cursor",
        400,
        "Invalid cursor",
        "The `cursor` of a list is not one the list gave (take the `next` address as it is).",
    ),
    ProblemKind(
        "invalid-day",
        400,
        "Invalid day",
        "A day is written YYYY-MM-DD (a UTC date).",
    ),
    ProblemKind(
        "invalid-position",
        400,
        "Invalid position",
        "A replay's `position` is the number of moves played, from 0 to the history's length.",
    ),
    ProblemKind(
        "missing-token",
        401,
        "Missing token",
        "The request carries no `Authorization: Bearer <token>` header.",
    ),
    ProblemKind(
        "invalid-token",
        401,
        "Invalid access token",
        "The bearer token looks like a player's access token but does not verify: not "
        "signed by this service's keys (forged, altered, or signed with a key no longer "
        "kept), or for no known player. Sign in again (create a player, or link a device).",
    ),
    ProblemKind(
        "expired-token",
        401,
        "Access token expired",
        "The player's access token has expired: get a new one with the refresh token "
        "(POST /v1/sessions/refresh).",
    ),
    ProblemKind(
        "bad-refresh-token",
        401,
        "Bad refresh token",
        "The refresh token is not known, has expired, or was revoked (signed out).",
    ),
    ProblemKind(
        "refresh-token-reused",
        401,
        "Refresh token reused",
        "This refresh token was used before (and not moments ago by the same device): "
        "someone else may hold a copy, so every session of the device is revoked.",
    ),
    ProblemKind(
        "bad-identity-token",
        401,
        "Bad identity token",
        "The ID token of an outside identity does not verify: its issuer is not one this "
        "service accepts, its signature is not by a key the issuer publishes, it has "
        "expired, it is for another app (`aud`), or its `nonce` is not the one sent.",
    ),
    ProblemKind(
        "bad-token",
        403,
        "Wrong token",
        "The bearer token does not open this game: not the token handed out when this "
        "anonymous game was created, or not the access token of the player who owns it.",
    ),
    ProblemKind(
        "not-operator",
        403,
        "Operators only",
        "The operators' routes take the gateway's OPERATOR_KEY as the bearer token; no "
        "player's or game's token opens them, and without OPERATOR_KEY nothing does.",
    ),
    ProblemKind(
        "unknown-player",
        404,
        "Unknown player",
        "No player has this id.",
    ),
    ProblemKind(
        "bad-link-code",
        404,
        "Unknown link code",
        "No live link code is this one: it was used (a code opens one device), expired "
        "(after 300 s) or mistyped.",
    ),
    ProblemKind(
        "bad-challenge-code",
        404,
        "Unknown challenge code",
        "No challenge has this code: it expired (after 7 days) or is mistyped.",
    ),
    ProblemKind(
        "unknown-identity",
        404,
        "Unknown identity",
        "The outside identity verifies but no player has linked it: create a player and "
        "link the identity (POST /v1/players/me/identities), or sign in another way.",
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
        "nothing-to-restart",
        409,
        "Nothing to restart",
        "The game stands at its deal already (nothing played since the start or the last restart).",
    ),
    ProblemKind(
        "game-over",
        409,
        "Game over",
        "The game was resigned or abandoned and takes no more changes, or (resign, claim) "
        "its record has closed already.",
    ),
    ProblemKind(
        "game-not-over",
        409,
        "Game not over",
        "The game's record has not closed: it has no result to sign yet.",
    ),
    ProblemKind(
        "challenge-taken",
        409,
        "Challenge taken",
        "The challenge was taken already: a code deals one game.",
    ),
    ProblemKind(
        "own-challenge",
        409,
        "Own challenge",
        "A player cannot take a challenge they offered.",
    ),
    ProblemKind(
        "daily-attempt-open",
        409,
        "The day's first attempt is still open",
        "A later start of a day's deal waits until the player's first attempt at it has "
        "ended (won, stuck, resigned, or deleted): a copy played beside it would be a "
        "rehearsal of the attempt that counts.",
    ),
    ProblemKind(
        "not-challengeable",
        409,
        "Cannot be offered",
        "A daily deal is offered as a challenge only once its day is over; a deal whose "
        "number is hidden from its player (a random deal) only once the game is over.",
    ),
    ProblemKind(
        "identity-taken",
        409,
        "Identity taken",
        "The outside identity is linked to another player already: an identity belongs "
        "to one player at a time.",
    ),
    ProblemKind(
        "display-name-taken",
        409,
        "Display name taken",
        "Another player has this display name, or one that differs from it only in case "
        "or width (names are compared NFKC-normalised and case folded).",
    ),
    ProblemKind(
        "already-claimed",
        409,
        "Already claimed",
        "The game belongs to a player already.",
    ),
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
        "invalid-display-name",
        422,
        "Invalid display name",
        "A display name is 1 to 32 characters once normalised (NFKC, runs of white space "
        "as one space), without control, format or private-use characters.",
    ),
    ProblemKind(
        "too-many-requests",
        429,
        "Too many requests",
        "Too many requests of this kind from this client or player (new players, link "
        "codes, links, daily starts, challenges offered, challenge codes tried); retry "
        "after Retry-After seconds.",
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
    ProblemKind(
        "identity-unavailable",
        503,
        "Identity issuer unavailable",
        "The outside identity's issuer does not answer for its keys, and none this "
        "service kept verifies the ID token; retry after Retry-After seconds.",
    ),
    ProblemKind(
        "records-unavailable",
        503,
        "Records unavailable",
        "PostgreSQL, which keeps players and their records, cannot be reached (or this "
        "gateway has none configured); retry after Retry-After seconds. Games go on: a "
        "finished game's record reaches PostgreSQL once it is back.",
    ),
)

KINDS: dict[str, ProblemKind] = {kind.code: kind for kind in _KINDS}


# Every problem `code` (KINDS, the one list; docs/api.md describes them).
PROBLEM_CODE = JsonEnum(
    "ProblemCode", KINDS, "A problem's stable code; `GET /problems/{code}` describes it."
)


class ProblemExtensions(TypedDict, total=False):
    """The members some problems add to the standard ones."""

    rule: Annotated[str | None, Field(default=None, description="illegal-move: the rule broken.")]
    move: Annotated[str | None, Field(default=None, description="illegal-move / malformed-move.")]
    errors: Annotated[
        list[dict[str, Any]] | None,
        Field(default=None, description="malformed-body: where the body is wrong."),
    ]
    request_id: Annotated[
        str | None,
        Field(
            default=None,
            description="The request's id, as in its `Request-Id` header: quote it when "
            "reporting a problem (the gateway's logs and traces are found by it).",
        ),
    ]


@with_config(
    ConfigDict(
        extra="allow",
        # built on first use, not for each route's responses (games/shapes.py says why)
        defer_build=True,
        json_schema_extra={
            "examples": [
                {
                    "type": "/problems/illegal-move",
                    "title": "Illegal move",
                    "status": 422,
                    "detail": "a seven does not go on a nine",
                    "instance": "/v1/games/x7R2kJ0vQp9sYd3mN8a1Zw/moves",
                    "code": "illegal-move",
                    "rule": "wrong_rank",
                    "move": "t3-t4",
                    "request_id": "4bf92f3577b34da6a3ce929d0e0e4736",
                }
            ]
        },
    )
)
class Problem(ProblemExtensions):
    """RFC 9457 problem details, with a stable `code`."""

    type: str
    title: str
    status: int
    detail: str
    instance: str
    code: Annotated[
        str, PROBLEM_CODE, Field(description="Stable machine-readable code; see docs/api.md.")
    ]


class ProblemError(Exception):
    """Raised anywhere while serving a request; answered as problem+json."""

    def __init__(
        self,
        code: Code,
        detail: str,
        *,
        status: int | None = None,
        headers: dict[str, str] | None = None,
        **extensions: Unpack[ProblemExtensions],
    ) -> None:
        super().__init__(detail)
        self.kind = KINDS[code]
        self.status = status or self.kind.status
        self.detail = detail
        self.headers = headers or {}
        self.extensions = extensions


def problem_body(
    code: Code,
    detail: str,
    instance: str,
    status: int | None = None,
    **extensions: Unpack[ProblemExtensions],
) -> Problem:
    kind = KINDS[code]
    body: Problem = {
        "type": TYPE_PREFIX + code,
        "title": kind.title,
        "status": status or kind.status,
        "detail": detail,
        "instance": instance,
        "code": code,
        **extensions,
    }
    request_id = logs.request_id.get()
    if request_id is not None:
        body["request_id"] = request_id
    return body
