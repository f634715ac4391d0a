"""Two-pack games: a card never goes on its twin (the other card of the same suit and rank),
neither on a tableau pile nor on a foundation, however the game builds."""

from __future__ import annotations

import pytest

from tests.oracle import SHAPES, UP, assert_applies, assert_rejected, changed, position

TWO_PACKS = [v for v, shape in SHAPES.items() if shape.packs == 2]
BUILDING_TWO_PACKS = [
    "house-in-the-wood",
    "house-on-the-hill",
    "napoleon-at-st-helena",
    "the-fifteen",
]


def test_the_lists_cover_every_two_pack_game() -> None:
    assert sorted(TWO_PACKS) == sorted(["cody", "little-billee", *BUILDING_TWO_PACKS])


@pytest.mark.parametrize("variant_id", BUILDING_TWO_PACKS)
def test_a_card_is_refused_on_its_twin_in_the_tableau(variant_id: str) -> None:
    state = position(variant_id, t={"t1": "9S 5H", "t2": "5H", "t3": "6H"})
    assert_rejected(state, "t1-t2", "wrong_rank")
    after = assert_applies(state, "t1-t3")  # the same card goes one rank down in suit
    assert changed(state, after) == {"t1": "9S", "t3": "6H5H"}


@pytest.mark.parametrize("variant_id", TWO_PACKS)
def test_a_card_is_refused_on_its_twin_on_a_foundation(variant_id: str) -> None:
    """f1 (clubs, up) ends in 4C; the other 4C fits only the other clubs foundation: f2 (up,
    at 3C) where the aces are doubled, f5 (down, at 5C) where there is an ace and a king."""
    aces_only = all(direction == UP for _, direction in SHAPES[variant_id].foundations)
    other, other_top = ("f2", "3C") if aces_only else ("f5", "5C")
    state = position(variant_id, t={"t1": "9S 4C"}, f={"f1": "4C", other: other_top})
    assert_rejected(state, "t1-f1", "wrong_rank")
    after = assert_applies(state, f"t1-{other}")
    assert changed(state, after)[other].endswith("4C")
