"""GameStore (patience_gateway.storage.store) used directly on real Redis servers: what
a create stores and each loader reads back, the time to live, the answers kept for
Idempotency-Keys, the operations' scripts, the events' channel, replicas that do not
confirm a change, and the deadline of a call.

Each test builds its own store, runner and client inside the test, as the app does at
its start: the gateway tests share one store built once per session, so the way a
store is set up (its time to live, deadline, replica wait, publishing command) would
otherwise be settled before any test runs, and no test would answer for it.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, TypeVar, cast

import pytest
from patience_contract.client import EngineClient
from patience_gateway import speed
from patience_gateway.games.service import Games
from patience_gateway.settings import Settings
from patience_gateway.storage.clients import open_redis, replica_wait
from patience_gateway.storage.events import EventHub
from patience_gateway.storage.failures import ReplicationTimeout
from patience_gateway.storage.keys import created_answer_key, events_key, game_keys, outbox_key
from patience_gateway.storage.outbox import OutboxStore
from patience_gateway.storage.reads import (
    AtDeal,
    DealEnding,
    ForRedo,
    ForUndo,
    GameMeta,
    History,
    Loaded,
    StoredAnswer,
)
from patience_gateway.storage.runners import ReplicaWait
from patience_gateway.storage.store import CHECKPOINT_EVERY, MAX_STORED_ANSWERS, GameStore
from patience_gateway.storage.writes import (
    Commit,
    CommitResult,
    Created,
    NewGame,
    Outcome,
    Step,
)
from patience_launcher.redis_cluster import EmbeddedRedisCluster
from patience_launcher.redis_server import EmbeddedRedis
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import TimeoutError as RedisTimeoutError

from tests.gateway.helpers import environment_speed_paths

TTL_SECONDS = 1000
SHORT_MS = 5000  # a time to live a read must renew (and a peek must leave)
DEALT, S1, S2, S3 = b"dealt\x00state", b"state-1", b"state-2", b"state-3"
TOKEN = hashlib.sha256(b"game token").digest()
T = TypeVar("T")
REFUSED = r"^0 of 1 replicas confirmed the change$"
RUNNERS = pytest.mark.parametrize("fast", [True, False], ids=["speed-path", "reference"])


def new_game(
    deal: str,
    deal_secret: bool,
    autoplay: bool,
    owner: str,
    category: str,
    daily: str,
    record: bytes,
) -> NewGame:
    return NewGame(
        DEALT, TOKEN, "la-belle-lucie", [], deal, deal_secret, "playing", record, owner,
        category, daily, autoplay,
    )  # fmt: skip


PLAYER = new_game("", True, True, "player-7", "winnable", "2024-05-06", b"rec\x01")
ANONYMOUS = new_game("1234", False, False, "", "random", "", b"")
# the steps of the history each kind of change takes
STEPS = {
    "move": Step.NEW, "autoplay": Step.NEW, "restart": Step.NEW, "undo": Step.UNDO,
    "redo": Step.REDO,
}  # fmt: skip


def new_id() -> str:
    return uuid.uuid4().hex


@pytest.fixture
def redis_settings(redis_url: str) -> Settings:
    """The suite's Redis, the runner as the environment says (no engine: none is used)."""
    return Settings(redis_url=redis_url, speed_paths=environment_speed_paths())


def present(value: T | None) -> T:
    assert value is not None
    return value


@asynccontextmanager
async def opened(
    settings: Settings,
    *,
    fast: bool | None = None,
    timeout_seconds: float = 30.0,
    wait: ReplicaWait | None = None,
) -> AsyncIterator[tuple[GameStore, Redis]]:
    """A store built as the app builds it (`app.create_app`), and its client; `fast`:
    the speed path's runner or its reference (else as the environment says)."""
    redis = open_redis(settings)
    assert isinstance(redis, Redis)  # these tests run on a single server
    runner = speed.script_runner(redis, wait, settings.speed_paths if fast is None else fast)
    store = GameStore(redis, runner, TTL_SECONDS, timeout_seconds, wait=wait)
    try:
        yield store, redis
    finally:
        await store.aclose()
        await redis.aclose()


async def create(store: GameStore, game_id: str, game: NewGame = ANONYMOUS, **more: Any) -> Created:
    return await store.create(game_id, game, **more)


async def step(
    store: GameStore, op: str, game_id: str, version: int, state: bytes, move: str = "", **more: Any
) -> CommitResult:
    """A change of the position: `op` a move, autoplay, restart (`move` its new step),
    undo or redo."""
    more.setdefault("status", "playing")
    change = Commit(version, STEPS[op], state, new_step=move, **more)
    return await store.commit(game_id, change)


async def same(store: GameStore, game_id: str, version: int, **more: Any) -> CommitResult:
    """A change that leaves the position as it is (settings, an end, a claim)."""
    return await store.commit(game_id, Commit(version, **more))


def meta_of(game: NewGame, created: bytes, *, version: int = 1, **more: Any) -> GameMeta:
    """The meta a load reads of a game created as `game` (the category left out for a
    random deal, as kept)."""
    category = "" if game.category == "random" else game.category
    fields: dict[str, Any] = dict(
        version=version, token_digest=TOKEN, owner=game.owner, category=category,
        daily=game.daily, open_deal="", autoplay=game.autoplay, proven_lost=False,
        record=game.record, hints=None, created=created,
    )  # fmt: skip
    return GameMeta(**(fields | more))


async def pttls(redis: Redis, names: Iterable[bytes]) -> list[int]:
    return [await redis.pttl(name) for name in names]


async def shorten(redis: Redis, names: Iterable[bytes]) -> None:
    for name in names:
        await redis.pexpire(name, SHORT_MS)


def renewed(ttls: list[int]) -> bool:
    """Every key has the store's time to live again (a loaded machine: 10 s of slack)."""
    return all(TTL_SECONDS * 1000 - 10_000 < ttl <= TTL_SECONDS * 1000 for ttl in ttls)


# `apart`: what the game's meta hash holds besides the fields every game has. An anonymous
# game keeps no owner, a random deal no category (it goes without saying), a free deal no day.
@pytest.mark.parametrize(
    ("game", "apart"),
    [
        (replace(PLAYER, outbox_entry=b"began"),
         {b"owner": b"player-7", b"category": b"winnable", b"daily": b"2024-05-06"}),
        (ANONYMOUS, {}),
    ],
    ids=["player", "anonymous"],
)  # fmt: skip
async def test_a_created_game_reads_back_as_given(
    redis_settings: Settings, game: NewGame, apart: dict[bytes, bytes]
) -> None:
    game_id = new_id()
    async with opened(redis_settings) as (store, redis):
        try:
            assert await create(store, game_id, game) == Created(Outcome.OK)
            # The outbox starts with the game only when given an entry (a player's game).
            assert await store.has_outbox(game_id) is bool(game.outbox_entry)
            entries = await redis.xrange(outbox_key(game_id)) or []
            expected = {b"entry": game.outbox_entry, b"history": b"", b"dealt": DEALT}
            assert [fields for _, fields in entries] == ([expected] if game.outbox_entry else [])
        finally:
            # The suite's records drain would find the stream, and not read its entry.
            await redis.delete(outbox_key(game_id))
        assert await store.has_outbox(game_id) is False
        meta = await redis.hgetall(game_keys(game_id).meta)
        created = meta.pop(b"created")
        assert abs(int(created) - time.time()) < 60
        assert meta == {
            b"version": b"1",
            b"token": TOKEN,
            b"variant": game.variant.encode(),
            b"options": b"[]",
            b"deal": game.deal.encode(),
            b"secret": b"1" if game.deal_secret else b"0",
            b"status": game.status.encode(),
            b"every": str(CHECKPOINT_EVERY).encode(),
            b"autoplay": b"1" if game.autoplay else b"0",
            b"record": game.record,
            **apart,
        }
        read = meta_of(game, created)
        loaded = Loaded(read, DEALT)
        assert await store.load(game_id) == loaded
        assert await store.peek(game_id) == loaded
        dealt = {"at_deal": True, "deal": game.deal, "deal_secret": game.deal_secret}
        assert await store.load_dealt(game_id, "") == AtDeal(read, DEALT, **dealt)
        ending = DealEnding(game.status, game.deal_secret, game.deal)
        undo = ForUndo(read, b"", steps=[], ending=ending)
        assert await store.load_for_undo(game_id, "") == undo
        assert await store.load_for_redo(game_id, "") == ForRedo(read, DEALT)
        assert await store.load_history(game_id) == History(
            read, game.variant, "[]", game.deal, game.deal_secret, game.status, [], []
        )


async def test_a_second_create_of_an_id_changes_nothing(redis_settings: Settings) -> None:
    game_id, other = new_id(), new_id()
    async with opened(redis_settings) as (store, redis):
        kept = {"answer": b"first answer", "answer_ttl_seconds": 50}
        assert await create(store, game_id, PLAYER, **kept) == Created(Outcome.OK)
        # The create's answer lives its own time, not the game's.
        assert 40_000 < await redis.pttl(created_answer_key(game_id)) <= 50_000
        assert await store.created_answer(game_id) == b"first answer"
        assert await store.created_answer(other) is None
        retried = {"answer": b"second answer", "answer_ttl_seconds": 50}
        assert await create(store, game_id, ANONYMOUS, **retried) == Created(
            Outcome.IDEMPOTENT_REPLAY, b"first answer"
        )
        assert await create(store, game_id, ANONYMOUS) == Created(Outcome.TAKEN)
        # The game is still the first one.
        history = present(await store.load_history(game_id))
        assert (history.meta.owner, history.deal) == ("player-7", "")
        assert await redis.hget(game_keys(game_id).meta, "daily") == b"2024-05-06"
        for read in (store.load, store.load_for_undo, store.load_for_redo):
            assert await read(other, "") is None, read.__name__
        assert await store.load_history(other) is None


async def test_a_game_lives_its_time_to_live_from_each_use_but_a_peek(
    redis_settings: Settings,
) -> None:
    game_id = new_id()
    async with opened(redis_settings) as (store, redis):
        await create(store, game_id)
        names = game_keys(game_id)
        assert renewed(await pttls(redis, [names.meta, names.states]))
        answer = StoredAnswer("f", 200, '"2"', b"{}")
        await step(store, "move", game_id, 1, S1, "m1", key="k1", answer=answer)
        await step(store, "move", game_id, 2, S2, "m2")
        await step(store, "undo", game_id, 3, S1)
        assert renewed(await pttls(redis, names))  # all six keys exist now
        reads = (store.load, store.load_dealt, store.load_for_undo, store.load_for_redo)
        for read in (*reads, lambda gid, _key: store.load_history(gid)):
            await shorten(redis, names)
            assert await read(game_id, "") is not None
            assert renewed(await pttls(redis, names)), read.__name__
        await shorten(redis, names)
        assert await store.peek(game_id) is not None
        # Without a replica wait there is nothing to confirm, and nothing is written.
        await store.confirm_replicated(game_id)
        assert all(0 < ttl <= SHORT_MS for ttl in await pttls(redis, names))


async def test_each_operation_changes_the_history_its_own_way(redis_settings: Settings) -> None:
    game_id = new_id()
    async with opened(redis_settings) as (store, _):
        await create(store, game_id)

        async def history() -> tuple[list[str], list[str]]:
            history = present(await store.load_history(game_id))
            return history.steps, history.undone

        assert await step(store, "move", game_id, 1, S1, "m1") == CommitResult(Outcome.OK, 2)
        assert await step(store, "move", game_id, 2, S2, "m2") == CommitResult(Outcome.OK, 3)
        undo = present(await store.load_for_undo(game_id, ""))
        assert (undo.state, undo.position, undo.steps, undo.dealt) == (DEALT, 2, [b"m1"], None)
        assert await step(store, "undo", game_id, 3, S1) == CommitResult(Outcome.OK, 4)
        assert await history() == (["m1"], ["m2"])
        redo = present(await store.load_for_redo(game_id, ""))
        assert (redo.state, redo.next_step, redo.meta.version) == (S1, b"m2", 4)
        assert await step(store, "redo", game_id, 4, S2) == CommitResult(Outcome.OK, 5)
        assert await history() == (["m1", "m2"], [])
        await step(store, "undo", game_id, 5, S1)
        # The safe moves are one step like a move, and clear what could be redone.
        assert await step(store, "autoplay", game_id, 6, S3, "a1,a2") == CommitResult(Outcome.OK, 7)
        assert await history() == (["m1", "a1,a2"], [])
        dealt = present(await store.load_dealt(game_id))
        assert (present(await store.load(game_id)).state, dealt.at_deal) == (S3, False)
        # A restart is one step too, back at the deal.
        restart = await step(store, "restart", game_id, 7, DEALT, "restart")
        assert restart == CommitResult(Outcome.OK, 8)
        assert await history() == (["m1", "a1,a2", "restart"], [])
        dealt = present(await store.load_dealt(game_id))
        assert (present(await store.load(game_id)).state, dealt.at_deal) == (DEALT, True)
        await step(store, "move", game_id, 8, S1, "b1")
        # A restart among the moves to replay: undo reads the state as dealt too.
        assert present(await store.load_for_undo(game_id, "")).dealt == DEALT
        assert await step(store, "move", game_id, 3, S1, "x") == CommitResult(Outcome.STALE, 9)
        assert await step(store, "redo", game_id, 9, S1) == CommitResult(Outcome.EMPTY)
        assert await step(store, "move", new_id(), 1, S1, "x") == CommitResult(Outcome.GONE)


async def test_loaders_read_what_later_changes_stored(redis_settings: Settings) -> None:
    game_id = new_id()
    async with opened(redis_settings) as (store, _):
        await create(store, game_id, PLAYER)
        assert await store.after_hint(game_id, 1, lost=True, count=True, plan=b"plan")
        loaded = present(await store.load(game_id)).meta
        assert (loaded.proven_lost, loaded.hints) == (True, b"1")
        # the plan is read for a hint only, and kept across versions
        assert present(await store.load_for_hint(game_id)).plan == b"plan"
        # a proof on a closed record: kept, but the hint not counted; no plan: none kept
        assert await store.after_hint(game_id, 1, lost=True, count=False, plan=b"")
        assert present(await store.load(game_id)).meta.hints == b"1"
        assert present(await store.load_for_hint(game_id)).plan == b""
        assert await store.after_hint(game_id, 1, lost=False, count=False, plan=b"next")
        # a hint for a version the game has left keeps nothing
        assert not await store.after_hint(game_id, 7, lost=True, count=True, plan=b"old")
        assert present(await store.load_for_hint(game_id)).plan == b"next"
        shown = {"deal": "77", "open": "77", "record": b"rec\x02"}
        await step(store, "move", game_id, 1, S1, "m", status="won", meta=shown)
        loaded = present(await store.load(game_id)).meta
        dealt = present(await store.load_dealt(game_id))
        # The proof of loss was for version 1, and the game moved on.
        assert (loaded.proven_lost, dealt.deal, loaded.open_deal) == (False, "77", "77")
        assert (loaded.record, dealt.deal_secret) == (b"rec\x02", True)
        assert present(await store.load(game_id)).state == S1
        undo = present(await store.load_for_undo(game_id, ""))
        assert undo.ending == DealEnding("won", True, "77")
        assert (undo.meta.open_deal, undo.meta.record, undo.meta.hints) == ("77", b"rec\x02", b"1")
        redo = present(await store.load_for_redo(game_id, "")).meta
        assert (redo.open_deal, redo.hints) == ("77", b"1")
        history = present(await store.load_history(game_id))
        assert (history.deal, history.meta.open_deal, history.status) == ("77", "77", "won")
        assert present(await store.load_for_hint(game_id)).plan == b"next"


async def test_a_game_keeps_the_answers_of_its_last_keys_only(redis_settings: Settings) -> None:
    game_id = new_id()
    answers = [StoredAnswer(f"print-{n}", 200, f'"{n + 2}"', b"{}") for n in range(33)]
    async with opened(redis_settings) as (store, redis):
        await create(store, game_id)
        for n, answer in enumerate(answers):
            keyed = {"key": f"key-{n}", "answer": answer}
            result = await step(store, "move", game_id, n + 1, S1, f"m{n}", **keyed)
            assert result == CommitResult(Outcome.OK, n + 2)
        assert MAX_STORED_ANSWERS == 32
        assert await redis.llen(game_keys(game_id).idem_order) == MAX_STORED_ANSWERS
        for read in (store.load, store.load_for_undo, store.load_for_redo):
            gone = await read(game_id, "key-0")
            assert gone is not None and gone.answer is None, read.__name__
            for n in (1, 32):
                kept = await read(game_id, f"key-{n}")
                assert kept is not None and kept.answer == answers[n], read.__name__
        again = {"key": "key-5", "answer": answers[0]}
        retried = await step(store, "move", game_id, 1, S2, "again", **again)
        assert retried == CommitResult(Outcome.IDEMPOTENT_REPLAY, answer=answers[5])


async def test_changes_are_published_on_the_games_ordinary_channel(
    redis_settings: Settings,
) -> None:
    game_id = new_id()
    async with opened(redis_settings) as (store, redis):
        assert store.sharded is False
        await create(store, game_id)
        async with redis.pubsub() as pubsub:
            await pubsub.subscribe(events_key(game_id))
            assert (await pubsub.get_message(timeout=5.0) or {}).get("type") == "subscribe"
            await step(store, "move", game_id, 1, S1, "m", event=("move", b'{"n":1}'))
            settings = {"meta": {"autoplay": "1"}, "event": ("settings", b"{}")}
            await same(store, game_id, 2, **settings)
            assert await store.delete(game_id, 2) == CommitResult(Outcome.STALE, 3)
            assert await store.delete(game_id, 3) == CommitResult(Outcome.OK)
            assert await store.delete(game_id, None) == CommitResult(Outcome.GONE)
            published: list[bytes] = []
            async with asyncio.timeout(5):
                while len(published) < 3:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                    if message is not None:
                        published.append(message["data"])
        assert published == [
            b'move 2\n{"n":1}',
            b"settings 3\n{}",
            b'deleted 4\n{"id":"%s"}' % game_id.encode(),
        ]


async def test_changes_are_kept_for_streams_only_while_one_hears_them_or_lately_did(
    redis_settings: Settings,
) -> None:
    """A game no stream watches keeps no recent events. A change a stream hears is kept,
    for 300 s; while that list lives, the changes after it are kept too (for a stream
    that lost its connection and resumes), without renewing its time."""
    game_id = new_id()
    events = events_key(game_id)
    async with opened(redis_settings) as (store, redis):
        await create(store, game_id)
        await step(store, "move", game_id, 1, S1, "m1", event=("move", b"1"))
        assert not await redis.exists(events)
        async with redis.pubsub() as pubsub:
            await pubsub.subscribe(events)
            assert (await pubsub.get_message(timeout=5.0) or {}).get("type") == "subscribe"
            await step(store, "move", game_id, 2, S2, "m2", event=("move", b"2"))
            await pubsub.unsubscribe(events)
            async with asyncio.timeout(5):
                while (await pubsub.get_message(timeout=1) or {}).get("type") != "unsubscribe":
                    pass
        assert 290_000 < await redis.pttl(events) <= 300_000
        await redis.pexpire(events, SHORT_MS)
        await step(store, "undo", game_id, 3, S1, event=("undo", b"3"))
        assert await redis.lrange(events, 0, -1) == [b"move 3\n2", b"undo 4\n3"]
        assert 0 < await redis.pttl(events) <= SHORT_MS
        await redis.delete(events)  # as if its time had run out
        await step(store, "redo", game_id, 4, S2, event=("redo", b"4"))
        assert not await redis.exists(events)


@RUNNERS
async def test_a_change_its_replicas_do_not_confirm_is_made_but_not_acknowledged(
    redis_settings: Settings, fast: bool, caplog: pytest.LogCaptureFixture
) -> None:
    # A single server has no replicas: WAIT answers 0 of the 1 asked for.
    wait = replica_wait(replace(redis_settings, redis_wait_replicas=1, redis_wait_timeout_ms=50))
    game_id, anonymous = new_id(), new_id()
    caplog.set_level(logging.WARNING, logger="patience_gateway")
    async with opened(redis_settings, fast=fast, wait=wait) as (store, redis):
        meta = game_keys(game_id).meta
        changes: list[tuple[Callable[[], Awaitable[object]], str, bytes | None]] = [
            (lambda: create(store, game_id), "version", b"1"),
            (lambda: step(store, "move", game_id, 1, S1, "m"), "version", b"2"),
            (lambda: same(store, game_id, 2, meta={"autoplay": "1"},
                          event=("settings", b"{}")), "autoplay", b"1"),
            (lambda: same(store, game_id, 3, meta={"record": b"ended"}), "record", b"ended"),
            (lambda: store.delete(game_id, 4), "version", None),
        ]  # fmt: skip
        for change, field, stored in changes:
            with pytest.raises(ReplicationTimeout, match=REFUSED):
                await change()
            assert await redis.hget(meta, field) == stored
        with pytest.raises(ReplicationTimeout):
            await create(store, anonymous)
        with pytest.raises(ReplicationTimeout):
            claimed = {"owner": "p", "token": "", "category": "random"}
            await same(store, anonymous, 1, meta=claimed, event=("claim", b"{}"), unowned=True)
        assert await redis.hget(game_keys(anonymous).meta, "owner") == b"p"
        # Confirming what was written so far writes the time to live, then waits.
        await redis.pexpire(game_keys(anonymous).meta, SHORT_MS)
        with pytest.raises(ReplicationTimeout, match=REFUSED):
            await store.confirm_replicated(anonymous)
        assert renewed(await pttls(redis, [game_keys(anonymous).meta]))
        # What changed nothing is answered as it is: there is nothing to confirm.
        assert await create(store, anonymous) == Created(Outcome.TAKEN)
        assert await step(store, "move", anonymous, 1, S1, "m") == CommitResult(Outcome.STALE, 2)
    warned = [
        r for r in caplog.records if r.name == "patience_gateway" and game_id in r.getMessage()
    ]
    assert len(warned) == len(changes)
    # the other game's create, claim and confirmation
    assert sum(anonymous in r.getMessage() for r in caplog.records) == 3
    for record in warned:
        assert record.levelno == logging.WARNING
        assert "0 of 1 replicas in 50 ms" in record.getMessage()


@RUNNERS
async def test_changes_the_replicas_asked_for_confirm_are_acknowledged(
    redis_settings: Settings, fast: bool
) -> None:
    game_id = new_id()
    async with opened(redis_settings, fast=fast, wait=ReplicaWait(0, 50)) as (store, redis):
        assert await create(store, game_id) == Created(Outcome.OK)
        assert await step(store, "move", game_id, 1, S1, "m") == CommitResult(Outcome.OK, 2)
        changed = await same(store, game_id, 2, meta={"autoplay": "0"})
        assert changed == CommitResult(Outcome.OK, 3)
        # a game deleted between its load and its settings change: gone, no version
        gone = await same(store, new_id(), 1, meta={"autoplay": "1"})
        assert gone == CommitResult(Outcome.GONE)
        # An end or a claim answers the version it made, or the one that beat it (the
        # gateway's ETag and 412 come from these).
        ended = {"meta": {"record": b"ended"}, "event": ("resign", b"{}")}
        assert await same(store, game_id, 2, **ended) == CommitResult(Outcome.STALE, 3)
        assert await same(store, game_id, 3, **ended) == CommitResult(Outcome.OK, 4)
        claim = {"meta": {"owner": "p", "token": "", "category": "practice"}, "unowned": True}
        assert await same(store, game_id, 3, **claim) == CommitResult(Outcome.STALE, 4)
        assert await same(store, game_id, 4, **claim) == CommitResult(Outcome.OK, 5)
        # taken, or gone: no version to tell
        taken = CommitResult(Outcome.TAKEN)
        assert await same(store, game_id, 5, **claim) == taken
        await redis.pexpire(game_keys(game_id).meta, SHORT_MS)
        await store.confirm_replicated(game_id)
        assert renewed(await pttls(redis, [game_keys(game_id).meta]))
        assert await store.delete(game_id, 5) == CommitResult(Outcome.OK)
        gone = CommitResult(Outcome.GONE)
        assert await same(store, game_id, 5, **claim) == gone
        assert await same(store, game_id, 5, **ended) == gone


@RUNNERS
async def test_a_change_has_the_replica_wait_twice_beyond_the_deadline(
    redis_settings: Settings, fast: bool
) -> None:
    """A change's deadline adds the replica wait to a Redis call's, twice: a server
    without the script answers NOSCRIPT and the WAIT sent with it, then the change and
    its own WAIT. Waits of 1 s beside a 0.5 s deadline end in the wait's answer (0 of 1
    replicas: a single server has none), not in Redis "not answering": a create on a
    server that has no script yet, then a move after the scripts are flushed."""
    wait = replica_wait(replace(redis_settings, redis_wait_replicas=1, redis_wait_timeout_ms=1000))
    game_id = new_id()
    # A server of its own: flushing the suite's scripts would add loads to other tests.
    with EmbeddedRedis() as server:
        private = replace(redis_settings, redis_url=server.url)
        async with opened(private, fast=fast, timeout_seconds=0.5, wait=wait) as (store, redis):
            for change in (
                lambda: create(store, game_id),
                lambda: step(store, "move", game_id, 1, S1, "m"),
            ):
                await redis.script_flush()
                began = time.monotonic()
                with pytest.raises(ReplicationTimeout, match=REFUSED):
                    await change()
                assert time.monotonic() - began >= 2.0  # both waits
            assert present(await store.load(game_id)).meta.version == 2


async def test_an_announcement_redis_does_not_answer_is_given_up_at_the_deadline(
    redis_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """A finished game's change is made; naming it for the drain is best effort (the
    sweep finds its outbox), so a Redis that stops answering then does not hold the
    answer past the store's deadline."""
    with EmbeddedRedis() as server:
        private = replace(redis_settings, redis_url=server.url)
        async with opened(private, timeout_seconds=0.2) as (store, redis):
            games = Games(cast(EngineClient, None), store, 1, outbox=OutboxStore(redis, 0.2))
            pauser = Redis.from_url(server.url)
            await pauser.client_pause(6000, all=False)  # writes (ZADD among them) wait
            try:
                began = time.monotonic()
                with caplog.at_level(logging.WARNING, logger="patience_gateway"):
                    await games.announce("g1")
                assert time.monotonic() - began < 2.5
            finally:
                await pauser.client_unpause()
                await pauser.aclose()
    assert "g1's outbox entry waits for the sweep: Redis did not answer in time" in caplog.text


async def test_the_outbox_gives_up_a_call_redis_does_not_answer(
    redis_settings: Settings,
) -> None:
    """The drain's calls have the store's deadline: a Redis that stops answering without
    closing its connections fails the drain's round (which starts again) instead of
    holding the drain, and every finished game's record behind it, for good."""
    with EmbeddedRedis() as server:
        outbox = OutboxStore(open_redis(replace(redis_settings, redis_url=server.url)), 0.2)
        pauser = Redis.from_url(server.url)
        await outbox.announce("g1")
        [(_, score)] = await outbox.waiting(10)
        await pauser.client_pause(6000, all=False)  # writes and scripts wait
        try:
            for call in (
                outbox.announce("g2"),
                outbox.take_lock("me", 3000),
                outbox.applied("g1", [b"0-1"]),
                outbox.settle("g1", score),
            ):
                began = time.monotonic()
                with pytest.raises(RedisTimeoutError, match=r"^Redis did not answer in time$"):
                    await call
                assert time.monotonic() - began < 2.5
        finally:
            await pauser.client_unpause()
            await pauser.aclose()
        # and answers again once Redis does
        assert "g1" in [game for game, _ in await outbox.waiting(10)]
        await outbox.redis.aclose()


async def test_a_call_redis_does_not_answer_in_time_fails(redis_settings: Settings) -> None:
    game_id = new_id()
    # A server of its own: pausing the suite's would stall every other test.
    with EmbeddedRedis() as server:
        private = replace(redis_settings, redis_url=server.url)
        async with opened(private, timeout_seconds=0.2) as (store, redis):
            await create(store, game_id)
            # Scripts wait while writes are paused; the pausing client's commands do not.
            await redis.client_pause(6000, all=False)
            try:
                began = time.monotonic()
                with pytest.raises(RedisTimeoutError, match=r"^Redis did not answer in time$"):
                    await store.peek(game_id)
                assert time.monotonic() - began < 2.5
                # a change without a replica wait has the same deadline
                began = time.monotonic()
                with pytest.raises(RedisTimeoutError, match=r"^Redis did not answer in time$"):
                    await step(store, "move", game_id, 1, S1, "m")
                assert time.monotonic() - began < 1.0
                # one with a wait of 1 s: the deadline and the wait twice, 2.2 s
                wait = ReplicaWait(1, 1000)
                async with opened(private, timeout_seconds=0.2, wait=wait) as (waiting, _):
                    began = time.monotonic()
                    with pytest.raises(RedisTimeoutError, match=r"^Redis did not answer in time$"):
                        await step(waiting, "move", game_id, 1, S1, "m")
                    assert 2.2 <= time.monotonic() - began < 3.0
            finally:
                await redis.client_unpause()
            assert present(await store.load(game_id)).meta.version == 1


@pytest.mark.xdist_group("redis-cluster")
async def test_on_a_cluster_changes_are_published_on_the_games_shard(
    redis_cluster: EmbeddedRedisCluster,
) -> None:
    # A Redis Cluster's ordinary channels reach every node; the game's events go to its
    # slot's node alone (SPUBLISH), where the gateway's listeners subscribe (SSUBSCRIBE).
    settings = Settings(
        redis_url=redis_cluster.url, redis_cluster=True, speed_paths=environment_speed_paths()
    )
    redis = open_redis(settings)
    assert isinstance(redis, RedisCluster)
    runner = speed.script_runner(redis, None, settings.speed_paths)
    store = GameStore(redis, runner, TTL_SECONDS, settings.redis_timeout_seconds)
    hub = EventHub(redis)
    game_id = new_id()
    try:
        assert store.sharded is True
        await create(store, game_id)
        async with hub.listen(game_id) as listener:
            await step(store, "move", game_id, 1, S1, "m", event=("move", b'{"n":1}'))
            async with asyncio.timeout(10):
                heard = await listener.get()
        assert (heard.kind, heard.version, heard.body) == ("move", 2, b'{"n":1}')
    finally:
        await hub.aclose()
        await store.aclose()
        await redis.aclose()
