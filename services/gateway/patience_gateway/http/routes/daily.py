"""/v1/daily and /v1/leaderboards: the day's deals, and the boards the service computes
(docs/api.md, "Daily deals" and "Leaderboards")."""

from __future__ import annotations

import hmac
from datetime import timedelta
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Depends, Path, Query, Request
from starlette.responses import Response

from patience_gateway.games.daily import DailyDeals
from patience_gateway.games.shapes import CreatedGame
from patience_gateway.http.exchange import games_of, players_of, send, services_of, token_of
from patience_gateway.http.openapi import ETAG_HEADER, LOCATION_HEADER, PLAYER_SCHEME, ok, problems
from patience_gateway.problems import ProblemError
from patience_gateway.records import days, moderation
from patience_gateway.records.board_shapes import (
    BoardShape,
    DailyBoardShape,
    DailyShape,
    StandingShape,
)
from patience_gateway.records.leaderboards import (
    ALL_TIME,
    Leaderboards,
    daily_name,
    streaks_name,
    week_of,
    wins_name,
)
from patience_gateway.records.requests import StandingChange

# How far back a day's board can be read.
BOARD_DAYS = timedelta(days=366)
# A day as written: YYYY-MM-DD, nothing else (records.days.parse reads it).
DAY_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"


def known_query(request: Request) -> None:
    """Refuses a query parameter the operation does not take (400 unknown-parameter):
    a misspelt `top` or `period` would otherwise be answered as if it were left out."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    known = {param.alias for param in dependant.query_params}
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        raise ProblemError(
            "unknown-parameter",
            f"this operation takes no query parameter {', '.join(map(repr, unknown))}"
            + (f"; it takes {', '.join(sorted(known))}" if known else ""),
        )


daily = APIRouter(prefix="/v1/daily", tags=["daily"], dependencies=[Depends(known_query)])
boards = APIRouter(prefix="/v1/leaderboards", tags=["daily"], dependencies=[Depends(known_query)])

Variant = Annotated[str, Path(max_length=64, examples=["bisley"])]
Top = Annotated[int, Query(ge=1, le=100, description="Players from the top.")]
Around = Annotated[
    int, Query(ge=0, le=50, description="Players above and below the player of the token.")
]


def _daily_of(request: Request) -> DailyDeals:
    return services_of(request).daily


def _boards_of(request: Request) -> Leaderboards:
    found = services_of(request).leaderboards
    if found is None:
        raise ProblemError("records-unavailable", "this gateway has no PostgreSQL (DATABASE_URL)")
    return found


def _optional_player(request: Request) -> str | None:
    """The player of the request's access token, if it carries one."""
    if request.headers.get("authorization") is None:
        return None
    return players_of(request).verify(token_of(request)).player_id


def _json(body: bytes) -> Response:
    return Response(body, 200, {"Cache-Control": "no-store"}, media_type="application/json")


@daily.get(
    "",
    response_model=DailyShape,
    summary="Today's deals, and yesterday's numbers",
    description="One deal per variant and UTC day, proven winnable, the same for every "
    "player; its number is hidden until the day is over. With a player's access token, "
    "the player's attempts today.",
    responses={200: ok("The day's deals."), **problems(400, 401, 503)},
    openapi_extra={"security": [{}, {PLAYER_SCHEME: []}]},
)
async def daily_deals(request: Request) -> Response:
    return _json(await _daily_of(request).today(_optional_player(request)))


@daily.post(
    "/{variant}/games",
    status_code=201,
    response_model=CreatedGame,
    summary="Start today's deal of a variant",
    description="A player's game of today's deal. The first attempt of the day counts on "
    "the day's board and as `daily` in the statistics, from the moment it is dealt; a "
    "later attempt is practice, dealt only once the first attempt has ended (409 "
    "`daily-attempt-open` before).",
    responses={
        201: ok("The new game.", Location=LOCATION_HEADER, ETag=ETAG_HEADER),
        **problems(400, 401, 404, 409, 429, 503),
    },
    openapi_extra={"security": [{PLAYER_SCHEME: []}]},
)
async def start_daily(request: Request, variant: Variant) -> Response:
    player = players_of(request).verify(token_of(request)).player_id
    game_id, reply = await _daily_of(request).start(player, variant)
    reply.headers["Location"] = f"/v1/games/{game_id}"
    return send(reply)


async def _board(request: Request, variant: str, name: str, top: int, around: int) -> Response:
    await games_of(request).known_variant(variant)  # no board is made for a name made up
    body = await _boards_of(request).read(
        name, top=top, around=around, player_id=_optional_player(request)
    )
    return _json(orjson.dumps(body))


_BOARD_EXTRA: dict[str, Any] = {"security": [{}, {PLAYER_SCHEME: []}]}


@boards.get(
    "/daily/{variant}",
    response_model=DailyBoardShape,
    summary="A day's board of first attempts",
    description="Ranked by a clean win, then a win, then the rest; then fewest moves "
    "(every card moved, autoplay's too). The same result shares its rank: active time is "
    "shown, not ranked. `day` defaults to today (UTC).",
    responses={200: ok("The board."), **problems(400, 401, 404, 503)},
    openapi_extra=_BOARD_EXTRA,
)
async def daily_board(
    request: Request,
    variant: Variant,
    day: Annotated[
        str | None,
        Query(
            description="YYYY-MM-DD (UTC); another form: 400 `invalid-day`.",
            json_schema_extra={"format": "date", "pattern": DAY_PATTERN},
        ),
    ] = None,
    top: Top = 10,
    around: Around = 2,
) -> Response:
    today = days.today()
    when = today if day is None else days.parse(day)
    if when is None:
        raise ProblemError("invalid-day", f"day must be YYYY-MM-DD, not {day!r}")
    if not today - BOARD_DAYS <= when <= today:
        raise ProblemError(
            "invalid-day",
            f"a day's board is of one of the last {BOARD_DAYS.days} days, up to today",
        )
    return await _board(request, variant, daily_name(variant, when.isoformat()), top, around)


@boards.get(
    "/wins/{variant}",
    response_model=BoardShape,
    summary="Clean wins, over all time or this week",
    description="Clean wins (without undo, redo, restart or hint) in the ranked categories "
    "(random, winnable and daily deals).",
    responses={200: ok("The board."), **problems(400, 401, 404, 503)},
    openapi_extra=_BOARD_EXTRA,
)
async def wins_board(
    request: Request,
    variant: Variant,
    period: Annotated[Literal["all", "week"], Query()] = "all",
    top: Top = 10,
    around: Around = 2,
) -> Response:
    which = ALL_TIME if period == ALL_TIME else week_of(days.today())
    return await _board(request, variant, wins_name(variant, which), top, around)


@boards.get(
    "/streaks/{variant}",
    response_model=BoardShape,
    summary="Best streaks of clean wins",
    description="The longest run of clean wins in a ranked category, in the order the "
    "games ended; a loss, an abandoned or deleted game or a win with help ends a run.",
    responses={200: ok("The board."), **problems(400, 401, 404, 503)},
    openapi_extra=_BOARD_EXTRA,
)
async def streaks_board(
    request: Request, variant: Variant, top: Top = 10, around: Around = 2
) -> Response:
    return await _board(request, variant, streaks_name(variant), top, around)


# ---------------------------------------------------------------- the operators' routes


def _operator(request: Request) -> None:
    """Refuses a request without the gateway's OPERATOR_KEY as its bearer token (403
    not-operator): a player's access token, or any other, opens nothing here."""
    key = services_of(request).settings.operator_key
    given = request.headers.get("authorization", "")
    scheme, _, token = given.partition(" ")
    if (
        not key
        or scheme.lower() != "bearer"
        or not hmac.compare_digest(token.strip().encode(), key.encode())
    ):
        raise ProblemError(
            "not-operator", "this route takes the gateway's operator key, and nothing else"
        )


def _standing_json(found: moderation.Standing) -> Response:
    body: StandingShape = {
        "player": found.player_id,
        "on_boards": found.on_boards,
        "audit": [
            {
                "action": line.action,
                "reason": line.reason,
                "operator": line.operator,
                "at": line.at.isoformat(),
            }
            for line in found.audit
        ],
    }
    return _json(orjson.dumps(body))


PlayerId = Annotated[str, Path(min_length=1, max_length=64)]


@boards.get("/players/{player_id}", include_in_schema=False)
async def player_standing(request: Request, player_id: PlayerId) -> Response:
    """Whether the player is on the boards, and who changed it when and why."""
    _operator(request)
    return _standing_json(await moderation.standing(_boards_of(request), player_id))


@boards.put("/players/{player_id}", include_in_schema=False)
async def set_player_standing(
    request: Request, player_id: PlayerId, change: StandingChange
) -> Response:
    """Keeps the player off every board and day's ranking, or puts them back (audited).
    docs/operations.md, "Moderation"."""
    _operator(request)
    found = await moderation.set_standing(
        _boards_of(request),
        player_id,
        on_boards=change.on_boards,
        operator=change.operator,
        reason=change.reason,
    )
    return _standing_json(found)
