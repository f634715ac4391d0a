"""The speed path: the protobuf bytes of the engine's hot replies, written by hand.

Building protobuf messages field by field from Python costs more than the rules
themselves, so this writer puts the bytes of GameState, PlayerView, Move, CardMoved and
the replies together directly, from pieces computed once (card names, pile ids, moves)
and pieces remembered (piles unchanged since the last state). What it must give is
`patience_engine.encoding.reference`'s output, byte for byte: fields in number order,
defaults left out (tests/engine/test_speed_path.py, tests/engine/test_wire.py).

Field numbers are those of proto/solitaire/v1/game.proto and engine.proto.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import cast

import patience
from solitaire.v1 import game_pb2

from patience_engine.encoding.interface import CARD_NAMES, MOVE_KINDS, GameReply, PileLayout
from patience_engine.memo import Memo

# Wire types: 0 varint, 2 length-delimited. A tag is (field number << 3) | wire type.
_VARINT = 0
_BYTES = 2


def tag(field: int, wire_type: int) -> bytes:
    return varint(field << 3 | wire_type)


def varint(value: int) -> bytes:
    if value < 0x80:
        return _SMALL[value]
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL = tuple(bytes((n,)) for n in range(0x80))


# The tags of fields 0..15 (every field here), by wire type.
_VARINT_TAG = tuple(tag(field, _VARINT) for field in range(16))
_BYTES_TAG = tuple(tag(field, _BYTES) for field in range(16))


def uint_field(field: int, value: int) -> bytes:
    """A varint field; empty for 0 (proto3 leaves defaults out)."""
    return _VARINT_TAG[field] + varint(value) if value else b""


def bytes_field(field: int, value: bytes) -> bytes:
    """A length-delimited field (bytes, string or message)."""
    return _BYTES_TAG[field] + varint(len(value)) + value


def text_field(field: int, value: str) -> bytes:
    """A string field; empty for "" (proto3 leaves defaults out)."""
    return bytes_field(field, value.encode()) if value else b""


# PileView.cards entries (field 3), one per card code.
_VIEW_CARD = tuple(bytes_field(3, name.encode()) for name in CARD_NAMES)
_view_card = _VIEW_CARD.__getitem__


# --------------------------------------------------------------------------- moves


@functools.lru_cache(maxsize=65_536)
def move_message(move: patience.Move) -> bytes:
    """A Move message with every field filled in, notation included. Cached: the moves
    of all variants are a few thousand values, and the same ones recur on every call."""
    return b"".join(
        (
            uint_field(1, MOVE_KINDS[move.kind]),
            text_field(2, move.source),
            text_field(3, move.target),
            uint_field(4, move.count),
            *(text_field(5, column) for column in move.columns),
            text_field(6, str(move)),
        )
    )


@functools.lru_cache(maxsize=65_536)
def _move_entry(field: int, move: patience.Move) -> bytes:
    return bytes_field(field, move_message(move))


def repeated_moves(field: int, moves: Iterable[patience.Move]) -> bytes:
    return b"".join([_move_entry(field, move) for move in moves])


# --------------------------------------------------------------------------- events


def events_field(field: int, events: Iterable[patience.CardMoved]) -> bytes:
    return b"".join([_event_entry(field, event) for event in events])


@functools.lru_cache(maxsize=65_536)
def _event_entry(field: int, event: patience.CardMoved) -> bytes:
    """One CardMoved entry. Cached: a card moving from one place to another recurs."""
    return bytes_field(
        field,
        b"".join(
            (
                text_field(1, CARD_NAMES[event.card]),
                text_field(2, event.source),
                uint_field(3, event.source_index),
                text_field(4, event.target),
                uint_field(5, event.target_index),
            )
        ),
    )


# --------------------------------------------------------------------------- states


@functools.cache
def _variant_prefix(variant_id: str, options: frozenset[str]) -> bytes:
    """GameState fields 1 and 2: the variant and its sorted options."""
    return text_field(1, variant_id) + b"".join(text_field(2, name) for name in sorted(options))


_PILE_TAG = tag(3, _BYTES)


def _pile_cards_head(size: int) -> bytes:
    """GameState.piles entry up to its cards: PileCards{cards = 1} of `size` bytes."""
    inner_head = b"\x0a" + varint(size) if size else b""
    return _PILE_TAG + varint(len(inner_head) + size) + inner_head


# Piles of up to 127 cards (every pile of every variant) take a precomputed head.
_PILE_CARDS_HEAD = tuple(_pile_cards_head(size) for size in range(128))


# GameState.piles entries by their cards: most piles are unchanged from one state to
# the next, so their bytes are known.
_PILE_CARDS: Memo[tuple[int, ...], bytes] = Memo(65_536)


def _pile_cards(cards: tuple[int, ...]) -> bytes:
    size = len(cards)
    entry = (_PILE_CARDS_HEAD[size] if size < 128 else _pile_cards_head(size)) + bytes(cards)
    _PILE_CARDS.put(cards, entry)
    return entry


def game_state(state: patience.State, deal_secret: bool) -> bytes:
    """The serialized GameState."""
    piles = state.piles
    # Looked up all at once (in C); only the piles not remembered are written here.
    found = list(map(_PILE_CARDS.get, piles))
    entries = (
        [entry or _pile_cards(pile) for entry, pile in zip(found, piles, strict=True)]
        if None in found
        else cast("list[bytes]", found)
    )
    return b"".join(
        (
            _variant_prefix(state.variant.id, state.options),
            *entries,
            uint_field(4, state.redeals_left),
            uint_field(5, state.moves_made),
            text_field(6, str(state.deal)),
            uint_field(7, 1 if deal_secret else 0),
            uint_field(8, state.draws),
        )
    )


def sealed_state(state: bytes, seal: bytes) -> bytes:
    """A SealedState message (empty fields left out, as protobuf leaves them)."""
    return (bytes_field(1, state) if state else b"") + (bytes_field(2, seal) if seal else b"")


# --------------------------------------------------------------------------- views


# Each variant's PileView id and kind fields, pile by pile: written once per layout.
_PILE_PREFIXES: dict[PileLayout, tuple[bytes, ...]] = {}


def _pile_prefixes(layout: PileLayout) -> tuple[bytes, ...]:
    prefixes = tuple(
        text_field(1, pile_id) + uint_field(2, kind)
        for pile_id, kind in zip(layout.pile_ids, layout.kinds, strict=True)
    )
    _PILE_PREFIXES[layout] = prefixes
    return prefixes


# PileView.size (field 4) for sizes up to 127; empty for 0.
_PILE_SIZE = tuple(uint_field(4, size) for size in range(128))


# PlayerView.piles entries by (the pile's id and kind fields, its cards).
_PILE_VIEWS: Memo[tuple[bytes, tuple[int, ...]], bytes] = Memo(65_536)


def _pile_size(size: int) -> bytes:
    return _PILE_SIZE[size] if size < 128 else uint_field(4, size)


def _pile_view(prefix: bytes, cards: tuple[int, ...], is_stock: bool) -> bytes:
    """A PlayerView.piles entry (the stock shows its size only), remembered."""
    if is_stock or not cards:
        body = prefix + _pile_size(len(cards))
    else:
        body = prefix + b"".join(map(_view_card, cards)) + _pile_size(len(cards))
    entry = _PILE_TAG + varint(len(body)) + body
    _PILE_VIEWS.put((prefix, cards), entry)
    return entry


def player_view(
    state: patience.State,
    layout: PileLayout,
    *,
    status: int,
    deal: str,
    legal_moves: Sequence[patience.Move],
    outlook: int,
) -> bytes:
    """The serialized PlayerView."""
    # Most piles are unchanged from one call to the next, so their entries are known:
    # all are looked up at once (in C), and only the others are written here.
    prefixes = _PILE_PREFIXES.get(layout) or _pile_prefixes(layout)
    keys = list(zip(prefixes, state.piles, strict=True))
    found = [_variant_prefix(state.variant.id, state.options), *map(_PILE_VIEWS.get, keys)]
    if None in found:
        for index, (prefix, cards) in enumerate(keys):
            if found[index + 1] is None:
                found[index + 1] = _pile_view(prefix, cards, index == layout.stock)
    parts = cast("list[bytes]", found)
    append = parts.append
    append(_STATUS[status])
    counters = b"".join(
        (
            uint_field(1, state.moves_made),
            uint_field(2, state.foundation_cards),
            uint_field(3, state.redeals_left),
            uint_field(4, state.stock_size),
            uint_field(5, state.total_cards),
        )
    )
    append(bytes_field(5, counters))
    append(repeated_moves(6, legal_moves))
    append(text_field(7, deal))
    append(_OUTLOOK[outlook])
    return b"".join(parts)


_STATUS: dict[int, bytes] = {
    int(number): uint_field(4, number) for number in game_pb2.GameStatus.values()
}
_OUTLOOK: dict[int, bytes] = {
    int(number): uint_field(8, number) for number in game_pb2.Outlook.values()
}


def game_response(
    reply: GameReply,
    sealed: bytes,
    view: bytes,
    applied: Sequence[patience.Move],
    events: Iterable[patience.CardMoved],
) -> bytes:
    """A serialized NewGameResponse, ApplyMoveResponse, ApplyMovesResponse or
    AutoplayResponse from its serialized parts: the four share their fields, so one
    writing serves them all."""
    return b"".join(
        (
            bytes_field(1, sealed),
            bytes_field(2, view),
            repeated_moves(3, applied),
            events_field(4, events),
        )
    )


def player_view_response(view: bytes) -> bytes:
    """The serialized GetPlayerViewResponse of a serialized PlayerView."""
    return bytes_field(1, view)


def legal_moves_response(moves: Iterable[patience.Move]) -> bytes:
    """The serialized ListLegalMovesResponse."""
    return repeated_moves(1, moves)


class SpeedPathWriter:
    """The hand-written ReplyWriter. Its methods are this module's functions
    themselves, so a call through the writer costs no extra frame."""

    name = "speed path"
    game_state = staticmethod(game_state)
    sealed_state = staticmethod(sealed_state)
    move_message = staticmethod(move_message)
    player_view = staticmethod(player_view)
    game_response = staticmethod(game_response)
    player_view_response = staticmethod(player_view_response)
    legal_moves_response = staticmethod(legal_moves_response)
