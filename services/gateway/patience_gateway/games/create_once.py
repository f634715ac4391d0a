"""Idempotent creation: where the first answer to a `POST /v1/games` sent with an
`Idempotency-Key` is kept, and how it is kept.

A create names no game, so its kept answer cannot hang off one the client names, and
it must be written in the same atomic script as the game (on a Redis Cluster a script
may touch one slot only). So the new game's id is derived from the key (HKDF-SHA256,
144 bits like a random id), and the answer is kept beside the game's own keys under the
same hash tag, `game:{<id>}:created`: a retry derives the same id, finds the answer
there, and a race of two creates with one key is settled by the create script, which
writes the game and the answer together or finds the answer.

What is kept is the request's fingerprint in clear (to tell a reused key apart
without opening anything) and the answer, which holds the owner token, encrypted
with AES-256-GCM under a second key derived from the Idempotency-Key, bound to the
game id and the fingerprint. Redis never sees the Idempotency-Key, so a copy of
Redis does not give tokens away: opening a kept answer needs the key the client chose.
That protection is only as strong as the key is hard to guess, which is also what
keeps anyone else from replaying the create to obtain the token: create keys must
be random (a UUID v4), never a counter.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from patience_gateway.games.requests import NewGameRequest

# How long a create's answer is given again to a retry with its key. Retries come
# within moments; a day covers a client that retries after a long outage.
CREATED_ANSWER_SECONDS = 24 * 3600
_ID_BYTES = 18  # as security.new_game_id: 24 url-safe characters
_NONCE_BYTES = 12
_FINGERPRINT_CHARS = 32


class UnreadableAnswer(Exception):
    """A kept answer that does not open with its key: changed in Redis, or a collision
    of derived ids (neither is expected)."""


def _derive(key: str, purpose: bytes, length: int) -> bytes:
    kdf = HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=purpose)
    return kdf.derive(key.encode())


def create_fingerprint(request: NewGameRequest, deal: str | None, player: str | None = None) -> str:
    """What the create asks for: the same variant, deal and options are the same
    request whether the deal was sent as a number or as a string; a player's create is
    another request than anyone else's with the same key."""
    asked: list[object] = ["create", request.variant, deal, request.options]
    # switched on only: a create without them keeps the fingerprint it always had
    asked += [name for name in ("autoplay", "winnable") if getattr(request, name)]
    if player is not None:
        asked.append({"player": player})
    canonical = json.dumps(asked)
    return hashlib.sha256(canonical.encode()).hexdigest()[:_FINGERPRINT_CHARS]


@dataclass(frozen=True, slots=True)
class CreateOnce:
    """A create with an Idempotency-Key: the id its game gets, and its answer as kept."""

    game_id: str
    fingerprint: str
    _cipher: AESGCM

    @classmethod
    def of(cls, key: str, fingerprint: str) -> CreateOnce:
        game_id = base64.urlsafe_b64encode(_derive(key, b"patience create game id", _ID_BYTES))
        cipher = AESGCM(_derive(key, b"patience create answer", 32))
        return cls(game_id.decode(), fingerprint, cipher)

    def _bound(self) -> bytes:
        return f"{self.game_id}\n{self.fingerprint}".encode()

    def keep(self, answer: bytes) -> bytes:
        """What to keep of the answer: the fingerprint, then the answer encrypted."""
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._cipher.encrypt(nonce, answer, self._bound())
        return self.fingerprint.encode() + b"\n" + nonce + sealed

    def same_request(self, kept: bytes) -> bool:
        return kept[:_FINGERPRINT_CHARS].decode(errors="replace") == self.fingerprint

    def answer(self, kept: bytes) -> bytes:
        """The answer kept for the same request."""
        sealed = kept[_FINGERPRINT_CHARS + 1 :]
        nonce, ciphertext = sealed[:_NONCE_BYTES], sealed[_NONCE_BYTES:]
        try:
            return self._cipher.decrypt(nonce, ciphertext, self._bound())
        except InvalidTag:
            raise UnreadableAnswer(f"the kept answer of game {self.game_id}") from None
