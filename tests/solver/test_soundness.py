"""Every shortcut of the search checked against a plain exhaustive search (soundness.py):
positions near the end of real games and hand-built ones that stress one rule each, for
every game; the moves the search never tries and the safe moves on whole games, where
no plain search can follow; and positions pinned where a shortcut once went wrong.

``PATIENCE_SOUNDNESS_EXAMPLES=N`` runs N examples per game and source instead of the
few that `make test` affords (``python -m tests.solver.soundness`` is the long run)."""

from __future__ import annotations

import os
import random

import patience
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from patience import MoveKind, State
from patience.solver.model import DEAL, REDEAL, TRANSFER, WITHDRAW, Model
from patience.solver.policy import Policy
from patience.solver.pruning import MoveChooser
from patience.solver.safe_moves import SafeMoves
from patience.variant import rules_of

from tests.oracle import Walk, played_games
from tests.solver.soundness import (
    PATTERNS,
    TooBig,
    check_graph,
    exact_graph,
    near_end,
    random_play,
    stressed,
)

VARIANT_IDS = list(patience.VARIANTS)
EXAMPLES = int(os.environ.get("PATIENCE_SOUNDNESS_EXAMPLES", "0"))
# examples per game and source in `make test`: the slower games get fewer
FEW = {"napoleon-at-st-helena": 6, "the-fifteen": 5, "little-billee": 8}
LIMIT = 6000  # positions of one graph, at most


def examples(variant_id: str) -> int:
    return EXAMPLES or FEW.get(variant_id, 10)


def check_position(state: State, seed: int) -> None:
    try:
        graph = exact_graph(state, LIMIT)
    except TooBig:
        reject()
    check_graph(graph, random.Random(seed))


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_near_the_end_of_real_games(variant_id: str) -> None:
    """Random deals played at random, then cards taken to the foundations: the oracle's
    verdict at every reachable position against each shortcut and the search."""

    @settings(
        max_examples=examples(variant_id),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(seed=st.integers(0, 2**64 - 1))
    def check(seed: int) -> None:
        check_position(near_end(variant_id, random.Random(seed)), seed)

    check()


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_hand_built_positions_that_stress_each_rule(variant_id: str) -> None:
    """Twin cards, full cells, empty columns before a redeal, kings above their queens,
    Napoleon's stock and waste, blocked piles (soundness.stressed)."""

    @settings(
        max_examples=examples(variant_id),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(seed=st.integers(0, 2**64 - 1), pattern=st.sampled_from(PATTERNS[variant_id]))
    def check(seed: int, pattern: str) -> None:
        check_position(stressed(variant_id, random.Random(seed), pattern), seed)

    check()


# --- pinned positions ---------------------------------------------------------------------

PINNED = [
    # Usk, its redeal left, two empty columns and a king for them: the redeal gathers
    # the columns in order, so which empty column takes the king decides the game
    # (choosing the first empty column alone, as where the columns are interchangeable,
    # loses the win).
    "usk t:6C3CTC/5C/9CQC4CKC/-/-/7CJC/8C/-/-/- f:2C/KS/KH/KD n:1 m:1058 d:418442/51",
    "usk t:TSJS/5S/-/QSQC7S/6SJCKC9S/-/8S/-/KS/- f:TC/4S/KH/KD n:1 m:1016 d:653159/51",
    # Cody and Little Billee: a card that fits the ace foundation while its twin is out
    # and the king foundation of its suit will want one of the two: which copy goes to
    # which end decides the game, so sending it home at once is not safe.
    "cody t:JH/-/-/-/-/-/-/-/-/-/-/4HKH/-/-/-/-/-/-/-/-/-/-/-/-/2HKH6H/-"
    " r:QH/3H/9H/AH/TH/8H/5H/7H f:KC/KS/QH/KD/AC/AS/-/AD n:0 m:1000 d:54083/103",
    "little-billee t:2S9S/-/-/-/-/-/-/-/-/-/-/-/9STS4S/-/-/-/-/-/-/-/-/-/JS5S/-"
    " r:QS/AS/6S/KS/8S/3S/7S/- f:KC/8S/KH/KD/AC/TS/AH/AD n:0 m:1000 d:364143/103",
    # La Belle Lucie's last round, every club out with the ace on top: the relaxed game
    # sends the ace home first (card code 0), and so no dead end.
    "la-belle-lucie t:KCQCJCTC9C8C7C/6C5C4C3C2CAC/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-/-"
    " f:-/KS/KH/KD n:0 m:300 d:1/153",
    # Bisley: the king of spades above its queen is no dead end (kings go to their own
    # foundation); nor is a card with one of its two foundations blocked.
    "bisley t:-/-/-/8CTSQS/-/7HJS/-/-/-/-/-/2DKS/- f:7C/9S/6H/AD/9C/-/8H/3D n:0 m:1000 d:84353/51",
]


@pytest.mark.parametrize("notation", PINNED)
def test_pinned_positions(notation: str) -> None:
    """Positions where a shortcut made slightly too bold loses the win."""
    graph = exact_graph(patience.parse_state(notation), 20_000)
    assert graph.root_winnable
    check_graph(graph, random.Random(notation), searches=3)


# --- whole games: what no plain search can follow ------------------------------------------


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_move_never_tried_has_a_stand_in(variant_id: str, data: st.DataObject) -> None:
    """Along random games (The Fifteen's withdraws, full decks, stocks): each legal move
    that the search never tries leads where a move it tries leads, or where the position
    already is, under the key; or it is a pile's only card onto another pile in a game
    that never fills an empty pile. Deals, redeals and withdraws are always tried."""
    walk: Walk = data.draw(played_games(variant_id, max_moves=40))
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    state = random_play(walk.last, rng, rng.randint(0, 150))
    for current in (walk.states[0], walk.last, state):
        check_stand_ins(current)


def check_stand_ins(state: State) -> None:
    model = Model(rules_of(state), state.deal)
    pos = model.position(state)
    key = Policy(model).key
    legal = model.legal_moves(pos)
    chosen = MoveChooser(model)(pos)
    assert set(chosen) <= set(legal)
    reached = {key(pos)} | {key(model.apply(pos, m)) for m in chosen}
    fixed = pos[5] == 0 or model.redeals == 0
    for move in set(legal) - set(chosen):
        kind, source, target, _ = move
        assert kind not in (DEAL, REDEAL, WITHDRAW), (move, str(state))
        if key(model.apply(pos, move)) in reached:
            continue
        # a pile's only card onto another pile, in a game that never fills a pile
        assert kind == TRANSFER and fixed and not model.fills, (move, str(state))
        assert source < model.ntab and len(pos[0][source]) == 1 and target < model.ntab


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_safe_moves_along_whole_games(variant_id: str, data: st.DataObject) -> None:
    """Safe moves are legal foundation moves; while a redeal remains, none takes a card
    out of the tableau (a redeal deals what the tableau holds)."""
    walk: Walk = data.draw(played_games(variant_id, max_moves=60))
    for state in walk.states[::5]:
        model = Model(rules_of(state), state.deal)
        pos = model.position(state)
        settled, played = SafeMoves(model).settle(pos)
        at = state
        for move in played:
            library = model.library_move(move)
            assert library.kind is MoveKind.TRANSFER and library.target[0] == "f"
            if state.redeals_left and model.redeals:
                assert library.source[0] == "r", (library, str(state))
            at = at.apply(library)
        assert model.position(at) == settled
