"""Properties of every variant: random deals (both generator ranges) and random legal
play, checked against invariants that hold whatever the game."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter

import patience
import pytest
from hypothesis import given
from hypothesis import strategies as st
from patience import IllegalMove, Move, MoveKind, State, Status
from patience.variant import _RULESETS

from tests.oracle import (
    SHAPES,
    Walk,
    candidate_moves,
    card_multiset,
    deal_numbers,
    full_pack,
    oracle_moves,
    piles_after,
    piles_by_id,
    played_games,
    random_moves,
)

VARIANTS = list(patience.VARIANTS)
# The games in the order of RULES.md: the specification, written out.
VARIANT_IDS = (
    "cody",
    "little-billee",
    "usk",
    "la-belle-lucie",
    "house-in-the-wood",
    "house-on-the-hill",
    "napoleon-at-st-helena",
    "the-fifteen",
    "bisley",
)
FOUNDATION_KIND = "foundation"


def foundation_count(state: State) -> int:
    ids = state.variant.pile_ids
    return sum(len(p) for pid, p in zip(ids, state.piles, strict=True) if pid[0] == "f")


def check_state(state: State) -> None:
    """What holds for every state: cards, counters, notation, status."""
    assert card_multiset(state) == Counter(full_pack(SHAPES[state.variant.id].packs))
    assert state.total_cards == SHAPES[state.variant.id].pack_size
    assert state.foundation_cards == foundation_count(state)
    assert state.stock_size == (
        len(state.pile("stock")) if "stock" in state.variant.pile_ids else 0
    )
    text = state.to_notation()
    assert patience.parse_state(text) == state and str(state) == text
    legal = state.legal_moves()
    assert legal == state.legal_moves()  # stable order
    assert len(set(legal)) == len(legal)
    if state.foundation_cards == state.total_cards:
        assert state.status is Status.WON and legal == ()
    elif legal:
        assert state.status is Status.PLAYING
    else:
        assert state.status is Status.STUCK
    for move in legal[:12]:
        assert Move.parse(str(move)) == move
    # the stable order: transfers by source pile in pile order, then deal, redeal, withdraws
    order = {pid: i for i, pid in enumerate(state.variant.pile_ids)}
    kinds = [m.kind for m in legal]
    sources = [order[m.source] for m in legal if m.kind is MoveKind.TRANSFER]
    assert sources == sorted(sources)
    assert kinds == sorted(kinds, key=[MoveKind.TRANSFER, MoveKind.DEAL, MoveKind.REDEAL,
                                       MoveKind.WITHDRAW].index)  # fmt: skip


def check_step(before: State, move: Move, after: State) -> None:
    assert after.moves_made == before.moves_made + 1
    assert after.deal == before.deal and after.options == before.options
    assert card_multiset(after) == card_multiset(before)
    assert after.redeals_left == before.redeals_left - (move.kind is MoveKind.REDEAL)
    again, events = before.apply_with_events(move)
    assert again == after
    piles, draws = piles_after(before, move)
    assert piles_by_id(after) == piles, f"{move} from {before}"
    assert after.draws == draws
    if move.kind is MoveKind.TRANSFER:
        src, dst = before.pile(move.source), before.pile(move.target)
        moved = {
            (src[i], move.source, i, move.target, len(dst) + k)
            for k, i in enumerate(range(len(src) - move.count, len(src)))
        }
        assert {(e.card, e.source, e.source_index, e.target, e.target_index) for e in events} == (
            moved
        )
    elif move.kind is MoveKind.DEAL:
        stock, waste = before.pile("stock"), before.pile("waste")
        assert [(e.card, e.source, e.source_index, e.target, e.target_index) for e in events] == [
            (stock[-1], "stock", len(stock) - 1, "waste", len(waste))
        ]
    for e in events:  # where each card lay before the move, and where it lies after
        assert before.pile(e.source)[e.source_index] == e.card
        assert after.pile(e.target)[e.target_index] == e.card


def assert_unlisted_rejected(
    state: State, move: Move, legal: tuple[Move, ...], copy: State
) -> None:
    """A listed move is legal; any other raises IllegalMove and leaves the state equal to
    `copy` (the state parsed again from its notation beforehand)."""
    if move in legal:
        assert state.is_legal(move)
        return
    assert not state.is_legal(move)
    returned: object = "nothing"
    with pytest.raises(IllegalMove) as info:
        returned = state.apply(move)
    assert returned == "nothing"
    assert info.value.rule and isinstance(info.value.rule, str)
    assert state == copy and state.piles == copy.piles


# --- the registry -------------------------------------------------------------------


def test_variants_in_the_order_of_rules() -> None:
    assert list(VARIANT_IDS) == VARIANTS
    for variant_id in VARIANTS:
        assert patience.get_variant(variant_id) is patience.VARIANTS[variant_id]


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_variant_declaration(variant_id: str) -> None:
    variant = patience.get_variant(variant_id)
    shape = SHAPES[variant_id]
    assert variant.id == variant_id and variant.name and len(variant.summary) > 40
    assert (variant.packs, variant.redeals) == (shape.packs, shape.redeals)
    assert variant.pile_ids == shape.pile_ids()
    expected_options = {"fill_from_waste_only"} if variant_id.startswith("napoleon") else set()
    assert set(variant.options) == expected_options
    assert all(variant.options.values())


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_describe(variant_id: str) -> None:
    variant = patience.get_variant(variant_id)
    shape = SHAPES[variant_id]
    described = variant.describe()
    assert json.loads(json.dumps(described)) == described
    assert {"id", "name", "summary", "packs", "redeals", "options", "piles"} <= set(described)
    assert (described["id"], described["packs"], described["redeals"]) == (
        variant_id,
        shape.packs,
        shape.redeals,
    )
    assert [o["name"] for o in described["options"]] == list(variant.options)
    piles = described["piles"]
    assert [p["id"] for p in piles] == list(shape.pile_ids())
    kinds = {"t": "tableau", "r": "reserve", "f": FOUNDATION_KIND, "s": "stock", "w": "waste"}
    foundations = iter(shape.foundations)
    for pile in piles:
        assert pile["kind"] == kinds[pile["id"][0]]
        assert pile["layout"] in {"fan", "column", "cell", "stack"}
        if pile["kind"] == "tableau":
            assert pile["layout"] == shape.tableau_layout
        if pile["kind"] == "reserve":
            assert pile["layout"] == "cell"
        if pile["kind"] == FOUNDATION_KIND:
            assert (pile["suit"], pile["direction"]) == next(foundations)


# --- random play ----------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", VARIANTS)
@given(data=st.data())
def test_random_play_keeps_the_invariants(variant_id: str, data: st.DataObject) -> None:
    walk: Walk = data.draw(played_games(variant_id))
    check_state(walk.states[0])
    for before, move, after in zip(walk.states, walk.moves, walk.states[1:], strict=False):
        check_step(before, move, after)
        check_state(after)


@pytest.mark.parametrize("variant_id", VARIANTS)
@given(data=st.data())
def test_every_listed_move_applies(variant_id: str, data: st.DataObject) -> None:
    walk: Walk = data.draw(played_games(variant_id, max_moves=10))
    state = walk.last
    for move in state.legal_moves():
        assert state.is_legal(move)
        check_step(state, move, state.apply(move))


@pytest.mark.parametrize("variant_id", VARIANTS)
@given(data=st.data())
def test_unlisted_moves_are_rejected(variant_id: str, data: st.DataObject) -> None:
    walk: Walk = data.draw(played_games(variant_id, max_moves=15))
    state = walk.last
    legal = state.legal_moves()
    copy = patience.parse_state(str(state))
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="moves seed"))
    for move in random_moves(state, rng, 40):
        assert_unlisted_rejected(state, move, legal, copy)


@pytest.mark.parametrize("variant_id", VARIANTS)
@given(deal=deal_numbers)
def test_same_deal_same_game(variant_id: str, deal: int) -> None:
    variant = patience.get_variant(variant_id)
    first, second = variant.new_game(deal), variant.new_game(deal)
    assert first == second and hash(first) == hash(second) and str(first) == str(second)
    assert patience.Game(variant_id, deal).state == first
    assert (first.deal, first.moves_made, first.redeals_left) == (deal, 0, variant.redeals)
    assert first.draws == SHAPES[variant_id].pack_size - 1
    check_state(first)


@pytest.mark.parametrize("variant_id", VARIANTS)
@given(data=st.data())
def test_pop_restores_every_earlier_state(variant_id: str, data: st.DataObject) -> None:
    walk: Walk = data.draw(played_games(variant_id))
    game = patience.Game.from_state(walk.states[0])
    for move, after in zip(walk.moves, walk.states[1:], strict=True):
        game.push(move)
        assert game.state == after
    assert game.moves == list(walk.moves)
    for move, before in zip(reversed(walk.moves), reversed(walk.states[:-1]), strict=True):
        assert game.pop() == move
        assert game.state == before and str(game.state) == str(before)
    assert game.moves == []


# --- exhaustive checks on fixed positions ----------------------------------------------


def fixed_positions(variant_id: str) -> list[State]:
    """Two openings and the positions after 12 and 40 seeded random moves."""
    rng = random.Random(f"{variant_id}-walk")
    states = []
    for deal in (3, 10**18 + 3):
        state = patience.get_variant(variant_id).new_game(deal)
        states.append(state)
        for step in range(40):
            legal = state.legal_moves()
            if not legal:
                break
            state = state.apply(rng.choice(legal))
            if step in (11, 39):
                states.append(state)
    return states


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_every_candidate_move_is_listed_exactly_when_it_applies(variant_id: str) -> None:
    for state in fixed_positions(variant_id):
        check_state(state)
        legal = state.legal_moves()
        max_count = 13 if variant_id == "usk" else 2
        candidates = candidate_moves(state, max_count=max_count)
        copy = patience.parse_state(str(state))
        for move in candidates:
            assert_unlisted_rejected(state, move, legal, copy)
        assert set(legal) <= set(candidates)  # nothing is legal that the list misses


# --- the legal moves against an independent reading of RULES.md --------------------------


@pytest.mark.parametrize("variant_id", VARIANTS)
@given(data=st.data())
def test_legal_moves_are_exactly_those_of_the_rules(variant_id: str, data: st.DataObject) -> None:
    walk: Walk = data.draw(played_games(variant_id))
    for state in (*walk.states[::4], walk.last):
        assert {str(m) for m in state.legal_moves()} == oracle_moves(state), str(state)


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_legal_moves_of_fixed_positions_are_those_of_the_rules(variant_id: str) -> None:
    for state in fixed_positions(variant_id):
        assert {str(m) for m in state.legal_moves()} == oracle_moves(state), str(state)


@pytest.mark.parametrize("variant_id", VARIANTS)
@pytest.mark.parametrize("count", [0, -1])
def test_a_count_below_one_is_too_many_cards(variant_id: str, count: int) -> None:
    state = patience.get_variant(variant_id).new_game(5)
    with pytest.raises(IllegalMove) as info:
        state.apply(Move.transfer("t1", "t2", count=count))
    assert info.value.rule == "too_many_cards"
    assert not state.is_legal(Move.transfer("t1", "t2", count=count))


def test_a_move_of_no_known_kind() -> None:
    state = patience.get_variant("usk").new_game(5)
    bogus = Move("jump", "t1", "t2")
    with pytest.raises(IllegalMove) as info:
        state.apply(bogus)
    assert info.value.rule == "unknown_move"
    assert not state.is_legal(bogus)


def long_game(
    variant_id: str, deal: int, seed: int, limit: int = 250, options: tuple[str, ...] = ()
) -> list[tuple[State, Move]]:
    """A long game that favours foundation moves and avoids redealing early, so that it
    reaches the middle and the end of a game (emptied piles, cells, a spent stock)."""
    rng = random.Random(seed)
    state = patience.get_variant(variant_id).new_game(deal, options=options)
    steps = []
    for _ in range(limit):
        legal = state.legal_moves()
        if not legal:
            break
        home = [m for m in legal if m.kind is MoveKind.WITHDRAW or m.target.startswith("f")]
        plain = [m for m in legal if m.kind is not MoveKind.REDEAL] or list(legal)
        move = rng.choice(home if home and rng.random() < 0.8 else plain)
        steps.append((state, move))
        state = state.apply(move)
    steps.append((state, Move.deal()))
    return steps


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_long_games_follow_the_rules(variant_id: str) -> None:
    for deal, seed in ((17, 1), (2**50, 2), (31000, 3), (5, 4), (6, 5), (10**19 + 9, 6)):
        steps = long_game(variant_id, deal, seed)
        for i, ((before, move), (after, _)) in enumerate(itertools.pairwise(steps)):
            piles, draws = piles_after(before, move)
            assert piles_by_id(after) == piles and after.draws == draws, f"{move} from {before}"
            if i % 4 == 0:
                assert {str(m) for m in before.legal_moves()} == oracle_moves(before), str(before)
        last = steps[-1][0]
        assert {str(m) for m in last.legal_moves()} == oracle_moves(last), str(last)
        check_state(last)


# --- the rules compiled again --------------------------------------------------------------


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_rules_compiled_again_follow_the_rules(variant_id: str) -> None:
    """The compilation itself (build, fill and foundation tables), made within this test
    (tests/rules/conftest.py), against the independent reading of RULES.md: legal moves
    and the piles after each move, from the deal to a late position of long games, and on
    the hand-built positions."""
    assert not _RULESETS  # nothing compiled before the test
    for deal, seed in ((17, 1), (6, 5)):
        steps = long_game(variant_id, deal, seed)
        for (before, move), (after, _) in itertools.pairwise(steps):
            piles, draws = piles_after(before, move)
            assert piles_by_id(after) == piles and after.draws == draws, f"{move} from {before}"
            assert {str(m) for m in before.legal_moves()} == oracle_moves(before), str(before)
    for state in fixed_positions(variant_id):
        assert {str(m) for m in state.legal_moves()} == oracle_moves(state), str(state)


def test_an_option_compiled_again_follows_the_rules() -> None:
    """Napoleon at St Helena with an empty column filled from the waste only."""
    empty_seen = False
    for deal, seed in ((17, 1), (6, 5), (3, 2)):
        steps = long_game("napoleon-at-st-helena", deal, seed, options=("fill_from_waste_only",))
        for before, _ in steps:
            assert {str(m) for m in before.legal_moves()} == oracle_moves(before), str(before)
            empty_seen = empty_seen or any(not before.pile(f"t{i}") for i in range(1, 11))
    assert empty_seen  # the option's rule was met
