"""`python -m bench` part "cluster", Redis Cluster: what a game script call costs the
gateway on one Redis server and on a cluster, what WAIT for one replica costs a move,
and what clients see when a primary fails (bench/clients/failover_drill.py).

Everything is real and on loopback: an EmbeddedRedisCluster (3 primaries, 1 replica
each, cluster-node-timeout 1 s), the engine and gateways through their entry points.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import httpx
from patience_gateway.settings import Settings as GatewaySettings
from patience_gateway.speed.node_runners import NodeRunner
from patience_gateway.storage import scripts
from patience_gateway.storage.clients import open_redis
from patience_gateway.storage.keys import game_keys, script_keys
from patience_launcher.redis_cluster import EmbeddedRedisCluster
from patience_launcher.redis_server import EmbeddedRedis
from redis.asyncio import Redis

from bench.clients.endless_games import find_endless_game
from bench.clients.failover_drill import FailoverDrill, FailoverResult
from bench.clients.gateway_players import Players
from bench.harness.event_loop import run_fast
from bench.harness.meters import CpuMeter
from bench.harness.report import (
    Column,
    Report,
    Section,
    measurement_cells,
    measurement_columns,
)
from bench.harness.servers import HttpServerProcess
from bench.harness.settings import Settings
from bench.harness.stack import CLUSTER_NODE_TIMEOUT_MS, Stack
from bench.harness.stats import Measurement, alternate, closed_loop

WAIT_TIMEOUT_MS = 1000


@dataclass
class Drill:
    name: str
    wait_replicas: int
    replicas_per_primary: int
    result: FailoverResult | None = None


async def _stored_game(client: Any, game_id: str) -> list[bytes]:
    """A game as the scripts find it (metadata and one state), for LOAD_STATE."""
    keys = game_keys(game_id)
    await client.hset(keys.meta, mapping={"version": 3, "token": b"t" * 32, "every": 100})
    await client.delete(keys.states)
    await client.rpush(keys.states, b"s" * 300)
    return script_keys(game_id)


async def script_calls(settings: Settings, cluster_url: str) -> dict[str, Measurement]:
    """The gateway's read script (LOAD_STATE) from this process, three ways: its own
    connections (NodeRunner), redis-py's Redis.evalsha (the front door), and
    redis-py's cluster client. Client CPU per call is the figure: the server's work
    is the same script."""
    script = scripts.LOAD_STATE
    # as the store reads the current state: TTL, no idempotency key, the last state, no plan
    args = [b"604800000", b"", b"-1", b""]
    concurrency = settings.gateway_concurrency
    with EmbeddedRedis() as server:
        node = open_redis(GatewaySettings(redis_url=server.url))
        cluster = open_redis(GatewaySettings(redis_url=cluster_url, redis_cluster=True))
        assert isinstance(node, Redis)
        own = NodeRunner(node.connection_pool)
        try:
            keys = await _stored_game(node, "bench")
            cluster_keys = await _stored_game(cluster, "bench")
            for client in (node, cluster):
                await client.script_load(script.text)

            async def via_own(_: int) -> object:
                return await own.read(script, keys, args)

            async def via_evalsha(_: int) -> object:
                return await node.evalsha(script.sha, len(keys), *keys, *args)

            async def via_cluster(_: int) -> object:
                return await cluster.evalsha(script.sha, len(cluster_keys), *cluster_keys, *args)

            calls: dict[str, Callable[[int], Awaitable[object]]] = {
                "NodeRunner (own connections)": via_own,
                "Redis.evalsha (redis-py)": via_evalsha,
                "RedisCluster.evalsha (redis-py)": via_cluster,
            }
            per_round = settings.seconds / settings.rounds
            return await alternate(
                {
                    name: partial(
                        closed_loop, call, concurrency=concurrency, duration=per_round, warmup=0.2
                    )
                    for name, call in calls.items()
                },
                settings.rounds,
            )
        finally:
            await own.aclose()
            await node.aclose()
            await cluster.aclose()


async def wait_cost(
    settings: Settings, gateways: dict[str, HttpServerProcess], stack: Stack
) -> dict[str, Measurement]:
    """Moves through a gateway that does not wait and one that waits for a replica,
    interleaved, each client with its own games."""
    plan = find_endless_game(settings.gateway_variant)
    players = {
        name: Players(gateway.base_url, None, plan, settings.games_per_client)
        for name, gateway in gateways.items()
    }
    clients = settings.gateway_concurrency
    per_round = settings.seconds / settings.rounds
    try:
        for group in players.values():
            await group.prepare(clients)

        def run(name: str) -> Callable[[], Awaitable[Measurement]]:
            cpu = CpuMeter({**stack.pids(), "gateway": gateways[name].pid})
            return lambda: closed_loop(
                players[name].gateway_move, concurrency=clients, duration=per_round,
                warmup=settings.warmup, cpu=cpu,
            )  # fmt: skip

        return await alternate({name: run(name) for name in gateways}, settings.rounds)
    finally:
        for group in players.values():
            await group.close()


async def drill(
    gateway: HttpServerProcess, cluster: EmbeddedRedisCluster, quick: bool
) -> FailoverResult:
    async with httpx.AsyncClient(base_url=gateway.base_url, timeout=30.0) as http:
        if quick:
            return await FailoverDrill(http, cluster, games=4, before=0.3, lag=0.2, after=0.2).run()
        return await FailoverDrill(http, cluster, games=12, before=2.0, lag=0.5, after=2.0).run()


def _gateway_env(wait_replicas: int) -> dict[str, str]:
    return {
        "REDIS_WAIT_REPLICAS": str(wait_replicas),
        "REDIS_WAIT_TIMEOUT_MS": str(WAIT_TIMEOUT_MS),
    }


def _on_cluster(replicas: int, wait_replicas: int) -> Stack:
    """A cluster of 3 primaries with `replicas` replicas each, an engine, and a gateway
    that waits for `wait_replicas` (REDIS_WAIT_REPLICAS)."""
    env = _gateway_env(wait_replicas)
    return Stack(players=False, cluster_replicas=replicas, gateway_env=env)


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    quick = settings.mode == "quick"
    drills = [Drill("asynchronous", 0, 1), Drill("WAIT 1 replica", 1, 1)]
    if not quick:
        drills.append(Drill("WAIT 1 replica", 1, 2))
    with _on_cluster(1, 0) as on_cluster:
        assert on_cluster.gateway is not None and on_cluster.cluster is not None
        gateways = {
            "no WAIT": on_cluster.gateway,
            "WAIT 1 replica": on_cluster.add_gateway(_gateway_env(1)),
        }
        calls = run_fast(lambda: script_calls(settings, on_cluster.redis_url))
        cost = run_fast(lambda: wait_cost(settings, gateways, on_cluster))
        for item in drills[:2]:
            _run_drill(item, gateways[_gateway_for(item)], on_cluster.cluster, quick)
    for item in drills[2:]:
        with _on_cluster(item.replicas_per_primary, item.wait_replicas) as on_cluster:
            assert on_cluster.gateway is not None and on_cluster.cluster is not None
            _run_drill(item, on_cluster.gateway, on_cluster.cluster, quick)
    write_cluster(report, report.section("Redis Cluster"), calls, cost, drills)


def _run_drill(
    item: Drill, gateway: HttpServerProcess, cluster: EmbeddedRedisCluster, quick: bool
) -> None:
    item.result = run_fast(partial(drill, gateway, cluster, quick))
    # a 5xx other than 503 is a defect: the gateway's log, to find out why
    if any(answer.status >= 500 for answer in item.result.others):
        print(f"[bench] drill {item.name}: the gateway's log ends:", file=sys.stderr)
        print(gateway.output()[-6000:], file=sys.stderr)


def _kinds(kinds: dict[str, int]) -> str:
    return ", ".join(f"{count} x {kind}" for kind, count in kinds.items()) or "0"


def _gateway_for(item: Drill) -> str:
    return "WAIT 1 replica" if item.wait_replicas else "no WAIT"


def write_cluster(
    report: Report,
    section: Section,
    calls: dict[str, Measurement],
    cost: dict[str, Measurement],
    drills: list[Drill],
) -> None:
    section.note(
        "A Redis Cluster of 3 primaries with 1 replica each (EmbeddedRedisCluster,"
        f" cluster-node-timeout {CLUSTER_NODE_TIMEOUT_MS} ms, cluster-require-full-coverage no)"
        " on loopback, the engine (1 process) and gateways (`python -m patience_gateway`,"
        " REDIS_CLUSTER=true) in child processes."
    )
    section.note(
        "**Script calls**: the gateway's read script (LOAD_STATE) from the bench process,"
        " three ways; client CPU per call is what the gateway spends on it."
    )
    table = section.table("script call", *measurement_columns())
    for name, m in calls.items():
        table.add(name, *measurement_cells(m))
        report.measurement(f"cluster.script.{name.split(' ')[0].replace('.', '_').lower()}", m)
        section.first_error(name, m.first_error)
    section.note(
        "**Cost of WAIT**: moves through the gateway on the cluster, without and with"
        f" REDIS_WAIT_REPLICAS=1 (REDIS_WAIT_TIMEOUT_MS={WAIT_TIMEOUT_MS}), interleaved;"
        " server CPU = gateway + engine + the six Redis nodes."
    )
    table = section.table("gateway", "clients", *measurement_columns("moves/s"))
    for name, m in cost.items():
        table.add(name, m.concurrency, *measurement_cells(m))
        report.measurement("cluster.wait" if "WAIT 1" in name else "cluster.nowait", m)
        section.first_error(name, m.first_error)
    section.note(
        "**A primary fails over** (bench/clients/failover_drill.py says how): its replica cut"
        " off, then the primary killed while every game's client plays; afterwards every"
        " game's history read back against what was acknowledged."
    )
    table = section.table(
        "replication", "replicas / primary", "games (on the killed primary)", "moves answered 200",
        "503 answers", "other answers", "acknowledged moves lost", "kept but answered 503",
        Column("kill to new primary s"), Column("kill to node back s"),
        Column("longest wait of a game s"), "histories consistent",
    )  # fmt: skip
    for item in drills:
        r = item.result
        assert r is not None
        affected = sum(1 for g in r.games if g.affected)
        table.add(
            item.name, item.replicas_per_primary, f"{len(r.games)} ({affected})", r.acknowledged,
            len(r.unavailable), _kinds(r.others_by_kind()), r.lost, r.unacknowledged_kept,
            r.replaced_after, r.rejoined_after, r.longest_wait, r.all_consistent,
        )  # fmt: skip
        report.record(
            f"cluster.drill.w{item.wait_replicas}r{item.replicas_per_primary}", lost=r.lost,
            unavailable=len(r.unavailable), others=len(r.others), longest_wait_s=r.longest_wait,
            replaced_s=r.replaced_after,
        )  # fmt: skip
