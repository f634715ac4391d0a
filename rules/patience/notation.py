"""State notation: one line, like FEN for chess (see docs/rules-library.md).

Both ways run on a variant's compiled tables and a state's parts: writing a line from
them, and reading one back into parts. Finding the variant that a line names, and
building the state from the parts read, are the registry's (``patience.parse_state``),
so that this layer depends neither on the games the library knows nor on the states.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .cards import CARD_NAMES, Card, parse_card, parse_cards, suit
from .errors import InvalidState, NotationError
from .tables import Tables

Piles = tuple[tuple[Card, ...], ...]


class Parts(NamedTuple):
    """What a line holds after its head, as ``State.from_parts`` takes it."""

    piles: list[tuple[Card, ...]]
    redeals_left: int
    moves_made: int
    deal: int
    draws: int


def format_state(
    tables: Tables,
    variant_id: str,
    options: Iterable[str],
    piles: Piles,
    redeals_left: int,
    moves_made: int,
    deal: int,
    draws: int,
) -> str:
    head = "+".join([variant_id, *sorted(options)])
    fields = [head, "t:" + _piles_text(piles, tables.tableau)]
    if tables.cells:
        fields.append("r:" + _piles_text(piles, tables.cells))
    fields.append(
        "f:" + "/".join(CARD_NAMES[piles[f][-1]] if piles[f] else "-" for f in tables.foundations)
    )
    if tables.stock >= 0:
        fields.append("s:" + _piles_text(piles, (tables.stock,)))
        fields.append("w:" + _piles_text(piles, (tables.waste,)))
    fields.append(f"n:{redeals_left}")
    fields.append(f"m:{moves_made}")
    fields.append(f"d:{deal}/{draws}")
    return " ".join(fields)


def _piles_text(piles: Piles, indices: tuple[int, ...]) -> str:
    return "/".join("".join([CARD_NAMES[c] for c in piles[i]]) or "-" for i in indices)


def read_head(text: str) -> tuple[str, list[str], list[str]]:
    """The variant id and the option names that ``text`` starts with, and its other
    fields (read by :func:`read_parts` once the variant is known)."""
    fields = text.strip().split(" ")
    if not fields or not fields[0]:
        raise NotationError("expected a state such as 'la-belle-lucie t:... f:... n:2 m:0 d:1/51'")
    variant_id, *options = fields[0].split("+")
    return variant_id, options, fields[1:]


def read_parts(tables: Tables, variant_id: str, fields: list[str]) -> Parts:
    """The parts written in ``fields`` (a line after its head) for a variant compiled as
    ``tables``; the state they make is still to be validated."""
    expected = ["t"] + (["r"] if tables.cells else []) + ["f"]
    expected += (["s", "w"] if tables.stock >= 0 else []) + ["n", "m", "d"]
    if len(fields) != len(expected):
        raise NotationError(
            f"expected {len(expected) + 1} space-separated fields for {variant_id}: "
            f"the variant, then {' '.join(name + ':' for name in expected)}"
        )
    values: dict[str, str] = {}
    for name, field in zip(expected, fields, strict=True):
        if not field.startswith(name + ":"):
            raise NotationError(f"expected field {name + ':'!r}, got {field!r}")
        values[name] = field[len(name) + 1 :]

    piles = _parse_piles(values["t"], len(tables.tableau), "tableau piles")
    if "r" in values:
        piles += _parse_piles(values["r"], len(tables.cells), "reserve cells")
    piles += _parse_foundations(tables, values["f"])
    if "s" in values:
        piles += _parse_piles(values["s"], 1, "stock") + _parse_piles(values["w"], 1, "waste")
    deal, _, draws = values["d"].partition("/")  # no slash: no draws, refused below
    return Parts(
        piles,
        redeals_left=_number(values["n"], "n:"),
        moves_made=_number(values["m"], "m:"),
        deal=_number(deal, "d:"),
        draws=_number(draws, "d:<deal>/"),
    )


def _parse_piles(text: str, count: int, what: str) -> list[tuple[Card, ...]]:
    piles = [() if pile == "-" else parse_cards(pile) for pile in text.split("/")]
    if len(piles) != count:
        raise InvalidState("WRONG_PILE_COUNT", f"expected {count} {what}, got {len(piles)}")
    return piles


def _parse_foundations(tables: Tables, text: str) -> list[tuple[Card, ...]]:
    """Foundations are written by their top card: the rest of the run is implied."""
    tops = text.split("/")
    if len(tops) != len(tables.foundations):
        raise InvalidState(
            "WRONG_PILE_COUNT", f"expected {len(tables.foundations)} foundations, got {len(tops)}"
        )
    piles: list[tuple[Card, ...]] = []
    for f, top in zip(tables.foundations, tops, strict=True):
        if top == "-":
            piles.append(())
            continue
        card = parse_card(top)
        order = tables.found_next[f][:13]
        if suit(card) != suit(order[0]):
            raise InvalidState("BAD_FOUNDATION", f"{tables.pile_ids[f]} cannot hold {top}")
        piles.append(tuple(order[: order.index(card) + 1]))
    return piles


def _number(text: str, field: str) -> int:
    if not text.isdigit() or not text.isascii():
        raise NotationError(f"expected a whole number in field {field!r}, got {text!r}")
    return int(text)
