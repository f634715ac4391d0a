"""Deal numbers and the shuffle: PySolFC's packs, RULES.md's check vectors, bounds."""

from __future__ import annotations

import random
import secrets

import patience
import pytest
from patience import BadDealNumber, Move
from patience.deals import MAX_DEAL, RANDOM_DEAL_LOW, Generator, shuffled_stock
from pysol_cards.cards import createCards, ms_rearrange
from pysol_cards.random import LCRandom31, MTRandom
from pysol_cards.random import shuffle as pysol_shuffle
from pysol_cards.random_base import RandomBase

_SAMPLER = random.Random(31_999)
MS_DEALS = [1, 2, 3, 617, 11982, 31999, *_SAMPLER.sample(range(1, 32000), 120)]
MT_DEALS = [
    32001,
    123456789012,
    10**20,
    10**20 - 1,
    *_SAMPLER.sample(range(32001, 10**6), 60),
    *(_SAMPLER.randrange(10**6, 10**20) for _ in range(60)),
]


def codes(cards: list[object]) -> list[int]:
    """pysol_cards' Card objects as this library's card codes."""
    return [c.suit * 13 + c.rank - 1 for c in cards]  # type: ignore[attr-defined]


@pytest.mark.parametrize("packs", [1, 2])
@pytest.mark.parametrize("deal", MS_DEALS + MT_DEALS)
def test_shuffle_is_pysolfc_shuffle(deal: int, packs: int) -> None:
    expected = codes(pysol_shuffle(createCards(packs), deal, RandomBase.DEALS_PYSOLFC))
    stock, draws = shuffled_stock(packs, deal)
    assert stock == expected
    assert draws == 52 * packs - 1


@pytest.mark.parametrize("packs", [1, 2])
def test_deal_32000_uses_the_mersenne_twister(packs: int) -> None:
    # RULES.md: 0..31999 Microsoft, 32000 up Mersenne Twister. (pysol_cards' own
    # `shuffle` still takes the Microsoft path for exactly 32000, so ask its MT directly.)
    expected = codes(MTRandom(32000).shuffle(createCards(packs)))
    assert shuffled_stock(packs, 32000)[0] == expected


@pytest.mark.parametrize("packs", [1, 2])
def test_deal_0_uses_the_microsoft_generator_from_state_0(packs: int) -> None:
    generator = LCRandom31(1)  # pysol_cards refuses seed 0; set the state by hand
    generator.seed = generator.seedx = 0
    expected = codes(generator.shuffle(ms_rearrange(createCards(packs))))
    assert shuffled_stock(packs, 0)[0] == expected


LUCIE_VECTORS = {
    1: "JD KS 4S | 2D 9D TH | 9H QD 8H | JC JS 2C | 5D AS JH | 7H AH 7D | 7C 3C 6D | "
    "5H 4C 8S | KD 5C 8D | KC TS QS | 9S QH 6C | 5S 4H 3D | AD AC 8C | QC 4D TC | "
    "KH 7S 6S | 3H 3S 9C | 2S TD 2H | 6H",
    123456789012: "7S 9D 6C | 2C 5S 9H | 8C 7H TS | TC KS 6H | AD 6S 5H | 9S 3C JH | "
    "5D 4D QS | 4H KH 3D | TH 6D JS | 2D 2H QD | 9C KD 3H | 2S 3S 8D | JC 4C JD | "
    "KC AH AS | 5C TD 8S | QH 7D 7C | AC QC 8H | 4S",
}


@pytest.mark.parametrize("deal", sorted(LUCIE_VECTORS))
def test_la_belle_lucie_check_vectors(deal: int) -> None:
    state = patience.get_variant("la-belle-lucie").new_game(deal)
    fans = [state.pile(f"t{i}") for i in range(1, 19)]
    written = " | ".join(" ".join(patience.card_name(c) for c in fan) for fan in fans)
    assert written == LUCIE_VECTORS[deal]
    assert (state.deal, state.draws) == (deal, 51)


@pytest.mark.parametrize("deal", [5, 40000, 98765432109876])
def test_redeal_shuffle_continues_the_deal_stream(deal: int) -> None:
    """The redeal shuffles the gathered fans with the generator that dealt the game,
    continuing where the opening shuffle stopped (pysol_cards' generator as oracle)."""
    state = patience.get_variant("la-belle-lucie").new_game(deal)
    oracle = LCRandom31(deal) if deal < 32000 else MTRandom(deal)
    cards = createCards(1)
    oracle.shuffle(ms_rearrange(cards) if deal < 32000 else cards)
    gathered = [card for pile in state.piles[:18] for card in pile]
    order = list(range(len(gathered)))
    oracle.shuffle(order)
    reshuffled = [gathered[i] for i in order]
    after = state.apply(Move.redeal())
    fans: list[list[int]] = [[] for _ in range(18)]
    for count in (17, 17, 18):
        for fan in range(count):
            fans[fan].append(reshuffled.pop())
    assert [list(p) for p in after.piles[:18]] == fans
    assert after.draws == 51 + 51


def test_generator_state_is_deal_and_draws() -> None:
    for deal in (7, 70000):
        running = Generator(deal)
        for _ in range(60):
            running.draw(51)
        resumed = Generator(deal, draws=60)
        assert [resumed.draw(n) for n in range(40, 0, -1)] == [
            running.draw(n) for n in range(40, 0, -1)
        ]


@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
def test_same_deal_number_same_deal(variant_id: str) -> None:
    variant = patience.get_variant(variant_id)
    first, again = variant.new_game(4242), variant.new_game(4242)
    assert first == again and str(first) == str(again) and hash(first) == hash(again)
    assert variant.new_game(4243).piles != first.piles


@pytest.mark.parametrize("deal", [-1, MAX_DEAL + 1, 10**30])
def test_deal_numbers_out_of_range(deal: int) -> None:
    with pytest.raises(BadDealNumber) as info:
        patience.get_variant("bisley").new_game(deal)
    assert info.value.code == "BAD_DEAL_NUMBER" and "10^20" in str(info.value)


@pytest.mark.parametrize("deal", [1.0, "12", True, 2.5])
def test_deal_numbers_must_be_whole_numbers(deal: object) -> None:
    with pytest.raises(BadDealNumber):
        patience.get_variant("usk").new_game(deal)  # type: ignore[arg-type]


def test_deal_number_bounds_are_inclusive() -> None:
    variant = patience.get_variant("usk")
    assert variant.new_game(0).deal == 0
    assert variant.new_game(MAX_DEAL).deal == MAX_DEAL


def test_random_deal_numbers() -> None:
    deals = {patience.get_variant("cody").new_game().deal for _ in range(20)}
    assert all(RANDOM_DEAL_LOW <= d <= MAX_DEAL for d in deals)
    assert len(deals) > 1


@pytest.mark.parametrize(("pick", "expected"), [("lowest", 10**16), ("highest", 10**20)])
def test_random_deal_range_at_both_ends(
    monkeypatch: pytest.MonkeyPatch, pick: str, expected: int
) -> None:
    """RULES.md: a random deal lies in 10^16..10^20, both ends included. The operating
    system's random source is made to give its lowest, then its highest answer."""
    asked: list[int] = []

    def randbelow(n: int) -> int:
        asked.append(n)
        return 0 if pick == "lowest" else n - 1

    monkeypatch.setattr(secrets, "randbelow", randbelow)
    state = patience.get_variant("bisley").new_game()
    assert state.deal == expected
    assert asked == [10**20 - 10**16 + 1]
    assert str(state) == str(patience.get_variant("bisley").new_game(expected))
