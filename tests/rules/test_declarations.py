"""The helpers the games are declared with (patience.dealing, patience.piles), each
against what its docstring and RULES.md say. The games call them once, when they are
imported; these tests call them again, so that a change to one is seen here and not
only in the deals of the games built from it."""

from __future__ import annotations

import dataclasses

import patience
import pytest
from patience.building import BuildRule, FillRule
from patience.cards import CARD_NAMES, parse_card
from patience.dealing import (
    DealPattern,
    deal_in_fours,
    deal_in_shrinking_rows,
    deal_in_thirds,
    passes,
    pile_span,
    shrinking_rows,
    thirds,
)
from patience.piles import Direction, Foundation, aces_and_kings, aces_up, numbered

from tests.oracle import rebuilt


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


@pytest.mark.parametrize(
    ("rule", "wanted"),
    [
        (BuildRule.NONE, {"2H": "", "7S": "", "KD": "", "AC": ""}),
        (BuildRule.DOWN_IN_SUIT, {"2H": "AH", "7S": "6S", "KD": "QD", "AC": ""}),
        (BuildRule.UP_OR_DOWN_IN_SUIT, {"2H": "AH 3H", "7S": "6S 8S", "KD": "QD", "AC": "2C"}),
        (BuildRule.DOWN_ALTERNATE_COLOUR, {"2H": "AC AS", "7S": "6H 6D", "KD": "QC QS", "AC": ""}),
    ],
)
def test_what_each_build_rule_takes(rule: BuildRule, wanted: dict[str, str]) -> None:
    """Every card a pile with `top` on it takes, in code order (a rule none of the nine
    games uses is as exact as the rest)."""
    for top, cards in wanted.items():
        names = tuple(CARD_NAMES[c] for c in rule.wanted(parse_card(top)))
        assert names == tuple(cards.split()), (rule, top)


def test_options_make_declarations_of_their_own() -> None:
    """An option's declaration is a variant like any other (its options read-only), and
    an option that changes no field leaves the declaration as it was."""
    napoleon = patience.get_variant("napoleon-at-st-helena")
    strict = napoleon.with_options({"fill_from_waste_only"})
    assert strict.fill is FillRule.WASTE_ONLY and napoleon.fill is FillRule.ANY_CARD
    with pytest.raises(TypeError):
        strict.options["fast"] = "more"  # type: ignore[index]
    with pytest.raises(TypeError):
        strict.option_changes["fast"] = {}  # type: ignore[index]
    flagged = dataclasses.replace(
        napoleon,
        options={**napoleon.options, "note": "no change"},
        option_changes=dict(napoleon.option_changes),
    )
    with pytest.raises(TypeError):  # a declaration given plain dicts keeps read-only ones
        flagged.options["fast"] = "more"  # type: ignore[index]
    with pytest.raises(TypeError):
        flagged.option_changes["fast"] = {}  # type: ignore[index]
    same = flagged.with_options({"note"})
    for field in dataclasses.fields(flagged):  # variants compare by identity
        assert getattr(same, field.name) == getattr(flagged, field.name), field.name


def test_aces_sent_home_by_the_deal_leave_the_rest_in_the_stock() -> None:
    """A declaration none of the nine games makes: a stock and aces dealt to the
    foundations (Napoleon at St Helena's two packs, its aces taken out first). What the
    deal leaves in the stock is what a state of the game may hold there: the opening
    position, and one card dealt on, are accepted from their parts; the same with no
    move made is refused."""
    napoleon = patience.get_variant("napoleon-at-st-helena")
    declared = dataclasses.replace(
        napoleon,
        id="napoleon-aces-home",
        deal_pattern=dataclasses.replace(napoleon.deal_pattern, aces_to_foundations=True),
    )
    opening = declared.new_game(7)
    assert all(len(opening.pile(f"f{i}")) == 1 for i in range(1, 9))
    assert opening.stock_size == 104 - 40 - 8
    dealt = opening.apply(patience.Move.deal())
    for state in (opening, dealt):
        assert state.variant is declared and rebuilt(state) == state
    with pytest.raises(patience.InvalidState) as refused:
        rebuilt(dealt, moves_made=0)
    assert str(refused.value) == "0 redeal(s) and 1 card(s) dealt need at least 1 moves"


def test_reserve_cells_beside_a_waste_take_tableau_cards_only() -> None:
    """Another declaration none of the nine makes: Napoleon at St Helena with two reserve
    cells. A cell takes a column's top card, never the waste's, and gives its card only
    to a foundation."""
    napoleon = patience.get_variant("napoleon-at-st-helena")
    declared = dataclasses.replace(napoleon, id="napoleon-two-cells", cells=2)
    dealt = declared.new_game(7).apply(patience.Move.deal())
    with pytest.raises(patience.IllegalMove) as refused:
        dealt.apply(patience.Move.parse("waste-r1"))
    assert (refused.value.rule, str(refused.value)) == (
        "reserve_from_tableau_only",
        "only a tableau card may enter a reserve cell",
    )
    parked = dealt.apply(patience.Move.parse("t1-r1"))
    with pytest.raises(patience.IllegalMove) as refused:
        parked.apply(patience.Move.parse("r1-t2"))
    assert (refused.value.rule, str(refused.value)) == (
        "reserve_to_foundation_only",
        "a reserve card may only go to a foundation",
    )


def test_declarations_the_rules_cannot_play_are_named() -> None:
    """A deal that leaves cards over with nowhere to put them is a mistake in the
    declaration, named when the game is first dealt; a redeal rule with no redeals
    declared gives a game without a redeal."""
    cody = patience.get_variant("cody")
    short = dataclasses.replace(
        cody, id="cody-short", deal_pattern=DealPattern(passes("t", 26, 26, 26))
    )
    with pytest.raises(ValueError) as refused:
        short.new_game(1)
    assert str(refused.value) == "cody-short: the deal leaves cards but has no stock"
    lucie = patience.get_variant("la-belle-lucie")
    assert lucie.redeal is not None
    none_left = dataclasses.replace(lucie, id="lucie-no-redeals", redeals=0)
    with pytest.raises(patience.IllegalMove) as no_redeal:
        none_left.new_game(1).apply(patience.Move.redeal())
    assert (no_redeal.value.rule, str(no_redeal.value)) == (
        "no_redeal",
        "La Belle Lucie has no redeal",
    )
