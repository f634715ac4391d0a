"""The tests' oracle: an independent reading of RULES.md.

Everything here is derived from the specification, not from the library: the cards,
the shuffle, the dealing patterns, the foundation layout and the legal moves are
written out again so that the tests compare the library against a second
implementation. Positions are built in the state notation (``patience.parse_state``)
from a partial description (:func:`position`).

Used by the tests of the rules, the solver and the engine: ``from tests.oracle import
position``.
"""

import pytest

# Before the modules are imported: their asserts explain a failure as a test's would.
pytest.register_assert_rewrite(
    "tests.oracle.checks", "tests.oracle.deals", "tests.oracle.positions"
)

from .cards import (  # noqa: E402
    RANKS,
    SUITS,
    card,
    cards,
    full_pack,
    is_red_card,
    name,
    names,
    rank_of,
    suit_of,
)
from .checks import (  # noqa: E402
    as_move,
    assert_applies,
    assert_rejected,
    changed,
    check_lucie_redeal,
    legal_texts,
    rebuilt,
)
from .deals import Generator, expected_deal, lucie_redeal, shuffled_pack  # noqa: E402
from .games import (  # noqa: E402
    ACE_AND_KING,
    ACES_ONE_PACK,
    ACES_TWO_PACKS,
    DOWN,
    LUCIE_FAMILY,
    SHAPES,
    UP,
    Shape,
    foundation_run,
)
from .moves import (  # noqa: E402
    candidate_moves,
    fifteen_withdraws,
    oracle_moves,
    piles_after,
    random_moves,
)
from .positions import (  # noqa: E402
    card_multiset,
    default_draws,
    new_game_as_dealt,
    notation,
    pile_ids,
    piles_by_id,
    position,
)
from .strategies import Walk, deal_numbers, played_games  # noqa: E402

__all__ = [
    "ACES_ONE_PACK",
    "ACES_TWO_PACKS",
    "ACE_AND_KING",
    "DOWN",
    "LUCIE_FAMILY",
    "RANKS",
    "SHAPES",
    "SUITS",
    "UP",
    "Generator",
    "Shape",
    "Walk",
    "as_move",
    "assert_applies",
    "assert_rejected",
    "candidate_moves",
    "card",
    "card_multiset",
    "cards",
    "changed",
    "check_lucie_redeal",
    "deal_numbers",
    "default_draws",
    "expected_deal",
    "fifteen_withdraws",
    "foundation_run",
    "full_pack",
    "is_red_card",
    "legal_texts",
    "lucie_redeal",
    "name",
    "names",
    "new_game_as_dealt",
    "notation",
    "oracle_moves",
    "pile_ids",
    "piles_after",
    "piles_by_id",
    "played_games",
    "position",
    "random_moves",
    "rank_of",
    "rebuilt",
    "shuffled_pack",
    "suit_of",
]
