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
from functools import partial
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


# how the command line reads each kind of knob (Settings' annotations)
READERS: dict[str, Callable[[str], object]] = {
    "int": int,
    "float": float,
    "str": str,
    "tuple[int, ...]": _ints,
    "tuple[bool, ...]": lambda text: tuple(bool(x) for x in _ints(text)),
}


def parse_args(argv: list[str] | None) -> tuple[Settings, Path]:
    """Settings from the command line: every knob of Settings (bench/harness/settings.py
    says what each does) as an option of its name, over the full or the quick defaults."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short windows: about a minute")
    parser.add_argument("--only", type=_parts, help=f"comma-separated subset of {PARTS}")
    parser.add_argument("--skip", type=_parts, default=(), help="parts to leave out")
    full, quick = Settings(), Settings.quick()
    knobs = [f for f in fields(Settings) if f.name not in ("mode", "parts")]
    for knob in knobs:
        default, short = getattr(full, knob.name), getattr(quick, knob.name)
        shown = f"default {default}" + (f", --quick {short}" if short != default else "")
        option = "--" + knob.name.replace("_", "-")
        parser.add_argument(option, type=READERS[str(knob.type)], help=shown)
    parser.add_argument("--output-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    settings = quick if args.quick else full
    chosen = {k.name: getattr(args, k.name) for k in knobs if getattr(args, k.name) is not None}
    parts = tuple(p for p in (args.only or PARTS) if p not in args.skip)
    return replace(settings, **chosen, parts=parts), args.output_dir


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


def _run_on_one_stack(
    report: Report, settings: Settings, parts: list[str], failed: list[str]
) -> None:
    """The parts that measure through the whole service, on one stack started for them
    and stopped once they are done."""
    stack = Stack(engine_workers=settings.gateway_engine_workers, with_bare=True)
    try:
        _run_step(report, "stack start", stack.start, failed)
        for part in parts if "stack start" not in failed else []:
            _run_step(report, part, partial(run_of(part), report, settings, stack), failed)
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
            _run_step(report, part, partial(run_of(part), report, settings, None), failed)
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
