"""The bytes the engine writes: its one speed path, behind one seam.

Building protobuf messages field by field from Python costs more than the rules
themselves, so the engine writes the bytes of its hot replies (GameState, PlayerView,
Move, CardMoved, NewGame/ApplyMove/ApplyMoves/Autoplay replies, GetPlayerView and
ListLegalMoves replies) by hand. Every caller asks a `ReplyWriter` for them; there
are two:

- `SPEED_PATH` (`fast`): the hand-written writer, the default;
- `REFERENCE` (`reference`): the same messages built with the generated classes and
  serialized by `SerializeToString`, the plain code that says what the bytes are.

The speed path must equal the reference byte for byte, on every reply of every variant
(tests/engine/test_speed_path.py holds it to that; test_wire.py checks both against
protobuf's parser and against what the replies must say). What it saves was measured
with the engine part of the bench (bench/README.md, "Engine over gRPC"): in process, an
ApplyMove handler takes about 1.8 times the CPU on the reference.

Turning it off: PATIENCE_SPEED_PATHS=off (EngineConfig.speed_paths) runs the reference
instead, in the server and its search processes (`writer_for`, called once at server
start): a way to rule the speed path out when an answer looks wrong.
"""

from __future__ import annotations

from patience_engine.encoding.fast import SpeedPathWriter
from patience_engine.encoding.interface import CARD_NAMES, GameReply, PileLayout, ReplyWriter
from patience_engine.encoding.reference import ReferenceWriter

__all__ = [
    "CARD_NAMES",
    "REFERENCE",
    "SPEED_PATH",
    "GameReply",
    "PileLayout",
    "ReplyWriter",
    "writer_for",
]

SPEED_PATH: ReplyWriter = SpeedPathWriter()
REFERENCE: ReplyWriter = ReferenceWriter()


def writer_for(speed_paths: bool) -> ReplyWriter:
    """The writer a process with the speed paths on (or off) runs."""
    return SPEED_PATH if speed_paths else REFERENCE
