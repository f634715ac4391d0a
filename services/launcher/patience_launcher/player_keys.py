"""The keys that sign players' access tokens, as `patience serve` chooses them for the
gateway: Ed25519 seeds, 64 hex digits each, the current (signing) key first and older
keys after it, which still verify the tokens they signed.

- PLAYER_TOKEN_KEY_FILE or PLAYER_TOKEN_KEYS set: the operator's keys, as they are
  (both set: refused). They are read here too, so that a key that is not one stops the
  start with the reason, rather than every player route answering 503; set but empty
  means no keys (the player routes answer 503).
- Otherwise: the key file `player-token.key` in the data folder, made once (mode 0600).
  It lives as long as the data folder: tokens handed out stay valid across restarts
  (with `--ephemeral`, the folder, the records and the key are temporary together).

A key's id is the first 16 hex digits of the SHA-256 of its raw public key: printed in
the banner and by `patience key rotate --player`, it names a key without giving it away.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from patience_contract import key_files
from patience_contract.settings import declared, read_settings
from patience_gateway.settings import TokenKeySettings

KEY_FILE_NAME = "player-token.key"
FILE_VARIABLE = declared(TokenKeySettings, "key_file").name
INLINE_VARIABLE = declared(TokenKeySettings, "inline").name
_HEADER = (
    "# patience-engine player token keys (Ed25519 seeds): the first signs players' access\n"
    "# tokens, the others (older keys) only verify the tokens they signed. Keep this file\n"
    "# with the records it guards, mode 0600.\n"
)


@dataclass(frozen=True, slots=True)
class TokenKeys:
    """What the gateway is started with: `env` to add to its environment, the key ids
    (current first; none without a key) and where they come from, for the banner."""

    env: dict[str, str] = field(default_factory=dict)
    key_ids: tuple[str, ...] = ()
    source: str = ""

    @property
    def banner(self) -> str:
        if not self.key_ids:
            return f"no token key: the players' routes answer 503 ({self.source})"
        old = len(self.key_ids) - 1
        extra = f", {old} old key{'s' if old > 1 else ''}" if old else ""
        return f"tokens signed with key {self.key_ids[0]}{extra} ({self.source})"


def new_key() -> str:
    """A fresh key: a random Ed25519 seed, 64 hex digits."""
    return secrets.token_hex(32)


def key_id(key: str) -> str:
    """The id of a key (a seed in hex): 16 hex digits of its public key's SHA-256."""
    public = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(key)).public_key()
    raw = public.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def read_key_file(path: Path) -> list[str]:
    """The keys in a key file, current first; KeyProblem when it cannot be read, holds
    no key or holds something that is not one."""
    return TokenKeySettings(key_file=path).keys()


def configured(environ: Mapping[str, str]) -> bool:
    """Whether the operator set the keys (set but empty counts: no key)."""
    return FILE_VARIABLE in environ or INLINE_VARIABLE in environ


def choose(environ: Mapping[str, str], data_folder: Path) -> TokenKeys:
    """The keys to start the gateway with (see the module docstring)."""
    given = read_settings(TokenKeySettings, environ)
    keys = given.keys()
    if keys:
        source = f"key file {given.key_file}" if given.key_file else INLINE_VARIABLE
        return TokenKeys({}, tuple(map(key_id, keys)), source)
    if configured(environ):
        empty = FILE_VARIABLE if FILE_VARIABLE in environ else INLINE_VARIABLE
        return TokenKeys({}, (), f"{empty} is empty")
    path = ensure_key_file(data_folder / KEY_FILE_NAME)
    keys = read_key_file(path)
    return TokenKeys({FILE_VARIABLE: str(path)}, tuple(map(key_id, keys)), f"key file {path}")


def ensure_key_file(path: Path) -> Path:
    """`path`, made with a new key (mode 0600) if it does not exist yet."""
    key_files.make_once(path, _HEADER, new_key())
    return path


def rotate_key_file(path: Path) -> str:
    """Puts a new signing key first in the key file, keeping the others to verify the
    tokens they signed; returns the new key's id. The file is replaced whole."""
    old = read_key_file(path) if path.exists() else []
    key = new_key()
    key_files.replace(path, _HEADER, [key, *old])
    return key_id(key)
