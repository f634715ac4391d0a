"""Assertions about moves: refused with a rule and nothing changed, or listed and applied;
and a state made again from its parts."""

from __future__ import annotations

import patience
import pytest
from patience import IllegalMove, Move, State

from .cards import names
from .deals import lucie_redeal
from .positions import card_multiset, piles_by_id


def rebuilt(state: State, piles: object = None, **changes: object) -> State:
    """``State.from_parts`` of the state's own parts (its piles, or ``piles``), with
    ``changes`` to its counters, deal or options."""
    given_piles = state.piles if piles is None else piles
    parts = {
        "options": state.options,
        "redeals_left": state.redeals_left,
        "moves_made": state.moves_made,
        "deal": state.deal,
        "draws": state.draws,
    }
    return State.from_parts(state.variant, given_piles, **{**parts, **changes})  # type: ignore[arg-type]


def as_move(move: str | Move) -> Move:
    return Move.parse(move) if isinstance(move, str) else move


def legal_texts(state: State) -> set[str]:
    return {str(m) for m in state.legal_moves()}


def assert_rejected(state: State, move: str | Move, rule: str | set[str]) -> IllegalMove:
    """The move is illegal for `rule` (or one of a set), and the state is as it was."""
    mv = as_move(move)
    text = state.to_notation()
    copy = patience.parse_state(text)
    returned: object = "nothing raised"
    with pytest.raises(IllegalMove) as info:
        returned = state.apply(mv)
    assert returned == "nothing raised"  # apply raised before returning anything
    rules = {rule} if isinstance(rule, str) else rule
    assert info.value.rule in rules, f"{mv}: rule {info.value.rule!r}, expected {rules}"
    assert str(info.value) and info.value.code
    assert state == copy and state.to_notation() == text and hash(state) == hash(copy)
    assert not state.is_legal(mv)
    assert mv not in state.legal_moves()
    return info.value


def assert_applies(state: State, move: str | Move) -> State:
    """The move is listed, legal, applies, keeps every card and counts as one move."""
    mv = as_move(move)
    text = state.to_notation()
    assert mv in state.legal_moves(), f"{mv} not in {sorted(legal_texts(state))}"
    assert state.is_legal(mv)
    after = state.apply(mv)
    assert state.to_notation() == text
    assert after.moves_made == state.moves_made + 1
    assert card_multiset(after) == card_multiset(state)
    return after


def changed(before: State, after: State) -> dict[str, str]:
    """The piles that differ, written as card strings."""
    b, a = piles_by_id(before), piles_by_id(after)
    return {pid: names(a[pid]) for pid in b if a[pid] != b[pid]}


def check_lucie_redeal(state: State) -> State:
    """Redeal in the La Belle Lucie family and compare with RULES.md: gather t1..tN bottom
    to top, shuffle with the generator after `draws` draws, three passes; foundations,
    counters and the generator's position follow."""
    after = assert_applies(state, "redeal")
    ids = state.variant.pile_ids
    tableau = [p for p in ids if p.startswith("t")]
    before = [state.pile(p) for p in tableau]
    count = sum(len(p) for p in before)
    expected = lucie_redeal(before, state.deal, state.draws)
    assert {p: names(after.pile(p)) for p in tableau} == {
        p: names(fan) for p, fan in zip(tableau, expected, strict=True)
    }
    assert after.draws == state.draws + max(count - 1, 0)
    assert after.redeals_left == state.redeals_left - 1
    assert [after.pile(p) for p in ids if p[0] == "f"] == [
        state.pile(p) for p in ids if p[0] == "f"
    ]
    assert after.deal == state.deal
    return after
