"""Share links: a read-only token of one game, for spectators and replays.

The owner asks for the game's share token (POST .../shares); whoever holds it may read
the game as its player sees it (the view, its legal moves and history, its event stream,
its replay, its signed result) and nothing more: no move, no undo, no hint (a hint would
count in the player's record). The token is an HMAC of the game's id under a secret
derived from the players' keys, so nothing is stored, and it verifies under every key
still kept (a rotation keeps shares working while the old key stays). It is told apart
from the other tokens by its prefix.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Final

from patience_gateway.players.access_tokens import KeySet

PREFIX: Final = "sh."
_PURPOSE: Final = b"patience share token"


def is_share_token(token: str) -> bool:
    return token.startswith(PREFIX)


def _mac(secret: bytes, game_id: str) -> str:
    digest = hmac.new(secret, game_id.encode(), hashlib.sha256).digest()[:24]
    return PREFIX + base64.urlsafe_b64encode(digest).decode()


def share_token(keys: KeySet, game_id: str) -> str:
    """The game's share token under the current key."""
    return _mac(keys.secrets(_PURPOSE)[0], game_id)


def opens(keys: KeySet, game_id: str, token: str) -> bool:
    """Whether `token` is the share token of this game under one of the keys."""
    return any(
        hmac.compare_digest(token, _mac(secret, game_id)) for secret in keys.secrets(_PURPOSE)
    )


def share_json(game_id: str, token: str) -> dict[str, str]:
    """Where the share token opens the game (it is sent as a bearer token)."""
    return {
        "token": token,
        "view": f"/v1/games/{game_id}",
        "replay": f"/v1/games/{game_id}/replay?position=0",
        "stream_tickets": f"/v1/games/{game_id}/stream-tickets",
    }
