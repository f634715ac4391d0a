"""The helpers the games are declared with (patience.dealing, patience.piles), each
against what its docstring and RULES.md say. The games call them once, when they are
imported; these tests call them again, so that a change to one is seen here and not
only in the deals of the games built from it."""

from __future__ import annotations

import pytest
from patience.dealing import (
    deal_in_fours,
    deal_in_shrinking_rows,
    deal_in_thirds,
    pile_span,
    shrinking_rows,
    thirds,
)
from patience.piles import Direction, Foundation, aces_and_kings, aces_up, numbered


def test_piles_are_named_from_one() -> None:
    assert numbered("t", 3) == ("t1", "t2", "t3")
    assert pile_span("t", 5, 7) == ("t5", "t6", "t7")
    assert pile_span("t", 5, 13) == tuple(f"t{i}" for i in range(5, 14))
    assert pile_span("t", 4, 4) == ("t4",)


def test_foundations_in_suit_order() -> None:
    up, down = Direction.UP, Direction.DOWN
    assert aces_up(1) == tuple(Foundation(s, up) for s in (0, 1, 2, 3))
    assert aces_up(2) == tuple(Foundation(s, up) for s in (0, 0, 1, 1, 2, 2, 3, 3))
    assert aces_and_kings() == (
        *(Foundation(s, up) for s in range(4)),
        *(Foundation(s, down) for s in range(4)),
    )


def test_la_belle_lucies_thirds() -> None:
    assert thirds(52) == (17, 17, 18)
    assert thirds(7) == (2, 2, 3)
    assert thirds(0) == (0, 0, 0)


def test_rows_shrink_by_one_as_far_as_the_cards_go() -> None:
    assert shrinking_rows(4, 10) == (4, 3, 2, 1)
    assert shrinking_rows(4, 7) == (4, 3)
    assert shrinking_rows(4, 8) == (4, 3, 1)
    assert shrinking_rows(4, 11) == (4, 3, 2, 1)  # one card more than the rows hold
    assert shrinking_rows(4, 0) == ()
    assert shrinking_rows(1, 5) == (1,)


def test_dealing_in_fours() -> None:
    assert deal_in_fours("abcdef", 2) == [
        (0, "a"),
        (0, "b"),
        (0, "c"),
        (0, "d"),
        (1, "e"),
        (1, "f"),
    ]
    assert len(deal_in_fours("x" * 8, 2)) == 8
    with pytest.raises(ValueError, match=r"^more cards than the piles hold$"):
        deal_in_fours("x" * 9, 2)


def test_dealing_in_shrinking_rows() -> None:
    assert deal_in_shrinking_rows("abcdef", 3) == [
        (0, "a"), (1, "b"), (2, "c"), (0, "d"), (1, "e"), (0, "f"),
    ]  # fmt: skip
    with pytest.raises(ValueError, match=r"^more cards than the rows hold$"):
        deal_in_shrinking_rows("abcdefg", 3)


def test_dealing_in_thirds_from_the_end() -> None:
    assert deal_in_thirds("abcdefg", 3) == [
        (0, "g"), (1, "f"), (0, "e"), (1, "d"), (0, "c"), (1, "b"), (2, "a"),
    ]  # fmt: skip
    with pytest.raises(ValueError, match=r"^more cards than the fans hold$"):
        deal_in_thirds("x" * 10, 3)
