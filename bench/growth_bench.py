"""Cost as work grows: the latency of one move early and late in a long game, and
the Redis memory that a stored game takes as its history grows.

The game is a deal with a reversible pair of moves (bench.cycles), played through
the gateway one move at a time, so that it can go on for hundreds of legal moves.
The hot path should not grow with the history: one Redis read, one engine call, one
compare-and-set write, whatever the game's length.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import redis.asyncio as aioredis

from bench import gateway_api
from bench.cycles import EndlessGame
from bench.http_client import Connection
from bench.report import Report, Section, fmt
from bench.settings import Settings
from bench.stack import Stack
from bench.stats import median, percentile

MEMORY_GOAL_BYTES = 4096


@dataclass
class GameMemory:
    moves: int
    keys: int
    bytes: int


@dataclass
class Growth:
    latencies: list[float]  # seconds, move 1 first
    memory: list[GameMemory]


async def game_memory(redis_url: str, game_id: str) -> tuple[int, int]:
    """(number of keys, bytes) of every Redis key that names the game: the gateway
    puts the game id in a hash tag, `{<id>}`, in each of the game's keys."""
    client = aioredis.from_url(redis_url)
    try:
        keys = [key async for key in client.scan_iter(match=f"*{game_id}*", count=1000)]
        total = 0
        for key in keys:
            total += int(await client.memory_usage(key, samples=0) or 0)
        return len(keys), total
    finally:
        await client.aclose()


async def play_long_game(stack: Stack, plan: EndlessGame, settings: Settings) -> Growth:
    assert stack.gateway is not None and stack.redis is not None
    conn = Connection(stack.gateway.base_url)
    try:
        ref, _ = await gateway_api.create_game(conn, plan.variant, deal=plan.deal)
        latencies: list[float] = []
        memory: list[GameMemory] = []
        for number, notation in enumerate(plan.moves(settings.growth_moves), start=1):
            began = time.perf_counter()
            await gateway_api.move(conn, ref, notation)
            latencies.append(time.perf_counter() - began)
            if number in settings.memory_after:
                keys, size = await game_memory(stack.redis.url, ref.id)
                memory.append(GameMemory(number, keys, size))
        return Growth(latencies, memory)
    finally:
        await conn.close()


def write_growth(report: Report, section: Section, growth: Growth, settings: Settings) -> None:
    window = settings.growth_window
    total = len(growth.latencies)
    late_start = max(1, total - window + 1) if total < 500 + window else 500
    early_start = min(10, late_start)
    section.note(
        f"One game played move by move through the gateway (one client), {total} moves;"
        f" each figure is over {window} consecutive moves starting at the move named."
    )
    table = section.table("moves", "median ms", "p95 ms", "max ms")
    medians = {}
    for start in (early_start, late_start):
        span = growth.latencies[start - 1 : start - 1 + window]
        ordered = sorted(span)
        medians[start] = median(span) * 1000
        table.add(
            f"{start}..{start + len(span) - 1}", fmt(medians[start], 2),
            fmt(percentile(ordered, 0.95) * 1000, 2), fmt(ordered[-1] * 1000, 2),
        )  # fmt: skip
        report.figure(f"growth.move{start}.median_ms", medians[start])
    if medians.get(early_start):
        ratio = medians[late_start] / medians[early_start]
        section.note(f"Late / early median: {ratio:.2f} (flat is about 1).")
        report.figure("growth.late_over_early", ratio)

    section.note(
        "Redis memory of one stored game (`MEMORY USAGE ... SAMPLES 0` summed over"
        f" the game's keys); goal < {MEMORY_GOAL_BYTES:,} bytes with 200 moves of history:"
    )
    mem = section.table("after moves", "keys", "bytes", "bytes per move since previous row")
    previous: GameMemory | None = None
    for entry in growth.memory:
        goal = ""
        if entry.moves >= 200:
            goal = " (goal met)" if entry.bytes < MEMORY_GOAL_BYTES else " (goal not met)"
        per_move = None
        if previous is not None:
            per_move = (entry.bytes - previous.bytes) / (entry.moves - previous.moves)
        mem.add(entry.moves, entry.keys, fmt(entry.bytes) + goal, fmt(per_move, 1))
        report.figure(f"growth.memory_after_{entry.moves}.bytes", entry.bytes)
        previous = entry
