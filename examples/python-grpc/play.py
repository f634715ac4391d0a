"""A Python client of the engine with the generated stubs and nothing of this project's
own client: deals a game of La Belle Lucie, plays a move, then tries an illegal one and
reads the rule it breaks from the error's google.rpc.ErrorInfo.

    python examples/python-grpc/play.py [host:port]      (default 127.0.0.1:50051)

Needs grpcio, grpcio-status (googleapis-common-protos) and the code generated from proto/
(in this repository: the `solitaire` package, installed by `make`). Each step prints one
line of JSON.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from solitaire.v1 import engine_pb2, engine_pb2_grpc, game_pb2


def show(step: str, **fields: Any) -> None:
    print(json.dumps({"step": step, **fields}))


def error_info(error: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo of a failed call: the rich status travels in grpc-status-details-bin,
    which grpc_status reads back into a google.rpc.Status."""
    status = rpc_status.from_call(error)
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def main(target: str) -> None:
    with grpc.insecure_channel(target) as channel:
        engine = engine_pb2_grpc.EngineServiceStub(channel)
        variants = engine.ListVariants(engine_pb2.ListVariantsRequest(), timeout=10)
        show("variants", count=len(variants.variants))

        game = engine.NewGame(engine_pb2.NewGameRequest(variant="la-belle-lucie", deal="7"))
        show(
            "new-game",
            status=game_pb2.GameStatus.Name(game.view.status),
            legal_moves=[move.notation for move in game.view.legal_moves],
        )

        # The state goes back to the engine exactly as it came: it is sealed.
        moved = engine.ApplyMove(
            engine_pb2.ApplyMoveRequest(state=game.state, move=game_pb2.Move(notation="t16-f1"))
        )
        (f1,) = [pile for pile in moved.view.piles if pile.id == "f1"]
        show(
            "move",
            move=moved.applied[0].notation,
            kind=game_pb2.MoveKind.Name(moved.applied[0].kind),
            f1={"kind": game_pb2.PileKind.Name(f1.kind), "cards": list(f1.cards)},
        )

        try:
            engine.ApplyMove(
                engine_pb2.ApplyMoveRequest(state=moved.state, move=game_pb2.Move(notation="t1-f1"))
            )
        except grpc.RpcError as error:
            info = error_info(error)
            show(
                "illegal-move",
                refused=True,
                code=error.code().name,
                reason=info.reason if info else None,
                domain=info.domain if info else None,
                metadata=dict(info.metadata) if info else None,
            )
        else:
            show("illegal-move", refused=False)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:50051")
