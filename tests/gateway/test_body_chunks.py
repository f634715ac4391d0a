"""`JsonBodies` driven through the ASGI interface itself, a message at a time.

A real server hands a request body over in as many `http.request` messages as the
network delivered (`more_body: True` on all but the last); the in-process httpx client
of test_body_rules.py always hands it over in one. So these tests call the middleware
with a scope, a `receive` that hands out a prepared list of messages (or raises what a
body limit raises) and a `send` that records the answer, in front of a small route that
reads the body through `receive()` as Starlette's Request does. They pin that the
checks see the whole body whatever its chunks, that the route gets exactly the messages
that arrived, in order (a refusal or a disconnect included) and then the live
`receive()`, and which bodies are not checked at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from patience_gateway.http.bodies import (
    MAX_JSON_DEPTH,
    BodySizeLimit,
    BodyTimedOut,
    BodyTooLarge,
    JsonBodies,
)
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PATH = "/v1/games"
DISCONNECT: Message = {"type": "http.disconnect"}


def chunked(*parts: bytes) -> list[Message]:
    """The body as a server hands it over: the last message leaves `more_body` out, as
    ASGI allows (it means False)."""
    messages: list[Message] = [
        {"type": "http.request", "body": part, "more_body": True} for part in parts[:-1]
    ]
    return [*messages, {"type": "http.request", "body": parts[-1]}]


Framing = Callable[[bytes], list[tuple[str, str]]]


def with_length(body: bytes) -> list[tuple[str, str]]:
    return [("content-length", str(len(body)))]


def without_length(body: bytes) -> list[tuple[str, str]]:
    return [("transfer-encoding", "chunked")]


FRAMINGS = pytest.mark.parametrize(
    "framing", [with_length, without_length], ids=["content-length", "transfer-encoding"]
)


@dataclass
class Peer:
    """The server's side of `receive`: hands out the prepared messages in order, raises
    an exception where the list holds one (a body limit refusing the body), and logs each
    hand-out so a test sees what was read before the route ran."""

    items: list[Message | Exception]
    log: list[str]

    async def __call__(self) -> Message:
        # a real server would wait for ever here; a test that gets this far read too much
        assert self.items, "receive() called after the last prepared message"
        item = self.items.pop(0)
        self.log.append("receive")
        if isinstance(item, Exception):
            raise item
        return item


@dataclass
class Route:
    """The app behind the middleware: reads http.request messages until `more_body` is
    false (or another message comes), then `extra_reads` more, and answers 200 with the
    body it read. A refusal raised by `receive()` is kept, as the exception handlers
    would meet it."""

    log: list[str]
    extra_reads: int = 0
    calls: int = 0
    called_with: tuple[Scope, Receive, Send] | None = None
    seen: list[Message] = field(default_factory=list)
    body: bytes = b""
    refusal: HTTPException | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.calls += 1
        self.log.append("route")
        self.called_with = (scope, receive, send)
        if scope["type"] != "http":
            return
        try:
            while True:
                message = await receive()
                self.seen.append(message)
                if message["type"] != "http.request":
                    break
                self.body += message.get("body", b"")
                if not message.get("more_body", False):
                    break
            for _ in range(self.extra_reads):
                self.seen.append(await receive())
        except HTTPException as error:
            self.refusal = error
            status = error.status_code
        else:
            status = 200
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": self.body})


@dataclass
class Outcome:
    route: Route
    codes: list[str]  # what on_problem was told
    sent: list[Message]
    log: list[str]  # "receive" and "route", in the order they happened

    @property
    def status(self) -> int:
        return int(self.sent[0]["status"])

    def problem(self, status: int, code: str) -> dict[str, Any]:
        """The answer is the problem errors.problem_response writes, and the route never ran."""
        assert self.route.calls == 0
        assert self.status == status
        assert self.header("content-type") == "application/problem+json"
        body: dict[str, Any] = json.loads(b"".join(m.get("body", b"") for m in self.sent[1:]))
        assert (body["status"], body["code"]) == (status, code)
        assert body["type"] == f"/problems/{code}"
        assert body["instance"] == PATH
        assert self.codes == [code]
        return body

    def header(self, name: str) -> str:
        headers: dict[str, str] = {
            k.decode(): v.decode("latin-1") for k, v in self.sent[0]["headers"]
        }
        return headers[name]

    def passed(self, body: bytes) -> None:
        """The route ran once, read exactly this body, and nothing was refused."""
        assert (self.route.calls, self.route.body, self.status) == (1, body, 200)
        assert self.codes == []


async def drive(
    items: Sequence[Message | Exception],
    headers: list[tuple[str, str]],
    content_type: str | None = "application/json",
    method: str = "POST",
    extra_reads: int = 0,
    outside: type[BodySizeLimit] | None = None,
) -> Outcome:
    log: list[str] = []
    route = Route(log, extra_reads)
    codes: list[str] = []
    app: ASGIApp = JsonBodies(route, on_problem=codes.append)
    if outside is not None:  # the size limit in front, as the gateway stacks them
        app = outside(app, max_bytes=10, timeout_seconds=30)
    if content_type is not None:
        headers = [*headers, ("content-type", content_type)]
    scope: Scope = {
        "type": "http",
        "method": method,
        "path": PATH,
        "headers": [(k.encode(), v.encode("latin-1")) for k, v in headers],
    }
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, Peer(list(items), log), send)
    return Outcome(route, codes, sent, log)


VALID = b'{"variant": "bisley", "note": "a \\"[[{\\u00e9", "deal": 4}'
# where the chunk boundaries below cut a string: after the backslash of \" and of \u00e9
QUOTE, ESCAPE = VALID.index(b'\\"') + 1, VALID.index(b"\\u") + 1


@FRAMINGS
@pytest.mark.parametrize(
    "parts",
    [
        [VALID[:QUOTE], VALID[QUOTE:]],
        [VALID[:QUOTE], VALID[QUOTE:ESCAPE], VALID[ESCAPE:]],
        [VALID[:ESCAPE], VALID[ESCAPE : ESCAPE + 2], VALID[ESCAPE + 2 :]],
        [b"", VALID[:20], b"", VALID[20:], b""],
        [VALID[i : i + 1] for i in range(len(VALID))],
    ],
    ids=["2", "3", "3-inside-unicode-escape", "empty-chunks", "byte-by-byte"],
)
async def test_a_valid_body_in_chunks_reaches_the_route_byte_for_byte(
    framing: Framing, parts: list[bytes]
) -> None:
    messages = chunked(*parts)
    outcome = await drive(messages, framing(VALID))
    outcome.passed(VALID)
    assert outcome.route.seen == messages  # the same messages, in order


@FRAMINGS
async def test_brackets_that_only_together_nest_too_deep_are_refused(framing: Framing) -> None:
    # neither chunk alone nests deeper than MAX_JSON_DEPTH, the body does
    head, tail = b"[" * 20, b"[" * 13 + b"]" * 33
    outcome = await drive(chunked(head, tail), framing(head + tail))
    body = outcome.problem(400, "body-too-deep")
    assert body["detail"] == f"the body's JSON nests deeper than {MAX_JSON_DEPTH} levels"


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1])
async def test_the_depth_limit_is_exact_in_chunks(depth: int) -> None:
    body = b"[" * depth + b"]" * depth
    outcome = await drive(
        chunked(body[:5], body[5 : depth + 3], body[depth + 3 :]), without_length(body)
    )
    if depth > MAX_JSON_DEPTH:
        outcome.problem(400, "body-too-deep")
    else:
        outcome.passed(body)


@pytest.mark.parametrize("cut", [12, 15], ids=["between-keys", "inside-the-key"])
async def test_a_key_named_twice_across_chunks_is_refused(cut: int) -> None:
    body = b'{"deal": 1, "deal": 2}'
    outcome = await drive(chunked(body[:cut], body[cut:]), without_length(body))
    problem = outcome.problem(400, "malformed-body")
    assert problem["detail"] == "the body names the key 'deal' twice"


async def test_a_long_key_named_twice_is_named_in_its_first_100_characters() -> None:
    key = "k" * 150
    body = json.dumps({key: 1}).encode()[:-1] + b", " + json.dumps({key: 2}).encode()[1:]
    outcome = await drive(chunked(body[:100], body[100:]), with_length(body))
    problem = outcome.problem(400, "malformed-body")
    assert problem["detail"] == f"the body names the key {key[:100]!r} twice"


@pytest.mark.parametrize("where", ["between", "last"])
@pytest.mark.parametrize("body", [VALID, b'{"deal": 1, "deal": 2}'], ids=["valid", "duplicate"])
async def test_a_message_without_a_body_adds_nothing_to_it(where: str, body: bytes) -> None:
    # ASGI: an http.request message may leave `body` out, which means b""
    first, second = body[:12], body[12:]  # the duplicate's cut: after `{"deal": 1, `
    bodiless: Message = {"type": "http.request", "more_body": where == "between"}
    if where == "between":
        messages = [*chunked(first, b"")[:1], bodiless, *chunked(second)]
    else:
        messages = [*chunked(first, second, b"")[:2], bodiless]
    outcome = await drive(messages, without_length(body))
    assert b"".join(m.get("body", b"") for m in messages) == body
    if body == VALID:
        outcome.passed(VALID)
    else:  # the checks read the same body as the route: this one names a key twice
        outcome.problem(400, "malformed-body")


# rule: (content type, body, status, problem code or None where the route answers)
RULES: dict[str, tuple[str, bytes, int, str | None]] = {
    "media type": ("text/plain", b'{"deal": 1}', 415, "unsupported-media-type"),
    "too deep": ("application/json", b"{" * 40 + b"}" * 40, 400, "body-too-deep"),
    "duplicate": ("application/json", b'{"a": {"b": 1, "b": 2}}', 400, "malformed-body"),
    "valid": ("application/merge-patch+json", b'{"a": [1, {"b": 2}]}', 200, None),
}


@FRAMINGS
@pytest.mark.parametrize("rule", list(RULES))
async def test_every_rule_holds_whether_the_length_is_given_or_not(
    framing: Framing, rule: str
) -> None:
    content_type, body, status, code = RULES[rule]
    half = len(body) // 2
    outcome = await drive(chunked(body[:half], body[half:]), framing(body), content_type)
    if code is None:
        outcome.passed(body)
    else:
        outcome.problem(status, code)


@pytest.mark.parametrize(
    "headers",
    [[("content-length", "0")], [("content-length", " ")], []],
    ids=["length-0", "length-blank", "no-framing"],
)
async def test_a_request_without_a_body_is_not_checked(headers: list[tuple[str, str]]) -> None:
    # a wrong media type on no body is no reason to refuse it: the route decides
    outcome = await drive(chunked(b""), headers, "text/plain")
    outcome.passed(b"")


async def test_transfer_encoding_counts_as_a_body_whatever_length_follows() -> None:
    # a Content-Length after the Transfer-Encoding does not undo it
    headers = [("transfer-encoding", "chunked"), ("content-length", "0")]
    outcome = await drive(chunked(b"x"), headers, "text/plain")
    outcome.problem(415, "unsupported-media-type")


@pytest.mark.parametrize("method", ["GET", "HEAD", "OPTIONS"])
async def test_a_body_on_a_method_that_takes_none_is_passed_through(method: str) -> None:
    body = b"[" * 40 + b'{"a": 1, "a": 2}' + b"]" * 40
    outcome = await drive(chunked(body[:30], body[30:]), with_length(body), "text/plain", method)
    outcome.passed(body)


@pytest.mark.parametrize(
    "scope",
    [{"type": "lifespan"}, {"type": "websocket", "path": PATH, "headers": []}],
    ids=["lifespan", "websocket"],
)
async def test_a_scope_that_is_not_http_is_passed_through_untouched(scope: Scope) -> None:
    route = Route([])
    codes: list[str] = []

    async def receive() -> Message:
        raise AssertionError("the middleware read a message meant for the app")

    async def send(message: Message) -> None:
        raise AssertionError("the middleware answered in the app's place")

    await JsonBodies(route, on_problem=codes.append)(scope, receive, send)
    assert (route.calls, route.called_with) == (1, (scope, receive, send))
    assert codes == []


@pytest.mark.parametrize("arrived", [0, 1, 2])
@pytest.mark.parametrize(
    "refusal", [BodyTooLarge(4096), BodyTimedOut(30)], ids=["too-large", "too-slow"]
)
async def test_a_body_refused_while_arriving_is_replayed_to_the_route(
    arrived: int, refusal: HTTPException
) -> None:
    parts = chunked(*[b"[1," * (i + 1) for i in range(arrived)], b"")[:arrived]
    outcome = await drive([*parts, refusal], without_length(b""))
    # the route ran, read what did arrive and then met the very same refusal
    assert (outcome.route.calls, outcome.route.seen) == (1, parts)
    assert outcome.route.refusal is refusal
    assert outcome.status == refusal.status_code
    assert outcome.codes == []


async def test_the_size_limit_in_front_reaches_the_route_as_its_own_413() -> None:
    # as the gateway stacks them: BodySizeLimit(JsonBodies(route)), a 10-byte limit
    parts = chunked(b'{"a": ', b'"0123456789"}')
    outcome = await drive(parts, without_length(b""), outside=BodySizeLimit)
    assert outcome.route.seen == parts[:1]
    assert isinstance(outcome.route.refusal, BodyTooLarge)
    assert outcome.route.refusal.detail == "the request body is larger than 10 bytes"
    assert outcome.status == 413


async def test_a_streamed_body_of_exactly_the_limit_passes_and_one_byte_more_is_refused() -> None:
    # a 10-byte limit, no Content-Length: counted as the chunks arrive
    exact = b'{"a": 123}'
    assert len(exact) == 10
    outcome = await drive(chunked(exact[:4], exact[4:]), without_length(b""), outside=BodySizeLimit)
    outcome.passed(exact)
    over = b'{"a": 1234}'
    outcome = await drive(chunked(over[:4], over[4:]), without_length(b""), outside=BodySizeLimit)
    assert isinstance(outcome.route.refusal, BodyTooLarge)
    assert outcome.status == 413


@pytest.mark.parametrize("head", [b'{"a"', b"[" * 40], ids=["valid-so-far", "too-deep-so-far"])
async def test_a_disconnect_mid_body_reaches_the_route_then_the_live_receive(
    head: bytes,
) -> None:
    later: Message = {"type": "http.request", "body": b"late", "more_body": False}
    # the last chunk never comes: nothing is judged on half a body, the route is told
    early = chunked(head, b": 1", b"}")[:2]
    outcome = await drive([*early, DISCONNECT, later], without_length(b""), extra_reads=1)
    # the middleware stops reading at the disconnect and passes it on, in order; the
    # route's next receive() is the server's own
    assert outcome.route.seen == [*early, DISCONNECT, later]
    assert outcome.log == ["receive"] * 3 + ["route", "receive"]
    assert outcome.codes == []


async def test_after_the_body_the_route_reads_from_the_live_receive() -> None:
    messages = chunked(b'{"deal"', b": 4}")
    outcome = await drive([*messages, DISCONNECT], with_length(b'{"deal": 4}'), extra_reads=1)
    assert outcome.route.seen == [*messages, DISCONNECT]
    assert outcome.log == ["receive"] * 2 + ["route", "receive"]
    outcome.passed(b'{"deal": 4}')


@pytest.mark.parametrize(
    ("content_type", "shown"),
    [
        ("text/plain; charset=utf-8", "text/plain; charset=utf-8"),
        (None, "none"),
        ("text/" + "x" * 200, "text/" + "x" * 95),
        ("text/caf\u00e9", "text/caf\u00e9"),  # header bytes are latin-1
    ],
    ids=["named", "none", "truncated-to-100", "latin-1"],
)
async def test_the_415_answer_names_the_media_type_and_offers_json(
    content_type: str | None, shown: str
) -> None:
    outcome = await drive(chunked(b"{}"), with_length(b"{}"), content_type)
    body = outcome.problem(415, "unsupported-media-type")
    assert body["detail"] == f"the body must be application/json, not {shown}"
    assert outcome.header("accept-post") == "application/json"
    assert outcome.log == []  # refused on its headers: not a byte of the body was read
