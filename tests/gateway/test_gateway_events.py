"""Game event streams over real HTTP: two gateway processes on one Redis, so a change
made through one reaches the streams open on both (Redis pub/sub), as one event each
whose id is the new version and whose data is the change's own answer; tickets open
one stream; Last-Event-ID resumes; heartbeats; a deleted or expired game ends its
streams; a stopping gateway ends them too."""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from patience_gateway.games.service import Games
from patience_gateway.games.tokens import new_game_id
from patience_gateway.http.routes.streams import game_events
from patience_gateway.storage.events import RESYNC, GameEvent, Listener, StreamStart

from bench.harness.servers import gateway_process
from tests.gateway.engines import EngineThread
from tests.gateway.helpers import GameHandle as Game
from tests.gateway.helpers import Gateway, killed_late

pytestmark = pytest.mark.xdist_group("event-streams")
WAIT = 20.0
# How long a stopping gateway is waited for: far past anything a loaded machine takes,
# and past server.STOP_SECONDS, so that a worker killed for being late is seen as such.
STOP_WAIT = 60.0


@pytest.fixture(scope="module")
def gateways(redis_url: str, engine: EngineThread) -> Iterator[tuple[str, str]]:
    """Two gateway processes sharing the suite's Redis, heartbeats every second."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("STREAM_HEARTBEAT_SECONDS", "1")
        first = gateway_process(redis_url=redis_url, engine_target=engine.target)
        second = gateway_process(redis_url=redis_url, engine_target=engine.target)
    with first, second:
        yield first.base_url, second.base_url
        for server in (first, second):
            assert "Traceback" not in server.output(), server.output()


@dataclass
class Event:
    kind: str = "message"
    id: str | None = None
    data: str = ""
    comments: list[str] = field(default_factory=list)


class Stream:
    """An open event stream, read event by event (comment lines kept apart)."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.lines = response.aiter_lines()
        self.comments: list[str] = []

    async def next(self) -> Event:
        event = Event()
        async with asyncio.timeout(WAIT):
            async for line in self.lines:
                if line.startswith(":"):
                    self.comments.append(line)
                elif not line:
                    if event.data or event.id:
                        return event
                else:
                    name, _, value = line.partition(":")
                    value = value.removeprefix(" ")
                    if name == "event":
                        event.kind = value
                    elif name == "id":
                        event.id = value
                    elif name == "data":
                        event.data += value
        raise EOFError("the stream ended")

    async def ended(self) -> bool:
        try:
            await self.next()
        except EOFError:
            return True
        return False


async def create(
    http: httpx.AsyncClient, base: str, variant: str = "la-belle-lucie", deal: int = 7
) -> Game:
    created = await http.post(f"{base}/v1/games", json={"variant": variant, "deal": deal})
    assert created.status_code == 201
    body = created.json()
    return Game(body["id"], body["token"], created.headers["etag"], body)


async def ticket(http: httpx.AsyncClient, base: str, game: Game) -> str:
    issued = await http.post(f"{base}/v1/games/{game.id}/stream-tickets", headers=game.auth())
    assert issued.status_code == 201, issued.text
    assert issued.headers["cache-control"] == "no-store"
    body = issued.json()
    assert body["expires_in"] == 60 and body["events"].endswith(body["ticket"])
    return str(body["ticket"])


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=WAIT) as client:
        yield client


@asynccontextmanager
async def opened(
    http: httpx.AsyncClient, base: str, game: Game, headers: dict[str, str] | None = None
) -> AsyncIterator[Stream]:
    url = f"{base}/v1/games/{game.id}/events?ticket={await ticket(http, base, game)}"
    async with http.stream("GET", url, headers=headers or {}) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        yield Stream(response)


async def change(
    http: httpx.AsyncClient, base: str, game: Game, path: str, **body: str
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"json": body} if body else {}
    answer = await http.post(f"{base}/v1/games/{game.id}/{path}", headers=game.auth(), **kwargs)
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


async def test_every_change_reaches_the_streams_of_every_gateway_process(
    gateways: tuple[str, str], http: httpx.AsyncClient
) -> None:
    one, two = gateways
    game = await create(http, one)
    async with opened(http, one, game) as near, opened(http, two, game) as far:
        for stream in (near, far):
            first = await stream.next()
            assert (first.kind, first.id) == ("view", "1")
            assert json.loads(first.data)["piles"] == game.created["piles"]
        moved = await change(http, one, game, "moves", move=game.created["legal_moves"][0])
        undone = await change(http, one, game, "undo")
        redone = await change(http, one, game, "redo")
        for stream in (near, far):
            for kind, answer in (("move", moved), ("undo", undone), ("redo", redone)):
                event = await stream.next()
                assert (event.kind, event.id) == (kind, str(answer["version"]))
                assert json.loads(event.data) == answer
        deleted = await http.delete(f"{one}/v1/games/{game.id}", headers=game.auth())
        assert deleted.status_code == 204
        for stream in (near, far):
            event = await stream.next()
            assert (event.kind, event.id) == ("deleted", "5")
            assert json.loads(event.data) == {"id": game.id}
            assert await stream.ended()


@pytest.mark.parametrize(
    ("variant", "deal", "kind"),
    [
        ("napoleon-at-st-helena", 7, "deal"),
        ("la-belle-lucie", 7, "redeal"),
        ("the-fifteen", 15, "withdraw"),
    ],
)
async def test_deals_redeals_and_withdrawals_reach_the_streams_as_moves(
    gateways: tuple[str, str], http: httpx.AsyncClient, variant: str, deal: int, kind: str
) -> None:
    one, two = gateways
    game = await create(http, one, variant, deal)
    move = next(m for m in game.created["legal_moves"] if m.split()[0] == kind)
    async with opened(http, two, game) as stream:
        assert (await stream.next()).kind == "view"
        answer = await change(http, one, game, "moves", move=move)
        event = await stream.next()
        assert (event.kind, event.id) == ("move", str(answer["version"]))
        assert json.loads(event.data) == answer
        assert answer["move"]["kind"] == kind and answer["events"]


async def test_a_ticket_opens_one_stream_of_its_own_game(
    gateways: tuple[str, str], http: httpx.AsyncClient
) -> None:
    one, _ = gateways
    game, other = await create(http, one), await create(http, one)
    used = await ticket(http, one, game)
    events = f"{one}/v1/games/{game.id}/events"
    async with http.stream("GET", f"{events}?ticket={used}") as first:
        assert first.status_code == 200
    for url, status, code in (
        (f"{events}?ticket={used}", 403, "bad-ticket"),
        (f"{events}?ticket=made-up", 403, "bad-ticket"),
        (events, 401, "missing-ticket"),
        (
            f"{one}/v1/games/{other.id}/events?ticket={await ticket(http, one, game)}",
            403,
            "bad-ticket",
        ),
    ):
        refused = await http.get(url)
        assert (refused.status_code, refused.json()["code"]) == (status, code), url
    wrong = await http.post(
        f"{one}/v1/games/{game.id}/stream-tickets", headers={"Authorization": "Bearer nope"}
    )
    assert wrong.status_code == 403
    assert (await http.post(f"{one}/v1/games/{game.id}/stream-tickets")).status_code == 401


async def test_last_event_id_resumes_from_the_changes_missed_or_the_whole_view(
    gateways: tuple[str, str], http: httpx.AsyncClient
) -> None:
    one, two = gateways
    game = await create(http, one)
    # a stream hears the first change, then loses its connection: the changes made
    # while it is away are kept for it
    async with opened(http, two, game) as stream:
        assert (await stream.next()).kind == "view"
        answers = [await change(http, one, game, "moves", move=game.created["legal_moves"][0])]
        assert (await stream.next()).id == "2"
    answers.append(await change(http, one, game, "undo"))
    async with opened(http, two, game, {"Last-Event-ID": "1"}) as stream:
        for answer in answers:
            event = await stream.next()
            assert (event.id, json.loads(event.data)) == (str(answer["version"]), answer)
    async with opened(http, two, game, {"Last-Event-ID": "3"}) as stream:
        await change(http, one, game, "redo")
        event = await stream.next()
        assert (event.kind, event.id) == ("redo", "4")  # nothing before: it was up to date
    for _ in range(20):  # more changes than the recent events keep
        await change(http, one, game, "undo")
        await change(http, one, game, "redo")
    async with opened(http, one, game, {"Last-Event-ID": "2"}) as stream:
        event = await stream.next()
        assert (event.kind, event.id) == ("view", "44")
    # a game whose changes no stream heard keeps none: a resume gets the whole view
    unwatched = await create(http, one)
    await change(http, one, unwatched, "moves", move=unwatched.created["legal_moves"][0])
    async with opened(http, two, unwatched, {"Last-Event-ID": "1"}) as stream:
        event = await stream.next()
        assert (event.kind, event.id) == ("view", "2")


async def test_an_idle_stream_gets_heartbeats(
    gateways: tuple[str, str], http: httpx.AsyncClient
) -> None:
    one, _ = gateways
    game = await create(http, one)
    async with opened(http, one, game) as stream:
        await stream.next()
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(2.5):
                await stream.next()
        assert stream.comments, "no heartbeat in 2.5 s with STREAM_HEARTBEAT_SECONDS=1"


async def test_a_stopping_gateway_ends_its_streams_and_is_not_held_up_by_them(
    redis_url: str, engine: EngineThread, http: httpx.AsyncClient
) -> None:
    """SIGTERM to a gateway with streams open: every stream ends cleanly (the end of its
    response, not a dropped connection) while its client still holds it, and the worker
    stops by itself, not killed by Granian for outstaying its graceful stop."""
    server = gateway_process(
        redis_url=redis_url, engine_target=engine.target, env={"LOG_LEVEL": "info"}
    )
    with server:
        base = server.base_url
        game = await create(http, base)
        async with opened(http, base, game) as read, opened(http, base, game) as held:
            for stream in (read, held):
                assert (await stream.next()).kind == "view"
            assert server.process is not None
            server.process.send_signal(signal.SIGTERM)
            assert await read.ended()
            exited = await asyncio.to_thread(server.process.wait, STOP_WAIT)
            assert await held.ended()  # read only now: the server did not wait for it
        output = server.output()
    assert exited == 0, output
    assert "Stopped worker-1" in output and not killed_late(output), output
    assert "Traceback" not in output, output


async def test_a_stream_ends_with_expired_when_its_game_expires(gateway: Gateway) -> None:
    """Told by the hub's sweep (tests/gateway/test_gateway_event_hub.py), or found on
    catching up after the subscriber reconnected: the stream sends `expired` and ends."""
    games: Games = gateway.app.state.services.games
    for told in (GameEvent("expired", 0, b"{}"), RESYNC):
        game_id = new_game_id()  # no such game: it expired
        listener = Listener(game_id)
        listener.put(told)
        start = StreamStart(version=3, state=b"", recent=[])
        sent = [event async for event in game_events(games, listener, game_id, start, 3)]
        assert [(event.event, event.data) for event in sent] == [
            ("expired", json.dumps({"id": game_id}, separators=(",", ":")))
        ], told
