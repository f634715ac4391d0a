"""Hints: the move to play next, from what the player has seen.

**Open positions** (nothing hidden: Bisley, Cody, Little Billee, Usk, The Fifteen, and
the other games once nothing is left hidden in them) are searched exactly, as the
winnability table is. When the search proves a win, the hint is the first move of a
winning line (WINNING); when it proves the game lost, there is no winning move to give
(LOST); when the budget runs out first, the hint is a best-effort move, the first move of
the line that brought the most cards to the foundations (BEST_EFFORT).

**Positions that hide cards** (Napoleon at St Helena's stock, the La Belle Lucie
family's shuffled redeals: :func:`~patience.solver.unseen.hides_cards`) are never
searched as they are, which would steer by cards the player cannot see. The hint uses
what the player has seen only, in two steps:

1. The lines that turn up no hidden card (no deal, no redeal that shuffles:
   :func:`~patience.solver.unseen.without_hidden`) are searched exactly with a quarter of
   the budget. A win there wins the real game whatever the hidden cards are: the hint is
   WINNING, as in an open position. Otherwise the first move of the line that brought the
   most cards home this way (the *plain move*) is kept.
2. :data:`~patience.solver.unseen.SAMPLES` arrangements of the unseen cards consistent
   with what was seen, made from the seen position alone (unseen.py), are searched one
   after another, each with the exact search and an even share of what is left of the
   budget, and the move that wins in the most of them is recommended:

- WINS_ALL, WINS_MOST (more than half), WINS_SOME: the move, and in how many of the
  arrangements searched a winning line starting with it was found;
- NO_WIN_FOUND: every arrangement searched was proven lost, but they were a sample; the
  move is the plain move, or the search's first choice;
- LOST: every arrangement there is was searched (a stock of a few cards) and each is
  lost, so no line wins whatever the hidden cards are;
- BEST_EFFORT: no arrangement was won, and some were not decided within their budget:
  the plain move; failing one, a deal when no card can come home without one; else the
  move most of the undecided searches found most promising.

The arrangements are searched with the move that leads so far (at first the plain move)
tried first at the root, so the count of the leading move is exact in every arrangement
searched after it took the lead (the search enters a root move's positions before the
next move's: the first root move that wins is the one it reports); of moves that win
equally often, the plain move is preferred. Counts are lower bounds: a kind never claims
more wins than were found. Each arrangement is won by a line of its own, so a move that
wins in every arrangement is not a promise that a player who never sees the stock wins
by playing on (see docs/solver.md).

**Following hints.** A search finds *a* winning line from where it starts, the first it
meets; from the position after its first move, a new search may well meet first the
line that moves the card back, and a player who plays hint after hint goes round in
circles. So every hint comes with the line its move starts (:attr:`Hint.line`), each
step named by the position it is played from as the player sees it
(:func:`~patience.solver.unseen.seen_digest`), and a hint asked with the previous one
(``follow``) continues its line while the game is on it, without a search: the next
move of the same plan. Each line ends where playing on cannot come back to where it
began:

- a win (WINNING: the whole winning line);
- the first move that turns up a hidden card (a deal, a redeal that shuffles), which
  no later move undoes (the stock only shrinks, redeals only run out);
- the position with the most cards home that the search met (BEST_EFFORT, and the plain
  move of a fair hint), which has more cards on the foundations than the line's start.

A card on a foundation never leaves it, so a position after the end of a line is never
one played before its start, and the positions of one line are all different (a search
never enters a position twice): following hints never repeats a position. A line that
is a lone move with none of these ends (an open position where the search met no line
that brings a card home, and hints the first legal move) carries the positions it and
the lone moves before it were played from (:attr:`Hint.avoid`), which the next hint's
search does not enter. From a position proven winnable, the first hint's line is played
to the win (a very long one in parts, each searched afresh from where the last ended).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..moves import Move, MoveKind
from ..variant import RuleSet, State, rules_of
from .model import Model, Position, SolverMove
from .policy import Policy, policy_for
from .search import Budget, Result, Verdict, solve
from .unseen import SAMPLES, arrangements, hides_cards, seen_digest, without_hidden

HINT_BUDGET = Budget(nodes=200_000, seconds=0.8)
# The share of a fair hint's budget given to the lines that turn up no hidden card.
_PLAIN_SHARE = 4
# The steps of a line a hint gives, give or take the way to its next card home, and at
# most (line_steps); a stretch with none given where a line brings none home for long; the
# positions a hint's avoid names at most (16 bytes each).
LINE_STEPS = 512
LINE_LIMIT = 16 * LINE_STEPS
STRETCH = 64
AVOIDED = 256
_DEAL = Move.deal()


class HintKind(enum.Enum):
    WINNING = "winning"  # the first move of a line proven to win
    BEST_EFFORT = "best_effort"  # the search ran out of budget: a promising move
    LOST = "lost"  # no line wins from here: no move to recommend
    NONE = "none"  # the game is over (won, or no legal move)
    # Positions that hide cards: of the arrangements of the unseen cards searched, the
    # move was found to win in every one, in more than half, in some (at most half).
    WINS_ALL = "wins_all"
    WINS_MOST = "wins_most"
    WINS_SOME = "wins_some"
    # Every arrangement searched is proven lost, but they are a sample of them.
    NO_WIN_FOUND = "no_win_found"


# One step of a hint's line: the position it is played from, as the player sees it
# (`seen_digest`), and the move.
Step = tuple[bytes, Move]


@dataclass(frozen=True)
class Hint:
    kind: HintKind
    move: Move | None
    verdict: Verdict
    nodes: int
    seconds: float
    # Positions that hide cards: the arrangements of the unseen cards searched (0: the
    # hint is exact: the position hides nothing, or a line that turns up no hidden card
    # wins), in how many the move was found to win, how many were proven lost, and
    # whether they are every arrangement there is.
    arrangements: int = 0
    winning: int = 0
    lost: int = 0
    every_arrangement: bool = False
    # The line that ``move`` starts, its first step (module docstring, "Following
    # hints"); empty when there is no move.
    line: tuple[Step, ...] = ()
    # A line whose end is no progress (a lone move, where the search met no line that
    # brings a card home; a long stretch with no card home): its positions and those of
    # such lines before it (their `policy.key`), which the next hint's search does not
    # enter, so that it cannot lead back to them.
    avoid: tuple[bytes, ...] = ()


def hint(
    state: State,
    budget: Budget = HINT_BUDGET,
    *,
    stop: Callable[[], bool] | None = None,
    samples: int = SAMPLES,
    follow: Hint | None = None,
) -> Hint:
    """The move to play next from ``state`` (see the module's docstring); ``stop`` as
    for :func:`~patience.solver.search.solve`; ``samples``: the arrangements searched
    where the position hides cards; ``follow``: the game's previous hint, whose line is
    continued when ``state`` is on it (:func:`continue_line`)."""
    legal = state.legal_moves()
    if not legal:
        verdict = Verdict.WON if state.foundation_cards == state.total_cards else Verdict.LOST
        return Hint(HintKind.NONE, None, verdict, 0, 0.0)
    if follow is not None:
        continued = continue_line(state, follow, legal)
        if continued is not None:
            return continued
    avoid = follow.avoid if follow is not None else ()
    if hides_cards(state):
        return _fair_hint(state, legal, budget, stop or _never, samples, avoid)
    result = solve(state, budget, stop=stop, avoid=avoid)
    nodes = result.nodes
    if avoid and result.verdict is Verdict.LOST:
        # lost without where the player was: a win, if any, goes back there
        result = solve(state, budget, stop=stop)
        nodes += result.nodes
    if result.verdict is Verdict.LOST:
        return Hint(HintKind.LOST, None, result.verdict, nodes, result.seconds)
    line = result.promising_line  # WON: the winning line
    if not line or line[0] not in legal:  # a lone move: no line brought a card home
        line = (_first_not_back(state, legal, avoid),)
    kind = HintKind.WINNING if result.verdict is Verdict.WON else HintKind.BEST_EFFORT
    steps = line_steps(state, line)
    return Hint(
        kind,
        line[0],
        result.verdict,
        nodes,
        result.seconds,
        line=steps,
        avoid=_avoided(state, steps, avoid),
    )


def continue_line(state: State, previous: Hint, legal: Sequence[Move] | None = None) -> Hint | None:
    """``previous`` (a hint of the same game) from ``state``, when ``state`` is one of
    the positions of its line: the same kind and counts, the move of that step and the
    line from there, found without a search (nodes and seconds 0). None when ``state``
    is not on the line (the player went another way, or played it to its end)."""
    if not previous.line:
        return None
    rules = rules_of(state)
    here = seen_digest(rules, _model_of(rules).position(state))
    for i, (position, move) in enumerate(previous.line):
        if position == here:
            if move not in (state.legal_moves() if legal is None else legal):
                return None
            return replace(previous, move=move, nodes=0, seconds=0.0, line=previous.line[i:])
    return None


def line_steps(state: State, moves: Sequence[Move]) -> tuple[Step, ...]:
    """The steps of ``moves`` played from ``state``, up to the first that turns up a
    hidden card (a deal, a redeal that shuffles), which is the last: the positions after
    it depend on what it shows. A line longer than LINE_STEPS is cut after its first
    move to a foundation from there: a line of The Fifteen may run to tens of thousands
    of moves, and a cut there is an end like the others (more cards home than at any
    position before it), however far that is, up to LINE_LIMIT moves: The Fifteen's
    lines bring no card home for a thousand moves and more, and a line cut short of its
    next card home leaves the next search to find the way on from a position no nearer
    the win, with the positions behind it to avoid (:func:`_avoided`), which it can
    only name so many of. One that brings no card home from LINE_STEPS to LINE_LIMIT
    moves is cut after its last move to a foundation before, or, with none, after
    STRETCH moves (an end that is no progress); a plan's size stays bounded (10 bytes a
    step)."""
    rules = rules_of(state)
    model = _model_of(rules)
    pos = model.position(state)
    steps: list[Step] = []
    last_home = 0  # the steps up to the last move to a foundation
    for move in moves:
        steps.append((seen_digest(rules, pos), move))
        if _turns_up(state, move):
            break
        home = sum(pos[2])
        pos = model.apply(pos, model.solver_move(move))
        if sum(pos[2]) > home:
            last_home = len(steps)
            if len(steps) >= LINE_STEPS:
                break
        elif len(steps) >= LINE_LIMIT:
            return tuple(steps[: last_home or STRETCH])
    return tuple(steps)


def _avoided(state: State, steps: Sequence[Step], carried: Sequence[bytes]) -> tuple[bytes, ...]:
    """What the next hint's search must not enter after ``steps`` (:attr:`Hint.avoid`):
    nothing when the line ends where no later position can be one of its own (its last
    move turns up a hidden card, or brings a card home: a card on a foundation never
    leaves it); else the positions of the line (a lone move, a stretch with no card
    home), after ``carried`` (those of the lines before it that ended so), the last
    AVOIDED of them."""
    model = _model_of(rules_of(state))
    pos = model.position(state)
    positions = []
    home = sum(pos[2])
    for _, move in steps:
        if _turns_up(state, move):
            return ()
        positions.append(pos)
        home = sum(pos[2])
        pos = model.apply(pos, model.solver_move(move))
    if sum(pos[2]) > home:
        return ()
    # The search enters positions with their safe moves played (`settle`): a line
    # through a position passes through it so settled, which is what it must not enter.
    policy = _policy_of(model)
    keys = dict.fromkeys(
        policy.key(p) for pos in positions[-AVOIDED:] for p in (pos, policy.settle(pos)[0])
    )
    return (*carried, *keys)[-AVOIDED:]


@functools.cache
def _model_of(rules: RuleSet) -> Model:
    # Playing a line up to its first deal or shuffled redeal never draws on the deal.
    return Model(rules)


@functools.cache
def _policy_of(model: Model) -> Policy:
    return policy_for(model)


def _first_not_back(state: State, legal: Sequence[Move], avoid: Sequence[bytes]) -> Move:
    """The first legal move that leads to none of the positions ``avoid`` names (the
    first legal move when each does)."""
    if not avoid:
        return legal[0]
    model = _model_of(rules_of(state))
    key = _policy_of(model).key
    pos = model.position(state)
    return next(
        (m for m in legal if key(model.apply(pos, model.solver_move(m))) not in avoid), legal[0]
    )


def _never() -> bool:
    return False


def _fair_hint(
    state: State,
    legal: Sequence[Move],
    budget: Budget,
    stop: Callable[[], bool],
    samples: int,
    carried: tuple[bytes, ...] = (),
) -> Hint:
    """The hint from the arrangements of what ``state`` hides (the module's docstring).
    Nothing here reads the hidden part of ``state``: the arrangements are made from the
    seen position, and only they are searched. Their lines are played on ``state`` only
    up to their first deal or shuffled redeal (:func:`line_steps`), which turn up no
    hidden card: the moves before it are the same whatever the hidden cards are."""
    clock = budget.clock()
    started = clock()
    deadline = started + budget.seconds
    order = {move: i for i, move in enumerate(legal)}
    # First the lines that turn up no hidden card (no deal, no redeal that shuffles),
    # with a share of the budget: a win there wins the real game; else its most
    # promising move leads the arrangements' searches.
    plain = without_hidden(state)
    share = Budget(
        nodes=max(budget.nodes // _PLAIN_SHARE, 1),
        seconds=budget.seconds / _PLAIN_SHARE,
        cpu_time=budget.cpu_time,
    )
    found = solve(plain.state, share, policy=plain.policy, stop=stop)
    nodes = found.nodes
    if found.verdict is Verdict.WON and found.line and found.line[0] in order:
        seconds = clock() - started
        steps = line_steps(state, found.line)
        avoid = _avoided(state, steps, carried)
        return Hint(
            HintKind.WINNING, found.line[0], Verdict.WON, nodes, seconds, line=steps, avoid=avoid
        )
    plain_move = found.promising_move if found.promising_move in order else None
    arranged = arrangements(state, max(samples, 1))
    items = arranged.items
    total = len(items)
    won_by: dict[Move, int] = {}
    promising: dict[Move, int] = {}  # the undecided searches' best-effort moves
    # the first winning line found for each move; else the plain search's or an
    # undecided search's line to the most cards home
    won_lines: dict[Move, tuple[Move, ...]] = {}
    lines: dict[Move, tuple[Move, ...]] = {}
    if plain_move is not None:
        lines[plain_move] = found.promising_line
    lost = searched = 0
    leader: Move | None = plain_move
    for i, item in enumerate(items):
        now = clock()
        if searched and (now >= deadline or stop()):
            break
        left = total - i
        share = Budget(
            nodes=max((budget.nodes - nodes) // left, 1),
            seconds=max(deadline - now, 0.0) / left,
            cpu_time=budget.cpu_time,
        )
        policy = item.policy if leader is None else _root_first(item.policy, leader)
        result = solve(item.state, share, policy=policy, stop=stop)
        searched += 1
        nodes += result.nodes
        if result.verdict is Verdict.WON:
            first = _first_move(result)
            if first is not None and first in order:
                won_by[first] = won_by.get(first, 0) + 1
                won_lines.setdefault(first, result.line)
                leader = _most(won_by, order, plain_move)
        elif result.verdict is Verdict.LOST:
            lost += 1
        elif result.best_first_move is not None and result.best_first_move in order:
            move = result.best_first_move
            promising[move] = promising.get(move, 0) + 1
            lines.setdefault(move, result.promising_line)
    every = arranged.every and searched == total
    verdict = Verdict.UNKNOWN
    if every and sum(won_by.values()) == total:
        verdict = Verdict.WON
    elif every and lost == total:
        verdict = Verdict.LOST

    def told(kind: HintKind, move: Move | None, wins: int = 0) -> Hint:
        seconds = clock() - started
        steps: tuple[Step, ...] = ()
        if move is not None:
            steps = line_steps(state, won_lines.get(move) or lines.get(move) or (move,))
        avoid = _avoided(state, steps, carried) if steps else ()
        return Hint(kind, move, verdict, nodes, seconds, searched, wins, lost, every, steps, avoid)

    if won_by:
        move = _most(won_by, order, plain_move)
        wins = won_by[move]
        if wins == searched:
            return told(HintKind.WINS_ALL, move, wins)
        if 2 * wins > searched:
            return told(HintKind.WINS_MOST, move, wins)
        return told(HintKind.WINS_SOME, move, wins)
    # A move with no line to more cards home or to a hidden card could be undone by the
    # next hint: where nothing better is known, turn a hidden card up (always legal in
    # a position that hides cards: the stock deals, redeals may be asked for).
    turn_up = next((move for move in legal if _turns_up(state, move)), None)
    if lost == searched:
        if every:
            return told(HintKind.LOST, None)
        return told(HintKind.NO_WIN_FOUND, plain_move or turn_up or legal[0])
    if plain_move is not None:
        return told(HintKind.BEST_EFFORT, plain_move)
    if found.verdict is Verdict.LOST and _DEAL in order:
        # no card comes home without turning one up: deal it
        return told(HintKind.BEST_EFFORT, _DEAL)
    if promising:
        return told(HintKind.BEST_EFFORT, _most(promising, order, None))
    return told(HintKind.BEST_EFFORT, turn_up or legal[0])


def _turns_up(state: State, move: Move) -> bool:
    """Whether ``move`` turns up a card the player has not seen: a deal, or a redeal
    that shuffles."""
    if move.kind is MoveKind.DEAL:
        return True
    redeal = rules_of(state).redeal
    return move.kind is MoveKind.REDEAL and redeal is not None and redeal.shuffle


def _first_move(result: Result) -> Move | None:
    return result.line[0] if result.line else None


def _most(tally: dict[Move, int], order: dict[Move, int], preferred: Move | None) -> Move:
    """The move counted most often; of equals, ``preferred``, then the first in the
    legal moves' order."""
    return min(tally, key=lambda move: (-tally[move], move != preferred, order[move]))


def _root_first(policy: Policy, move: Move) -> Policy:
    """``policy`` with ``move`` tried first at the root of the search (the first position
    the search asks its candidates of), every other position as before."""
    wanted = policy.model.solver_move(move)
    candidates = policy.candidates
    asked = False

    def root_first(pos: Position) -> list[SolverMove]:
        nonlocal asked
        moves = candidates(pos)
        if asked or wanted not in moves:
            asked = True
            return moves
        asked = True
        return [wanted, *(m for m in moves if m != wanted)]

    return policy.choosing(root_first)
