"""Whether the pools of winnable deals keep up with demand: how long the background refill
takes to fill each pool, and what a burst of winnable creates gets once they are full.

    python -m research.winnable_demand [--pool-size 8] [--creates 100] [--seconds 60]
        [--pool-sizes napoleon-at-st-helena=100,usk=60] [--variants bisley,usk]
        [--fill-seconds 1200] [--solve-milliseconds 100]

Runs its own Redis and engine (the real entry point, one worker, its default search
processes) and the gateway app in this process as a served worker builds it (so its pool
refill runs, with the default WINNABLE_* settings but the pool sizes: `--pool-sizes` as
WINNABLE_POOL_SIZES, and `--solve-milliseconds` as WINNABLE_SOLVE_MILLISECONDS), its
routes through ASGI. First every pool fills from empty (the time
until each is first full is printed). Then per variant in turn: its pool is emptied (as
creates would: the refill is woken) and the time it takes to fill again, the others full,
is that game's fill rate; then, from the full pool, `--creates` winnable creates are sent
at an even pace over `--seconds` (each at its time, whether or not the earlier ones were
answered), while the refill goes on. Printed per variant: the fill time and rate, the
creates dealt from the pool or searched on demand (the gateway's own counter), those
refused (503, by problem type), the time per create, and the pool's lowest size; then
all of it as one table.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable

import httpx
import patience
from patience_gateway.app import create_app
from patience_gateway.settings import Settings
from patience_gateway.storage.winnable_pools import WinnablePools, pool_name
from patience_launcher.redis_server import EmbeddedRedis
from prometheus_client.parser import text_string_to_metric_families

from bench.harness.machine import describe
from bench.harness.report import Column, table
from bench.harness.servers import EngineProcess, stop_servers_on_sigterm

SAMPLE_SECONDS = 0.25


@dataclasses.dataclass
class Burst:
    statuses: Counter[str] = dataclasses.field(default_factory=Counter)
    seconds: list[float] = dataclasses.field(default_factory=list)  # of the 201s
    lowest_pool: int = 1 << 30
    served: Counter[str] = dataclasses.field(default_factory=Counter)  # pool / search


async def _served(http: httpx.AsyncClient, variant: str) -> Counter[str]:
    """The gateway's count of winnable deals of `variant` dealt, by where they came from."""
    text = (await http.get("/metrics")).text
    counts: Counter[str] = Counter()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.endswith("_total") and sample.labels.get("variant") == variant:
                source = sample.labels.get("source")
                if source is not None and "winnable" in sample.name:
                    counts[source] += int(sample.value)
    return counts


async def _fill(
    pools: WinnablePools, variants: list[str], size_of: Callable[[str], int], limit: float
) -> dict[str, float]:
    """Seconds from the start until each pool was first full (absent: not within `limit`)."""
    started = time.monotonic()
    full: dict[str, float] = {}
    while len(full) < len(variants) and time.monotonic() - started < limit:
        for variant in variants:
            name = pool_name(variant, ())
            if variant not in full and await pools.size(name) >= size_of(name):
                full[variant] = time.monotonic() - started
                print(f"  {variant} pool full after {full[variant]:.1f} s", flush=True)
        await asyncio.sleep(SAMPLE_SECONDS)
    return full


async def _burst(
    http: httpx.AsyncClient, pools: WinnablePools, variant: str, creates: int, seconds: float
) -> Burst:
    burst = Burst()
    before = await _served(http, variant)
    started = time.monotonic()

    async def create(at: float) -> None:
        await asyncio.sleep(max(0.0, started + at - time.monotonic()))
        sent = time.perf_counter()
        response = await http.post(
            "/v1/games", json={"variant": variant, "winnable": True}, timeout=120
        )
        if response.status_code == 201:
            burst.statuses["201"] += 1
            burst.seconds.append(time.perf_counter() - sent)
        else:
            kind = response.json().get("type", "").rsplit("/", 1)[-1]
            burst.statuses[f"{response.status_code} {kind}"] += 1

    async def watch(done: asyncio.Event) -> None:
        while not done.is_set():
            burst.lowest_pool = min(burst.lowest_pool, await pools.size(pool_name(variant, ())))
            await asyncio.sleep(SAMPLE_SECONDS)

    done = asyncio.Event()
    watcher = asyncio.create_task(watch(done))
    await asyncio.gather(*(create(i * seconds / creates) for i in range(creates)))
    done.set()
    await watcher
    after = await _served(http, variant)
    burst.served = after - before
    return burst


async def _run(settings: Settings, variants: list[str], args: argparse.Namespace) -> None:
    app = create_app(settings, served=True)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
            pools = WinnablePools(app.state.services.redis)
            size_of = app.state.services.games.winnable.settings.size_of
            print(f"filling pools of {args.pool_size}, {args.pool_sizes or 'every variant'}")
            await _fill(pools, variants, size_of, args.fill_seconds)
            print(f"bursts of {args.creates} creates over {args.seconds:g} s, from full pools")
            bursts = table(
                "variant", "pool", Column("filled from empty in", unit=" s"),
                Column("fill rate", unit="/min"), "dealt", "from the pool", "searched",
                "refused", Column("p50", unit=" ms"), Column("p99", unit=" ms"), "pool's lowest",
            )  # fmt: skip
            for variant in variants:
                name = pool_name(variant, ())
                await _fill(pools, [variant], size_of, args.fill_seconds)
                while await pools.take(name) is not None:
                    pass
                app.state.services.games.winnable.taken.set()  # as a create taking them would
                refilled = await _fill(pools, [variant], size_of, args.fill_seconds)
                burst = await _burst(http, pools, variant, args.creates, args.seconds)
                size, fill = size_of(name), refilled.get(variant)
                times = sorted(seconds * 1000 for seconds in burst.seconds)
                refused = ", ".join(
                    f"{n} {k}" for k, n in sorted(burst.statuses.items()) if k != "201"
                )
                bursts.add(
                    variant, size, fill, size / fill * 60 if fill else None,
                    burst.statuses["201"], burst.served["pool"], burst.served["search"],
                    refused or 0, statistics.median(times) if times else None,
                    times[min(len(times) - 1, int(len(times) * 0.99))] if times else None,
                    burst.lowest_pool,
                )  # fmt: skip
                print(bursts.rows[-1], file=sys.stderr, flush=True)
            print(bursts.markdown())


def main() -> None:
    stop_servers_on_sigterm()
    parser = argparse.ArgumentParser(
        prog="python -m research.winnable_demand",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--pool-size", type=int, default=8)
    parser.add_argument("--pool-sizes", default="", help="as WINNABLE_POOL_SIZES")
    parser.add_argument("--creates", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--fill-seconds", type=float, default=1200.0)
    parser.add_argument("--variants", default=",".join(patience.VARIANTS))
    parser.add_argument("--solve-milliseconds", default="", help="as WINNABLE_SOLVE_MILLISECONDS")
    args = parser.parse_args()
    print(describe())
    given = Settings.from_env(
        {
            "WINNABLE_POOL_SIZES": args.pool_sizes,
            "WINNABLE_SOLVE_MILLISECONDS": args.solve_milliseconds,
        }
    )
    with EmbeddedRedis() as redis, EngineProcess(workers=1) as engine:
        settings = Settings(
            redis_url=redis.url,
            engine_addr=engine.target,
            engine_timeout_seconds=70,
            winnable_pool_size=args.pool_size,
            winnable_pool_sizes=given.winnable_pool_sizes,
            winnable_solve_milliseconds=given.winnable_solve_milliseconds,
        )
        asyncio.run(_run(settings, args.variants.split(","), args))


if __name__ == "__main__":
    main()
