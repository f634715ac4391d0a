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
from patience import State
from patience.solver.model import (
    DEAL,
    EMPTY,
    REDEAL,
    TRANSFER,
    WITHDRAW,
    Model,
    Position,
    SolverMove,
)
from patience.solver.pruning import MoveChooser
from patience.variant import rules_of

from tests.oracle import Walk, played_games, position
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
