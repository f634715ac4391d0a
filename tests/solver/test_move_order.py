"""The order the search tries moves in (docs/solver.md, "How it searches"): to the
foundations; onto other piles, those that uncover a card the foundations want first,
then a card that can move on, then an emptied pile where empty piles take cards, short
piles first, cards from the waste among the first; to an empty pile; to a cell (by the
same order); deal; redeal; withdraw. The order does not change a verdict, but it is how
soon a win is found, and a hint's best move within its budget."""

from __future__ import annotations

import random
from collections.abc import Iterator

import patience
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from patience import Move, State, Status
from patience.solver import Budget, Verdict, solve
from patience.solver.model import (
    DEAL,
    EMPTY,
    REDEAL,
    REDEAL_MOVE,
    TRANSFER,
    WITHDRAW,
    Model,
    Position,
    SolverMove,
)
from patience.solver.policy import Policy
from patience.solver.pruning import MoveChooser
from patience.variant import rules_of

from tests.oracle import Walk, played_games, position
from tests.solver.positions import replay
from tests.solver.soundness import near_end

VARIANT_IDS = list(patience.VARIANTS)
FOUNDATION, BUILD, TO_EMPTY, TO_CELL, OTHER = range(5)
OTHER_ORDER = {DEAL: 0, REDEAL: 1, WITHDRAW: 2}


def kind(model: Model, pos: Position, move: SolverMove) -> int:
    what, _, target, _ = move
    if what != TRANSFER:
        return OTHER
    if target >= model.found_base:
        return FOUNDATION
    if target >= model.cell_base:
        return TO_CELL
    return BUILD if pos[0][target] else TO_EMPTY


def promise(model: Model, pos: Position, move: SolverMove) -> int:
    """How promising a move off a pile is, read from the documented order."""
    tab, _, found, _, _, _, _ = pos
    _, source, _, count = move
    if source == model.waste_index:
        return 60  # among the first: the stock moves on
    pile = tab[source]
    rest = len(pile) - count
    if rest == 0:
        return 70 if model.fills else 0  # an emptied pile, of use only where piles fill
    uncovered = pile[rest - 1]
    wanted = {model.found_next[j][found[j]] for j in range(model.nfound)}
    if uncovered in wanted:
        return 100 - rest
    tops = {p[-1] for p in tab if p}
    if any(uncovered in model.wants[top] for top in tops):
        return 50 - rest
    return 30 - rest


def check_order(state: State) -> None:
    model = Model(rules_of(state), state.deal)
    pos = model.position(state)
    chosen = MoveChooser(model)(pos)
    kinds = [kind(model, pos, m) for m in chosen]
    assert kinds == sorted(kinds), (kinds, str(state))
    others = [OTHER_ORDER[m[0]] for m in chosen if m[0] != TRANSFER]
    assert others == sorted(others), str(state)
    for group in (BUILD, TO_CELL):
        scores = [promise(model, pos, m) for m, k in zip(chosen, kinds, strict=True) if k == group]
        assert scores == sorted(scores, reverse=True), (group, scores, str(state))
    # moves to a cell that promise alike come in the order of their piles
    to_cell = [
        (promise(model, pos, m), m[1]) for m, k in zip(chosen, kinds, strict=True) if k == TO_CELL
    ]
    assert to_cell == sorted(to_cell, key=lambda item: (-item[0], item[1])), str(state)


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_moves_are_tried_in_the_documented_order(variant_id: str, data: st.DataObject) -> None:
    walk: Walk = data.draw(played_games(variant_id, max_moves=40))
    for state in walk.states[::8]:
        check_order(state)
    check_order(near_end(variant_id, random.Random(data.draw(st.integers(0, 2**32 - 1)))))


def test_what_uncovers_a_wanted_card_comes_first() -> None:
    """Bisley: of two builds, the one that uncovers the card its foundation wants is
    tried first, though its pile comes later."""
    state = position(
        "bisley",
        t={"t1": "9D", "t2": "7C 8D", "t5": "4C 7D"},
        f={"f1": "3C", "f5": "TC", "f2": "8S", "f6": "9S", "f3": "KH", "f7": "-"}
        | {"f4": "5D", "f8": "QD"},
        n=0,
    )
    model = Model(rules_of(state), state.deal)
    chosen = [str(model.library_move(m)) for m in MoveChooser(model)(model.position(state))]
    builds = [m for m in chosen if m in ("t2-t1", "t5-t2")]
    assert builds == ["t5-t2", "t2-t1"], chosen
    check_order(state)


def near_end_choices(
    variant_id: str, seed: str, tries: int, *, fixed: bool = False
) -> Iterator[tuple[State, Model, Position, set[SolverMove]]]:
    """Positions near the end of random games of ``variant_id`` (with ``fixed``, only
    those with no redeal to come), each with its model and the moves the search tries."""
    model = Model(rules_of(patience.get_variant(variant_id).new_game(1)))
    chooser = MoveChooser(model)
    rng = random.Random(seed)
    for _ in range(tries):
        state = near_end(variant_id, rng)
        if fixed and state.redeals_left:
            continue
        pos = model.position(state)
        yield state, model, pos, set(chooser(pos))


def test_a_whole_pile_never_moves_to_an_empty_column_of_interchangeable_columns() -> None:
    """Usk, no redeal left: a run that is its pile's every card, moved to an empty column,
    gives the same position under the key (the columns are interchangeable), so the
    search never tries it; a shorter run it tries to the first empty column."""
    whole = shorter = 0
    for state, model, pos, chosen in near_end_choices("usk", "whole piles", 400, fixed=True):
        tab = pos[0]
        for move in model.legal_moves(pos):
            what, source, target, count = move
            if what != TRANSFER or target >= model.ntab or tab[target] or count < 2:
                continue
            if count == len(tab[source]):
                whole += 1
                assert move not in chosen, (str(state), move)
            else:
                shorter += 1
                first_empty = tab.index(b"")
                assert (what, source, first_empty, count) in chosen, (str(state), move)
    assert whole and shorter, (whole, shorter)


@pytest.mark.parametrize("variant_id", ["usk", "napoleon-at-st-helena"])
def test_a_pile_s_only_card_never_moves_to_an_empty_column(variant_id: str) -> None:
    """With no redeal to come (Usk after its redeal; Napoleon at St Helena, which has
    none), a pile's only card moved to an empty column gives the same position under the
    key, so the search never tries it; a card with cards under it, it tries to the first
    empty column."""
    only = covering = others = 0
    seed = f"only cards {variant_id}"
    for state, model, pos, chosen in near_end_choices(variant_id, seed, 400, fixed=True):
        tab = pos[0]
        for move in model.legal_moves(pos):
            what, source, target, count = move
            if what != TRANSFER or source >= model.ntab or target >= model.ntab:
                continue
            if tab[target] or count != 1:
                continue
            if len(tab[source]) == 1:
                only += 1
                assert move not in chosen, (str(state), move)
            else:
                covering += 1
                first_empty = tab.index(b"")
                # the empty columns are interchangeable: only the first is tried
                assert (move in chosen) == (target == first_empty), (str(state), move)
                others += target != first_empty
    assert only and covering and others, (only, covering, others)


@pytest.mark.parametrize("variant_id", ["cody", "little-billee"])
def test_a_card_goes_to_the_first_empty_cell(variant_id: str) -> None:
    """The reserve cells are interchangeable: of the moves to a cell, the search tries
    only the one to the first empty cell, so a hint names that cell."""
    tried = skipped = 0
    for _, model, pos, chosen in near_end_choices(variant_id, f"cells {variant_id}", 200):
        cells = pos[1]
        for move in model.legal_moves(pos):
            what, source, target, _ = move
            if (
                what != TRANSFER
                or source >= model.ntab
                or not (model.cell_base <= target < model.found_base)
            ):
                continue
            first = model.cell_base + cells.find(EMPTY)
            assert (move in chosen) == (target == first), move
            tried += target == first
            skipped += target != first
    assert tried and skipped, (tried, skipped)


def transfers_reversed(model: Model, moves: list[SolverMove]) -> list[SolverMove]:
    """``moves`` with those that are transfers to anywhere but a foundation reversed."""
    to_found = [m for m in moves if m[0] == TRANSFER and m[2] >= model.found_base]
    others = [m for m in moves if m[0] == TRANSFER and m[2] < model.found_base]
    rest = [m for m in moves if m[0] != TRANSFER]
    return [*to_found, *others[::-1], *rest]


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_other_searches_orders(variant_id: str, data: st.DataObject) -> None:
    """Beside the first order: while a redeal is left at the start, the first with the
    redeal moved to the front; then, always, the first with the moves other than to
    the foundations reversed; nothing added or left out."""
    walk: Walk = data.draw(played_games(variant_id, max_moves=40))
    for state in walk.states[::8]:
        model = Model(rules_of(state), state.deal)
        policy = Policy(model)
        pos = model.position(state)
        first = policy.candidates(pos)
        orders = [order(pos) for order in policy.other_orders(pos)]
        reversed_ = transfers_reversed(model, first)
        if state.redeals_left:
            assert orders == [[REDEAL_MOVE, *(m for m in first if m != REDEAL_MOVE)], reversed_]
        else:
            assert orders == [reversed_]


def test_one_search_alone_without_pruning_or_with_another_choice_of_moves() -> None:
    for variant_id in VARIANT_IDS:
        model = Model(rules_of(patience.get_variant(variant_id).new_game(1)))
        root = model.position(patience.get_variant(variant_id).new_game(1))
        assert Policy.plain(model).other_orders(root) == []
        assert Policy(model).choosing(model.legal_moves).other_orders(root) == []


@pytest.mark.parametrize(
    ("variant_id", "deal"),
    [
        # its first round holds too many lines for the redeal-last search to reach a
        # redeal that wins; the search with the redeal first wins in a few hundred
        ("usk", 73904241604411028203),
        # the first order's builds lead far from the win; the reversed order's do not
        ("the-fifteen", 13769147013174677452),
    ],
)
def test_a_win_the_first_order_meets_late_is_found_by_the_others(
    variant_id: str, deal: int
) -> None:
    """Searched alone, the first order does not win within 20,000 positions; the searches
    in turns win within 5,000, with a line the rules library replays to a win."""
    state = patience.get_variant(variant_id).new_game(deal)
    model = Model(rules_of(state), state.deal)
    budget = Budget(nodes=20_000, seconds=600)
    alone = solve(state, budget, policy=Policy(model).choosing(MoveChooser(model)))
    assert alone.verdict is Verdict.UNKNOWN
    together = solve(state, budget)
    assert together.verdict is Verdict.WON
    assert together.nodes < 5_000
    assert replay(state, together.line).status is Status.WON


def test_a_redeal_back_to_the_piles_as_they_lay_is_never_played() -> None:
    """Little Billee's redeal gathers the fans last first and deals them again, so two
    in a row deal the piles back as they lay, with two redeals fewer: the search skips
    such a redeal (the search with the redeal first would otherwise open its line of
    deal 1 with it, and a player following the hints would see the same piles again)."""
    state = patience.get_variant("little-billee").new_game(1)
    assert state.apply(Move.redeal()).apply(Move.redeal()).piles == state.piles
    result = solve(state, Budget(nodes=200_000, seconds=60))
    assert result.verdict is Verdict.WON
    assert replay(state, result.line).status is Status.WON
    pairs = zip(result.line, result.line[1:], strict=False)
    assert (Move.redeal(), Move.redeal()) not in pairs


def test_the_searches_share_the_last_round_and_prove_a_loss_at_about_the_cost_of_one() -> None:
    """Usk's deal 20090592935344513284 is lost. With a redeal to come the three searches
    share the table of the last round's positions, where nearly all of its positions
    lie: together they prove the loss having entered barely more positions than the
    first search alone (each searching its own, they would enter about three times as
    many)."""
    state = patience.get_variant("usk").new_game(20090592935344513284)
    model = Model(rules_of(state), state.deal)
    budget = Budget(nodes=200_000, seconds=600)
    alone = solve(state, budget, policy=Policy(model).choosing(MoveChooser(model)))
    together = solve(state, budget)
    assert alone.verdict is together.verdict is Verdict.LOST
    assert alone.nodes <= together.nodes <= alone.nodes * 1.01
