"""Patience (solitaire) rules: cards, deals, nine games, moves, states and notation.

Pure Python with no I/O. See docs/rules-library.md for the contract, and its section
"Inside the library" for the layers, from the declarations up to this public API.
"""

from .cards import Card, card_name, is_red, parse_card, rank, suit
from .errors import (
    BadDealNumber,
    IllegalMove,
    InvalidState,
    NotationError,
    PatienceError,
    UnknownOption,
    UnknownVariant,
)
from .game import Game
from .moves import CardMoved, Move, MoveKind
from .registry import VARIANTS, get_variant, parse_state
from .variant import State, Status, Variant

__all__ = [
    "VARIANTS",
    "BadDealNumber",
    "Card",
    "CardMoved",
    "Game",
    "IllegalMove",
    "InvalidState",
    "Move",
    "MoveKind",
    "NotationError",
    "PatienceError",
    "State",
    "Status",
    "UnknownOption",
    "UnknownVariant",
    "Variant",
    "card_name",
    "get_variant",
    "is_red",
    "parse_card",
    "parse_state",
    "rank",
    "suit",
]
