"""The parts that need the whole stack (gateway vs bare, cost as a game grows) share
one stack, started once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from bench.cycles import EndlessGame, find_endless_game
from bench.gateway_bench import GatewayBench, write_gateway
from bench.growth_bench import play_long_games, write_growth
from bench.report import Report
from bench.settings import Settings
from bench.stack import Stack

T = TypeVar("T")


def run_fast(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine on uvloop when it is installed (a dependency of the gateway's):
    the load generator then spends less of the shared CPU."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main())
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main())


def run_gateway_part(report: Report, settings: Settings, stack: Stack) -> None:
    plan: EndlessGame = find_endless_game(settings.gateway_variant)
    section = report.section("Gateway over HTTP: POST move vs bare FastAPI endpoint")
    section.note(
        f"Real gateway (`python -m patience_gateway`, Granian, one worker process) in a"
        f" child process,"
        f" real Redis (EmbeddedRedis), real engine ({settings.gateway_engine_workers}"
        f" process). Bare endpoint = bench/bare_app.py on the same Redis, served by"
        f" Granian with the same settings: parse a JSON body, one Redis GET and one"
        f" SET, answer JSON. Load: bench.http_client (keep-alive HTTP/1.1 on asyncio"
        f" streams with httptools, uvloop), one connection per client, closed loop,"
        f" {settings.games_per_client} games per client created beforehand"
        f" (`{plan.variant}` deal {plan.deal}, moving a card back and forth:"
        f" {' / '.join(plan.cycle)}), {settings.seconds:g} s per figure in"
        f" {settings.rounds} interleaved round(s). Server CPU = CPU time of"
        f" gateway + engine + Redis (bare: bare app + Redis) per request; client CPU"
        f" = the load generator's."
    )
    bench = GatewayBench(stack, plan, settings)
    side, sweep, floor = run_fast(bench.run)
    write_gateway(report, section, side, sweep, floor)


def run_growth_part(report: Report, settings: Settings, stack: Stack) -> None:
    plan = find_endless_game(settings.gateway_variant)
    section = report.section("Cost as work grows")
    result = run_fast(lambda: play_long_games(stack, plan, settings))
    write_growth(report, section, result)
