"""The Fifteen: two packs in fifteen columns (fourteen of 7, one of 6), up or down in suit,
an empty column takes any available card, an ace and a king foundation of each suit, and
the opening `withdraw` from the sixth row."""

from __future__ import annotations

from collections import Counter
from functools import partial

import patience
import pytest
from patience import CardMoved, MoveKind, Status

from tests.oracle import (
    SHAPES,
    assert_applies,
    assert_rejected,
    card,
    cards,
    changed,
    expected_deal,
    foundation_run,
    full_pack,
    legal_texts,
    names,
    new_game_as_dealt,
    pile_ids,
    piles_by_id,
    position,
    rank_of,
)

V = "the-fifteen"
TABLEAU = pile_ids("t", 15)
FOUNDATIONS = pile_ids("f", 8)  # f1..f4 up C S H D, f5..f8 down C S H D
pos = partial(position, V)


def is_ace_or_king(code: int) -> bool:
    return rank_of(code) in (1, 13)


def expected_withdraws(piles: dict[str, tuple[int, ...]]) -> set[str]:
    """RULES.md: while no foundation is started and no available card is an ace or a king,
    withdraw an ace, a king, or one of each from the sixth row (not a column's top)."""
    if any(piles[f] for f in FOUNDATIONS):
        return set()
    if any(piles[t] and is_ace_or_king(piles[t][-1]) for t in TABLEAU):
        return set()
    found = [t for t in TABLEAU if len(piles[t]) > 6 and is_ace_or_king(piles[t][5])]
    singles = {f"withdraw {t}" for t in found}
    pairs = {
        f"withdraw {a} {b}"
        for i, a in enumerate(found)
        for b in found[i + 1 :]
        if {rank_of(piles[a][5]), rank_of(piles[b][5])} == {1, 13}
    }
    return singles | pairs


def withdraw_texts(state: patience.State) -> set[str]:
    return {str(m) for m in state.legal_moves() if m.kind is MoveKind.WITHDRAW}


def opening(
    sixth: dict[str, str] | None = None,
    tops: dict[str, str] | None = None,
    sizes: dict[str, int] | None = None,
    f: dict[str, str] | None = None,
) -> patience.State:
    """An opening-like position: the named cards in the sixth row and on top, every other
    ace and king buried in the first five rows below a column's top, the rest filled in."""
    size = {t: 7 for t in TABLEAU[:14]} | {"t15": 6} | (sizes or {})
    founds = {fid: "-" for fid in FOUNDATIONS} | (f or {})
    pool = Counter(full_pack(2))
    for i, (suit, direction) in enumerate(SHAPES[V].foundations):
        top = founds[f"f{i + 1}"]
        rank = 0 if top == "-" else "A23456789TJQK".index(top[0]) + 1
        pool.subtract(foundation_run(suit, direction, rank))
    grid: dict[str, list[int | None]] = {t: [None] * size[t] for t in TABLEAU}
    for where, index in ((sixth or {}, 5), (tops or {}, -1)):
        for t, text in where.items():
            grid[t][index] = card(text)
            pool[card(text)] -= 1
    assert min(pool.values()) >= 0
    aces_kings = sorted(c for c in pool.elements() if is_ace_or_king(c))
    middles = sorted(c for c in pool.elements() if not is_ace_or_king(c))
    for t in TABLEAU:
        for i in range(min(5, size[t] - 1)):
            if grid[t][i] is None and aces_kings:
                grid[t][i] = aces_kings.pop()
    assert not aces_kings
    for t in TABLEAU:
        for i, slot in enumerate(grid[t]):
            if slot is None:
                grid[t][i] = middles.pop()
    assert not middles
    layout = {t: names(c for c in grid[t] if c is not None) for t in TABLEAU}
    return pos(t=layout, f=founds, fill=False, dump=None, m=0)


def assert_withdraw_events(
    before: patience.State, events: tuple[CardMoved, ...], withdrawn: set[CardMoved]
) -> None:
    """The withdrawn cards' moves, and the closing up of their columns: every card above a
    withdrawn one, one place down in its own column (a client animates each)."""
    closing_up = {
        CardMoved(cards[i], event.source, i, event.source, i - 1)
        for event in withdrawn
        for cards in [before.pile(event.source)]
        for i in range(event.source_index + 1, len(cards))
    }
    assert closing_up  # each column has a card above its sixth
    assert len(events) == len(withdrawn | closing_up)
    assert set(events) == withdrawn | closing_up


# --- the deal -------------------------------------------------------------------------


@pytest.mark.parametrize("deal", [0, 1, 15, 168, 31999, 32000, 2**40, 10**20])
def test_deal_matches_rules(deal: int) -> None:
    state = new_game_as_dealt(V, deal)
    assert [len(state.pile(t)) for t in TABLEAU] == [7] * 14 + [6]
    assert (state.draws, state.redeals_left, state.moves_made) == (103, 0, 0)
    assert (state.foundation_cards, state.total_cards) == (0, 104)
    assert withdraw_texts(state) == expected_withdraws(piles_by_id(state))


def test_deal_168_plays_on_without_an_ace_or_king_to_withdraw() -> None:
    """No ace or king on top, none in the sixth row below a top: not stuck for that alone.
    Building is legal from the deal, and only the withdraw is refused."""
    piles = expected_deal(V, 168)
    assert not any(is_ace_or_king(piles[t][-1]) for t in TABLEAU)
    assert not any(len(piles[t]) > 6 and is_ace_or_king(piles[t][5]) for t in TABLEAU)
    state = patience.get_variant(V).new_game(168)
    assert state.status is Status.PLAYING
    assert legal_texts(state) == {"t4-t8", "t5-t12", "t8-t4", "t11-t15", "t12-t5", "t15-t11"}
    for column in ("t1", "t4", "t15"):
        assert_rejected(state, f"withdraw {column}", "withdraw_bad_card")
    after = assert_applies(state, "t4-t8")
    assert changed(state, after) == {
        "t4": names(piles["t4"][:-1]),
        "t8": names(piles["t8"] + piles["t4"][-1:]),
    }


def test_deal_308627686_builds_before_any_foundation_to_free_an_ace() -> None:
    """RULES.md's example: five building moves from the deal uncover the ace of spades."""
    state = patience.get_variant(V).new_game(308627686)
    tops = [state.pile(t)[-1] for t in TABLEAU]
    assert not any(is_ace_or_king(top) for top in tops)
    assert withdraw_texts(state) == set() and state.status is Status.PLAYING
    for move in ("t15-t11", "t13-t5", "t14-t13", "t9-t12", "t9-t7"):
        assert state.foundation_cards == 0
        state = assert_applies(state, move)
    assert names(state.pile("t9")[-1:]) == "AS"
    assert_rejected(state, "withdraw t1", "withdraw_not_allowed")  # an ace is available
    after = assert_applies(state, "t9-f2")
    assert changed(state, after) == {"t9": names(state.pile("t9")[:-1]), "f2": "AS"}
    assert after.status is Status.PLAYING
    assert_rejected(after, "withdraw t1", "withdraw_not_allowed")  # a foundation is started


def test_deal_15_offers_one_ace_and_three_kings() -> None:
    state = patience.get_variant(V).new_game(15)
    assert withdraw_texts(state) == {
        "withdraw t2",
        "withdraw t3",
        "withdraw t6",
        "withdraw t14",
        "withdraw t2 t6",
        "withdraw t3 t6",
        "withdraw t6 t14",
    }
    assert_rejected(state, "withdraw t2 t3", "withdraw_bad_card")  # two kings
    after = assert_applies(state, "withdraw t6 t14")
    assert names(after.pile("f4")) == "AD" and names(after.pile("f8")) == "KD"


# --- the withdraw --------------------------------------------------------------------


def test_withdraw_an_ace_closes_up_the_column() -> None:
    state = opening(sixth={"t5": "AH"})
    assert state.status is Status.PLAYING
    assert withdraw_texts(state) == {"withdraw t5"}
    before = state.pile("t5")
    after, events = state.apply_with_events(patience.Move.parse("withdraw t5"))
    assert after == state.apply(patience.Move.withdraw("t5"))
    assert after.pile("f3") == cards("AH")
    assert after.pile("t5") == before[:5] + before[6:]
    assert changed(state, after).keys() == {"t5", "f3"}
    assert (after.moves_made, after.foundation_cards) == (1, 1)
    assert_withdraw_events(state, events, {CardMoved(card("AH"), "t5", 5, "f3", 0)})


def test_withdraw_an_ace_and_a_king_in_one_move() -> None:
    state = opening(sixth={"t5": "AH", "t9": "KS"})
    assert withdraw_texts(state) == {"withdraw t5", "withdraw t9", "withdraw t5 t9"}
    t5, t9 = state.pile("t5"), state.pile("t9")
    after, events = state.apply_with_events(patience.Move.parse("withdraw t5 t9"))
    assert after.pile("f3") == cards("AH") and after.pile("f6") == cards("KS")
    assert after.pile("t5") == t5[:5] + t5[6:] and after.pile("t9") == t9[:5] + t9[6:]
    assert changed(state, after).keys() == {"t5", "t9", "f3", "f6"}
    assert (after.moves_made, after.foundation_cards) == (1, 2)
    assert_withdraw_events(
        state,
        events,
        {CardMoved(card("AH"), "t5", 5, "f3", 0), CardMoved(card("KS"), "t9", 5, "f6", 0)},
    )


def test_withdraw_a_king_goes_to_its_down_foundation() -> None:
    state = opening(sixth={"t2": "KC"})
    after = assert_applies(state, "withdraw t2")
    assert after.pile("f5") == cards("KC") and not after.pile("f1")


@pytest.mark.parametrize(
    ("sixth", "move"),
    [
        ({"t5": "AH", "t9": "AS"}, "withdraw t5 t9"),  # two aces
        ({"t5": "AH", "t9": "AH"}, "withdraw t5 t9"),  # the two aces of hearts
        ({"t5": "KH", "t9": "KS"}, "withdraw t5 t9"),  # two kings
        ({"t5": "AH"}, "withdraw t1"),  # the sixth card is no ace or king
        ({"t5": "AH"}, "withdraw t1 t5"),
        ({"t5": "AH"}, "withdraw t15"),  # t15's sixth card is its top card
    ],
)
def test_withdraw_bad_card(sixth: dict[str, str], move: str) -> None:
    state = opening(sixth=sixth)
    assert state.status is Status.PLAYING
    assert_rejected(state, move, "withdraw_bad_card")


@pytest.mark.parametrize("columns", [(), ("t5", "t5"), ("t2", "t5", "t9")])
def test_withdraw_of_no_column_one_twice_or_three(columns: tuple[str, ...]) -> None:
    """Moves the notation cannot write, but a Move (or a gRPC client) can carry."""
    state = opening(sixth={"t2": "KC", "t5": "AH", "t9": "KS"})
    assert_rejected(state, patience.Move.withdraw(*columns), "withdraw_bad_card")


def test_withdraw_from_a_column_without_a_sixth_card() -> None:
    state = opening(sixth={"t5": "AH"}, sizes={"t3": 5, "t15": 8})
    assert_rejected(state, "withdraw t3", "withdraw_bad_card")


def test_withdraw_of_a_top_card() -> None:
    """An ace that is the column's sixth and top card is available, so no withdraw."""
    state = opening(sixth={"t5": "AH"}, sizes={"t3": 6, "t15": 7}, tops={"t3": "AD"})
    assert_rejected(state, "withdraw t3", {"withdraw_bad_card", "withdraw_not_allowed"})
    assert withdraw_texts(state) == set()


@pytest.mark.parametrize("top", ["AC", "KD"])
def test_withdraw_not_allowed_with_an_ace_or_king_available(top: str) -> None:
    state = opening(sixth={"t5": "AH"}, tops={"t7": top})
    assert_rejected(state, "withdraw t5", "withdraw_not_allowed")
    assert withdraw_texts(state) == set()
    assert state.status is Status.PLAYING


def test_withdraw_not_allowed_once_a_foundation_is_started() -> None:
    state = opening(sixth={"t5": "AH"}, f={"f1": "AC"}, sizes={"t15": 5})
    assert_rejected(state, "withdraw t5", "withdraw_not_allowed")
    assert withdraw_texts(state) == set()


def test_withdraw_only_once() -> None:
    state = opening(sixth={"t5": "AH", "t9": "AS"})
    after = assert_applies(state, "withdraw t5")
    assert_rejected(after, "withdraw t9", "withdraw_not_allowed")
    assert withdraw_texts(after) == set()


def test_withdraw_of_an_unknown_column() -> None:
    assert_rejected(opening(sixth={"t5": "AH"}), "withdraw t16", "unknown_pile")


def test_no_ace_or_king_to_withdraw_is_not_stuck() -> None:
    """Nothing to withdraw, nothing founded, no ace or king on top: the columns still build,
    and each move is refused only for the rule it breaks."""
    state = opening(tops={"t1": "5H", "t2": "6H", "t3": "9C"})
    assert withdraw_texts(state) == set()
    assert state.status is Status.PLAYING
    assert {"t1-t2", "t2-t1"} <= legal_texts(state)
    for move, rule in (
        ("withdraw t1", "withdraw_bad_card"),
        ("withdraw t3", "withdraw_bad_card"),
        ("t1-t3", "wrong_suit"),
        ("t3-t2", "wrong_suit"),
        ("t1-f3", "wrong_rank"),
        ("t2-f7", "wrong_rank"),
        ("deal", "no_stock"),
        ("redeal", "no_redeal"),
    ):
        assert_rejected(state, move, rule)
    after = assert_applies(state, "t1-t2")
    assert after.status is Status.PLAYING and after.foundation_cards == 0


def test_no_ace_or_king_and_no_move_at_all_is_stuck() -> None:
    """Stuck as in every game: only when no move at all is legal. Fifteen tops, no two of a
    suit one rank apart, none an ace or a king, and nothing in the sixth row to withdraw."""
    tops = [
        "2C",
        "4C",
        "6C",
        "8C",
        "2S",
        "4S",
        "6S",
        "8S",
        "2H",
        "4H",
        "6H",
        "8H",
        "2D",
        "4D",
        "6D",
    ]
    state = opening(tops={t: top for t, top in zip(TABLEAU, tops, strict=True)})
    assert state.status is Status.STUCK and state.legal_moves() == ()
    for move, rule in (
        ("t1-t2", "wrong_rank"),  # 2C on 4C
        ("t1-t5", "wrong_suit"),
        ("t1-f1", "wrong_rank"),
        ("withdraw t1", "withdraw_bad_card"),
        ("withdraw t1 t2", "withdraw_bad_card"),
    ):
        assert_rejected(state, move, rule)


def test_building_first_then_withdrawing() -> None:
    """The withdraw stays open while play builds, as long as nothing is founded and no ace
    or king comes to the top."""
    state = opening(sixth={"t5": "AH"}, tops={"t1": "5H", "t2": "6H"})
    built = assert_applies(state, "t1-t2")
    assert withdraw_texts(built) == {"withdraw t5"}
    after = assert_applies(built, "withdraw t5")
    assert after.pile("f3") == cards("AH")


def test_play_goes_on_after_the_withdraw() -> None:
    state = opening(sixth={"t5": "AH"}, tops={"t1": "5H", "t2": "6H"})
    after = assert_applies(state, "withdraw t5")
    assert after.status is Status.PLAYING
    assert "t1-t2" in legal_texts(after)
    assert_applies(after, "t1-t2")


# --- ordinary moves -------------------------------------------------------------------

BASE = dict(
    t={
        "t1": "9S 5H",
        "t2": "6H",
        "t3": "4H",
        "t4": "5H",
        "t5": "",
        "t6": "6S",
        "t7": "8H",
        "t8": "8C",
        "t9": "5C",
        "t10": "KH",
        "t11": "AH",
        "t12": "AS",
    },
    f={"f1": "4C", "f2": "-", "f3": "-", "f5": "6C", "f6": "-", "f7": "-"},
)


@pytest.fixture
def base() -> patience.State:
    return pos(**BASE)


@pytest.mark.parametrize(
    ("move", "effect"),
    [
        ("t1-t2", {"t1": "9S", "t2": "6H5H"}),  # down
        ("t1-t3", {"t1": "9S", "t3": "4H5H"}),  # up
        ("t1-t5", {"t1": "9S", "t5": "5H"}),  # any card to an empty column
        ("t7-t5", {"t7": "-", "t5": "8H"}),
        ("t9-f1", {"t9": "-", "f1": "AC2C3C4C5C"}),  # 5C fits both clubs foundations
        ("t9-f5", {"t9": "-", "f5": "KCQCJCTC9C8C7C6C5C"}),
        ("t10-f7", {"t10": "-", "f7": "KH"}),
        ("t11-f3", {"t11": "-", "f3": "AH"}),
        ("t12-f2", {"t12": "-", "f2": "AS"}),
    ],
)
def test_legal_moves(base: patience.State, move: str, effect: dict[str, str]) -> None:
    after = assert_applies(base, move)
    assert changed(base, after) == effect


@pytest.mark.parametrize(
    ("move", "rule"),
    [
        ("t1-t4", "wrong_rank"),  # 5H on the other 5H
        ("t1-t7", "wrong_rank"),  # 5H on 8H
        ("t1-t6", "wrong_suit"),  # 5H on 6S
        ("t10-t11", "wrong_rank"),  # KH on AH: no wrap
        ("t11-t10", "wrong_rank"),
        ("t8-f1", "wrong_rank"),  # 8C on 4C
        ("t8-f5", "wrong_rank"),  # 8C on 6C
        ("t1-f1", "wrong_suit"),  # 5H on 4C
        ("t10-f3", "wrong_rank"),  # KH on an empty up-foundation
        ("t11-f7", "wrong_rank"),  # AH on an empty down-foundation
        ("t12-f3", "wrong_suit"),  # AS on the empty hearts foundation
        ("t10-f6", "wrong_suit"),  # KH on the empty spades down-foundation
        ("t1-t2/2", "too_many_cards"),
        ("t5-t1", "empty_source"),
        ("f1-t5", "not_a_source"),
        ("t1-t1", "same_pile"),
        ("t1-t16", "unknown_pile"),
        ("t1-f9", "unknown_pile"),
        ("t1-r1", "unknown_pile"),
        ("t1-stock", "unknown_pile"),
        ("deal", "no_stock"),
        ("redeal", "no_redeal"),
    ],
)
def test_illegal_moves(base: patience.State, move: str, rule: str) -> None:
    assert_rejected(base, move, rule)


# --- status ----------------------------------------------------------------------------


def test_won_game_takes_no_move() -> None:
    state = pos()
    assert state.status is Status.WON and state.legal_moves() == ()
    assert state.foundation_cards == 104
    assert_rejected(state, "t1-t2", "game_over")


def test_stuck_in_play() -> None:
    """Every column's top card is blocked: same rank or two apart from the other tops of
    its suit, and neither 4 (the up-foundations' next) nor 10 (the down-foundations')."""
    found = {"f2": "3S", "f3": "3H", "f6": "JS", "f7": "JH"}
    left = Counter(
        c
        for suit in (1, 2)
        for c in [suit * 13 + r for r in range(13)] + [suit * 13 + r for r in range(3, 10)]
    )
    tops = cards("AH 3H 6H 6H 8H 8H JH KH AS 3S 6S 6S 8S 8S JS")
    under = left - Counter(tops)
    layout = {t: names([top]) for t, top in zip(TABLEAU, tops, strict=True)}
    layout["t1"] = names([*under.elements(), tops[0]])
    state = pos(t=layout, f=found, dump=None)
    assert state.status is Status.STUCK and state.legal_moves() == ()
    assert_rejected(state, "t3-t4", {"game_over", "wrong_rank"})
    # a 4H brought to the top of t1 goes to its foundation: playing again
    buried = list(under.elements())
    buried.remove(card("4H"))
    playing = pos(t=layout | {"t1": names([*buried, tops[0], card("4H")])}, f=found, dump=None)
    assert playing.status is Status.PLAYING and "t1-f3" in legal_texts(playing)
