"""A Redis Cluster primary killed mid-game (bench/clients/failover_drill.py's drill, on the suite's
cluster, the gateway in-process): clients see 200 or a 503 problem with Retry-After,
never another error; every game reads back as a legal line; with WAIT for one
replica, no acknowledged move is lost though the replica lagged when the primary
died; and every game moves again once the replica has taken over."""

from __future__ import annotations

import pytest
from patience_gateway.settings import Settings
from patience_launcher.redis_cluster import EmbeddedRedisCluster

from bench.clients.failover_drill import FailoverDrill
from tests.gateway.engines import EngineThread
from tests.gateway.helpers import environment_speed_paths, running_gateway

pytestmark = pytest.mark.xdist_group("redis-cluster")


async def test_a_primary_dies_mid_game_and_no_acknowledged_move_is_lost(
    redis_cluster: EmbeddedRedisCluster, engine: EngineThread
) -> None:
    settings = Settings(
        redis_url=redis_cluster.url,
        redis_cluster=True,
        redis_wait_replicas=1,
        # short: a change the frozen replica cannot confirm is answered 503 soon; on a
        # busy machine others may be too, and are retried like them
        redis_wait_timeout_ms=300,
        engine_addr=engine.target,
        speed_paths=environment_speed_paths(),
    )
    async with running_gateway(settings) as gateway:
        drill = FailoverDrill(gateway.http, redis_cluster, games=6, before=0.5, lag=0.3, after=0.3)
        result = await drill.run()
    affected = [game for game in result.games if game.affected]
    assert affected and len(affected) < len(result.games)
    assert result.others == [], result.others[:5]
    assert result.unavailable, "the switch went unseen: was the primary killed?"
    assert all(game.stored >= 0 for game in result.games)
    assert result.all_consistent
    assert result.lost == 0, [(g.acknowledged, g.stored) for g in result.games]
    for game in result.games:
        assert any(a.status == 200 and a.at > result.killed_at for a in game.answers), game.id
