"""The dead ends of Bisley and La Belle Lucie's last round find what they promise: a card
that can never leave its pile, and a relaxed game that cannot bring every card home,
each on a position the plain search proves lost. (That they never fire on a position
that can be won is test_soundness.py's part.) Without them, lost deals of those games
take far longer to prove."""

from __future__ import annotations

import patience
import pytest
from patience.building import BuildRule
from patience.solver.dead_ends import Relaxation, _stuck_card_check, dead_end_check
from patience.solver.model import Model
from patience.variant import rules_of

from tests.solver.positions import plain_verdict

LOST = [
    # the king of hearts on its queen, the spades' two under their three
    pytest.param(
        "la-belle-lucie t:QHKH/2S3S/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/4S5S6S7S8S9STSJSQSKS"
        " f:KC/AS/JH/KD n:0 m:300 d:1/153",
        "stuck",
        id="lucie-king-on-its-queen",
    ),
    # the same king, and the spades in a pile built down from the king: only the two-card
    # pile is stuck
    pytest.param(
        "la-belle-lucie t:QHKH/2S3S/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/KSQSJSTS9S8S7S6S5S4S"
        " f:KC/AS/JH/KD n:0 m:300 d:1/153",
        "stuck",
        id="lucie-king-on-its-queen-alone",
    ),
    # the five of clubs on the four and the six, both below it: no end takes it
    pytest.param(
        "bisley t:4C6C5C/8S/-/-/-/-/-/-/-/-/-/-/- f:3C/7S/KH/KD/7C/9S/-/- n:0 m:300 d:1/51",
        "stuck",
        id="bisley-both-ends-below",
    ),
    # no card is stuck alone, but the ten of spades waits for the jack under the two of
    # hearts, and the three of hearts for the four under the nine of spades
    pytest.param(
        "la-belle-lucie t:JS2HTS/4H9S3H/KHQHJHTH9H8H7H6H5H/KSQS/-/-/-/-/-/-/-/-/-/-/-/-/-/-"
        " f:KC/8S/AH/KD n:0 m:300 d:1/153",
        "relaxed",
        id="lucie-crossed-piles",
    ),
    # the same, one spade short at home and that spade on a pile of its own: the relaxed
    # game sends it home first, then still cannot bring the rest home
    pytest.param(
        "la-belle-lucie t:JS2HTS/4H9S3H/KHQHJHTH9H8H7H6H5H/KSQS/8S/-/-/-/-/-/-/-/-/-/-/-/-/-"
        " f:KC/7S/AH/KD n:0 m:300 d:1/153",
        "relaxed",
        id="lucie-crossed-piles-after-a-card-home",
    ),
    # the crossed piles with a move left (the queen of spades onto its king): the relaxed
    # game makes it, then still cannot bring every card home
    pytest.param(
        "la-belle-lucie t:JS2HTS/4H9S3H/KHQHJHTH9H8H7H6H5H/KS/QS/-/-/-/-/-/-/-/-/-/-/-/-/-"
        " f:KC/8S/AH/KD n:0 m:300 d:1/153",
        "relaxed",
        id="lucie-crossed-piles-with-a-move-left",
    ),
]


def lost(name: str) -> str:
    """The notation of the lost position of that id."""
    return str(next(p.values[0] for p in LOST if p.id == name))


@pytest.mark.parametrize(("notation", "which"), LOST)
def test_dead_ends_are_found(notation: str, which: str) -> None:
    state = patience.parse_state(notation)
    assert plain_verdict(state) is False
    model = Model(rules_of(state), state.deal)
    pos = model.position(state)
    dead = dead_end_check(model)
    assert dead is not None and dead(pos) is True
    stuck = _stuck_card_check(model)
    assert any(stuck(pile) for pile in pos[0] if pile) is (which == "stuck")
    assert Relaxation(model).hopeless(pos) is True


def test_no_dead_end_while_a_redeal_remains() -> None:
    """The same crossed piles with a redeal left: the redeal deals them again."""
    state = patience.parse_state(
        str(lost("lucie-crossed-piles")).replace(" n:0 ", " n:1 ").replace("/153", "/102")
    )
    model = Model(rules_of(state), state.deal)
    dead = dead_end_check(model)
    assert dead is not None and dead(model.position(state)) is False


@pytest.mark.parametrize("variant_id", ["cody", "usk", "napoleon-at-st-helena", "the-fifteen"])
def test_games_without_dead_ends(variant_id: str) -> None:
    """Where the proofs do not hold (two packs, runs, empty piles filled, cells, a
    stock), there is no dead-end rule."""
    state = patience.get_variant(variant_id).new_game(1)
    assert dead_end_check(Model(rules_of(state), state.deal)) is None


@pytest.mark.parametrize(
    "notation",
    [p.values[0] for p in LOST if p.values[1] == "stuck"],
    ids=["lucie", "lucie-two-cards", "bisley"],
)
def test_a_stuck_card_alone_is_a_dead_end(notation: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stuck-card check answers before the relaxed game is played (it is the cheap
    one): with the relaxation saying nothing, the position is still a dead end, and
    again when the pile's verdict comes from the cache."""
    monkeypatch.setattr(Relaxation, "hopeless", lambda self, pos: False)
    state = patience.parse_state(str(notation))
    model = Model(rules_of(state), state.deal)
    dead = dead_end_check(model)
    assert dead is not None
    pos = model.position(state)
    assert dead(pos) is True
    assert dead(pos) is True  # the pile's verdict cached


@pytest.mark.parametrize(
    ("feature", "value"),
    [
        ("runs", True),
        ("fills", True),
        ("ncells", 1),
        ("has_stock", True),
        ("total", 104),
        ("build", BuildRule.DOWN_ALTERNATE_COLOUR),
    ],
)
def test_any_one_feature_the_proofs_exclude_turns_them_off(feature: str, value: object) -> None:
    """La Belle Lucie's last round has dead ends; the same model with any one thing the
    proofs do not cover (runs moved as one, empty piles filled, cells, a stock, two
    packs, building by colour) has none."""
    state = patience.parse_state(lost("lucie-king-on-its-queen"))
    model = Model(rules_of(state), state.deal)
    assert dead_end_check(model) is not None
    setattr(model, feature, value)
    assert dead_end_check(model) is None
