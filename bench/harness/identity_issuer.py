"""A real OpenID Connect issuer on loopback, for the outside identities' tests and the
accounts part of the bench: its own keys (RSA and EC), its JSON Web Key Set served over
HTTP by a small server on a free port, and ID tokens signed as an issuer signs them. The
server can be stopped (the issuer's host down) and started again on the same port; its
keys can rotate."""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from patience_launcher.addresses import free_port

AUDIENCE = "app.patience.test"


@dataclass
class SigningKey:
    kid: str
    algorithm: str
    private: Any

    @classmethod
    def rsa(cls) -> SigningKey:
        return cls(uuid.uuid4().hex[:12], "RS256", rsa.generate_private_key(65537, 2048))

    @classmethod
    def ec(cls) -> SigningKey:
        return cls(uuid.uuid4().hex[:12], "ES256", ec.generate_private_key(ec.SECP256R1()))

    def jwk(self) -> dict[str, Any]:
        public = self.private.public_key()
        codec = RSAAlgorithm if self.algorithm.startswith("RS") else ECAlgorithm
        key: dict[str, Any] = codec.to_jwk(public, as_dict=True)
        return {**key, "kid": self.kid, "alg": self.algorithm, "use": "sig"}


@dataclass
class LoopbackIssuer:
    """The issuer at http://127.0.0.1:<port>; `published` are the keys its set lists."""

    port: int = field(default_factory=free_port)
    published: list[SigningKey] = field(default_factory=lambda: [SigningKey.rsa()])
    fetches: int = 0
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def jwks_url(self) -> str:
        return f"{self.url}/.well-known/jwks.json"

    def start(self) -> LoopbackIssuer:
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path != "/.well-known/jwks.json":
                    self.send_error(404)
                    return
                issuer.fetches += 1
                body = json.dumps({"keys": [key.jwk() for key in issuer.published]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """The issuer's host down: connections to the port are refused."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def rotate(self, key: SigningKey) -> SigningKey:
        """A new key published beside the old ones (the next tokens are signed by it)."""
        self.published.append(key)
        return key

    def token(
        self,
        subject: str,
        *,
        key: SigningKey | None = None,
        audience: str = AUDIENCE,
        issuer: str | None = None,
        expires_in: int = 600,
        nonce: str | None = None,
        kid: str | None = None,
    ) -> str:
        """An ID token as the issuer signs one (by default with its newest key)."""
        signer = key or self.published[-1]
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": issuer or self.url,
            "sub": subject,
            "aud": audience,
            "iat": now,
            "exp": now + expires_in,
        }
        if nonce is not None:
            claims["nonce"] = nonce
        headers = {"kid": kid or signer.kid}
        return jwt.encode(claims, signer.private, algorithm=signer.algorithm, headers=headers)
