"""The rules library on its own, per variant, through bench/rules_bench.py (the
library's own timing functions): median µs of one uncached legal-moves computation
and of one apply, over positions sampled from random play, and random play-out
steps per second (legal moves + apply + status per step), all on one core."""

from __future__ import annotations

import random

import patience

from bench import rules_bench
from bench.report import Report, fmt
from bench.settings import Settings

SEED = 20240601


def run_rules_part(report: Report, settings: Settings) -> None:
    section = report.section("Rules library (no I/O, one core)")
    section.note(
        f"Per variant: {settings.rules_states} positions sampled from random play (seed"
        f" {SEED}); legal moves and apply = median over those positions of the mean of"
        f" {rules_bench._REPEAT} calls each; play-out = random games for"
        f" {settings.rules_seconds:g} s."
    )
    table = section.table("variant", "legal moves µs", "apply µs", "play-out steps/s")
    rng = random.Random(SEED)
    for variant in patience.VARIANTS:
        states = rules_bench.sample_states(variant, settings.rules_states, rng)
        legal_us = rules_bench.bench_legal_moves(states) / 1000
        apply_us = rules_bench.bench_apply(states, rng) / 1000
        steps = rules_bench.bench_playout(variant, settings.rules_seconds, rng)
        table.add(variant, fmt(legal_us, 1), fmt(apply_us, 1), fmt(steps))
        report.figure(f"rules.{variant}.legal_moves_us", legal_us)
        report.figure(f"rules.{variant}.apply_us", apply_us)
        report.figure(f"rules.{variant}.playout_steps_per_s", steps)
