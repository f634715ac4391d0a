"""`python -m bench` part "growth", cost as work grows: the latency of one move, and of
one undo, early and late in a long game, and the Redis memory that a stored game takes
as its history grows.

Two games of a deal with a reversible pair of moves (bench/clients/endless_games.py) are
played through the gateway: an old one, first brought to its late move number untimed,
and a young one; then their timed moves alternate (young at move 10, 11, ... and old at
move 1,000, 1,001, ...), so that both windows meet the same machine and the comparison
holds on a busy one. The hot path should not grow with the history: one Redis read,
one engine call, one compare-and-set write, whatever the game's length. Then undos at
move 10 and at move 1,000 alternate the same way (each followed by an untimed redo):
undo replays fewer than the checkpoint interval's moves, whatever the game's length.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from statistics import median

import redis.asyncio as aioredis
from patience_gateway.storage.store import CHECKPOINT_EVERY

from bench.clients import gateway_api
from bench.clients.endless_games import EndlessGame, find_endless_game
from bench.clients.http_client import Connection
from bench.harness.event_loop import run_fast
from bench.harness.report import Column, Report, Section
from bench.harness.settings import Settings
from bench.harness.stack import Stack
from bench.harness.stats import percentile_ms

MEMORY_GOAL_BYTES = 4096
UNDO_WINDOW = 10


@dataclass
class GameMemory:
    moves: int
    keys: int
    bytes: int


@dataclass
class Growth:
    early_at: int
    late_at: int
    early: list[float] = field(default_factory=list)  # seconds per move
    late: list[float] = field(default_factory=list)
    early_undo: list[float] = field(default_factory=list)  # seconds per undo
    late_undo: list[float] = field(default_factory=list)
    memory: list[GameMemory] = field(default_factory=list)


async def game_memory(redis_url: str, game_id: str) -> tuple[int, int]:
    """(number of keys, bytes) of every Redis key that names the game: the gateway
    puts the game id in a hash tag, `{<id>}`, in each of the game's keys."""
    async with aioredis.from_url(redis_url, socket_timeout=30.0) as client:
        keys = [key async for key in client.scan_iter(match=f"*{{{game_id}}}*", count=1000)]
        sizes = [await client.memory_usage(key, samples=0) for key in keys]
        return len(keys), sum(int(size or 0) for size in sizes)


class LongGame:
    """One game played move by move, timing the requests asked for."""

    def __init__(self, conn: Connection, plan: EndlessGame, moves: int) -> None:
        self.conn = conn
        self.plan = plan
        self.plan_moves = plan.moves(moves)
        self.made = 0
        self.ref = gateway_api.GameRef("", "", "")

    async def create(self) -> None:
        self.ref = await gateway_api.create_game(self.conn, self.plan.variant, deal=self.plan.deal)

    async def _timed(self, request: Awaitable[object], moves: int) -> float:
        """Seconds the request took; the game is then `moves` moves further on."""
        began = time.perf_counter()
        await request
        elapsed = time.perf_counter() - began
        self.made += moves
        return elapsed

    async def next_move(self) -> float:
        notation = self.plan_moves[self.made]
        return await self._timed(gateway_api.move(self.conn, self.ref, notation), 1)

    async def undo(self) -> float:
        return await self._timed(gateway_api.change(self.conn, self.ref, "undo"), -1)

    async def redo(self) -> None:
        await self._timed(gateway_api.change(self.conn, self.ref, "redo"), 1)

    async def back_to(self, position: int) -> None:
        """Undo, untimed, until the game is at `position`."""
        while self.made > position:
            await self.undo()


async def play_long_games(stack: Stack, plan: EndlessGame, settings: Settings) -> Growth:
    redis_url = stack.redis_url
    window = settings.growth_window
    growth = Growth(settings.growth_early, settings.growth_late)
    conn = Connection(stack.base_url)
    young = LongGame(conn, plan, growth.early_at - 1 + window)
    old = LongGame(conn, plan, growth.late_at - 1 + window)
    memory_marks = set(settings.memory_after)

    async def old_move() -> float:
        elapsed = await old.next_move()
        if old.made in memory_marks:
            keys, size = await game_memory(redis_url, old.ref.id)
            growth.memory.append(GameMemory(old.made, keys, size))
        return elapsed

    try:
        await young.create()
        await old.create()
        while old.made < growth.late_at - 1:  # the run-up, untimed
            await old_move()
        while young.made < growth.early_at - 1:
            await young.next_move()
        for _ in range(window):
            growth.early.append(await young.next_move())
            growth.late.append(await old_move())
        # undo at move `early` and at move `late` exactly (each undo followed by an
        # untimed redo, so the position stays): the gateway replays the moves from the
        # last checkpoint before the target, so these are where it replays the fewest
        # and (at a multiple of the interval) the most moves
        await young.back_to(growth.early_at)
        await old.back_to(growth.late_at)
        for _ in range(UNDO_WINDOW):
            growth.early_undo.append(await young.undo())
            await young.redo()
            growth.late_undo.append(await old.undo())
            await old.redo()
        return growth
    finally:
        await conn.close()


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    assert stack is not None, "the growth part measures through the shared stack"
    plan = find_endless_game(settings.gateway_variant)
    section = report.section("Cost as work grows")
    result = run_fast(lambda: play_long_games(stack, plan, settings))
    write_growth(section, result)


def _undo_at(position: int) -> str:
    """Where an undo was timed, and how many moves the gateway replayed for it."""
    replayed = (position - 1) % CHECKPOINT_EVERY
    return f"{position} (replays {replayed})"


def write_growth(section: Section, growth: Growth) -> None:
    window = len(growth.early)
    section.note(
        f"Two games of the same deal played move by move through the gateway (one"
        f" client): {window} moves of a young game from move {growth.early_at}"
        f" alternating with {window} moves of an old one from move {growth.late_at}."
    )
    times = (Column(header, 2) for header in ("median ms", "p95 ms", "max ms"))
    table = section.table("request", "at moves", *times)
    rows = (
        ("move", "early", f"{growth.early_at}..{growth.early_at + window - 1}", growth.early),
        ("move", "late", f"{growth.late_at}..{growth.late_at + window - 1}", growth.late),
        ("undo", "early_undo", _undo_at(growth.early_at), growth.early_undo),
        ("undo", "late_undo", _undo_at(growth.late_at), growth.late_undo),
    )
    for request, name, where, span in rows:
        if not span:
            continue
        middle = median(span) * 1000
        table.add(request, where, middle, percentile_ms(span, 0.95), max(span) * 1000)
        section.figure(f"growth.{name}.median_ms", middle)
    ratio = median(growth.late) / median(growth.early)
    section.note(f"Moves, late / early median: **{ratio:.2f}** (flat is about 1).")
    section.figure("growth.late_over_early", ratio)
    if growth.early_undo and growth.late_undo:
        undo_ratio = median(growth.late_undo) / median(growth.early_undo)
        section.note(
            f"Undo, late / early median: **{undo_ratio:.2f}**. Undo replays the moves since"
            f" the last checkpoint before its target (one every {CHECKPOINT_EVERY} moves),"
            f" so it replays at most {CHECKPOINT_EVERY - 1} moves however long the game:"
            f" the late row is at a multiple of {CHECKPOINT_EVERY}, the most it replays."
        )
        section.figure("growth.undo_late_over_early", undo_ratio)

    section.note(
        "Redis memory of one stored game (`MEMORY USAGE <key> SAMPLES 0` summed over"
        f" the game's keys); goal < {MEMORY_GOAL_BYTES:,} bytes with 200 moves of history:"
    )
    mem = section.table(
        "after moves", "keys", "bytes", "bytes per move since previous row", "goal met"
    )
    previous: GameMemory | None = None
    for entry in growth.memory:
        per_move = None
        if previous is not None:
            per_move = (entry.bytes - previous.bytes) / (entry.moves - previous.moves)
        met = entry.bytes < MEMORY_GOAL_BYTES if entry.moves >= 200 else None
        mem.add(entry.moves, entry.keys, entry.bytes, per_move, met)
        section.figure(f"growth.memory_after_{entry.moves}.bytes", entry.bytes)
        previous = entry
