"""The searches themselves, as a search process runs them: a job in, a serialized
SolveResponse or HintResponse out (see patience_engine.searches). The moves in a reply
are written by the process's writer (`patience_engine.encoding`)."""

from __future__ import annotations

from collections.abc import Callable

import patience
from patience.solver import Budget, Hint, HintKind, Verdict, hint, solve
from solitaire.v1 import engine_pb2, game_pb2

from patience_engine import hint_plans
from patience_engine.codec import decode_state
from patience_engine.encoding import SPEED_PATH, ReplyWriter
from patience_engine.hint_plans import KIND_NUMBERS, VERDICT_NUMBERS
from patience_engine.search_jobs import SearchJob


def move_message(move: patience.Move, writer: ReplyWriter) -> game_pb2.Move:
    """A Move message with every field filled in, notation included."""
    return game_pb2.Move.FromString(writer.move_message(move))


def answer(
    job: SearchJob,
    stopped: Callable[[], bool],
    clock: Callable[[], float],
    writer: ReplyWriter = SPEED_PATH,
) -> bytes:
    """Runs the job's search within its budget and deadline."""
    # The engine validated the state before handing it over: it is read on trust.
    state = decode_state(job.state, trusted=True).state
    seconds = min(job.seconds, job.deadline - clock())
    if job.kind == "hint":
        return hint_reply(state, job.positions, seconds, stopped, writer, job.avoid)
    return solve_reply(state, job.positions, seconds, stopped, writer)


def solve_reply(
    state: patience.State,
    positions: int,
    seconds: float,
    stopped: Callable[[], bool],
    writer: ReplyWriter = SPEED_PATH,
) -> bytes:
    if seconds <= 0:  # the deadline is (nearly) there already: no time to search
        return engine_pb2.SolveResponse(verdict=engine_pb2.VERDICT_UNKNOWN).SerializeToString()
    result = solve(state, Budget(nodes=positions, seconds=seconds), stop=stopped)
    return engine_pb2.SolveResponse(
        verdict=VERDICT_NUMBERS[result.verdict],
        line=[move_message(move, writer) for move in result.line],
        positions=result.nodes,
        milliseconds=round(result.seconds * 1000),
    ).SerializeToString()


def hint_reply(
    state: patience.State,
    positions: int,
    seconds: float,
    stopped: Callable[[], bool],
    writer: ReplyWriter = SPEED_PATH,
    avoid: tuple[bytes, ...] = (),
) -> bytes:
    """The HintResponse, its plan not yet sealed (the server seals it: a search process
    holds no key); ``avoid``: the positions the search must not enter (the avoid of the
    game's last hint)."""
    legal = state.legal_moves()
    if seconds <= 0 and legal:
        # No time left: the hint is still a legal move, the first, as best effort,
        # without a search (which would enter a few hundred positions before its first
        # look at the clock).
        reply = engine_pb2.HintResponse(
            kind=engine_pb2.HINT_KIND_BEST_EFFORT, verdict=engine_pb2.VERDICT_UNKNOWN
        )
        reply.move.CopyFrom(move_message(legal[0], writer))
        return reply.SerializeToString()
    # A game already over is told without a search, whatever the budget.
    # the game's last hint, as far as this search needs it: what it avoids
    after = Hint(HintKind.BEST_EFFORT, None, Verdict.UNKNOWN, 0, 0.0, avoid=avoid)
    budget = Budget(nodes=positions, seconds=max(seconds, 0.0))
    found = hint(state, budget, stop=stopped, follow=after if avoid else None)
    return hint_response(found, writer, hint_plans.encode(found, state)).SerializeToString()


def hint_response(found: Hint, writer: ReplyWriter, plan: bytes) -> engine_pb2.HintResponse:
    """The HintResponse of a library hint, with ``plan`` (HintResponse.plan)."""
    reply = engine_pb2.HintResponse(
        kind=KIND_NUMBERS[found.kind],
        verdict=VERDICT_NUMBERS[found.verdict],
        positions=found.nodes,
        milliseconds=round(found.seconds * 1000),
        arrangements=found.arrangements,
        winning_arrangements=found.winning,
        lost_arrangements=found.lost,
        every_arrangement=found.every_arrangement,
        plan=plan,
    )
    if found.move is not None:
        reply.move.CopyFrom(move_message(found.move, writer))
    return reply
