"""The parts of `python -m bench`, one module each, named as `--only` names them.

Every part module exposes `run(report, settings, stack)`: it measures, and writes its
section and figures into the report. `stack` is the running service the parts in
SHARED_STACK measure through (started once for all of them); the other parts start
what they need themselves and are given None.
"""

from __future__ import annotations

import importlib
from typing import Protocol

from bench.harness.report import Report
from bench.harness.settings import Settings
from bench.harness.stack import Stack

# in the order they run
PARTS = (
    "rules", "solver", "engine", "gateway", "growth", "load", "accounts", "cluster", "scaling",
    "probes", "leaderboards", "crowding",
)  # fmt: skip
# one stack (Redis, PostgreSQL, engine, gateway, bare endpoint) serves these, in a row
SHARED_STACK = frozenset({"gateway", "growth", "load", "accounts"})


class PartRun(Protocol):
    def __call__(self, report: Report, settings: Settings, stack: Stack | None) -> None: ...


def run_of(part: str) -> PartRun:
    """The part's run function; its module is imported only when the part runs."""
    run: PartRun = importlib.import_module(f"{__name__}.{part}").run
    return run
