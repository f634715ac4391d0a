"""The solver's verdicts: hand-built positions with known answers, small positions that a
plain search over the rules library decides for comparison (with every shortcut of the
solver on, and each one off), the budget, and winning lines replayed to WON."""

from __future__ import annotations

import random
import time
from collections import deque

import patience
import pytest
from patience import Move, Status
from patience.solver import Budget, Result, Verdict, solve
from patience.solver.model import Model
from patience.solver.policy import Policy
from patience.solver.search import _CHECK_EVERY, STRAIGHTENED, straightened
from patience.variant import rules_of

from tests.oracle import position
from tests.solver.positions import TooBig, plain_verdict, replay, shuttle, small_position

VARIANT_IDS = list(patience.VARIANTS)

SMALL = Budget(nodes=200_000, seconds=60)


def won_line(state: patience.State, budget: Budget = SMALL) -> tuple[Move, ...]:
    result = solve(state, budget)
    assert result.verdict is Verdict.WON, result
    end = replay(state, result.line)
    assert end.status is Status.WON
    assert result.best_first_move == (result.line[0] if result.line else None)
    return result.line


# --- hand-built positions ------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant_id", "piles", "line"),
    [
        ("la-belle-lucie", {"t": {"t1": "KH"}}, ["t1-f3"]),
        ("bisley", {"t": {"t3": "7C"}, "f": {"f1": "6C", "f5": "8C"}}, ["t3-f1"]),
        ("cody", {"r": {"r4": "KD"}, "f": {"f4": "QD"}}, ["r4-f4"]),
        ("napoleon-at-st-helena", {"stock": "KS", "f": {"f4": "QS"}}, ["deal", "waste-f4"]),
        ("usk", {"t": {"t2": "KS"}, "f": {"f2": "QS"}}, ["t2-f2"]),
    ],
)
def test_won_in_one(variant_id: str, piles: dict[str, object], line: list[str]) -> None:
    state = position(variant_id, n=0, dump=None, **piles)  # type: ignore[arg-type]
    assert [str(m) for m in won_line(state)] == line


def timed(state: patience.State, budget: Budget = SMALL, **kwargs: object) -> Result:
    """The search, with its reported seconds held between zero and the time it took seen
    from outside (the budget's clock, read before and after)."""
    clock = budget.clock()
    before = clock()
    result = solve(state, budget, **kwargs)  # type: ignore[arg-type]
    assert 0 <= result.seconds <= clock() - before
    return result


def reachable(state: patience.State) -> int:
    """How many positions the rules library reaches from ``state`` (with itself), each
    told apart by its piles, redeals left and draws, as the plain policy's key does."""
    seen = {(state.piles, state.redeals_left, state.draws)}
    queue = deque([state])
    while queue:
        for move in (here := queue.popleft()).legal_moves():
            child = here.apply(move)
            key = (child.piles, child.redeals_left, child.draws)
            if key not in seen:
                seen.add(key)
                queue.append(child)
    return len(seen)


def test_a_won_position_needs_no_move() -> None:
    state = position("bisley", dump=None)
    result = timed(state)
    assert (result.verdict, result.line, result.best_first_move) == (Verdict.WON, (), None)
    assert result.nodes == 0  # nothing searched


def test_positions_entered_are_counted() -> None:
    """`nodes` is the positions the search entered: the start alone when its safe moves
    win; the start and one more when the plain policy (which plays nothing at once)
    must make that move itself."""
    state = position("la-belle-lucie", t={"t1": "KH"}, n=0, dump=None)
    assert timed(state).nodes == 1
    plain = Policy.plain(Model(rules_of(state), state.deal))
    assert timed(state, policy=plain).nodes == 2


HEARTS_BLOCKED = {"t1": "2H KH", "t2": "QH JH TH 9H 8H 7H 6H 5H 4H 3H"}


def test_proven_lost_although_moves_remain() -> None:
    """La Belle Lucie, no redeal left: the king of hearts lies on the two of hearts, and a
    king never leaves a fan. The spades can still go home, the game cannot be won."""
    state = position(
        "la-belle-lucie",
        t={**HEARTS_BLOCKED, "t3": "5S", "t4": "4S", "t5": "KS QS JS TS 9S 8S 7S 6S"},
        f={"f2": "3S", "f3": "AH"},
        n=0,
        dump=None,
    )
    assert state.legal_moves()
    plain = Policy.plain(Model(rules_of(state), state.deal))
    for policy in (None, plain):
        result = timed(state, policy=policy)
        assert result.verdict is Verdict.LOST and result.line == ()
        assert result.best_first_move is None  # a lost position has no move to suggest
    # the plain search enters every reachable position once: the proof is that count
    assert timed(state, policy=plain).nodes == reachable(state) > 1


def test_only_cycling_moves_remain() -> None:
    """The House in the Wood, no redeal left: both fours of hearts lie under a king of
    hearts, which never moves; the fives shuttle between the sixes for ever."""
    state = shuttle()
    assert {str(m) for m in state.legal_moves()} == {"t1-t4", "t3-t4"}
    result = solve(state, Budget(nodes=1000))
    assert result.verdict is Verdict.LOST
    assert plain_verdict(state) is False


def test_a_lost_deal_and_a_stuck_one() -> None:
    bisley = patience.get_variant("bisley").new_game(9)
    assert bisley.legal_moves() and solve(bisley, SMALL).verdict is Verdict.LOST
    stuck = position("la-belle-lucie", t=HEARTS_BLOCKED, f={"f3": "AH"}, n=0, dump=None)
    assert stuck.status is Status.STUCK
    result = timed(stuck)
    assert (result.verdict, result.line, result.nodes) == (Verdict.LOST, (), 1)


def test_a_redeal_can_be_what_wins() -> None:
    """La Belle Lucie with a redeal left and the king on the two: only the redeal (or a
    later one) can separate them."""
    state = position("la-belle-lucie", t=HEARTS_BLOCKED, f={"f3": "AH"}, n=1, dump=None)
    result = solve(state, SMALL)
    if result.verdict is Verdict.WON:
        assert Move.redeal() in result.line
    assert (result.verdict is Verdict.WON) == plain_verdict(state)


# --- budget ---------------------------------------------------------------------------


def test_budget_in_nodes_gives_unknown_and_a_playable_move() -> None:
    state = patience.get_variant("napoleon-at-st-helena").new_game(100)
    result = solve(state, Budget(nodes=600, seconds=60))
    assert result.verdict is Verdict.UNKNOWN and result.line == ()
    assert 600 <= result.nodes < 600 + 1024
    assert result.best_first_move in state.legal_moves()
    # the budget is read every _CHECK_EVERY positions: one that falls on a reading is
    # kept exactly
    exact = timed(state, Budget(nodes=_CHECK_EVERY + 1, seconds=60))
    assert (exact.verdict, exact.nodes) == (Verdict.UNKNOWN, _CHECK_EVERY + 1)


def test_the_budget_clock() -> None:
    """Tables count CPU seconds (fair on a shared machine); answers count the wall clock
    (a reply is due within a deadline)."""
    assert Budget(cpu_time=True).clock() is time.process_time
    assert Budget().clock() is time.perf_counter


def test_budget_in_seconds() -> None:
    state = patience.get_variant("napoleon-at-st-helena").new_game(100)
    result = timed(state, Budget(nodes=10**9, seconds=0.2))
    assert result.verdict is Verdict.UNKNOWN and result.seconds >= 0.2
    cpu = solve(state, Budget(nodes=10**9, seconds=0.2, cpu_time=True))
    assert cpu.verdict is Verdict.UNKNOWN


# --- small positions against a plain search --------------------------------------------

SWITCHES = {
    "full": {},
    "no safe moves": {"safe_moves": False},
    "no pruning": {"pruning": False},
    "no dead ends": {"dead_ends": False},
    "exact key": {"canonical": False},
}
CARDS_OUT = {"usk": 4, "napoleon-at-st-helena": 3, "the-fifteen": 3}


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_small_positions_match_a_plain_search(variant_id: str) -> None:
    """Every verdict, with all of the solver's shortcuts and with each one switched off,
    is the plain search's: so each shortcut keeps every win and invents none."""
    rng = random.Random(f"small {variant_id}")
    decided = 0
    verdicts = set()
    while decided < 6:
        state = small_position(variant_id, rng, CARDS_OUT.get(variant_id, 7))
        try:
            truth = plain_verdict(state, limit=8000)
        except TooBig:
            continue
        decided += 1
        verdicts.add(truth)
        model = Model(rules_of(state), state.deal)
        for name, switches in SWITCHES.items():
            policy = Policy(model, **switches)  # type: ignore[arg-type]
            result = solve(state, SMALL, policy=policy)
            assert result.decided, (name, str(state))
            assert (result.verdict is Verdict.WON) == truth, (name, str(state))
            if truth:
                assert replay(state, result.line).status is Status.WON
            dead = policy.dead(model.position(state))
            assert not (dead and truth), (name, str(state))


# --- whole deals ----------------------------------------------------------------------

EASY_DEALS = {
    "cody": 1,
    "little-billee": 1,
    "usk": 15,
    "la-belle-lucie": 1,
    "house-in-the-wood": 2,
    "house-on-the-hill": 1,
    "napoleon-at-st-helena": 2,
    "the-fifteen": 1,
    "bisley": 1,
}


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_won_deals_replay_to_won(variant_id: str) -> None:
    state = patience.get_variant(variant_id).new_game(EASY_DEALS[variant_id])
    line = won_line(state, Budget(nodes=300_000, seconds=120))
    game = patience.Game.from_state(state)
    for move in line:
        game.push(move)
    assert game.state.status is Status.WON


def test_a_whole_line_straightened_still_wins() -> None:
    """A deal of The Fifteen won in a line of thousands of moves, many of them past what
    the search straightens itself: straightened all through, it is shorter and still
    wins. (The first order's line: the two orders in turns win this deal in a line of
    hundreds.)"""
    state = patience.get_variant("the-fifteen").new_game(96846154138235208773)
    model = Model(rules_of(state), state.deal)
    first_order = Policy(model).choosing(Policy(model).candidates)
    result = solve(state, Budget(nodes=300_000, seconds=120), policy=first_order)
    assert result.verdict is Verdict.WON
    line = result.line
    assert len(line) > STRAIGHTENED
    short = straightened(state, line)
    assert len(short) < len(line)
    assert replay(state, short).status is Status.WON


# --- where a shortcut would lose the win ------------------------------------------------


@pytest.mark.parametrize(
    "notation",
    [
        # a redeal left: a card sent home changes what the redeal deals (R)
        "house-in-the-wood t:-/-/-/-/-/KC/-/-/-/-/-/-/-/-/-/QCJD/-/-/-/-/-/-/-/-/-/-/-/-/"
        "KCQDKD/-/-/-/-/-/- f:QC/JC/KS/KS/KH/KH/TD/KD n:2 m:1000 d:428053/103",
        "la-belle-lucie t:QD/-/-/JHKD/-/-/-/-/-/-/-/-/-/-/-/-/-/QHTHKHKS9HKCQC"
        " f:JC/QS/8H/JD n:2 m:1000 d:599172/51",
        # Usk: the king of clubs fits its foundation but must first hold the queen of
        # diamonds, which covers the jack the diamonds need (C)
        "usk t:JDQD/-/-/-/-/KHKDKC/-/-/-/- f:QC/KS/QH/TD n:0 m:1000 d:62222/51",
    ],
)
def test_foundation_moves_that_are_not_safe(notation: str) -> None:
    """Positions won only if a card that fits a foundation stays out for now: the solver
    must not play it at once (the plain search agrees that they are won)."""
    state = patience.parse_state(notation)
    assert plain_verdict(state) is True
    won_line(state)


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_the_plain_policy_switches_every_shortcut_off(variant_id: str) -> None:
    """What the shortcuts are checked against: every legal move tried, in the model's
    order, nothing played at once, no dead end, and the exact key (columns in their
    order); where the full policy does otherwise, near the end of random games."""
    rng = random.Random(f"plain {variant_id}")
    differs = 0
    for _ in range(40):
        state = small_position(variant_id, rng, rng.randint(2, 12))
        model = Model(rules_of(state), state.deal)
        plain, full = Policy.plain(model), Policy(model)
        pos = model.position(state)
        legal = model.legal_moves(pos)
        assert plain.candidates(pos) == legal
        assert plain.settle(pos) == (pos, [])
        for move in legal:
            after = model.apply(pos, move)
            assert plain.settle_after(after, move) == (after, [])
        assert not plain.dead(pos)
        swapped = (pos[0][::-1], *pos[1:])
        if swapped != pos:
            assert plain.key(swapped) != plain.key(pos)
        differs += (
            full.candidates(pos) != legal
            or full.settle(pos)[1] != []
            or full.dead(pos)
            or (swapped != pos and full.key(swapped) == full.key(pos))
        )
    assert differs
