"""Statistics computed by the service from finished games, each counted exactly once:
under retried requests, racing requests, an entry applied twice, a gateway that died
between a game's end and its count, PostgreSQL stopped while games end, and games left
until they count as abandoned (real PostgreSQL and Redis)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from patience_gateway.games import change
from patience_gateway.records import repository, statistics
from patience_gateway.records.entries import ENDED, STARTED, Entry, GameFacts
from patience_gateway.records.outbox import AbandonResult
from patience_gateway.records.record import OUTCOMES, GameRecord
from patience_gateway.storage.database import Database
from patience_gateway.storage.outbox import PENDING_KEY
from patience_gateway.storage.schema import upgrade
from patience_launcher.postgres_server import EmbeddedPostgres

from tests.gateway.helpers import Gateway, assert_problem
from tests.gateway.players import (
    Session,
    bisley_win,
    drained,
    eventually,
    my_games,
    my_statistics,
    new_game,
    new_player,
    one_move_in,
    play,
    play_until_stuck,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def win_as(gateway: Gateway, player: Session) -> str:
    deal, moves = bisley_win()
    game = await new_game(gateway, player, "bisley", deal=deal)
    won = await play(gateway, game, moves)
    assert won["record"]["outcome"] == "won"
    return game.id


async def test_statistics_follow_the_games_a_player_finishes(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway)
    await win_as(records_gateway, player)
    await win_as(records_gateway, player)
    stuck = await new_game(records_gateway, player, "bisley")
    await play_until_stuck(records_gateway, stuck, seed=1)
    resigned, stuck_on_the_way = await one_move_in(records_gateway, player)
    answer = await records_gateway.http.post(
        f"/v1/games/{resigned.id}/resign", headers=player.auth()
    )
    assert answer.status_code == 200, answer.text
    # deleted without a move: a random deal counts from its deal (played, not won)
    untouched = await new_game(records_gateway, player, "bisley")
    await records_gateway.http.delete(f"/v1/games/{untouched.id}", headers=player.auth())
    left, also_stuck = await one_move_in(records_gateway, player)  # deleted after a move
    stuck_on_the_way += also_stuck
    await records_gateway.http.delete(f"/v1/games/{left.id}", headers=player.auth())
    await drained(records_gateway)
    figures = await my_statistics(records_gateway, player)
    practice = figures["bisley/practice"]
    assert (practice["played"], practice["won"], practice["clean_wins"]) == (2, 2, 2)
    assert practice["current_streak"] == practice["best_streak"] == 2
    assert practice["win_rate"] == 1.0 and practice["fewest_moves"] == len(bisley_win()[1])
    assert practice["best_time_seconds"] is not None
    random_deals = figures["bisley/random"]
    assert (random_deals["played"], random_deals["won"]) == (4 + stuck_on_the_way, 0)
    assert (random_deals["lost"], random_deals["resigned"], random_deals["abandoned"]) == (
        1 + stuck_on_the_way,
        1,
        2,
    )
    assert random_deals["win_rate"] == 0.0 and random_deals["current_streak"] == 0
    listed = await my_games(records_gateway, player, "?state=finished")
    outcomes = sorted(g["record"]["outcome"] for g in listed["games"])
    stuck = ["stuck"] * (1 + stuck_on_the_way)
    assert outcomes == ["abandoned", "abandoned", "resigned", *stuck, "won", "won"]


async def test_a_win_retried_with_its_key_counts_once(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway)
    deal, moves = bisley_win()
    game = await new_game(records_gateway, player, "bisley", deal=deal)
    await play(records_gateway, game, moves[:-1])
    for _ in range(3):  # the last move, sent again and again with its key
        response = await records_gateway.move(game, moves[-1], if_match=False, key="last-move")
        assert response.status_code == 200
    await drained(records_gateway)
    assert (await my_statistics(records_gateway, player))["bisley/practice"]["won"] == 1


async def test_racing_requests_end_a_game_once(records_gateway: Gateway) -> None:
    player = await new_player(records_gateway)
    deal, moves = bisley_win()
    game = await new_game(records_gateway, player, "bisley", deal=deal)
    await play(records_gateway, game, moves[:-1])

    async def finish() -> int:
        response = await records_gateway.http.post(
            f"/v1/games/{game.id}/moves", json={"move": moves[-1]}, headers=player.auth()
        )
        return response.status_code

    statuses = await asyncio.gather(*(finish() for _ in range(6)))
    assert statuses.count(200) == 1, statuses
    await drained(records_gateway)
    figures = (await my_statistics(records_gateway, player))["bisley/practice"]
    assert (figures["played"], figures["won"]) == (1, 1)


async def test_an_entry_applied_twice_counts_once(
    records_gateway: Gateway, database_url: str
) -> None:
    player = await new_player(records_gateway)
    drain = records_gateway.app.state.services.drain
    outbox = records_gateway.app.state.services.games.outbox
    deal, moves = bisley_win()
    game = await new_game(records_gateway, player, "bisley", deal=deal)
    await drained(records_gateway)
    await play(records_gateway, game, moves)
    entries = await outbox.entries(game.id, 10)
    assert [Entry.decode(e.entry).kind for e in entries] == [ENDED]
    await drained(records_gateway)
    database = Database(database_url)
    try:
        for item in entries:  # as a drain that died before Redis forgot the entry would
            async with database.transaction() as connection:
                applied = await repository.apply_entry(
                    connection,
                    Entry.decode(item.entry),
                    item.history,
                    item.dealt,
                    drain.settings.abandon_after,
                )
            assert applied is False
    finally:
        await database.close()
    assert (await my_statistics(records_gateway, player))["bisley/practice"]["won"] == 1


async def test_an_end_whose_announcement_was_lost_is_found_and_counted_once(
    records_gateway: Gateway, redis: Any
) -> None:
    """A gateway killed between a game's last script (the entry written) and its
    announcement: the sweep finds the outbox."""
    player = await new_player(records_gateway)
    games = records_gateway.app.state.services.games
    outbox = games.outbox
    games.outbox = None  # this gateway announces nothing, as if it died right after
    try:
        await win_as(records_gateway, player)
    finally:
        games.outbox = outbox
    await drained(records_gateway)
    assert "bisley/practice" not in await my_statistics(records_gateway, player)
    assert await outbox.sweep() >= 1
    await drained(records_gateway)
    assert (await my_statistics(records_gateway, player))["bisley/practice"]["won"] == 1
    assert await outbox.sweep() == 0  # nothing left behind
    assert await redis.zscore(PENDING_KEY, "x") is None


async def test_games_end_while_postgresql_is_down_and_count_once_it_is_back(
    records_gateway: Gateway, postgres_server: EmbeddedPostgres
) -> None:
    player = await new_player(records_gateway)
    deal, moves = bisley_win()
    games = [await new_game(records_gateway, player, "bisley", deal=deal) for _ in range(3)]
    await drained(records_gateway)
    postgres_server.halt()
    try:
        for game in games:  # moves never wait on PostgreSQL
            assert (await play(records_gateway, game, moves))["status"] == "won"
        answer = await records_gateway.http.get("/v1/players/me/stats", headers=player.auth())
        assert_problem(answer, 503, "records-unavailable")
        assert answer.headers["retry-after"] == "1"
        assert_problem(await records_gateway.http.post("/v1/players"), 503, "records-unavailable")
    finally:
        postgres_server.start()

    async def counted() -> bool:
        answer = await records_gateway.http.get("/v1/players/me/stats", headers=player.auth())
        if answer.status_code != 200:
            return False
        figures = {f"{s['variant']}/{s['category']}": s for s in answer.json()["statistics"]}
        return figures.get("bisley/practice", {}).get("won") == 3

    await eventually(counted, what="the three wins reaching the statistics")
    await drained(records_gateway)
    assert (await my_statistics(records_gateway, player))["bisley/practice"]["played"] == 3


async def test_the_drain_judges_abandonment_by_the_records_clock(
    records_gateway: Gateway,
) -> None:
    """The drain's look for abandoned games reads the records' clock once and leaves it
    where it is: a game is due by that clock, not the wall's, and a test's records are
    the same whenever the drain happens to look."""
    player = await new_player(records_gateway)
    clock = records_gateway.app.state.services.games.clock
    game, _ = await one_move_in(records_gateway, player)
    await drained(records_gateway)
    before = clock.now_ms
    await records_gateway.app.state.services.drain.check_abandoned()
    assert clock.now_ms == before
    view = await records_gateway.http.get(f"/v1/games/{game.id}", headers=player.auth())
    assert view.json()["record"]["outcome"] is None


async def test_a_game_left_alone_ends_abandoned(gateway_of_its_own_database: Gateway) -> None:
    records_gateway = gateway_of_its_own_database  # its clock goes a week ahead
    player = await new_player(records_gateway)
    games = records_gateway.app.state.services.games
    drain = records_gateway.app.state.services.drain
    left, stuck_on_the_way = await one_move_in(records_gateway, player)
    still_legal = (await records_gateway.view(left))["legal_moves"][0]
    await drained(records_gateway)
    abandon_after = drain.settings.abandon_after
    # the game's last change is a day older than the limit, by the records' clock
    games.clock.now_ms += int((abandon_after + timedelta(days=1)).total_seconds() * 1000)
    fresh, also_stuck = await one_move_in(records_gateway, player)  # changed just now
    await drained(records_gateway)
    # the game changed since the drain last read PostgreSQL is judged by its own record
    fresh_check = await change.abandon(games, fresh.id, abandon_after, games.clock.read())
    assert fresh_check.outcome == AbandonResult.LATER
    # the drain judges every game due at its own reading of the records' clock (the
    # drain in the background may have looked first: the outcome below is what counts)
    await drain.check_abandoned()
    await drained(records_gateway)
    view = await records_gateway.http.get(f"/v1/games/{left.id}", headers=player.auth())
    assert view.json()["record"]["outcome"] == "abandoned"
    assert view.json()["legal_moves"] == []
    moved = await records_gateway.move(left, still_legal, if_match=False)
    assert_problem(moved, 409, "game-over")
    still = await records_gateway.http.get(f"/v1/games/{fresh.id}", headers=player.auth())
    assert still.json()["record"]["outcome"] is None
    figures = (await my_statistics(records_gateway, player))["bisley/random"]
    stuck = stuck_on_the_way + also_stuck  # each a game lost
    assert (figures["played"], figures["abandoned"], figures["lost"]) == (1 + stuck, 1, stuck)


# ---------------------------------------------------------------- a recount


def random_records(player: str, count: int, seed: int) -> Iterator[Entry]:
    """`count` finished games of one player over three variants and categories, with
    random outcomes, counts and times (ending in no particular order)."""
    chooser = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n in range(count):
        created = start + timedelta(seconds=chooser.randrange(10_000_000))
        moves = chooser.choice([0, 0, *range(1, 300)])
        outcome = chooser.choice(OUTCOMES)
        created_ms = int(created.timestamp() * 1000)
        finished_ms = created_ms + chooser.randrange(1, 3_600_000)
        record = GameRecord(
            created_ms=created_ms,
            last_change_ms=finished_ms,
            first_move_ms=created_ms + 1 if moves else None,
            finished_ms=finished_ms,
            active_ms=chooser.randrange(1, 600_000),
            moves=moves,
            undos=chooser.choice([0, 0, 0, 1, 2]),
            outcome=outcome,
            hints=chooser.choice([0, 0, 0, 1]),
        )
        facts = GameFacts(
            f"g{seed}-{n:05d}",
            player,
            chooser.choice(["bisley", "usk", "cody"]),
            [],
            chooser.choice(["random", "winnable", "practice"]),
            None,
        )
        yield Entry(ENDED, facts, record)


def expected_figures(entries: list[Entry]) -> dict[tuple[str, str], dict[str, Any]]:
    """The statistics written out once more, plainly, from the games themselves."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    ordered = sorted(entries, key=lambda e: (e.record.finished_ms, e.facts.game_id))
    for entry in ordered:
        record = entry.record
        # a ranked game counts from its deal; practice left without a move does not
        if (
            entry.facts.category == "practice"
            and record.outcome == "abandoned"
            and not record.moves
        ):
            continue
        key = (entry.facts.variant, entry.facts.category)
        f = out.setdefault(
            key,
            {
                "played": 0,
                "won": 0,
                "lost": 0,
                "resigned": 0,
                "abandoned": 0,
                "clean": 0,
                "run": 0,
                "best_run": 0,
                "best_time": None,
                "fewest": None,
            },
        )
        f["played"] += 1
        if record.outcome == "won":
            f["won"] += 1
            f["clean"] += int(record.undos == 0 and record.hints == 0)
            f["run"] += 1
            f["best_run"] = max(f["best_run"], f["run"])
            f["best_time"] = min(x for x in (f["best_time"], record.active_ms) if x is not None)
            f["fewest"] = min(x for x in (f["fewest"], record.moves) if x is not None)
        else:
            f["run"] = 0
            f["lost"] += int(record.outcome in ("stuck", "proven-lost"))
            f["resigned"] += int(record.outcome == "resigned")
            f["abandoned"] += int(record.outcome == "abandoned")
    return out


async def test_statistics_of_a_thousand_games_equal_a_recount(database_of_its_own: str) -> None:
    """1,000 finished games applied in a random order, some twice (a drain that died
    after PostgreSQL committed), some begun first: the stored figures equal a plain
    recount of the games, and the recount from the stored rows. (In a database of its
    own: its player's wins would lead every board the other tests read.)"""
    database_url = database_of_its_own
    await asyncio.to_thread(upgrade, database_url)
    player = f"recount-{random.randrange(10**9):09d}xx"[:22]
    entries = list(random_records(player, 1000, seed=7))
    order = entries + random.Random(1).sample(entries, 150)
    random.Random(2).shuffle(order)
    database = Database(database_url)
    try:
        async with database.transaction() as connection:
            await connection.execute("INSERT INTO players (id) VALUES (%s)", (player,))
        for entry in random.Random(3).sample(entries, 100):  # some began through the outbox
            async with database.transaction() as connection:
                started = Entry(STARTED, entry.facts, replace(entry.record, finished_ms=None))
                await repository.apply_entry(connection, started, [], b"", timedelta(days=6))
        applied = 0
        for entry in order:
            async with database.transaction() as connection:
                applied += await repository.apply_entry(
                    connection, entry, ["t1-f1"], b"", timedelta(days=6)
                )
        assert applied == 1000
        async with database.transaction() as connection:
            stored = await repository.statistics_of(connection, player)
            recounted = {
                (row.variant, row.category): statistics.recount(
                    await repository.finished_games(connection, player, row.variant, row.category)
                )
                for row in stored
            }
    finally:
        await database.close()
    plain = expected_figures(entries)
    assert {(row.variant, row.category) for row in stored} == set(plain)
    for row in stored:
        figures, wanted = row.figures, plain[(row.variant, row.category)]
        assert figures == recounted[(row.variant, row.category)]
        assert (
            figures.played,
            figures.won,
            figures.lost,
            figures.resigned,
            figures.abandoned,
            figures.clean_wins,
            figures.current_streak,
            figures.best_streak,
            figures.best_time_ms,
            figures.fewest_moves,
        ) == (
            wanted["played"],
            wanted["won"],
            wanted["lost"],
            wanted["resigned"],
            wanted["abandoned"],
            wanted["clean"],
            wanted["run"],
            wanted["best_run"],
            wanted["best_time"],
            wanted["fewest"],
        )


async def test_the_rows_keep_each_finished_games_moves_and_deal(
    records_gateway: Gateway, database_url: str
) -> None:
    player = await new_player(records_gateway)
    game_id = await win_as(records_gateway, player)
    await drained(records_gateway)
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        row = await (
            await connection.execute(
                "SELECT history, deal, deal_state IS NOT NULL, outcome, clean FROM games "
                "WHERE id = %s",
                (game_id,),
            )
        ).fetchone()
    assert row is not None
    history, deal, has_state, outcome, clean = row
    assert history == list(bisley_win()[1]) and deal == str(bisley_win()[0])
    assert has_state and outcome == "won" and clean is True
