"""Daily deals and the boards in the web client: today's deals listed with the time left
and the player's attempt; the day's deal played like any game, its record saying which
day it is and no deal number shown while it is in play; the day's board listing the
player (its row marked) once the game is over; the wins and streak boards with the top
ten and the players around the player's own place."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx
import psycopg
import pytest
from patience_gateway.records import days
from patience_gateway.records.leaderboards import ALL_TIME, streaks_name, week_of, wins_name
from playwright.async_api import Locator, expect

from tests.web.conftest import DAILY_VARIANTS, forget_boards, forget_game
from tests.web.play_page import PlayPage, Tabs

pytestmark = pytest.mark.xdist_group("browser")

# Proving a day's deal winnable takes the engine a search or more per deal tried: the
# site proves them as it starts, while the first tests run.
READY_MS = 120_000
NOT_TOLD = "\u2013"  # what a board shows for a figure the server does not tell


async def open_daily(page: PlayPage) -> Locator:
    await page.page.click("#daily-open")
    dialog = page.page.locator("#daily")
    await expect(dialog).to_be_visible()
    await expect(dialog).to_have_attribute("data-loaded", "true")
    return dialog


async def open_board(page: PlayPage, opener: str = "#board-open") -> Locator:
    await page.page.click(opener)
    return await board_loaded(page)


async def board_loaded(page: PlayPage) -> Locator:
    dialog = page.page.locator("#board")
    await expect(dialog).to_be_visible()
    await expect(dialog).to_have_attribute("data-loaded", "true")
    return dialog


async def close(page: PlayPage, dialog: Locator) -> None:
    await page.page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()


async def board_until(page: PlayPage, player: str, seconds: float = 30.0) -> Locator:
    """Opens the boards again and again (as they are now: the variant and kind chosen
    last) until the player's row shows: a game's end reaches the boards moments after
    it. The panel is left open."""
    dialog = page.page.locator("#board")
    row = dialog.locator(f'tr[data-player="{player}"]')
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        await open_board(page)
        if await row.count() > 0:
            return row
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"the player did not show on the board within {seconds} s")
        await close(page, dialog)
        await asyncio.sleep(0.25)


async def test_the_days_deal_is_played_and_the_days_board_lists_the_player(
    tabs: Tabs, site: str, redis_url: str
) -> None:
    tabs.expect_refusals(404)  # at the end, the game's history once gone from Redis
    page = await tabs.open()
    player = await page.player_id()
    assert player
    async with httpx.AsyncClient(base_url=site) as http:
        today = (await http.get("/v1/daily")).json()["day"]

    daily = await open_daily(page)
    await expect(page.page.get_by_role("dialog", name="Daily deals")).to_be_visible()
    rows = daily.locator("#daily-table tbody tr")
    await expect(rows).to_have_count(len(DAILY_VARIANTS))
    assert await daily.get_attribute("data-day") == today
    # the time left until the next day's deals, ticking
    clock = page.page.locator("#daily-day")
    await expect(clock).to_contain_text("left until the next day's deals")
    left = await clock.get_attribute("data-left")
    assert left is not None and 0 <= int(left) <= 86400
    await expect(clock).not_to_have_attribute("data-left", left, timeout=5_000)
    row = daily.locator('#daily-table tr[data-variant="bisley"]')
    await expect(row).to_contain_text("Bisley")
    await expect(row).to_have_attribute("data-attempt", "")
    play = row.locator('button[data-action="play"]')
    await expect(play).to_have_text("Play")
    # once the day's deal is proven (until then the list is read again and again)
    await expect(row).to_have_attribute("data-ready", "true", timeout=READY_MS)
    await expect(play).to_be_enabled()
    await expect(row).to_contain_text("Not played yet")

    await play.click()
    await expect(daily).to_be_hidden()
    await expect(page.table).to_have_attribute("data-variant", "bisley")
    await page.wait_version(1)
    view = await page.view()
    game = view["id"]
    assert view["deal"] is None
    assert view["record"]["daily"] == today and view["record"]["category"] == "daily"
    assert view["record"]["player"] == player
    assert await page.address() == f"#game={game}"
    # the record says it is the day's deal; no deal number shows, nor a stand-in for one
    shown = page.page.locator("#record-daily")
    await expect(shown).to_be_visible()
    await expect(shown).to_have_attribute("data-day", today)
    await expect(shown).to_contain_text("Daily deal of")
    status = page.page.locator("#status")
    await expect(status).to_contain_text("Bisley, the daily deal of")
    words = await status.inner_text() + await page.page.locator("#record").inner_text()
    assert not re.search(r"deal \d|deal #|random deal|deal \?|hidden", words), words
    await expect(page.page.locator("#deal")).to_have_value("")

    await page.click_move(view["legal_moves"][0])
    # the attempt shows in the day's list; another try would be practice
    daily = await open_daily(page)
    row = daily.locator('#daily-table tr[data-variant="bisley"]')
    await expect(row).to_have_attribute("data-attempt", game)
    await expect(row.locator('button[data-action="play"]')).to_have_text("Play again (practice)")
    await expect(row.locator('button[data-action="open"]')).to_be_visible()
    await close(page, daily)

    # over: resigned, and on the day's board (a first attempt with a move)
    await page.page.click("#resign")
    await page.page.click("#resign-yes")
    await page.wait_version(3)
    await expect(page.page.locator("#outcome")).to_contain_text("Resigned")
    await expect(shown).to_contain_text("Daily deal of")
    to_board = page.page.locator("#outcome-board")
    await expect(to_board).to_be_visible()
    await to_board.click()
    dialog = await board_loaded(page)
    await expect(page.page.locator("#board-variant")).to_have_value("bisley")
    await expect(page.page.locator("#board-kind")).to_have_value("daily")
    await close(page, dialog)
    mine = await board_until(page, player)
    await expect(mine.first).to_have_class(re.compile(r"\bme\b"))
    await expect(mine.first).to_have_attribute("aria-current", "true")
    await expect(mine.first).to_contain_text("(you)")
    await expect(mine.first).to_contain_text("Not won")
    rank = await mine.first.get_attribute("data-rank")
    summary = page.page.locator("#board-summary")
    await expect(summary).to_have_attribute("data-rank", rank or "")
    await expect(summary).to_contain_text("the board of")
    # just as the server has it
    async with httpx.AsyncClient(base_url=site) as http:
        board = (
            await http.get(
                "/v1/leaderboards/daily/bisley?top=10&around=2",
                headers={"Authorization": f"Bearer {await page.access_token()}"},
            )
        ).json()
    me = board["me"]
    assert me["player"] == player and str(me["rank"]) == rank and me["won"] is False
    cells = await mine.first.locator("th, td").all_inner_texts()
    # the moves and the time of a game not won: told (its one move), or not (a dash)
    assert cells[3:] == [
        NOT_TOLD if me["moves"] is None else str(me["moves"]),
        NOT_TOLD if me["active_seconds"] is None else cells[4],
    ], cells
    await close(page, page.page.locator("#board"))

    # and among the player's games and results, as a daily deal
    results = await page.statistics_until('tr[data-variant="bisley"][data-category="daily"]')
    await expect(results.locator("td").first).to_have_text("Daily deals")
    listed = page.panel.locator(f'#my-games li[data-game="{game}"]')
    await expect(listed).to_contain_text("Bisley, the daily deal of")
    await expect(listed.locator("button.game-replay")).to_be_visible()
    await page.close_statistics()

    # gone from play (as if it had expired) and replayed from its record: still no
    # number while the day runs, though the replay from PostgreSQL carries it
    await forget_game(redis_url, game)
    replay = await page.statistics_until(f'#my-games li[data-game="{game}"] button.game-replay')
    await replay.click()
    await expect(page.page.locator("#replay")).to_be_visible()
    await expect(page.table).to_have_attribute("data-replay", "1")
    await expect(status).to_contain_text("Replay of Bisley, the daily deal of")
    await expect(shown).to_have_attribute("data-day", today)
    number = await page.page.evaluate("window.patience.replaying.view.deal")
    words = await page.page.evaluate(
        "['#status', '#record', '#replay'].map(s => document.querySelector(s).innerText).join(' ')"
    )
    assert not re.search(r"deal \d|deal #|random deal", words), words
    assert number is None or number not in await page.page.locator("body").inner_text()


async def make_rivals(site: str, count: int) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=site) as http:
        made = []
        for n in range(count):
            answer = await http.post("/v1/players", json={"display_name": f"Rival {n + 1:02d}"})
            assert answer.status_code == 201, answer.text
            made.append(answer.json()["player"])
    return made


async def test_the_wins_and_streak_boards_show_the_top_and_the_players_around_me(
    tabs: Tabs, site: str, database_url: str, redis_url: str
) -> None:
    """Finished games written straight into PostgreSQL's records (as the drain leaves
    them) for a game nobody else finishes here: eleven players ahead of this one, so its
    place shows below the top ten, with its neighbours. The boards are then dropped from
    Redis (a board another test already built would not know of these rows), so the
    first read rebuilds them from PostgreSQL."""
    variant = "cody"
    page = await tabs.open()
    me = await page.player_id()
    assert me
    rivals = await make_rivals(site, 11)
    scores = {rival["id"]: 12 - n for n, rival in enumerate(rivals)} | {me: 1}
    async with await psycopg.AsyncConnection.connect(database_url) as connection:
        for player, count in scores.items():
            for n in range(count):
                await connection.execute(
                    "INSERT INTO games (id, player_id, variant, options, category, created_at, "
                    "last_change_at, finished_at, outcome, clean, winnable, moves) VALUES "
                    "(%s, %s, %s, '[]', 'random', now(), now(), now(), 'won', true, false, 50)",
                    (f"{player}-{n}", player, variant),
                )
            await connection.execute(
                "INSERT INTO statistics (player_id, variant, category, played, won, lost, "
                "resigned, abandoned, clean_wins, current_streak, best_streak, last_game_id) "
                "VALUES (%s, %s, 'random', %s, %s, 0, 0, 0, %s, %s, %s, '')",
                (player, variant, count, count, count, count, count),
            )

    await forget_boards(
        redis_url,
        wins_name(variant, ALL_TIME),
        wins_name(variant, week_of(days.today())),
        streaks_name(variant),
    )
    await page.page.select_option("#variant", variant)
    dialog = await open_board(page)
    await expect(page.page.get_by_role("dialog", name="Boards")).to_be_visible()
    await expect(page.page.locator("#board-variant")).to_have_value(variant)
    headers = {"Authorization": f"Bearer {await page.access_token()}"}
    for kind, path, period, heading in (
        ("wins-all", "wins", "all", "Wins"),
        ("wins-week", "wins", "week", "Wins this week"),
        ("streaks", "streaks", None, "Best streak"),
    ):
        await page.page.select_option("#board-kind", kind)
        await expect(dialog).to_have_attribute("data-kind", kind)
        await expect(dialog).to_have_attribute("data-loaded", "true")
        top = dialog.locator("#board-top tbody tr")
        await expect(top).to_have_count(10)
        await expect(dialog.locator("#board-top thead")).to_contain_text(heading)
        names = await top.locator("th").all_inner_texts()
        assert names == [f"Rival {n:02d}" for n in range(1, 11)], (kind, names)
        await expect(top.first.locator("td").last).to_have_text("12")
        assert await dialog.locator("#board-top tr.me").count() == 0
        # the player's own place, out of the top, with the players around it
        around = dialog.locator("#board-around tbody tr")
        await expect(dialog.locator("#board-around-section")).to_be_visible()
        await expect(around).to_have_count(3)
        ranks = await around.evaluate_all("rows => rows.map(r => r.dataset.rank)")
        assert ranks == ["10", "11", "12"], (kind, ranks)
        own = dialog.locator("#board-around tr.me")
        await expect(own).to_have_count(1)
        await expect(own).to_have_attribute("data-player", me)
        await expect(own).to_have_attribute("aria-current", "true")
        await expect(own).to_contain_text("(you)")
        await expect(page.page.locator("#board-summary")).to_contain_text(
            "12 players on this board. You are 12th."
        )
        # just as the server has it
        query: dict[str, str | int] = {"top": 10, "around": 2}
        if period:
            query["period"] = period
        async with httpx.AsyncClient(base_url=site, headers=headers) as http:
            answer = await http.get(f"/v1/leaderboards/{path}/{variant}", params=query)
        assert answer.status_code == 200, answer.text
        board = answer.json()
        shown = await top.evaluate_all("rows => rows.map(r => r.dataset.player)")
        assert shown == [row["player"] for row in board["top"]]
        assert board["me"]["rank"] == 12 and board["me"]["score"] == 1
    await close(page, dialog)
    await expect(page.page.locator("#board-open")).to_be_focused()
