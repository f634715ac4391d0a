"""Random play of many games of every variant, to the end, checking invariants on every step.

Each variant plays ``SOAK_GAMES`` games (default 20; e.g.
``SOAK_GAMES=1000 .venv/bin/pytest -p no:xdist -s --timeout=0 tests/rules/test_soak.py``
for a long soak) with the seeded random player of `soak_policy`: it never goes back to a
position already seen in the game while another move leads somewhere new. Every game
ends in one of four ways, all counted and printed per variant:

- ``won`` / ``stuck``: the library's own status, checked by brute force at the end;
- ``cycle``: a search of every position still reachable (at most ``LOOP_LIMITS[1]``)
  finds each one PLAYING: the game can never end, though the rules still list moves (a
  card shuttling between the two equal cards of a two-pack game, say). The search runs
  when every legal move leads back to a seen position, and after every 250 moves with
  no card going home, no card dealt and no redeal;
- ``capped``: none of these after ``MOVE_CAP`` moves or ``TRAP_CAP`` steps in a row
  without a new position. Reported, never counted as finished.

A broken invariant or an exception does not stop the soak: the game is recorded with
its deal, options and moves, and the test fails at the end listing every such game.
"""

from __future__ import annotations

import os
import random
import time
import traceback
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field

import patience
import pytest
from patience import IllegalMove, Move, MoveKind, State, Status, Variant

from .soak_policy import GROUPS, RandomPlayer, Reach, move_group, position, search_for_an_end
from .test_smoke import WINS, check_events

SOAK_GAMES = int(os.environ.get("SOAK_GAMES", "20"))
MOVE_CAP = 5000
TRAP_CAP = 500  # trapped steps in a row before a game is capped
# Positions searched to prove that a trapped game can never end: the first search's
# limit, doubled after each search that ran out of it, up to the last one.
LOOP_LIMITS = (2000, 64000)
SAMPLED_MOVES = 2  # listed moves applied on every step, besides the one played
ALL_MOVES_EVERY = 25  # steps between applying every listed move
BRUTE_FORCE_EVERY = 100  # steps between checking the listing against every candidate move
NOTATION_EVERY = 10  # steps between state notation round trips

OUTCOMES = ("won", "stuck", "cycle", "capped")


def candidate_moves(state: State) -> list[Move]:
    """Every move that could possibly be legal: transfers between any two piles (of up to
    as many cards as the source holds where runs move, else of one and of two cards),
    deal, redeal, and every withdraw."""
    ids = state.variant.pile_ids
    runs = state.variant.runs_move
    moves = [Move.deal(), Move.redeal()]
    for source, cards in zip(ids, state.piles, strict=True):
        for target in ids:
            for count in range(1, max(len(cards), 1) + 1 if runs else 3):
                moves.append(Move.transfer(source, target, count))
    if state.variant.withdraw_row:
        tableau = [p for p in ids if p[0] == "t"]
        moves += [Move.withdraw(a) for a in tableau]
        moves += [Move.withdraw(a, b) for i, a in enumerate(tableau) for b in tableau[i + 1 :]]
    return moves


def card_multiset(state: State) -> Counter[int]:
    return Counter(c for pile in state.piles for c in pile)


def check_applies(state: State, move: Move) -> State:
    after = state.apply(move)
    assert after.moves_made == state.moves_made + 1, f"{move}: moves_made"
    if move.kind is MoveKind.TRANSFER and move.target[0] == "f":
        assert after.foundation_cards == state.foundation_cards + move.count, f"{move}"
    return after


def check_step(state: State, cards: Counter[int], step: int, rng: random.Random) -> None:
    """The invariants of one position; the costly ones only every so many steps."""
    moves = state.legal_moves()
    assert len(set(moves)) == len(moves), "a move is listed twice"
    assert card_multiset(state) == cards, "the cards changed"
    if state.foundation_cards == state.total_cards:
        assert state.status is Status.WON and not moves
    else:
        assert state.status is (Status.PLAYING if moves else Status.STUCK)
    every = step % ALL_MOVES_EVERY == 0
    for move in moves if every else rng.sample(moves, min(SAMPLED_MOVES, len(moves))):
        assert state.is_legal(move), f"{move} listed but not legal"
        check_applies(state, move)
        assert Move.parse(str(move)) == move
    if step % BRUTE_FORCE_EVERY == 0:
        check_listing_is_complete(state)
    if step % NOTATION_EVERY == 0:
        assert patience.parse_state(str(state)) == state


def check_listing_is_complete(state: State) -> None:
    """Every candidate move applies if and only if it is listed, and is_legal agrees."""
    listed = set(state.legal_moves())
    for move in candidate_moves(state):
        try:
            state.apply(move)
        except IllegalMove:
            applies = False
        else:
            applies = True
        assert applies == (move in listed) == state.is_legal(move), f"{move}: listed wrong"


def check_won(state: State) -> None:
    """Every card really is on a foundation, and the game takes no more moves."""
    foundations = [p for p in state.variant.pile_ids if p[0] == "f"]
    assert sum(len(state.pile(p)) for p in foundations) == state.total_cards
    assert all(not state.pile(p) for p in state.variant.pile_ids if p[0] != "f")
    assert state.legal_moves() == ()
    for move in [*candidate_moves(state)[:50], Move.withdraw("t1")]:
        with pytest.raises(IllegalMove) as refused:
            state.apply(move)
        assert refused.value.rule == "game_over"


def check_stuck(state: State) -> None:
    assert state.legal_moves() == () and state.foundation_cards < state.total_cards
    for move in candidate_moves(state):
        assert not state.is_legal(move), f"{move} is legal in a stuck game"


@dataclass
class Game:
    """One game of the soak; `moves` is everything needed to replay it."""

    variant: Variant
    deal: int
    options: tuple[str, ...]
    moves: list[str] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    playing: str | None = None  # the move being applied and checked, until it is done

    def describe(self) -> str:
        options = f" options {list(self.options)}" if self.options else ""
        where = f"while playing {self.playing}" if self.playing else "at the position"
        return (
            f"{self.variant.id} deal {self.deal}{options}, {where} after "
            f"{len(self.moves)} moves: {' '.join(self.moves) or '-'}"
        )


def progress(state: State) -> tuple[int, int, int]:
    """What only goes one way in every game: cards home, the stock, redeals."""
    return state.foundation_cards, -state.stock_size, -state.redeals_left


def play(game: Game, player: RandomPlayer) -> str:
    """Plays `game` to its end with every check on the way; returns the outcome."""
    state = game.variant.new_game(game.deal, game.options)
    cards = card_multiset(state)
    seen: set[Hashable] = {position(state)}
    previous: Move | None = None
    trapped = idle = 0  # steps in a row without a new position / without progress
    search_limit = LOOP_LIMITS[0]
    for step in range(MOVE_CAP):
        check_step(state, cards, step, player.rng)
        if state.status is Status.WON:
            check_won(state)
            return "won"
        if state.status is Status.STUCK:
            check_stuck(state)
            return "stuck"
        choice = player.choose(state, seen, previous)
        trapped = 0 if choice.fresh else trapped + 1
        # Without progress the game moves inside one set of positions, which only
        # shrinks: a search at the start of each trapped streak, and every so often
        # while new positions keep coming (a large set), tells whether it can end.
        if (trapped % 100 == 1 or idle % 250 == 249) and search_limit <= LOOP_LIMITS[1]:
            reach = search_for_an_end(state, search_limit)
            if reach is Reach.ENDLESS:
                return "cycle"
            if reach is Reach.UNKNOWN:
                search_limit *= 2
        if trapped == TRAP_CAP:
            return "capped"
        game.playing = str(choice.move)
        after, events = state.apply_with_events(choice.move)
        assert after == choice.after, f"{choice.move} gave two different states"
        check_events(state, after, events)
        game.moves.append(game.playing)
        game.playing = None
        game.kinds[move_group(choice.move)] += 1
        seen.add(position(after))
        idle = 0 if progress(after) != progress(state) else idle + 1
        previous, state = choice.move, after
    return "capped"


@dataclass
class Tally:
    outcomes: Counter[str] = field(default_factory=Counter)
    moves: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    def summary(self, variant_id: str, seconds: float) -> str:
        games = sum(self.outcomes.values()) + len(self.errors)
        counts = " ".join(f"{name} {self.outcomes[name]}" for name in OUTCOMES)
        kinds = ", ".join(f"{k} {self.kinds[k]}" for k in GROUPS if self.kinds[k])
        return (
            f"{variant_id}: games {games} {counts} moves {self.moves} "
            f"cpu {seconds:.1f}s errors {len(self.errors)} [{kinds}]"
        )


def soak(variant: Variant, games: int) -> Tally:
    rng = random.Random(f"soak {variant.id}")
    tally = Tally()
    for number in range(games):
        deal = rng.randrange(32000) if number % 4 < 2 else rng.randrange(32000, 10**20 + 1)
        options = tuple(o for o in variant.options if rng.random() < 0.5)
        game = Game(variant, deal, options)
        player = RandomPlayer(random.Random(f"{variant.id} {deal} {options}"))
        try:
            tally.outcomes[play(game, player)] += 1
        except Exception as error:  # any failure at all is recorded with its game
            where = traceback.format_exception(error)[-2].strip()
            tally.errors.append(f"{game.describe()}\n  {error!r}\n  {where}")
        tally.moves += len(game.moves)
        tally.kinds += game.kinds
    return tally


@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
def test_random_play(variant_id: str) -> None:
    started = time.process_time()
    tally = soak(patience.get_variant(variant_id), SOAK_GAMES)
    print("\n" + tally.summary(variant_id, time.process_time() - started))
    for error in tally.errors:
        print(error)
    assert not tally.errors, f"{len(tally.errors)} games broke an invariant"
    assert sum(tally.outcomes.values()) == SOAK_GAMES
    assert tally.outcomes["capped"] * 20 <= SOAK_GAMES, "the player went round in circles"


@pytest.mark.parametrize("variant_id", list(patience.VARIANTS))
def test_won_game_passes_the_soak_checks(variant_id: str) -> None:
    """Random play seldom wins, so the golden win of each variant is replayed through
    every check of the soak, step by step, down to the won position."""
    win = WINS[variant_id]
    state = patience.get_variant(variant_id).new_game(win["deal"], win["options"])
    cards = card_multiset(state)
    rng = random.Random(variant_id)
    for step, text in enumerate(win["moves"]):
        check_step(state, cards, step, rng)
        state = check_applies(state, Move.parse(text))
    check_step(state, cards, 0, rng)  # step 0: every check
    assert state.status is Status.WON
    check_won(state)
