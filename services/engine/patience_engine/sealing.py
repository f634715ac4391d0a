"""Seals: HMAC-SHA256 over a state's exact bytes, so the engine accepts only states it made.

With a key, every state the engine hands out carries `seal = HMAC-SHA256(key, state)`
and every state it is given must carry the right seal, checked before the bytes are
parsed. Without a key, seals are left empty and ignored.

A state whose seal checks out is therefore one an engine holding the key wrote, and
the engine reads it on trust, skipping the deep validation (see `patience_engine.codec`).
"""

from __future__ import annotations

import hashlib
import hmac

from solitaire.v1 import game_pb2

from patience_engine.errors import Reason, Rejected


class Sealer:
    """Seals and checks states with one key (or none)."""

    __slots__ = ("_key", "_keyed")

    def __init__(self, key: bytes | None) -> None:
        self._key = key or None
        # HMAC state with the key already absorbed, copied for each state: cheaper
        # than setting the key up again on every call.
        self._keyed = None if self._key is None else hmac.new(self._key, digestmod=hashlib.sha256)

    @property
    def enabled(self) -> bool:
        return self._key is not None

    def seal(self, state: bytes) -> game_pb2.SealedState:
        return game_pb2.SealedState(state=state, seal=self.seal_of(state))

    def seal_of(self, state: bytes) -> bytes:
        """The seal for these state bytes: empty without a key."""
        return b"" if self._key is None else self._mac(state)

    def unseal(self, sealed: game_pb2.SealedState) -> bytes:
        """The state bytes, once their seal is checked; raises Rejected otherwise."""
        state: bytes = sealed.state
        if self._key is None:
            return state
        seal: bytes = sealed.seal
        if not seal:
            raise Rejected(Reason.STATE_SEAL_INVALID, "the state carries no seal")
        if not hmac.compare_digest(seal, self._mac(state)):
            raise Rejected(
                Reason.STATE_SEAL_INVALID,
                "the state's seal does not match: the state was changed or not made by this engine",
            )
        return state

    def _mac(self, state: bytes) -> bytes:
        assert self._keyed is not None
        mac = self._keyed.copy()
        mac.update(state)
        return mac.digest()
