"""The errors of the rules library. Each has a stable ``code`` and a human message."""

from __future__ import annotations

from typing import ClassVar


class PatienceError(Exception):
    """Base of every error the rules library raises."""

    code: ClassVar[str] = "PATIENCE_ERROR"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class IllegalMove(PatienceError):
    """A move the rules do not allow; ``rule`` names the rule it breaks."""

    code = "ILLEGAL_MOVE"

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


class InvalidState(PatienceError):
    """A state that no play of the game can reach; ``reason`` says why."""

    code = "INVALID_STATE"

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class NotationError(PatienceError):
    """Text that is not valid move, card or state notation."""

    code = "BAD_NOTATION"


class UnknownVariant(PatienceError):
    code = "UNKNOWN_VARIANT"

    def __init__(self, name: str) -> None:
        super().__init__(f"no game variant is called {name!r}")
        self.name = name


class UnknownOption(PatienceError):
    code = "UNKNOWN_OPTION"

    def __init__(self, name: str, variant_id: str = "") -> None:
        where = f" of {variant_id}" if variant_id else ""
        super().__init__(f"no option{where} is called {name!r}")
        self.name = name


class BadDealNumber(PatienceError):
    code = "BAD_DEAL_NUMBER"
