"""A hint's plan: the line its move starts (patience.solver.hints, "Following hints"),
as the opaque bytes of HintResponse.plan, which a client passes back with the game's
next hint (HintRequest.plan).

The plan is sealed as states are (patience_engine.sealing, with an associated data of
its own: a plan never opens as a state, nor a state as a plan), so a client cannot make
the engine claim a line or a count that no search found. Inside the envelope:

    bytes 0..1   b"h2": this format
    byte  2      the hint's kind (HintKind's number)
    byte  3      its verdict (Verdict's number)
    bytes 4..9   arrangements searched, winning and lost (three little-endian uint16)
    byte  10     1 when they were every arrangement there is
    byte  11     N: the positions the next search avoids (Hint.avoid), then N keys of
                 16 bytes
    then, per step of the line, 10 bytes: the 6-byte digest of the position it is played
    from (patience.solver.unseen.seen_digest), then the move: its kind (0 transfer,
    1 deal, 2 redeal, 3 withdraw), its source and target piles by their index in the
    variant's pile order (255: none; a withdraw's columns), and its count

A move is four bytes rather than its notation: a line of The Fifteen runs to a few
thousand moves. Nothing in a plan is hidden from the player: the moves of a line stop at
the first that turns up a hidden card, and the positions are named by what the player
sees.
"""

from __future__ import annotations

import struct

import patience
from patience.solver import Hint, HintKind, Verdict
from patience.variant import rules_of
from solitaire.v1 import engine_pb2

from patience_engine.sealing import Sealer

_FORMAT = b"h2"
_HEADER = struct.Struct("<2sBBHHHBB")
_KEY = 16
_DIGEST = 6
_STEP = _DIGEST + 4
_NONE = 255
_PURPOSE = b"hint plan v1"
_KINDS_OF_MOVE = tuple(patience.MoveKind)  # transfer, deal, redeal, withdraw
# Protobuf numbers of the library's kinds and verdicts, both ways.
KIND_NUMBERS = {kind: engine_pb2.HintKind.Value(f"HINT_KIND_{kind.name}") for kind in HintKind}
VERDICT_NUMBERS = {v: engine_pb2.Verdict.Value(f"VERDICT_{v.name}") for v in Verdict}
_KINDS = {number: kind for kind, number in KIND_NUMBERS.items()}
_VERDICTS = {number: verdict for verdict, number in VERDICT_NUMBERS.items()}


def encode(found: Hint, state: patience.State) -> bytes:
    """The plan of ``found``, a hint of ``state`` (empty when it has no line)."""
    if not found.line:
        return b""
    index = rules_of(state).index
    parts = [
        _HEADER.pack(
            _FORMAT,
            KIND_NUMBERS[found.kind],
            VERDICT_NUMBERS[found.verdict],
            found.arrangements,
            found.winning,
            found.lost,
            found.every_arrangement,
            len(found.avoid),
        ),
        *found.avoid,
    ]
    for digest, move in found.line:
        if move.kind is patience.MoveKind.WITHDRAW:
            piles = [index[column] for column in move.columns] + [_NONE]
        else:
            piles = [index.get(move.source, _NONE), index.get(move.target, _NONE)]
        kind = _KINDS_OF_MOVE.index(move.kind)
        parts.append(digest + bytes((kind, piles[0], piles[1], move.count)))
    return b"".join(parts)


def decode(data: bytes, state: patience.State) -> Hint | None:
    """The hint a plan for a game of ``state``'s variant was made from, its line with it
    (no move: the line's steps say them); None when ``data`` is not such a plan."""
    if len(data) <= _HEADER.size:
        return None
    form, kind, verdict, arrangements, winning, lost, every, avoided = _HEADER.unpack_from(data)
    start = _HEADER.size + avoided * _KEY
    if form != _FORMAT or kind not in _KINDS or verdict not in _VERDICTS:
        return None
    if len(data) <= start or (len(data) - start) % _STEP:
        return None
    avoid = tuple(data[at : at + _KEY] for at in range(_HEADER.size, start, _KEY))
    ids = rules_of(state).pile_ids
    steps = []
    try:
        for at in range(start, len(data), _STEP):
            digest = data[at : at + _DIGEST]
            move_kind, source, target, count = data[at + _DIGEST : at + _STEP]
            steps.append((digest, _move(_KINDS_OF_MOVE[move_kind], ids, source, target, count)))
    except IndexError:
        return None
    return Hint(
        _KINDS[kind],
        None,
        _VERDICTS[verdict],
        0,
        0.0,
        arrangements,
        winning,
        lost,
        bool(every),
        tuple(steps),
        avoid,
    )


def _move(
    kind: patience.MoveKind, ids: tuple[str, ...], source: int, target: int, count: int
) -> patience.Move:
    if kind is patience.MoveKind.TRANSFER:
        return patience.Move.transfer(ids[source], ids[target], count)
    if kind is patience.MoveKind.DEAL:
        return patience.Move.deal()
    if kind is patience.MoveKind.REDEAL:
        return patience.Move.redeal()
    columns = [ids[source]] if target == _NONE else [ids[source], ids[target]]
    return patience.Move.withdraw(*columns)


def seal(sealer: Sealer, plan: bytes) -> bytes:
    """The plan as it is handed out: in its envelope (as it is, without a key)."""
    return sealer.wrap_other(plan, _PURPOSE) if plan else b""


def open_plan(sealer: Sealer, sealed: bytes, state: patience.State) -> Hint | None:
    """The hint of a plan handed out by an engine holding one of ``sealer``'s keys, for a
    game of ``state``'s variant; None for anything else (a plan sealed with a key no
    longer held is only ignored: the hint is searched afresh)."""
    data = sealer.open_other(sealed, _PURPOSE)
    return None if data is None else decode(data, state)
