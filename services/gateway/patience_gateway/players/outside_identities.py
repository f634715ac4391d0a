"""Outside identities: OpenID Connect ID tokens of the issuers the operator names
(IDENTITY_ISSUERS: Sign in with Apple, Google, the app's own login...), verified with
PyJWT and each issuer's published keys (its JSON Web Key Set).

An identity is the pair (`iss`, `sub`) of a token that verifies: signed by a key of the
issuer's set (an asymmetric algorithm: RS*, PS*, ES*, EdDSA), `iss` a configured
issuer, `aud` that issuer's audience, `exp` not passed, and, where the request gives a
nonce, the token's `nonce` that one.

Keys: each issuer's set is fetched by PyJWT's `PyJWKClient` and used for
IDENTITY_KEYS_SECONDS before it is fetched again; a token naming a key id the set does
not list makes it fetched again at once (a rotation), at most once per
IDENTITY_REFETCH_SECONDS. While the issuer's address does not answer, the keys that
verified tokens before are still used; a token that needs another key is answered 503
`identity-unavailable` with Retry-After (it cannot be told apart from a forgery until
the set is read).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

import jwt
from jwt import PyJWK, PyJWKClient
from jwt.exceptions import PyJWKClientConnectionError, PyJWKClientError

from patience_gateway.problems import ProblemError
from patience_gateway.settings import IdentityIssuer

# The algorithms an ID token may be signed with: public-key ones only (a symmetric
# one would make the issuer's published key a secret anyone could sign with).
ALGORITHMS: Final = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
# Clocks of the issuer and of this gateway differ a little.
LEEWAY_SECONDS: Final = 60
FETCH_TIMEOUT_SECONDS: Final = 5.0
MAX_ID_TOKEN_CHARS: Final = 8192


@dataclass(frozen=True, slots=True)
class OutsideIdentity:
    issuer: str
    subject: str


def _refused(detail: str) -> ProblemError:
    return ProblemError("bad-identity-token", detail)


class _IssuerKeys:
    """One issuer's keys: PyJWT's client (the set cached, fetched again for an unknown
    key id), and the keys that verified tokens, kept for when the issuer is down."""

    def __init__(self, issuer: IdentityIssuer, keys_seconds: int, refetch_seconds: int) -> None:
        self.issuer = issuer
        self.client = PyJWKClient(
            issuer.jwks_url,
            cache_jwk_set=True,
            lifespan=keys_seconds,
            timeout=FETCH_TIMEOUT_SECONDS,
            cooldown_duration=refetch_seconds,
        )
        self.known: dict[str, PyJWK] = {}

    def cached(self, kid: str) -> PyJWK | None:
        """The key `kid` of the set fetched last, while its lifetime lasts (no fetch, no
        thread: what nearly every sign-in needs); None when it is not at hand."""
        cache = self.client.jwk_set_cache
        kept = cache.get() if cache is not None else None
        if kept is None:
            return None
        signing = [key for key in kept.keys if key.public_key_use in ("sig", None) and key.key_id]
        found = PyJWKClient.match_kid(signing, kid)
        if found is not None:
            self.known[kid] = found
        return found

    def key(self, kid: str) -> PyJWK:
        """The key `kid` (blocking: the set may be fetched)."""
        try:
            found = self.client.get_signing_key(kid)
        except PyJWKClientConnectionError:
            kept = self.known.get(kid)
            if kept is None:
                raise
            return kept
        self.known[kid] = found
        return found


class OutsideIdentities:
    """Verifies ID tokens of the configured issuers."""

    def __init__(
        self,
        issuers: Iterable[IdentityIssuer],
        *,
        keys_seconds: int = 300,
        refetch_seconds: int = 30,
        retry_after: int = 5,
    ) -> None:
        self._issuers = {
            issuer.issuer: _IssuerKeys(issuer, keys_seconds, refetch_seconds) for issuer in issuers
        }
        self.retry_after = retry_after

    async def verify(self, id_token: str, nonce: str | None = None) -> OutsideIdentity:
        """The identity an ID token proves, or the problem that refuses it."""
        if len(id_token) > MAX_ID_TOKEN_CHARS:
            raise _refused("the ID token is too long to be one")
        try:  # read once, unverified: which issuer and which key to verify it with
            opened = jwt.decode_complete(id_token, options={"verify_signature": False})
        except jwt.InvalidTokenError:
            raise _refused("the ID token is not a JWT") from None
        header, unverified = opened["header"], opened["payload"]
        keys = self._issuers.get(str(unverified.get("iss", "")))
        if keys is None:
            raise _refused("the ID token's issuer is not one this service accepts")
        if header.get("alg") not in ALGORITHMS:
            raise _refused("the ID token is not signed with a public-key algorithm")
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise _refused("the ID token names no key (kid)")
        key = await self._key(keys, kid)
        claims = self._decode(id_token, key, keys.issuer)
        if nonce is not None and claims.get("nonce") != nonce:
            raise _refused("the ID token's nonce is not the one this sign-in sent")
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject:
            raise _refused("the ID token names no subject")
        return OutsideIdentity(keys.issuer.issuer, subject)

    async def _key(self, keys: _IssuerKeys, kid: str) -> PyJWK:
        at_hand = keys.cached(kid)
        if at_hand is not None:
            return at_hand
        try:
            return await asyncio.to_thread(keys.key, kid)
        except PyJWKClientConnectionError:
            raise ProblemError(
                "identity-unavailable",
                "the identity issuer's keys cannot be fetched now; try again",
                headers={"Retry-After": str(self.retry_after)},
            ) from None
        except PyJWKClientError:
            raise _refused("the ID token is not signed by a key its issuer publishes") from None

    @staticmethod
    def _decode(id_token: str, key: PyJWK, issuer: IdentityIssuer) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                id_token,
                key,
                algorithms=list(ALGORITHMS),
                audience=issuer.audience,
                issuer=issuer.issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            raise _refused("the ID token has expired: sign in with the issuer again") from None
        except jwt.InvalidAudienceError:
            raise _refused("the ID token is for another app (aud)") from None
        except jwt.InvalidTokenError as error:
            raise _refused(f"the ID token does not verify: {error}") from None
        return claims
