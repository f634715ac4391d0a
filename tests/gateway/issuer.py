"""The loopback OpenID Connect issuer the outside identities' tests run
(bench/harness/identity_issuer.py, which the bench's accounts part runs too)."""

from __future__ import annotations

from bench.harness.identity_issuer import AUDIENCE, LoopbackIssuer, SigningKey

__all__ = ["AUDIENCE", "LoopbackIssuer", "SigningKey"]
