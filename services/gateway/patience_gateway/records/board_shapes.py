"""The bodies of the daily deals' and the leaderboards' answers (docs/api.md, "Daily
deals" and "Leaderboards"): each is both the static type of the dicts the answers build
and the schema of the OpenAPI document, so generated clients are typed for them."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

# schemas built on first use, not at import (games/shapes.py says why)
_EXACT = ConfigDict(extra="forbid", defer_build=True)
_DAY = "`YYYY-MM-DD`, UTC"


@with_config(_EXACT)
class DailyDealShape(TypedDict):
    variant: str
    ready: Annotated[
        bool, Field(description="The day's deal is prepared (else a start answers 503).")
    ]
    attempt: Annotated[
        str | None,
        Field(
            description="The id of the player's first attempt at it today (with a "
            "player's access token); null before one, or without a token."
        ),
    ]
    start: Annotated[str, Field(description="Where to POST to start the day's deal.")]


@with_config(_EXACT)
class PublishedDeal(TypedDict):
    variant: str
    deal: Annotated[str, Field(description="The deal number, public once its day is over.")]


@with_config(_EXACT)
class YesterdayShape(TypedDict):
    day: Annotated[str, Field(description=_DAY, json_schema_extra={"format": "date"})]
    deals: list[PublishedDeal]


@with_config(_EXACT)
class DailyShape(TypedDict):
    """Today's deals, and yesterday's numbers."""

    day: Annotated[str, Field(description=_DAY, json_schema_extra={"format": "date"})]
    ends_in_seconds: Annotated[int, Field(description="Seconds until the day is over (UTC).")]
    deals: Annotated[list[DailyDealShape], Field(description="One per variant with a daily deal.")]
    yesterday: YesterdayShape


@with_config(_EXACT)
class DailyResult(TypedDict):
    won: bool
    clean: Annotated[bool, Field(description="Won without undo, redo, restart or hint.")]
    moves: Annotated[
        int | None,
        Field(description="Every card moved in the attempt, autoplay's too; null unless won."),
    ]
    active_seconds: Annotated[
        float | None,
        Field(description="The attempt's active time: shown, not ranked; null unless won."),
    ]


_RANK = Field(
    description="Competition rank: one more than the players strictly better (ties share it)."
)
_NAME = Field(description="The player's display name, or null when they chose none.")


@with_config(_EXACT)
class BoardRow(TypedDict):
    rank: Annotated[int, _RANK]
    player: Annotated[str, Field(description="The player's id.")]
    display_name: Annotated[str | None, _NAME]
    score: Annotated[
        int, Field(description="Clean wins (the wins boards) or the longest run of them.")
    ]


@with_config(_EXACT)
class DailyBoardRow(DailyResult):
    rank: Annotated[int, _RANK]
    player: Annotated[str, Field(description="The player's id.")]
    display_name: Annotated[str | None, _NAME]


_BOARD = Field(description="The board's name: `wins:<variant>:all`, `streaks:<variant>`, ...")
_SIZE = Field(description="How many players the board ranks.")
_ME = Field(description="The player of the access token, if on the board; else null.")
_AROUND = Field(description="The players just above and below the player, the player included.")


@with_config(_EXACT)
class BoardShape(TypedDict):
    board: Annotated[str, _BOARD]
    size: Annotated[int, _SIZE]
    top: Annotated[list[BoardRow], Field(description="The board from its first place.")]
    me: Annotated[BoardRow | None, _ME]
    around: Annotated[list[BoardRow], _AROUND]


@with_config(_EXACT)
class DailyBoardShape(TypedDict):
    board: Annotated[str, _BOARD]
    size: Annotated[int, _SIZE]
    top: Annotated[list[DailyBoardRow], Field(description="The board from its first place.")]
    me: Annotated[DailyBoardRow | None, _ME]
    around: Annotated[list[DailyBoardRow], _AROUND]


@with_config(_EXACT)
class AuditLineShape(TypedDict):
    action: Annotated[str, Field(description="`exclude` or `restore`.")]
    reason: str
    operator: str
    at: Annotated[str, Field(description="RFC 3339, UTC.")]


@with_config(_EXACT)
class StandingShape(TypedDict):
    """A player's standing on the boards, as an operator sees it."""

    player: str
    on_boards: bool
    audit: Annotated[list[AuditLineShape], Field(description="Newest first, 50 at most.")]
