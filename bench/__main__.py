"""`python -m bench`: every part in turn (bench/parts/), one table per part, written as
Markdown to bench/results/latest.md (and the figures as JSON beside it).

A part that fails is reported as not measured, with the reason, and the others still
run; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path

from bench.harness import machine
from bench.harness.paths import RESULTS
from bench.harness.report import Report
from bench.harness.servers import stop_servers_on_sigterm
from bench.harness.settings import Settings
from bench.harness.stack import Stack
from bench.parts import PARTS, SHARED_STACK, run_of


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x.strip())


def _parts(text: str) -> tuple[str, ...]:
    chosen = tuple(p.strip() for p in text.split(",") if p.strip())
    unknown = set(chosen) - set(PARTS)
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown part(s) {sorted(unknown)}; parts: {PARTS}")
    return chosen


def parse_args(argv: list[str] | None) -> tuple[Settings, Path]:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short windows: about a minute")
    parser.add_argument("--only", type=_parts, help=f"comma-separated subset of {PARTS}")
    parser.add_argument("--skip", type=_parts, default=(), help="parts to leave out")
    parser.add_argument("--seconds", type=float, help="measured window per figure")
    parser.add_argument("--warmup", type=float, help="unmeasured warm-up before each window")
    parser.add_argument("--rounds", type=int, help="interleaved rounds per comparison")
    parser.add_argument("--rules-states", type=int, help="positions sampled per variant")
    parser.add_argument("--rules-seconds", type=float, help="play-out seconds per variant")
    parser.add_argument("--solver-deals", type=int, help="deals solved per variant")
    parser.add_argument("--solver-seconds", type=float, help="CPU seconds per deal solved")
    parser.add_argument("--engine-concurrency", type=int)
    parser.add_argument("--engine-workers", type=_ints, help="e.g. 1,2")
    parser.add_argument("--engine-variant")
    parser.add_argument("--gateway-concurrency", type=int)
    parser.add_argument("--gateway-engine-workers", type=int, help="engine processes behind it")
    parser.add_argument("--gateway-variant", help="a variant where a card can go back and forth")
    parser.add_argument("--sweep", type=_ints, help="client counts, e.g. 1,2,4,8,16,32")
    parser.add_argument("--sweep-seconds", type=float)
    parser.add_argument("--games-per-client", type=int)
    parser.add_argument("--growth-late", type=int, help="the late move number (default 1000)")
    parser.add_argument("--growth-window", type=int, help="timed moves at each point")
    parser.add_argument("--memory-after", type=_ints, help="move counts, e.g. 10,200")
    parser.add_argument("--load-users", type=int)
    parser.add_argument("--load-spawn-rate", type=float)
    parser.add_argument("--load-run-time", help="e.g. 60s")
    parser.add_argument("--load-processes", type=int, help="Locust worker processes (default 1)")
    parser.add_argument(
        "--scaling-levels",
        type=_ints,
        help="processes per level, e.g. 1,2,4,8,16 (default: powers of two up to the cores)",
    )
    parser.add_argument(
        "--scaling-client-processes", type=int, help="load-generator processes (default: cores/4)"
    )
    parser.add_argument(
        "--probe-timeout-seconds", type=int, help="the gateway's header and body timeouts"
    )
    parser.add_argument("--probe-slow-clients", type=int, help="slow connections to hold")
    parser.add_argument("--probe-slow-seconds", type=float, help="time ordinary requests meanwhile")
    parser.add_argument("--crowding-clients", type=int, help="clients moving beside searches")
    parser.add_argument("--crowding-seconds", type=float, help="measured seconds per condition")
    parser.add_argument("--crowding-rounds", type=int, help="rounds of the three conditions")
    parser.add_argument("--crowding-hints-per-second", type=float, help="hints asked per second")
    parser.add_argument("--solver-rate-nodes", type=int, help="positions per search-rate sample")
    parser.add_argument("--leaderboard-players", type=int, help="players on the board read")
    parser.add_argument("--output-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    settings = Settings.quick() if args.quick else Settings()
    knobs = {f.name for f in fields(Settings)} - {"parts", "mode"}
    overrides = {k: v for k, v in vars(args).items() if k in knobs and v is not None}
    parts = tuple(p for p in (args.only or PARTS) if p not in args.skip)
    return replace(settings, **overrides, parts=parts), args.output_dir


def _run_step(report: Report, name: str, step: Callable[[], object], failed: list[str]) -> None:
    began = time.monotonic()
    print(f"[bench] {name} ...", file=sys.stderr, flush=True)
    try:
        step()
    except Exception as exc:
        failed.append(name)
        traceback.print_exc()
        report.section(f"Not measured: {name}").note(
            f"This part failed: `{type(exc).__name__}: {str(exc)[:500]}`"
        )
    print(f"[bench] {name} took {time.monotonic() - began:.1f} s", file=sys.stderr)


def _run_part(
    report: Report, settings: Settings, part: str, stack: Stack | None, failed: list[str]
) -> None:
    _run_step(report, part, lambda: run_of(part)(report, settings, stack), failed)


def _run_on_one_stack(
    report: Report, settings: Settings, parts: list[str], failed: list[str]
) -> None:
    """The parts that measure through the whole service, on one stack started for them
    and stopped once they are done."""
    stack = Stack(engine_workers=settings.gateway_engine_workers, with_bare=True)
    try:
        _run_step(report, "stack start", stack.start, failed)
        for part in parts if "stack start" not in failed else []:
            _run_part(report, settings, part, stack, failed)
    finally:
        stack.stop()


def main(argv: list[str] | None = None) -> int:
    stop_servers_on_sigterm()
    settings, output_dir = parse_args(argv)
    report = Report()
    report.preamble.append(machine.describe())
    report.preamble.append(
        f"Mode: {settings.mode} (seconds per figure {settings.seconds:g});"
        f" parts: {', '.join(settings.parts)}."
    )
    failed: list[str] = []
    started = time.monotonic()
    chosen = [part for part in PARTS if part in settings.parts]
    on_stack = [part for part in chosen if part in SHARED_STACK]
    for part in chosen:
        if part not in SHARED_STACK:
            _run_part(report, settings, part, None, failed)
        elif part == on_stack[0]:
            _run_on_one_stack(report, settings, on_stack, failed)
    total = time.monotonic() - started
    report.preamble.append(f"Whole run: {total:.0f} s.")
    report.figure("run.seconds", total)
    md_path, json_path = report.write(output_dir)
    print(report.markdown())
    print(f"[bench] written: {md_path} and {json_path}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
