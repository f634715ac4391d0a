"""Quick checks of the basic behaviours of every variant and of the public API."""

from __future__ import annotations

import json
import pickle
from collections import Counter
from pathlib import Path
from typing import Any

import patience
import pytest
from patience import (
    CardMoved,
    Game,
    IllegalMove,
    InvalidState,
    Move,
    MoveKind,
    NotationError,
    State,
    Status,
    UnknownOption,
    UnknownVariant,
)
from patience.building import BuildRule, FillRule
from patience.dealing import DealPattern, passes
from patience.piles import Layout, aces_up
from patience.variant import Variant

VARIANT_IDS = list(patience.VARIANTS)
WINS = json.loads((Path(__file__).with_name("golden") / "wins.json").read_text())

SHAPES = {  # packs, tableau piles, cells, foundations, stock, redeals
    "cody": (2, 26, 8, 8, False, 0),
    "little-billee": (2, 24, 8, 8, False, 2),
    "usk": (1, 10, 0, 4, False, 1),
    "la-belle-lucie": (1, 18, 0, 4, False, 2),
    "house-in-the-wood": (2, 35, 0, 8, False, 2),
    "house-on-the-hill": (2, 35, 0, 8, False, 2),
    "napoleon-at-st-helena": (2, 10, 0, 8, True, 0),
    "the-fifteen": (2, 15, 0, 8, False, 0),
    "bisley": (1, 13, 0, 8, False, 0),
}


def won_state(variant_id: str) -> State:
    win = WINS[variant_id]
    state = patience.get_variant(variant_id).new_game(win["deal"])
    for text in win["moves"]:
        state = state.apply(Move.parse(text))
    return state


def check_events(before: State, after: State, events: tuple[CardMoved, ...]) -> None:
    """Each event names a card where it was before the move and where it is after."""
    ids = before.variant.pile_ids
    old = dict(zip(ids, before.piles, strict=True))
    new = dict(zip(ids, after.piles, strict=True))
    for event in events:
        assert old[event.source][event.source_index] == event.card
        assert new[event.target][event.target_index] == event.card
    changed = {p for p in ids if old[p] != new[p]}
    assert changed <= {e.source for e in events} | {e.target for e in events}


# --- the registry and descriptions ---------------------------------------------------


def test_variants_in_the_order_of_the_rules() -> None:
    assert list(SHAPES) == VARIANT_IDS
    with pytest.raises(UnknownVariant) as info:
        patience.get_variant("klondike")
    assert info.value.code == "UNKNOWN_VARIANT" and "klondike" in str(info.value)


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_describe(variant_id: str) -> None:
    variant = patience.get_variant(variant_id)
    packs, tableau, cells, foundations, stock, redeals = SHAPES[variant_id]
    described = json.loads(json.dumps(variant.describe()))
    assert (described["id"], described["packs"], described["redeals"]) == (
        variant_id,
        packs,
        redeals,
    )
    assert described["name"] == variant.name and len(described["summary"]) > 80
    kinds = Counter(p["kind"] for p in described["piles"])
    assert (
        kinds
        == Counter(
            {"tableau": tableau, "reserve": cells, "foundation": foundations}
            | ({"stock": 1, "waste": 1} if stock else {})
        )
        - Counter()
    )
    assert [p["id"] for p in described["piles"]] == list(variant.pile_ids)
    for pile in described["piles"]:
        assert pile["layout"] in ("fan", "column", "cell", "stack")
        assert ("suit" in pile) == ("direction" in pile) == (pile["kind"] == "foundation")
    found = [(p["suit"], p["direction"]) for p in described["piles"] if "suit" in p]
    if foundations == 8 and variant_id not in ("house-in-the-wood", "napoleon-at-st-helena"):
        assert found == [(s, "up") for s in "CSHD"] + [(s, "down") for s in "CSHD"]
    elif foundations == 8:
        assert found == [(s, "up") for s in "CCSSHHDD"]
    else:
        assert found == [(s, "up") for s in "CSHD"]


# --- a new game ------------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_new_game(variant_id: str) -> None:
    variant = patience.get_variant(variant_id)
    state = variant.new_game(2024)
    packs, *_ = SHAPES[variant_id]
    assert state.total_cards == 52 * packs
    assert Counter(c for pile in state.piles for c in pile) == Counter(list(range(52)) * packs)
    assert (state.moves_made, state.redeals_left, state.deal) == (0, variant.redeals, 2024)
    assert state.draws == 52 * packs - 1
    assert state.foundation_cards == (4 if variant_id == "bisley" else 0)
    assert state.stock_size == (64 if variant_id == "napoleon-at-st-helena" else 0)
    assert state.status is Status.PLAYING and state.legal_moves()
    assert state.options == frozenset() and state.variant is variant


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_notation_round_trips(variant_id: str) -> None:
    state = patience.get_variant(variant_id).new_game(77)
    for _ in range(30):
        text = state.to_notation()
        assert str(state) == text and patience.parse_state(text) == state
        assert pickle.loads(pickle.dumps(state)) == state
        for move in state.legal_moves():
            assert Move.parse(str(move)) == move
        state = state.apply(state.legal_moves()[-1])
        if not state.legal_moves():
            break


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_moves_give_events_and_new_states(variant_id: str) -> None:
    state = patience.get_variant(variant_id).new_game(5)
    for step in range(40):
        moves = state.legal_moves()
        if not moves:
            break
        move = moves[step % len(moves)]
        after, events = state.apply_with_events(move)
        assert after == state.apply(move) and after.moves_made == state.moves_made + 1
        assert events and all(isinstance(e, CardMoved) for e in events)
        check_events(state, after, events)
        state = after


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_illegal_move_leaves_the_state(variant_id: str) -> None:
    state = patience.get_variant(variant_id).new_game(9)
    before = str(state)
    with pytest.raises(IllegalMove) as info:
        state.apply(Move.transfer("f1", "t1"))
    assert info.value.rule in ("not_a_source", "empty_source")
    assert info.value.code == "ILLEGAL_MOVE"
    with pytest.raises(IllegalMove) as info:
        state.apply(Move.transfer("t1", "t99"))
    assert info.value.rule == "unknown_pile"
    assert not state.is_legal(Move.transfer("t1", "t1"))
    assert str(state) == before


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_won_game_is_over(variant_id: str) -> None:
    state = won_state(variant_id)
    assert state.status is Status.WON and state.legal_moves() == ()
    for move in (Move.transfer("t1", "t2"), Move.deal(), Move.redeal(), Move.withdraw("t1")):
        with pytest.raises(IllegalMove) as info:
            state.apply(move)
        assert info.value.rule == "game_over"


def test_game_keeps_history() -> None:
    game = Game("usk", 3)
    start = game.state
    moves = []
    for _ in range(5):
        move = game.legal_moves()[0]
        game.push(move)
        moves.append(move)
    assert game.moves == moves and game.state.moves_made == 5
    for move in reversed(moves):
        assert game.pop() == move
    assert game.state == start and game.moves == []
    with pytest.raises(IndexError):
        game.pop()
    with pytest.raises(IllegalMove):
        game.push(Move.deal())
    assert game.state == start and Game.from_state(start).state is start


# --- move notation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("t3-f1", Move(MoveKind.TRANSFER, "t3", "f1", 1)),
        ("t4-t7/3", Move.transfer("t4", "t7", count=3)),
        ("waste-t2", Move.transfer("waste", "t2")),
        ("r1-f5", Move.transfer("r1", "f5")),
        ("deal", Move.deal()),
        ("redeal", Move.redeal()),
        ("withdraw t5 t9", Move.withdraw("t5", "t9")),
        ("withdraw t12", Move.withdraw("t12")),
    ],
)
def test_move_notation(text: str, move: Move) -> None:
    assert Move.parse(text) == move and str(move) == text


def test_move_notation_edge_cases() -> None:
    assert str(Move.parse("t4-t7/1")) == "t4-t7"
    assert Move.withdraw("t10", "t9").columns == ("t9", "t10")
    for bad in ("", "T3-f1", "t3 - f1", "t3-f1/0", "t3-", "withdraw", "deal ", "t0-f1", "x-y"):
        with pytest.raises(NotationError):
            Move.parse(bad)


# --- options and validation ------------------------------------------------------------


def test_napoleon_option() -> None:
    variant = patience.get_variant("napoleon-at-st-helena")
    assert set(variant.options) == {"fill_from_waste_only"}
    state = variant.new_game(3, options=["fill_from_waste_only"])
    assert state.options == {"fill_from_waste_only"}
    assert str(state).startswith("napoleon-at-st-helena+fill_from_waste_only t:")
    assert patience.parse_state(str(state)) == state
    assert state != variant.new_game(3)
    with pytest.raises(UnknownOption):
        variant.new_game(3, options=["no_such_option"])


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda p: p[:-1], "WRONG_PILE_COUNT"),
        (lambda p: [p[0][:-1], *p[1:]], "WRONG_CARDS"),
        (lambda p: [(*p[0], 60), *p[1:]], "WRONG_CARDS"),
        (lambda p: [(*p[0][:-1], p[1][0]), *p[1:]], "WRONG_CARDS"),
        (lambda p: [p[0][:-1], *p[1:18], (p[0][-1],), *p[19:]], "BAD_FOUNDATION"),
    ],
)
def test_from_parts_rejects(change: object, reason: str) -> None:
    state = patience.get_variant("la-belle-lucie").new_game(1)
    piles = change(list(state.piles))  # type: ignore[operator]
    with pytest.raises(InvalidState) as info:
        State.from_parts(state.variant, piles, redeals_left=2, moves_made=0, deal=1, draws=51)
    assert info.value.reason == reason and info.value.code == "INVALID_STATE"


def test_from_parts_counters() -> None:
    state = patience.get_variant("la-belle-lucie").new_game(1)
    good = {"redeals_left": 2, "moves_made": 0, "deal": 1, "draws": 51}
    assert State.from_parts(state.variant, state.piles, **good) == state
    for field, value, reason in [
        ("redeals_left", 3, "BAD_COUNTER"),
        ("moves_made", -1, "BAD_COUNTER"),
        ("draws", 50, "BAD_COUNTER"),
        ("deal", 10**20 + 1, "BAD_DEAL"),
        ("deal", -1, "BAD_DEAL"),
    ]:
        with pytest.raises(InvalidState) as info:
            State.from_parts(state.variant, state.piles, **(good | {field: value}))
        assert info.value.reason == reason, field


def test_from_parts_checks_each_card_is_a_whole_number() -> None:
    state = patience.get_variant("la-belle-lucie").new_game(1)
    good: dict[str, Any] = {"redeals_left": 2, "moves_made": 0, "deal": 1, "draws": 51}
    piles: list[list[Any]] = [list(pile) for pile in state.piles]
    at = next(i for i, pile in enumerate(piles) if 1 in pile)
    where = piles[at].index(1)

    class Code(int):
        pass

    for stand_in, accepted in ((True, False), (1.0, False), ("1", False), (Code(1), True)):
        changed = [list(pile) for pile in piles]
        changed[at][where] = stand_in
        if accepted:
            assert State.from_parts(state.variant, changed, **good) == state
            continue
        with pytest.raises(InvalidState) as info:
            State.from_parts(state.variant, changed, **good)
        assert info.value.reason == "WRONG_CARDS", stand_in


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_from_trusted_parts_builds_what_from_parts_builds(variant_id: str) -> None:
    state = patience.get_variant(variant_id).new_game(21)
    for _ in range(25):
        parts: dict[str, Any] = {
            "options": state.options,
            "redeals_left": state.redeals_left,
            "moves_made": state.moves_made,
            "deal": state.deal,
            "draws": state.draws,
        }
        trusted = State.from_trusted_parts(state.variant, state.piles, **parts)
        assert trusted == State.from_parts(state.variant, state.piles, **parts) == state
        assert trusted.legal_moves() == state.legal_moves()
        assert trusted.foundation_cards == state.foundation_cards
        if not state.legal_moves():
            break
        state = state.apply(state.legal_moves()[-1])


def test_from_trusted_parts_checks_the_shape_only() -> None:
    state = patience.get_variant("la-belle-lucie").new_game(1)
    good: dict[str, Any] = {"redeals_left": 2, "moves_made": 0, "deal": 1, "draws": 51}
    piles = list(state.piles)
    # Reachability is not checked: a card twice (and another missing) is taken.
    twice = [(*piles[0][:-1], piles[1][0]), *piles[1:]]
    assert State.from_trusted_parts(state.variant, twice, **good).piles[0][-1] == piles[1][0]
    f1 = state.variant.pile_ids.index("f1")
    # Fourteen cards on f1, taken from the first five fans (three cards each).
    taken = [card for pile in piles[:5] for card in pile]
    overfull = [(), (), (), (), (taken[14],), *piles[5:f1], tuple(taken[:14]), *piles[f1 + 1 :]]
    for changed, counters, reason in [
        (piles[:-1], good, "WRONG_PILE_COUNT"),
        ([piles[0][:-1], *piles[1:]], good, "WRONG_CARDS"),
        ([(*piles[0][:-1], 60), *piles[1:]], good, "WRONG_CARDS"),
        ([(*piles[0][:-1], -1), *piles[1:]], good, "WRONG_CARDS"),
        (overfull, good, "BAD_FOUNDATION"),
        (piles, good | {"redeals_left": 3}, "BAD_COUNTER"),
        (piles, good | {"draws": 10**9}, "BAD_COUNTER"),
        (piles, good | {"deal": 10**20 + 1}, "BAD_DEAL"),
    ]:
        with pytest.raises(InvalidState) as info:
            State.from_trusted_parts(state.variant, changed, **counters)
        assert info.value.reason == reason


def test_parse_state_rejects() -> None:
    text = str(patience.get_variant("bisley").new_game(1))
    for bad, error in [
        (text.replace("f:AC/", "f:AS/"), InvalidState),  # a spade on the clubs foundation
        (text.replace("bisley", "bisly"), UnknownVariant),
        (text.replace(" n:0", ""), NotationError),
        (text.replace("m:0", "m:x"), NotationError),
        (text.replace("t:", "t:ZZ"), NotationError),
    ]:
        with pytest.raises(error):
            patience.parse_state(bad)


# --- a tenth game is one declaration ----------------------------------------------------


def test_a_new_variant_is_one_declaration() -> None:
    """A made-up game with a stock and one cell: every shared rule applies to it."""
    variant = Variant(
        id="test-game",
        name="Test Game",
        summary="Eight columns down in suit, a stock, one cell.",
        packs=1,
        tableau=8,
        tableau_layout=Layout.COLUMN,
        build=BuildRule.DOWN_IN_SUIT,
        fill=FillRule.ANY_CARD,
        foundations=aces_up(1),
        deal_pattern=DealPattern(passes("t", 8, 8, 8)),
        cells=1,
        stock=True,
    )
    assert variant.pile_ids[-4:] == ("f3", "f4", "stock", "waste")
    state = variant.new_game(10)
    assert state.stock_size == 52 - 24 and state.draws == 51
    state = state.apply(Move.deal())
    assert len(state.pile("waste")) == 1
    rules = {
        "waste-r1": "reserve_from_tableau_only",
        "stock-t1": "not_a_source",
        "t1-waste": "not_a_target",
    }
    for text, rule in rules.items():
        with pytest.raises(IllegalMove) as info:
            state.apply(Move.parse(text))
        assert info.value.rule == rule
    state = state.apply(Move.parse("t1-r1"))
    with pytest.raises(IllegalMove) as info:
        state.apply(Move.parse("r1-t2"))
    assert info.value.rule == "reserve_to_foundation_only"


def test_an_option_may_change_any_declaration_field() -> None:
    """The rules are those of the declaration with its options applied, the deal pattern
    included: new games, validation and the notation all follow it."""
    variant = Variant(
        id="test-options",
        name="Test Options",
        summary="Eight columns down in suit and a stock; an option deals two rows only.",
        packs=1,
        tableau=8,
        tableau_layout=Layout.COLUMN,
        build=BuildRule.DOWN_IN_SUIT,
        fill=FillRule.ANY_CARD,
        foundations=aces_up(1),
        deal_pattern=DealPattern(passes("t", 8, 8, 8)),
        stock=True,
        options={"short_deal": "two rows are dealt, not three"},
        option_changes={"short_deal": {"deal_pattern": DealPattern(passes("t", 8, 8))}},
    )
    plain = variant.new_game(10)
    short = variant.new_game(10, ["short_deal"])
    assert (plain.stock_size, short.stock_size) == (28, 36)
    assert [len(short.pile(f"t{i}")) for i in range(1, 9)] == [2] * 8
    assert short.variant is variant and short.options == {"short_deal"}
    assert variant.with_options(["short_deal"]).deal_pattern.passes == passes("t", 8, 8)
    parts: dict[str, Any] = {"redeals_left": 0, "moves_made": 0, "deal": 10, "draws": 51}
    assert State.from_parts(variant, short.piles, options=["short_deal"], **parts) == short
    with pytest.raises(InvalidState):
        State.from_parts(variant, short.piles, **parts)  # 36 cards left: not this deal
    assert str(short).startswith("test-options+short_deal t:")
