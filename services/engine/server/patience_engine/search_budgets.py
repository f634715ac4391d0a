"""How much a Solve or a Hint may search: defaults, maxima and the call's deadline.

A budget field left at 0 takes the default; a field over the maximum is cut to the
maximum (the reply's positions and milliseconds say what was spent). The maxima keep one
search's memory in bounds (the search remembers every position it entered, about 100
bytes each) and a search process from being held for long. The time is also capped by
the call's deadline, less a margin for the answer to get back: a search that runs out
of time answers UNKNOWN (a hint: its best-effort move) before the deadline, rather than
the call failing with DEADLINE_EXCEEDED. The budget's seconds count from the moment a
search process takes the search up, not from the call's arrival.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from patience.solver import HINT_BUDGET

# The most time kept back from the call's deadline for the answer's way back, and the
# share of the time left it may take when the deadline is near. A second, not less: on a
# machine whose cores are all busy the search process (niced below the servers) may
# notice its deadline late, and the server's loop take its reply late.
DEADLINE_MARGIN_SECONDS = 1.0
DEADLINE_MARGIN_SHARE = 0.2


@dataclass(frozen=True, slots=True)
class SearchLimits:
    default_positions: int
    default_seconds: float
    max_positions: int
    max_seconds: float

    def budget(self, positions: int, milliseconds: int) -> tuple[int, float]:
        """The positions and seconds of a request's budget (0: the default)."""
        chosen_positions = min(positions or self.default_positions, self.max_positions)
        seconds = milliseconds / 1000 if milliseconds else self.default_seconds
        return chosen_positions, min(seconds, self.max_seconds)


def time_to_answer(time_remaining: float | None) -> float:
    """Seconds from now by which a search's answer must be on its way back: the call's
    deadline less a margin for the way back (no limit for a call without a deadline).

    Only this is counted from the call's arrival. The budget's own seconds start when a
    search process takes the search up, so a search that waited for a process (behind
    another search) still gets its whole budget, as far as the deadline allows."""
    if time_remaining is None:
        return math.inf
    margin = min(DEADLINE_MARGIN_SECONDS, DEADLINE_MARGIN_SHARE * time_remaining)
    return time_remaining - margin


# Hint: HINT_BUDGET (200,000 positions, 0.8 s) answers within a second.
HINT_LIMITS = SearchLimits(
    default_positions=HINT_BUDGET.nodes,
    default_seconds=HINT_BUDGET.seconds,
    max_positions=2_000_000,
    max_seconds=5.0,
)
# Solve: the budget of `patience solve`; at most 5 million positions (about 500 MB).
SOLVE_LIMITS = SearchLimits(
    default_positions=2_000_000,
    default_seconds=10.0,
    max_positions=5_000_000,
    max_seconds=60.0,
)
