"""The game's record on every view (times, active time, counts, outcome, clean),
restart, resign and claim, and a player's list of games (against the suite's real
PostgreSQL and Redis; the records' clock is the test gateway's SteadyClock: a second
later at each change)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.gateway.helpers import GameHandle, Gateway, assert_problem
from tests.gateway.players import (
    bisley_win,
    drained,
    my_games,
    new_game,
    new_player,
    play,
    play_until_stuck,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


def record(body: dict[str, Any]) -> dict[str, Any]:
    value: dict[str, Any] = body["record"]
    return value


async def step(gateway: Gateway, game: GameHandle, route: str) -> dict[str, Any]:
    response = await gateway.http.post(
        f"/v1/games/{game.id}/{route}", headers={**game.auth(), "If-Match": game.etag}
    )
    assert response.status_code == 200, response.text
    game.follow(response)
    body: dict[str, Any] = response.json()
    return body


async def test_a_new_game_has_a_fresh_record(records_gateway: Gateway) -> None:
    game = await records_gateway.create("usk", deal=4)
    fresh = record(game.created)
    assert fresh["first_move"] is None and fresh["finished"] is None
    assert fresh["created"] == fresh["last_change"] and fresh["created"].endswith("Z")
    assert fresh["active_seconds"] == 0 and fresh["outcome"] is None and fresh["clean"] is None
    assert {fresh[k] for k in ("moves", "undos", "redos", "hints", "autoplays", "restarts")} == {0}
    assert fresh["category"] == "practice"  # a deal number chosen
    assert fresh["player"] is None and fresh["winnable"] is False
    random_deal = await records_gateway.create("usk")
    assert record(random_deal.created)["category"] == "random"


async def test_every_kind_of_change_counts_in_the_record(records_gateway: Gateway) -> None:
    game = await records_gateway.create("napoleon-at-st-helena", deal=12)
    first = await play(records_gateway, game, ["deal"])
    assert record(first)["moves"] == 1 and record(first)["deals"] == 1
    assert record(first)["first_move"] == record(first)["last_change"]
    undone = await step(records_gateway, game, "undo")
    redone = await step(records_gateway, game, "redo")
    assert (record(undone)["undos"], record(redone)["redos"]) == (1, 1)
    assert record(redone)["moves"] == 1  # a redo is not a move made
    assert undone["counters"]["position"] == 0 and redone["counters"]["position"] == 1
    hint = await records_gateway.http.get(f"/v1/games/{game.id}/hint", headers=game.auth())
    assert hint.status_code == 200 and hint.json()["kind"] != "lost"
    view = await records_gateway.view(game)
    assert record(view)["hints"] == 1
    assert view["outlook"] == "open"  # a hint that proves nothing leaves the outlook
    restarted = await step(records_gateway, game, "restart")
    assert record(restarted)["restarts"] == 1 and restarted["counters"]["position"] == 0
    # each change a second after the last (the test clock), each gap counted
    assert record(restarted)["active_seconds"] == 4.0


async def test_a_gap_counts_up_to_five_minutes(records_gateway: Gateway) -> None:
    game = await records_gateway.create("bisley", deal=2)
    clock = records_gateway.app.state.services.games.clock
    clock.now_ms += 3_600_000  # an hour away from the table
    moved = await play(records_gateway, game, [game.created["legal_moves"][0]])
    assert record(moved)["active_seconds"] == 300.0


async def test_a_clean_win_and_its_record(records_gateway: Gateway) -> None:
    deal, moves = bisley_win()
    game = await records_gateway.create("bisley", deal=deal)
    won = await play(records_gateway, game, moves)
    assert won["status"] == "won"
    closed = record(won)
    assert closed["outcome"] == "won" and closed["clean"] is True
    assert closed["finished"] == closed["last_change"] and closed["moves"] == len(moves)
    # undo after the end is allowed; the record stays as it closed
    undone = await step(records_gateway, game, "undo")
    assert record(undone) == closed


async def test_a_hint_or_an_undo_makes_a_win_not_clean(records_gateway: Gateway) -> None:
    deal, moves = bisley_win()
    game = await records_gateway.create("bisley", deal=deal)
    await play(records_gateway, game, moves[:3])
    await step(records_gateway, game, "undo")
    won = await play(records_gateway, game, moves[2:])
    assert record(won)["outcome"] == "won" and record(won)["clean"] is False
    hinted = await records_gateway.create("bisley", deal=deal)
    await records_gateway.http.get(f"/v1/games/{hinted.id}/hint", headers=hinted.auth())
    won = await play(records_gateway, hinted, moves)
    assert record(won)["clean"] is False and record(won)["hints"] == 1


async def test_a_stuck_game_closes_its_record(records_gateway: Gateway) -> None:
    game = await records_gateway.create("bisley", deal=21)
    stuck = await play_until_stuck(records_gateway, game, seed=3)
    assert stuck["status"] == "stuck" and record(stuck)["outcome"] == "stuck"
    assert record(stuck)["clean"] is None


async def test_restart_is_one_change_that_undo_takes_back(records_gateway: Gateway) -> None:
    game = await records_gateway.create("la-belle-lucie", deal=7)
    legal = game.created["legal_moves"]
    played = await play(records_gateway, game, [legal[0]])
    played = await play(records_gateway, game, [played["legal_moves"][0]])
    restarted = await step(records_gateway, game, "restart")
    dealt = game.created
    assert restarted["piles"] == dealt["piles"] and restarted["counters"]["position"] == 0
    assert_problem(
        await records_gateway.http.post(f"/v1/games/{game.id}/restart", headers=game.auth()),
        409,
        "nothing-to-restart",
    )
    undone = await step(records_gateway, game, "undo")
    assert undone["piles"] == played["piles"]
    redone = await step(records_gateway, game, "redo")
    assert redone["piles"] == dealt["piles"]
    # moves after a restart, then undo: replayed from the deal
    after = await play(records_gateway, game, [redone["legal_moves"][0]])
    again = await play(records_gateway, game, [after["legal_moves"][0]])
    back = await step(records_gateway, game, "undo")
    assert back["piles"] == after["piles"] and again["piles"] != back["piles"]
    history = await records_gateway.history(game)
    assert history["moves"][:3] == [legal[0], played["move"]["notation"], "restart"]


async def test_restart_after_a_random_deal_ended_makes_it_an_open_game(
    records_gateway: Gateway,
) -> None:
    game = await records_gateway.create("bisley")
    stuck = await play_until_stuck(records_gateway, game, seed=5)
    assert stuck["deal"] is not None  # shown at the end
    restarted = await step(records_gateway, game, "restart")
    assert restarted["deal"] == stuck["deal"] and restarted["replayed"] is True


async def test_resign_ends_the_game_and_takes_no_more_changes(records_gateway: Gateway) -> None:
    game = await records_gateway.create("bisley", deal=14)
    await play(records_gateway, game, [game.created["legal_moves"][0]])
    resigned = await step(records_gateway, game, "resign")
    assert record(resigned)["outcome"] == "resigned" and record(resigned)["finished"]
    for route in ("undo", "restart", "autoplay", "resign"):
        response = await records_gateway.http.post(
            f"/v1/games/{game.id}/{route}", headers=game.auth()
        )
        assert_problem(response, 409, "game-over")
    assert resigned["legal_moves"] == []  # nothing to play any more
    move = await records_gateway.move(game, game.created["legal_moves"][1], if_match=False)
    assert_problem(move, 409, "game-over")
    view = await records_gateway.view(game)
    assert record(view)["outcome"] == "resigned"
    # a game given up has nothing to hint, and the record is closed: not counted
    hint = await records_gateway.http.get(f"/v1/games/{game.id}/hint", headers=game.auth())
    assert hint.status_code == 200, hint.text
    assert (hint.json()["kind"], hint.json()["move"], hint.json()["positions"]) == ("none", None, 0)
    assert record(await records_gateway.view(game))["hints"] == record(view)["hints"] == 0


async def test_resigning_a_game_proven_lost_is_a_loss_not_giving_up(
    records_gateway: Gateway,
) -> None:
    game = await records_gateway.create("bisley", deal=21)
    await play_until_stuck(records_gateway, game, seed=3)
    # stuck: already closed, nothing to resign
    assert_problem(
        await records_gateway.http.post(f"/v1/games/{game.id}/resign", headers=game.auth()),
        409,
        "game-over",
    )
    other = await records_gateway.create("bisley", deal=31)
    await records_gateway.app.state.services.games.store.after_hint(
        other.id, int(other.etag.strip('"')), lost=True, count=False, plan=b""
    )  # as a hint that proved the game lost would
    resigned = await step(records_gateway, other, "resign")
    assert record(resigned)["outcome"] == "proven-lost"


async def test_a_stale_resign_is_refused(records_gateway: Gateway) -> None:
    game = await records_gateway.create("bisley", deal=15)
    old = game.etag
    await play(records_gateway, game, [game.created["legal_moves"][0]])
    response = await records_gateway.http.post(
        f"/v1/games/{game.id}/resign", headers={**game.auth(), "If-Match": old}
    )
    assert_problem(response, 412, "stale-version")
    assert record(await records_gateway.view(game))["outcome"] is None


# ---------------------------------------------------------------- claims


async def test_an_anonymous_game_is_claimed_by_a_player(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway)
    game = await records_gateway.create("usk", deal=3)
    await play(records_gateway, game, [game.created["legal_moves"][0]])
    claimed = await records_gateway.http.post(
        f"/v1/games/{game.id}/claim", json={"token": game.token}, headers=player.auth()
    )
    assert claimed.status_code == 200, claimed.text
    assert record(claimed.json())["player"] == player.player_id
    assert record(claimed.json())["category"] == "practice"
    # the game token opens it no more; the player's access token does
    assert_problem(
        await records_gateway.http.get(f"/v1/games/{game.id}", headers=game.auth()),
        403,
        "bad-token",
    )
    mine = await records_gateway.http.get(f"/v1/games/{game.id}", headers=player.auth())
    assert mine.status_code == 200
    again = await records_gateway.http.post(
        f"/v1/games/{game.id}/claim", json={"token": game.token}, headers=player.auth()
    )
    assert_problem(again, 403, "bad-token")  # the game token opens it no more
    await drained(records_gateway)
    listed = await my_games(records_gateway, player)
    assert [g["id"] for g in listed["games"]] == [game.id]


async def test_claims_that_must_fail(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway)
    game = await records_gateway.create("usk", deal=3)
    path = f"/v1/games/{game.id}/claim"
    wrong = await records_gateway.http.post(path, json={"token": "x" * 43}, headers=player.auth())
    assert_problem(wrong, 403, "bad-token")
    anonymous = await records_gateway.http.post(
        path, json={"token": game.token}, headers=game.auth()
    )
    assert_problem(anonymous, 401, "invalid-token")
    nobody = await records_gateway.http.post(path, json={"token": game.token})
    assert_problem(nobody, 401, "missing-token")
    unknown = await records_gateway.http.post(
        "/v1/games/" + "A" * 24 + "/claim", json={"token": game.token}, headers=player.auth()
    )
    assert_problem(unknown, 404, "unknown-game")
    deal, moves = bisley_win()
    won = await records_gateway.create("bisley", deal=deal)
    await play(records_gateway, won, moves)
    late = await records_gateway.http.post(
        f"/v1/games/{won.id}/claim", json={"token": won.token}, headers=player.auth()
    )
    assert_problem(late, 409, "game-over")


# ---------------------------------------------------------------- the list


async def test_a_players_list_shows_its_games_newest_first_with_filters_and_pages(
    records_gateway: Gateway,
) -> None:
    player = await new_player(records_gateway)
    stranger = await new_player(records_gateway)
    await new_game(records_gateway, stranger, "usk", deal=1)
    games = [
        await new_game(records_gateway, player, v, deal=n)
        for n, v in enumerate(["usk", "bisley", "usk", "cody", "bisley"])
    ]
    deal, moves = bisley_win()
    finished = await new_game(records_gateway, player, "bisley", deal=deal)
    await play(records_gateway, finished, moves)
    await drained(records_gateway)
    listed = await my_games(records_gateway, player)
    ids = [g["id"] for g in listed["games"]]
    assert ids == [finished.id, *[g.id for g in reversed(games)]]
    assert listed["next"] is None
    playing = await my_games(records_gateway, player, "?state=playing")
    assert finished.id not in [g["id"] for g in playing["games"]]
    done = await my_games(records_gateway, player, "?state=finished")
    assert [g["id"] for g in done["games"]] == [finished.id]
    assert done["games"][0]["record"]["outcome"] == "won"
    assert done["games"][0]["deal"] == str(deal)
    usk = await my_games(records_gateway, player, "?variant=usk")
    assert [g["id"] for g in usk["games"]] == [games[2].id, games[0].id]
    # pages of two, following `next`, give the same list
    seen: list[str] = []
    query = "?limit=2"
    while True:
        page = await my_games(records_gateway, player, query)
        seen += [g["id"] for g in page["games"]]
        if page["next"] is None:
            break
        query = "?" + page["next"].split("?", 1)[1]
    assert seen == ids


async def test_a_games_record_in_the_list_is_fresh_while_it_is_played(
    records_gateway: Gateway,
) -> None:
    player = await new_player(records_gateway)
    game = await new_game(records_gateway, player, "usk", deal=8)
    await drained(records_gateway)
    await play(records_gateway, game, [game.created["legal_moves"][0]])
    listed = await my_games(records_gateway, player)
    assert listed["games"][0]["record"]["moves"] == 1


@pytest.mark.parametrize(
    "query",
    ["?cursor=not-a-cursor", "?limit=0", "?limit=101", "?state=lost", "?cursor=" + "x" * 300],
)
async def test_bad_list_queries_are_refused(records_gateway: Gateway, query: str) -> None:
    player = await new_player(records_gateway)
    response = await records_gateway.http.get(f"/v1/players/me/games{query}", headers=player.auth())
    assert response.status_code in (400, 422), response.text
    assert response.headers["content-type"] == "application/problem+json"


async def test_undo_and_redo_of_a_players_game_keep_its_settings_and_record(
    records_gateway: Gateway,
) -> None:
    """Undo and redo read the game back with everything kept beside its state: its
    owner (the player's token still opens it), its autoplay setting, the hints counted,
    its deal."""
    player = await new_player(records_gateway)
    game = await new_game(records_gateway, player, "napoleon-at-st-helena", deal=12)
    patched = await records_gateway.autoplay_on(game)
    assert patched.status_code == 200, patched.text
    game.follow(patched)
    hint = await records_gateway.http.get(f"/v1/games/{game.id}/hint", headers=game.auth())
    assert hint.status_code == 200, hint.text
    await play(records_gateway, game, ["deal"])
    for route in ("undo", "redo", "undo"):
        body = await step(records_gateway, game, route)
        assert (body["autoplay"], body["deal"], record(body)["hints"]) == (True, "12", 1), route
        history = await records_gateway.history(game)
        assert (history["deal"], history["position"]) == ("12", body["counters"]["position"])
    listed = await my_games(records_gateway, player)
    assert [g["id"] for g in listed["games"]] == [game.id]
