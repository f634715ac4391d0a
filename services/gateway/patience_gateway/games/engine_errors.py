"""Engine errors turned into problems.

Engine errors carry a stable reason (docs/errors.md); each maps to one problem code.
Reasons about the *state* can only come from the gateway's own stored data: a state
that no key of the engine opens (sealed with a key the engine no longer holds, or
changed in the store) is `state-unreadable`, which the operator can fix by giving the
engine that key again; anything else (malformed, impossible) is an internal error.
Neither is the client's fault.
"""

from __future__ import annotations

import logging

import grpc
from patience_contract.client import EngineError, EngineUnavailable

from patience_gateway.problems import Code, ProblemError, ProblemExtensions

log = logging.getLogger("patience_gateway")

_CLIENT_REASONS: dict[str, Code] = {
    "ILLEGAL_MOVE": "illegal-move",
    "MALFORMED_MOVE": "malformed-move",
    "MISSING_FIELD": "malformed-move",
    "UNKNOWN_OPTION": "unknown-option",
    "BAD_DEAL_NUMBER": "invalid-deal",
    "UNKNOWN_VARIANT": "unknown-variant",
}


def engine_problem(error: EngineError, retry_after: int) -> ProblemError:
    """The problem for an engine error met while serving the client's own request."""
    if isinstance(error, EngineUnavailable):
        return ProblemError(
            "engine-unavailable",
            "the rules engine did not answer",
            headers={"Retry-After": str(retry_after)},
        )
    code = _CLIENT_REASONS.get(error.reason)
    if code is None:
        return internal_engine_problem(error)
    extensions: ProblemExtensions = {}
    if code == "illegal-move":
        extensions["rule"] = error.metadata.get("rule", "")
    if "move" in error.metadata:
        extensions["move"] = error.metadata["move"]
    return ProblemError(code, error.message or error.reason, **extensions)


def search_problem(error: EngineError, retry_after: int) -> ProblemError:
    """The problem for an engine error met by a search (Solve, Hint) on a stored state:
    a full search queue is `solver-busy`; the rest as for any call on stored data."""
    if error.code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return ProblemError(
            "solver-busy",
            "the engine's search processes are all busy",
            headers={"Retry-After": str(retry_after)},
        )
    if isinstance(error, EngineUnavailable):
        return engine_problem(error, retry_after)
    return internal_engine_problem(error)


# The engine could not open a stored state: no key it holds fits, or it was changed.
_UNREADABLE_REASONS = frozenset({"STATE_KEY_UNKNOWN", "STATE_SEAL_INVALID"})


def internal_engine_problem(error: EngineError) -> ProblemError:
    """The engine refused data the gateway itself stored (state, history): a server fault."""
    log.error("engine refused stored data: %s %s %s", error.reason, error.message, error.metadata)
    if error.reason in _UNREADABLE_REASONS:
        return ProblemError(
            "state-unreadable",
            "the game's stored state cannot be opened with the engine's keys "
            "(it was sealed with a key the engine does not hold, or changed); "
            "nothing was applied",
        )
    return ProblemError("internal", "the server failed to process the game")
