"""The compiled rules of each variant with its options, made once; new games; and the
rules a state follows (how the solver and the notation reach them)."""

from __future__ import annotations

from collections.abc import Iterable

from .deals import check_deal_number, random_deal_number, shuffled_stock
from .ruleset import RuleSet
from .state import State
from .variant import Variant

# By (variant, options): a variant is hashed by identity, and each has few option sets.
_RULESETS: dict[tuple[Variant, frozenset[str]], RuleSet] = {}


def ruleset(variant: Variant, options: frozenset[str] = frozenset()) -> RuleSet:
    """The rules of ``variant`` with ``options`` applied (:class:`UnknownOption` for an
    option it does not have)."""
    key = (variant, options)
    rules = _RULESETS.get(key)
    if rules is None:
        declaration = variant.with_options(options)
        rules = _RULESETS[key] = RuleSet(declaration, variant=variant, options=options)
    return rules


def rules_of(state: State) -> RuleSet:
    """The rules that ``state`` follows."""
    return ruleset(state.variant, state.options)


def new_game(variant: Variant, deal: int | None, options: Iterable[str]) -> State:
    """The opening position of deal ``deal`` (a random deal number when None)."""
    rules = ruleset(variant, variant.option_set(options))
    number = random_deal_number() if deal is None else check_deal_number(deal)
    stock, draws = shuffled_stock(rules.packs, number)
    return rules.state_after_deal(number, stock, draws)
