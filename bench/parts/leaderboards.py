"""`python -m bench` part "leaderboards": reads of one board of 100,000 players over
real HTTP (GET /v1/leaderboards/wins/{variant}: the top 10, and the top 10 with the
reading player's own rank), against the gateway's own /livez, the bare FastAPI endpoint,
the raw Redis commands of a read and the raw PostgreSQL look-up of its names, measured in
the same run; then the reads at each client count of the sweep, and where a read's time
goes (the gateway's own `Leaderboards.read` in this process, a clock around each step).

The part starts a stack of its own, so that it fills a database nobody else writes to:
the players into PostgreSQL and the board into Redis as the service fills them, their
access tokens signed with the stack's key; a few reads are checked against what was
written before the clock starts (bench/README.md, "Leaderboards").
"""

from __future__ import annotations

import asyncio
import base64
import bisect
import random
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
from patience_gateway.players.access_tokens import AccessTokens, KeySet
from patience_gateway.records.leaderboards import ALL_TIME, Leaderboards, wins_name
from patience_gateway.storage import schema
from patience_gateway.storage.boards import (
    BOARD_TTL_SECONDS,
    Boards,
    Ranked,
    board_key,
    built_key,
)
from patience_gateway.storage.database import Database
from psycopg import AsyncConnection
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bench.clients.endless_games import EndlessGame, find_endless_game
from bench.clients.gateway_players import Players
from bench.clients.http_client import Response
from bench.harness.event_loop import run_fast
from bench.harness.meters import CpuMeter
from bench.harness.report import (
    Column,
    Report,
    Section,
    cpu_by_process,
    fmt,
    measurement_cells,
    measurement_columns,
    pct,
)
from bench.harness.settings import Settings
from bench.harness.stack import Stack
from bench.harness.stats import Loop, Measurement, alternate, ratio, run_loop

VARIANT = "bisley"
BOARD = wins_name(VARIANT, ALL_TIME)
TOP = 10
AROUND = 2
GOAL_P99_MS = 10.0
# players whose tokens the reads of "me" use, drawn at random from the board
SAMPLE = {"full": 2000, "quick": 200}
# reads of the step profile, one at a time
PROFILED_READS = {"full": 3000, "quick": 200}
# a wins count: many players with a few, a long tail with many (ties share a rank)
MEAN_WINS = 25.0
NAMED_SHARE = 0.8
REBUILD_CHUNK = 10_000
SEED = 20261124
TOKEN_SECONDS = 4 * 3600

TOP_PATH = f"/v1/leaderboards/wins/{VARIANT}?period=all&top={TOP}"
ME_PATH = f"{TOP_PATH}&around={AROUND}"
NAMES_SQL = "SELECT id, display_name FROM players WHERE id = ANY(%s)"


@dataclass
class Board:
    """What was written: every player's score, and the sampled players' tokens."""

    scores: dict[str, float]
    names: dict[str, str | None]
    sample: list[str]
    tokens: dict[str, str]
    ascending: list[float] = field(default_factory=list)
    fill_seconds: dict[str, float] = field(default_factory=dict)

    def rank_of(self, score: float) -> int:
        """Competition rank: one more than the players with more wins."""
        return len(self.ascending) - bisect.bisect_right(self.ascending, score) + 1


def player_id(rng: random.Random) -> str:
    """22 url-safe characters, as `players.repository.new_player_id` draws them."""
    return base64.urlsafe_b64encode(rng.randbytes(16)).rstrip(b"=").decode()


def draw_board(players: int, sample: int) -> Board:
    rng = random.Random(SEED)
    scores: dict[str, float] = {}
    names: dict[str, str | None] = {}
    for number in range(players):
        pid = player_id(rng)
        scores[pid] = float(1 + int(rng.expovariate(1 / MEAN_WINS)))
        names[pid] = f"Player {number}" if rng.random() < NAMED_SHARE else None
    chosen = rng.sample(list(scores), min(sample, players))
    return Board(scores, names, chosen, {}, sorted(scores.values()))


async def fill(stack: Stack, board: Board) -> None:
    """The players into PostgreSQL, the board into Redis (as a rebuild writes it), and
    the sampled players' access tokens."""
    began = time.perf_counter()
    # the gateway's own migration, which its first use of the database would run
    await asyncio.to_thread(schema.upgrade, stack.database_url)
    async with await AsyncConnection.connect(stack.database_url, autocommit=True) as conn:
        cursor = conn.cursor()
        async with cursor.copy("COPY players (id, display_name) FROM STDIN") as copy:
            for pid, name in board.names.items():
                await copy.write_row((pid, name))
        await cursor.close()
        await conn.execute("ANALYZE players")
    board.fill_seconds["postgres"] = time.perf_counter() - began

    began = time.perf_counter()
    async with Redis.from_url(stack.redis_url) as redis:
        # the commands of `Boards.rebuild` (the scores in chunks, the TTL, the mark that
        # the board was built), sent here so as not to depend on its signature
        items = list(board.scores.items())
        for start in range(0, len(items), REBUILD_CHUNK):
            await redis.zadd(board_key(BOARD), dict(items[start : start + REBUILD_CHUNK]))
        await redis.expire(board_key(BOARD), BOARD_TTL_SECONDS)
        await redis.set(built_key(BOARD), b"1", ex=BOARD_TTL_SECONDS)
    board.fill_seconds["redis"] = time.perf_counter() - began

    tokens = AccessTokens(KeySet.from_texts([stack.token_key]), TOKEN_SECONDS)
    board.tokens = {pid: tokens.issue(pid)[0] for pid in board.sample}


def check_read(board: Board, body: dict[str, Any], player: str | None) -> None:
    """A read says what was written: the size, the leaders' ranks, scores and names,
    and the player's own rank among the ones around."""

    def check_row(row: dict[str, Any]) -> None:
        pid = row["player"]
        expected = (board.scores[pid], board.rank_of(board.scores[pid]), board.names[pid])
        found = (float(row["score"]), row["rank"], row["display_name"])
        if found != expected:
            raise RuntimeError(f"board row {row} is not what was written: {expected}")

    if body["size"] != len(board.scores) or len(body["top"]) != min(TOP, len(board.scores)):
        raise RuntimeError(f"board of {body['size']} players, top {len(body['top'])}")
    if body["top"][0]["rank"] != 1:
        raise RuntimeError(f"the first player is ranked {body['top'][0]['rank']}")
    for row in body["top"] + body["around"]:
        check_row(row)
    if player is not None:
        if body["me"] is None or body["me"]["player"] != player:
            raise RuntimeError(f"the reading player is not on the board: {body['me']}")
        if not 1 <= len(body["around"]) <= 2 * AROUND + 1:
            raise RuntimeError(f"{len(body['around'])} players around")


class Readers(Players):
    """Players with no games: concurrent clients, each with its own keep-alive connections
    to the gateway and the bare endpoint; the player of each read of "me" is drawn from
    the sample."""

    def __init__(self, stack: Stack, board: Board, plan: EndlessGame) -> None:
        assert stack.bare is not None
        super().__init__(stack.base_url, stack.bare.base_url, plan, games_per_client=0)
        self.board = board
        self.rng = random.Random(SEED + 1)

    async def top(self, client: int) -> None:
        await self.gateway_conns[client].request("GET", TOP_PATH, expect=(200,))

    async def me(self, client: int, player: str | None = None) -> Response:
        """A read of "me" by `player` (drawn from the sample by default)."""
        token = self.board.tokens[player or self.rng.choice(self.board.sample)]
        headers = {"Authorization": f"Bearer {token}"}
        conn = self.gateway_conns[client]
        return await conn.request("GET", ME_PATH, headers=headers, expect=(200,))

    async def livez(self, client: int) -> None:
        await self.gateway_conns[client].request("GET", "/livez", expect=(200,))

    async def check(self) -> None:
        """A few reads, checked against what was written (not timed)."""
        top = await self.gateway_conns[0].request("GET", TOP_PATH, expect=(200,))
        check_read(self.board, top.json(), None)
        for pid in self.board.sample[:20]:
            check_read(self.board, (await self.me(0, pid)).json(), pid)

    async def verify_every_token(self, clients: int) -> None:
        """One read per sampled player (not timed): the gateway verifies a token's
        signature once, then keeps it, as for a player reading again."""

        async def one_client(client: int) -> None:
            for pid in self.board.sample[client::clients]:
                await self.me(client, pid)

        await asyncio.gather(*(one_client(c) for c in range(clients)))


class Floors:
    """The raw commands under a read, from the bench process: the board's Redis
    commands (redis-py asyncio, as the gateway sends them) and the display names'
    SELECT on an open PostgreSQL connection."""

    def __init__(self, stack: Stack, board: Board, clients: int) -> None:
        self.board = board
        self.redis = Redis.from_url(
            stack.redis_url, max_connections=clients, retry=Retry(NoBackoff(), 0)
        )
        self.database_url = stack.database_url
        self.pg: list[AsyncConnection] = []
        self.clients = clients
        self.rng = random.Random(SEED + 2)
        self.key = board_key(BOARD)
        # the gateway's own read, in this process: its Redis client and its pool
        self.database = Database(stack.database_url, max_size=max(8, clients))
        self.leaderboards = Leaderboards(Boards(self.redis), self.database)

    async def open(self) -> None:
        self.pg = [
            await AsyncConnection.connect(self.database_url, autocommit=True)
            for _ in range(self.clients)
        ]
        await self.database.open()

    def next_player(self) -> str:
        return self.rng.choice(self.board.sample)

    async def redis_top(self, _: int) -> None:
        await self.redis.zrevrange(self.key, 0, TOP - 1, withscores=True)

    async def redis_me(self, _: int) -> None:
        where: Any = await self.redis.zrevrank(self.key, self.next_player())
        start = max(int(where) - AROUND, 0)
        await self.redis.zrevrange(self.key, start, start + 2 * AROUND, withscores=True)

    async def pg_names(self, client: int) -> None:
        players = [self.next_player() for _ in range(TOP + 2 * AROUND + 1)]
        await (await self.pg[client].execute(NAMES_SQL, (players,))).fetchall()

    async def in_process(self, _: int) -> None:
        body = await self.leaderboards.read(
            BOARD, top=TOP, around=AROUND, player_id=self.next_player()
        )
        orjson.dumps(body)

    async def close(self) -> None:
        for conn in self.pg:
            await conn.close()
        await self.database.close()
        await self.redis.aclose()


class StepClock:
    """Wall time and this process's CPU time spent in each named step, summed over the
    reads (one read at a time, so the CPU time of a step is the step's own)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.cpu_seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        began, cpu_began = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - began
            self.cpu_seconds[name] += time.process_time() - cpu_began
            self.calls[name] += 1

    def clear(self) -> None:
        self.seconds.clear()
        self.cpu_seconds.clear()
        self.calls.clear()


WHOLE = "whole read"
JSON = "JSON (orjson.dumps)"


class TimedBoards(Boards):
    """The gateway's Boards with a clock around each call a read makes."""

    def __init__(self, redis: Redis, clock: StepClock) -> None:
        super().__init__(redis)
        self.clock = clock

    async def built(self, name: str) -> bool:
        with self.clock.step("built? (EXISTS)"):
            return await super().built(name)

    async def page(self, name: str, start: int, count: int, *, high_first: bool) -> list[Ranked]:
        with self.clock.step("page (ZREVRANGE, then ZCOUNT for the first rank)"):
            return await super().page(name, start, count, high_first=high_first)

    async def position(self, name: str, player_id: str, *, high_first: bool) -> int | None:
        with self.clock.step("player's position (ZREVRANK)"):
            return await super().position(name, player_id, high_first=high_first)

    async def size(self, name: str) -> int:
        with self.clock.step("size (ZCARD)"):
            return await super().size(name)


class TimedDatabase(Database):
    """The gateway's Database with a clock around each transaction (the names' look-up:
    a connection from the pool, which checks it, BEGIN, the SELECT, COMMIT)."""

    def __init__(self, url: str, clock: StepClock) -> None:
        super().__init__(url)
        self.clock = clock

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection]:
        with self.clock.step("display names (PostgreSQL transaction from the pool)"):
            async with super().transaction() as connection:
                yield connection


async def profile_steps(stack: Stack, board: Board, reads: int) -> StepClock:
    """`reads` reads of "me", one at a time, through the gateway's Leaderboards in this
    process with a clock around each step."""
    clock = StepClock()
    redis = Redis.from_url(stack.redis_url, retry=Retry(NoBackoff(), 0))
    database = TimedDatabase(stack.database_url, clock)
    leaderboards = Leaderboards(TimedBoards(redis, clock), database)
    rng = random.Random(SEED + 3)
    try:
        for count in (50, reads):  # a warm-up, then the reads counted
            clock.clear()
            for _ in range(count):
                pid = rng.choice(board.sample)
                with clock.step(WHOLE):
                    body = await leaderboards.read(BOARD, top=TOP, around=AROUND, player_id=pid)
                    with clock.step(JSON):
                        orjson.dumps(body)
    finally:
        await database.close()
        await redis.aclose()
    return clock


@dataclass
class Results:
    # per client count, the reads and their floors by name (HTTP_ROWS, FLOOR_ROWS)
    levels: dict[int, dict[str, Measurement]]
    # (top, me) per client count of the sweep
    sweep: list[tuple[Measurement, Measurement]]
    profile: StepClock  # its steps, and "whole read" and "JSON" around them


async def measure(stack: Stack, board: Board, settings: Settings) -> Results:
    await fill(stack, board)
    most = max(1, settings.gateway_concurrency)
    readers = Readers(stack, board, find_endless_game(settings.gateway_variant))
    floors = Floors(stack, board, most)
    gateway_cpu, redis_cpu = (
        CpuMeter(stack.pids("gateway", "redis", "postgres")),
        CpuMeter(stack.pids("redis")),
    )
    # the reads over HTTP in the order they take turns, then the floors
    http: dict[str, Loop] = {
        "livez": (readers.livez, gateway_cpu),
        "bare": (readers.bare_move, CpuMeter(stack.pids("bare", "redis"))),
        "top": (readers.top, gateway_cpu),
        "me": (readers.me, gateway_cpu),
    }
    floor: dict[str, Loop] = {
        "in_process": (floors.in_process, None),
        "redis_top": (floors.redis_top, redis_cpu),
        "redis_me": (floors.redis_me, redis_cpu),
        "pg_names": (floors.pg_names, CpuMeter(stack.pids("postgres"))),
    }
    levels: dict[int, dict[str, Measurement]] = {}
    seconds, warmup = settings.sweep_seconds, settings.warmup
    try:
        await readers.prepare(most)
        await floors.open()
        await readers.check()
        await readers.verify_every_token(most)
        for clients in sorted({1, most}):
            levels[clients] = await alternate(http, clients, settings)
            for name, loop in floor.items():
                levels[clients][name] = await run_loop(loop, clients, seconds, warmup)
        sweep = []
        for clients in settings.sweep:
            await readers.prepare(clients)
            top = await run_loop(http["top"], clients, seconds, warmup)
            sweep.append((top, await run_loop(http["me"], clients, seconds, warmup)))
    finally:
        await readers.close()
        await floors.close()
    profile = await profile_steps(stack, board, PROFILED_READS.get(settings.mode, 200))
    return Results(levels, sweep, profile)


HTTP_ROWS = (
    ("top", "GET top 10 (no token)"),
    ("me", f"GET top 10 + me, around {AROUND} (player's token)"),
    ("livez", "gateway GET /livez (same server, no store)"),
    ("bare", "bare FastAPI POST (Redis GET + SET)"),
)
FLOOR_ROWS = (
    ("in_process", f"Leaderboards.read in the bench process (me, around {AROUND}), no HTTP"),
    ("redis_top", f"Redis ZREVRANGE 0 {TOP - 1} WITHSCORES (redis-py asyncio)"),
    ("redis_me", "Redis ZREVRANK + ZREVRANGE around (2 round trips)"),
    ("pg_names", f"PostgreSQL SELECT of {TOP + 2 * AROUND + 1} names (open connection)"),
)


LATENCIES = (0.50, 0.90, 0.99)


def write(section: Section, board: Board, results: Results) -> None:
    section.note(
        f"Filled: {len(board.scores):,} players into PostgreSQL in"
        f" {board.fill_seconds.get('postgres', 0):.1f} s (COPY, then ANALYZE), the board"
        f" into Redis in {board.fill_seconds.get('redis', 0):.1f} s (the commands of"
        f" `Boards.rebuild`);"
        f' {len(board.sample):,} sampled players read "me" with their access tokens.'
    )
    section.figure("leaderboards.players", len(board.scores))
    table = section.table("what", "clients", *measurement_columns("reads/s", LATENCIES))
    for clients, level in results.levels.items():
        for key, label in HTTP_ROWS + FLOOR_ROWS:
            m = level[key]
            table.add(label, m.concurrency, *measurement_cells(m, LATENCIES))
            section.measurement(f"leaderboards.c{clients}.{key}", m)
            section.first_error(f"{key}, {clients} clients", m.first_error)

    for clients, level in results.levels.items():
        top, me, livez, bare = (level[k] for k in ("top", "me", "livez", "bare"))
        verdicts = []
        for name, m in (("top 10", top), ("top 10 + me", me)):
            met = "met" if m.p99_ms < GOAL_P99_MS else "not met"
            verdicts.append(f"{name} p99 {fmt(m.p99_ms, 2)} ms ({met})")
        section.note(
            f"**{clients} client(s)**: {'; '.join(verdicts)}; goal p99 under"
            f" {GOAL_P99_MS:g} ms. Reads/s over the gateway's /livez: top"
            f" {pct(ratio(top.rate, livez.rate))}, me {pct(ratio(me.rate, livez.rate))}; over"
            f" the bare endpoint: top {pct(ratio(top.rate, bare.rate))}, me"
            f" {pct(ratio(me.rate, bare.rate))}. Server CPU per read of"
            f' "me" by process: {cpu_by_process(me)}.'
        )

    write_sweep(section, results.sweep)
    clock = results.profile
    reads = max(clock.calls[WHOLE], 1)
    section.note(
        f'Where a read of "me" goes: {clock.calls[WHOLE]:,} reads one at a time through the'
        f" gateway's `Leaderboards.read` in the bench process (its Redis client and"
        f" PostgreSQL pool, real Redis and PostgreSQL), a clock around each step; the"
        f" HTTP read at 1 client above minus this read is what HTTP, the server and the"
        f" token add."
    )
    steps = section.table(
        "step", "calls per read", Column("wall µs per read", 0),
        Column("CPU µs per read (bench process)", 0), Column("waiting µs", 0),
        Column("share of the wall time", 0, percent=True),
    )  # fmt: skip

    def per_read(seconds: float) -> float:
        return seconds / reads * 1e6

    whole, whole_cpu = per_read(clock.seconds[WHOLE]), per_read(clock.cpu_seconds[WHOLE])
    rest, rest_cpu = whole, whole_cpu
    ordered = sorted((n for n in clock.seconds if n != WHOLE), key=lambda n: -clock.seconds[n])
    for name in ordered:
        wall, cpu = per_read(clock.seconds[name]), per_read(clock.cpu_seconds[name])
        rest, rest_cpu = rest - wall, rest_cpu - cpu
        share = wall / whole if whole else None
        steps.add(name, clock.calls[name] / reads, wall, cpu, wall - cpu, share)
        slug = name.split(" (")[0].replace(" ", "_").replace("'", "").replace("?", "")
        section.record("leaderboards.step", **{f"{slug}_us": wall, f"{slug}_cpu_us": cpu})
    rest_share = rest / whole if whole else None
    steps.add("the rest (rows built in Python)", None, rest, rest_cpu, rest - rest_cpu, rest_share)
    steps.add(f"**{WHOLE}**", None, whole, whole_cpu, whole - whole_cpu, 1.0)
    section.record("leaderboards.step", total_us=whole, total_cpu_us=whole_cpu)


def write_sweep(section: Section, sweep: list[tuple[Measurement, Measurement]]) -> None:
    section.note("Latency against concurrency (top 10, then top 10 + me, per level):")
    table = section.table(
        "clients", "top reads/s", Column("top p50 ms", 2), Column("top p99 ms", 2),
        "me reads/s", Column("me p50 ms", 2), Column("me p90 ms", 2), Column("me p99 ms", 2),
        "errors",
    )  # fmt: skip
    within = 0  # the most clients up to which every level kept both p99s within the goal
    for top, me in sweep:
        if max(top.p99_ms, me.p99_ms) >= GOAL_P99_MS:
            break
        within = me.concurrency
    for top, me in sweep:
        table.add(
            top.concurrency, top.rate, top.p50_ms, top.p99_ms, me.rate, me.p50_ms,
            me.latency_ms(0.90), me.p99_ms, top.errors + me.errors,
        )  # fmt: skip
        section.measurement(f"leaderboards.sweep.c{top.concurrency}.top", top)
        section.measurement(f"leaderboards.sweep.c{me.concurrency}.me", me)
    best = max(sweep, key=lambda pair: pair[1].rate)[1] if sweep else None
    section.note(
        f"p99 under {GOAL_P99_MS:g} ms for both reads: "
        + (f"up to {within} client(s);" if within else "at no level tried;")
        + (
            f' "me" peaks at {fmt(best.rate)} reads/s with {best.concurrency} clients.'
            if best is not None
            else ""
        )
    )


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    del stack  # its own: a database nobody else writes to, one variant's daily deals
    players = settings.leaderboard_players
    section = report.section(f"Leaderboard reads: {players:,} players on one board")
    section.note(
        f"The board `{BOARD}` of {players:,} players (wins of mean {MEAN_WINS:g}, so many ties;"
        f" {NAMED_SHARE:.0%} named) on a stack of the part's own (one gateway worker). Reads:"
        f" `GET {TOP_PATH}`, and with `&around={AROUND}` and a sampled player's token; closed"
        f" loop, {settings.seconds:g} s per figure in {settings.rounds} round(s) taking turns"
        f" with /livez and the bare endpoint; the floors {settings.sweep_seconds:g} s each."
        f" Server CPU: gateway + Redis + PostgreSQL (bare: + Redis; a floor: its server)."
        f' Goal: p99 under {GOAL_P99_MS:g} ms (bench/README.md, "Leaderboards").'
    )
    board = draw_board(players, SAMPLE.get(settings.mode, SAMPLE["quick"]))
    # one variant's daily deals (proved in milliseconds), so that no search for the
    # others' runs on the engine while the reads are measured
    with Stack(with_bare=True, gateway_env={"DAILY_VARIANTS": VARIANT}) as board_stack:
        results = run_fast(lambda: measure(board_stack, board, settings))
    write(section, board, results)
