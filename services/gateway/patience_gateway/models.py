"""Pydantic models of every request and response body (the OpenAPI schema).

Requests are parsed with them. Responses on the hot path are built as plain dicts
by `views` and sent as JSON without a second validation pass; the response models
here describe exactly those dicts (tests check responses against them).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_validator

PileKind = Literal["tableau", "reserve", "foundation", "stock", "waste"]
MoveKind = Literal["transfer", "deal", "redeal", "withdraw"]
GameStatus = Literal["playing", "won", "stuck"]

_STRICT = ConfigDict(extra="forbid")


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


class MoveRequest(BaseModel):
    """A move: either `move` in the engine's notation, or `kind` with its fields."""

    model_config = ConfigDict(
        extra="forbid",
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

    move: str | None = Field(
        default=None,
        max_length=64,
        description="Notation: `t3-f1`, `t4-t7/3`, `deal`, `redeal`, `withdraw t5 t9`.",
    )
    kind: MoveKind | None = Field(default=None, description="Structured move: its kind.")
    source: str | None = Field(default=None, max_length=16, description="Transfer: from pile.")
    target: str | None = Field(default=None, max_length=16, description="Transfer: to pile.")
    count: int | None = Field(default=None, ge=1, le=104, description="Transfer: cards moved.")
    columns: list[str] | None = Field(
        default=None, max_length=16, description="Withdraw: the columns named."
    )

    @model_validator(mode="after")
    def _one_form(self) -> MoveRequest:
        structured = (self.kind, self.source, self.target, self.count, self.columns)
        if self.move is None and self.kind is None:
            raise ValueError("give either `move` (notation) or `kind` with its fields")
        if self.move is not None and any(field is not None for field in structured):
            raise ValueError("give either `move` or the structured fields, not both")
        return self


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
        description="Deal number; null while a random deal is hidden (until the game is over)."
    )
    piles: list[Pile]
    counters: Counters
    legal_moves: list[str] = Field(
        description="Every legal move, in notation, in the engine's stable order "
        "(GET .../legal-moves lists them structured).",
        examples=[["t3-f1", "t4-t7", "deal"]],
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
    events: list[CardMoved] = Field(description="Cards moved, in order, for animation.")


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
    layout: Literal["fan", "column", "cell", "stack"]
    suit: Literal["C", "S", "H", "D"] | None = Field(description="Foundations only.")
    direction: Literal["up", "down"] | None = Field(description="Foundations only.")


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


class Health(BaseModel):
    model_config = _STRICT
    status: Literal["ok"]
    checks: dict[str, Literal["ok", "failing"]] = Field(default_factory=dict)
    engine_states: Literal["sealed", "plain"] | None = Field(
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
    code: str = Field(description="Stable machine-readable code; see docs/api.md.")
    rule: str | None = Field(default=None, description="illegal-move: the rule broken.")
    move: str | None = Field(default=None, description="illegal-move / malformed-move.")
    errors: list[dict[str, Any]] | None = Field(
        default=None, description="malformed-body: where the body is wrong."
    )


class ProblemType(BaseModel):
    model_config = _STRICT
    code: str
    status: int
    title: str
    description: str
