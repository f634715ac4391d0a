"""State notation: one line, like FEN for chess (see docs/rules-library.md).

Writing needs only the state and its rules. Reading needs a way to find the variant by
its id, which the caller passes (the registry does: ``patience.parse_state``), so that
this layer does not depend on the games the library happens to know.
"""

from __future__ import annotations

from collections.abc import Callable

from .cards import CARD_NAMES, Card, parse_card, parse_cards, suit
from .compiled import rules_of, ruleset
from .errors import InvalidState, NotationError
from .ruleset import RuleSet
from .state import State
from .variant import Variant


def format_state(state: State) -> str:
    rules = rules_of(state)
    piles = state.piles
    head = "+".join([rules.variant.id, *sorted(rules.options)])
    fields = [head, "t:" + _piles_text(piles, rules.tableau)]
    if rules.cells:
        fields.append("r:" + _piles_text(piles, rules.cells))
    fields.append(
        "f:" + "/".join(CARD_NAMES[piles[f][-1]] if piles[f] else "-" for f in rules.foundations)
    )
    if rules.stock >= 0:
        fields.append("s:" + _piles_text(piles, (rules.stock,)))
        fields.append("w:" + _piles_text(piles, (rules.waste,)))
    fields.append(f"n:{state.redeals_left}")
    fields.append(f"m:{state.moves_made}")
    fields.append(f"d:{state.deal}/{state.draws}")
    return " ".join(fields)


def _piles_text(piles: tuple[tuple[Card, ...], ...], indices: tuple[int, ...]) -> str:
    return "/".join("".join([CARD_NAMES[c] for c in piles[i]]) or "-" for i in indices)


def read_state(text: str, find_variant: Callable[[str], Variant]) -> State:
    """The state written by :func:`format_state`, its variant found by ``find_variant``
    (given the id); validates like ``State.from_parts``."""
    fields = text.strip().split(" ")
    if not fields or not fields[0]:
        raise NotationError("expected a state such as 'la-belle-lucie t:... f:... n:2 m:0 d:1/51'")
    variant_id, *options = fields[0].split("+")
    variant = find_variant(variant_id)
    rules = ruleset(variant, variant.option_set(options))
    expected = ["t"] + (["r"] if rules.cells else []) + ["f"]
    expected += (["s", "w"] if rules.stock >= 0 else []) + ["n", "m", "d"]
    if len(fields) != len(expected) + 1:
        raise NotationError(
            f"expected {len(expected) + 1} space-separated fields for {variant_id}: "
            f"the variant, then {' '.join(name + ':' for name in expected)}"
        )
    values: dict[str, str] = {}
    for name, field in zip(expected, fields[1:], strict=True):
        if not field.startswith(name + ":"):
            raise NotationError(f"expected field {name + ':'!r}, got {field!r}")
        values[name] = field[len(name) + 1 :]

    piles = _parse_piles(values["t"], len(rules.tableau), "tableau piles")
    if "r" in values:
        piles += _parse_piles(values["r"], len(rules.cells), "reserve cells")
    piles += _parse_foundations(rules, values["f"])
    if "s" in values:
        piles += _parse_piles(values["s"], 1, "stock") + _parse_piles(values["w"], 1, "waste")
    deal, _, draws = values["d"].partition("/")  # no slash: no draws, refused below
    return State.from_parts(
        variant,
        piles,
        options=options,
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


def _parse_foundations(rules: RuleSet, text: str) -> list[tuple[Card, ...]]:
    """Foundations are written by their top card: the rest of the run is implied."""
    tops = text.split("/")
    if len(tops) != len(rules.foundations):
        raise InvalidState(
            "WRONG_PILE_COUNT", f"expected {len(rules.foundations)} foundations, got {len(tops)}"
        )
    piles: list[tuple[Card, ...]] = []
    for f, top in zip(rules.foundations, tops, strict=True):
        if top == "-":
            piles.append(())
            continue
        card = parse_card(top)
        order = rules.found_next[f][:13]
        if suit(card) != suit(order[0]):
            raise InvalidState("BAD_FOUNDATION", f"{rules.pile_ids[f]} cannot hold {top}")
        piles.append(tuple(order[: order.index(card) + 1]))
    return piles


def _number(text: str, field: str) -> int:
    if not text.isdigit() or not text.isascii():
        raise NotationError(f"expected a whole number in field {field!r}, got {text!r}")
    return int(text)
