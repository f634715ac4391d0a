"""Replays and spectators in the web client: a game's positions stepped through by the
buttons and the arrow keys, each the table the server replays for it, nothing on it
picked up, and the live table back when the replay is left; a finished game replayed
from the player's games once the server keeps only its record; a share link opened in
another browser as a spectator's view that follows the owner's moves and cannot move."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from playwright.async_api import Browser, Request, expect

from tests.gateway.helpers import load_wins
from tests.web.conftest import forget_game
from tests.web.play_page import CORNER, PlayPage, Tabs, browsing, transfer

pytestmark = pytest.mark.xdist_group("browser")

WINS = {win.variant: win for win in load_wins()}
OWNER_CONTROLS = (
    "#undo",
    "#redo",
    "#hint",
    "#autoplay",
    "#autoplay-each",
    "#restart",
    "#resign",
    "#share-open",
)


def table_of(body: dict[str, Any]) -> dict[str, list[str]]:
    """A view's piles as the page shows them: the cards face up, pile by pile."""
    return {pile["id"]: pile["cards"] for pile in body["piles"]}


class Replays:
    """The server's replay of a game, read with a token (the player's or a share)."""

    def __init__(self, http: httpx.AsyncClient, game: str, token: str) -> None:
        self.http, self.game, self.token = http, game, token

    async def at(self, position: int) -> dict[str, Any]:
        answer = await self.http.get(
            f"/v1/games/{self.game}/replay",
            params={"position": position},
            headers={"Authorization": f"Bearer {self.token}"},
        )
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        return body


async def shows(page: PlayPage, replays: Replays, position: int) -> None:
    """The page's replay stands at `position`, and its table is the server's then."""
    await expect(page.table).to_have_attribute("data-replay", str(position))
    assert await page.all_cards() == table_of(await replays.at(position)), position


async def test_a_replay_steps_through_the_positions_read_only_and_returns_to_the_table(
    tabs: Tabs, site: str
) -> None:
    page = await tabs.open()
    win = WINS["bisley"]
    await page.new_game("bisley", win.deal)
    for notation in win.moves[:4]:
        await page.click_move(notation)
    await page.undo()  # at move 3, the fourth redoable
    view = await page.view()
    live = await page.all_cards()
    replay_bar = page.page.locator("#replay")
    await expect(replay_bar).to_be_hidden()
    opener = page.page.locator("#replay-open")
    await expect(opener).to_be_enabled()  # the owner replays a game in play

    async with httpx.AsyncClient(base_url=site) as http:
        replays = Replays(http, view["id"], await page.access_token())
        await opener.click()
        # it opens where the game stands
        await shows(page, replays, 3)
        assert await page.all_cards() == live
        await expect(replay_bar).to_be_visible()
        await expect(replay_bar).to_have_attribute("data-length", "3")  # the moves played
        await expect(page.page.locator("body")).to_have_attribute("data-mode", "replay")
        position = page.page.locator("#replay-position")
        await expect(position).to_have_text(f"After move 3 of 3 ({win.moves[2]})")
        await expect(page.page.locator("#status")).to_contain_text("Replay of Bisley, deal")
        for control in ("#undo", "#redo", "#hint", "#autoplay", "#restart", "#resign"):
            await expect(page.page.locator(control)).to_be_disabled()
        await expect(page.page.locator("#replay-forward")).to_be_disabled()
        await expect(page.page.locator("#replay-back")).to_be_focused()

        # the buttons
        await page.page.click("#replay-back")
        await shows(page, replays, 2)
        await page.page.click("#replay-first")
        await shows(page, replays, 0)
        await expect(position).to_have_text("The deal (0 of 3)")
        await expect(page.page.locator("#replay-first")).to_be_disabled()
        await expect(page.page.locator("#replay-back")).to_be_disabled()
        await page.page.click("#replay-forward")
        await shows(page, replays, 1)
        await page.page.click("#replay-last")
        await shows(page, replays, 3)
        await expect(page.page.locator("#replay-last")).to_be_disabled()
        # the arrow keys, Home and End
        keys = page.page.keyboard
        await keys.press("ArrowLeft")
        await shows(page, replays, 2)
        await keys.press("ArrowLeft")
        await shows(page, replays, 1)
        await keys.press("Home")
        await shows(page, replays, 0)
        await keys.press("ArrowLeft")  # nothing before the deal
        await keys.press("ArrowRight")
        await shows(page, replays, 1)
        await keys.press("End")
        await shows(page, replays, 3)
        await keys.press("ArrowLeft")
        await shows(page, replays, 2)

        # read-only: a card pressed is not picked up, nor a pile's by keyboard
        move = win.moves[3]
        parsed = transfer(move)
        assert parsed is not None
        source, target = await page.points(parsed)
        await page.page.mouse.click(*source)
        await page.page.mouse.click(*target)
        await page.pile(parsed.source).focus()
        await keys.press("Enter")
        assert await page.page.locator("#table .card.picked").count() == 0
        assert await page.page.locator("#table .pile.target").count() == 0
        await keys.press("u")
        await shows(page, replays, 2)
        assert await page.version() == view["version"]

        # leaving it: the table as the game is now
        await page.page.click("#replay-leave")
        await expect(replay_bar).to_be_hidden()
        await expect(page.table).not_to_have_attribute("data-replay", re.compile(".*"))
        await expect(page.page.locator("body")).to_have_attribute("data-mode", "play")
        assert await page.all_cards() == live
        await expect(opener).to_be_focused()
        await expect(page.page.locator("#status")).to_contain_text("at move 3")
        await page.redo()  # the game plays on as before
        await page.click_move(win.moves[4])

        # Esc leaves it too, and a change made meanwhile shows then
        await opener.click()
        await shows(page, replays, 5)
        await keys.press("Home")
        await shows(page, replays, 0)
        other = await tabs.open(await page.address())
        await other.click_move(win.moves[5])
        await page.page.wait_for_function(
            "v => window.patience.view.version === v", arg=view["version"] + 3
        )
        await shows(page, replays, 0)  # the replay stays where it was
        await keys.press("Escape")
        await expect(replay_bar).to_be_hidden()
        assert await page.all_cards() == await other.all_cards()


async def test_a_finished_game_replays_from_my_games_after_the_server_keeps_only_its_record(
    tabs: Tabs, site: str, redis_url: str
) -> None:
    tabs.expect_refusals(404)  # the game's view, gone from Redis
    page = await tabs.open()
    win = WINS["bisley"]
    await page.new_game("bisley", win.deal)
    game = (await page.view())["id"]
    for notation in win.moves[:3]:
        await page.click_move(notation)
    await page.page.click("#resign")
    await page.page.click("#resign-yes")
    await page.wait_version(5)
    # over: its outcome offers the replay
    await expect(page.page.locator("#outcome-replay")).to_be_visible()
    await page.page.click("#outcome-new")
    await page.page.wait_for_function(
        "id => window.patience.view && window.patience.view.id !== id", arg=game
    )
    listed = f'#my-games li[data-game="{game}"][data-outcome="resigned"] button.game-replay'
    await page.statistics_until(listed)
    await page.close_statistics()
    # as if it had expired from Redis: PostgreSQL has its record and history
    await forget_game(redis_url, game)

    replay = await page.statistics_until(listed)
    await replay.click()
    await expect(page.panel).to_be_hidden()
    async with httpx.AsyncClient(base_url=site) as http:
        replays = Replays(http, game, await page.access_token())
        await shows(page, replays, 3)  # where it ended
        await expect(page.page.locator("#replay")).to_have_attribute("data-length", "3")
        await expect(page.table).to_have_attribute("data-variant", "bisley")
        await expect(page.page.locator("#record-outcome")).to_have_text("Resigned")
        await page.page.click("#replay-back")
        await shows(page, replays, 2)
        await page.page.keyboard.press("Home")
        await shows(page, replays, 0)
    await page.page.click("#replay-leave")
    await expect(page.page.locator("#replay")).to_be_hidden()
    await expect(page.table.locator(".welcome")).to_contain_text("no longer kept in play")
    await expect(page.table).to_have_attribute("data-version", "0")
    assert await page.address() == "#"


def share_of(address: str) -> str:
    return parse_qs(address.lstrip("#"))["share"][0]


async def test_a_spectator_follows_the_owners_moves_and_cannot_move(
    tabs: Tabs, browser: Browser, site: str
) -> None:
    owner = await tabs.open()
    win = WINS["la-belle-lucie"]
    await owner.new_game("la-belle-lucie", win.deal)
    game = (await owner.view())["id"]
    await owner.click_move(win.moves[0])
    await owner.page.click("#share-open")
    dialog = owner.page.get_by_role("dialog", name="Share this game")
    await expect(dialog).to_be_visible()
    link = owner.page.locator("#share-link")
    await expect(link).to_be_focused()
    shared = re.compile(rf"^{re.escape(site)}/play/#game={game}&share=sh\.")
    await expect(link).to_have_value(shared)
    address = "#" + (await link.input_value()).split("#", 1)[1]
    await owner.page.click("#share-close")
    await expect(dialog).to_be_hidden()
    await expect(owner.page.locator("#share-open")).to_be_focused()

    async with browsing(
        browser, site, viewport={"width": 1280, "height": 900}, reduced_motion="reduce"
    ) as others:
        watcher = await others.open(address)
        asked: list[str] = []

        def note(request: Request) -> None:
            """A request that would change the game, or ask for a hint."""
            url = request.url
            changes = request.method != "GET" and not url.endswith("/stream-tickets")
            if "/v1/games/" in url and (changes or url.endswith("/hint")):
                asked.append(f"{request.method} {url}")

        watcher.page.on("request", note)
        await watcher.wait_version(2)
        assert await watcher.all_cards() == await owner.all_cards()
        assert await watcher.player_id() != await owner.player_id()
        assert await watcher.address() == address
        await expect(watcher.page.locator("body")).to_have_attribute("data-mode", "watch")
        await expect(watcher.page.locator("#spectating")).to_be_visible()
        await expect(watcher.page.locator("#record")).to_be_visible()
        for control in (*OWNER_CONTROLS, "#claim", "#deal-card", "#redeal"):
            await expect(watcher.page.locator(control)).to_be_hidden()
        await expect(watcher.page.locator("#replay-open")).to_be_disabled()  # in play

        # it follows the owner's moves, live
        await owner.click_move(win.moves[1])
        await watcher.wait_version(3)
        assert await watcher.all_cards() == await owner.all_cards()

        # and cannot move: nothing is picked up, by pointer or keyboard; no hint is asked
        move = transfer(win.moves[2])
        assert move is not None
        source, target = await watcher.points(move)
        await watcher.page.mouse.click(*source)
        await watcher.page.mouse.click(*target)
        await watcher.source_card(move).dblclick(position=CORNER)
        await watcher.pile(move.source).focus()
        for key in ("Enter", "f", "h", "a", "u", "r", "d"):
            await watcher.page.keyboard.press(key)
        assert await watcher.page.locator("#table .card.picked").count() == 0
        await expect(watcher.message()).to_be_hidden()
        await owner.click_move(win.moves[2])  # the move stayed the owner's to make
        await watcher.wait_version(4)
        assert await watcher.all_cards() == await owner.all_cards()

        # the game over, the spectator sees it end and may replay it
        await owner.page.click("#resign")
        await owner.page.click("#resign-yes")
        await owner.wait_version(5)
        await watcher.wait_version(5)
        await expect(watcher.page.locator("#outcome")).to_contain_text("Resigned")
        for control in ("#outcome-undo", "#outcome-restart"):
            await expect(watcher.page.locator(control)).to_be_hidden()
        await watcher.page.click("#outcome-replay")
        async with httpx.AsyncClient(base_url=site) as http:
            replays = Replays(http, game, share_of(address))
            await shows(watcher, replays, 3)
            await watcher.page.keyboard.press("ArrowLeft")
            await shows(watcher, replays, 2)
        await watcher.page.keyboard.press("Escape")
        await expect(watcher.page.locator("#replay")).to_be_hidden()
        assert await watcher.all_cards() == await owner.all_cards()
        assert asked == []
