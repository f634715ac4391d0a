"""Sealed states: encrypted and authenticated with an AEAD, so that a state tells its
holder nothing a player at the table would not see, and the engine accepts only states
that an engine holding its key wrote.

With a key, the `state` bytes of every `SealedState` the engine hands out are an
envelope (version 1):

    byte  0       0x01: AES-256-GCM-SIV (RFC 8452), key derived with HKDF-SHA256
    bytes 1..8    key id: which key sealed it (see `SealKey`), so that old keys still open
                  the states they sealed after the current key has changed
    bytes 9..20   nonce, random
    bytes 21..    the serialized GameState, encrypted, then its 16-byte tag; bytes 0..8
                  are authenticated with it (associated data)

Every state given to the engine must be such an envelope under one of its keys, and is
opened before its bytes are parsed. Without a key (an unsafe development mode, said so
at start-up and by `GetEngineInfo`), `state` is the plain serialized GameState and
`seal` is empty.

Why GCM-SIV: nonces are drawn at random by every engine process with no coordination,
and with plain AES-GCM a repeated nonce under one key (to be expected after about 2^32
states, weeks for a busy service) would give away the key's authenticity. GCM-SIV is
nonce-misuse resistant: a repeated nonce only tells whether two states are the same.

A state that opens was written by an engine holding the key, and is read on trust,
skipping the deep validation (see `patience_engine.codec`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from patience_contract.errors import Reason, Rejected
from solitaire.v1 import game_pb2

from patience_engine.memo import Memo

ENVELOPE_VERSION = 1
KEY_ID_BYTES = 8
NONCE_BYTES = 12
TAG_BYTES = 16
HEADER_BYTES = 1 + KEY_ID_BYTES
OVERHEAD_BYTES = HEADER_BYTES + NONCE_BYTES + TAG_BYTES
_VERSION_BYTE = bytes((ENVELOPE_VERSION,))
# HKDF salt: keys derived here are of no use to anything else made from the same secret.
_SALT = b"patience-engine state sealing"


def _derive(secret: bytes, purpose: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=_SALT, info=purpose).derive(secret)


@dataclass(frozen=True, slots=True)
class SealKey:
    """One key: the AEAD key and the id written into the envelopes it seals, both derived
    from the configured secret (so the id tells nothing about the key)."""

    key_id: bytes
    aead: AESGCMSIV = field(repr=False)

    @classmethod
    def from_secret(cls, secret: bytes) -> SealKey:
        if not secret:
            raise ValueError("a seal key cannot be empty")
        return cls(
            _derive(secret, b"key id v1", KEY_ID_BYTES),
            AESGCMSIV(_derive(secret, b"AES-256-GCM-SIV key v1", 32)),
        )

    @property
    def key_id_hex(self) -> str:
        return self.key_id.hex()


def key_id_of(secret: bytes) -> str:
    """The id (hex) that a secret's envelopes carry: safe to print and to compare."""
    return SealKey.from_secret(secret).key_id_hex


class Sealer:
    """Seals and opens states with a current key and any number of old ones (or none).

    `seal` always uses the current key; `unseal` opens envelopes of any key it holds,
    found by the key id, so that keys can be rotated while stored states stay readable.
    """

    __slots__ = ("_current", "_keys", "_opened")

    def __init__(self, key: bytes | None, old_keys: Iterable[bytes] = ()) -> None:
        self._current = SealKey.from_secret(key) if key else None
        old = [SealKey.from_secret(secret) for secret in old_keys if secret]
        if old and self._current is None:
            raise ValueError("old seal keys were given without a current key")
        self._keys = {k.key_id: k for k in old}
        if self._current is not None:
            self._keys[self._current.key_id] = self._current
        # Envelopes sealed here, with their contents: a client sends back the state of
        # the engine's last reply, which then needs no decryption.
        self._opened: Memo[bytes, bytes] = Memo(2048)

    @property
    def enabled(self) -> bool:
        return self._current is not None

    @property
    def key_id(self) -> str:
        """The current key's id (hex), or "" without a key."""
        return "" if self._current is None else self._current.key_id_hex

    @property
    def key_ids(self) -> tuple[str, ...]:
        """Every key's id (hex), the current one first."""
        ids = [k.key_id_hex for k in self._keys.values()]
        ids.sort(key=lambda key_id: key_id != self.key_id)
        return tuple(ids)

    def seal(self, state: bytes) -> game_pb2.SealedState:
        return game_pb2.SealedState(state=self.wrap(state))

    def wrap(self, state: bytes) -> bytes:
        """The bytes to hand out for a serialized GameState: its envelope, or the state
        itself without a key."""
        current = self._current
        if current is None:
            return state
        header = _VERSION_BYTE + current.key_id
        nonce = os.urandom(NONCE_BYTES)
        envelope = header + nonce + current.aead.encrypt(nonce, state, header)
        self._opened.put(envelope, state)
        return envelope

    def wrap_other(self, data: bytes, purpose: bytes) -> bytes:
        """An envelope for bytes other than a state (a hint's plan), as a state's but for
        its associated data, which adds ``purpose``: it opens only with
        :meth:`open_other` of the same purpose, never as a state (nor a state as it)."""
        current = self._current
        if current is None:
            return data
        header = _VERSION_BYTE + current.key_id
        nonce = os.urandom(NONCE_BYTES)
        return header + nonce + current.aead.encrypt(nonce, data, header + purpose)

    def open_other(self, envelope: bytes, purpose: bytes) -> bytes | None:
        """What :meth:`wrap_other` sealed with ``purpose``; None when no key of this
        engine opens it (made elsewhere, changed, or sealed for another purpose)."""
        if self._current is None:
            return None if envelope[:1] == _VERSION_BYTE else envelope
        key = self._keys.get(envelope[1:HEADER_BYTES])
        if key is None or len(envelope) < OVERHEAD_BYTES or envelope[:1] != _VERSION_BYTE:
            return None
        header = envelope[:HEADER_BYTES]
        try:
            return key.aead.decrypt(
                envelope[HEADER_BYTES : HEADER_BYTES + NONCE_BYTES],
                envelope[HEADER_BYTES + NONCE_BYTES :],
                header + purpose,
            )
        except InvalidTag:
            return None

    def unseal(self, sealed: game_pb2.SealedState) -> bytes:
        """The serialized GameState inside a state given to the engine; raises Rejected
        when no key of this engine opens it."""
        data: bytes = sealed.state
        if self._current is None:
            if data[:1] == _VERSION_BYTE:
                raise Rejected(
                    Reason.STATE_KEY_UNKNOWN,
                    "the state is encrypted and this engine has no key",
                    key_id=data[1:HEADER_BYTES].hex(),
                )
            return data
        opened = self._opened.get(data)
        if opened is not None:
            return opened
        if len(data) < OVERHEAD_BYTES or data[:1] != _VERSION_BYTE:
            raise Rejected(
                Reason.STATE_SEAL_INVALID,
                "the state is not sealed: this engine takes only states it encrypted",
            )
        key = self._keys.get(data[1:HEADER_BYTES])
        if key is None:
            raise Rejected(
                Reason.STATE_KEY_UNKNOWN,
                "the state was sealed with a key this engine does not hold",
                key_id=data[1:HEADER_BYTES].hex(),
            )
        try:
            return key.aead.decrypt(
                data[HEADER_BYTES : HEADER_BYTES + NONCE_BYTES],
                data[HEADER_BYTES + NONCE_BYTES :],
                data[:HEADER_BYTES],
            )
        except InvalidTag:
            raise Rejected(
                Reason.STATE_SEAL_INVALID,
                "the state does not authenticate: it was changed or not made by this engine",
            ) from None
