"""What one operation costs in Redis, watched with MONITOR: a move is one read round
trip and one write, whatever the length of the game; a game takes little memory."""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import pytest
import redis.asyncio as aioredis
from patience_gateway.storage.keys import game_keys
from patience_gateway.storage.outbox import PENDING_KEY

from tests.gateway.helpers import GameHandle, Gateway
from tests.gateway.test_gateway_checkpoints import checkpoint_every

# Commands the move scripts may run inside Redis: nothing that reads the history
# (LINDEX and LSET only at the end of the states list).
# the change itself, then its event: published, and kept in the game's recent events
# while a stream hears them or lately did (RPUSHX: only to a list that is there)
MOVE_INNER_COMMANDS = {"HMGET", "HGET", "HSET", "PEXPIRE", "RPUSH", "DEL", "LINDEX", "LSET"} | {
    "LTRIM",
    "PUBLISH",
    "RPUSHX",
}


# The outbox's drain (of another gateway of the suite, in this event loop) wakes when a
# script publishes a record, and reads these keys: its connection is not the one watched.
OUTBOX_KEYS = PENDING_KEY.decode()[: -len("pending")]


async def watch(
    redis: aioredis.Redis, action: Callable[[], Awaitable[Any]]
) -> tuple[list[str], list[str]]:
    """(commands sent by clients, commands run inside scripts) while `action` runs,
    in order, each as its MONITOR line ("EVALSHA sha 4 key ..."); less whatever came
    from a connection of an outbox drain."""
    start, end = f"start-{secrets.token_hex(4)}", f"end-{secrets.token_hex(4)}"
    # (connection, line, inside a script): a script's commands follow the call that ran
    # it (Redis runs one thing at a time), so they are put down to its connection
    seen_lines: list[tuple[str, str, bool]] = []
    connection = ""
    async with redis.monitor() as monitor:
        await redis.echo(start)
        while start not in (await monitor.next_command())["command"]:
            pass
        await action()
        await redis.echo(end)
        while True:
            seen = await monitor.next_command()
            command = seen["command"]
            if end in command:
                break
            name, _, rest = command.partition(" ")
            lua = seen["client_type"] == "lua"
            if not lua:
                connection = f"{seen['client_address']}:{seen['client_port']}"
            seen_lines.append((connection, f"{name.upper()} {rest}", lua))
    drains = {c for c, line, lua in seen_lines if not lua and OUTBOX_KEYS in line}
    kept = [(line, lua) for c, line, lua in seen_lines if c not in drains]
    sent = [line for line, lua in kept if not lua]
    inner = [line for line, lua in kept if lua]
    return sent, inner


# MONITOR writes a byte outside printable ASCII as \xNN and escapes quotes and
# backslashes: counted as the one byte each stands for, so that an encrypted state (a
# different mix of bytes on every move) costs its length, as it does on the wire.
_ESCAPE = re.compile(r"\\x[0-9a-fA-F]{2}|\\.")


def sent_bytes(lines: list[str]) -> int:
    return sum(len(_ESCAPE.sub("_", line)) for line in lines)


def names(lines: list[str]) -> list[str]:
    return [line.split(" ", 1)[0] for line in lines]


async def _play(gateway: Gateway, game: GameHandle, moves: int) -> None:
    for turn in range(moves):
        view = await gateway.view(game)
        legal = view["legal_moves"]
        response = await gateway.move(game, legal[turn % len(legal)])
        assert response.status_code == 200, response.text


async def test_a_move_is_one_read_and_one_write(gateway: Gateway, redis: aioredis.Redis) -> None:
    game = await gateway.create("napoleon-at-st-helena", deal=77)
    await _play(gateway, game, 2)
    costs = []
    for turn in range(2):
        view = await gateway.view(game)
        notation = view["legal_moves"][0]
        # with an Idempotency-Key: its lookup rides on the read, its record on the write
        sent, inner = await watch(redis, partial(gateway.move, game, notation, key=f"k{turn}"))
        assert names(sent) == ["EVALSHA", "EVALSHA"], sent
        assert set(names(inner)) <= MOVE_INNER_COMMANDS, inner
        assert names(inner).count("HGET") >= 2  # the record, looked up on read and write
        view = await gateway.view(game)
        notation = view["legal_moves"][0]
        sent, inner = await watch(redis, partial(gateway.move, game, notation))
        assert names(sent) == ["EVALSHA", "EVALSHA"], sent
        assert set(names(inner)) <= MOVE_INNER_COMMANDS, inner
        costs.append(sent_bytes(sent))
        await _play(gateway, game, 25)  # a longer game: the same commands, the same bytes
    # The write carries the change's event, the view, whose size follows the position
    # (its legal moves), not the length of the game: a few hundred bytes either way.
    assert abs(costs[0] - costs[1]) < 400, costs


async def test_reads_undo_and_redo_are_one_round_trip_each(
    gateway: Gateway, redis: aioredis.Redis
) -> None:
    game = await gateway.create("bisley", deal=78)
    await _play(gateway, game, 3)
    # the first use of a script loads it (SCRIPT LOAD): count only what follows
    await gateway.history(game)
    assert (await gateway.undo(game)).is_success and (await gateway.redo(game)).is_success
    for action, expected in (
        (lambda: gateway.view(game), ["EVALSHA"]),
        (lambda: gateway.history(game), ["EVALSHA"]),
        (lambda: gateway.undo(game), ["EVALSHA", "EVALSHA"]),
        (lambda: gateway.redo(game), ["EVALSHA", "EVALSHA"]),
    ):
        sent, inner = await watch(redis, action)
        assert names(sent) == expected, sent
    sent, inner = await watch(redis, lambda: gateway.undo(game))
    # undo replays from the last checkpoint: only it reads (part of) the history
    assert "LRANGE" in names(inner)


async def memory(redis: aioredis.Redis, game: GameHandle) -> int:
    total = 0
    for key in game_keys(game.id):
        total += await redis.memory_usage(key, samples=0) or 0
    return total


async def test_a_game_takes_little_memory(gateway: Gateway, redis: aioredis.Redis) -> None:
    game = await gateway.create("napoleon-at-st-helena", deal=79)
    fresh = await memory(redis, game)
    # two sealed states of 104 cards (current and as dealt) and a few small fields
    assert fresh < 2048, fresh
    await _play(gateway, game, 40)
    played = await memory(redis, game)
    assert played - fresh < 40 * 20, (fresh, played)  # a short notation string per move


async def test_undo_replays_fewer_moves_than_the_interval(
    gateway: Gateway, redis: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    every = checkpoint_every(monkeypatch, 3)
    game = await gateway.create("bisley", deal=610)
    for _ in range(4 * every):
        view = await gateway.view(game)
        assert (await gateway.move(game, view["legal_moves"][0])).status_code == 200
    for _ in range(2 * every):
        _, inner = await watch(redis, lambda: gateway.undo(game))
        ranges = [line.split() for line in inner if line.startswith("LRANGE")]
        for _, _, start, stop in ranges:  # LRANGE key start stop: the moves replayed
            assert int(stop) - int(start) + 1 < every
        assert "LINDEX" in names(inner)  # the checkpoint
