"""The gateway's small pieces on their own: settings, entity tags, deal numbers,
stored answers, ids and tokens, spare time."""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from patience_gateway.app import stop_background
from patience_gateway.games.change import fingerprint
from patience_gateway.games.create import deal_text
from patience_gateway.games.preconditions import (
    check_idempotency_key,
    etag,
    matches,
    none_match,
    require_match,
)
from patience_gateway.games.requests import MoveRequest
from patience_gateway.games.spare_time import SpareTime
from patience_gateway.games.tokens import (
    GAME_ID,
    bearer_token,
    check_token,
    new_game_id,
    new_token,
    token_digest,
)
from patience_gateway.games.winnable import WinnableSettings
from patience_gateway.problems import ProblemError
from patience_gateway.settings import Settings, SettingsError
from patience_gateway.storage.clients import replica_wait, seed_nodes
from patience_gateway.storage.keys import game_keys, script_keys
from patience_gateway.storage.reads import StoredAnswer
from patience_gateway.storage.runners import ReplicaWait


def test_settings_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "REDIS_URL": "redis://r:1/2",
            "ENGINE_ADDR": "dns:///engine:50051",
            "GAME_TTL_SECONDS": "60",
            "MAX_BODY_BYTES": "1000",
            "GATEWAY_HOST": "0.0.0.0",
            "GATEWAY_PORT": "9000",
            "LOG_LEVEL": "DEBUG",
            "ENGINE_CHANNELS": "3",
        }
    )
    assert (settings.redis_url, settings.engine_addr) == ("redis://r:1/2", "dns:///engine:50051")
    assert settings.engine_channels == 3
    assert (settings.game_ttl_seconds, settings.max_body_bytes) == (60, 1000)
    assert (settings.host, settings.port, settings.log_level) == ("0.0.0.0", 9000, "debug")
    defaults = Settings.from_env({})
    assert defaults.game_ttl_seconds == 604800 and defaults.max_body_bytes == 65536
    assert (defaults.host, defaults.port) == ("127.0.0.1", 8000)
    assert defaults.engine_addr == "127.0.0.1:50051"
    assert defaults.engine_channels == max(4, 2 * (os.cpu_count() or 1))
    assert (defaults.redis_cluster, defaults.redis_wait_replicas) == (False, 0)


def test_redis_settings_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "REDIS_URL": "redis://a:1,b:2",
            "REDIS_CLUSTER": "true",
            "REDIS_WAIT_REPLICAS": "1",
            "REDIS_WAIT_TIMEOUT_MS": "250",
        }
    )
    assert (settings.redis_cluster, settings.redis_wait_replicas) == (True, 1)
    assert settings.redis_wait_timeout_ms == 250
    assert replica_wait(settings) == ReplicaWait(1, 250)
    assert replica_wait(Settings.from_env({"REDIS_WAIT_REPLICAS": "0"})) is None
    assert seed_nodes("redis://:pw@a:1/0, b:2 ,redis://c") == (
        "redis://:pw@a:1/0",
        [("a", 1), ("b", 2), ("c", 6379)],
    )
    for flag in ("1", "yes", "on", "TRUE"):
        assert Settings.from_env({"REDIS_CLUSTER": flag}).redis_cluster
    for flag in ("", "0", "no", "off", "false"):
        assert not Settings.from_env({"REDIS_CLUSTER": flag}).redis_cluster


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("REDIS_CLUSTER", "maybe"),
        ("REDIS_WAIT_REPLICAS", "-1"),
        ("REDIS_WAIT_REPLICAS", "one"),
        ("REDIS_WAIT_TIMEOUT_MS", "0"),
    ],
)
def test_redis_settings_refuse_bad_values(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


@pytest.mark.parametrize("value", ["0", "-5", "ten", "1.5"])
@pytest.mark.parametrize("name", ["GAME_TTL_SECONDS", "ENGINE_CHANNELS"])
def test_settings_refuse_bad_numbers(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_pool_sizes_per_variant() -> None:
    settings = Settings.from_env(
        {"WINNABLE_POOL_SIZES": " usk=40, napoleon-at-st-helena = 100 ,bisley=0,usk=50"}
    )
    assert settings.winnable_pool_sizes == (
        ("bisley", 0),
        ("napoleon-at-st-helena", 100),
        ("usk", 50),  # the last one given
    )
    winnable = WinnableSettings(8, 10, 1000, 0, settings.winnable_pool_sizes)
    assert winnable.size_of("napoleon-at-st-helena/") == 100
    assert winnable.size_of("usk/some-option") == 50
    assert winnable.size_of("bisley/") == 0
    assert winnable.size_of("cody/") == 8
    assert winnable.pooled
    assert WinnableSettings(0, 10, 1000, 0, (("usk", 3),)).pooled
    assert not WinnableSettings(0, 10, 1000, 0, (("usk", 0),)).pooled
    assert Settings.from_env({}).winnable_pool_sizes == ()


@pytest.mark.parametrize("value", ["usk", "usk=", "=3", "usk=-1", "usk=lots", "usk:3", "usk=³"])
def test_pool_sizes_refuse_what_is_not_a_size(value: str) -> None:
    with pytest.raises(SettingsError, match="WINNABLE_POOL_SIZES"):
        Settings.from_env({"WINNABLE_POOL_SIZES": value})


def test_if_match_forms() -> None:
    assert etag(7) == '"7"'
    assert matches('"7"', 7) and matches("7", 7) and matches("*", 7)
    assert matches('"5", "7"', 7) and matches(' "7" ', 7)
    assert not matches('"6"', 7) and not matches('W/"7"', 7) and not matches('"7x"', 7)
    for malformed in ("", "abc", "\u00b2", '"7', "7" * 2000):
        with pytest.raises(ProblemError) as refused:
            matches(malformed, 7)
        assert refused.value.kind.code == "malformed-header"
    require_match(None, 3)
    require_match('"3"', 3)
    with pytest.raises(ProblemError) as raised:
        require_match('"2"', 3)
    assert raised.value.kind.code == "stale-version" and raised.value.headers["ETag"] == '"3"'


def test_if_none_match_uses_the_weak_comparison() -> None:
    assert none_match('"4"', 4) and none_match('W/"4"', 4) and none_match("*", 4)
    assert not none_match('"3"', 4) and not none_match(None, 4)


@pytest.mark.parametrize(
    ("deal", "text"),
    [(None, None), (0, "0"), ("0", "0"), ("007", "7"), (10**20, str(10**20))],
)
def test_deal_numbers(deal: int | str | None, text: str | None) -> None:
    assert deal_text(deal) == text


@pytest.mark.parametrize("deal", [-1, 10**20 + 1, "", "-3", "1_000", "١٢", "9" * 22, "+5"])
def test_bad_deal_numbers(deal: int | str) -> None:
    with pytest.raises(ProblemError) as raised:
        deal_text(deal)
    assert raised.value.kind.code == "invalid-deal"


def test_idempotency_keys() -> None:
    assert check_idempotency_key(None) == ""
    assert check_idempotency_key("a-b_c.1 2") == "a-b_c.1 2"
    for bad in ("", "x" * 256, "caf\u00e9", "line\nbreak"):
        with pytest.raises(ProblemError):
            check_idempotency_key(bad)


def test_fingerprints_tell_requests_apart() -> None:
    move = MoveRequest.model_validate({"move": "t1-f1"})
    same = MoveRequest.model_validate({"move": "t1-f1"})
    assert fingerprint("move", move) == fingerprint("move", same)
    other = MoveRequest.model_validate({"move": "t2-f1"})
    assert fingerprint("move", move) != fingerprint("move", other)
    assert fingerprint("undo", None) != fingerprint("redo", None)
    structured = MoveRequest.model_validate({"kind": "transfer", "source": "t1", "target": "f1"})
    assert fingerprint("move", structured) != fingerprint("move", move)
    # Fingerprints stored with earlier answers stay comparable: the canonical text of a
    # request is the body without the fields left at their defaults.
    assert move.model_dump_json(exclude_defaults=True) == '{"move":"t1-f1"}'
    assert structured.model_dump_json(exclude_defaults=True) == (
        '{"kind":"transfer","source":"t1","target":"f1"}'
    )


def test_stored_answers_round_trip() -> None:
    answer = StoredAnswer("ab12", 200, '"9"', b'{"a":"line\\nbreak"}\n{')
    assert StoredAnswer.decode(answer.encode()) == answer


def test_keys_share_one_hash_tag() -> None:
    keys = game_keys("abc")
    assert list(keys) == [
        b"game:{abc}:meta",
        b"game:{abc}:states",
        b"game:{abc}:moves",
        b"game:{abc}:redo",
        b"game:{abc}:idem",
        b"game:{abc}:idemq",
    ]
    # the scripts also name the earlier layout's hash, to upgrade a game kept in it, the
    # recent events (a list, and the channel of the same name they are published on), and
    # the outbox (what a player's records have still to learn of the game)
    assert script_keys("abc") == (
        *keys,
        b"game:{abc}:data",
        b"game:{abc}:events",
        b"game:{abc}:outbox",
    )


def test_ids_and_tokens() -> None:
    ids = {new_game_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(GAME_ID.match(i) for i in ids)
    assert not GAME_ID.match("short") and not GAME_ID.match("a" * 23 + "/")
    token = new_token()
    assert len(token) >= 43  # 256 bits
    check_token(token, token_digest(token))
    with pytest.raises(ProblemError) as raised:
        check_token(token + "x", token_digest(token))
    assert raised.value.kind.code == "bad-token"
    assert bearer_token(f"Bearer {token}") == token
    assert bearer_token(f"bearer   {token}") == token
    for header in (None, "", "Bearer", "Bearer ", f"Basic {token}", token):
        with pytest.raises(ProblemError) as raised:
            bearer_token(header)
        assert raised.value.kind.code == "missing-token"


@given(st.text(alphabet=st.characters(max_codepoint=255), max_size=60))
def test_a_precondition_header_is_read_or_refused_never_failed(header: str) -> None:
    """Whatever latin-1 text a client sends, the answer is a match, no match, or
    malformed-header: never another exception (a 500)."""
    try:
        matches(header, 7)
        none_match(header, 7)
    except ProblemError as refused:
        assert refused.kind.code == "malformed-header"


async def test_a_search_made_ahead_runs_in_spare_time_only() -> None:
    """It starts once no game was served for the quiet time, is stopped when one is
    served, and starts again at the next quiet moment."""
    spare = SpareTime(quiet_seconds=0.2)
    starts: list[float] = []
    stopped: list[float] = []

    async def search() -> str:
        starts.append(time.monotonic())
        try:
            await asyncio.sleep(0.3)
        except asyncio.CancelledError:
            stopped.append(time.monotonic())
            raise
        return "proven"

    served_at = time.monotonic()
    running = asyncio.create_task(spare.run(search))
    await asyncio.sleep(0.3)  # quiet from 0.2 s: started by now
    assert len(starts) == 1 and starts[0] - served_at >= 0.2
    spare.served.set()
    again_at = time.monotonic()
    assert await running == "proven"
    assert len(stopped) == 1 and stopped[0] < starts[1]
    assert starts[1] - again_at >= 0.2


async def test_searches_one_after_another_in_one_quiet_spell_wait_for_it_once() -> None:
    """A day's deals are tried one by one, each a search of its own: once the process
    has been quiet for the quiet time, the next search starts at once, not after the
    quiet time again; a game served in between makes the next one wait again."""
    spare = SpareTime(quiet_seconds=1.0)
    starts: list[float] = []
    ends: list[float] = []

    async def search() -> str:
        starts.append(time.monotonic())
        await asyncio.sleep(0.05)
        ends.append(time.monotonic())
        return "unproven"

    for _ in range(3):
        await spare.run(search)
    # the first waited for the quiet time; the next two did not wait it again
    assert ends[-1] - starts[0] < 1.0, [b - a for a, b in zip(ends, starts[1:], strict=False)]
    spare.served.set()
    served_at = time.monotonic()
    await spare.run(search)
    assert starts[-1] - served_at >= 1.0


async def test_a_search_made_ahead_runs_regardless_once_it_waited_long_enough() -> None:
    spare = SpareTime(quiet_seconds=60.0)

    async def search() -> str:
        spare.served.set()  # games go on being served: it is not stopped
        await asyncio.sleep(0)
        return "proven"

    began = time.monotonic()
    assert await spare.run(search, regardless_after=began + 0.2) == "proven"
    assert 0.2 <= time.monotonic() - began < 5.0


async def test_a_background_task_that_lost_its_cancellation_is_stopped_all_the_same() -> None:
    """A background loop whose cancellation a library swallowed runs on; the gateway's
    stop cancels it again rather than waiting for it for good. On Python 3.11,
    `asyncio.wait_for` returns its result when what it waits for ends as the cancellation
    comes (psycopg_pool waits so): that is made to happen here."""
    ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    rounds = 0

    async def loop() -> None:
        nonlocal rounds
        while True:
            rounds += 1
            await asyncio.wait_for(ready if rounds == 1 else asyncio.sleep(0.01), 5)

    task = asyncio.ensure_future(loop())
    await asyncio.sleep(0)  # the loop waits on `ready`
    ready.set_result(None)  # what it waits for ends, and the stop comes at once
    stopping = asyncio.ensure_future(stop_background(task))
    # (a limit only, never reached when it works: the loop runs on until cancelled again)
    await asyncio.wait({stopping}, timeout=30)
    if not stopping.done():
        task.cancel()
    assert stopping.done() and task.cancelled()
