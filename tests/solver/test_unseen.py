"""The arrangements of what a position hides (unseen.py) and the helpers a fair hint
chooses with (hints.py): every order of a small stock, twins alike; the seen position
with its hidden part taken away; the move counted most, and the plain move among equals;
the leading move tried first at the root only; the search's first choice."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import TypeAlias

import patience
import pytest
from patience import Move, State
from patience.cards import parse_cards
from patience.solver import Budget, HintKind, Result, Verdict, hides_cards, hint, hints, solve
from patience.solver.model import REDEAL_MOVE, Model
from patience.solver.policy import Policy
from patience.solver.unseen import SAMPLES, arrangements, without_hidden
from patience.variant import rules_of

from tests.oracle import position
from tests.solver.positions import LUCIE_FAMILY
from tests.solver.test_fair_hints import HEARTS_BLOCKED, HIDDEN, dealt_down, played_positions


def stock_of(state: State) -> tuple[int, ...]:
    return tuple(state.piles[rules_of(state).stock])


def test_every_order_of_a_stock_of_few_cards_is_searched() -> None:
    """Three cards have six orders: a count of six gives each once (every arrangement);
    a count of five, a sample of five."""
    state = position("napoleon-at-st-helena", stock="9S 2D 5H", n=0)
    every = arrangements(state, 6)
    assert every.every
    stocks = sorted(stock_of(item.state) for item in every.items)
    assert stocks == sorted(itertools.permutations(parse_cards("9S2D5H")))
    some = arrangements(state, 5)
    assert not some.every and len(some.items) == 5


def test_twins_are_alike_in_the_orders_counted() -> None:
    """Two pairs of twins have six distinct orders, not twenty-four: all six searched."""
    state = position("napoleon-at-st-helena", stock="9S 5H 9S 5H", n=0)
    every = arrangements(state, 8)
    assert every.every
    assert len({stock_of(item.state) for item in every.items}) == len(every.items) == 6


@pytest.mark.parametrize("variant_id", LUCIE_FAMILY)
def test_without_hidden_takes_the_shuffled_redeals_away(variant_id: str) -> None:
    state = patience.get_variant(variant_id).new_game(5)
    assert Move.redeal() in state.legal_moves()
    plain = without_hidden(state).state
    assert plain.redeals_left == 0 and Move.redeal() not in plain.legal_moves()
    assert plain.piles == state.piles


def test_without_hidden_empties_the_stock() -> None:
    state = position("napoleon-at-st-helena", stock="9S 2D 5H", n=0)
    plain = without_hidden(state).state
    assert stock_of(plain) == () and Move.deal() not in plain.legal_moves()
    rules = rules_of(state)
    assert [p for i, p in enumerate(plain.piles) if i != rules.stock] == [
        p for i, p in enumerate(state.piles) if i != rules.stock
    ]


def test_the_move_counted_most_then_the_plain_move_then_the_first_legal_one() -> None:
    a, b, c = Move.transfer("t1", "t2"), Move.transfer("t2", "t3"), Move.transfer("t3", "t1")
    order = {a: 0, b: 1, c: 2}
    assert hints._most({a: 1, b: 3, c: 2}, order, None) == b
    assert hints._most({a: 2, b: 2, c: 2}, order, None) == a
    assert hints._most({a: 2, b: 1, c: 2}, order, c) == c
    assert hints._most({a: 1, b: 1}, order, c) == a


def test_the_leading_move_is_tried_first_at_the_root_only() -> None:
    """Two cards may go home; once the seven of spades has, the six of hearts under it may
    follow: a move the root does not try stays where it was in the next position."""
    state = position(
        "la-belle-lucie", t={"t1": "5C", "t2": "6H 7S"}, f={"f1": "4C", "f2": "6S", "f3": "5H"}, n=0
    )
    model = Model(rules_of(state), state.deal)
    policy = Policy(model)
    pos = model.position(state)
    moves = policy.candidates(pos)
    assert len(moves) == 2
    first = hints._root_first(policy, model.library_move(moves[-1]))
    assert first.candidates(pos) == [moves[-1], *moves[:-1]]
    assert first.candidates(pos) == moves  # past the root, as before
    assert policy.candidates(pos) == moves  # the policy given is left as it was
    # a move the root does not try is not put first, at the root or later
    child = model.apply(pos, moves[1])
    later = policy.candidates(child)
    assert later[0] == moves[0] and later[1] not in moves
    absent = hints._root_first(policy, model.library_move(later[1]))
    assert absent.candidates(pos) == moves
    assert absent.candidates(child) == later


# --- the fair hint's budget -----------------------------------------------------------------

NODES = 4_000


def undecided_napoleon() -> State:
    """A Napoleon at St Helena position far from its end, whose arrangements no search of a
    few thousand positions decides."""
    state = patience.get_variant("napoleon-at-st-helena").new_game(11)
    assert hides_cards(state)
    return state


@pytest.mark.parametrize("variant_id", ["napoleon-at-st-helena", "house-in-the-wood"])
def test_a_fair_hint_spends_its_positions_and_no_more(variant_id: str) -> None:
    """Napoleon at St Helena, undecided everywhere: the positions of the budget are all
    spent (a quarter on the lines that turn up no hidden card, what is left shared evenly
    by the arrangements still to search); The House in the Wood, whose arrangements are
    won, each within its share: what one leaves goes to the next. Never much more than
    the budget, and the hint counts them."""
    budget = Budget(nodes=10 * NODES, seconds=600)
    deal = 11 if variant_id == "napoleon-at-st-helena" else 2
    given = hint(patience.get_variant(variant_id).new_game(deal), budget)
    assert given.arrangements == SAMPLES
    if variant_id == "napoleon-at-st-helena":
        assert given.kind is HintKind.BEST_EFFORT and given.winning == 0
        assert given.nodes >= budget.nodes * 0.95
    else:
        assert given.winning > 0
    # each search looks at its count every 512 positions: a little over at most
    assert given.nodes <= budget.nodes * 1.05


@pytest.mark.parametrize("samples", [1, 3])
def test_a_fair_hint_searches_the_arrangements_asked_for(samples: int) -> None:
    given = hint(undecided_napoleon(), Budget(nodes=NODES, seconds=600), samples=samples)
    assert given.arrangements == samples


def test_a_stopped_fair_hint_searches_one_arrangement_briefly() -> None:
    """``stop`` (the caller has gone, or the deadline is near) ends the search without
    hidden cards and the first arrangement's at their first look at the clock, and no
    other arrangement is searched. (The House in the Wood at its deal: the first round
    alone takes many thousand positions to search.)"""
    state = patience.get_variant("house-in-the-wood").new_game(1)
    given = hint(state, Budget(nodes=10 * NODES, seconds=600), stop=lambda: True)
    assert given.arrangements == 1
    assert given.nodes <= 2 * 512 + 64  # two searches, each to its first look


def test_best_effort_is_the_move_most_promising_without_hidden_cards() -> None:
    """No arrangement decided: the move is the first of the line that brought most cards
    home without dealing (which holds whatever the stock's order)."""
    state = undecided_napoleon()
    plain = without_hidden(state)
    found = solve(plain.state, Budget(nodes=NODES // 4, seconds=600), policy=plain.policy)
    assert found.promising_move is not None
    assert hint(state, Budget(nodes=NODES, seconds=600)).move == found.promising_move


def test_a_move_that_wins_in_every_order_counts_each() -> None:
    """Three kings in the stock, each the last card of its foundation: every one of the six
    orders wins by dealing, and the hint counts all six."""
    state = position("napoleon-at-st-helena", stock="KS KH KD", n=0)
    given = hint(state, Budget(nodes=NODES, seconds=600))
    assert (given.kind, given.move, given.verdict) == (HintKind.WINS_ALL, Move.deal(), Verdict.WON)
    assert (given.arrangements, given.winning, given.lost, given.every_arrangement) == (
        6,
        6,
        0,
        True,
    )


# --- hints of open positions, and what counts as hidden --------------------------------------


def test_no_move_left_is_no_hint_and_says_how_the_game_ended() -> None:
    stuck = position("la-belle-lucie", t=HEARTS_BLOCKED, f={"f3": "AH"}, n=0, dump=None)
    won = position("bisley", dump=None)
    for state, verdict in ((stuck, Verdict.LOST), (won, Verdict.WON)):
        given = hint(state)
        assert (given.kind, given.move, given.verdict) == (HintKind.NONE, None, verdict)
        assert (given.nodes, given.seconds) == (0, 0.0)


def test_an_open_hint_stops_at_its_first_look_and_times_itself() -> None:
    state = patience.get_variant("usk").new_game(3)
    assert not hides_cards(state)
    stopped = hint(state, Budget(nodes=100_000, seconds=600), stop=lambda: True)
    assert stopped.nodes <= 512 + 64 and stopped.seconds >= 0.0
    kinds = set()
    for deal in (1, 2, 3):
        state = patience.get_variant("usk").new_game(deal)
        given = hint(state, Budget(nodes=NODES, seconds=600))
        assert given.seconds > 0.0
        assert given.move in state.legal_moves() or given.kind is HintKind.LOST
        kinds.add(given.kind)
    assert HintKind.LOST in kinds and len(kinds) > 1


def test_a_stock_of_one_card_still_counts_as_hidden() -> None:
    """One card left in the stock: which card it is follows from what is in sight, but it
    is dealt face down all the same, and the hint goes by the arrangements (one)."""
    state = position("napoleon-at-st-helena", stock="KS", n=0)
    assert hides_cards(state)
    given = hint(state, Budget(nodes=NODES, seconds=600))
    assert (given.arrangements, given.every_arrangement) == (1, True)


@pytest.mark.parametrize("variant_id", LUCIE_FAMILY)
def test_each_arrangement_of_the_shuffles_to_come_is_its_own_generator(variant_id: str) -> None:
    """The shuffles to come are a sample, never every one there is; in each arrangement the
    search redeals as the library does for that arrangement's deal, and no two deal
    alike."""
    state = patience.get_variant(variant_id).new_game(9)
    made = arrangements(state)
    assert not made.every and len(made.items) == SAMPLES
    after = set()
    for item in made.items:
        model = item.policy.model
        redealt = model.apply(model.position(item.state), REDEAL_MOVE)
        assert redealt == model.position(item.state.apply(Move.redeal()))
        after.add(redealt)
    assert len(after) == SAMPLES


# --- what each kind of fair hint says ---------------------------------------------------------


def check_kind(state: State, given: hints.Hint) -> None:
    """A fair hint says what its kind means (hints.py): the counts agree with the kind,
    and a move is given, a legal one, unless no line wins."""
    n, won, lost = given.arrangements, given.winning, given.lost
    assert given.nodes > 0 and given.seconds >= 0.0
    if given.kind is HintKind.LOST:
        assert given.move is None and given.every_arrangement and lost == n > 0
        return
    assert given.move in state.legal_moves()
    if given.kind is HintKind.WINNING:
        assert (n, given.verdict) == (0, Verdict.WON)
    elif given.kind is HintKind.WINS_ALL:
        assert won == n > 0
    elif given.kind is HintKind.WINS_MOST:
        assert n / 2 < won < n
    elif given.kind is HintKind.WINS_SOME:
        assert won > 0 and 2 * won <= n
    elif given.kind is HintKind.NO_WIN_FOUND:
        assert won == 0 and lost == n > 0 and not given.every_arrangement
    else:
        assert given.kind is HintKind.BEST_EFFORT and won == 0 and lost < n


def test_each_kind_of_fair_hint_says_what_it_means() -> None:
    """Positions of random games of the four games with hidden cards, a small budget:
    every kind a fair hint can take but LOST turns up, each as its counts say, and each
    timed within the time it took."""
    kinds = set()
    for variant_id in HIDDEN:
        for state in played_positions(variant_id, 8, seed=5):
            started = time.perf_counter()
            given = hint(state, Budget(nodes=NODES, seconds=600))
            assert given.seconds <= time.perf_counter() - started
            check_kind(state, given)
            kinds.add(given.kind)
    assert kinds >= {
        HintKind.WINNING,
        HintKind.WINS_ALL,
        HintKind.WINS_MOST,
        HintKind.WINS_SOME,
        HintKind.NO_WIN_FOUND,
        HintKind.BEST_EFFORT,
    }, kinds


# --- a fair hint's last resorts ---------------------------------------------------------------

# Napoleon at St Helena: no card of the tableau or the waste can come home, whatever is
# moved, until the stock is dealt; every arrangement is undecided after a few thousand
# positions, and their searches rate the move from the waste to t10 the most promising.
NOTHING_HOME_WITHOUT_A_DEAL = (
    "napoleon-at-st-helena t:6D7C6CKC/KS9S2D4S/AHAD9DQH/AH5C3DTC9C/5S3C/5S2C5D/TSKH5H5H/"
    "KHQD9H3H/QS6SADQSJS/AS2C8S8D f:-/AC/-/-/-/-/-/- s:JD6H5C9CJH3HQC2D8S6C2H8CJD8DAS7C4D"
    "4C9D9SAC7H4S7S3STDJHJC3S2HQCTHKSTCKC3C5D8HJS2SKDJCTH6D8C7S7HTSTDQH4D8HKD6HQD9H "
    "w:4C3D7D6S4H2S4H7D n:0 m:11 d:20787137877808592492/103"
)


def test_best_effort_deals_when_no_card_comes_home_without_a_deal() -> None:
    """The search without hidden cards proves that nothing comes home without dealing,
    and no arrangement is decided: the hint is to deal, though the undecided searches
    would rather move a card first."""
    state = patience.parse_state(NOTHING_HOME_WITHOUT_A_DEAL)
    plain = without_hidden(state)
    found = solve(plain.state, Budget(nodes=NODES // 4, seconds=600), policy=plain.policy)
    assert (found.verdict, found.promising_move) == (Verdict.LOST, None)
    first = arrangements(state).items[0]
    undecided = solve(first.state, Budget(nodes=NODES, seconds=600), policy=first.policy)
    assert undecided.verdict is Verdict.UNKNOWN
    assert undecided.best_first_move == Move.transfer("waste", "t10")
    given = hint(state, Budget(nodes=NODES, seconds=600))
    assert (given.kind, given.move, given.winning, given.lost) == (
        HintKind.BEST_EFFORT,
        Move.deal(),
        0,
        0,
    )
    assert given.arrangements == SAMPLES


def test_an_open_hint_without_a_promising_line_gives_the_first_legal_move() -> None:
    """Usk's deal 46, stopped at the search's first look: no line brought a card home
    yet, so the search has no move to offer, and the hint gives the first legal move."""
    state = patience.get_variant("usk").new_game(46)
    budget = Budget(nodes=100_000, seconds=600)
    searched = solve(state, budget, stop=lambda: True)
    assert (searched.verdict, searched.best_first_move) == (Verdict.UNKNOWN, None)
    given = hint(state, budget, stop=lambda: True)
    assert (given.kind, given.move) == (HintKind.BEST_EFFORT, state.legal_moves()[0])


# The House in the Wood's deal 8 after its first redeal: without the shuffles to come,
# sending the ace of clubs home from t1 is the most promising move; in one arrangement a
# search of its own finds another winning move first.
LEAD_WINS_EVERYWHERE = (
    "house-in-the-wood t:7H7HAC/QH4C6D/TDTH8S/9D5CTH/5SAD7S/TS2S2C/9S5CJS/5D2H6H/KS6C5S/"
    "8S4S5D/2D2C8C/6CJC4S/TCKCAS/6SJD3D/TCQS4H/KSKH5H/9H6S6D/4H3D9C/QCQDJH/6H3H3C/ADKH7C/"
    "3S4DQS/5HTD7S/9C2DQH/7D9H3C/2SJS8H/3HASQD/3S4CTS/7DAHAC/2H8CKD/KD8D9S/9DKC7C/AHJCJD/"
    "QCJH8D/4D8H f:-/-/-/-/-/-/-/- n:1 m:1 d:8/206"
)


def test_the_leading_move_is_counted_in_every_arrangement_where_it_wins() -> None:
    """The most promising move without hidden cards leads from the first arrangement on,
    tried first at each root: every arrangement it wins in counts for it, though a search
    of one of them on its own would have reported another move first."""
    state = patience.parse_state(LEAD_WINS_EVERYWHERE)
    plain = without_hidden(state)
    budget = Budget(nodes=16_000, seconds=600)
    lead = solve(plain.state, Budget(nodes=4_000, seconds=600), policy=plain.policy)
    assert (lead.verdict, lead.promising_move) == (Verdict.UNKNOWN, Move.transfer("t1", "f1"))
    firsts = []
    for item in arrangements(state).items:
        alone = solve(item.state, budget, policy=item.policy)
        assert alone.verdict is Verdict.WON
        firsts.append(alone.line[0])
    assert any(first != lead.promising_move for first in firsts)
    given = hint(state, budget)
    assert (given.kind, given.move, given.verdict) == (
        HintKind.WINS_ALL,
        lead.promising_move,
        Verdict.UNKNOWN,
    )
    assert (given.arrangements, given.winning, given.lost) == (SAMPLES, SAMPLES, 0)


def test_best_effort_without_a_plain_move_or_a_deal_is_the_undecided_searches_choice() -> None:
    """La Belle Lucie's deal 22: no card comes home in this round whatever is moved (the
    search without the shuffles to come proves it, with no promising line), and there is
    no stock to deal. Stopped at the first look, the one arrangement searched is
    undecided: the hint is the first move of its most promising line, not merely the
    first legal move."""
    state = patience.get_variant("la-belle-lucie").new_game(22)
    plain = without_hidden(state)
    found = solve(plain.state, Budget(nodes=NODES, seconds=600), policy=plain.policy)
    assert (found.verdict, found.promising_move) == (Verdict.LOST, None)
    assert Move.deal() not in state.legal_moves()
    given = hint(state, Budget(nodes=10 * NODES, seconds=600), stop=lambda: True)
    assert (given.kind, given.arrangements, given.winning, given.lost) == (
        HintKind.BEST_EFFORT,
        1,
        0,
        0,
    )
    assert given.move == Move.transfer("t9", "t8") != state.legal_moves()[0]


def test_no_win_found_without_a_plain_move_turns_a_card_up() -> None:
    """Napoleon at St Helena's deal 7 dealt down to twelve cards: nothing comes home
    without a deal (no plain move), and the one arrangement asked for is lost. The hint
    is the deal, not the move that search would try first (a move on the tableau, which
    the next hint could take back)."""
    state = dealt_down(7, 12)
    plain = without_hidden(state)
    found = solve(plain.state, Budget(nodes=NODES // 4, seconds=600), policy=plain.policy)
    assert (found.verdict, found.promising_move) == (Verdict.LOST, None)
    given = hint(state, Budget(nodes=NODES, seconds=600), samples=1)
    assert (given.kind, given.arrangements, given.lost) == (HintKind.NO_WIN_FOUND, 1, 1)
    assert given.move == Move.deal() != state.legal_moves()[0]
    assert given.line == ((given.line[0][0], Move.deal()),)


# --- a fair hint's tallies, on searches whose outcomes are given ----------------------------

Outcome: TypeAlias = frozenset[Move] | Move | None


def scripted(plain_move: Move | None, outcomes: list[Outcome]) -> Callable[..., Result]:
    """A stand-in for the search a fair hint makes (``hints.solve``): the search without
    hidden cards is undecided with ``plain_move`` as its most promising move; then each
    arrangement's search, in turn, wins when its outcome is a set of the moves that win
    it (reporting, as the real search does, the first of them tried at the root), or is
    undecided with the outcome as its most promising move (or none)."""
    calls = 0

    def searched(state: State, budget: Budget, **kwargs: object) -> Result:
        nonlocal calls
        calls += 1
        if calls == 1:
            return Result(Verdict.UNKNOWN, (), 1, 0.0, plain_move, plain_move)
        outcome = outcomes[calls - 2]
        if not isinstance(outcome, frozenset):
            return Result(Verdict.UNKNOWN, (), 1, 0.0, outcome, outcome)
        policy = kwargs["policy"]
        assert isinstance(policy, Policy)
        model = policy.model
        tried = [model.library_move(m) for m in policy.candidates(model.position(state))]
        first = next(m for m in [*tried, *state.legal_moves()] if m in outcome)
        return Result(Verdict.WON, (first,), 1, 0.0, first, first)

    return searched


# Two legal moves at Napoleon at St Helena's deal 7: a move on the tableau, then the deal.
MOVE, DEAL = Move.transfer("t2", "t6"), Move.deal()


def scripted_hint(
    monkeypatch: pytest.MonkeyPatch, plain_move: Move | None, outcomes: list[Outcome]
) -> hints.Hint:
    state = patience.get_variant("napoleon-at-st-helena").new_game(7)
    assert state.legal_moves() == (MOVE, DEAL)
    monkeypatch.setattr(hints, "solve", scripted(plain_move, outcomes))
    return hint(state, Budget(nodes=NODES, seconds=600), samples=len(outcomes))


def test_of_moves_that_win_equally_often_the_plain_move_is_recommended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One arrangement won by the first legal move only, one by the plain move only: one
    win each, and the plain move is the hint, though it comes later in the legal moves."""
    given = scripted_hint(monkeypatch, DEAL, [frozenset({MOVE}), frozenset({DEAL})])
    assert (given.kind, given.move, given.winning, given.arrangements) == (
        HintKind.WINS_SOME,
        DEAL,
        1,
        2,
    )


def test_of_moves_tied_for_the_lead_the_plain_move_is_tried_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After one win each, the plain move leads: the third arrangement, won by either,
    is searched with it first and counts for it."""
    outcomes: list[Outcome] = [frozenset({MOVE}), frozenset({DEAL}), frozenset({MOVE, DEAL})]
    given = scripted_hint(monkeypatch, DEAL, outcomes)
    assert (given.kind, given.move, given.winning) == (HintKind.WINS_MOST, DEAL, 2)


def test_undecided_searches_recommend_the_move_most_of_them_rate_best(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No plain move and nothing decided: the move most of the searches found most
    promising (five of eight), not the first legal move."""
    given = scripted_hint(monkeypatch, None, [MOVE, MOVE, MOVE, DEAL, DEAL, DEAL, DEAL, DEAL])
    assert (given.kind, given.move, given.winning, given.lost) == (HintKind.BEST_EFFORT, DEAL, 0, 0)


def test_undecided_searches_with_no_promising_move_turn_a_card_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing promising anywhere: the deal, not the first legal move (a move on the
    tableau, which the next hint could take back)."""
    given = scripted_hint(monkeypatch, None, [None, None, None])
    assert (given.kind, given.move, given.arrangements) == (HintKind.BEST_EFFORT, DEAL, 3)
