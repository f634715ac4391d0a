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
    """The game's own token, which the claim turns into the player's ownership. Any
    text is taken: one that is not the game's token is refused as such (403 bad-token),
    whatever its length (the body's own limit, MAX_BODY_BYTES, bounds it)."""

    model_config = ConfigDict(extra="forbid")
    token: str


class IdentityRequest(BaseModel):
    """An OpenID Connect ID token of a configured issuer."""

    model_config = ConfigDict(extra="forbid")
    id_token: Annotated[
        str,
        Field(
            min_length=1,
            max_length=8192,
            description="The ID token (a JWT) the issuer gave the app at sign-in.",
        ),
    ]
    nonce: Annotated[
        str | None,
        Field(
            default=None,
            max_length=512,
            description="The nonce the app sent the issuer at sign-in, if it sent one: "
            "the token must carry it.",
        ),
    ] = None
