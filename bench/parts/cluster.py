"""`python -m bench` part "cluster", Redis Cluster: what a game script call costs the
gateway on one Redis server and on a cluster, what WAIT for one replica costs a move,
and what clients see when a primary fails (bench/clients/failover_drill.py).

Everything is real and on loopback: an EmbeddedRedisCluster (3 primaries, 1 replica
each, cluster-node-timeout 1 s), the engine and gateways through their entry points.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any

import httpx
from patience_gateway.settings import Settings as GatewaySettings
from patience_gateway.speed.node_runners import NodeRunner
from patience_gateway.storage import scripts
from patience_gateway.storage.clients import open_redis
from patience_gateway.storage.keys import game_keys, script_keys
from patience_launcher.redis_server import EmbeddedRedis
from redis.asyncio import Redis

from bench.clients.endless_games import find_endless_game
from bench.clients.failover_drill import Answer, FailoverDrill, FailoverResult
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
from bench.harness.stats import Loop, Measurement, alternate

WAIT_TIMEOUT_MS = 1000
# the failover drill's games, and its seconds before the cut, of the cut, and after it
DRILL_TIMES: dict[str, dict[str, Any]] = {
    "full": {"games": 12, "before": 2.0, "lag": 0.5, "after": 2.0},
    "quick": {"games": 4, "before": 0.3, "lag": 0.2, "after": 0.2},
}


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
            calls = {
                "NodeRunner (own connections)": lambda _: own.read(script, keys, args),
                "Redis.evalsha (redis-py)": lambda _: node.evalsha(
                    script.sha, len(keys), *keys, *args
                ),
                "RedisCluster.evalsha (redis-py)": lambda _: cluster.evalsha(
                    script.sha, len(cluster_keys), *cluster_keys, *args
                ),
            }
            loops: dict[str, Loop] = {name: (call, None) for name, call in calls.items()}
            return await alternate(loops, settings.gateway_concurrency, settings, warmup=0.2)
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
    try:
        for group in players.values():
            await group.prepare(clients)
        loops: dict[str, Loop] = {
            name: (group.gateway_move, CpuMeter({**stack.pids(), "gateway": gateways[name].pid}))
            for name, group in players.items()
        }
        return await alternate(loops, clients, settings)
    finally:
        for group in players.values():
            await group.close()


def _on_cluster(replicas: int, wait_replicas: int) -> Stack:
    """A cluster of 3 primaries with `replicas` replicas each, an engine, and a gateway
    that waits for `wait_replicas` (REDIS_WAIT_REPLICAS)."""
    return Stack(players=False, cluster_replicas=replicas, gateway_env=_waits(wait_replicas))


def _waits(replicas: int) -> dict[str, str]:
    return {"REDIS_WAIT_REPLICAS": str(replicas), "REDIS_WAIT_TIMEOUT_MS": str(WAIT_TIMEOUT_MS)}


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    drills = [Drill("asynchronous", 0, 1), Drill("WAIT 1 replica", 1, 1)]
    if settings.mode != "quick":
        drills.append(Drill("WAIT 1 replica", 1, 2))
    with _on_cluster(1, 0) as on_cluster:
        assert on_cluster.gateway is not None
        gateways = {
            "no WAIT": on_cluster.gateway,
            "WAIT 1 replica": on_cluster.add_gateway(_waits(1)),
        }
        calls = run_fast(lambda: script_calls(settings, on_cluster.redis_url))
        cost = run_fast(lambda: wait_cost(settings, gateways, on_cluster))
        for item in drills[:2]:  # through the gateway that waits as the drill's does
            _run_drill(item, list(gateways.values())[item.wait_replicas], on_cluster, settings)
    for item in drills[2:]:
        with _on_cluster(item.replicas_per_primary, item.wait_replicas) as on_cluster:
            assert on_cluster.gateway is not None
            _run_drill(item, on_cluster.gateway, on_cluster, settings)
    write_cluster(report.section("Redis Cluster"), calls, cost, drills)


def _run_drill(item: Drill, gateway: HttpServerProcess, stack: Stack, settings: Settings) -> None:
    async def drill() -> FailoverResult:
        assert stack.cluster is not None
        async with httpx.AsyncClient(base_url=gateway.base_url, timeout=30.0) as http:
            return await FailoverDrill(http, stack.cluster, **DRILL_TIMES[settings.mode]).run()

    item.result = run_fast(drill)
    # a 5xx other than 503 is a defect: the gateway's log, to find out why
    if any(answer.status >= 500 for answer in item.result.others):
        print(f"[bench] drill {item.name}: the gateway's log ends:", file=sys.stderr)
        print(gateway.output()[-6000:], file=sys.stderr)


def _kinds(answers: list[Answer]) -> str:
    """The answers counted by status and problem code."""
    kinds = Counter(f"{answer.status} {answer.code}".strip() for answer in answers)
    return ", ".join(f"{count} x {kind}" for kind, count in kinds.items()) or "0"


def write_cluster(
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
        section.measurement(f"cluster.script.{name.split(' ')[0].replace('.', '_').lower()}", m)
        section.first_error(name, m.first_error)
    section.note(
        "**Cost of WAIT**: moves through the gateway on the cluster, without and with"
        f" REDIS_WAIT_REPLICAS=1 (REDIS_WAIT_TIMEOUT_MS={WAIT_TIMEOUT_MS}), interleaved;"
        " server CPU = gateway + engine + the six Redis nodes."
    )
    table = section.table("gateway", "clients", *measurement_columns("moves/s"))
    for name, m in cost.items():
        table.add(name, m.concurrency, *measurement_cells(m))
        section.measurement("cluster.wait" if "WAIT 1" in name else "cluster.nowait", m)
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
            len(r.unavailable), _kinds(r.others), r.lost, r.unacknowledged_kept,
            r.replaced_after, r.rejoined_after, r.longest_wait, r.all_consistent,
        )  # fmt: skip
        section.record(
            f"cluster.drill.w{item.wait_replicas}r{item.replicas_per_primary}", lost=r.lost,
            unavailable=len(r.unavailable), others=len(r.others), longest_wait_s=r.longest_wait,
            replaced_s=r.replaced_after,
        )  # fmt: skip
