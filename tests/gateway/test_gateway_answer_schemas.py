"""Every answer's bytes hold to the OpenAPI document: real answers of every game route
(create, get, move, undo, redo, autoplay, hint, legal moves, history, patch, stream
tickets, delete), of the variants and problem-type routes, of the probes, and problem
answers, each validated against the schema the document gives for its route, status
and media type."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.gateway.helpers import GameHandle, Gateway
from tests.gateway.test_openapi_contract import validator

WON_DEAL, LOST_DEAL = 0, 9  # bisley (tests/gateway/test_gateway_solver.py)


@dataclass
class Answers:
    """The answers of a scripted session, each with the route it came from."""

    gateway: Gateway
    seen: list[tuple[str, httpx.Response]] = field(default_factory=list)

    async def send(
        self, method: str, path: str, game: GameHandle | None = None, **kwargs: Any
    ) -> httpx.Response:
        headers = {**(game.auth() if game is not None else {}), **kwargs.pop("headers", {})}
        response = await self.gateway.http.request(method, path, headers=headers, **kwargs)
        self.seen.append((method.lower(), response))
        return response

    async def create(self, deal: int, **kwargs: Any) -> GameHandle:
        response = await self.send(
            "POST", "/v1/games", json={"variant": "bisley", "deal": deal}, **kwargs
        )
        body = response.json()
        return GameHandle(body["id"], body["token"], response.headers["etag"], body)


def template_of(document: dict[str, Any], path: str) -> str:
    """The document's path template that `path` is an instance of."""
    for template in document["paths"]:
        pattern = re.sub(r"\{[^}]+\}", "[^/]+", template)
        if re.fullmatch(pattern, path):
            return template
    raise LookupError(path)


def documented_answer(
    document: dict[str, Any], method: str, response: httpx.Response
) -> Iterator[str]:
    """What is wrong with `response` as the document describes its route's answers."""
    template = template_of(document, response.request.url.path)
    answers = document["paths"][template][method]["responses"]
    where = f"{method.upper()} {template} {response.status_code}"
    declared = answers.get(str(response.status_code))
    if declared is None:
        yield f"{where}: status not documented"
        return
    content = declared.get("content", {})
    if not response.content:
        if response.status_code not in (204, 304):
            yield f"{where}: no body"
        return
    media_type = response.headers["content-type"].partition(";")[0]
    if media_type not in content:
        yield f"{where}: {media_type} not documented ({list(content)})"
        return
    schema = content[media_type]["schema"]
    for error in validator(document, schema).iter_errors(response.json()):
        yield f"{where}: {error.message} at {list(error.absolute_path)}"


@pytest.fixture(scope="module")
async def answers(gateway: Gateway) -> Answers:
    session = Answers(gateway)
    game = await session.create(WON_DEAL)
    lost = await session.create(LOST_DEAL)
    path = f"/v1/games/{game.id}"

    def at(response: httpx.Response) -> dict[str, str]:
        return {"If-Match": response.headers["etag"]}

    await session.create(WON_DEAL, headers={"Idempotency-Key": "schemas-create"})
    await session.create(WON_DEAL, headers={"Idempotency-Key": "schemas-create"})  # replayed
    viewed = await session.send("GET", path, game)
    await session.send("GET", path, game, headers={"If-None-Match": viewed.headers["etag"]})
    await session.send("GET", f"{path}/legal-moves", game)
    await session.send("GET", f"{path}/hint", game)
    await session.send("GET", f"/v1/games/{lost.id}/hint", lost)
    await session.send("GET", f"/v1/games/{lost.id}", lost)  # outlook: lost
    legal = viewed.json()["legal_moves"]
    moved = await session.send("POST", f"{path}/moves", game, json={"move": legal[0]})
    listed = await session.send("GET", f"{path}/legal-moves", game)
    first = listed.json()["moves"][0]
    structured = {k: first[k] for k in ("kind", "source", "target", "count", "columns")}
    moved = await session.send(
        "POST", f"{path}/moves", game, json=structured, headers={"Idempotency-Key": "m2"}
    )
    await session.send(
        "POST", f"{path}/moves", game, json=structured, headers={"Idempotency-Key": "m2"}
    )  # replayed
    await session.send("POST", f"{path}/moves", game, json={"move": "t1-t1"})  # illegal
    await session.send("POST", f"{path}/moves", game, json={"move": "sideways"})  # malformed
    await session.send("POST", f"{path}/moves", game, content=b"{", headers=_JSON)  # not JSON
    await session.send("POST", f"{path}/moves", game, json={"move": 1})  # wrong shape
    await session.send("POST", f"{path}/moves", json={"move": legal[0]})  # no token
    await session.send(
        "POST", f"{path}/moves", json={"move": legal[0]}, headers={"Authorization": "Bearer x"}
    )
    await session.send("POST", f"{path}/moves", game, json={"move": legal[0]}, headers=_STALE)
    await session.send("POST", "/v1/games/" + "A" * 24 + "/moves", game, json={"move": "deal"})
    undone = await session.send("POST", f"{path}/undo", game, headers=at(moved))
    await session.send("POST", f"{path}/redo", game, headers=at(undone))
    await session.send("POST", f"{path}/redo", game)  # nothing to redo
    await session.send("POST", f"{path}/undo", game)
    await session.send("POST", f"{path}/undo", game)
    await session.send("POST", f"{path}/undo", game)  # nothing to undo
    played = await session.send("POST", f"{path}/autoplay", game, headers={"If-Match": "*"})
    await session.send("POST", f"{path}/autoplay", game, headers=at(played))
    await session.send("GET", f"{path}/history", game)
    await session.send(
        "PATCH", path, game, json={"autoplay": True}, headers={"Content-Type": _MERGE_PATCH}
    )
    await session.send("PATCH", path, game, json={"autoplay": "yes"})
    await session.send("PATCH", path, game, content=b"{}", headers=_TEXT)
    await session.send("POST", f"{path}/moves", game, content=b"{}", headers=_TEXT)
    await session.send("POST", f"{path}/stream-tickets", game)
    await session.send("GET", f"{path}/events", game)  # no ticket
    await session.send("POST", "/v1/games", json={"variant": "nope"})
    await session.send("POST", "/v1/games", json={"variant": "bisley", "deal": -1})
    await session.send("POST", "/v1/games", content=b"x", headers=_TEXT)
    await session.send("POST", "/v1/games", content=b"x" * 5000, headers=_JSON)  # too large
    await session.send("GET", "/v1/variants")
    await session.send("GET", "/v1/variants/napoleon-at-st-helena")
    await session.send("GET", "/v1/variants/nope")
    await session.send("GET", "/problems/illegal-move")
    await session.send("GET", "/problems/nope")
    await session.send("GET", "/livez")
    await session.send("GET", "/readyz")
    await session.send("DELETE", path, game, headers={"If-Match": '"99"'})
    await session.send("DELETE", path, game)
    await session.send("GET", path, game)  # gone
    return session


_JSON = {"Content-Type": "application/json"}
_TEXT = {"Content-Type": "text/plain"}
_STALE = {"If-Match": '"99"'}
_MERGE_PATCH = "application/merge-patch+json"


async def test_every_answer_holds_to_its_documented_schema(
    gateway: Gateway, answers: Answers
) -> None:
    document = gateway.app.openapi()
    wrong = [
        problem
        for method, response in answers.seen
        for problem in documented_answer(document, method, response)
    ]
    assert wrong == []


async def test_the_session_meets_every_kind_of_answer(gateway: Gateway, answers: Answers) -> None:
    """The answers checked above include every game route's success and problems."""
    document = gateway.app.openapi()
    met = {
        (method, template_of(document, response.request.url.path), response.status_code)
        for method, response in answers.seen
    }
    games = "/v1/games/{game_id}"
    expected = {
        ("post", "/v1/games", 201),
        ("post", "/v1/games", 422),
        ("post", "/v1/games", 404),
        ("post", "/v1/games", 415),
        ("post", "/v1/games", 413),
        ("get", games, 200),
        ("get", games, 304),
        ("get", games, 404),
        ("get", f"{games}/legal-moves", 200),
        ("get", f"{games}/hint", 200),
        ("get", f"{games}/history", 200),
        ("post", f"{games}/moves", 200),
        ("post", f"{games}/moves", 400),
        ("post", f"{games}/moves", 401),
        ("post", f"{games}/moves", 403),
        ("post", f"{games}/moves", 404),
        ("post", f"{games}/moves", 412),
        ("post", f"{games}/moves", 415),
        ("post", f"{games}/moves", 422),
        ("post", f"{games}/undo", 200),
        ("post", f"{games}/undo", 409),
        ("post", f"{games}/redo", 200),
        ("post", f"{games}/redo", 409),
        ("post", f"{games}/autoplay", 200),
        ("patch", games, 200),
        ("patch", games, 415),
        ("patch", games, 422),
        ("post", f"{games}/stream-tickets", 201),
        ("get", f"{games}/events", 401),
        ("delete", games, 204),
        ("delete", games, 412),
        ("get", "/v1/variants", 200),
        ("get", "/v1/variants/{variant_id}", 200),
        ("get", "/v1/variants/{variant_id}", 404),
        ("get", "/problems/{code}", 200),
        ("get", "/problems/{code}", 404),
        ("get", "/livez", 200),
        ("get", "/readyz", 200),
    }
    assert expected <= met, expected - met
