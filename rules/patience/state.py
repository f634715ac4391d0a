"""The immutable game state, and what it asks of the rules that made it.

A State is a value (piles and counters) tied to the compiled rules of its variant with
its options (:class:`Rules`, which :class:`~patience.ruleset.RuleSet` is): its moves are
the rules' work. Building one from outside data, writing its notation and reading it
back are the work of the layers above (validation, notation, the registry), handed in
through :func:`provide_services` when the package loads (patience/wiring.py), so that
this module imports none of them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, Protocol

from .cards import Card
from .errors import IllegalMove
from .moves import CardMoved, Move
from .variant import Variant


class Rules(Protocol):
    """What a state asks of its rules (the compiled rules of its variant and options)."""

    @property
    def variant(self) -> Variant: ...
    @property
    def options(self) -> frozenset[str]: ...
    @property
    def index(self) -> Mapping[str, int]: ...  # pile id -> pile index
    @property
    def stock(self) -> int: ...  # the stock's pile index, or -1
    @property
    def total(self) -> int: ...  # cards in the game

    def legal_moves(self, state: State, /) -> tuple[Move, ...]: ...

    def apply(
        self, state: State, move: Move, events: bool, /
    ) -> tuple[State, tuple[CardMoved, ...]]: ...


class PartsReader(Protocol):
    """Builds a state from its parts: ``State.from_parts`` and ``from_trusted_parts``."""

    def __call__(
        self,
        variant: Variant,
        piles: Sequence[Sequence[Card]],
        *,
        options: Iterable[str],
        redeals_left: int,
        moves_made: int,
        deal: int,
        draws: int,
    ) -> State: ...


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
    _rules: Rules
    _piles: tuple[tuple[Card, ...], ...]
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
    def piles(self) -> tuple[tuple[Card, ...], ...]:
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
        return _services.validated(
            variant,
            piles,
            options=options,
            redeals_left=redeals_left,
            moves_made=moves_made,
            deal=deal,
            draws=draws,
        )

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
        return _services.trusted(
            variant,
            piles,
            options=options,
            redeals_left=redeals_left,
            moves_made=moves_made,
            deal=deal,
            draws=draws,
        )

    def to_notation(self) -> str:
        return _services.format(self)

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
        return _services.parse, (self.to_notation(),)


_new_state = object.__new__


def make_state(
    rules: Rules,
    piles: tuple[tuple[Card, ...], ...],
    redeals_left: int,
    moves_made: int,
    deal: int,
    draws: int,
    foundation_cards: int,
) -> State:
    """A state from trusted parts (the rules' own output): no validation. Only the
    compiled layer calls it; the layers above use ``RuleSet.trusted_state``."""
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


# --- what the layers above lend a state -------------------------------------------------


def _not_loaded(*args: object, **kwargs: object) -> NoReturn:
    raise RuntimeError("validation and notation are not loaded: import patience")


@dataclass
class _Services:
    validated: PartsReader = _not_loaded  # State.from_parts
    trusted: PartsReader = _not_loaded  # State.from_trusted_parts
    format: Callable[[State], str] = _not_loaded  # State.to_notation, str(state)
    parse: Callable[[str], State] = _not_loaded  # unpickling: the notation read back


_services = _Services()


def provide_services(
    *,
    validated: PartsReader,
    trusted: PartsReader,
    format_state: Callable[[State], str],
    parse_state: Callable[[str], State],
) -> None:
    """Hand in the functions behind ``from_parts``, ``from_trusted_parts``,
    ``to_notation`` and pickling (``parse_state`` must be importable by its name)."""
    _services.validated = validated
    _services.trusted = trusted
    _services.format = format_state
    _services.parse = parse_state
