"""The bodies of the records' answers, written once: the record every game view carries,
a player's list of games and statistics. Each is both the static type of the dicts the
answers build and the schema of the OpenAPI document."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from patience_gateway.json_enums import JsonEnum
from patience_gateway.records.record import CATEGORIES, OUTCOMES

# schemas built on first use, not at import (games/shapes.py says why)
_EXACT = ConfigDict(extra="forbid", defer_build=True)
_TIME = "RFC 3339, UTC, milliseconds"

OUTCOME = JsonEnum(
    "Outcome",
    OUTCOMES,
    """How a game ended. `won`; `stuck`: no legal move was left; `proven-lost`: resigned
    once the service had proven that no line wins; `resigned`; `abandoned`: no change for
    `abandon_after_seconds`, or deleted before its end.""",
)
CATEGORY = JsonEnum(
    "Category",
    CATEGORIES,
    """How a game counts in its player's statistics: `random` (a random deal, its number
    unseen), `winnable` (a random deal proven winnable), `practice` (a deal number
    chosen, an end taken back, or a game claimed).""",
)


@with_config(_EXACT)
class RecordShape(TypedDict):
    """How the game was played, counted by the service (docs/api.md, "The game's
    record"). It closes at the game's first end; later changes leave it as it is."""

    created: Annotated[str, Field(description=f"When the game was dealt ({_TIME}).")]
    first_move: Annotated[str | None, Field(description="The first move's time, or null.")]
    last_change: Annotated[str, Field(description="The last change's time (or the deal's).")]
    finished: Annotated[str | None, Field(description="When the record closed, or null.")]
    active_seconds: Annotated[
        float,
        Field(
            description="Time between changes, each gap counted up to 300 s (a game left "
            "open does not count the time it waits)."
        ),
    ]
    moves: Annotated[
        int,
        Field(
            description="Every move the player made, undone ones included (a redeal and a "
            "deal from the stock are moves). `counters.position` counts the moves from the "
            "deal to the table as it is."
        ),
    ]
    undos: int
    redos: int
    hints: Annotated[int, Field(description="Hints asked while the record was open.")]
    autoplays: Annotated[
        int, Field(description="Changes that played safe moves (the autoplay route or setting).")
    ]
    restarts: int
    redeals: int
    deals: Annotated[
        int, Field(description="Deal moves: cards dealt from the stock to the waste, one each.")
    ]
    outcome: Annotated[
        Annotated[str, OUTCOME] | None,
        Field(description="How the game ended: null while it is being played."),
    ]
    clean: Annotated[
        bool | None,
        Field(description="Won without undo, redo, restart or hint; null until it is won."),
    ]
    winnable: Annotated[bool, Field(description="Dealt from the deals proven winnable.")]
    category: Annotated[str, CATEGORY]
    player: Annotated[
        str | None, Field(description="The player who owns the game; null for an anonymous one.")
    ]
    daily: Annotated[
        str | None,
        Field(
            description="A daily deal's day (`YYYY-MM-DD`, UTC): its deal number stays hidden "
            "everywhere until the day is over. Null for every other game."
        ),
    ]


@with_config(_EXACT)
class GameSummary(TypedDict):
    id: str
    variant: str
    options: list[str]
    deal: Annotated[str | None, Field(description="The deal number, when the player may know it.")]
    replayed: bool
    record: RecordShape


@with_config(_EXACT)
class GameList(TypedDict):
    games: Annotated[list[GameSummary], Field(description="Newest first.")]
    next: Annotated[
        str | None,
        Field(description="The next page's address (with `cursor`); null on the last page."),
    ]


@with_config(_EXACT)
class FiguresShape(TypedDict):
    variant: str
    category: Annotated[str, CATEGORY]
    played: Annotated[
        int, Field(description="Finished games (an abandoned one without a move does not count).")
    ]
    won: int
    lost: Annotated[int, Field(description="Ended stuck, or resigned once proven lost.")]
    resigned: int
    abandoned: int
    win_rate: Annotated[float | None, Field(description="won / played; null before any game.")]
    clean_wins: int
    current_streak: Annotated[int, Field(description="Wins in a row, up to the last game.")]
    best_streak: int
    best_time_seconds: Annotated[float | None, Field(description="The least active time of a win.")]
    fewest_moves: Annotated[int | None, Field(description="The fewest moves made in a win.")]


@with_config(_EXACT)
class StatisticsShape(TypedDict):
    player: str
    abandon_after_seconds: Annotated[
        int,
        Field(
            description="A game in play that has not changed for this long ends as "
            "abandoned (a loss, unless no move was made)."
        ),
    ]
    statistics: Annotated[
        list[FiguresShape], Field(description="One entry per variant and category played.")
    ]
