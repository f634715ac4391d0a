"""The search: depth-first over canonical positions, with safe moves and a budget.

Winning is reachability: the game is won from a position when some sequence of legal
moves leads to a position with every card on the foundations. A depth-first search that
never enters a position twice (a transposition table of every position entered, under a
key that identifies positions differing only in the order of interchangeable piles) visits
every position reachable from the start exactly once, so when it ends without a win no
line wins: the deal is LOST. The game-specific parts (which moves are played at once
because they are safe, which moves are never worth trying, which positions are dead,
the order to try moves in) come from a :class:`~patience.solver.policy.Policy`, each
proven not to lose a win.

The table keeps 128-bit BLAKE2b digests of the keys: a false "already seen" needs two
of the positions of one search to share a digest (chance below 2^-90 at 10^9 positions).
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..moves import Move
from ..variant import State, rules_of
from .model import REDEAL, Model, Position, SolverMove
from .policy import Policy, policy_for


class Verdict(enum.Enum):
    WON = "won"  # a winning line was found (and is given)
    LOST = "lost"  # no line wins: every reachable position was searched
    UNKNOWN = "unknown"  # the budget ran out first


@dataclass(frozen=True)
class Budget:
    """How much a search may spend: positions entered and seconds (whichever ends first)."""

    nodes: int = 2_000_000
    seconds: float = 10.0
    # True: the seconds are the process's CPU time (fair on a shared machine, for
    # tables); False: wall-clock time (for answering within a deadline)
    cpu_time: bool = False

    def clock(self) -> Callable[[], float]:
        return time.process_time if self.cpu_time else time.perf_counter


@dataclass(frozen=True)
class Result:
    verdict: Verdict
    line: tuple[Move, ...]  # WON: every move from the state to the won position
    nodes: int  # positions entered
    seconds: float
    # UNKNOWN: the first move of the most promising line seen (most cards on the
    # foundations), or None; WON: the line's first move; LOST: None.
    best_first_move: Move | None = None
    # Whatever the verdict: the first move of the line that brought the most cards to
    # the foundations (WON: the line's first move), or None when no line brought one.
    # A lost position's best try (fair hints search positions lost for want of the
    # cards a player cannot see).
    promising_move: Move | None = None
    # The line to the position with the most cards on the foundations (WON: the winning
    # line), starting with ``promising_move``; empty when no line brought a card there.
    promising_line: tuple[Move, ...] = ()

    @property
    def decided(self) -> bool:
        return self.verdict is not Verdict.UNKNOWN


_CHECK_EVERY = 512  # positions between two looks at the clock
# The moves of a line straightened (`_straightened`): a pass costs about 30 µs a move.
STRAIGHTENED = 4096


def solve(
    state: State,
    budget: Budget = Budget(),
    *,
    policy: Policy | None = None,
    stop: Callable[[], bool] | None = None,
    avoid: Iterable[bytes] = (),
) -> Result:
    """Search for a win from ``state`` with full knowledge of the stock and the shuffles.

    ``stop``, when given, is asked whenever the clock is (every few hundred positions):
    once it answers True the search ends as if its budget were spent (UNKNOWN). The
    engine's search processes use it to drop the search of a call whose client is gone.
    ``avoid``: positions (their keys, ``policy.key``) the search never enters, as if
    already searched: a LOST verdict then only says that no line avoiding them wins.
    """
    clock = budget.clock()
    started = clock()
    if policy is None:
        policy = policy_for(Model(rules_of(state), state.deal))
    model = policy.model
    root = model.position(state)
    if model.is_won(root):
        return Result(Verdict.WON, (), 0, clock() - started)
    if not model.legal_moves(root):
        return Result(Verdict.LOST, (), 1, clock() - started)
    outcome = _search(policy, root, budget, started, clock, stop or _never, avoid)
    verdict, line_moves, nodes, best_line = outcome
    line = tuple(map(model.library_move, _straightened(model, root, line_moves)))
    promising_line = (
        line
        if verdict is Verdict.WON
        else tuple(map(model.library_move, _straightened(model, root, best_line)))
    )
    seconds = clock() - started
    promising = promising_line[0] if promising_line else None
    best_move = None if verdict is Verdict.LOST else promising
    return Result(verdict, line, nodes, seconds, best_move, promising, promising_line)


def _never() -> bool:
    return False


def straightened(state: State, line: Iterable[Move]) -> tuple[Move, ...]:
    """A winning ``line`` from ``state`` without its detours, all of it (``solve``
    straightens the first STRAIGHTENED moves only, for a hint's time): for the lines
    kept by the winnability table, where The Fifteen's run to thousands of moves."""
    model = Model(rules_of(state), state.deal)
    moves = [model.solver_move(move) for move in line]
    root = model.position(state)
    return tuple(map(model.library_move, _straightened(model, root, moves, len(moves))))


def _straightened(
    model: Model, root: Position, line: list[SolverMove], limit: int = STRAIGHTENED
) -> list[SolverMove]:
    """``line`` without its detours: from each position of the line, the one move that
    reaches the latest position of the line in one step (the line's own next move when
    none reaches further). The depth-first search returns the first line it meets, which
    wanders (moves cards to and fro before it finds its way); this one ends in the same
    position through positions of the same line, in order, so it is as sound a line and
    keeps what the line's end proves. One pass over the legal moves of each position, of
    the first ``limit`` moves only (a line of The Fifteen may run to tens of thousands
    of moves, and a hint gives the first few hundred: hints.py); the rest as it is."""
    if len(line) < 2:
        return line
    rest = line[limit:]
    line = line[:limit]
    positions = [root]
    for move in line:
        positions.append(model.apply(positions[-1], move))
    latest = {pos: i for i, pos in enumerate(positions)}
    straight: list[SolverMove] = []
    i, end = 0, len(line)
    while i < end:
        pos = positions[i]
        best, to = line[i], i + 1
        for move in model.legal_moves(pos):
            j = latest.get(model.apply(pos, move), -1)
            if j > to:
                best, to = move, j
        straight.append(best)
        i = to
    return straight + rest


def _search(
    policy: Policy,
    root: Position,
    budget: Budget,
    started: float,
    clock: Callable[[], float],
    stop: Callable[[], bool],
    avoid: Iterable[bytes] = (),
) -> tuple[Verdict, list[SolverMove], int, list[SolverMove]]:
    """The verdict, the winning line, the positions entered, and the line to the
    position with the most cards home (the root's safe moves at least).

    Where the policy has other orders of moves (``Policy.other_orders``), a depth-first
    search for each order runs in turns with the first, a few hundred positions a turn:
    any one's win is a win. Each has its own table of the positions it entered, but for
    those of the last round (no redeal left) where the start has a redeal left, which
    they share: the search with the redeal first meets the same last rounds as the
    others, from the same positions, and one search of each is enough. So a search
    ending without a win has entered, or left to the others, every position reachable
    from the root: the loss is proven when all have ended where they share a table, or
    when any one has ended where they share nothing."""
    root, root_autos = policy.settle(root)
    if sum(root[2]) == policy.model.total:
        return Verdict.WON, root_autos, 1, root_autos
    others = policy.other_orders(root)
    share = bool(others) and root[5] > 0
    last_round = set(avoid) if share else None
    searches = [_DepthFirst(policy, policy.candidates, root, root_autos, avoid, last_round)]
    # the root is entered once, counted by the first
    searches += [
        _DepthFirst(policy, order, root, root_autos, avoid, last_round, 0) for order in others
    ]
    deadline = started + budget.seconds
    while True:
        for search in searches:
            if search.ended:
                continue
            verdict = search.run(_CHECK_EVERY)
            nodes = sum(s.nodes for s in searches)
            if verdict is Verdict.WON or (
                verdict is Verdict.LOST and not (share and not all(s.ended for s in searches))
            ):
                return verdict, search.line, nodes, _best_line(searches)
            if nodes >= budget.nodes or clock() >= deadline or stop():
                return Verdict.UNKNOWN, [], nodes, _best_line(searches)


def _best_line(searches: list[_DepthFirst]) -> list[SolverMove]:
    """The line to the most cards home of all the searches (the first search's of equals)."""
    best = searches[0]
    for search in searches[1:]:
        if search.best_score > best.best_score:
            best = search
    return best.best_line


def _idle_redeal(after: Position, positions: list[Position], depth: int) -> bool:
    """Whether a redeal leads back to the position it was made in, or to the one before
    it (Little Billee's second redeal in a row deals the piles back as they lay), with
    fewer redeals left and nothing else changed: redeals are never forced, so every line
    from there is a line from the position it came back to, which is searched."""
    for back in (positions[depth], positions[depth - 1] if depth else None):
        if back is not None and after[:5] == back[:5] and after[6] == back[6]:
            return True
    return False


class _DepthFirst:
    """One depth-first search from a settled root that can stop and go on: ``run``
    enters up to a given number of new positions at a time."""

    def __init__(
        self,
        policy: Policy,
        candidates: Callable[[Position], list[SolverMove]],
        root: Position,
        root_autos: list[SolverMove],
        avoid: Iterable[bytes],
        last_round: set[bytes] | None = None,
        nodes: int = 1,
    ) -> None:
        self.policy = policy
        self.candidates = candidates
        self.root_autos = root_autos
        self.seen: set[bytes] = {policy.key(root), *avoid}
        # the table of the last round's positions, where it is shared (_search)
        self.last_round = last_round
        self.ended = False  # entered every position it was left
        self.nodes = nodes
        self.best_score = sum(root[2])
        self.best_line = root_autos
        self.line: list[SolverMove] = []  # WON: the winning line
        # The path: for each depth, the move played and the safe moves that followed it.
        self.path: list[list[SolverMove]] = []
        self.positions = [root]
        self.move_lists = [candidates(root)]
        self.next_index = [0]

    def run(self, new_positions: int) -> Verdict | None:
        """WON or LOST once decided, None once ``new_positions`` more were entered."""
        policy = self.policy
        model = policy.model
        key = policy.key
        settle_after = policy.settle_after
        candidates = self.candidates
        dead = policy.dead
        prunes = policy.prunes
        total = model.total
        seen = self.seen
        last_round = self.last_round
        path = self.path
        positions = self.positions
        move_lists = self.move_lists
        next_index = self.next_index
        left = new_positions
        while positions:
            depth = len(positions) - 1
            moves = move_lists[depth]
            i = next_index[depth]
            if i >= len(moves):
                positions.pop()
                move_lists.pop()
                next_index.pop()
                if path:
                    path.pop()
                continue
            next_index[depth] = i + 1
            move = moves[i]
            parent = positions[depth]
            after = model.apply(parent, move)
            if move[0] == REDEAL and prunes and _idle_redeal(after, positions, depth):
                continue
            child, autos = settle_after(after, move)
            k = key(child)
            table = seen if last_round is None or child[5] else last_round
            if k in table:
                continue
            table.add(k)
            self.nodes += 1
            score = sum(child[2])
            if score == total:
                line = [m for step in path for m in step] + [move, *autos]
                self.line = self.root_autos + line
                return Verdict.WON
            if score > self.best_score:
                # copied only when the best improves: at most once per card
                self.best_score = score
                self.best_line = [
                    *self.root_autos,
                    *(m for step in path for m in step),
                    move,
                    *autos,
                ]
            if not dead(child):
                path.append([move, *autos])
                positions.append(child)
                move_lists.append(candidates(child))
                next_index.append(0)
            left -= 1
            if left <= 0:
                return None
        self.ended = True
        return Verdict.LOST
