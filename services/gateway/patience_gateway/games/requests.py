"""The bodies of the game API's requests (pydantic models, parsed with them, and their
schemas in the OpenAPI document)."""

from __future__ import annotations

from typing import Annotated, Any

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

from patience_gateway.games.enums import MOVE_KIND


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

    kind: Annotated[str, MOVE_KIND]
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
