"""The solver's shortcuts against a plain exhaustive search: the oracle, the positions it
is given, and the checks (used by test_soundness.py, and by a long run from the command
line: ``python -m tests.solver.soundness --positions 10000``).

**The oracle** (:func:`exact_graph`) lists every position reachable from a state through
the rules library's own ``legal_moves`` and ``apply``, breadth first, with nothing
skipped and nothing merged: positions are told apart by every pile in order, the redeals
left and the generator's draws (only the move count is left out, which no rule reads).
Whether a line wins from each position is then found backwards from the won ones. It
shares no code with the solver's search, move generation, key or shortcuts.

**The checks** (:func:`check_graph`), at every position of the graph, each shortcut on
its own:

- the solver's moves are the library's, and its apply gives the library's position;
- safe moves (``SafeMoves.settle`` and ``settle_after``) never turn a position from which
  a line wins into one from which none does, and after a move from a settled position
  ``settle_after`` plays exactly what ``settle`` would;
- a dead end (``dead_end_check``) is only ever a position from which no line wins;
- the moves the search tries (``MoveChooser``) are legal, and where a line wins, one of
  them keeps a winning line open;
- positions with the same search key (the canonical key) are won or lost alike, and the
  plain key (``canonical=False``) tells every position of the graph apart;

and the search itself, from the start and from a few positions on the way, with every
shortcut on, with each one alone, and with none, gives the oracle's verdict (its
winning lines replayed through the library to a won position).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import patience
from patience import Move, State, Status
from patience.solver import Budget, Verdict, solve
from patience.solver.dead_ends import dead_end_check
from patience.solver.model import TRANSFER, Model, Position, SolverMove
from patience.solver.policy import Policy
from patience.solver.pruning import MoveChooser
from patience.solver.safe_moves import SafeMoves
from patience.variant import rules_of

VARIANT_IDS = tuple(patience.VARIANTS)
LUCIE_FAMILY = ("la-belle-lucie", "house-in-the-wood", "house-on-the-hill")
TWO_PACKS = tuple(v for v in VARIANT_IDS if patience.get_variant(v).packs == 2)

# The search with each shortcut alone, all of them, and none (the solver's plain mode).
OFF = {"safe_moves": False, "pruning": False, "dead_ends": False, "canonical": False}
SWITCHES: dict[str, dict[str, bool]] = {
    "none": OFF,
    "safe moves only": {**OFF, "safe_moves": True},
    "pruning only": {**OFF, "pruning": True},
    "dead ends only": {**OFF, "dead_ends": True},
    "canonical key only": {**OFF, "canonical": True},
    "all": {},
}
BUDGET = Budget(nodes=400_000, seconds=120)


class TooBig(Exception):
    """The graph has more positions than the oracle was allowed."""


# --- the oracle ---------------------------------------------------------------------------


@dataclass
class Graph:
    """Every position reachable from ``states[0]``; ``edges[i]``: each legal move of
    position i (as the solver writes it) and the position it leads to."""

    model: Model
    positions: list[Position]
    states: list[State]
    edges: list[dict[SolverMove, int]]
    index: dict[Position, int]
    winnable: list[bool] = field(default_factory=list)

    @property
    def root_winnable(self) -> bool:
        return self.winnable[0]


def exact_graph(state: State, limit: int = 6000) -> Graph:
    """The oracle: the whole game graph from ``state`` through the rules library, and
    for each position whether a line wins from it. Raises TooBig past ``limit``."""
    model = Model(rules_of(state), state.deal)
    root = model.position(state)
    graph = Graph(model, [root], [state], [], {root: 0})
    # Children are told apart by the library's own parts, which say the same as the
    # solver's position (each is made from the other) but cost less to hash: most
    # children were met before, and only a new one needs its position.
    seen: dict[tuple[object, ...], int] = {library_key(state): 0}
    queue = deque([0])
    while queue:
        i = queue.popleft()
        current = graph.states[i]
        edges: dict[SolverMove, int] = {}
        for move in current.legal_moves():
            child = current.apply(move)
            key = library_key(child)
            j = seen.get(key)
            if j is None:
                if len(graph.positions) >= limit:
                    raise TooBig(str(state))
                pos = model.position(child)
                j = seen[key] = graph.index[pos] = len(graph.positions)
                graph.positions.append(pos)
                graph.states.append(child)
                queue.append(j)
            edges[model.solver_move(move)] = j
        graph.edges.append(edges)
    assert len(graph.index) == len(seen), f"two library positions share a solver position: {state}"
    graph.winnable = winning(graph, [list(edges.values()) for edges in graph.edges])
    return graph


def library_key(state: State) -> tuple[object, ...]:
    """A position as the rules library holds it: every pile in order, the redeals left
    and the generator's draws (the move count, which no rule reads, left out)."""
    return (state.piles, state.redeals_left, state.draws)


def winning(graph: Graph, moves: list[list[int]]) -> list[bool]:
    """For each position, whether a line of the given moves (``moves[i]``: the positions
    the moves from position i lead to) reaches a won position: found backwards from
    the won positions."""
    parents: list[list[int]] = [[] for _ in graph.positions]
    for i, children in enumerate(moves):
        for j in children:
            parents[j].append(i)
    winnable = [s.foundation_cards == s.total_cards for s in graph.states]
    back = deque(i for i, w in enumerate(winnable) if w)
    while back:
        j = back.popleft()
        for i in parents[j]:
            if not winnable[i]:
                winnable[i] = True
                back.append(i)
    return winnable


# --- the checks ---------------------------------------------------------------------------


@dataclass
class Tally:
    """What a run checked, per game."""

    positions: int = 0  # starting positions decided by the oracle
    won: int = 0
    lost: int = 0
    too_big: int = 0
    nodes: int = 0  # positions of the graphs, each checked
    lost_nodes: int = 0  # of which no line wins
    safe_played: int = 0  # positions where safe moves were played
    dead: int = 0  # positions a dead-end rule declared lost
    pruned: int = 0  # moves the search never tries
    merged: int = 0  # positions the canonical key identified with another
    searches: int = 0  # searches compared with the oracle

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def check_graph(graph: Graph, sample: random.Random | None = None, searches: int = 2) -> Tally:
    """Every shortcut at every position of the graph, and the search from its start
    and from ``searches`` other positions (drawn with ``sample``): see the module's doc."""
    model = graph.model
    positions, winnable, edges_of = graph.positions, graph.winnable, graph.edges
    start = str(graph.states[0])
    safe = SafeMoves(model)
    chooser = MoveChooser(model)
    dead = dead_end_check(model)
    canonical = Policy(model)
    plain = Policy.plain(model)
    tally = Tally(positions=1, nodes=len(positions), lost_nodes=winnable.count(False))
    if graph.root_winnable:
        tally.won = 1
    else:
        tally.lost = 1
    by_key: dict[bytes, bool] = {}
    plain_keys: set[bytes] = set()
    tried: list[list[int]] = []  # per position, where the moves the search tries lead
    for i, pos in enumerate(positions):
        win = winnable[i]
        edges = edges_of[i]
        where = f"{graph.states[i]} (from {start})"
        # the solver's moves and apply are the library's
        listed = model.legal_moves(pos)
        assert len(listed) == len(set(listed)) and set(listed) == set(edges), where
        for move, j in edges.items():
            assert model.apply(pos, move) == positions[j], (move, where)
        # safe moves: settle, move by move legal and to a foundation
        settled, played = safe.settle(pos)
        at = i
        for move in played:
            assert move[0] == TRANSFER and move[2] >= model.found_base, (move, where)
            assert move in edges_of[at], (move, where)
            at = edges_of[at][move]
        assert positions[at] == settled
        if played:
            tally.safe_played += 1
        if win:
            assert winnable[at], f"safe moves {played} lose the win: {where}"
        for move, j in edges.items():
            after, more = safe.settle_after(positions[j], move)
            if not played:  # from a settled position, exactly what settle plays
                assert (after, more) == safe.settle(positions[j]), (move, where)
            k = j
            for extra in more:
                assert extra in edges_of[k], (move, extra, where)
                k = edges_of[k][extra]
            assert positions[k] == after
            if winnable[j]:
                assert winnable[k], f"safe moves {more} after {move} lose the win: {where}"
        # dead ends
        if dead is not None and dead(pos):
            tally.dead += 1
            assert not win, f"a dead end that wins: {where}"
        # the moves the search tries
        chosen = chooser(pos)
        assert len(chosen) == len(set(chosen)) and set(chosen) <= set(edges), where
        tally.pruned += len(edges) - len(chosen)
        tried.append([edges[m] for m in chosen])
        # the keys
        key = canonical.key(pos)
        known = by_key.get(key)
        if known is None:
            by_key[key] = win
        else:
            tally.merged += 1
            assert known == win, f"the canonical key merges won and lost: {where}"
        plain_keys.add(plain.key(pos))
    assert len(plain_keys) == len(positions), f"the plain key merges positions: {start}"
    # where a line wins, a line of moves the search tries wins too
    kept = winning(graph, tried)
    for i, win in enumerate(winnable):
        assert kept[i] == win, f"pruning drops every winning line: {graph.states[i]} (from {start})"
    # the search, from the start and from a few other positions
    starts = [0]
    if sample is not None and len(positions) > 1:
        starts += sample.sample(range(1, len(positions)), k=min(searches, len(positions) - 1))
    for i in starts:
        tally.searches += check_searches(graph, i)
    return tally


def check_searches(graph: Graph, i: int, switches: dict[str, dict[str, bool]] = SWITCHES) -> int:
    """The search from position i with each set of switches gives the oracle's verdict."""
    state = graph.states[i]
    truth = graph.winnable[i]
    model = graph.model
    for name, settings in switches.items():
        result = solve(state, BUDGET, policy=Policy(model, **settings))
        assert result.decided, (name, str(state))
        assert (result.verdict is Verdict.WON) == truth, (name, truth, str(state))
        if truth:
            end = replay(state, result.line)
            assert end.status is Status.WON, (name, str(state))
    return len(switches)


def replay(state: State, line: tuple[Move, ...]) -> State:
    for number, move in enumerate(line):
        assert state.is_legal(move), f"move {number} ({move}) is not legal in {state}"
        state = state.apply(move)
    return state


# --- positions near the end of real games --------------------------------------------------


def random_play(state: State, rng: random.Random, moves: int) -> State:
    """``moves`` random legal moves, mostly to the foundations when one is there, a
    redeal now and then."""
    for _ in range(moves):
        legal = state.legal_moves()
        if not legal:
            break
        home = [m for m in legal if m.kind.name == "WITHDRAW" or m.target[:1] == "f"]
        other = [m for m in legal if m.kind.name != "REDEAL"]
        roll = rng.random()
        if home and roll < 0.6:
            move = rng.choice(home)
        elif other and roll < 0.97:
            move = rng.choice(other)
        else:
            move = rng.choice(legal)
        state = state.apply(move)
    return state


def thinned(state: State, rng: random.Random, out: int, redeals: str = "keep") -> State:
    """The position with cards taken to the foundations (each the card a foundation
    wants next, from wherever it lies) until about ``out`` are left off them; the other
    cards keep their places. Cards of one to three suits are taken last, so that those
    suits' cards, twins included, block each other. ``redeals``: "keep" the state's
    redeals left, or "any" number (with draws that fit it)."""
    rules = rules_of(state)
    piles = [list(p) for p in state.piles]
    founds = list(rules.foundations)
    loose = [i for i in range(len(piles)) if i not in founds]
    suits_last = set(rng.sample(range(4), k=rng.randint(1, 3)))
    off = sum(len(piles[i]) for i in loose)
    while off > out:
        ready: list[tuple[int, int]] = []
        for f in founds:
            card = rules.found_next[f][len(piles[f])]
            if card >= 0 and any(card in piles[i] for i in loose):
                ready.append((f, card))
        if not ready:
            break
        early = [r for r in ready if r[1] // 13 not in suits_last]
        f, card = rng.choice(early if early and rng.random() < 0.9 else ready)
        places = [(i, k) for i in loose for k, c in enumerate(piles[i]) if c == card]
        i, k = rng.choice(places)
        del piles[i][k]
        piles[f].append(card)
        off -= 1
    redeals_left, draws = state.redeals_left, state.draws
    if redeals == "any" and rules.redeals:
        redeals_left = rng.randint(0, rules.redeals)
        draws = fitting_draws(
            state.variant.id, rules.total, piles, rules.tableau, redeals_left, rng
        )
    return State.from_parts(
        state.variant,
        piles,
        options=state.options,
        redeals_left=redeals_left,
        moves_made=state.moves_made + 1000,
        deal=state.deal,
        draws=draws,
    )


def fitting_draws(
    variant_id: str,
    total: int,
    piles: list[list[int]],
    tableau: tuple[int, ...],
    redeals_left: int,
    rng: random.Random,
) -> int:
    """Generator draws that agree with the redeals used (shuffled redeals draw one less
    than the cards they shuffle)."""
    opening = total - 1
    used = patience.get_variant(variant_id).redeals - redeals_left
    if variant_id not in LUCIE_FAMILY or not used:
        return opening
    cards = sum(len(piles[t]) for t in tableau)
    return opening + sum(rng.randint(max(cards - 1, 0), total - 1) for _ in range(used))


# How many cards stay off the foundations, at most, for the oracle to stay small.
MOST_OUT = {
    "cody": 7,
    "little-billee": 7,
    "usk": 6,
    "la-belle-lucie": 10,
    "house-in-the-wood": 8,
    "house-on-the-hill": 8,
    "napoleon-at-st-helena": 5,
    "the-fifteen": 5,
    "bisley": 10,
}


def near_end(variant_id: str, rng: random.Random) -> State:
    """A position near the end of a real game: a random deal (either generator range),
    random play, then cards taken to the foundations consistently (:func:`thinned`)."""
    variant = patience.get_variant(variant_id)
    options = ("fill_from_waste_only",) if variant.options and rng.random() < 0.4 else ()
    deal = rng.randrange(32000) if rng.random() < 0.5 else rng.randrange(10**20)
    state = random_play(variant.new_game(deal, options=options), rng, rng.randint(0, 120))
    out = rng.randint(2, MOST_OUT[variant_id])
    return thinned(state, rng, out, redeals=rng.choice(("keep", "any")))


# --- hand-built positions that stress one rule ----------------------------------------------

# Which stress patterns each game has (see :func:`stressed`).
PATTERNS: dict[str, tuple[str, ...]] = {
    "cody": ("twins", "full cells", "blocked"),
    "little-billee": ("twins", "full cells", "blocked"),
    "usk": ("empty columns", "kings over queens", "blocked"),
    "la-belle-lucie": ("kings over queens", "blocked"),
    "house-in-the-wood": ("twins", "kings over queens", "blocked"),
    "house-on-the-hill": ("twins", "kings over queens", "blocked"),
    "napoleon-at-st-helena": ("twins", "stock and waste", "blocked"),
    "the-fifteen": ("twins", "empty columns", "blocked"),
    "bisley": ("kings over queens", "blocked"),
}


def stressed(variant_id: str, rng: random.Random, pattern: str) -> State:
    """A hand-built position: the foundations built to random lengths, a few cards off
    them laid out to stress one rule:

    - "twins": both copies of the cards of one suit are out (two-pack games), so that
      which copy goes where matters to the safe moves and the foundations;
    - "full cells": every reserve cell holds a card the foundations want late;
    - "empty columns": several empty columns and cards to fill them; in Usk, a redeal
      left (:func:`emptied_before_a_redeal`);
    - "kings over queens": high cards of a suit above the lower ones in the same pile;
    - "stock and waste": most cards in Napoleon's stock and waste;
    - "blocked": the cards the foundations want first at the bottom of a few piles.
    """
    variant = patience.get_variant(variant_id)
    if pattern == "empty columns" and variant_id == "usk":
        return emptied_before_a_redeal(rng)
    if pattern == "twins" and variant.cells:
        return twins_at_both_ends(variant_id, rng)
    options = ("fill_from_waste_only",) if variant.options and rng.random() < 0.4 else ()
    rules = variant.ruleset(frozenset(options))
    piles: list[list[int]] = [[] for _ in variant.pile_ids]
    founds = list(rules.foundations)
    for f in founds:
        piles[f] = [c for c in rules.found_next[f] if c >= 0]
    if variant.packs == 1 and len(founds) == 8:  # Bisley: the two ends of a suit meet
        for up, down in zip(founds[:4], founds[4:], strict=True):
            meet = rng.randint(1, 13)
            piles[up] = piles[up][:meet]
            piles[down] = piles[down][: 13 - meet]
    keep_ace = variant.deal_pattern.aces_to_foundations
    tableau = list(rules.tableau)
    cells = list(rules.cells)
    out = rng.randint(3, MOST_OUT[variant_id])
    if pattern == "full cells":
        out = len(cells) + rng.randint(2, 4)
    suits = rng.sample(range(4), k=1 if pattern in ("twins", "kings over queens") else 2)
    loose: list[int] = []
    for _ in range(out * 8):
        if len(loose) >= out:
            break
        choices = [f for f in founds if rules.found_next[f][0] // 13 in suits]
        f = rng.choice(choices if rng.random() < 0.85 else founds)
        if len(piles[f]) > (1 if keep_ace and rules.found_next[f][0] % 13 == 0 else 0):
            loose.append(piles[f].pop())

    def need(card: int) -> int:
        """How many cards the foundations take before this one, at the least."""
        return min(
            rules.found_next[f].index(card) - len(piles[f])
            for f in founds
            if card in rules.found_next[f] and rules.found_next[f].index(card) >= len(piles[f])
        )

    if pattern in ("blocked", "full cells"):
        loose.sort(key=lambda c: (need(c), rng.random()))  # wanted soonest at the bottom
    elif pattern == "kings over queens":
        loose.sort(key=lambda c: (c % 13, rng.random()))  # high cards last: on top
    else:
        rng.shuffle(loose)
    if pattern == "full cells":  # the cards wanted last in the cells
        for c in cells:
            piles[c].append(loose.pop())
    if pattern == "kings over queens":
        used = rng.sample(tableau, k=rng.randint(1, 3))
    elif pattern in ("blocked", "full cells"):
        used = rng.sample(tableau, k=rng.randint(2, 3))
    elif pattern == "empty columns":
        used = rng.sample(tableau, k=rng.randint(1, min(3, len(loose))))
    else:
        used = rng.sample(tableau, k=min(len(tableau), rng.randint(2, max(2, len(loose)))))
    for n, card in enumerate(loose):
        empty_cells = [c for c in cells if not piles[c]]
        roll = rng.random()
        if empty_cells and roll < 0.25:
            piles[rng.choice(empty_cells)].append(card)
        elif rules.stock >= 0 and (roll < (0.8 if pattern == "stock and waste" else 0.4)):
            piles[rng.choice((rules.stock, rules.stock, rules.waste))].append(card)
        elif pattern in ("blocked", "full cells"):
            piles[used[n % len(used)]].append(card)
        elif pattern == "kings over queens":
            piles[used[0] if rng.random() < 0.7 else rng.choice(used)].append(card)
        else:
            piles[rng.choice(used)].append(card)
    redeals_left = rng.randint(0, rules.redeals)
    if pattern == "empty columns" and rules.redeals:
        redeals_left = rng.randint(1, rules.redeals)
    draws = fitting_draws(variant_id, rules.total, piles, rules.tableau, redeals_left, rng)
    return State.from_parts(
        variant,
        piles,
        options=options,
        redeals_left=redeals_left,
        moves_made=1000,
        deal=rng.randrange(10**6),
        draws=draws,
    )


def emptied_before_a_redeal(rng: random.Random) -> State:
    """Usk with its redeal left, two empty columns or more and more than ten cards out
    (so that the redeal deals some columns two cards): the redeal gathers the columns in
    order, so which empty column takes a king can decide the game."""
    variant = patience.get_variant("usk")
    while True:
        state = random_play(variant.new_game(rng.randrange(10**6)), rng, rng.randint(0, 60))
        state = thinned(state, rng, rng.randint(11, 13))
        if state.redeals_left and sum(1 for p in state.piles[:10] if not p) >= 2:
            return state


def twins_at_both_ends(variant_id: str, rng: random.Random) -> State:
    """Cody or Little Billee: one suit's ace foundation built up to just below a rank,
    its king foundation down to just above it (or one more), so that the two copies of
    the cards between belong one to each end, which matters for the safe moves; most
    reserve cells full of that suit's cards, the rest in a few fans."""
    variant = patience.get_variant(variant_id)
    rules = variant.ruleset(frozenset())
    piles: list[list[int]] = [[] for _ in variant.pile_ids]
    founds = list(rules.foundations)
    for f in founds:
        piles[f] = [c for c in rules.found_next[f] if c >= 0]
    suit = rng.randrange(4)
    up, down = founds[suit], founds[4 + suit]
    meet = rng.randint(1, 13)  # the rank both ends may want
    held = 13 - meet - rng.randint(0, 1) if meet < 13 else 0  # the king end: K down to meet+1
    loose = piles[up][meet - 1 :] + piles[down][held:]
    piles[up] = piles[up][: meet - 1]
    piles[down] = piles[down][:held]
    rng.shuffle(loose)
    cells = list(rules.cells)
    for c in cells[: rng.randint(len(cells) - 2, len(cells))]:
        if loose:
            piles[c].append(loose.pop())
    used = rng.sample(list(rules.tableau), k=rng.randint(2, 4))
    for card in loose:
        piles[rng.choice(used)].append(card)
    redeals_left = rng.randint(0, rules.redeals)
    return State.from_parts(
        variant,
        piles,
        redeals_left=redeals_left,
        moves_made=1000,
        deal=rng.randrange(10**6),
        draws=rules.total - 1,
    )


# --- the long run ------------------------------------------------------------------------


def sources(variant_id: str) -> list[tuple[str, Callable[[random.Random], State]]]:
    out: list[tuple[str, Callable[[random.Random], State]]] = [
        ("near the end", lambda rng: near_end(variant_id, rng))
    ]
    for pattern in PATTERNS[variant_id]:
        out.append((pattern, lambda rng, p=pattern: stressed(variant_id, rng, p)))
    return out


def run(variant_id: str, positions: int, seed: str, limit: int) -> Tally:
    """Check ``positions`` positions of one game (too big ones are drawn again)."""
    rng = random.Random(f"{seed} {variant_id}")
    tally = Tally()
    makers = sources(variant_id)
    while tally.positions < positions:
        _, make = makers[tally.positions % len(makers)]
        state = make(rng)
        try:
            graph = exact_graph(state, limit)
        except TooBig:
            tally.too_big += 1
            continue
        tally.add(check_graph(graph, rng))
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description="The solver's shortcuts against plain search.")
    parser.add_argument("--positions", type=int, default=1000, help="per game (default 1000)")
    parser.add_argument("--games", nargs="*", default=list(VARIANT_IDS))
    parser.add_argument("--seed", default="long run")
    parser.add_argument("--limit", type=int, default=6000, help="most positions per graph")
    args = parser.parse_args()
    print("game                    positions  won lost  too big    nodes    lost  safe  dead"
          "   pruned  merged searches  seconds")  # fmt: skip
    for variant_id in args.games:
        started = time.process_time()
        t = run(variant_id, args.positions, args.seed, args.limit)
        print(
            f"{variant_id:24}{t.positions:9} {t.won:4} {t.lost:4} {t.too_big:8} {t.nodes:8}"
            f" {t.lost_nodes:7} {t.safe_played:5} {t.dead:5} {t.pruned:8} {t.merged:7}"
            f" {t.searches:8}"
            f" {time.process_time() - started:8.0f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
