"""The rules of one variant with its options, compiled into lookup tables.

This is the hot path: ``apply`` and ``legal_moves`` work on tuples of ints with
precomputed tables (tables.py: pile kinds, what each foundation wants next, which cards
fit on which, which cards an empty tableau pile takes from which kind of pile; cached
Move objects here), so that a move costs a few dictionary lookups.

A RuleSet is made from one resolved declaration (the variant with its options applied:
``Variant.with_options``) and reads every rule from it; the base variant and the option
names are its identity only (``state.variant``, ``state.options``, the notation).

Checks run in a fixed order so that the reported rule is the most specific one:
game over, unknown pile, same pile, source kind / empty source, count, target kind,
reserve restrictions, empty-target fill rule, suit/colour, rank.
"""

from __future__ import annotations

from typing import Final

from .building import BuildRule
from .cards import ACE, CARD_NAMES, KING, Card, rank, suit
from .deals import Generator, shuffle
from .errors import IllegalMove
from .moves import CardMoved, Move, MoveKind
from .state import State, make_state
from .tables import (
    FOUNDATION,
    KIND_CODES,
    RESERVE,
    STOCK,
    TABLEAU,
    WASTE,
    build_table,
    fill_table,
    foundation_table,
)
from .variant import Variant

Piles = tuple[tuple[Card, ...], ...]
Events = tuple[CardMoved, ...]

# Where a transfer goes, once the source and target kinds allow it.
TO_FOUNDATION: Final = 0
TO_TABLEAU: Final = 1
TO_CELL: Final = 2

_NO_EVENTS: Events = ()
_EMPTY_CACHE_LIMIT: Final = 4096


def _illegal(rule: str, message: str) -> IllegalMove:
    return IllegalMove(rule, message)


class RuleSet:
    """Compiled rules: ``apply``, ``legal_moves`` and their helpers."""

    __slots__ = (
        "_empty_target_moves",
        "_run_moves",
        "build",
        "cells",
        "deal_pattern",
        "empty_takes",
        "fill",
        "fill_refusals",
        "fills",
        "fits",
        "found_next",
        "found_of",
        "foundations",
        "index",
        "kinds",
        "moves",
        "opening_stock",
        "options",
        "packs",
        "pile_ids",
        "redeal",
        "redeals",
        "routes",
        "runs",
        "sources",
        "stock",
        "tableau",
        "total",
        "variant",
        "wants",
        "waste",
        "withdraw_row",
    )

    def __init__(self, declaration: Variant, *, variant: Variant, options: frozenset[str]) -> None:
        """``declaration``: the variant with ``options`` applied, whence every rule comes;
        ``variant``: the variant as registered, which the states name as theirs."""
        self.variant = variant
        self.options = options
        ids = declaration.pile_ids
        self.pile_ids = ids
        self.index = {pile_id: i for i, pile_id in enumerate(ids)}
        self.kinds = tuple(KIND_CODES[declaration.pile_kind(pile_id)] for pile_id in ids)
        self.tableau = tuple(i for i, k in enumerate(self.kinds) if k == TABLEAU)
        self.cells = tuple(i for i, k in enumerate(self.kinds) if k == RESERVE)
        self.foundations = tuple(i for i, k in enumerate(self.kinds) if k == FOUNDATION)
        self.stock = self.index.get("stock", -1)
        self.waste = self.index.get("waste", -1)
        self.sources = tuple(i for i, k in enumerate(self.kinds) if k in (TABLEAU, RESERVE, WASTE))
        self.packs = declaration.packs
        self.total = declaration.total_cards
        self.deal_pattern = pattern = declaration.deal_pattern
        # The cards the opening deal leaves in the stock.
        self.opening_stock = self.total - sum(len(p) for p in pattern.passes)
        if pattern.aces_to_foundations:
            self.opening_stock -= 4 * self.packs
        self.build = declaration.build
        self.fill = declaration.fill
        self.runs = declaration.runs_move
        self.redeals = declaration.redeals
        self.redeal = declaration.redeal
        self.withdraw_row = declaration.withdraw_row

        found = foundation_table(len(ids), self.foundations, declaration.foundations)
        self.found_next = found.next_card  # [pile][cards on it]: the card it takes next, or -1
        self.found_of = found.of_card  # the foundations of each card's suit
        self.wants, self.fits = build_table(declaration.build)
        # empty_takes[source kind]: the cards (or heads of runs) an empty tableau pile
        # takes from a pile of that kind; fill_refusals[source kind][card]: the rule
        # code of one it does not take (None where it does).
        self.empty_takes, self.fill_refusals = fill_table(declaration.fill)
        # Whether an empty tableau pile ever takes a card at all.
        self.fills = declaration.build is not BuildRule.NONE and any(self.empty_takes)
        self.routes = tuple(
            tuple(self._route(self.kinds[s], self.kinds[t]) for t in range(len(ids)))
            for s in range(len(ids))
        )
        self.moves = tuple(
            tuple(Move(MoveKind.TRANSFER, source, target) for target in ids) for source in ids
        )
        self._run_moves: dict[tuple[int, int, int], Move] = {}
        self._empty_target_moves: dict[tuple[int, ...], list[tuple[Move, ...]]] = {}

    def trusted_state(
        self,
        piles: Piles,
        *,
        redeals_left: int,
        moves_made: int,
        deal: int,
        draws: int,
        foundation_cards: int,
    ) -> State:
        """A state of these rules from parts known to be sound (validated, or the solver's
        own output from a state of these rules): nothing is checked."""
        return make_state(self, piles, redeals_left, moves_made, deal, draws, foundation_cards)

    def _route(self, source: int, target: int) -> int | str:
        """Where a transfer between these pile kinds goes, or the rule it breaks."""
        if target in (STOCK, WASTE):
            return "not_a_target"
        if target == FOUNDATION:
            return TO_FOUNDATION
        if target == TABLEAU:
            # A reserve card aimed at a fan says why in the reserve's own terms, even
            # where fans never take cards: that is the more specific rule.
            if source == RESERVE:
                return "reserve_to_foundation_only"
            return "not_a_target" if self.build is BuildRule.NONE else TO_TABLEAU
        if source == RESERVE:
            return "not_a_target"
        return TO_CELL if source == TABLEAU else "reserve_from_tableau_only"

    # ------------------------------------------------------------------ apply

    def apply(self, state: State, move: Move, events: bool) -> tuple[State, Events]:
        if state._fcount == self.total:
            raise _illegal("game_over", "the game is over")
        kind = move.kind
        if kind is MoveKind.TRANSFER:
            return self._transfer(state, move, events)
        if kind is MoveKind.DEAL:
            return self._deal(state, events)
        if kind is MoveKind.REDEAL:
            return self._redeal(state, events)
        if kind is MoveKind.WITHDRAW:
            return self._withdraw(state, move, events)
        raise _illegal("unknown_move", f"{kind!r} is not a move")

    def _transfer(self, state: State, move: Move, events: bool) -> tuple[State, Events]:
        index = self.index
        src = index.get(move.source)
        tgt = index.get(move.target)
        if src is None or tgt is None:
            unknown = move.source if src is None else move.target
            raise _illegal("unknown_pile", f"{self.variant.name} has no pile {unknown!r}")
        if src == tgt:
            raise _illegal("same_pile", "the source and the target are the same pile")
        kinds = self.kinds
        source_kind = kinds[src]
        if source_kind in (FOUNDATION, STOCK):
            raise _illegal("not_a_source", f"cards never leave {move.source}")
        piles = state._piles
        pile = piles[src]
        if not pile:
            raise _illegal("empty_source", f"{move.source} has no card")
        count = move.count
        size = len(pile)
        route = self.routes[src][tgt]
        if count != 1:
            self._check_count(pile, count, route)
        if isinstance(route, str):
            raise _illegal(route, self._route_message(route, move))
        head = pile[size - count]
        target = piles[tgt]
        if route == TO_FOUNDATION:
            if head != self.found_next[tgt][len(target)]:
                raise self._foundation_refusal(head, tgt, target)
        elif route == TO_TABLEAU:
            if target:
                top = target[-1]
                if head not in self.fits[top]:
                    rule = self.build.misfit(head, top)
                    raise _illegal(
                        rule,
                        f"{CARD_NAMES[head]} cannot go on {CARD_NAMES[top]}: "
                        f"the tableau builds {self.build.value}",
                    )
            else:
                refusal = self.fill_refusals[source_kind][head]
                if refusal is not None:
                    raise _illegal(refusal, f"an empty tableau pile {self.fill.description}")
        elif target:
            raise _illegal("cell_occupied", f"{move.target} already holds a card")

        new = list(piles)
        if count == 1:
            new[src] = pile[:-1]
            new[tgt] = (*target, head)
        else:
            new[src] = pile[: size - count]
            new[tgt] = target + pile[size - count :]
        fcount = state._fcount + 1 if route == TO_FOUNDATION else state._fcount
        after = make_state(
            self,
            tuple(new),
            state._redeals_left,
            state._moves_made + 1,
            state._deal,
            state._draws,
            fcount,
        )
        if not events:
            return after, _NO_EVENTS
        start = size - count
        if count == 1:  # the usual move, without a generator
            return after, (CardMoved(head, move.source, start, move.target, len(target)),)
        return after, tuple(
            CardMoved(pile[start + i], move.source, start + i, move.target, len(target) + i)
            for i in range(count)
        )

    def _check_count(self, pile: tuple[Card, ...], count: int, route: int | str) -> None:
        if not isinstance(count, int) or count < 1:
            raise _illegal("too_many_cards", "a move takes at least one card")
        if count > len(pile):
            raise _illegal("too_many_cards", f"the pile holds only {len(pile)} cards")
        if not self.runs or route != TO_TABLEAU:
            raise _illegal("too_many_cards", "only one card moves at a time here")
        fits = self.fits
        for i in range(len(pile) - count + 1, len(pile)):
            if pile[i] not in fits[pile[i - 1]]:
                raise _illegal(
                    "not_a_run",
                    f"the top {count} cards are not a run {self.build.value}",
                )

    def _route_message(self, rule: str, move: Move) -> str:
        return {
            "not_a_target": f"{move.target} never takes a card from {move.source}",
            "reserve_to_foundation_only": "a reserve card may only go to a foundation",
            "reserve_from_tableau_only": "only a tableau card may enter a reserve cell",
        }.get(rule, rule)

    def _foundation_refusal(self, card: Card, pile: int, cards: tuple[Card, ...]) -> IllegalMove:
        wanted = self.found_next[pile][len(cards)]
        suit_ = suit(self.found_next[pile][0])
        name = self.pile_ids[pile]
        if suit(card) != suit_:
            return _illegal("wrong_suit", f"{name} takes only {'CSHD'[suit_]} cards")
        if wanted < 0:
            return _illegal("wrong_rank", f"{name} is complete")
        return _illegal(
            "wrong_rank", f"{name} takes {CARD_NAMES[wanted]} next, not {CARD_NAMES[card]}"
        )

    def _deal(self, state: State, events: bool) -> tuple[State, Events]:
        if self.stock < 0:
            raise _illegal("no_stock", f"{self.variant.name} has no stock")
        piles = state._piles
        stock = piles[self.stock]
        if not stock:
            raise _illegal("stock_empty", "the stock is empty")
        waste = piles[self.waste]
        card = stock[-1]
        new = list(piles)
        new[self.stock] = stock[:-1]
        new[self.waste] = (*waste, card)
        after = make_state(
            self,
            tuple(new),
            state._redeals_left,
            state._moves_made + 1,
            state._deal,
            state._draws,
            state._fcount,
        )
        if not events:
            return after, _NO_EVENTS
        return after, (CardMoved(card, "stock", len(stock) - 1, "waste", len(waste)),)

    def _redeal(self, state: State, events: bool) -> tuple[State, Events]:
        redeal = self.redeal
        if redeal is None or self.redeals == 0:
            raise _illegal("no_redeal", f"{self.variant.name} has no redeal")
        if state._redeals_left <= 0:
            raise _illegal("no_redeals_left", "every redeal has been used")
        piles = state._piles
        tableau = [piles[t] for t in self.tableau]
        order = redeal.gather(tableau)
        draws = state._draws
        if redeal.shuffle:
            generator = Generator(state._deal, draws)
            shuffle(order, generator)
            draws = generator.draws
        dealt: list[list[Card]] = [[] for _ in tableau]
        moved: list[CardMoved] = []
        ids = self.pile_ids
        for pile, (old_pile, old_index) in redeal.deal(order, len(tableau)):
            card = tableau[old_pile][old_index]
            new_index = len(dealt[pile])
            if events and (old_pile, old_index) != (pile, new_index):
                moved.append(CardMoved(card, ids[old_pile], old_index, ids[pile], new_index))
            dealt[pile].append(card)
        new = [tuple(cards) for cards in dealt] + list(piles[len(tableau) :])
        after = make_state(
            self,
            tuple(new),
            state._redeals_left - 1,
            state._moves_made + 1,
            state._deal,
            draws,
            state._fcount,
        )
        return after, tuple(moved)

    # --------------------------------------------------------------- withdraw

    def ace_or_king_available(self, piles: Piles) -> bool:
        for i in self.sources:
            pile = piles[i]
            if pile and rank(pile[-1]) in (ACE, KING):
                return True
        return False

    def withdraw_candidates(self, piles: Piles) -> list[int]:
        """Tableau piles whose withdraw-row card is an ace or king and not their top."""
        row = self.withdraw_row - 1
        return [
            t
            for t in self.tableau
            if len(piles[t]) > row + 1 and rank(piles[t][row]) in (ACE, KING)
        ]

    def _withdraw(self, state: State, move: Move, events: bool) -> tuple[State, Events]:
        if not self.withdraw_row:
            raise _illegal("no_withdraw", f"{self.variant.name} has no withdraw")
        columns: list[int] = []
        for pile_id in move.columns:
            pile = self.index.get(pile_id)
            if pile is None:
                raise _illegal("unknown_pile", f"{self.variant.name} has no pile {pile_id!r}")
            columns.append(pile)
        piles = state._piles
        if state._fcount or self.ace_or_king_available(piles):
            raise _illegal(
                "withdraw_not_allowed",
                "withdraw is allowed only before any foundation is started "
                "and while no ace or king is available",
            )
        columns.sort()
        candidates = self.withdraw_candidates(piles)
        row = self.withdraw_row - 1
        ranks = sorted(rank(piles[c][row]) for c in columns if c in candidates)
        if (
            not 1 <= len(columns) <= 2
            or len(set(columns)) != len(columns)
            or any(c not in candidates for c in columns)
            or (len(ranks) == 2 and ranks[0] == ranks[1])
        ):
            raise _illegal(
                "withdraw_bad_card",
                f"withdraw takes an ace, a king, or one of each, from row {self.withdraw_row} "
                "of a column where that card is not the top card",
            )
        new = list(piles)
        moved: list[CardMoved] = []
        ids = self.pile_ids
        for column in columns:
            cards = new[column]
            card = cards[row]
            foundation = next(
                f for f in self.found_of[card] if self.found_next[f][len(new[f])] == card
            )
            new[column] = cards[:row] + cards[row + 1 :]
            new[foundation] = (*new[foundation], card)
            if events:
                moved.append(
                    CardMoved(card, ids[column], row, ids[foundation], len(new[foundation]) - 1)
                )
                moved.extend(
                    CardMoved(cards[i], ids[column], i, ids[column], i - 1)
                    for i in range(row + 1, len(cards))
                )
        after = make_state(
            self,
            tuple(new),
            state._redeals_left,
            state._moves_made + 1,
            state._deal,
            state._draws,
            state._fcount + len(columns),
        )
        return after, tuple(moved)

    def withdraw_moves(self, piles: Piles) -> list[Move]:
        candidates = self.withdraw_candidates(piles)
        row = self.withdraw_row - 1
        ids = self.pile_ids
        found: list[Move] = []
        for i, first in enumerate(candidates):
            found.append(Move(MoveKind.WITHDRAW, columns=(ids[first],)))
            for second in candidates[i + 1 :]:
                if rank(piles[first][row]) != rank(piles[second][row]):
                    found.append(Move(MoveKind.WITHDRAW, columns=(ids[first], ids[second])))
        return found

    # ------------------------------------------------------------ legal moves

    def legal_moves(self, state: State) -> tuple[Move, ...]:
        """Every legal move. Order: for each source pile in pile order, its single-card
        moves to foundations, non-empty tableau piles, empty tableau piles and reserve
        cells (each in pile order), then its runs from the shortest; then deal, redeal,
        withdraw."""
        piles = state._piles
        fcount = state._fcount
        if fcount == self.total:
            return ()
        found_next = self.found_next
        wanted_by_foundation: dict[Card, list[int]] = {}
        for f in self.foundations:
            want = found_next[f][len(piles[f])]
            if want >= 0:
                known = wanted_by_foundation.get(want)
                if known is None:
                    wanted_by_foundation[want] = [f]
                else:
                    known.append(f)

        wanted_by_tableau: dict[Card, list[int]] = {}
        empty_tableau: list[int] = []
        if self.build is not BuildRule.NONE:
            wants = self.wants
            for t in self.tableau:
                pile = piles[t]
                if pile:
                    for want in wants[pile[-1]]:
                        known = wanted_by_tableau.get(want)
                        if known is None:
                            wanted_by_tableau[want] = [t]
                        else:
                            known.append(t)
                else:
                    empty_tableau.append(t)
        if not self.fills:
            empty_tableau = []
        to_empty = self._to_empty(tuple(empty_tableau)) if empty_tableau else None
        empty_cells = [c for c in self.cells if not piles[c]]
        to_cells = self._to_empty(tuple(empty_cells)) if empty_cells else None

        out: list[Move] = []
        append = out.append
        kinds = self.kinds
        moves = self.moves
        empty_takes = self.empty_takes
        for s in self.sources:
            pile = piles[s]
            if not pile:
                continue
            card = pile[-1]
            row = moves[s]
            targets = wanted_by_foundation.get(card)
            if targets:
                for f in targets:
                    append(row[f])
            kind = kinds[s]
            if kind == RESERVE:
                continue
            targets = wanted_by_tableau.get(card)
            if targets:
                for t in targets:
                    append(row[t])
            if to_empty is not None and card in empty_takes[kind]:
                out.extend(to_empty[s])
            if kind == TABLEAU:
                if to_cells is not None:
                    out.extend(to_cells[s])
                # Only a pile whose top two cards fit has runs longer than one card.
                if self.runs and len(pile) > 1 and card in self.fits[pile[-2]]:
                    self._run_moves_from(s, pile, wanted_by_tableau, empty_tableau, out)
        if self.stock >= 0 and piles[self.stock]:
            append(Move.deal())
        if state._redeals_left > 0:
            append(Move.redeal())
        if self.withdraw_row and fcount == 0 and not self.ace_or_king_available(piles):
            out.extend(self.withdraw_moves(piles))
        return tuple(out)

    def _to_empty(self, targets: tuple[int, ...]) -> list[tuple[Move, ...]]:
        """For each source pile, its moves to the given empty piles (cached)."""
        cached = self._empty_target_moves.get(targets)
        if cached is None:
            if len(self._empty_target_moves) >= _EMPTY_CACHE_LIMIT:
                self._empty_target_moves.clear()
            cached = [tuple(row[t] for t in targets) for row in self.moves]
            self._empty_target_moves[targets] = cached
        return cached

    def _run_moves_from(
        self,
        source: int,
        pile: tuple[Card, ...],
        wanted_by_tableau: dict[Card, list[int]],
        empty_tableau: list[int],
        out: list[Move],
    ) -> None:
        """Moves of the top 2, 3, ... cards of ``pile`` while they form a run."""
        fits = self.fits
        cache = self._run_moves
        ids = self.pile_ids
        # the heads of runs that an empty tableau pile takes (runs come from the tableau)
        heads_to_empty = self.empty_takes[TABLEAU] if empty_tableau else frozenset()
        size = len(pile)
        for count in range(2, size + 1):
            head = pile[size - count]
            if pile[size - count + 1] not in fits[head]:
                return
            targets = wanted_by_tableau.get(head)
            if head in heads_to_empty:
                targets = (targets or []) + empty_tableau
            if not targets:
                continue
            for t in targets:
                key = (source, t, count)
                move = cache.get(key)
                if move is None:
                    move = cache[key] = Move(MoveKind.TRANSFER, ids[source], ids[t], count)
                out.append(move)

    # ------------------------------------------------------------------ deal

    def state_after_deal(self, deal: int, stock: list[Card], draws: int) -> State:
        """The opening position from a shuffled stock (last element on top)."""
        pattern = self.deal_pattern
        piles: list[list[Card]] = [[] for _ in self.pile_ids]
        if pattern.aces_to_foundations:
            for card in [c for c in stock if rank(c) == ACE]:
                foundation = next(
                    f for f in self.found_of[card] if self.found_next[f][len(piles[f])] == card
                )
                piles[foundation].append(card)
            stock = [c for c in stock if rank(c) != ACE]
        for dealing_pass in pattern.passes:
            for pile_id in dealing_pass:
                piles[self.index[pile_id]].append(stock.pop())
        if stock:
            if self.stock < 0:
                raise ValueError(f"{self.variant.id}: the deal leaves cards but has no stock")
            piles[self.stock] = stock
        fcount = sum(len(piles[f]) for f in self.foundations)
        return make_state(
            self,
            tuple(tuple(p) for p in piles),
            self.redeals,
            0,
            deal,
            draws,
            fcount,
        )
