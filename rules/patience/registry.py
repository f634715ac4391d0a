"""Every game the library knows, in the order of the rules book, and reading a state of
any of them from its notation (the notation names the variant by its id)."""

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
from .notation import read_head, read_parts
from .variant import State, Variant

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
    variant_id, options, fields = read_head(text)
    variant = get_variant(variant_id)
    parts = read_parts(variant.ruleset(variant.option_set(options)), variant_id, fields)
    return State.from_parts(
        variant,
        parts.piles,
        options=options,
        redeals_left=parts.redeals_left,
        moves_made=parts.moves_made,
        deal=parts.deal,
        draws=parts.draws,
    )
