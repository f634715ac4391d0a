"""Following hints (patience.solver.hints, "Following hints"): a player who plays hint
after hint, each asked with the one before, wins every game whose first hint proved it
winnable, with one search, and never comes back to a position already played, in every
game; in games that hide cards the game ends won, stuck or proven lost.

The budgets are in positions only (the time allowed is far more than they take), so each
run is the same on any machine."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import patience
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from patience import Move, MoveKind, State, Status
from patience.solver import (
    Budget,
    Hint,
    HintKind,
    Verdict,
    continue_line,
    hint,
    safe_foundation_moves,
    seen_key,
    solve,
)
from patience.solver.hints import LINE_STEPS, line_steps
from patience.solver.model import Model
from patience.solver.policy import Policy
from patience.solver.unseen import seen_digest
from patience.variant import rules_of

from tests.solver.positions import small_position
from tests.solver.test_fair_hints import dealt_down

BUDGET = Budget(nodes=200_000, seconds=600)


@dataclass
class Followed:
    """A game played by following hints: the hints in order, the position at the end,
    and how many of them searched."""

    hints: list[Hint] = field(default_factory=list)
    end: State | None = None

    @property
    def searched(self) -> int:
        return sum(1 for given in self.hints if given.nodes > 0)


def follow(state: State, budget: Budget = BUDGET, *, plans: bool = True) -> Followed:
    """Plays hint after hint from ``state`` (each asked with the one before, or alone
    without ``plans``) until the hint names no move; fails on a position played twice."""
    followed = Followed()
    played = {seen_key(state)}
    previous: Hint | None = None
    while True:
        given = hint(state, budget, follow=previous if plans else None)
        followed.hints.append(given)
        if given.move is None:
            followed.end = state
            return followed
        assert given.move in state.legal_moves()
        state = state.apply(given.move)
        key = seen_key(state)
        assert key not in played, f"a position came back after {len(followed.hints)} hints"
        played.add(key)
        previous = given


# Open games whose first hint is proven to win: Bisley's deals 1, 2, 5, 6 and 7 and
# Usk's deal 4 went round in circles when each hint was searched afresh.
PROVEN = [
    ("bisley", 1),
    ("bisley", 2),
    ("bisley", 5),
    ("bisley", 6),
    ("bisley", 7),
    ("usk", 4),
    ("cody", 3),
    ("little-billee", 1),
    ("the-fifteen", 8),
]


@pytest.mark.parametrize(("variant", "deal"), PROVEN)
def test_following_hints_wins_a_game_proven_winnable(variant: str, deal: int) -> None:
    followed = follow(patience.get_variant(variant).new_game(deal))
    assert followed.hints[0].kind is HintKind.WINNING
    assert followed.end is not None and followed.end.status is Status.WON
    # one search, or one for each part of a line longer than LINE_STEPS (The Fifteen)
    assert 1 <= followed.searched <= 1 + (len(followed.hints) - 1) // LINE_STEPS
    assert {given.kind for given in followed.hints[:-1]} == {HintKind.WINNING}


# Games that hide cards, with budgets small enough for the tests' time (smaller budgets
# give more best-effort lines, whose ends are tested as much).
HIDDEN = [
    ("la-belle-lucie", 1, 20_000),
    ("la-belle-lucie", 5, 20_000),
    ("house-in-the-wood", 2, 20_000),
    ("house-on-the-hill", 3, 20_000),
    ("napoleon-at-st-helena", 4, 3_000),
]


@pytest.mark.parametrize(("variant", "deal", "nodes"), HIDDEN)
def test_following_hints_where_cards_are_hidden_never_comes_back(
    variant: str, deal: int, nodes: int
) -> None:
    followed = follow(patience.get_variant(variant).new_game(deal), Budget(nodes, 600))
    last = followed.hints[-1]
    assert followed.end is not None
    # won, stuck, or proven lost (every arrangement of the few cards left searched)
    assert last.kind in (HintKind.NONE, HintKind.LOST)
    assert followed.end.status is not Status.PLAYING or last.kind is HintKind.LOST
    assert followed.searched < len(followed.hints)  # lines were continued


def test_following_hints_from_a_stock_of_twelve_cards() -> None:
    followed = follow(dealt_down(7, 12), Budget(4_000, 600))
    assert followed.hints[-1].kind in (HintKind.NONE, HintKind.LOST)


# --------------------------------------------------------------------------- the line


def test_a_hint_asked_again_before_a_move_is_the_same_hint_without_a_search() -> None:
    state = patience.get_variant("bisley").new_game(1)
    first = hint(state, BUDGET)
    again = hint(state, BUDGET, follow=first)
    assert (again.kind, again.move, again.line, again.nodes) == (
        first.kind,
        first.move,
        first.line,
        0,
    )


def test_the_line_continues_after_the_safe_moves_autoplay_plays() -> None:
    """A game with autoplay on plays the safe moves after each move: the line has them
    too (the search plays them at once), so the game stays on it."""
    state = patience.get_variant("cody").new_game(3)
    previous = hint(state, BUDGET)
    for _ in range(40):
        assert previous.move is not None
        state = state.apply(previous.move)
        for move in safe_foundation_moves(state):
            state = state.apply(move)
        continued = continue_line(state, previous)
        assert continued is not None and continued.kind is HintKind.WINNING
        previous = continued


def test_off_the_line_a_hint_is_searched_afresh() -> None:
    state = patience.get_variant("bisley").new_game(1)
    first = hint(state, BUDGET)
    other = next(m for m in state.legal_moves() if m != first.move)
    elsewhere = state.apply(other)
    assert continue_line(elsewhere, first) is None
    assert hint(elsewhere, BUDGET, follow=first).nodes > 0
    # a line of another game never matches
    assert continue_line(patience.get_variant("bisley").new_game(2), first) is None


def test_a_line_stops_at_its_first_deal() -> None:
    """Napoleon at St Helena: the cards a deal turns up are hidden, so what follows it
    cannot be named from what the player sees."""
    state = patience.get_variant("napoleon-at-st-helena").new_game(7)
    transfer = next(m for m in state.legal_moves() if m.kind is MoveKind.TRANSFER)
    moves = [transfer, Move.deal(), Move.deal()]
    steps = line_steps(state, moves)
    assert [move for _, move in steps] == moves[:2]


def _line_positions(state: State, given: Hint) -> list[State]:
    positions = [state]
    for _, move in given.line:
        positions.append(positions[-1].apply(move))
    return positions


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(sorted(patience.VARIANTS)),
    seed=st.integers(0, 2**32 - 1),
    out=st.integers(4, 14),
    nodes=st.sampled_from([50, 400, 3_000]),
)
def test_every_line_ends_where_it_cannot_come_back(
    variant: str, seed: int, out: int, nodes: int
) -> None:
    """On random positions, with budgets that leave many searches undecided: a hint's
    line starts with its move, is named by the positions it is played from, never
    enters a position twice, and ends at a win, at a card turned up (its last move: a
    deal, or a redeal that shuffles), or with more cards home than at any position
    before its end. A card on a foundation never leaves it, so from there no position
    of the line comes back."""
    state = small_position(variant, random.Random(seed), out)
    given_hint = hint(state, Budget(nodes, 600), samples=2)
    if given_hint.move is None:
        assert not given_hint.line
        return
    assert given_hint.line[0][1] == given_hint.move
    rules = rules_of(state)
    model = Model(rules)
    positions = _line_positions(state, given_hint)
    digests = [step[0] for step in given_hint.line]
    assert digests == [seen_digest(rules, model.position(p)) for p in positions[:-1]]
    keys = [seen_key(p) for p in positions]
    assert len(set(keys)) == len(keys)
    last = given_hint.line[-1][1]
    redeal = rules.redeal
    turned_up = last.kind is MoveKind.DEAL or (
        last.kind is MoveKind.REDEAL and redeal is not None and redeal.shuffle
    )
    end = positions[-1]
    home = [p.foundation_cards for p in positions]
    progress = end.status is Status.WON or turned_up or home[-1] > max(home[:-1])
    # an end that is no progress (a lone move, where no line brought a card home) names
    # its positions for the next search to avoid; an end that is progress, none
    assert progress == (given_hint.avoid == ()), (given_hint.kind, given_hint.line)
    if not progress:
        assert len(given_hint.line) == 1 and given_hint.kind is HintKind.BEST_EFFORT
        policy = Policy(model)
        here = model.position(state)
        keys = dict.fromkeys((policy.key(here), policy.key(policy.settle(here)[0])))
        assert given_hint.avoid == tuple(keys)


def test_after_a_lone_move_the_next_hint_does_not_lead_back() -> None:
    """A lone move (no line brought a card home) names the position it was played from;
    the next hint's search does not enter it, so the next hint never takes the card
    back, though the search from there would: each move between tableau piles that the
    next search undoes when asked alone."""
    checked = 0
    # positions along Bisley deal 1's winning line, where some such moves are
    line = [m for _, m in hint(patience.get_variant("bisley").new_game(1), BUDGET).line]
    games = [patience.get_variant("bisley").new_game(1)]
    for move in line[:34]:
        games.append(games[-1].apply(move))
    for start in games[10:34]:
        if checked >= 3:
            break
        model = Model(rules_of(start))
        key = Policy(model).key
        for move in start.legal_moves():
            after = start.apply(move)
            alone = hint(after, BUDGET)
            if alone.move is None or seen_key(after.apply(alone.move)) != seen_key(start):
                continue  # the search alone does not lead back: nothing to show
            here = model.position(start)
            digest = seen_digest(rules_of(start), here)
            lone = Hint(
                HintKind.BEST_EFFORT,
                move,
                Verdict.UNKNOWN,
                0,
                0.0,
                line=((digest, move),),
                avoid=tuple({key(here), key(Policy(model).settle(here)[0])}),
            )
            followed = hint(after, BUDGET, follow=lone)
            assert followed.move is not None
            if seen_key(after.apply(followed.move)) == seen_key(start):
                # only where no line that keeps away from it wins (and one through it
                # does: a win that goes back is still a win)
                assert solve(after, BUDGET, avoid=lone.avoid).verdict is Verdict.LOST, move
                continue
            checked += 1
    assert checked >= 3
