"""A variant, compiled and played: the library's one aggregate.

:class:`Variant` is a game's declaration (declaration.py) with the entry points to its
compiled rules and its games; :class:`RuleSet` is one variant with its options compiled
(the tables of tables.py) and played: ``legal_moves``, ``apply``, the opening deal;
:class:`State` is one position, immutable, whose moves are its rules' work. The three
name one another, so they live together here; what they lean on sits below them and
names none of them: the tables, validation (checks on a state's parts) and the notation
(a state's parts as text and back).

This is the hot path: ``apply`` and ``legal_moves`` work on tuples of ints with
precomputed tables (pile kinds, what each foundation wants next, which cards fit on
which, which cards an empty tableau pile takes from which kind of pile; cached Move
objects), so that a move costs a few dictionary lookups.

A RuleSet is made from one resolved declaration (the variant with its options applied:
``Variant.with_options``) and reads every rule from it; the base variant and the option
names are its identity only (``state.variant``, ``state.options``, the notation).

Checks run in a fixed order so that the reported rule is the most specific one:
game over, unknown pile, same pile, source kind / empty source, count, target kind,
reserve restrictions, empty-target fill rule, suit/colour, rank.
"""

from __future__ import annotations

import enum
import importlib
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .building import BuildRule
from .cards import ACE, CARD_NAMES, KING, Card, rank, suit
from .deals import Generator, check_deal_number, random_deal_number, shuffle, shuffled_stock
from .declaration import Declaration
from .errors import IllegalMove
from .moves import CardMoved, Move, MoveKind
from .notation import format_state
from .tables import (
    FOUNDATION,
    RESERVE,
    STOCK,
    TABLEAU,
    TO_FOUNDATION,
    TO_TABLEAU,
    Tables,
)
from .validation import trusted_parts, validated_parts

Piles = tuple[tuple[Card, ...], ...]
Events = tuple[CardMoved, ...]


@dataclass(frozen=True, eq=False, repr=False)
class Variant(Declaration):
    """One game: its declaration, its compiled rules and its new games."""

    def ruleset(self, options: frozenset[str] = frozenset()) -> RuleSet:
        """The compiled rules of this variant with ``options`` (made once, then cached;
        :class:`UnknownOption` for an option it does not have)."""
        key = (self, options)
        rules = _RULESETS.get(key)
        if rules is None:
            declaration = self.with_options(options)
            rules = _RULESETS[key] = RuleSet(declaration, variant=self, options=options)
        return rules

    def new_game(self, deal: int | None = None, options: Iterable[str] = ()) -> State:
        """Deal a new game; ``deal=None`` draws a deal number at random."""
        rules = self.ruleset(self.option_set(options))
        number = random_deal_number() if deal is None else check_deal_number(deal)
        stock, draws = shuffled_stock(rules.packs, number)
        return rules.state_after_deal(number, stock, draws)


# By (variant, options): a variant is hashed by identity, and each has few option sets.
_RULESETS: dict[tuple[Variant, frozenset[str]], RuleSet] = {}


def rules_of(state: State) -> RuleSet:
    """The rules that ``state`` follows (how the solver reaches its tables)."""
    return state._rules


class Status(enum.Enum):
    PLAYING = "playing"
    WON = "won"
    STUCK = "stuck"


class State:
    """One position of one game. Immutable: moves give new states.

    Build one with ``variant.new_game``, :meth:`from_parts` or ``parse_state``
    (:meth:`from_trusted_parts` only for data whose integrity is proven).
    """

    __slots__ = (
        "_deal",
        "_draws",
        "_fcount",
        "_hash",
        "_legal",
        "_moves_made",
        "_piles",
        "_redeals_left",
        "_rules",
    )
    _rules: RuleSet
    _piles: Piles
    _redeals_left: int
    _moves_made: int
    _deal: int
    _draws: int
    _fcount: int
    _legal: tuple[Move, ...] | None
    _hash: int | None

    def __init__(self) -> None:
        raise TypeError("build a State with variant.new_game, State.from_parts or parse_state")

    # ------------------------------------------------------------ attributes

    @property
    def variant(self) -> Variant:
        return self._rules.variant

    @property
    def options(self) -> frozenset[str]:
        return self._rules.options

    @property
    def piles(self) -> Piles:
        return self._piles

    def pile(self, pile_id: str) -> tuple[Card, ...]:
        index = self._rules.index.get(pile_id)
        if index is None:
            raise KeyError(f"{self.variant.id} has no pile {pile_id!r}")
        return self._piles[index]

    @property
    def redeals_left(self) -> int:
        return self._redeals_left

    @property
    def moves_made(self) -> int:
        return self._moves_made

    @property
    def deal(self) -> int:
        return self._deal

    @property
    def draws(self) -> int:
        return self._draws

    @property
    def foundation_cards(self) -> int:
        return self._fcount

    @property
    def stock_size(self) -> int:
        stock = self._rules.stock
        return len(self._piles[stock]) if stock >= 0 else 0

    @property
    def total_cards(self) -> int:
        return self._rules.total

    @property
    def status(self) -> Status:
        if self._fcount == self._rules.total:
            return Status.WON
        return Status.PLAYING if self.legal_moves() else Status.STUCK

    # ----------------------------------------------------------------- moves

    def legal_moves(self) -> tuple[Move, ...]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._rules.legal_moves(self)
        return legal

    def is_legal(self, move: Move) -> bool:
        try:
            self._rules.apply(self, move, False)
        except IllegalMove:
            return False
        return True

    def apply(self, move: Move) -> State:
        """The state after ``move``; raises :class:`IllegalMove` if it is not legal."""
        return self._rules.apply(self, move, False)[0]

    def apply_with_events(self, move: Move) -> tuple[State, tuple[CardMoved, ...]]:
        return self._rules.apply(self, move, True)

    # ------------------------------------------------------------- building

    @classmethod
    def from_parts(
        cls,
        variant: Variant,
        piles: Sequence[Sequence[Card]],
        *,
        options: Iterable[str] = (),
        redeals_left: int,
        moves_made: int,
        deal: int,
        draws: int,
    ) -> State:
        """A state from outside data, validated; raises :class:`InvalidState`."""
        rules = variant.ruleset(variant.option_set(options))
        cards, fcount = validated_parts(rules, piles, redeals_left, moves_made, deal, draws)
        return _state(rules, cards, redeals_left, moves_made, deal, draws, fcount)

    @classmethod
    def from_trusted_parts(
        cls,
        variant: Variant,
        piles: Sequence[Sequence[Card]],
        *,
        options: Iterable[str] = (),
        redeals_left: int,
        moves_made: int,
        deal: int,
        draws: int,
    ) -> State:
        """A state from data whose integrity is proven, checked for shape only.

        ONLY for parts known to describe a state that this library made (or that
        passed :meth:`from_parts`), e.g. bytes whose HMAC under a secret key proves
        that they were written by a program that built them from such a state. It
        skips the checks that the position can be reached (each card exactly once per
        pack, foundation order, single-card cells, the card values' types) and keeps
        only those without which the rules could not run on it: the pile count, card
        codes in 0..51 and the variant's number of cards, foundations no longer than a
        suit, deal and counters in range. Raises :class:`InvalidState` for those.
        Anything else, however plausible, goes through :meth:`from_parts`.
        """
        rules = variant.ruleset(variant.option_set(options))
        cards, fcount = trusted_parts(rules, piles, redeals_left, moves_made, deal, draws)
        return _state(rules, cards, redeals_left, moves_made, deal, draws, fcount)

    def to_notation(self) -> str:
        rules = self._rules
        return format_state(
            rules,
            rules.variant.id,
            rules.options,
            self._piles,
            self._redeals_left,
            self._moves_made,
            self._deal,
            self._draws,
        )

    # ------------------------------------------------------------ value type

    def __str__(self) -> str:
        return self.to_notation()

    def __repr__(self) -> str:
        return f"State({self.to_notation()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return (
            self._piles == other._piles
            and self._rules is other._rules
            and self._moves_made == other._moves_made
            and self._redeals_left == other._redeals_left
            and self._deal == other._deal
            and self._draws == other._draws
        )

    def __hash__(self) -> int:
        value = self._hash
        if value is None:
            value = self._hash = hash(
                (
                    self._rules.variant.id,
                    self._rules.options,
                    self._piles,
                    self._redeals_left,
                    self._moves_made,
                    self._deal,
                    self._draws,
                )
            )
        return value

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its notation, read back by the package's ``parse_state``, which
        # knows the games and so sits above this module: the pickle names the package,
        # and loading it imports the package by that name (as pickle imports any class
        # it names) and calls its parse_state on the notation.
        return operator.methodcaller("parse_state", self.to_notation()), (_PACKAGE,)


class _Package:
    """The package ``patience`` in a pickle, by its name."""

    def __reduce__(self) -> tuple[Any, ...]:
        return importlib.import_module, (__package__,)


_PACKAGE: Final = _Package()
_new_state = object.__new__


def _state(
    rules: RuleSet,
    piles: Piles,
    redeals_left: int,
    moves_made: int,
    deal: int,
    draws: int,
    foundation_cards: int,
) -> State:
    """A state from parts that are sound (checked, or the rules' own output): nothing
    is checked here."""
    state: State = _new_state(State)
    state._rules = rules
    state._piles = piles
    state._redeals_left = redeals_left
    state._moves_made = moves_made
    state._deal = deal
    state._draws = draws
    state._fcount = foundation_cards
    state._legal = None
    state._hash = None
    return state


# --------------------------------------------------------------------------- the rules

_NO_EVENTS: Events = ()
_EMPTY_CACHE_LIMIT: Final = 4096


def _illegal(rule: str, message: str) -> IllegalMove:
    return IllegalMove(rule, message)


class RuleSet(Tables):
    """Compiled rules: the tables of one declaration, with ``apply``, ``legal_moves``
    and their helpers."""

    __slots__ = ("_empty_target_moves", "_run_moves", "options", "variant")

    def __init__(
        self, declaration: Declaration, *, variant: Variant, options: frozenset[str]
    ) -> None:
        """``declaration``: the variant with ``options`` applied, whence every rule comes;
        ``variant``: the variant as registered, which the states name as theirs."""
        super().__init__(declaration)
        self.variant = variant
        self.options = options
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
        return _state(self, piles, redeals_left, moves_made, deal, draws, foundation_cards)

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
        after = _state(
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
        after = _state(
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
        after = _state(
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
        after = _state(
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
        return _state(
            self,
            tuple(tuple(p) for p in piles),
            self.redeals,
            0,
            deal,
            draws,
            fcount,
        )
