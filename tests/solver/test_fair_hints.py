"""Fair hints: where a position hides cards, the hint (its kind, move, verdict, counts)
and the outlook the player is given are the same whatever the hidden cards are, for the
same seen position; LOST only when every arrangement of the hidden cards is lost; open
positions keep the exact hint.

Every budget here is in positions only (the seconds never run out), so a hint is the
same search on any machine, however loaded."""

from __future__ import annotations

import random

import patience
import pytest
from patience import Move, State
from patience.solver import Budget, Hint, HintKind, Verdict, hides_cards, hint, outlook, solve
from patience.solver.model import Model
from patience.solver.unseen import SAMPLES, arrangements, seen_key, unseen_cards
from patience.variant import rules_of

from tests.oracle import position

HIDDEN = ("napoleon-at-st-helena", "la-belle-lucie", "house-in-the-wood", "house-on-the-hill")
OPEN = ("bisley", "cody", "little-billee", "usk", "the-fifteen")
BUDGET = Budget(nodes=2_000, seconds=600)
HEARTS_BLOCKED = {"t1": "2H KH", "t2": "QH JH TH 9H 8H 7H 6H 5H 4H 3H"}

# Napoleon at St Helena with two cards in the stock (notation): won with full knowledge
# when the two of diamonds is on top (as here), lost when the nine of spades is.
TWO_LEFT = (
    "napoleon-at-st-helena t:8H/2HQSJH/3H/3C/9CKD6DQDJDTD9D8D7D/5C8HQCJHTH9H/TD4S4SKSQS/"
    "TH5SKCTS9S8S7S6S5S/2CKH/KDQD f:QC/AC/3S/AS/6H/AH/4D/AD s:9S2D "
    "w:9DJS8D7H9HKS2S7SKC6S6CKHQHJD7C8CJS7DTSTC7H6HQH8S3S4H5D5D4C4D6DJC5H3D n:0 m:122 d:72/103"
)


def dealt_down(deal: int, left: int) -> State:
    """Napoleon at St Helena's ``deal``, dealt until ``left`` cards are in the stock."""
    state = patience.get_variant("napoleon-at-st-helena").new_game(deal)
    while state.stock_size > left:
        state = state.apply(Move.deal())
    return state


def told(given: Hint) -> tuple[object, ...]:
    """What a hint tells, less the time it took."""
    return (
        given.kind,
        given.move,
        given.verdict,
        given.nodes,
        given.arrangements,
        given.winning,
        given.lost,
        given.every_arrangement,
    )


def rearranged(state: State, rng: random.Random) -> State:
    """The same seen position with the hidden part changed: the stock's cards in another
    order, another deal number (whose generator makes the shuffles of later redeals)."""
    rules = rules_of(state)
    piles = list(state.piles)
    if rules.stock >= 0:
        stock = list(piles[rules.stock])
        rng.shuffle(stock)
        piles[rules.stock] = tuple(stock)
    return State.from_parts(
        state.variant,
        tuple(piles),
        options=tuple(state.options),
        redeals_left=state.redeals_left,
        moves_made=state.moves_made,
        deal=rng.randrange(10**16, 10**20),
        draws=state.draws,
    )


def played_positions(variant_id: str, count: int, seed: int) -> list[State]:
    """``count`` positions that hide cards, from random deals by seeded random play
    (deals and redeals favoured, so that stocks run low and rounds pass)."""
    rng = random.Random(seed)
    variant = patience.get_variant(variant_id)
    found: list[State] = []
    while len(found) < count:
        state = variant.new_game(rng.randrange(10**16, 10**20))
        for _ in range(rng.randrange(0, 160)):
            legal = state.legal_moves()
            if not legal:
                break
            others = [m for m in legal if m.kind.name in ("DEAL", "REDEAL")]
            state = state.apply(rng.choice(others if others and rng.random() < 0.3 else legal))
        if state.legal_moves() and hides_cards(state):
            found.append(state)
    return found


@pytest.mark.parametrize("variant_id", HIDDEN)
def test_a_fair_hint_is_the_same_whatever_the_hidden_cards(variant_id: str) -> None:
    rng = random.Random(variant_id)
    for state in played_positions(variant_id, 6, seed=len(variant_id)):
        given = hint(state, BUDGET)
        # no arrangement searched only when a line that turns up no hidden card wins
        assert given.arrangements > 0 or (given.kind, given.verdict) == (
            HintKind.WINNING,
            Verdict.WON,
        )
        assert given.move is None or given.move in state.legal_moves()
        assert given.kind is not HintKind.LOST or given.every_arrangement
        view = outlook(state)
        for _ in range(2):
            other = rearranged(state, rng)
            assert seen_key(other) == seen_key(state)
            assert told(hint(other, BUDGET)) == told(given), state.to_notation()
            assert outlook(other) is view


@pytest.mark.parametrize("variant_id", HIDDEN)
def test_the_arrangements_come_from_the_seen_position(variant_id: str) -> None:
    """The arrangements searched are the same states for two states that look alike,
    and each is a state with the same cards in sight."""
    rng = random.Random(1)
    state = played_positions(variant_id, 1, seed=7)[0]
    made = arrangements(state)
    again = arrangements(rearranged(state, rng))
    assert [a.state for a in made.items] == [a.state for a in again.items]
    assert len(made.items) == SAMPLES or made.every
    rules = rules_of(state)
    for item in made.items:
        assert seen_key(item.state) == seen_key(state)
        if rules.stock >= 0:
            assert sorted(item.state.piles[rules.stock]) == sorted(state.piles[rules.stock])
            seen = Model(rules).position(item.state)
            assert unseen_cards(rules, seen) == sorted(state.piles[rules.stock])


def test_a_stock_whose_order_decides_gets_one_hint() -> None:
    """Two cards in the stock: the clairvoyant search (Solve) finds one order won and the
    other lost; the hint, which searches both orders, is the same for either and says
    the move wins in one of the two, without a verdict."""
    won = patience.parse_state(TWO_LEFT)
    lost = patience.parse_state(TWO_LEFT.replace("s:9S2D", "s:2D9S"))
    assert solve(won, BUDGET).verdict is Verdict.WON
    assert solve(lost, Budget(nodes=20_000, seconds=600)).verdict is Verdict.LOST
    budget = Budget(nodes=20_000, seconds=600)
    given = hint(won, budget)
    assert told(hint(lost, budget)) == told(given)
    assert (given.kind, given.verdict) == (HintKind.WINS_SOME, Verdict.UNKNOWN)
    assert (given.arrangements, given.winning, given.lost, given.every_arrangement) == (
        2,
        1,
        1,
        True,
    )
    assert given.move in won.legal_moves()


def test_lost_when_every_arrangement_is_lost() -> None:
    """A stock of two cards whose every order is lost: every arrangement searched, so
    the hint may say LOST (and the player's outlook becomes lost)."""
    state = dealt_down(1, 2)
    given = hint(state, BUDGET)
    assert (given.kind, given.move, given.verdict) == (HintKind.LOST, None, Verdict.LOST)
    assert (given.arrangements, given.lost, given.every_arrangement) == (2, 2, True)
    # with more cards unseen the orders are sampled: however hopeless, not LOST
    state = dealt_down(1, 9)
    given = hint(state, BUDGET)
    assert given.kind is not HintKind.LOST and given.verdict is Verdict.UNKNOWN
    assert not given.every_arrangement and given.arrangements == SAMPLES
    if given.kind is HintKind.NO_WIN_FOUND:
        assert given.lost == SAMPLES and given.move in state.legal_moves()


@pytest.mark.parametrize("deal", [1, 40_000, 10**17])
def test_a_win_that_needs_no_hidden_card_is_proven(deal: int) -> None:
    """La Belle Lucie with a redeal left, won without it: the hint proves the win
    (WINNING, verdict WON), whatever the shuffle to come, and searches no arrangement."""
    state = position("la-belle-lucie", t={"t1": "KH", "t2": "QH"}, n=1, deal=deal, dump=None)
    assert hides_cards(state)
    given = hint(state, BUDGET)
    assert (given.kind, given.verdict, str(given.move)) == (HintKind.WINNING, Verdict.WON, "t2-f3")
    assert given.arrangements == 0


@pytest.mark.parametrize("deal", [1, 2, 40_000, 10**17])
def test_a_redeal_to_come_is_never_lost_from_one_shuffle(deal: int) -> None:
    """La Belle Lucie with a redeal left and a king of hearts on its two: whether the
    shuffle to come frees the two depends on the generator, which the player does not
    know. The clairvoyant search answers for this generator; the hint, never LOST, is the
    same whatever the generator."""
    state = position(
        "la-belle-lucie",
        t={**HEARTS_BLOCKED, "t3": "5S", "t4": "4S", "t5": "KS QS JS TS 9S 8S 7S 6S"},
        f={"f2": "3S", "f3": "AH"},
        n=1,
        deal=deal,
        dump=None,
    )
    assert hides_cards(state)
    given = hint(state, BUDGET)
    assert given.kind is not HintKind.LOST and given.verdict is Verdict.UNKNOWN
    baseline = position(
        "la-belle-lucie",
        t={**HEARTS_BLOCKED, "t3": "5S", "t4": "4S", "t5": "KS QS JS TS 9S 8S 7S 6S"},
        f={"f2": "3S", "f3": "AH"},
        n=1,
        deal=3,
        dump=None,
    )
    assert told(given) == told(hint(baseline, BUDGET))


@pytest.mark.parametrize("variant_id", OPEN)
def test_open_games_keep_the_exact_hint(variant_id: str) -> None:
    """Nothing hidden: the hint is the exact search's answer, with no arrangements."""
    rng = random.Random(variant_id)
    variant = patience.get_variant(variant_id)
    for _ in range(3):
        state = variant.new_game(rng.randrange(10**16, 10**20))
        assert not hides_cards(state)
        _assert_exact(state)


def test_hidden_card_games_are_exact_once_nothing_is_hidden() -> None:
    """Napoleon at St Helena with its stock dealt out, La Belle Lucie with no redeal
    left: nothing is hidden any more, and the hint is the exact one (LOST included)."""
    state = dealt_down(3, 0)
    assert not hides_cards(state)
    _assert_exact(state)
    lucie = position(
        "la-belle-lucie",
        t={**HEARTS_BLOCKED, "t3": "5S", "t4": "4S", "t5": "KS QS JS TS 9S 8S 7S 6S"},
        f={"f2": "3S", "f3": "AH"},
        n=0,
        dump=None,
    )
    assert not hides_cards(lucie)
    assert _assert_exact(lucie).kind is HintKind.LOST


def _assert_exact(state: State) -> Hint:
    given = hint(state, BUDGET)
    result = solve(state, BUDGET)
    assert given.arrangements == 0 and not given.every_arrangement
    assert (given.verdict, given.nodes) == (result.verdict, result.nodes)
    if result.verdict is Verdict.LOST:
        assert (given.kind, given.move) == (HintKind.LOST, None)
    elif result.verdict is Verdict.WON:
        assert (given.kind, given.move) == (HintKind.WINNING, result.line[0])
    else:
        assert given.kind is HintKind.BEST_EFFORT
        assert given.move == (result.best_first_move or state.legal_moves()[0])
    return given
