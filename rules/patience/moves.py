"""Moves, their text notation, and the events a move produces."""

from __future__ import annotations

import enum
import re
from typing import NamedTuple

from .cards import Card
from .errors import NotationError


class MoveKind(enum.Enum):
    TRANSFER = "transfer"
    DEAL = "deal"
    REDEAL = "redeal"
    WITHDRAW = "withdraw"

    # Members are singletons compared by identity, so identity hashing agrees with
    # equality; it runs in C, where Enum's own __hash__ (of the member's name) is a
    # Python call, paid on every hash of a Move (cache and dict keys on the hot path).
    __hash__ = object.__hash__


_PILE = r"(?:[trf][1-9][0-9]*|stock|waste)"
_TRANSFER_RE = re.compile(rf"({_PILE})-({_PILE})(?:/([1-9][0-9]*))?")
_WITHDRAW_RE = re.compile(r"withdraw( t[1-9][0-9]*){1,2}")
_EXPECTED = (
    "expected a move such as 't3-f1', 't4-t7/3', 'waste-t2', 'deal', 'redeal' or 'withdraw t5 t9'"
)


def pile_sort_key(pile_id: str) -> tuple[str, int]:
    """Orders pile ids of one kind by number (t2 before t10)."""
    head = pile_id.rstrip("0123456789")
    tail = pile_id[len(head) :]
    return head, int(tail) if tail else 0


class Move(NamedTuple):
    """One move. Build with the class methods or :meth:`parse`; ``str()`` is its notation."""

    kind: MoveKind
    source: str = ""
    target: str = ""
    count: int = 1  # type: ignore[assignment]  # shadows tuple.count on purpose
    columns: tuple[str, ...] = ()

    @classmethod
    def transfer(cls, source: str, target: str, count: int = 1) -> Move:
        return cls(MoveKind.TRANSFER, source, target, count)

    @classmethod
    def deal(cls) -> Move:
        return _DEAL

    @classmethod
    def redeal(cls) -> Move:
        return _REDEAL

    @classmethod
    def withdraw(cls, *columns: str) -> Move:
        """The Fifteen's opening withdraw; columns are kept in pile order."""
        return cls(MoveKind.WITHDRAW, columns=tuple(sorted(columns, key=pile_sort_key)))

    @classmethod
    def parse(cls, text: str) -> Move:
        if text == "deal":
            return _DEAL
        if text == "redeal":
            return _REDEAL
        match = _TRANSFER_RE.fullmatch(text)
        if match:
            source, target, count = match.groups()
            return cls(MoveKind.TRANSFER, source, target, int(count) if count else 1)
        if _WITHDRAW_RE.fullmatch(text):
            return cls.withdraw(*text.split()[1:])
        raise NotationError(f"{_EXPECTED}, got {text!r}")

    def __str__(self) -> str:
        kind = self.kind
        if kind is MoveKind.TRANSFER:
            if self.count == 1:
                return f"{self.source}-{self.target}"
            return f"{self.source}-{self.target}/{self.count}"
        if kind is MoveKind.WITHDRAW:
            return " ".join(("withdraw", *self.columns))
        return str(kind.value)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


_DEAL = Move(MoveKind.DEAL)
_REDEAL = Move(MoveKind.REDEAL)


class CardMoved(NamedTuple):
    """One card changing place; indices count from the pile's bottom card (0)."""

    card: Card
    source: str
    source_index: int
    target: str
    target_index: int
