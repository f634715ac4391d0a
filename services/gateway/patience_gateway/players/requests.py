"""The bodies the player routes take."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from patience_gateway.players.names import MAX_NAME_LENGTH

# room for what normalisation takes away (spaces, compatibility forms)
_RAW_NAME = Field(max_length=4 * MAX_NAME_LENGTH)


class NewPlayer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    display_name: Annotated[str | None, _RAW_NAME] = Field(
        default=None,
        description=f"Optional: 1 to {MAX_NAME_LENGTH} characters once normalised (NFKC, "
        "runs of spaces as one, no control or format characters).",
    )


class PlayerPatch(BaseModel):
    """A JSON merge patch of the player: `display_name` set, null to remove it, left out
    to keep it."""

    model_config = ConfigDict(extra="forbid")
    display_name: Annotated[str | None, _RAW_NAME] = None


class RefreshRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    refresh_token: Annotated[str, Field(min_length=1, max_length=256)]


class LinkRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: Annotated[str, Field(min_length=1, max_length=32, examples=["7KQ4-M2XD"])]


class ClaimRequest(BaseModel):
    """The game's own token, which the claim turns into the player's ownership."""

    model_config = ConfigDict(extra="forbid")
    token: Annotated[str, Field(min_length=1, max_length=256)]
