"""The worked example of docs/rules-library.md, "Adding a game", run as written: a tenth
game with a new kind of fill rule is one declaration plus one entry of the fill table.
Its legal moves, its refusals and the solver's model follow the new entry. The game is
made here only; the registry keeps its nine games."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import patience
import pytest
from patience import IllegalMove, Move, State, Variant
from patience.building import FillRule
from patience.solver.model import Model
from patience.solver.pruning import MoveChooser
from patience.tables import RESERVE, TABLEAU, WASTE
from patience.variant import rules_of

GUIDE = Path(__file__).parents[2] / "docs" / "rules-library.md"
COURT = "empty_pile_needs_court_card"


def _example() -> dict[str, Any]:
    """The namespace of the guide's Python block under "Adding a game", executed."""
    section = GUIDE.read_text().split("\n## Adding a game\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match, "docs/rules-library.md: no Python block under 'Adding a game'"
    namespace: dict[str, Any] = {"__name__": "courtyard"}
    exec(compile(match.group(1), f"{GUIDE}:Adding a game", "exec"), namespace)
    return namespace


EXAMPLE = _example()
VARIANT: Variant = EXAMPLE["VARIANT"]
COURT_CARDS_ONLY: FillRule = EXAMPLE["COURT_CARDS_ONLY"]


def position(columns: Mapping[str, str], waste: str = "") -> State:
    """Courtyard with the given columns (cards bottom to top) and waste, the stock dealt
    out; each foundation holds its suit up to the lowest card used, and what is left
    fills t8, t7, ... eight at a time."""
    used = {pile: [patience.parse_card(c) for c in text.split()] for pile, text in columns.items()}
    waste_cards = [patience.parse_card(c) for c in waste.split()]
    taken = {c for pile in used.values() for c in pile} | set(waste_cards)
    ids = VARIANT.pile_ids
    piles: dict[str, list[int]] = {pile_id: [] for pile_id in ids}
    for pile_id, cards in used.items():
        piles[pile_id] = cards
    for number, suit in enumerate(range(4), start=1):
        run = []
        for card in range(suit * 13, suit * 13 + 13):
            if card in taken:
                break
            run.append(card)
        piles[f"f{number}"] = run
        taken.update(run)
    left = [c for c in range(52) if c not in taken]
    free = [p for p in reversed(ids) if p[0] == "t" and p not in used]
    while left:
        piles[free.pop(0)] = [left.pop() for _ in range(min(8, len(left)))]
    piles["waste"] = waste_cards
    return State.from_parts(
        VARIANT, [piles[p] for p in ids], redeals_left=0, moves_made=100, deal=1, draws=51
    )


def refusal(state: State, text: str) -> str:
    """The rule ``text`` breaks; the state stays as it was and does not list the move."""
    move = Move.parse(text)
    before = state.piles
    with pytest.raises(IllegalMove) as info:
        state.apply(move)
    assert state.piles == before and move not in state.legal_moves()
    return info.value.rule


def check_model_agrees(state: State) -> None:
    """The solver's model lists the library's legal moves and applies them alike."""
    model = Model(rules_of(state), state.deal)
    pos = model.position(state)
    moves = model.legal_moves(pos)
    assert sorted(str(model.library_move(m)) for m in moves) == sorted(
        map(str, state.legal_moves())
    )
    for move in moves:
        after = state.apply(model.library_move(move))
        assert model.apply(pos, move) == model.position(after)
    chosen = MoveChooser(model)(pos)
    assert len(set(chosen)) == len(chosen) and set(chosen) <= set(moves)
    assert model.state(pos, state.deal, state.moves_made) == state


COLUMNS = {
    "t1": "",
    "t2": "5S QH",
    "t3": "4S 9D",
    "t4": "3S KS QD JC",
    "t5": "2S 8H 7C 6H",
}


def test_the_table_entry_is_compiled_into_the_rules() -> None:
    state = position(COLUMNS, waste="5D JS")
    rules = rules_of(state)
    court = frozenset(c for c in range(52) if patience.rank(c) >= 11)
    assert rules.fill is COURT_CARDS_ONLY and rules.fills
    assert rules.empty_takes[TABLEAU] == rules.empty_takes[WASTE] == court
    for kind in (TABLEAU, RESERVE, WASTE):
        for card in range(52):
            assert rules.fill_refusals[kind][card] == (None if card in court else COURT)
    assert patience.get_variant("cody") is patience.VARIANTS["cody"]
    assert VARIANT.id not in patience.VARIANTS


def test_an_empty_column_takes_a_court_card_or_a_run_headed_by_one() -> None:
    state = position(COLUMNS, waste="5D JS")
    legal = {str(m) for m in state.legal_moves()}
    assert {"t2-t1", "t4-t1", "t4-t1/2", "t4-t1/3", "waste-t1"} <= legal
    after = state.apply(Move.parse("t4-t1/3"))
    assert [patience.card_name(c) for c in after.pile("t1")] == ["KS", "QD", "JC"]
    assert [patience.card_name(c) for c in after.pile("t4")] == ["3S"]
    after = state.apply(Move.parse("waste-t1"))
    assert [patience.card_name(c) for c in after.pile("t1")] == ["JS"]
    assert after.pile("waste") == (patience.parse_card("5D"),)


def test_an_empty_column_refuses_anything_else_with_the_new_rule() -> None:
    state = position(COLUMNS, waste="JS 5D")
    for text in ("t3-t1", "t5-t1", "t5-t1/2", "t5-t1/3", "waste-t1"):
        assert refusal(state, text) == COURT, text
    with pytest.raises(IllegalMove) as info:
        state.apply(Move.parse("t3-t1"))
    assert COURT_CARDS_ONLY.description in str(info.value)
    # The checks before the fill rule still come first.
    assert refusal(state, "t4-t1/4") == "not_a_run"
    assert refusal(state, "t3-t2") == "wrong_colour"


def test_the_solver_model_agrees_on_the_new_rule() -> None:
    for waste in ("5D JS", "JS 5D"):
        check_model_agrees(position(COLUMNS, waste=waste))
    rng = random.Random(2024)
    for deal in range(12):
        state = VARIANT.new_game(deal)
        for _ in range(150):
            check_model_agrees(state)
            legal = state.legal_moves()
            if not legal:
                break
            state = state.apply(rng.choice(legal))
