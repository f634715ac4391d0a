"""Every error is an RFC 9457 problem with its documented status and code."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.gateway.documented import models
from tests.gateway.helpers import GameHandle, Gateway, assert_problem

pytestmark = pytest.mark.both_stores  # a single Redis server and a Redis Cluster

# (method, path under the game, JSON body) of every route that acts on one game
GAME_ROUTES = [
    ("GET", "", None),
    ("GET", "/legal-moves", None),
    ("GET", "/history", None),
    ("POST", "/moves", {"move": "deal"}),
    ("POST", "/undo", None),
    ("POST", "/redo", None),
    ("GET", "/hint", None),
    ("POST", "/autoplay", None),
    ("PATCH", "", {"autoplay": True}),
    ("DELETE", "", None),
]


async def _game(gateway: Gateway) -> GameHandle:
    return await gateway.create("bisley", deal=11)


@pytest.mark.parametrize(("method", "suffix", "body"), GAME_ROUTES)
async def test_missing_token_is_401_on_every_game_route(
    gateway: Gateway, method: str, suffix: str, body: dict[str, str] | None
) -> None:
    game = await _game(gateway)
    url = f"/v1/games/{game.id}{suffix}"
    response = await gateway.http.request(method, url, json=body)
    assert_problem(response, 401, "missing-token")
    basic = await gateway.http.request(
        method, url, json=body, headers={"Authorization": "Basic dXNlcjpwYXNz"}
    )
    assert_problem(basic, 401, "missing-token")
    assert (await gateway.view(game))["version"] == 1  # nothing happened


@pytest.mark.parametrize(("method", "suffix", "body"), GAME_ROUTES)
async def test_wrong_token_is_403_on_every_game_route(
    gateway: Gateway, method: str, suffix: str, body: dict[str, str] | None
) -> None:
    game = await _game(gateway)
    other = await _game(gateway)  # a real token, but of another game
    url = f"/v1/games/{game.id}{suffix}"
    for token in (other.token, game.token + "x", "not-a-token"):
        response = await gateway.http.request(
            method, url, json=body, headers={"Authorization": f"Bearer {token}"}
        )
        assert_problem(response, 403, "bad-token")
    assert (await gateway.view(game))["version"] == 1


@pytest.mark.parametrize(("method", "suffix", "body"), GAME_ROUTES)
async def test_unknown_game_is_404_on_every_game_route(
    gateway: Gateway, method: str, suffix: str, body: dict[str, str] | None
) -> None:
    game = await _game(gateway)
    for game_id in ("A" * 24, "no-such-game", "x" * 200):
        response = await gateway.http.request(
            method, f"/v1/games/{game_id}{suffix}", json=body, headers=game.auth()
        )
        assert_problem(response, 404, "unknown-game")


async def test_deleted_game_is_gone(gateway: Gateway) -> None:
    game = await _game(gateway)
    stale = await gateway.http.delete(
        f"/v1/games/{game.id}", headers={**game.auth(), "If-Match": '"2"'}
    )
    assert_problem(stale, 412, "stale-version")
    deleted = await gateway.http.delete(
        f"/v1/games/{game.id}", headers={**game.auth(), "If-Match": game.etag}
    )
    assert deleted.status_code == 204 and deleted.content == b""
    again = await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth())
    assert_problem(again, 404, "unknown-game")


async def test_malformed_json_is_400(gateway: Gateway) -> None:
    game = await _game(gateway)
    headers = {**game.auth(), "Content-Type": "application/json"}
    response = await gateway.http.post(
        f"/v1/games/{game.id}/moves", content=b'{"move": "deal"', headers=headers
    )
    assert_problem(response, 400, "malformed-body")
    created = await gateway.http.post("/v1/games", content=b"{nope", headers=headers)
    assert_problem(created, 400, "malformed-body")


@pytest.mark.parametrize(
    "body",
    [
        {},
        [],
        "deal",
        {"move": 7},
        {"move": "deal", "extra": 1},
        {"move": "t1-f1", "kind": "transfer"},
        {"kind": "shuffle"},
        {"kind": "transfer", "source": "t1", "target": "f1", "count": 0},
    ],
)
async def test_body_of_the_wrong_shape_is_422(gateway: Gateway, body: object) -> None:
    game = await _game(gateway)
    response = await gateway.http.post(f"/v1/games/{game.id}/moves", json=body, headers=game.auth())
    problem = assert_problem(response, 422, "malformed-body")
    assert problem["errors"], problem


@pytest.mark.parametrize(
    "body",
    [{}, {"variant": 3}, {"variant": "bisley", "options": "x"}, {"variant": "bisley", "seed": 1}],
)  # fmt: skip (a deal of the wrong type is invalid-deal: test_invalid_deal_is_422)
async def test_new_game_body_of_the_wrong_shape_is_422(gateway: Gateway, body: object) -> None:
    assert_problem(await gateway.http.post("/v1/games", json=body), 422, "malformed-body")


async def test_unknown_variant_is_404(gateway: Gateway) -> None:
    created = await gateway.http.post("/v1/games", json={"variant": "spider"})
    assert_problem(created, 404, "unknown-variant")
    described = await gateway.http.get("/v1/variants/spider")
    assert_problem(described, 404, "unknown-variant")


async def test_unknown_option_is_422(gateway: Gateway) -> None:
    response = await gateway.http.post(
        "/v1/games", json={"variant": "bisley", "options": ["no_such_option"]}
    )
    assert_problem(response, 422, "unknown-option")


@pytest.mark.parametrize(
    "deal", [-1, 10**20 + 1, "-1", "1e5", "", " 7", "100000000000000000001", 7.5, 7.0, True, [7]]
)
async def test_invalid_deal_is_422(gateway: Gateway, deal: int | str) -> None:
    response = await gateway.http.post("/v1/games", json={"variant": "bisley", "deal": deal})
    assert_problem(response, 422, "invalid-deal")


@pytest.mark.parametrize("deal", [0, "0", 10**20, str(10**20), "00042"])
async def test_deal_numbers_at_the_edges_are_accepted(gateway: Gateway, deal: int | str) -> None:
    game = await gateway.create("bisley", deal=deal)
    assert game.created["deal"] == str(int(deal))


async def test_illegal_move_names_the_rule_and_changes_nothing(gateway: Gateway) -> None:
    game = await _game(gateway)
    response = await gateway.move(game, "t1-t1")
    problem = assert_problem(response, 422, "illegal-move")
    assert problem["rule"] == "same_pile" and problem["move"] == "t1-t1"
    assert response.headers["etag"] == '"1"', "the game's version, to retry from"
    response = await gateway.move(game, "deal")
    assert assert_problem(response, 422, "illegal-move")["rule"] == "no_stock"
    assert (await gateway.view(game))["version"] == 1


async def test_malformed_move_is_422(gateway: Gateway) -> None:
    game = await _game(gateway)
    for notation in ("T1-F1", "t1 - f1", "fly", "t1-f1/x"):
        assert_problem(await gateway.move(game, notation), 422, "malformed-move")
    structured = await gateway.http.post(
        f"/v1/games/{game.id}/moves", json={"kind": "transfer", "source": "t1"},
        headers=game.auth(),
    )  # fmt: skip
    assert_problem(structured, 422, "malformed-move")


async def test_structured_move_is_applied_like_its_notation(gateway: Gateway) -> None:
    game = await _game(gateway)
    listed = await gateway.http.get(f"/v1/games/{game.id}/legal-moves", headers=game.auth())
    assert listed.status_code == 200 and listed.headers["etag"] == '"1"'
    moves = models.LegalMoves.model_validate(listed.json()).moves
    assert [m.notation for m in moves] == game.created["legal_moves"]
    first = moves[0]
    response = await gateway.http.post(
        f"/v1/games/{game.id}/moves",
        json={"kind": first.kind, "source": first.source, "target": first.target,
              "count": first.count},
        headers=game.auth(),
    )  # fmt: skip
    assert response.status_code == 200, response.text
    assert response.json()["move"] == first.model_dump()


async def test_stale_version_is_412_and_changes_nothing(gateway: Gateway) -> None:
    game = await _game(gateway)
    notation = game.created["legal_moves"][0]
    for if_match in ('"2"', '"0"', 'W/"1"', '"abc"', '"' + "1" * 40 + '"'):
        response = await gateway.http.post(
            f"/v1/games/{game.id}/moves",
            json={"move": notation},
            headers={**game.auth(), "If-Match": if_match},
        )
        problem = assert_problem(response, 412, "stale-version")
        assert response.headers["etag"] == '"1"', problem
    for route in ("undo", "redo"):
        response = await gateway.http.post(
            f"/v1/games/{game.id}/{route}", headers={**game.auth(), "If-Match": '"9"'}
        )
        assert_problem(response, 412, "stale-version")
    history = await gateway.history(game)
    assert history["moves"] == [] and history["version"] == 1
    # the forms of a matching If-Match that are accepted
    for if_match in ('"1"', '"5", "1"', "*"):
        response = await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth())
        version = response.json()["version"]
        tag = if_match.replace('"1"', f'"{version}"')
        moved = await gateway.http.post(
            f"/v1/games/{game.id}/moves",
            json={"move": response.json()["legal_moves"][0]},
            headers={**game.auth(), "If-Match": tag},
        )
        assert moved.status_code == 200, moved.text


async def test_nothing_to_undo_or_redo_is_409(gateway: Gateway) -> None:
    game = await _game(gateway)
    assert_problem(await gateway.undo(game), 409, "nothing-to-undo")
    assert_problem(await gateway.redo(game), 409, "nothing-to-redo")
    assert (await gateway.move(game, game.created["legal_moves"][0])).is_success
    assert_problem(await gateway.redo(game), 409, "nothing-to-redo")


async def test_body_too_large_by_content_length_is_413(gateway: Gateway) -> None:
    game = await _game(gateway)
    limit = gateway.app.state.services.settings.max_body_bytes
    padding = "x" * limit
    response = await gateway.http.post(
        f"/v1/games/{game.id}/moves", json={"move": padding}, headers=game.auth()
    )
    assert_problem(response, 413, "body-too-large")
    created = await gateway.http.post("/v1/games", json={"variant": padding})
    assert_problem(created, 413, "body-too-large")


async def test_chunked_body_too_large_is_refused_before_it_is_all_read(gateway: Gateway) -> None:
    game = await _game(gateway)
    limit = gateway.app.state.services.settings.max_body_bytes
    chunk = b" " * 1024
    chunks = 100 * limit // len(chunk)
    sent = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal sent
        yield b'{"move": "deal",'
        for _ in range(chunks):
            sent += 1
            yield chunk

    response = await gateway.http.post(
        f"/v1/games/{game.id}/moves",
        content=body(),
        headers={**game.auth(), "Content-Type": "application/json"},
    )
    assert "content-length" not in response.request.headers
    assert_problem(response, 413, "body-too-large")
    assert sent <= limit // len(chunk) + 2 < chunks


async def test_idempotency_key_must_be_printable(gateway: Gateway) -> None:
    game = await _game(gateway)
    notation = game.created["legal_moves"][0]
    for key in (b"", b"k" * 256, "caf\u00e9".encode(), b"tab\there"):
        response = await gateway.http.post(
            f"/v1/games/{game.id}/moves",
            json={"move": notation},
            headers=[
                (b"Authorization", game.auth()["Authorization"].encode()),
                (b"Idempotency-Key", key),
            ],
        )
        assert_problem(response, 400, "malformed-header")


# If-Match values that are not `*` nor a list of entity tags, as raw header bytes
MALFORMED_TAGS = [
    b"garbage",
    b'"1',  # unterminated
    b"\xb2",  # a superscript two (latin-1): a digit to str.isdigit, not to HTTP
    b'"\xb9"',
    b"1" * 4301,  # past the header's length limit (and int()'s digit limit)
    b'"1", ',  # an empty element is fine, "1" is; then a bad one:
    b'"1", W/',
]


def _raw_headers(game: GameHandle, name: bytes, value: bytes) -> list[tuple[bytes, bytes]]:
    return [(b"Authorization", game.auth()["Authorization"].encode()), (name, value)]


@pytest.mark.parametrize("value", MALFORMED_TAGS[:5] + MALFORMED_TAGS[6:])
@pytest.mark.parametrize(("method", "suffix", "body"), [r for r in GAME_ROUTES if r[0] != "GET"])
async def test_malformed_if_match_is_400_and_changes_nothing(
    gateway: Gateway, method: str, suffix: str, body: object, value: bytes
) -> None:
    game = await _game(gateway)
    response = await gateway.http.request(
        method,
        f"/v1/games/{game.id}{suffix}",
        json=body,
        headers=_raw_headers(game, b"If-Match", value),
    )
    assert_problem(response, 400, "malformed-header")
    assert (await gateway.history(game))["version"] == 1


async def test_a_list_with_an_empty_element_is_well_formed(gateway: Gateway) -> None:
    game = await _game(gateway)
    response = await gateway.http.post(
        f"/v1/games/{game.id}/moves",
        json={"move": game.created["legal_moves"][0]},
        headers=_raw_headers(game, b"If-Match", MALFORMED_TAGS[5]),
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("value", [b"garbage", b"\xb2", b"7" * 2000])
async def test_malformed_if_none_match_is_400(gateway: Gateway, value: bytes) -> None:
    game = await _game(gateway)
    response = await gateway.http.get(
        f"/v1/games/{game.id}", headers=_raw_headers(game, b"If-None-Match", value)
    )
    assert_problem(response, 400, "malformed-header")


@pytest.mark.parametrize("token", [b"to\xb2ken", b"a" * 1025, b"tok en", b'tok"en'])
async def test_malformed_bearer_token_is_400(gateway: Gateway, token: bytes) -> None:
    game = await _game(gateway)
    response = await gateway.http.get(
        f"/v1/games/{game.id}", headers=[(b"Authorization", b"Bearer " + token)]
    )
    assert_problem(response, 400, "malformed-header")


async def test_unknown_route_and_method(gateway: Gateway) -> None:
    assert_problem(await gateway.http.get("/v2/games"), 404, "not-found")
    assert_problem(await gateway.http.get("/v1/games/x/y/z"), 404, "not-found")
    wrong = await gateway.http.put("/v1/games")
    problem = assert_problem(wrong, 405, "method-not-allowed")
    assert wrong.headers["allow"] == "POST", problem
    game = await _game(gateway)
    wrong = await gateway.http.put(f"/v1/games/{game.id}", headers=game.auth())
    assert_problem(wrong, 405, "method-not-allowed")
    assert wrong.headers["allow"] == "DELETE, GET, PATCH"


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
async def test_a_body_that_is_not_json_is_415(gateway: Gateway, content_type: str) -> None:
    game = await _game(gateway)
    body = b'{"move": "deal"}'
    for path, headers in ((f"/v1/games/{game.id}/moves", game.auth()), ("/v1/games", {})):
        response = await gateway.http.post(
            path, content=body, headers={**headers, "Content-Type": content_type}
        )
        assert_problem(response, 415, "unsupported-media-type")
    response = await gateway.http.post(
        f"/v1/games/{game.id}/moves", content=body, headers=game.auth()
    )
    assert_problem(response, 415, "unsupported-media-type")  # no Content-Type at all
    assert (await gateway.history(game))["version"] == 1


async def test_duplicate_json_keys_are_400_on_every_route(gateway: Gateway) -> None:
    game = await _game(gateway)
    legal = game.created["legal_moves"][0]
    json_type = {"Content-Type": "application/json"}
    for path, headers, body in (
        # the move fast path, whichever value would win
        (f"/v1/games/{game.id}/moves", game.auth(), f'{{"move": "{legal}", "move": "t1-t1"}}'),
        (f"/v1/games/{game.id}/moves", game.auth(), f'{{"move": "t1-t1", "move": "{legal}"}}'),
        ("/v1/games", {}, '{"variant": "bisley", "deal": 1, "deal": 2}'),
        ("/v1/games", {}, '{"variant": "bisley", "options": [], "variant": "usk"}'),
    ):
        response = await gateway.http.post(
            path, content=body.encode(), headers={**headers, **json_type}
        )
        assert_problem(response, 400, "malformed-body")
    assert (await gateway.history(game))["version"] == 1


async def test_unexpected_failure_is_a_generic_500(gateway: Gateway) -> None:
    game = await _game(gateway)
    service = gateway.app.state.services.games
    original = service.engine

    class Exploding:
        async def player_view(self, state: object) -> object:
            raise RuntimeError("secret internals")

    service.engine = Exploding()
    try:
        response = await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth())
    finally:
        service.engine = original
    problem = assert_problem(response, 500, "internal")
    assert "secret internals" not in response.text and "RuntimeError" not in response.text
    assert problem["detail"]


async def test_problem_types_are_described(gateway: Gateway) -> None:
    response = await gateway.http.get("/problems/illegal-move")
    assert response.status_code == 200
    assert response.json()["status"] == 422
    assert_problem(await gateway.http.get("/problems/nonsense"), 404, "not-found")
