"""State validation: every InvalidState reason, from `from_parts` and from the notation;
new-game arguments (deal numbers, options, variant names)."""

from __future__ import annotations

from collections.abc import Callable

import patience
import pytest
from patience import InvalidState, State, validation

from tests.oracle import SHAPES, cards, position

VARIANT_IDS = list(patience.VARIANTS)

Piles = list[tuple[int, ...]]


def rebuild(
    state: State, change: Callable[[dict[str, tuple[int, ...]]], None], **counters: int
) -> State:
    """`from_parts` of a state with its piles changed by `change` and counters overridden."""
    piles = dict(zip(state.variant.pile_ids, state.piles, strict=True))
    change(piles)
    fields = {
        "redeals_left": state.redeals_left,
        "moves_made": state.moves_made,
        "deal": state.deal,
        "draws": state.draws,
    } | counters
    return State.from_parts(
        state.variant,
        tuple(piles[p] for p in state.variant.pile_ids),
        options=state.options,
        **fields,
    )


def reason_of(build: Callable[[], object]) -> str:
    with pytest.raises(InvalidState) as info:
        build()
    assert str(info.value) and info.value.code
    assert isinstance(info.value, patience.PatienceError)
    return str(info.value.reason)


def new(variant_id: str, deal: int = 11) -> State:
    return patience.get_variant(variant_id).new_game(deal)


# --- WRONG_PILE_COUNT -------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_wrong_pile_count(variant_id: str) -> None:
    state = new(variant_id)
    kw = dict(redeals_left=state.redeals_left, moves_made=0, deal=11, draws=state.draws)
    fewer = state.piles[:-1]
    more = (*state.piles, ())
    for piles in (fewer, more):

        def build(piles: tuple[tuple[int, ...], ...] = piles) -> State:
            return State.from_parts(state.variant, piles, **kw)

        assert reason_of(build) == "WRONG_PILE_COUNT"


def test_wrong_pile_count_in_notation() -> None:
    text = str(new("la-belle-lucie", 1))
    with pytest.raises((InvalidState, patience.NotationError)) as info:
        patience.parse_state(text.replace("/6H ", "/6H/- "))
    if isinstance(info.value, InvalidState):
        assert info.value.reason == "WRONG_PILE_COUNT"


# --- WRONG_CARDS ------------------------------------------------------------------------


def _drop_top(pile_id: str) -> Callable[[dict[str, tuple[int, ...]]], None]:
    def change(piles: dict[str, tuple[int, ...]]) -> None:
        piles[pile_id] = piles[pile_id][:-1]

    return change


def _add(pile_id: str, *codes: int) -> Callable[[dict[str, tuple[int, ...]]], None]:
    def change(piles: dict[str, tuple[int, ...]]) -> None:
        piles[pile_id] = piles[pile_id] + codes

    return change


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_missing_card(variant_id: str) -> None:
    assert reason_of(lambda: rebuild(new(variant_id), _drop_top("t1"))) == "WRONG_CARDS"


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_card_too_many_times(variant_id: str) -> None:
    state = new(variant_id)
    top = state.pile("t1")[-1]
    assert reason_of(lambda: rebuild(state, _add("t2", top))) == "WRONG_CARDS"


@pytest.mark.parametrize("code", [52, -1, 1000])
def test_impossible_card(code: int) -> None:
    state = new("la-belle-lucie")

    def swap(piles: dict[str, tuple[int, ...]]) -> None:
        piles["t1"] = (*piles["t1"][:-1], code)

    assert reason_of(lambda: rebuild(state, swap)) == "WRONG_CARDS"


def test_one_pack_card_twice_in_notation() -> None:
    text = str(new("la-belle-lucie", 1)).replace("t:JDKS4S/", "t:JDKSJD/")
    with pytest.raises(InvalidState) as info:
        patience.parse_state(text)
    assert info.value.reason == "WRONG_CARDS"


def test_third_copy_in_a_two_pack_game() -> None:
    state = position("the-fifteen", t={"t1": "5H 5H"}, f={"f3": "4H", "f7": "6H"}, dump="t2")
    # both 5H are on t1; add a third

    def third(piles: dict[str, tuple[int, ...]]) -> None:
        piles["t1"] = piles["t1"] + cards("5H")
        piles["t2"] = piles["t2"][:-1]

    assert reason_of(lambda: rebuild(state, third)) == "WRONG_CARDS"


# --- BAD_FOUNDATION -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant_id", "foundation", "bad"),
    [
        ("la-belle-lucie", "f1", "2C"),  # not from the ace
        ("la-belle-lucie", "f1", "AC 3C"),  # a gap
        ("la-belle-lucie", "f1", "AS"),  # wrong suit (f1 is clubs)
        ("la-belle-lucie", "f2", "AS 2C"),  # suit changes
        ("la-belle-lucie", "f3", "2H AH"),  # downwards on an up-foundation
        ("house-in-the-wood", "f2", "AS"),  # f1 f2 are clubs
        ("bisley", "f5", "QC"),  # down-foundation not from the king
        ("bisley", "f5", "KC JC"),
        ("bisley", "f6", "KC"),  # f6 is spades
        ("bisley", "f6", "KS QS TS"),
        ("the-fifteen", "f8", "KD QD QD"),
    ],
)
def test_bad_foundation(variant_id: str, foundation: str, bad: str) -> None:
    # a position whose foundations are empty and whose cards are all on one pile
    # (Bisley's aces stay on f1..f4, where the deal puts them)
    count = len(SHAPES[variant_id].foundations)
    empty = {f"f{i}": "-" for i in range(1, count + 1)}
    if variant_id == "bisley":
        empty |= {"f1": "AC", "f2": "AS", "f3": "AH", "f4": "AD"}
    state = position(variant_id, f=empty, fill=False)
    bad_cards = cards(bad)

    def move_to_foundation(piles: dict[str, tuple[int, ...]]) -> None:
        for c in bad_cards:
            for pid, pile in piles.items():
                if pid.startswith("t") and c in pile:
                    i = pile.index(c)
                    piles[pid] = pile[:i] + pile[i + 1 :]
                    break
        piles[foundation] = bad_cards

    assert reason_of(lambda: rebuild(state, move_to_foundation)) == "BAD_FOUNDATION"


def test_bad_foundation_in_notation() -> None:
    text = str(new("la-belle-lucie", 1))
    # AC..5C on the spades foundation: the cards are taken out of the fans
    fans = text.split(" ")[1][2:].split("/")
    clubs = {"AC", "2C", "3C", "4C", "5C"}
    cleaned = ["".join(f[i : i + 2] for i in range(0, len(f), 2) if f[i : i + 2] not in clubs)
               for f in fans]  # fmt: skip
    bad = text.replace(text.split(" ")[1], "t:" + "/".join(c or "-" for c in cleaned))
    bad = bad.replace("f:-/-/-/-", "f:-/5C/-/-")
    with pytest.raises(InvalidState) as info:
        patience.parse_state(bad)
    assert info.value.reason == "BAD_FOUNDATION"


# --- BAD_CELL -------------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", ["cody", "little-billee"])
def test_two_cards_in_a_cell(variant_id: str) -> None:
    state = position(variant_id, t={"t1": "5H 6H"}, r={"r1": ""})

    def crowd(piles: dict[str, tuple[int, ...]]) -> None:
        piles["r1"] = piles["t1"]
        piles["t1"] = ()

    assert reason_of(lambda: rebuild(state, crowd)) == "BAD_CELL"
    text = str(state).replace(" r:-/", " r:5H6H/").replace("t:5H6H/", "t:-/")
    with pytest.raises(InvalidState) as info:
        patience.parse_state(text)
    assert info.value.reason == "BAD_CELL"


# --- BAD_COUNTER ----------------------------------------------------------------------


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_more_redeals_than_the_game_has(variant_id: str) -> None:
    state = new(variant_id)
    too_many = state.variant.redeals + 1
    assert reason_of(lambda: rebuild(state, lambda p: None, redeals_left=too_many)) == (
        "BAD_COUNTER"
    )


@pytest.mark.parametrize("counters", [{"redeals_left": -1}, {"draws": -1}])
def test_negative_counters(counters: dict[str, int]) -> None:
    state = new("la-belle-lucie")
    assert reason_of(lambda: rebuild(state, lambda p: None, **counters)) == "BAD_COUNTER"


# --- BAD_DEAL -------------------------------------------------------------------------


@pytest.mark.parametrize("deal", [-1, 10**20 + 1, 10**30])
def test_deal_number_out_of_range(deal: int) -> None:
    state = new("usk")
    assert reason_of(lambda: rebuild(state, lambda p: None, deal=deal)) == "BAD_DEAL"


def test_valid_states_pass() -> None:
    for variant_id in VARIANT_IDS:
        for deal in (0, 31999, 32000, 10**20):
            state = new(variant_id, deal)
            assert rebuild(state, lambda p: None) == state


# --- new games --------------------------------------------------------------------------


@pytest.mark.parametrize("deal", [-1, 10**20 + 1])
def test_bad_deal_numbers(deal: int) -> None:
    with pytest.raises(patience.BadDealNumber) as info:
        patience.get_variant("bisley").new_game(deal)
    assert str(info.value) and info.value.code


@pytest.mark.parametrize("deal", [0, 10**20])
def test_deal_number_bounds_are_inclusive(deal: int) -> None:
    assert patience.get_variant("bisley").new_game(deal).deal == deal


def test_random_deal_numbers() -> None:
    deals = {patience.get_variant("usk").new_game().deal for _ in range(5)}
    assert all(10**16 <= d <= 10**20 for d in deals)
    assert len(deals) > 1


def test_unknown_variant_and_option() -> None:
    with pytest.raises(patience.UnknownVariant) as info:
        patience.get_variant("klondike")
    assert info.value.code and "klondike" in str(info.value)
    with pytest.raises(patience.UnknownOption) as option:
        patience.get_variant("usk").new_game(1, options=["fill_from_waste_only"])
    assert option.value.code


def test_error_classes() -> None:
    for cls in (
        patience.IllegalMove,
        patience.InvalidState,
        patience.NotationError,
        patience.UnknownVariant,
        patience.UnknownOption,
        patience.BadDealNumber,
    ):
        assert issubclass(cls, patience.PatienceError)
        assert getattr(patience.errors, cls.__name__) is cls


def test_error_codes() -> None:
    codes = {
        patience.IllegalMove("wrong_rank", "x"): "ILLEGAL_MOVE",
        patience.InvalidState("BAD_CELL", "x"): "INVALID_STATE",
        patience.NotationError("x"): "BAD_NOTATION",
        patience.UnknownVariant("x"): "UNKNOWN_VARIANT",
        patience.UnknownOption("x"): "UNKNOWN_OPTION",
        patience.BadDealNumber("x"): "BAD_DEAL_NUMBER",
    }
    for error, code in codes.items():
        assert error.code == code and str(error)


@pytest.mark.parametrize("deal", [1.5, "7"])
def test_deal_numbers_are_whole_numbers(deal: object) -> None:
    with pytest.raises(patience.BadDealNumber):
        patience.get_variant("usk").new_game(deal)


# --- what each refusal says, and the positions at the edges ---------------------------


def refusal(build: Callable[[], object]) -> InvalidState:
    with pytest.raises(InvalidState) as info:
        build()
    return info.value


def test_an_ace_dealt_to_its_foundation_never_leaves_it() -> None:
    """Bisley deals its aces to the foundations, and they never move again: an empty ace
    foundation (its ace among the columns) is no position of the game."""

    def ace_back(piles: dict[str, tuple[int, ...]]) -> None:
        piles["t1"], piles["f1"] = piles["t1"] + piles["f1"], ()

    error = refusal(lambda: rebuild(new("bisley"), ace_back))
    assert error.reason == "BAD_FOUNDATION"
    assert "f1 holds its ace from the deal on" in str(error)


def test_a_foundation_out_of_order_names_the_card_it_starts_from() -> None:
    two = cards("2C")

    def two_first(piles: dict[str, tuple[int, ...]]) -> None:  # 2C alone on clubs' f1
        for pile_id, pile in piles.items():
            piles[pile_id] = tuple(c for c in pile if c != two[0])
        piles["f1"] = two

    error = refusal(lambda: rebuild(new("la-belle-lucie", 1), two_first))
    assert error.reason == "BAD_FOUNDATION"
    assert "f1 must hold a run from AC in its suit and direction" in str(error)


def test_wrong_cards_are_named() -> None:
    state = new("la-belle-lucie", 1)

    def swap(piles: dict[str, tuple[int, ...]]) -> None:  # 4S and KS out, 3S and JD again
        piles["t1"] = (piles["t1"][0], *cards("3S JD"))

    message = str(refusal(lambda: rebuild(state, swap)))
    assert message == "la-belle-lucie holds every card 1 time(s): missing 4S KS; too many 3S JD"


def test_the_waste_holds_no_more_cards_than_the_stock_has_dealt() -> None:
    state = new("napoleon-at-st-helena", 1)

    def to_waste(piles: dict[str, tuple[int, ...]]) -> None:  # a column's card, not dealt
        piles["waste"], piles["t1"] = piles["t1"][-1:], piles["t1"][:-1]

    error = refusal(lambda: rebuild(state, to_waste))
    assert error.reason == "WRONG_CARDS"
    assert "the stock and waste cannot hold 64 and 1 cards" in str(error)


def test_cards_dealt_need_moves_to_deal_them() -> None:
    state = new("napoleon-at-st-helena", 1)

    def deal_three(piles: dict[str, tuple[int, ...]]) -> None:
        piles["waste"], piles["stock"] = piles["stock"][-3:][::-1], piles["stock"][:-3]

    error = refusal(lambda: rebuild(state, deal_three, moves_made=2))
    assert error.reason == "BAD_COUNTER"
    assert "0 redeal(s) and 3 card(s) dealt need at least 3 moves" in str(error)
    assert rebuild(state, deal_three, moves_made=3).moves_made == 3


@pytest.mark.parametrize(
    ("counters", "words"),
    [
        ({"redeals_left": -1}, "redeals_left must be a whole number >= 0"),
        ({"moves_made": -1}, "moves_made must be a whole number >= 0"),
        ({"draws": -1}, "draws must be a whole number >= 0"),
        ({"draws": "51"}, "draws must be a whole number >= 0"),
        ({"draws": True}, "draws must be a whole number >= 0"),
        ({"draws": 1.5}, "draws must be a whole number >= 0"),
        ({"draws": 0}, "draws must be 51 (the opening shuffle), got 0"),
        ({"redeals_left": 3}, "redeals_left must lie in 0..2, got 3"),
    ],
)
def test_each_bad_counter_is_named(counters: dict[str, object], words: str) -> None:
    state = new("la-belle-lucie")
    error = refusal(lambda: rebuild(state, lambda p: None, **counters))  # type: ignore[arg-type]
    assert (error.reason, str(error)) == ("BAD_COUNTER", words)


def test_a_redeal_of_one_card_draws_nothing() -> None:
    """Shuffling n cards draws n - 1 numbers: a redeal of a tableau down to one card
    draws none, so the opening shuffle's draws alone are right after it."""
    state = position("la-belle-lucie", t={"t1": "KS"}, n=1, draws=51)
    assert (state.redeals_left, state.draws) == (1, 51)
    error = refusal(lambda: rebuild(state, lambda p: None, draws=103))
    assert error.reason == "BAD_COUNTER"
    assert "after 1 redeal(s) with 1 tableau cards, draws must lie in 51..102, got 103" in str(
        error
    )


def test_the_full_sets_of_the_fast_path_are_the_sorted_packs() -> None:
    """The usual check compares the sorted cards with the full set of the game's packs,
    made once per pack count; made again from nothing, it is the same."""
    validation._FULL_SETS.clear()
    for variant_id in ("bisley", "the-fifteen"):  # one pack, two packs
        state = new(variant_id)
        assert rebuild(state, lambda p: None) == state
    assert {
        1: list(range(52)),
        2: sorted(list(range(52)) * 2),
    } == validation._FULL_SETS


# --- from_trusted_parts ------------------------------------------------------------------


def trusted(state: State, piles: object = None, **changes: object) -> State:
    fields: dict[str, object] = {
        "options": state.options,
        "redeals_left": state.redeals_left,
        "moves_made": state.moves_made,
        "deal": state.deal,
        "draws": state.draws,
    } | changes
    return State.from_trusted_parts(
        state.variant,
        state.piles if piles is None else piles,  # type: ignore[arg-type]
        **fields,  # type: ignore[arg-type]
    )


def test_a_trusted_state_keeps_its_options() -> None:
    state = new("napoleon-at-st-helena", 3)
    strict = trusted(state, options=["fill_from_waste_only"])
    assert strict.options == frozenset({"fill_from_waste_only"})
    assert strict == patience.get_variant("napoleon-at-st-helena").new_game(
        3, options=["fill_from_waste_only"]
    )


def test_a_trusted_state_takes_a_whole_suit_on_a_foundation() -> None:
    state = position("la-belle-lucie", t={"t1": "KS"})
    assert [len(pile) for pile in state.piles[-4:]] == [13, 12, 13, 13]
    assert trusted(state) == state


def test_a_trusted_state_refuses_what_the_rules_cannot_run_on() -> None:
    state = position("la-belle-lucie", t={"t1": "KS"})
    missing = [list(pile) for pile in state.piles]
    missing[0] = []
    error = refusal(lambda: trusted(state, missing))
    assert (error.reason, str(error)) == (
        "WRONG_CARDS",
        "la-belle-lucie holds 52 cards, each a code in 0..51",
    )
    overfull = [list(pile) for pile in state.piles]
    overfull[-1] = overfull[-1] + overfull[0]  # a fourteenth card on a whole suit
    overfull[0] = []
    error = refusal(lambda: trusted(state, overfull))
    assert (error.reason, str(error)) == ("BAD_FOUNDATION", "f4 holds more than a suit")


# --- what the other refusals say ------------------------------------------------------------


def test_unknown_names_are_told_back() -> None:
    with pytest.raises(patience.UnknownOption) as option:
        patience.get_variant("usk").new_game(1, options=["fast"])
    assert (str(option.value), option.value.name) == ("no option of usk is called 'fast'", "fast")
    assert str(patience.UnknownOption("fast")) == "no option is called 'fast'"
    with pytest.raises(patience.UnknownVariant) as variant:
        patience.get_variant("klondike")
    assert variant.value.name == "klondike"
    assert str(variant.value) == "no game variant is called 'klondike'"


def test_other_refusals_say_what_is_wrong() -> None:
    with pytest.raises(patience.BadDealNumber) as deal:
        patience.get_variant("usk").new_game(1.5)  # type: ignore[arg-type]
    assert str(deal.value) == "a deal number is a whole number, got 1.5"
    with pytest.raises(ValueError, match=r"^no card has code 52$"):
        patience.cards.card_name(52)
    assert patience.cards.card_name(51) == "KD"
    with pytest.raises(IndexError, match=r"^no move to take back$"):
        patience.Game("usk", 1).pop()


def test_a_variants_options_are_its_own_and_read_only() -> None:
    napoleon = patience.get_variant("napoleon-at-st-helena")
    assert napoleon.describe()["options"] == [
        {
            "name": "fill_from_waste_only",
            "description": "an empty column may be filled only from the waste",
        }
    ]
    with pytest.raises(TypeError):
        napoleon.options["fast"] = "more"  # type: ignore[index]
    with pytest.raises(TypeError):
        napoleon.option_changes["fast"] = {}  # type: ignore[index]
    strict = napoleon.ruleset(frozenset({"fill_from_waste_only"}))
    assert strict.options == frozenset({"fill_from_waste_only"})
    assert napoleon.ruleset().options == frozenset()
