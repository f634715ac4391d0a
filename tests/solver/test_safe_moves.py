"""The safe-move rule in two-pack games (docs/solver.md, "Safe moves"): a card goes home at
once only when both copies of every card that could be built on it are home; one copy
out is enough to hold it back. The soundness checks (test_soundness.py) hold every safe
move to the plain search; this pins the rule itself, which they reach only by chance."""

from __future__ import annotations

from patience import Move, State
from patience.cards import parse_card
from patience.solver.model import TRANSFER, Model
from patience.solver.safe_moves import SafeMoves
from patience.variant import rules_of

from tests.oracle import position

# Napoleon at St Helena, the stock spent: the hearts are f5 and f6, one at the three and
# one at the two. The four of hearts lies on the other three, on t1.


def test_one_copy_of_a_card_that_builds_on_it_out_holds_a_card_back() -> None:
    state = position(
        "napoleon-at-st-helena", t={"t1": "3H 4H"}, f={"f5": "3H", "f6": "2H"}, stock="", n=0
    )
    model = Model(rules_of(state), state.deal)
    safe = SafeMoves(model)
    pos = model.position(state)
    four, three = parse_card("4H"), parse_card("3H")
    f5 = model.pile_ids.index("f5") - model.found_base
    assert Move.transfer("t1", "f5") in state.legal_moves()
    assert safe.home(pos[2], three) == 1
    assert not safe.is_safe(pos, four, f5, False)
    assert safe.settle(pos) == (pos, [])
    # with the other three home too, the four goes at once
    both = position("napoleon-at-st-helena", t={"t1": "4H"}, f={"f5": "3H", "f6": "3H"},
                    stock="", n=0)  # fmt: skip
    pos = model.position(both)
    assert safe.home(pos[2], three) == 2
    assert safe.is_safe(pos, four, f5, False)


def test_a_card_both_its_foundations_want_goes_home_once_uncovered() -> None:
    """Both hearts foundations at the three: the four of hearts is safe (the two threes
    that build on it are home, and its twin foundation wants it too). A move onto a
    column that uncovers it must be followed by the full look (`settle_after` as
    `settle`), which plays it home."""
    before = position(
        "napoleon-at-st-helena",
        t={"t1": "4H 9C", "t2": "TC"},
        f={"f5": "3H", "f6": "3H"},
        stock="",
        n=0,
    )
    model = Model(rules_of(before), before.deal)
    safe = SafeMoves(model)
    pos = model.position(before)
    t1, t2 = model.pile_ids.index("t1"), model.pile_ids.index("t2")
    (move,) = [m for m in model.legal_moves(pos) if m[1:3] == (t1, t2)]
    after = model.apply(pos, move)
    settled, played = safe.settle(after)
    assert any(m[1] == t1 and model.pile_ids[m[2]] in ("f5", "f6") for m in played)
    assert safe.settle_after(after, move) == (settled, played)


def settled_moves(state: State) -> list[tuple[int, str, str, int]]:
    """What `settle` plays from the state: the solver's moves, their piles by id."""
    model = Model(rules_of(state), state.deal)
    _, played = SafeMoves(model).settle(model.position(state))
    return [
        (kind, model.pile_ids[source], model.pile_ids[target], count)
        for kind, source, target, count in played
    ]


def test_a_safe_card_goes_home_to_the_last_foundation_too() -> None:
    """The diamonds are f7 and f8, f7 at the four and f8 at the three: the other four of
    diamonds, on t1, is safe and only f8 takes it. `settle` plays it there, as it would
    on any other foundation."""
    state = position(
        "napoleon-at-st-helena", t={"t1": "4D"}, f={"f7": "4D", "f8": "3D"}, stock="", n=0
    )
    assert any(move[1:3] == ("t1", "f8") for move in settled_moves(state))


def test_a_safe_card_in_a_reserve_cell_goes_home() -> None:
    """Cody: a four of spades waits in r1, the spades up-foundation f2 is at the three
    and the down-foundation f6 has come down to the other four. Nothing builds on Cody's
    fans, and the four's twin is home: the four is safe, and goes home from its cell,
    whether or not a column sends a card home first."""
    for columns in ({"t1": "9S"}, {"t1": "9S 5H"}):  # 5H: f7, the hearts down, is at six
        state = position(
            "cody", t=columns, r={"r1": "4S", "r2": ""}, f={"f2": "3S", "f6": "4S", "f7": "6H"}
        )
        assert (TRANSFER, "r1", "f2", 1) in settled_moves(state), columns


def test_a_redeal_to_come_holds_back_no_card_in_a_cell() -> None:
    """Little Billee with redeals left: a redeal gathers the columns, never the reserve
    cells, so a safe card in a cell goes home at once (one on a column would wait)."""
    for redeals_left in (2, 1, 0):
        state = position(
            "little-billee",
            t={"t1": "9S"},
            r={"r1": "4S", "r2": ""},
            f={"f2": "3S", "f6": "4S", "f7": "6H"},
            n=redeals_left,
        )
        assert (TRANSFER, "r1", "f2", 1) in settled_moves(state), redeals_left
