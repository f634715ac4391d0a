"""The verdicts of whole deals, pinned (golden/verdicts.json, made by golden/make_verdicts.py
with every shortcut on; a won deal confirmed by its line replayed through the rules
library, a lost one by the search without pruning and dead ends): the search with every
shortcut on must still decide each deal, the same way, within the budget it was found
in, and a won deal's line must replay to a won game. A shortcut made unsound (a dead end
too eager, a pruning that drops the only winning line) turns one of these around at once.

PATIENCE_GOLDEN_SLOW=1 also proves each lost deal again without pruning and dead ends, as
the file was made."""

from __future__ import annotations

import json
import os
from pathlib import Path

import patience
import pytest
from patience import Status
from patience.solver import Verdict, solve
from patience.solver.model import Model
from patience.solver.policy import Policy
from patience.variant import rules_of

from tests.solver.golden.make_verdicts import FAST, SLOW, SLOW_SWITCHES
from tests.solver.positions import replay

VERDICTS: dict[str, dict[str, str]] = json.loads(
    (Path(__file__).parent / "golden" / "verdicts.json").read_text()
)
CASES = [
    pytest.param(variant_id, int(deal), Verdict(verdict), id=f"{variant_id}-{deal}")
    for variant_id, deals in VERDICTS.items()
    for deal, verdict in deals.items()
]
SLOW_TOO = os.environ.get("PATIENCE_GOLDEN_SLOW") == "1"


def test_every_game_has_pinned_verdicts() -> None:
    assert set(VERDICTS) == set(patience.VARIANTS)
    assert all(VERDICTS.values()), VERDICTS


@pytest.mark.parametrize(("variant_id", "deal", "verdict"), CASES)
def test_a_pinned_deal_keeps_its_verdict(variant_id: str, deal: int, verdict: Verdict) -> None:
    state = patience.get_variant(variant_id).new_game(deal)
    found = solve(state, FAST)
    assert found.verdict is verdict, found
    if verdict is Verdict.WON:
        assert replay(state, found.line).status is Status.WON
    if SLOW_TOO and verdict is Verdict.LOST:
        policy = Policy(Model(rules_of(state), state.deal), **SLOW_SWITCHES)
        assert solve(state, SLOW, policy=policy).verdict is verdict
