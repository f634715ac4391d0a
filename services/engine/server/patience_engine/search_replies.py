"""The searches themselves, as a search process runs them: a job in, a serialized
SolveResponse or HintResponse out (see patience_engine.searches). The moves in a reply
are written by the process's writer (`patience_engine.encoding`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import patience
from patience.solver import Budget, HintKind, Verdict, hint, solve
from solitaire.v1 import engine_pb2, game_pb2

from patience_engine.codec import decode_state
from patience_engine.encoding import SPEED_PATH, ReplyWriter

if TYPE_CHECKING:
    from patience_engine.searches import SearchJob

VERDICTS = {
    Verdict.WON: engine_pb2.VERDICT_WON,
    Verdict.LOST: engine_pb2.VERDICT_LOST,
    Verdict.UNKNOWN: engine_pb2.VERDICT_UNKNOWN,
}
HINT_KINDS = {
    HintKind.WINNING: engine_pb2.HINT_KIND_WINNING,
    HintKind.BEST_EFFORT: engine_pb2.HINT_KIND_BEST_EFFORT,
    HintKind.LOST: engine_pb2.HINT_KIND_LOST,
    HintKind.NONE: engine_pb2.HINT_KIND_NONE,
    HintKind.WINS_ALL: engine_pb2.HINT_KIND_WINS_ALL,
    HintKind.WINS_MOST: engine_pb2.HINT_KIND_WINS_MOST,
    HintKind.WINS_SOME: engine_pb2.HINT_KIND_WINS_SOME,
    HintKind.NO_WIN_FOUND: engine_pb2.HINT_KIND_NO_WIN_FOUND,
}


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
        return hint_reply(state, job.positions, seconds, stopped, writer)
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
        verdict=VERDICTS[result.verdict],
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
) -> bytes:
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
    found = hint(state, Budget(nodes=positions, seconds=max(seconds, 0.0)), stop=stopped)
    reply = engine_pb2.HintResponse(
        kind=HINT_KINDS[found.kind],
        verdict=VERDICTS[found.verdict],
        positions=found.nodes,
        milliseconds=round(found.seconds * 1000),
        arrangements=found.arrangements,
        winning_arrangements=found.winning,
        lost_arrangements=found.lost,
        every_arrangement=found.every_arrangement,
    )
    if found.move is not None:
        reply.move.CopyFrom(move_message(found.move, writer))
    return reply.SerializeToString()
