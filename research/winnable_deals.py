"""How long `POST /v1/games` with `"winnable": true` takes, per variant: with an empty
pool (the deals are searched on demand) and from the pool.

    python -m research.winnable_deals [--games 5] [--variants bisley,la-belle-lucie]
        [--budgets 1000,100]

Runs its own Redis and engine (the real entry point, one worker) and the gateway app in
this process (its routes through ASGI, no HTTP server: the figures are the gateway's
work, the engine's searches and Redis, not the network). With the default settings
(WINNABLE_SEARCH_SECONDS 10 a create) but for `--budgets`: the values of
WINNABLE_SOLVE_MILLISECONDS (each deal's budget) compared, the creates from an empty pool
taking turns among them, one create each at a time (default: the setting's default
alone). For the pool, the pool is filled first (not timed), then the same number of
creates is timed. Prints a table, a row per variant and mode: creates, refused (503
no-winnable-deal), and the time per create that was answered 201 (median, mean, max).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import time

import httpx
import patience
from patience_gateway.app import create_app
from patience_gateway.settings import Settings
from patience_gateway.storage.winnable_pools import pool_key, pool_name
from patience_launcher.redis_server import EmbeddedRedis

from bench.harness.machine import describe
from bench.harness.report import Column, table
from bench.harness.servers import EngineProcess, stop_servers_on_sigterm


async def _creates(settings: Settings, variant: str, games: int, fill: bool) -> list[float | None]:
    """Seconds per create (None: refused 503)."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
            redis = app.state.services.redis
            name = pool_name(variant, ())
            await redis.delete(pool_key(name))
            if fill:
                deals = app.state.services.games.winnable
                assert deals is not None, "the gateway was built without winnable deals"
                for _ in range(games):
                    game = await deals.search(variant, (), 60)
                    await redis.lpush(pool_key(name), game.state.SerializeToString())
            times: list[float | None] = []
            for _ in range(games):
                started = time.perf_counter()
                response = await http.post(
                    "/v1/games", json={"variant": variant, "winnable": True}, timeout=120
                )
                spent = time.perf_counter() - started
                if response.status_code == 201:
                    times.append(spent)
                elif response.status_code == 503:
                    times.append(None)
                else:
                    raise RuntimeError(f"{variant}: {response.status_code} {response.text}")
            return times


def main() -> None:
    stop_servers_on_sigterm()
    parser = argparse.ArgumentParser(prog="python -m research.winnable_deals", description=__doc__)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--variants", default=",".join(patience.VARIANTS))
    parser.add_argument(
        "--budgets",
        default=str(Settings.from_env({}).winnable_solve_milliseconds),
        help="values of WINNABLE_SOLVE_MILLISECONDS compared, comma-separated",
    )
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    print(describe())
    creates = table(
        "variant",
        "mode",
        "creates",
        "refused",
        *(Column(f"{n} ms") for n in ("median", "mean", "max")),
    )
    with EmbeddedRedis() as redis, EngineProcess(workers=1) as engine:
        base = Settings(redis_url=redis.url, engine_addr=engine.target, engine_timeout_seconds=70)
        for variant in args.variants.split(","):
            empty: dict[int, list[float | None]] = {budget: [] for budget in budgets}
            for turn in range(args.games):
                # in turns, each budget first as often as last
                for budget in budgets if turn % 2 == 0 else budgets[::-1]:
                    settings = dataclasses.replace(
                        base, winnable_pool_size=0, winnable_solve_milliseconds=budget
                    )
                    empty[budget] += asyncio.run(_creates(settings, variant, 1, fill=False))
            modes = [(f"empty, {budget:,} ms a deal", times) for budget, times in empty.items()]
            pooled = dataclasses.replace(base, winnable_pool_size=args.games)
            modes.append(("pool", asyncio.run(_creates(pooled, variant, args.games, fill=True))))
            for mode, times in modes:
                done = [t * 1000 for t in times if t is not None]
                creates.add(
                    variant,
                    mode,
                    len(times),
                    len(times) - len(done),
                    statistics.median(done) if done else None,
                    statistics.fmean(done) if done else None,
                    max(done, default=None),
                )
                print(creates.rows[-1], file=sys.stderr, flush=True)
    print(creates.markdown())


if __name__ == "__main__":
    main()
