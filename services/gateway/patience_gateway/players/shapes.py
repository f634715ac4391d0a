"""The bodies of the player API's answers, written once: each is both the static type
of the dicts the service builds and the schema of the OpenAPI document."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

# schemas built on first use, not at import (games/shapes.py says why)
_EXACT = ConfigDict(extra="forbid", defer_build=True)


@with_config(_EXACT)
class PlayerShape(TypedDict):
    id: Annotated[str, Field(description="The player's id (url-safe, 22 characters).")]
    display_name: Annotated[
        str | None, Field(description="The name shown for the player (normalised), or null.")
    ]
    created: Annotated[str, Field(description="When the player was created (RFC 3339, UTC).")]


@with_config(_EXACT)
class SessionShape(TypedDict):
    player: PlayerShape
    access_token: Annotated[
        str,
        Field(
            description="Sent as `Authorization: Bearer <access_token>` on the player's "
            "routes and games. Short-lived: refresh it with the refresh token."
        ),
    ]
    token_type: Annotated[str, Field(examples=["Bearer"])]
    expires_in: Annotated[int, Field(description="Seconds the access token is valid.")]
    refresh_token: Annotated[
        str,
        Field(
            description="Keep it on the device, like a password. Each use gives a new one "
            "(POST /v1/sessions/refresh); a used one presented again signs the device out."
        ),
    ]
    refresh_expires_in: Annotated[int, Field(description="Seconds the refresh token is valid.")]


@with_config(_EXACT)
class LinkCodeShape(TypedDict):
    code: Annotated[
        str,
        Field(
            description="Type it on the other device (POST /v1/sessions/link) within "
            "`expires_in` seconds; it works once.",
            examples=["7KQ4-M2XD"],
        ),
    ]
    expires_in: int


@with_config(_EXACT)
class IdentityShape(TypedDict):
    issuer: Annotated[str, Field(description="The identity's issuer (`iss`).")]
    subject: Annotated[str, Field(description="The player's id at the issuer (`sub`).")]
    linked: Annotated[str, Field(description="When it was linked (RFC 3339, UTC).")]
