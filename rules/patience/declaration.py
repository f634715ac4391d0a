"""A game's declaration: its piles, deal, build and fill rules, redeals and options.

This is the top of the declaration layer: it knows the building blocks (cards, piles,
building, dealing) and nothing of the compiled rules. :class:`~patience.variant.Variant`
is a declaration with the entry points to its compiled rules and its games.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Self

from .building import BuildRule, FillRule
from .dealing import DealPattern, Redeal
from .errors import UnknownOption
from .piles import Foundation, Layout, PileKind, numbered


@dataclass(frozen=True, eq=False)
class Declaration:
    """One game, declared from the shared building blocks.

    ``options`` maps an option's name to its description; ``option_changes`` maps it
    to the declaration fields it changes (e.g. ``{"fill": FillRule.WASTE_ONLY}``).
    """

    id: str
    name: str
    summary: str
    packs: int
    tableau: int
    tableau_layout: Layout
    build: BuildRule
    fill: FillRule
    foundations: tuple[Foundation, ...]
    deal_pattern: DealPattern
    cells: int = 0
    stock: bool = False
    runs_move: bool = False
    redeals: int = 0
    redeal: Redeal | None = None
    withdraw_row: int = 0
    options: Mapping[str, str] = field(default_factory=dict)
    option_changes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    pile_ids: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        ids = numbered("t", self.tableau) + numbered("r", self.cells)
        ids += numbered("f", len(self.foundations))
        if self.stock:
            ids += ("stock", "waste")
        object.__setattr__(self, "pile_ids", ids)
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        object.__setattr__(self, "option_changes", MappingProxyType(dict(self.option_changes)))

    @property
    def total_cards(self) -> int:
        return 52 * self.packs

    def pile_kind(self, pile_id: str) -> PileKind:
        return _KIND_BY_LETTER[pile_id[0]]

    def option_set(self, options: Iterable[str]) -> frozenset[str]:
        """The options as a set, or :class:`UnknownOption`."""
        chosen = frozenset(options)
        for name in sorted(chosen):
            if name not in self.options:
                raise UnknownOption(name, self.id)
        return chosen

    def with_options(self, options: Iterable[str]) -> Self:
        """The declaration with ``options`` applied: each option's field changes, in the
        order of the options' names (:class:`UnknownOption` for an unknown one)."""
        declaration = self
        for name in sorted(self.option_set(options)):
            declaration = dataclasses.replace(declaration, **self.option_changes.get(name, {}))
        return declaration

    def describe(self) -> dict[str, Any]:
        """A JSON-able description, for clients drawing the table."""
        piles: list[dict[str, str]] = []
        for pile_id in self.pile_ids:
            kind = self.pile_kind(pile_id)
            entry = {"id": pile_id, "kind": kind.value, "layout": _layout(self, kind).value}
            if kind is PileKind.FOUNDATION:
                foundation = self.foundations[int(pile_id[1:]) - 1]
                entry["suit"] = foundation.suit_letter
                entry["direction"] = foundation.direction.value
            piles.append(entry)
        return {
            "id": self.id,
            "name": self.name,
            "summary": self.summary,
            "packs": self.packs,
            "redeals": self.redeals,
            "options": [{"name": n, "description": d} for n, d in self.options.items()],
            "piles": piles,
        }

    def __repr__(self) -> str:
        return f"<Variant {self.id}>"


_KIND_BY_LETTER = {
    "t": PileKind.TABLEAU,
    "r": PileKind.RESERVE,
    "f": PileKind.FOUNDATION,
    "s": PileKind.STOCK,
    "w": PileKind.WASTE,
}


def _layout(declaration: Declaration, kind: PileKind) -> Layout:
    if kind is PileKind.TABLEAU:
        return declaration.tableau_layout
    if kind is PileKind.RESERVE:
        return Layout.CELL
    return Layout.STACK
