"""`python -m bench`: every part in turn, one table per part, written as Markdown to
bench/results/latest.md (and the figures as JSON beside it).

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

from bench import machine
from bench.report import Report
from bench.settings import Settings

PARTS = ("rules", "engine", "gateway", "growth", "load")
RESULTS = Path(__file__).with_name("results")


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
    parser.add_argument("--engine-concurrency", type=int)
    parser.add_argument("--engine-workers", type=_ints, help="e.g. 1,2")
    parser.add_argument("--engine-variant")
    parser.add_argument("--gateway-concurrency", type=int)
    parser.add_argument("--sweep", type=_ints, help="client counts, e.g. 1,2,4,8,16,32")
    parser.add_argument("--sweep-seconds", type=float)
    parser.add_argument("--games-per-client", type=int)
    parser.add_argument("--growth-moves", type=int, help="length of the long game")
    parser.add_argument("--load-users", type=int)
    parser.add_argument("--load-spawn-rate", type=float)
    parser.add_argument("--load-run-time", help="e.g. 60s")
    parser.add_argument("--output-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    settings = Settings.quick() if args.quick else Settings()
    knobs = {f.name for f in fields(Settings)} - {"parts", "mode"}
    overrides = {k: v for k, v in vars(args).items() if k in knobs and v is not None}
    parts = tuple(p for p in (args.only or PARTS) if p not in args.skip)
    return replace(settings, **overrides, parts=parts), args.output_dir


def _rules(report: Report, settings: Settings) -> None:
    from bench.rules_part import run_rules_part

    run_rules_part(report, settings)


def _engine(report: Report, settings: Settings) -> None:
    from bench.engine_bench import run_engine_part

    run_engine_part(report, settings)


def _http(report: Report, settings: Settings, *, gateway: bool, growth: bool) -> None:
    from bench.http_parts import run_http_parts

    run_http_parts(report, settings, gateway=gateway, growth=growth)


def _load(report: Report, settings: Settings) -> None:
    from bench.load import run_load, write_load

    result = run_load(
        users=settings.load_users, spawn_rate=settings.load_spawn_rate,
        run_time=settings.load_run_time, host=None,
        engine_workers=settings.gateway_engine_workers,
    )  # fmt: skip
    write_load(report, report.section("Load test (Locust)"), result)


def main(argv: list[str] | None = None) -> int:
    settings, output_dir = parse_args(argv)
    report = Report()
    report.preamble.append(machine.describe())
    report.preamble.append(
        f"Mode: {settings.mode} (seconds per figure {settings.seconds:g});"
        f" parts: {', '.join(settings.parts)}."
    )
    steps: list[tuple[str, Callable[[], None]]] = []
    if "rules" in settings.parts:
        steps.append(("rules", lambda: _rules(report, settings)))
    if "engine" in settings.parts:
        steps.append(("engine", lambda: _engine(report, settings)))
    gateway, growth = "gateway" in settings.parts, "growth" in settings.parts
    if gateway or growth:
        name = "+".join(p for p in ("gateway", "growth") if p in settings.parts)
        steps.append((name, lambda: _http(report, settings, gateway=gateway, growth=growth)))
    if "load" in settings.parts:
        steps.append(("load", lambda: _load(report, settings)))

    failed = []
    started = time.monotonic()
    for name, step in steps:
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
    total = time.monotonic() - started
    report.preamble.append(f"Whole run: {total:.0f} s.")
    report.figure("run.seconds", total)
    md_path, json_path = report.write(output_dir)
    print(report.markdown())
    print(f"[bench] written: {md_path} and {json_path}", file=sys.stderr)
    return 1 if failed else 0
