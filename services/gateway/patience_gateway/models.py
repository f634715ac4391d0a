"""Pydantic models of every request and response body (the OpenAPI schema).

Requests are parsed with them. Responses on the hot path are built as plain dicts
by `views` and sent as JSON without a second validation pass; the response models
here describe exactly those dicts (tests check responses against them).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    RootModel,
    StrictBool,
    StrictInt,
    StrictStr,
    Tag,
)

from patience_gateway.problems import KINDS

_STRICT = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- enums
# Each is one named schema (`$ref`) in the OpenAPI document. The values are the gRPC
# enum values in lower case without their type prefix (GAME_STATUS_PLAYING: `playing`).


class GameStatus(StrEnum):
    """`playing`: moves are possible; `won`: every card is on a foundation; `stuck`: no move
    is legal."""

    playing = "playing"
    won = "won"
    stuck = "stuck"


class Outlook(StrEnum):
    """What can still come of the game. `open`: not known to be lost; `won`: every card is
    on a foundation; `stuck`: no legal move; `cycling`: legal moves remain, but only ones
    that go round in circles (no card can reach a foundation again), so the game can no
    longer be won; `lost`: the solver proved that no line wins from here (a hint answered
    `lost` at this version)."""

    open = "open"
    won = "won"
    stuck = "stuck"
    cycling = "cycling"
    lost = "lost"


class HintKind(StrEnum):
    """`winning`: the first move of a line proven to win; `best-effort`: the search ran out
    of budget, so a promising move, not a proven one; `lost`: proven, no line wins, no move
    is recommended; `none`: the game is over, nothing to hint."""

    winning = "winning"
    best_effort = "best-effort"
    lost = "lost"
    none = "none"


class Verdict(StrEnum):
    """The search's answer: `won` (a winning line exists), `lost` (proven: none does) or
    `unknown` (the budget ran out first)."""

    won = "won"
    lost = "lost"
    unknown = "unknown"


class PileKind(StrEnum):
    tableau = "tableau"
    reserve = "reserve"
    foundation = "foundation"
    stock = "stock"
    waste = "waste"


class MoveKind(StrEnum):
    """`transfer`: cards from `source` to `target`; `deal`: the stock's top card to the
    waste; `redeal`: gather and deal the tableau again; `withdraw`: The Fifteen's opening
    exception, taking from the named `columns`."""

    transfer = "transfer"
    deal = "deal"
    redeal = "redeal"
    withdraw = "withdraw"


class Layout(StrEnum):
    fan = "fan"
    column = "column"
    cell = "cell"
    stack = "stack"


class Direction(StrEnum):
    up = "up"
    down = "down"


class Suit(StrEnum):
    C = "C"
    S = "S"
    H = "H"
    D = "D"


# Every problem `code` (problems.KINDS, the one list; docs/api.md describes them).
ProblemCode = StrEnum("ProblemCode", {code: code for code in KINDS})  # type: ignore[misc]
ProblemCode.__doc__ = "A problem's stable code; `GET /problems/{code}` describes it."


# --------------------------------------------------------------------------- requests


class NewGameRequest(BaseModel):
    """A new game: the variant, optionally a deal number and variant options."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"variant": "bisley"},
                {"variant": "napoleon-at-st-helena", "deal": 1234},
                {
                    "variant": "napoleon-at-st-helena",
                    "deal": "99999999999999999999",
                    "options": ["fill_from_waste_only"],
                },
            ]
        },
    )

    variant: str = Field(min_length=1, max_length=64, description="Variant id, e.g. `bisley`.")
    deal: StrictInt | StrictStr | None = Field(
        default=None,
        description=(
            "Deal number 0 .. 10^20, as a JSON integer or a decimal string (numbers above "
            "2^53 are safer as strings). Omitted: a random deal, kept hidden from the player "
            "until the game is over."
        ),
    )
    options: list[str] = Field(
        default_factory=list, max_length=16, description="Variant options to switch on."
    )
    autoplay: StrictBool = Field(
        default=False,
        description="Play every card that can safely go to a foundation after each move, in "
        "the same change (PATCH /v1/games/{id} changes it later).",
    )
    winnable: StrictBool = Field(
        default=False,
        description="A random deal proven winnable (with full knowledge of the stock) by the "
        "solver, its number hidden like any random deal's. Not with `deal` (422 "
        "`winnable-with-deal`); 503 `no-winnable-deal` when none is found in time.",
    )


class GamePatch(BaseModel):
    """A JSON merge patch (RFC 7396) of the game's settings: the fields given change,
    the others stay."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"autoplay": True}]})

    autoplay: StrictBool | None = Field(
        default=None,
        description="Play every safe move to a foundation after each move (true) or not.",
    )


class NotationMove(BaseModel):
    """A move in the engine's notation."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"move": "t3-f1"}, {"move": "deal"}]}
    )

    move: str = Field(
        min_length=1,
        max_length=64,
        description="Notation: `t3-f1`, `t4-t7/3`, `deal`, `redeal`, `withdraw t5 t9`.",
    )


class StructuredMove(BaseModel):
    """A move by its kind and fields: `transfer` names `source` and `target` (and `count`
    when more than one card moves), `withdraw` names `columns`, `deal` and `redeal` nothing."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"kind": "transfer", "source": "waste", "target": "t2"},
                {"kind": "withdraw", "columns": ["t5", "t9"]},
            ]
        },
    )

    kind: MoveKind
    source: str = Field(default="", max_length=16, description="Transfer: from pile.")
    target: str = Field(default="", max_length=16, description="Transfer: to pile.")
    count: int = Field(default=1, ge=1, le=104, description="Transfer: cards moved.")
    columns: list[str] = Field(
        default_factory=list, max_length=16, description="Withdraw: the columns named."
    )


def _move_form(value: Any) -> str:
    """Which form a request body takes: a body with `move` is notation (and then holds
    nothing else), any other is structured. Exactly the oneOf of the schema."""
    if isinstance(value, NotationMove) or (isinstance(value, dict) and "move" in value):
        return "notation"
    return "structured"


class MoveRequest(
    RootModel[
        Annotated[
            Annotated[NotationMove, Tag("notation")] | Annotated[StructuredMove, Tag("structured")],
            Discriminator(_move_form),
        ]
    ]
):
    """A move: either `move` in the engine's notation, or `kind` with its fields, never
    both (a body with `move` and `kind` is refused: 422 `malformed-body`)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"move": "t3-f1"},
                {"move": "t4-t7/3"},
                {"move": "deal"},
                {"kind": "transfer", "source": "waste", "target": "t2"},
                {"kind": "withdraw", "columns": ["t5", "t9"]},
            ]
        },
    )


# --------------------------------------------------------------------------- responses


class Move(BaseModel):
    model_config = _STRICT
    notation: str = Field(examples=["t3-f1"])
    kind: MoveKind
    source: str = Field(description="Transfer: from pile (empty otherwise).")
    target: str = Field(description="Transfer: to pile (empty otherwise).")
    count: int = Field(description="Transfer: number of cards (0 otherwise).")
    columns: list[str] = Field(description="Withdraw: the columns named.")


class Pile(BaseModel):
    model_config = _STRICT
    id: str = Field(examples=["t1"])
    kind: PileKind
    cards: list[str] = Field(
        description="Visible cards, bottom to top (`JD`, `TH`). Always empty for the stock.",
        examples=[["JD", "KS", "4S"]],
    )
    size: int = Field(description="Cards in the pile; for the stock its only visible property.")


class Counters(BaseModel):
    model_config = _STRICT
    moves_made: int
    foundation_cards: int
    redeals_left: int
    stock_size: int
    total_cards: int


class CardMoved(BaseModel):
    model_config = _STRICT
    card: str
    source: str
    source_index: int
    target: str
    target_index: int


class Game(BaseModel):
    """The player's view of a game: what a person at the table sees."""

    model_config = _STRICT
    id: str = Field(description="Game id (unguessable, url-safe).")
    version: int = Field(description="Bumped by every change; the ETag is its quoted value.")
    variant: str
    options: list[str]
    status: GameStatus
    deal: str | None = Field(
        description="Deal number; null while a random deal is hidden (until the game is "
        "over, and shown from then on, also once the end is taken back: see `replayed`)."
    )
    replayed: bool = Field(
        default=False,
        description="True once the end of a random deal (won or stuck, when its number is "
        "shown) was taken back with undo: the game goes on as an open one, its deal known, so "
        "a score, streak or leaderboard can leave it out. False for every other game.",
    )
    piles: list[Pile]
    counters: Counters
    legal_moves: list[str] = Field(
        description="Every legal move, in notation, in the engine's stable order "
        "(GET .../legal-moves lists them structured).",
        examples=[["t3-f1", "t4-t7", "deal"]],
    )
    outlook: Outlook = Field(
        description="What can still come of the game: tells a game that can no longer be "
        "won (`cycling`, `lost`) from one that may be (`open`)."
    )
    autoplay: bool = Field(
        description="The game plays every safe move to a foundation after each move."
    )


class CreatedGame(Game):
    token: str = Field(
        description=(
            "Bearer token that owns the game. Shown only in this response: keep it and send "
            "it as `Authorization: Bearer <token>`."
        )
    )


class MoveResult(Game):
    move: Move = Field(description="The move applied, normalised.")
    autoplayed: list[Move] = Field(
        description="The safe moves to the foundations played with it, in the same change "
        "(the game's `autoplay` setting), in order; undo takes them back with the move."
    )
    events: list[CardMoved] = Field(
        description="Cards moved, in order (the move's, then the safe moves'), for animation."
    )


class AutoplayResult(Game):
    moves: list[Move] = Field(
        description="The safe moves played, in order; empty when there were none (the game "
        "is then unchanged: the same version)."
    )
    events: list[CardMoved] = Field(description="Cards moved, in order, for animation.")


class Hint(BaseModel):
    """The move to play next, as the solver sees it (GET /v1/games/{id}/hint)."""

    model_config = _STRICT
    id: str
    version: int = Field(description="The version the hint is for.")
    kind: HintKind
    move: Move | None = Field(
        description="The move to play (`winning`, `best-effort`), with the same fields the "
        "move route takes; null for `lost` and `none`."
    )
    verdict: Verdict
    positions: int = Field(description="Positions the search went through.")
    milliseconds: int = Field(description="Time the search took.")


class LegalMoves(BaseModel):
    model_config = _STRICT
    id: str
    version: int
    moves: list[Move]


class History(BaseModel):
    """Enough to replay the game from its deal, and where undo has taken it."""

    model_config = _STRICT
    id: str
    version: int
    variant: str
    options: list[str]
    deal: str | None = Field(description="Deal number, or null while it is hidden.")
    replayed: bool = Field(
        default=False,
        description="True once the end of a random deal was taken back (see Game.replayed).",
    )
    moves: list[str] = Field(
        description="Every move in notation, including undone moves that can be redone."
    )
    position: int = Field(
        description="Moves currently applied: `moves[:position]` gives the current state; "
        "`moves[position:]` are waiting for redo."
    )


class PileSpec(BaseModel):
    model_config = _STRICT
    id: str
    kind: PileKind
    layout: Layout
    suit: Suit | None = Field(description="Foundations only.")
    direction: Direction | None = Field(description="Foundations only.")


class OptionSpec(BaseModel):
    model_config = _STRICT
    name: str
    description: str


class VariantSummary(BaseModel):
    model_config = _STRICT
    id: str = Field(examples=["bisley"])
    name: str = Field(examples=["Bisley"])
    packs: int
    redeals: int
    options: list[OptionSpec]


class VariantList(BaseModel):
    model_config = _STRICT
    variants: list[VariantSummary]


class Variant(VariantSummary):
    summary: str = Field(description="The rules in plain language.")
    piles: list[PileSpec] = Field(description="The table: every pile, in pile order.")


class CheckStatus(StrEnum):
    ok = "ok"
    failing = "failing"


class StateProtection(StrEnum):
    sealed = "sealed"
    plain = "plain"


class Health(BaseModel):
    model_config = _STRICT
    status: Literal["ok"]
    checks: dict[str, CheckStatus] = Field(default_factory=dict)
    engine_states: StateProtection | None = Field(
        default=None,
        description="Readiness only: `sealed` when the engine encrypts and authenticates "
        "game states with its key; `plain` when it runs without a key, an unsafe "
        "development mode (then `warnings` says so).",
    )
    warnings: list[str] = Field(
        default_factory=list, description="What an operator should know and fix."
    )


class Problem(BaseModel):
    """RFC 9457 problem details, with a stable `code`."""

    model_config = ConfigDict(
        extra="allow",
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
                }
            ]
        },
    )
    type: str
    title: str
    status: int
    detail: str
    instance: str
    code: ProblemCode = Field(description="Stable machine-readable code; see docs/api.md.")
    rule: str | None = Field(default=None, description="illegal-move: the rule broken.")
    move: str | None = Field(default=None, description="illegal-move / malformed-move.")
    errors: list[dict[str, Any]] | None = Field(
        default=None, description="malformed-body: where the body is wrong."
    )


class ProblemType(BaseModel):
    model_config = _STRICT
    code: ProblemCode
    status: int
    title: str
    description: str


class StreamTicket(BaseModel):
    """A ticket that opens the game's event stream once, within `expires_in` seconds."""

    model_config = _STRICT
    ticket: str = Field(description="Opaque; send it as `?ticket=` of GET .../events.")
    expires_in: int = Field(description="Seconds the ticket stays usable.")
    events: str = Field(description="The stream's path with the ticket, ready to open.")
