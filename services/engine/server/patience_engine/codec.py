"""Conversions between the rules library's values and the protobuf messages.

States: `decode_state` turns `GameState` bytes into a validated rules `State` (plus the
engine-only flag `deal_secret`), rejecting anything that is not exactly a state the
engine could have made; `encode_state` is its inverse. Moves: `decode_move` accepts a
`Move` given by notation alone or by kind and fields; `encode_move` fills in every field.
The bytes are written by a `patience_engine.encoding` writer (the speed path, unless
the caller passes another).

Trusted states. `decode_state(data, trusted=True)` is for bytes that came out of an
envelope the engine opened (`patience_engine.sealing`): the AEAD's tag under the
engine's secret key proves that an engine holding the key wrote exactly these bytes,
and an engine writes only states that the rules library made or that passed its full
validation. Nobody without the key can make an envelope that opens, so such bytes were
validated when they were made, and checking again whether the position is reachable
(every card once per pack, foundation order, counters against each other) would only
repeat that. They are still parsed as strictly as any state, and
`State.from_trusted_parts` still checks their shape (pile count, card codes, foundation
length, counters in range), so that even bytes sealed by a leaked key or an engine of
another version are refused cleanly rather than crash anything. Without a key nothing
is trusted: every state is validated in full. (The argument assumes that every engine
holding the key runs rules that agree on which states exist: change the key when they
change.)

Every rejection is a `Rejected` with the reason from docs/errors.md; nothing here lets
an exception about malformed input escape as anything else.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import patience
from google.protobuf.message import DecodeError
from patience_contract.errors import Reason, Rejected
from solitaire.v1 import game_pb2

from patience_engine.encoding import CARD_NAMES, SPEED_PATH, ReplyWriter
from patience_engine.memo import Memo

# Client-supplied text echoed in error metadata is cut to this length.
ECHO_LIMIT = 100

__all__ = [
    "CARD_NAMES",
    "ECHO_LIMIT",
    "Position",
    "decode_move",
    "decode_state",
    "echo",
    "encode_move",
    "encode_state",
    "parse_deal",
]


@dataclass(frozen=True, slots=True)
class Position:
    """A rules state with what the engine adds to it: whether its deal number is secret."""

    state: patience.State
    deal_secret: bool


# --------------------------------------------------------------------------- states


# A client sends back the state of the engine's last reply, so the bytes a request
# carries are usually bytes this process just wrote: reading them again (parsing,
# validating every card) would redo work whose result is known. Decoding is a pure
# function of the bytes, so remembering it changes no answer. Its entries hold for
# any reader: states written here or validated in full.
RECENT_STATES: Memo[bytes, Position] = Memo(2048)
# States read on trust (their seal checked) are remembered apart, for trusted reads
# only: a process may serve with several keys (tests do), or none.
TRUSTED_STATES: Memo[bytes, Position] = Memo(2048)


def decode_state(data: bytes, *, trusted: bool = False) -> Position:
    """The position in `data` (serialized GameState); raises Rejected when it is not one.

    `trusted` only for bytes whose seal the caller has checked: their position is
    then built without the deep validation (see the module docstring)."""
    position = RECENT_STATES.get(data)
    if position is None:
        if trusted:
            position = TRUSTED_STATES.get(data)
            if position is None:
                position = _read_state(data, trusted=True)
                TRUSTED_STATES.put(data, position)
        else:
            position = _read_state(data, trusted=False)
            RECENT_STATES.put(data, position)
    return position


def _read_state(data: bytes, *, trusted: bool) -> Position:
    if not data:
        raise Rejected(Reason.MISSING_FIELD, "the request carries no state", field="state")
    try:
        message = game_pb2.GameState.FromString(data)
    except DecodeError:
        raise Rejected(Reason.MALFORMED_STATE, "the state bytes are not a GameState") from None
    # The engine writes each field once and no field it does not know; anything else
    # (unknown fields, repeated scalars, explicit defaults) is not a state it made.
    message.DiscardUnknownFields()
    if message.ByteSize() != len(data):
        raise Rejected(
            Reason.MALFORMED_STATE,
            "the state bytes hold unknown or repeated fields: not a GameState the engine wrote",
        )
    variant = patience.VARIANTS.get(message.variant)
    if variant is None:
        raise _invalid("UNKNOWN_VARIANT", "the state is for a variant this engine does not know")
    options = tuple(message.options)
    for name in options:
        if name not in variant.options:
            raise _invalid("UNKNOWN_OPTION", f"the state switches on an option {variant.id} lacks")
    if list(options) != sorted(set(options)):
        raise _invalid("BAD_OPTIONS", "the state's options are not sorted and distinct")
    deal = parse_deal(message.deal, canonical=True)
    if deal is None:
        raise _invalid("BAD_DEAL", "the state's deal number is not a decimal number")
    build = patience.State.from_trusted_parts if trusted else patience.State.from_parts
    try:
        state = build(
            variant,
            tuple([tuple(pile.cards) for pile in message.piles]),
            options=options,
            redeals_left=message.redeals_left,
            moves_made=message.moves_made,
            deal=deal,
            draws=message.draws,
        )
    except patience.InvalidState as error:
        raise _invalid(error.reason, f"impossible state: {error}") from None
    if not trusted:
        _check_stock_is_the_deals(state)
    return Position(state, message.deal_secret)


def _check_stock_is_the_deals(state: patience.State) -> None:
    """A state the engine did not seal could hide any stock order: the stock must be
    what is left of its deal's shuffled stock (cards only ever leave it from the top).
    This is all of the hidden part an engine without a key can check: the redeal
    generator's position could still be chosen by whoever wrote the state."""
    stock = _STOCK_INDEX.get(state.variant.id)
    if stock is None:
        return
    cards = state.piles[stock]
    if _opening_stock(state.variant.id, state.options, state.deal)[: len(cards)] != cards:
        raise _invalid(
            "STOCK_NOT_FROM_DEAL",
            "the stock is not what is left of the deal's stock: its order was changed",
        )


_STOCK_INDEX = {
    variant_id: variant.pile_ids.index("stock")
    for variant_id, variant in patience.VARIANTS.items()
    if "stock" in variant.pile_ids
}


@functools.lru_cache(maxsize=1024)
def _opening_stock(variant_id: str, options: frozenset[str], deal: int) -> tuple[int, ...]:
    dealt = patience.VARIANTS[variant_id].new_game(deal, options)
    return dealt.piles[_STOCK_INDEX[variant_id]]


def encode_state(position: Position, writer: ReplyWriter = SPEED_PATH) -> bytes:
    """The serialized GameState of a position."""
    data = writer.game_state(position.state, position.deal_secret)
    RECENT_STATES.put(data, position)
    return data


def _invalid(detail: str, message: str) -> Rejected:
    return Rejected(Reason.INVALID_STATE, message, detail=detail)


def parse_deal(text: str, *, canonical: bool = False) -> int | None:
    """The deal number written in decimal ASCII digits, or None. With `canonical`,
    leading zeros are refused too (the engine never writes them)."""
    if not text or len(text) > 40 or not (text.isascii() and text.isdigit()):
        return None
    if canonical and len(text) > 1 and text[0] == "0":
        return None
    return int(text)


# --------------------------------------------------------------------------- moves


def decode_move(message: game_pb2.Move, *, index: int | None = None) -> patience.Move:
    """The rules Move for a Move message given by notation alone or by kind and fields
    (with an optional notation that must agree). `index` is its place in a batch."""
    kind = message.kind
    notation = message.notation
    if kind == game_pb2.MOVE_KIND_UNSPECIFIED:
        if message.source or message.target or message.count or message.columns:
            raise _malformed(
                "a move given by its fields needs its kind",
                notation or _describe_fields(message),
                index,
            )
        if not notation:
            where = {} if index is None else {"index": str(index)}
            raise Rejected(
                Reason.MISSING_FIELD,
                "the move is empty: give its notation, or its kind and fields",
                field="move",
                **where,
            )
        return _parse(notation, index)
    move = _move_from_fields(message, index)
    if notation and _parse(notation, index) != move:
        raise _malformed(
            f"the notation {echo(notation)!r} does not match the move's fields ({move})",
            notation,
            index,
        )
    return move


def _move_from_fields(message: game_pb2.Move, index: int | None) -> patience.Move:
    kind = message.kind
    source, target, count, columns = (
        message.source,
        message.target,
        message.count,
        tuple(message.columns),
    )
    described = _describe_fields(message)
    if kind == game_pb2.MOVE_KIND_TRANSFER:
        if not source or not target:
            raise _malformed("a transfer needs a source and a target pile", described, index)
        if columns:
            raise _malformed("only a withdraw names columns", described, index)
        count = count or 1
        move = _parse(f"{source}-{target}" if count == 1 else f"{source}-{target}/{count}", index)
        if (move.source, move.target, move.count) != (source, target, count):
            raise _malformed("the transfer's pile ids are not valid", described, index)
        return move
    if source or target or count > 1:
        raise _malformed("only a transfer names source, target and count", described, index)
    if kind == game_pb2.MOVE_KIND_WITHDRAW:
        if not columns:
            raise _malformed("a withdraw names the columns it takes from", described, index)
        move = _parse("withdraw " + " ".join(columns), index)
        if sorted(move.columns) != sorted(columns):
            raise _malformed("the withdraw's columns are not valid pile ids", described, index)
        return move
    if columns:
        raise _malformed("only a withdraw names columns", described, index)
    if kind == game_pb2.MOVE_KIND_DEAL:
        return patience.Move.deal()
    if kind == game_pb2.MOVE_KIND_REDEAL:
        return patience.Move.redeal()
    raise _malformed(f"unknown move kind {kind}", described, index)


# The longest move of any variant is a few words ("withdraw t10 t15"); longer text is
# refused before the library reads it, which keeps error messages and the table of
# remembered notation small.
MAX_NOTATION_LENGTH = 64
# Notation read before: clients send the same few hundred moves over and over.
_remembered_notation = functools.lru_cache(maxsize=8192)(patience.Move.parse)


def _parse(text: str, index: int | None) -> patience.Move:
    if len(text) > MAX_NOTATION_LENGTH:
        raise _malformed(
            f"a move's notation is at most {MAX_NOTATION_LENGTH} characters, "
            f"this one has {len(text)}",
            text,
            index,
        )
    try:
        return _remembered_notation(text)
    except patience.NotationError as error:
        raise _malformed(f"cannot read the move: {error}", text, index) from None


def _describe_fields(message: game_pb2.Move) -> str:
    """A readable form of a move given by fields, for error metadata."""
    kind = (
        game_pb2.MoveKind.Name(message.kind).removeprefix("MOVE_KIND_")
        if message.kind in _KIND_NUMBERS
        else "?"
    )
    parts = [kind.lower(), message.source, message.target]
    if message.count:
        parts.append(str(message.count))
    parts.extend(message.columns)
    return " ".join(part for part in parts if part)


_KIND_NUMBERS = frozenset(game_pb2.MoveKind.values())


def _malformed(message: str, text: str, index: int | None) -> Rejected:
    metadata = {"move": echo(text)}
    if index is not None:
        metadata["index"] = str(index)
    return Rejected(Reason.MALFORMED_MOVE, message, **metadata)


def echo(text: str) -> str:
    return text if len(text) <= ECHO_LIMIT else text[: ECHO_LIMIT - 1] + "…"


def encode_move(move: patience.Move, writer: ReplyWriter = SPEED_PATH) -> game_pb2.Move:
    """A Move message with every field filled in, notation included."""
    return game_pb2.Move.FromString(writer.move_message(move))
