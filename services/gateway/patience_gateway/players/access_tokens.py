"""Players' access tokens: short-lived JWTs signed with Ed25519 (EdDSA), by PyJWT.

A token says who the player is (`sub`) until it expires (`exp`, ACCESS_TOKEN_SECONDS
after it was issued). It is verified without any storage: the signature under one of the
gateway's keys and the expiry are all there is, so a move made with a player's token
costs no round trip. A token cannot be revoked before it expires; signing out revokes
the refresh token, so the device gets no new access token (docs/api.md, Players).

Keys rotate like the engine's seal keys: a key set lists the current key first (it
signs) and older keys after it (they still verify the tokens they signed). Each token
names its key in the `kid` header: the first 16 hex digits of the SHA-256 of the public
key. Public keys are what issue 19's signed results publish; a private key never leaves
the key set.

Verifying an Ed25519 signature costs about 130 µs here, as much as the rest of a move,
so a process keeps the tokens it verified (a bounded table keyed by the whole token,
checked for expiry at each use): a player's requests pay the signature once per token.
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

import jwt
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from patience_gateway.problems import ProblemError

ACCESS_TOKEN_SECONDS: Final = 900
ISSUER: Final = "patience-gateway"
ALGORITHM: Final = "EdDSA"
TOKEN_TYPE: Final = "at+jwt"  # RFC 9068: a JWT used as an access token
VERIFIED_CACHE_SIZE: Final = 10_000
# A token presented a little before its `iat` (clocks of two gateways) still passes.
LEEWAY_SECONDS: Final = 5


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def parse_private_key(text: str) -> Ed25519PrivateKey:
    seed = bytes.fromhex(text.strip())
    if len(seed) != 32:
        raise ValueError("a player token key is 64 hex digits (an Ed25519 seed)")
    return Ed25519PrivateKey.from_private_bytes(seed)


@dataclass(frozen=True)
class Claims:
    """What an access token that opened says."""

    player_id: str
    expires_at: int


class KeySet:
    """The current signing key and the older keys that still verify."""

    def __init__(self, private_keys: Iterable[Ed25519PrivateKey]) -> None:
        keys = list(private_keys)
        if not keys:
            raise ValueError("a key set needs at least one key")
        self._private = keys
        self.signing = keys[0]
        self.signing_id = key_id(keys[0].public_key())
        self.public: Mapping[str, Ed25519PublicKey] = {
            key_id(key.public_key()): key.public_key() for key in keys
        }

    def secrets(self, purpose: bytes) -> list[bytes]:
        """A secret for `purpose` derived from each key, the current key's first (HKDF:
        the keys themselves sign; what is derived for another use cannot stand in for
        them)."""
        derived = []
        for private in self._private:
            seed = private.private_bytes(
                serialization.Encoding.Raw,
                serialization.PrivateFormat.Raw,
                serialization.NoEncryption(),
            )
            hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose)
            derived.append(hkdf.derive(seed))
        return derived

    def jwks(self) -> dict[str, list[dict[str, str]]]:
        """The public keys as a JSON Web Key Set (RFC 7517, OKP keys of RFC 8037): what
        anyone needs to check a token or a signed result offline."""
        keys = []
        for kid, public in self.public.items():
            raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            x = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
            keys.append(
                {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "alg": ALGORITHM, "use": "sig"}
            )
        return {"keys": keys}

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> KeySet:
        return cls(parse_private_key(text) for text in texts if text.strip())


class AccessTokens:
    """Issues and verifies players' access tokens under one key set."""

    def __init__(self, keys: KeySet, lifetime_seconds: int = ACCESS_TOKEN_SECONDS) -> None:
        self.keys = keys
        self.lifetime = lifetime_seconds
        self._verified: OrderedDict[str, Claims] = OrderedDict()

    def issue(self, player_id: str, now: float | None = None) -> tuple[str, int]:
        """A token for `player_id` and its lifetime in seconds."""
        issued = int(time.time() if now is None else now)
        claims = {
            "iss": ISSUER,
            "sub": player_id,
            "iat": issued,
            "exp": issued + self.lifetime,
        }
        headers = {"kid": self.keys.signing_id, "typ": TOKEN_TYPE}
        token = jwt.encode(claims, self.keys.signing, algorithm=ALGORITHM, headers=headers)
        return token, self.lifetime

    def verify(self, token: str, now: float | None = None) -> Claims:
        """The claims of a token that opens, or the problem that refuses it."""
        moment = time.time() if now is None else now
        known = self._verified.get(token)
        if known is not None:
            if known.expires_at <= moment:
                raise ProblemError("expired-token", "the access token has expired: refresh it")
            return known
        claims = self._verify_signature(token, moment)
        self._verified[token] = claims
        if len(self._verified) > VERIFIED_CACHE_SIZE:
            self._verified.popitem(last=False)
        return claims

    def _verify_signature(self, token: str, moment: float) -> Claims:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError:
            raise ProblemError("invalid-token", "the access token is not a JWT") from None
        public = self.keys.public.get(str(header.get("kid", "")))
        if public is None or header.get("typ") != TOKEN_TYPE:
            raise ProblemError(
                "invalid-token", "the access token was not signed by this service's keys"
            )
        try:
            payload = jwt.decode(
                token,
                public,
                algorithms=[ALGORITHM],
                issuer=ISSUER,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iat", "sub", "iss"], "verify_exp": False},
            )
        except jwt.InvalidTokenError:
            raise ProblemError("invalid-token", "the access token does not verify") from None
        expires = payload["exp"]
        subject = payload["sub"]
        if not isinstance(expires, int) or not isinstance(subject, str) or not subject:
            raise ProblemError("invalid-token", "the access token does not verify")
        if expires <= moment:
            raise ProblemError("expired-token", "the access token has expired: refresh it")
        return Claims(subject, expires)


def looks_like_access_token(token: str) -> bool:
    """A JWT has three dot-separated parts; a game's token has no dot."""
    return token.count(".") == 2
