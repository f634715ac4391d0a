"""The dead ends find what they promise: in Bisley and La Belle Lucie's last round a card
that can never leave its pile and a relaxed game that cannot bring every card home, in
the other games without cells a looser relaxed game, each on a position the plain
search proves lost. (That they never fire on a position that can be won is
test_soundness.py's part.) Without them, lost deals of those games take far longer to
prove."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import patience
import pytest
from patience.building import BuildRule
from patience.solver import native
from patience.solver.dead_ends import (
    LooseRelaxation,
    Relaxation,
    _loose_check,
    _strict_check,
    _stuck_card_check,
    dead_end_check,
)
from patience.solver.model import Model
from patience.variant import rules_of

from tests.oracle.positions import position
from tests.solver.positions import plain_verdict

REPO = Path(__file__).resolve().parents[2]

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


# Positions only the looser relaxed game covers (two packs, runs), each lost.
LOOSE_LOST = [
    # The House in the Wood, last round: the ten of clubs lies on the only jack of clubs
    # left (its twin is home), the three it waits for under both
    pytest.param(
        {
            "variant_id": "house-in-the-wood",
            "t": {"t1": "3C JC TC", "t2": "KC QC 9C 8C 7C 6C 5C 4C"},
            "f": {"f1": "KC", "f2": "2C"},
        },
        id="wood-ten-on-the-last-jack",
    ),
    # Usk after its redeal: the seven of clubs on the eight of diamonds, whose black nines
    # are home and under them; the four of clubs the foundation wants lies below
    pytest.param(
        {
            "variant_id": "usk",
            "t": {"t1": "9C 4C 8D 7C", "t2": "KC QC JC TC 8C 6C 5C", "t3": "KD QD JD TD 9D"},
            "f": {"f1": "3C", "f4": "7D"},
        },
        id="usk-seven-on-a-blocked-eight",
    ),
]


@pytest.mark.parametrize("description", LOOSE_LOST)
def test_the_looser_relaxed_game_finds_dead_ends(description: dict[str, Any]) -> None:
    settings = dict(description)
    state = position(settings.pop("variant_id"), n=0, dump=None, **settings)
    assert plain_verdict(state) is False
    model = Model(rules_of(state), state.deal)
    assert LooseRelaxation(model).hopeless(model.position(state)) is True
    dead = dead_end_check(model)
    assert dead is not None and dead(model.position(state)) is True


@pytest.mark.parametrize(("notation", "which"), LOST)
def test_the_looser_relaxed_game_finds_the_strict_dead_ends(notation: str, which: str) -> None:
    """It covers more games, at no loss of strength where the strict checks hold."""
    state = patience.parse_state(notation)
    model = Model(rules_of(state), state.deal)
    assert LooseRelaxation(model).hopeless(model.position(state)) is True


def test_no_dead_end_while_a_redeal_remains() -> None:
    """The same crossed piles with a redeal left: the redeal deals them again."""
    state = patience.parse_state(
        str(lost("lucie-crossed-piles")).replace(" n:0 ", " n:1 ").replace("/153", "/102")
    )
    model = Model(rules_of(state), state.deal)
    dead = dead_end_check(model)
    assert dead is not None and dead(model.position(state)) is False


@pytest.mark.parametrize("variant_id", ["cody", "little-billee"])
def test_games_without_dead_ends(variant_id: str) -> None:
    """Where a card may wait in a reserve cell, no relaxed game is proven: none."""
    state = patience.get_variant(variant_id).new_game(1)
    assert dead_end_check(Model(rules_of(state), state.deal)) is None


def stuck_card_alone(notation: str) -> tuple[bool, bool]:
    """The dead-end check of a position, then again (the pile's verdict from the
    cache), with the relaxed game saying nothing: its method replaced, which only the
    Python modules allow (a compiled class's methods cannot be)."""
    original = Relaxation.hopeless
    Relaxation.hopeless = lambda self, pos: False  # type: ignore[method-assign]
    try:
        state = patience.parse_state(notation)
        model = Model(rules_of(state), state.deal)
        dead = dead_end_check(model)
        assert dead is not None
        pos = model.position(state)
        return dead(pos), dead(pos)
    finally:
        Relaxation.hopeless = original  # type: ignore[method-assign]


@pytest.mark.parametrize(
    "notation",
    [p.values[0] for p in LOST if p.values[1] == "stuck"],
    ids=["lucie", "lucie-two-cards", "bisley"],
)
def test_a_stuck_card_alone_is_a_dead_end(notation: str) -> None:
    """The stuck-card check answers before the relaxed game is played (it is the cheap
    one): with the relaxation saying nothing, the position is still a dead end, and
    again when the pile's verdict comes from the cache. Where this process runs the
    compiled modules, the Python ones (their reference, test_native.py) answer in a
    process of their own."""
    if not native.compiled():
        assert stuck_card_alone(notation) == (True, True)
        return
    done = subprocess.run(
        [sys.executable, "-c", _STUCK_CARD_ALONE, notation],
        cwd=REPO,
        env={**os.environ, native.SPEED_PATHS: "off"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "True"]


_STUCK_CARD_ALONE = """
import sys
from patience.solver import native
from tests.solver.test_dead_ends import stuck_card_alone
print(native.compiled(), *stuck_card_alone(sys.argv[1]))
"""


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
    """La Belle Lucie's last round has the strict dead ends; the same model with any one
    thing their proofs do not cover (runs moved as one, empty piles filled, cells, a
    stock, two packs, building by colour) has none of them, only the looser relaxed
    game, and none at all with cells."""
    state = patience.parse_state(lost("lucie-king-on-its-queen"))
    model = Model(rules_of(state), state.deal)
    assert _strict_check(model) is not None
    setattr(model, feature, value)
    assert _strict_check(model) is None
    assert (_loose_check(model) is None) is (feature == "ncells")
