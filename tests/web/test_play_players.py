"""The web client's player: made on the first visit and kept across reloads, the games it
deals are the player's, the record shown as the game is played (moves, time, outcome),
restart and resign, the Statistics panel (a won game in the results and in My games, a
game in play resumed from there, pages of games, all by keyboard), an expired access
token renewed, a refused refresh token replaced by a new player, a second browser
linked with a code, an old address with an anonymous game's token (and keeping that
game), and anonymous games when the server keeps no players."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Route, expect

from tests.gateway.helpers import PLAYER_KEY, load_wins
from tests.gateway.players import signed_token
from tests.web.play_page import PlayPage, Tabs, browsing

pytestmark = pytest.mark.xdist_group("browser")

WINS = {win.variant: win for win in load_wins()}
REFRESH_KEY = "patience.refresh-token"


async def record(page: PlayPage) -> dict[str, Any]:
    view = await page.view()
    assert isinstance(view["record"], dict)
    return view["record"]


async def test_a_first_visit_makes_a_player_kept_across_reloads_whose_games_are_its_own(
    tabs: Tabs,
) -> None:
    page = await tabs.open()
    player = await page.player_id()
    assert player
    assert await page.page.evaluate(f"localStorage.getItem('{REFRESH_KEY}')")
    # the access token lives in memory only
    stored = await page.page.evaluate("JSON.stringify({...localStorage})")
    assert await page.access_token() not in stored
    await expect(page.page.locator("#stats-open")).to_be_visible()

    await page.new_game("bisley", 1)
    view = await page.view()
    assert view["record"]["player"] == player
    assert view["record"]["category"] == "practice"  # a deal number chosen
    assert await page.address() == f"#game={view['id']}"  # no token: the player opens it

    await page.page.reload()
    await expect(page.page.locator("body")).to_have_attribute("data-ready", "true")
    assert await page.player_id() == player
    await expect(page.table).to_have_attribute("data-variant", "bisley")
    await page.wait_version(1)
    assert (await page.view())["id"] == view["id"]

    other = await tabs.open()  # another tab of the same browser: the same player
    assert await other.player_id() == player

    await page.page.click("#new-random")
    await expect(page.page.locator("#deal")).to_have_value("")
    await page.page.wait_for_function(
        "id => window.patience.view && window.patience.view.id !== id", arg=view["id"]
    )
    fresh = await page.view()
    assert fresh["variant"] == "bisley" and fresh["deal"] is None
    assert fresh["record"]["player"] == player and fresh["record"]["category"] == "random"


async def test_the_record_shows_the_moves_and_the_time_as_the_game_is_played(tabs: Tabs) -> None:
    page = await tabs.open()
    win = WINS["bisley"]
    await page.new_game("bisley", win.deal)
    shown = page.page.locator("#record")
    await expect(shown).to_be_visible()
    await expect(page.page.locator("#record-moves")).to_have_text("0")
    for notation in win.moves[:3]:
        await page.click_move(notation)
    await expect(page.page.locator("#record-moves")).to_have_text("3")
    await expect(page.page.locator("#status")).to_contain_text("at move 3")
    # an undo takes a move back, but the moves made stay counted
    await page.undo()
    await expect(page.page.locator("#status")).to_contain_text("at move 2")
    await expect(page.page.locator("#record-moves")).to_have_text("3")
    assert (await page.view())["counters"]["position"] == 2
    assert (await record(page))["undos"] == 1
    # the time ticks between changes, from the server's count
    await expect(shown).to_have_attribute("data-seconds", re.compile(r"^[1-9]\d*$"))
    ticking = re.compile(r"^0:0[1-9]|^0:[1-5]\d")
    await expect(page.page.locator("#record-time")).to_have_text(ticking)
    await expect(page.page.locator("#record-outcome")).to_have_text("")


async def test_restart_and_resign(tabs: Tabs) -> None:
    page = await tabs.open()
    win = WINS["bisley"]
    await page.new_game("bisley", win.deal)
    restart, resign = page.page.locator("#restart"), page.page.locator("#resign")
    await expect(restart).to_be_disabled()  # at the deal
    dealt = await page.all_cards()
    for notation in win.moves[:2]:
        await page.click_move(notation)
    played = await page.all_cards()
    # another tab on the game hears of the restart and the resignation
    other = await tabs.open(await page.address())
    await other.wait_version(3)

    await restart.click()
    await page.wait_version(4)
    assert await page.all_cards() == dealt
    await other.wait_version(4)
    assert await other.all_cards() == dealt
    view = await page.view()
    assert view["counters"]["position"] == 0
    assert view["record"]["restarts"] == 1 and view["record"]["moves"] == 2
    await expect(restart).to_be_disabled()
    await page.undo()  # a restart is one change: undo takes it back
    assert await page.all_cards() == played

    # resign asks first: keeping on changes nothing
    await resign.click()
    question = page.page.locator("#resign-confirm")
    await expect(question).to_be_visible()
    await expect(page.page.locator("#resign-no")).to_be_focused()
    await page.page.click("#resign-no")
    await expect(question).to_be_hidden()
    await expect(resign).to_be_focused()
    assert await page.version() == 5
    await resign.click()
    await page.page.click("#resign-yes")
    await page.wait_version(6)
    outcome = page.page.locator("#outcome")
    await expect(outcome).to_be_visible()
    await expect(outcome).to_contain_text("Resigned")
    await expect(outcome).to_have_attribute("data-status", "resigned")
    await expect(page.page.locator("#record-outcome")).to_have_text("Resigned")
    for control in ("#undo", "#redo", "#restart", "#resign", "#hint", "#autoplay"):
        await expect(page.page.locator(control)).to_be_disabled()
    await expect(page.page.locator("#outcome-undo")).to_be_hidden()
    await expect(page.page.locator("#outcome-new")).to_be_focused()
    assert (await record(page))["outcome"] == "resigned"
    await other.wait_version(6)
    await expect(other.page.locator("#outcome")).to_contain_text("Resigned")
    await expect(other.page.locator("#undo")).to_be_disabled()
    # a press on the table does nothing now
    before = await page.all_cards()
    await page.pile("t1").click(position={"x": 5, "y": 5})
    assert await page.page.locator("#table .card.picked").count() == 0
    assert await page.version() == 6 and await page.all_cards() == before

    # a new random deal of the same game, from the outcome's button
    await page.page.click("#outcome-new")
    await page.page.wait_for_function(
        "id => window.patience.view && window.patience.view.id !== id", arg=view["id"]
    )
    await expect(outcome).to_be_hidden()
    await expect(page.page.locator("#record-moves")).to_have_text("0")


async def test_a_won_game_shows_in_the_statistics_and_in_my_games(tabs: Tabs) -> None:
    page = await tabs.open()
    win = WINS["bisley"]
    await page.new_game("bisley", win.deal)
    game = (await page.view())["id"]
    for notation in win.moves:
        await page.click_move(notation)
    outcome = page.page.locator("#outcome")
    await expect(outcome).to_contain_text("Won!")
    await expect(outcome).to_contain_text("A clean win")
    shown = page.page.locator("#record")
    await expect(shown).to_have_attribute("data-outcome", "won")
    await expect(shown).to_have_attribute("data-clean", "true")
    await expect(page.page.locator("#record-moves")).to_have_text(str(len(win.moves)))
    await expect(page.page.locator("#record-outcome")).to_have_text("Won, clean")
    seconds = (await record(page))["active_seconds"]

    row = await page.statistics_until('tr[data-variant="bisley"][data-category="practice"]')
    cells = await row.locator("th, td").all_inner_texts()
    assert cells[:8] == ["Bisley", "Chosen deals", "1", "1", "100%", "1", "1", "1"], cells
    assert cells[9] == str(len(win.moves))
    assert cells[8] == f"{int(seconds) // 60}:{int(seconds) % 60:02d}"
    listed = page.panel.locator(f'#my-games li[data-game="{game}"]')
    await expect(listed).to_have_attribute("data-outcome", "won")
    await expect(listed).to_contain_text("Bisley, deal 1")
    await expect(listed).to_contain_text("won, clean")
    await expect(listed).to_contain_text("on the table")
    await page.close_statistics()


async def test_the_statistics_panel_opens_reads_and_closes_by_keyboard(tabs: Tabs) -> None:
    page = await tabs.open()
    keys = page.page.keyboard
    opener = page.page.locator("#stats-open")
    for _ in range(40):
        if await opener.evaluate("n => n === document.activeElement"):
            break
        await keys.press("Tab")
    await expect(opener).to_be_focused()
    # the focus shows
    assert await opener.evaluate("n => getComputedStyle(n).outlineStyle") != "none"
    await keys.press("Enter")
    await page.statistics_loaded()
    dialog = page.page.get_by_role("dialog", name="Statistics")
    await expect(dialog).to_be_visible()
    await expect(page.page.locator("#stats-close")).to_be_focused()
    await expect(page.page.locator("#stats-empty")).to_be_visible()
    # Tab stays in the panel, and every control there is named and shows its focus
    names = set()
    for _ in range(12):
        await keys.press("Tab")
        focused = await page.page.evaluate(
            """() => {
                const n = document.activeElement;
                if (n === document.body) return null;
                const label = n.labels && n.labels.length ? n.labels[0].textContent : "";
                return {inside: Boolean(n.closest('#stats')), id: n.id,
                        name: (n.getAttribute('aria-label') || label || n.textContent).trim(),
                        outline: getComputedStyle(n).outlineStyle};
            }"""
        )
        if focused is None:  # the browser's own stop between the last and the first
            continue
        assert focused["inside"], focused
        assert focused["name"], focused
        assert focused["outline"] != "none", focused
        names.add(focused["name"])
    assert {"Close statistics", "Show a link code", "Code from another device"} <= names
    await keys.press("Escape")
    await expect(dialog).to_be_hidden()
    await expect(opener).to_be_focused()
    # S opens it too
    await keys.press("s")
    await page.statistics_loaded()
    await page.close_statistics()
    for control in ("#restart", "#resign", "#new-random", "#stats-open"):
        name = await page.page.locator(control).evaluate("n => n.textContent.trim()")
        assert name, control


async def test_a_game_in_play_is_resumed_from_my_games_which_come_in_pages(
    tabs: Tabs, site: str
) -> None:
    page = await tabs.open()
    win = WINS["bisley"]
    await page.new_game("bisley", win.deal)
    first = (await page.view())["id"]
    await page.click_move(win.moves[0])
    await page.page.click("#new-random")
    await page.page.wait_for_function(
        "id => window.patience.view && window.patience.view.id !== id", arg=first
    )
    # more games than a page holds
    async with httpx.AsyncClient(base_url=site) as http:
        token = await page.access_token()
        for deal in range(10):
            made = await http.post(
                "/v1/games",
                json={"variant": "usk", "deal": deal},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert made.status_code == 201, made.text

        # every one of them in the player's records (moments after it was dealt)
        for _ in range(300):
            listed = await http.get(
                "/v1/players/me/games?limit=50", headers={"Authorization": f"Bearer {token}"}
            )
            if len(listed.json()["games"]) == 12:
                break
            await asyncio.sleep(0.1)
        assert len(listed.json()["games"]) == 12

    # a page of ten, newest first, and the first game dealt on the next page
    items = page.panel.locator("#my-games li")
    await page.open_statistics()
    more = page.page.locator("#games-more")
    await expect(items).to_have_count(10)
    assert await page.panel.locator(f'#my-games li[data-game="{first}"]').count() == 0
    await more.click()
    await expect(items).to_have_count(12)
    await expect(more).to_be_hidden()
    assert await items.last.get_attribute("data-game") == first
    await expect(items.nth(10)).to_contain_text("on the table")
    resume = items.last.get_by_role("button")
    await expect(resume).to_have_accessible_name(re.compile(r"^Resume Bisley, deal 1, dealt "))
    await resume.click()
    await expect(page.panel).to_be_hidden()
    await page.page.wait_for_function(
        "id => window.patience.view && window.patience.view.id === id", arg=first
    )
    await page.wait_version(2)
    assert await page.address() == f"#game={first}"
    await page.click_move(win.moves[1])


async def test_an_expired_access_token_is_renewed_and_the_request_sent_again(
    tabs: Tabs, site: str
) -> None:
    tabs.expect_refusals(401)
    page = await tabs.open()
    player = await page.player_id()
    assert player
    win = WINS["bisley"]
    await page.new_game("bisley", win.deal)
    expired = signed_token(PLAYER_KEY, subject=player, expires_in=-120)
    async with httpx.AsyncClient(base_url=site) as http:
        answer = await http.get("/v1/players/me", headers={"Authorization": f"Bearer {expired}"})
        assert answer.json()["code"] == "expired-token"
    # the page believes its token good for ten more minutes; the server says otherwise
    await page.page.evaluate(
        "t => { window.patience.session.access = {token: t, until: Date.now() + 600000}; }",
        expired,
    )
    async with page.page.expect_request("**/v1/sessions/refresh"):
        await page.click_move(win.moves[0])
    assert tabs.refusals == [401]
    assert await page.access_token() != expired
    await expect(page.message()).to_be_hidden()

    # a token about to expire is renewed before it is sent: no refusal
    await page.page.evaluate("window.patience.session.access.until = Date.now() - 1")
    async with page.page.expect_request("**/v1/sessions/refresh"):
        await page.click_move(win.moves[1])
    assert tabs.refusals == [401]
    assert await page.player_id() == player


async def test_a_refused_refresh_token_is_forgotten_for_a_new_player(tabs: Tabs) -> None:
    tabs.expect_refusals(401)
    page = await tabs.open()
    player = await page.player_id()
    await page.page.evaluate(f"localStorage.setItem('{REFRESH_KEY}', 'not-a-refresh-token')")
    await page.page.reload()
    await expect(page.page.locator("body")).to_have_attribute("data-ready", "true")
    assert tabs.refusals == [401]
    fresh = await page.player_id()
    assert fresh and fresh != player
    stored = await page.page.evaluate(f"localStorage.getItem('{REFRESH_KEY}')")
    assert stored != "not-a-refresh-token"
    await page.new_game("usk", 2)
    assert (await page.view())["record"]["player"] == fresh


async def test_a_second_browser_links_with_a_code_and_becomes_the_same_player(
    tabs: Tabs, browser: Browser, site: str
) -> None:
    first = await tabs.open()
    player = await first.player_id()
    win = WINS["la-belle-lucie"]
    await first.new_game("la-belle-lucie", win.deal)
    game = (await first.view())["id"]
    await first.open_statistics()
    await first.page.click("#link-show")
    shown = first.page.locator("#link-code")
    await expect(shown).to_contain_text("Link code:")
    code = await shown.get_attribute("data-code")
    assert code and re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}", code)
    await first.close_statistics()

    async with browsing(browser, site, viewport={"width": 1280, "height": 900}) as others:
        second = await others.open()
        before = await second.player_id()
        assert before and before != player
        await second.new_game("usk", 2)  # a game of the player it was
        await second.open_statistics()
        await second.page.get_by_label("Code from another device").fill(code.lower())
        await second.page.keyboard.press("Enter")
        await expect(second.page.locator("#link-message")).to_contain_text("now plays as")
        assert await second.player_id() == player
        stored = await second.page.evaluate(
            "JSON.parse(localStorage.getItem('patience.player')).id"
        )
        assert stored == player
        # the table no longer shows the other player's game
        await expect(second.table).not_to_have_attribute("data-variant", "usk")
        await second.close_statistics()
        # the first browser's game, resumed here, stays in step with it
        resume = await second.statistics_until(f'#my-games li[data-game="{game}"] button')
        await resume.click()
        await second.wait_version(1)
        await second.click_move(win.moves[0])
        await first.wait_version(2)
        assert await first.all_cards() == await second.all_cards()
        # and after a reload it is still that player
        await second.page.reload()
        await expect(second.page.locator("body")).to_have_attribute("data-ready", "true")
        assert await second.player_id() == player


async def test_an_old_address_with_a_games_token_still_opens_it_and_the_game_can_be_kept(
    tabs: Tabs, site: str
) -> None:
    tabs.expect_refusals(403)
    async with httpx.AsyncClient(base_url=site) as http:
        made = await http.post("/v1/games", json={"variant": "bisley", "deal": 1})
        assert made.status_code == 201
        game, token = made.json()["id"], made.json()["token"]
        assert token
    page = await tabs.open(f"#game={game}&token={token}")
    player = await page.player_id()
    await expect(page.table).to_have_attribute("data-variant", "bisley")
    await page.wait_version(1)
    assert (await page.view())["record"]["player"] is None
    win = WINS["bisley"]
    await page.click_move(win.moves[0])  # played with the game's token, as always
    keep = page.page.get_by_role("button", name="Keep this game")
    await expect(keep).to_be_visible()
    await keep.click()
    await page.wait_version(3)
    await expect(keep).to_be_hidden()
    await expect(page.message()).to_contain_text("your player's now")
    assert await page.address() == f"#game={game}"
    claimed = await record(page)
    assert claimed["player"] == player and claimed["category"] == "practice"
    async with httpx.AsyncClient(base_url=site) as http:
        refused = await http.get(f"/v1/games/{game}", headers={"Authorization": f"Bearer {token}"})
        assert refused.status_code == 403  # the game's token no longer opens it
    await page.click_move(win.moves[1])
    await page.page.reload()
    await expect(page.page.locator("body")).to_have_attribute("data-ready", "true")
    await page.wait_version(4)
    assert (await page.view())["id"] == game


async def test_without_players_on_the_server_the_page_plays_anonymous_games(tabs: Tabs) -> None:
    """A server without PostgreSQL answers the player routes 503 records-unavailable."""
    tabs.expect_refusals(503)

    async def no_players(route: Route) -> None:
        body = {"code": "records-unavailable", "status": 503, "title": "Records unavailable"}
        await route.fulfill(
            status=503, content_type="application/problem+json", body=json.dumps(body)
        )

    await tabs.context.route("**/v1/players", no_players)
    page = await tabs.open()
    assert await page.player_id() is None
    await expect(page.page.locator("#stats-open")).to_be_hidden()
    win = WINS["bisley"]
    await page.new_game("bisley", win.deal)
    view = await page.view()
    assert view["record"]["player"] is None
    address = await page.address()
    assert address.startswith(f"#game={view['id']}&token=")
    await page.click_move(win.moves[0])
    await expect(page.page.locator("#record-moves")).to_have_text("1")
    await expect(page.page.locator("#claim")).to_be_hidden()
    await expect(page.message()).to_be_hidden()
    second = await tabs.open(address)
    await second.wait_version(2)
