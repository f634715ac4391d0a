"""The engine's error vocabulary: stable reason codes and their gRPC status codes.

Every error the engine sends is a `google.rpc.Status` whose single detail is a
`google.rpc.ErrorInfo` with domain `engine.patience`, one of the reasons below and
string metadata (see docs/errors.md). The server raises `Rejected` anywhere inside a
call; the servicer turns it into that status. The client reads it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

DOMAIN = "engine.patience"
# Status messages are cut to this many characters.
MAX_MESSAGE_LENGTH = 1000


class Reason(StrEnum):
    """Stable reason codes carried in ErrorInfo.reason."""

    MALFORMED_STATE = "MALFORMED_STATE"
    STATE_SEAL_INVALID = "STATE_SEAL_INVALID"
    STATE_KEY_UNKNOWN = "STATE_KEY_UNKNOWN"
    INVALID_STATE = "INVALID_STATE"
    MALFORMED_MOVE = "MALFORMED_MOVE"
    UNKNOWN_OPTION = "UNKNOWN_OPTION"
    BAD_DEAL_NUMBER = "BAD_DEAL_NUMBER"
    MISSING_FIELD = "MISSING_FIELD"
    TOO_MANY_MOVES = "TOO_MANY_MOVES"
    UNKNOWN_VARIANT = "UNKNOWN_VARIANT"
    ILLEGAL_MOVE = "ILLEGAL_MOVE"
    SOLVER_BUSY = "SOLVER_BUSY"
    SEARCH_FAILED = "SEARCH_FAILED"


STATUS_OF_REASON: Mapping[Reason, grpc.StatusCode] = {
    Reason.MALFORMED_STATE: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.STATE_SEAL_INVALID: grpc.StatusCode.INVALID_ARGUMENT,
    # The state may be sound: this engine lacks the key that sealed it.
    Reason.STATE_KEY_UNKNOWN: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.INVALID_STATE: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.MALFORMED_MOVE: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.UNKNOWN_OPTION: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.BAD_DEAL_NUMBER: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.MISSING_FIELD: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.TOO_MANY_MOVES: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.UNKNOWN_VARIANT: grpc.StatusCode.NOT_FOUND,
    Reason.ILLEGAL_MOVE: grpc.StatusCode.FAILED_PRECONDITION,
    # Every search process is busy and the queue is full: worth retrying later.
    Reason.SOLVER_BUSY: grpc.StatusCode.RESOURCE_EXHAUSTED,
    # The search process died twice (killed, out of memory): worth retrying later, not
    # at once (the same search may be what exhausted it).
    Reason.SEARCH_FAILED: grpc.StatusCode.RESOURCE_EXHAUSTED,
}


class Rejected(Exception):
    """A request the engine refuses, with the reason and metadata the client will see."""

    def __init__(self, reason: Reason, message: str, **metadata: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.metadata = metadata

    @property
    def code(self) -> grpc.StatusCode:
        return STATUS_OF_REASON[self.reason]

    def to_status(self) -> grpc.Status:
        """The rich status to abort the call with."""
        return rich_status(self.code, self.message, self.reason, self.metadata)


def rich_status(
    code: grpc.StatusCode, message: str, reason: str, metadata: Mapping[str, str]
) -> grpc.Status:
    """A grpc.Status carrying google.rpc.Status with one ErrorInfo detail."""
    if len(message) > MAX_MESSAGE_LENGTH:  # it travels in a header: keep it small
        message = message[: MAX_MESSAGE_LENGTH - 1] + "…"
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=dict(metadata))
    detail = any_pb2.Any()
    detail.Pack(info)
    status = status_pb2.Status(code=_rpc_code(code), message=message, details=[detail])
    return rpc_status.to_status(status)


def _rpc_code(code: grpc.StatusCode) -> int:
    # grpc.StatusCode values are (number, name) pairs; google.rpc.Code uses the same numbers.
    number: int = code.value[0]
    assert code_pb2.Code.Name(number) == code.name
    return number


def error_info_of(status: status_pb2.Status) -> error_details_pb2.ErrorInfo | None:
    """The first ErrorInfo detail in a google.rpc.Status, if any."""
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None
