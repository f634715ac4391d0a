"""Every game the library knows, in the order of the rules book, and reading a state of
any of them from its notation."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .errors import UnknownVariant
from .games import (
    bisley,
    cody,
    house_in_the_wood,
    house_on_the_hill,
    la_belle_lucie,
    little_billee,
    napoleon_at_st_helena,
    the_fifteen,
    usk,
)
from .notation import read_state
from .state import State
from .variant import Variant

VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        game.VARIANT.id: game.VARIANT
        for game in (
            cody,
            little_billee,
            usk,
            la_belle_lucie,
            house_in_the_wood,
            house_on_the_hill,
            napoleon_at_st_helena,
            the_fifteen,
            bisley,
        )
    }
)


def get_variant(variant_id: str) -> Variant:
    """The variant with this id, or :class:`UnknownVariant`."""
    variant = VARIANTS.get(variant_id)
    if variant is None:
        raise UnknownVariant(variant_id)
    return variant


def parse_state(text: str) -> State:
    """The state written in ``text`` (``str(state)``), validated like ``State.from_parts``:
    :class:`NotationError`, :class:`UnknownVariant`, :class:`InvalidState`."""
    return read_state(text, get_variant)
