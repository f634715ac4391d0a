"""Find whole deals of every game that the search decides quickly with every shortcut on,
each confirmed another way, and write tests/solver/golden/verdicts.json: a won deal by
its line replayed through the rules library to a won game (a proof whatever found it);
a lost deal by a slower configuration that is sound without the proofs of the bolder
shortcuts (no pruning, no dead ends), which must prove it lost too.

Run: ``.venv/bin/python -m tests.solver.golden.make_verdicts [variant ...]``

Deals 0, 1, 2, ... (and a few of the random-deal range) are searched; a deal is kept when
the full search decides it within FAST positions and the other way confirms it: up to
WANT won and WANT lost deals per game. Variants not named keep their entry.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import patience
from patience import Status
from patience.solver import Budget, Verdict, solve
from patience.solver.model import Model
from patience.solver.policy import Policy
from patience.variant import rules_of

from tests.solver.positions import replay

VERDICTS = Path(__file__).with_name("verdicts.json")
FAST = Budget(nodes=200_000, seconds=20, cpu_time=True)  # the full policy, in `make test`
SLOW = Budget(nodes=400_000, seconds=15, cpu_time=True)  # without pruning and dead ends
SLOW_SWITCHES = {"pruning": False, "dead_ends": False}
WANT = 2
DEALS = [*range(0, 12), *(10**18 + 7919 * k for k in range(3))]


def verdicts(variant_id: str) -> dict[str, str]:
    variant = patience.get_variant(variant_id)
    found: dict[str, str] = {}
    counts = {Verdict.WON: 0, Verdict.LOST: 0}
    for deal in DEALS:
        if all(n >= WANT for n in counts.values()):
            break
        state = variant.new_game(deal)
        fast = solve(state, FAST)
        if not fast.decided or counts[fast.verdict] >= WANT:
            continue
        if fast.verdict is Verdict.WON:
            assert replay(state, fast.line).status is Status.WON, (variant_id, deal)
            confirmed = "line replayed"
        else:
            model = Model(rules_of(state), state.deal)
            slow = solve(state, SLOW, policy=Policy(model, **SLOW_SWITCHES))
            if not slow.decided:
                continue
            assert slow.verdict is fast.verdict, (variant_id, deal, fast, slow)
            confirmed = f"{slow.nodes} positions without pruning and dead ends"
        counts[fast.verdict] += 1
        found[str(deal)] = fast.verdict.value
        print(variant_id, deal, fast.verdict.value, fast.nodes, confirmed, flush=True)
    return found


def main() -> None:
    wanted = sys.argv[1:] or list(patience.VARIANTS)
    for variant_id in wanted:
        found = verdicts(variant_id)
        # read again before each write: runs for other variants may write meanwhile
        table = json.loads(VERDICTS.read_text()) if VERDICTS.exists() else {}
        table[variant_id] = found
        write(table)


def write(table: dict[str, dict[str, str]]) -> None:
    ordered = {v: table[v] for v in patience.VARIANTS if v in table}
    VERDICTS.write_text(json.dumps(ordered, indent=1) + "\n")


if __name__ == "__main__":
    main()
