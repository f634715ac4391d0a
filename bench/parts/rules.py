"""`python -m bench` part "rules": the speed of the rules library, per variant, on one
core, no I/O.

Positions are sampled from random play (fixed seed). For each variant: the median time
of one uncached ``legal_moves`` computation, the median time of one ``apply`` of a
legal move, and how many steps per second a random play-out makes (legal moves + apply
+ status on every step).

Alone, printed rather than reported:
``.venv/bin/python -m bench.parts.rules [--states N] [--variant ID ...] [--cpu]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import patience
from patience import State

from bench.harness.report import Report, Table, table
from bench.harness.settings import Settings
from bench.harness.stack import Stack

SEED = 20240601
REPEAT = 200  # calls per timed sample: long enough for the clock to be exact
_clock = time.perf_counter_ns  # --cpu: the thread's CPU time, steadier on a busy machine


def sample_states(variant_id: str, count: int, rng: random.Random) -> list[State]:
    """States met during random play of several deals (not the finished ones)."""
    variant = patience.get_variant(variant_id)
    states: list[State] = []
    while len(states) < count:
        state = variant.new_game(rng.randrange(10**12))
        for _ in range(rng.randrange(5, 300)):
            moves = state.legal_moves()
            if not moves:
                break
            state = state.apply(rng.choice(moves))
        if state.legal_moves():
            states.append(state)
    return states


def per_call_ns(function: Callable[[], object]) -> float:
    start = _clock()
    for _ in range(REPEAT):
        function()
    return (_clock() - start) / REPEAT


def bench_legal_moves(states: list[State]) -> float:
    # The rule set's own computation: State.legal_moves() would answer from its cache.
    return statistics.median(
        per_call_ns(lambda s=s, rules=patience.variant.rules_of(s): rules.legal_moves(s))  # type: ignore[misc]  # noqa: B008
        for s in states
    )


def bench_apply(states: list[State], rng: random.Random) -> float:
    timings = []
    for state in states:
        move = rng.choice(state.legal_moves())
        timings.append(per_call_ns(lambda s=state, m=move: s.apply(m)))  # type: ignore[misc]
    return statistics.median(timings)


def bench_playout(variant_id: str, seconds: float, rng: random.Random) -> float:
    variant = patience.get_variant(variant_id)
    steps = 0
    start = _clock()
    deadline = start + seconds * 1e9
    while _clock() < deadline:
        state = variant.new_game(rng.randrange(10**12))
        for _ in range(1000):
            moves = state.legal_moves()
            if not moves:
                break
            state = state.apply(moves[rng.randrange(len(moves))])
            state.status  # noqa: B018 (status is part of a step as a client sees it)
            steps += 1
    return steps / ((_clock() - start) / 1e9)


# the figures of a variant's row, after its name
FIGURES = ("legal_moves_us", "apply_us", "playout_steps_per_s")


def measure(variants: list[str], states: int, seconds: float) -> Table:
    """A row per variant: its name, then the FIGURES."""
    speeds = table("variant", "legal moves µs", "apply µs", "play-out steps/s")
    rng = random.Random(SEED)
    for variant in variants:
        sampled = sample_states(variant, states, rng)
        legal_us = bench_legal_moves(sampled) / 1000
        apply_us = bench_apply(sampled, rng) / 1000
        speeds.add(variant, legal_us, apply_us, bench_playout(variant, seconds, rng))
    return speeds


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    section = report.section("Rules library (no I/O, one core)")
    section.note(
        f"Per variant: {settings.rules_states} positions sampled from random play (seed"
        f" {SEED}); legal moves and apply = median over those positions of the mean of"
        f" {REPEAT} calls each; play-out = random games for"
        f" {settings.rules_seconds:g} s."
    )
    speeds = measure(list(patience.VARIANTS), settings.rules_states, settings.rules_seconds)
    section.blocks.append(speeds)
    for variant, *values in speeds.rows:
        figures: dict[str, Any] = dict(zip(FIGURES, values, strict=True))
        section.record(f"rules.{variant}", **figures)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.parts.rules", description=__doc__)
    parser.add_argument("--states", type=int, default=300, help="sampled states per variant")
    parser.add_argument("--seconds", type=float, default=1.0, help="play-out time per variant")
    parser.add_argument("--variant", action="append", help="variant id (default: all)")
    parser.add_argument("--cpu", action="store_true", help="time with thread CPU time")
    args = parser.parse_args()
    global _clock
    if args.cpu:
        _clock = time.thread_time_ns
    print(measure(args.variant or list(patience.VARIANTS), args.states, args.seconds).markdown())


if __name__ == "__main__":
    main()
