"""The outlook (open, won, stuck, cycling) and autoplay's safe foundation moves."""

from __future__ import annotations

import importlib
import math
import random
from collections.abc import Callable, Iterator

import patience
import pytest
from patience import Move, MoveKind, State
from patience.solver import Budget, Outlook, Verdict, outlook, safe_foundation_moves, solve
from patience.variant import rules_of

from tests.oracle import position
from tests.solver.positions import shuttle

VARIANT_IDS = list(patience.VARIANTS)

# The module, which the package's `outlook` function hides.
outlook_module = importlib.import_module("patience.solver.outlook")

HEARTS_BLOCKED = {"t1": "2H KH", "t2": "QH JH TH 9H 8H 7H 6H 5H 4H 3H"}


def test_won_stuck_and_open() -> None:
    assert outlook(position("bisley", dump=None)) is Outlook.WON
    stuck = position("la-belle-lucie", t=HEARTS_BLOCKED, f={"f3": "AH"}, n=0, dump=None)
    assert outlook(stuck) is Outlook.STUCK
    assert outlook(patience.get_variant("bisley").new_game(7)) is Outlook.OPEN


def test_only_cycling_moves_left() -> None:
    state = shuttle()
    assert outlook(state) is Outlook.CYCLING
    assert outlook(state, state.legal_moves()) is Outlook.CYCLING
    assert solve(state, Budget(nodes=10_000)).verdict is Verdict.LOST


def _napoleon_shuttle() -> State:
    """Napoleon at St Helena, the stock spent: the hearts shuttle as in the House in the
    Wood above; every other column is a four under its king with the suit built down to
    the five on it, which has nowhere to go (no empty column, no six on top)."""
    columns = {
        "t1": "4H KH 5H",
        "t2": "4H KH",
        "t3": "QH JH TH 9H 8H 7H 6H 5H",
        "t4": "QH JH TH 9H 8H 7H 6H",
    }
    for index, suit in zip(range(5, 11), "SSDDCC", strict=True):
        columns[f"t{index}"] = (
            f"4{suit} K{suit} Q{suit} J{suit} T{suit} 9{suit} 8{suit} 7{suit} 6{suit} 5{suit}"
        )
    threes = {f"f{index}": f"3{suit}" for index, suit in enumerate("CCSSHHDD", start=1)}
    return position("napoleon-at-st-helena", t=columns, f=threes, stock="", n=0, dump=None)


CYCLING_ONLY: dict[str, Callable[[], State]] = {
    # La Belle Lucie, no redeal left: the four of spades lies under its king, which never
    # moves; the one move (the five onto the six) uncovers nothing. Hearts as in STUCK.
    "la-belle-lucie": lambda: position(
        "la-belle-lucie",
        t={**HEARTS_BLOCKED, "t3": "4S KS", "t4": "QS JS TS 9S 8S 7S 6S", "t5": "5S"},
        f={"f2": "3S", "f3": "AH"},
        n=0,
        dump=None,
    ),
    "napoleon-at-st-helena": _napoleon_shuttle,
    # Bisley: the foundations want the threes and eights of spades and hearts, all buried
    # under cards whose neighbours in suit are buried too; the five and four of hearts
    # may go onto each other, which uncovers only the seven of spades, as stuck.
    "bisley": lambda: position(
        "bisley",
        t={"t1": "3S 7S 5H", "t2": "8S 3H 8H 4S 5S 6S 6H 7H", "t3": "4H"},
        f={"f2": "2S", "f6": "9S", "f3": "2H", "f7": "9H"},
        dump=None,
    ),
}


@pytest.mark.parametrize("variant_id", sorted(CYCLING_ONLY))
def test_hand_built_cycling_positions(variant_id: str) -> None:
    """Legal moves remain, none to a foundation, and none ever leads to one: CYCLING,
    and the search proves the game LOST."""
    state = CYCLING_ONLY[variant_id]()
    legal = state.legal_moves()
    assert legal and all(move.target[0] != "f" for move in legal)
    assert outlook(state) is Outlook.CYCLING
    assert solve(state, Budget(nodes=10_000, seconds=math.inf)).verdict is Verdict.LOST


def test_a_redeal_left_is_progress() -> None:
    """The same piles with a redeal left: the redeal may separate the kings from the
    fours, so the game is not told lost."""
    state = shuttle(n=1)
    assert Move.redeal() in state.legal_moves()
    assert outlook(state) is Outlook.OPEN


# The House in the Wood, no redeal left, no move to a foundation now; a card the
# foundations want lies further on. Hearts: a five goes to the sixes, which uncovers
# nothing, but the five of hearts on the other fan covers a four the foundation wants
# (progress two moves on). Clubs: the five goes onto a six, which uncovers the four that
# only the first foundation (f1, at the three) wants: a move to f1 is progress too.
PROGRESS_FURTHER_ON = {
    "hearts": (
        {
            "t1": "KH 4H 5H",
            "t2": "4H KH",
            "t3": "QH JH TH 9H 8H 7H 6H 5H",
            "t4": "QH JH TH 9H 8H 7H 6H",
        },
        {"f5": "3H", "f6": "3H"},
    ),
    "clubs to f1": (
        {
            "t1": "KC 4C 5C",
            "t2": "QC 3C KC",
            "t3": "4C 5C 7C 8C 8C 7C 6C",
            "t4": "9C TC JC QC 9C TC JC 6C",
        },
        {"f1": "3C", "f2": "2C"},
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRESS_FURTHER_ON))
def test_progress_further_on_is_found(name: str) -> None:
    columns, foundations = PROGRESS_FURTHER_ON[name]
    state = position("house-in-the-wood", t=columns, f=foundations, n=0, dump=None)
    assert all(m.target[0] != "f" for m in state.legal_moves())
    assert outlook(state) is Outlook.OPEN
    if name == "clubs to f1":
        after = state.apply(Move.transfer("t1", "t4"))
        assert Move.transfer("t1", "f1") in after.legal_moves()


@pytest.fixture
def forgetful() -> Iterator[None]:
    """The closed sets found before (by other tests in this process) are forgotten."""
    outlook_module._listing_of.cache_clear()
    yield
    outlook_module._listing_of.cache_clear()


def test_past_the_limit_the_outlook_stays_open(forgetful: None) -> None:
    assert outlook(shuttle(), limit=1) is Outlook.OPEN
    assert outlook(shuttle(), limit=2) is Outlook.CYCLING  # two positions, up to order


def test_a_closed_set_found_is_remembered(forgetful: None) -> None:
    """Once a listing finds the set closed, each of its positions is told CYCLING without
    a listing (a limit of one position would end any listing as OPEN)."""
    state = shuttle()
    assert outlook(state) is Outlook.CYCLING
    after = state.apply(next(m for m in state.legal_moves() if str(m) == "t3-t4"))
    assert outlook(after, limit=1) is Outlook.CYCLING
    assert outlook(state, limit=1) is Outlook.CYCLING


def test_a_remembered_set_holds_only_for_the_same_foundations(forgetful: None) -> None:
    """The same piles over other foundations are another position: the memory does not
    make it CYCLING. (No position of these games has the same piles over other
    foundations, so the foundations are changed in the solver's position itself.)"""
    state = shuttle()
    assert outlook(state) is Outlook.CYCLING
    listing = outlook_module._listing_of(rules_of(state))
    start = listing.model.position(state)
    assert listing.closes(start, limit=1)
    lengths = bytearray(start[2])
    lengths[4] -= 1  # the fifth foundation one card shorter: it wants the three of hearts
    other = (start[0], start[1], bytes(lengths), *start[3:])
    assert not listing.closes(other, limit=1)


def test_the_memory_is_bounded(forgetful: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outlook_module, "REMEMBERED", 1)
    state = shuttle()
    assert outlook(state) is Outlook.CYCLING  # two positions found, one kept
    listing = outlook_module._listing_of(rules_of(state))
    assert len(listing.cycling) == 1


def _random_play(variant_id: str, rng: random.Random, games: int) -> list[State]:
    """The cycling positions met in random games (with autoplay after each move)."""
    found: list[State] = []
    variant = patience.get_variant(variant_id)
    for _ in range(games):
        state = variant.new_game(rng.randrange(10**6))
        for _ in range(400):
            for move in safe_foundation_moves(state):
                state = state.apply(move)
            verdict = outlook(state)
            if verdict is Outlook.CYCLING:
                found.append(state)
            if verdict is not Outlook.OPEN:
                break
            state = state.apply(rng.choice(state.legal_moves()))
    return found


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_cycling_agrees_with_the_search_on_random_games(variant_id: str) -> None:
    """Every position told CYCLING is one the search proves LOST (the budget is in
    positions only: no time limit that a loaded machine could reach)."""
    for state in _random_play(variant_id, random.Random(variant_id), games=8):
        result = solve(state, Budget(nodes=500_000, seconds=math.inf))
        assert result.verdict is Verdict.LOST, (variant_id, state)


def test_random_games_do_reach_cycling_positions() -> None:
    """The check above is not empty: random play ends cycling in most games."""
    rng = random.Random(11)
    games = {v: len(_random_play(v, rng, games=8)) for v in ("usk", "house-in-the-wood")}
    assert all(count > 0 for count in games.values()), games


# --------------------------------------------------------------------------- autoplay


def test_autoplay_plays_safe_moves_in_order() -> None:
    state = position("bisley", t={"t3": "7C", "t5": "8C"}, f={"f1": "6C", "f5": "9C"}, dump=None)
    moves = safe_foundation_moves(state)
    assert [str(m) for m in moves] == ["t3-f1", "t5-f1"]


def test_autoplay_holds_tableau_cards_while_a_redeal_remains() -> None:
    state = patience.get_variant("usk").new_game(3)
    assert state.redeals_left == 1
    assert safe_foundation_moves(state) == []


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_autoplay_moves_are_legal_foundation_moves_that_ignore_the_stock(
    variant_id: str,
) -> None:
    """Along random games: each move is legal after the ones before it and goes to a
    foundation; and the answer is the same whatever the order of the stock, which the
    player cannot see."""
    rng = random.Random(variant_id)
    variant = patience.get_variant(variant_id)
    for _ in range(4):
        state = variant.new_game(rng.randrange(10**6))
        for _ in range(150):
            moves = safe_foundation_moves(state)
            assert moves == safe_foundation_moves(_hidden_changed(state, rng))
            for move in moves:
                assert move.kind is MoveKind.TRANSFER and move.target[0] == "f"
                state = state.apply(move)  # raises IllegalMove if it is not legal
            legal = state.legal_moves()
            if not legal:
                break
            state = state.apply(rng.choice(legal))


def _hidden_changed(state: State, rng: random.Random) -> State:
    """The same position with the stock in another order."""
    piles = [list(pile) for pile in state.piles]
    if "stock" in state.variant.pile_ids:
        stock = piles[state.variant.pile_ids.index("stock")]
        rng.shuffle(stock)
    return State.from_parts(
        state.variant,
        piles,
        options=tuple(state.options),
        redeals_left=state.redeals_left,
        moves_made=state.moves_made,
        deal=state.deal,
        draws=state.draws,
    )
