"""Driving the web client at /play as a person does: pick a game, press cards and piles,
drag cards, use the keyboard, read what the page says.

Playwright's async API, on the suite's one event loop (its sync API would keep a loop
of its own running in the test thread, which the suite's async tests then cannot use)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from playwright.async_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Locator,
    Page,
    Position,
    expect,
)

TIMEOUT_MS = 20_000
# A card lower in a column or fan is covered by the next one except at its top left
# corner, which is where a person presses it.
CORNER: Position = {"x": 5, "y": 5}
TRANSFER = re.compile(r"^([a-z]+\d*)-([a-z]+\d*)(?:/(\d+))?$")
# What Chromium logs, as a console error, for every answer with an error status: the
# page cannot prevent it, so a test says which refusals it provokes on purpose.
REFUSED = re.compile(r"Failed to load resource: the server responded with a status of (\d+)")


@dataclass(frozen=True)
class Transfer:
    source: str
    target: str
    count: int


def transfer(notation: str) -> Transfer | None:
    match = TRANSFER.match(notation)
    if match is None:
        return None
    return Transfer(match[1], match[2], int(match[3] or 1))


class Tabs:
    """The tabs of one browser context, each watched for console errors."""

    def __init__(self, context: BrowserContext, site: str) -> None:
        self.context = context
        self.site = site
        self.errors: list[str] = []
        self.refusals: list[int] = []
        self.expected_refusals: set[int] = set()

    def expect_refusals(self, *statuses: int) -> None:
        """Answers with these statuses are what the test provokes, not errors."""
        self.expected_refusals.update(statuses)

    async def open(self, address: str = "") -> PlayPage:
        page = await self.context.new_page()
        page.set_default_timeout(TIMEOUT_MS)

        def on_console(message: ConsoleMessage) -> None:
            if message.type != "error":
                return
            refused = REFUSED.search(message.text)
            if refused:
                self.refusals.append(int(refused[1]))
            if not refused or int(refused[1]) not in self.expected_refusals:
                self.errors.append(f"{page.url}: {message.text}")

        page.on("console", on_console)
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        await page.goto(f"{self.site}/play/{address}")
        await expect(page.locator("body")).to_have_attribute("data-ready", "true")
        return PlayPage(page)

    def assert_no_errors(self) -> None:
        assert self.errors == [], self.errors


@asynccontextmanager
async def browsing(browser: Browser, site: str, **options: Any) -> AsyncIterator[Tabs]:
    """Tabs on the site in a fresh browser context made with `options` (viewport, touch,
    motion); when the block ends, none of them may have logged an error or thrown one."""
    context = await browser.new_context(**options)
    tabs = Tabs(context, site)
    try:
        yield tabs
        tabs.assert_no_errors()
    finally:
        await context.close()


class PlayPage:
    def __init__(self, page: Page) -> None:
        self.page = page

    # ------------------------------------------------------------------ reading

    @property
    def table(self) -> Locator:
        return self.page.locator("#table")

    async def version(self) -> int:
        return int(await self.table.get_attribute("data-version") or 0)

    async def view(self) -> dict[str, Any]:
        """The view the page holds (as the server last sent it)."""
        view: dict[str, Any] = await self.page.evaluate("window.patience.view")
        return view

    async def address(self) -> str:
        """The game's address after the '#', to open it elsewhere."""
        fragment: str = await self.page.evaluate("location.hash")
        return "#" + fragment.lstrip("#")

    def pile(self, pile: str) -> Locator:
        return self.page.locator(f'#table .pile[data-pile="{pile}"]')

    async def cards(self, pile: str) -> list[str]:
        codes: list[str] = (
            await self.pile(pile)
            .locator(".card[data-card]")
            .evaluate_all("nodes => nodes.map(n => n.dataset.card)")
        )
        return codes

    async def all_cards(self) -> dict[str, list[str]]:
        """Every pile's cards as the page shows them."""
        shown: dict[str, list[str]] = await self.page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll('#table .pile')].map(
                p => [p.dataset.pile, [...p.querySelectorAll('.card[data-card]')].map(
                    c => c.dataset.card)]))"""
        )
        return shown

    def message(self) -> Locator:
        return self.page.locator("#message")

    async def player_id(self) -> str | None:
        """The id of this browser's player, as the page holds it (None: no player)."""
        player: str | None = await self.page.evaluate(
            "window.patience.session.available ? window.patience.session.player.id : null"
        )
        return player

    async def access_token(self) -> str:
        """The player's access token, as the page would send it now."""
        token: str = await self.page.evaluate("window.patience.session.accessToken()")
        return token

    # ------------------------------------------------------------------ the panel

    @property
    def panel(self) -> Locator:
        return self.page.locator("#stats")

    async def open_statistics(self) -> None:
        """Opens the Statistics panel with its button and waits until it has read the
        player's statistics and games."""
        await self.page.click("#stats-open")
        await self.statistics_loaded()

    async def statistics_loaded(self) -> None:
        await expect(self.panel).to_be_visible()
        await expect(self.panel).to_have_attribute("data-loaded", "true")

    async def close_statistics(self) -> None:
        await self.page.keyboard.press("Escape")
        await expect(self.panel).to_be_hidden()

    async def statistics_until(self, selector: str, seconds: float = 30.0) -> Locator:
        """Opens the panel again and again until `selector` shows in it: a game's record
        reaches the statistics and the player's list moments after the game changes.
        The panel is left open."""
        found = self.panel.locator(selector)
        deadline = asyncio.get_running_loop().time() + seconds
        while True:
            await self.open_statistics()
            if await found.count() > 0:
                return found
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"{selector} did not show in the panel within {seconds} s")
            await self.close_statistics()
            await asyncio.sleep(0.25)

    async def wait_version(self, version: int) -> int:
        """Until the table shows `version` and no request is under way (checked at every
        frame: `expect` would poll at 100 ms and more, longer than a move takes). Returns
        how many cards were gliding in the first frame that showed it: their animations
        start as the table is drawn and last a quarter of a second, so on a crowded
        machine they may be over by the time a later look could count them."""
        shown = await self.page.wait_for_function(
            """v => {
                if (document.getElementById('table').dataset.version !== v) return false;
                const seen = (window.glidingAtVersion ??= {});
                if (!(v in seen)) {
                    seen[v] = document.getAnimations()
                        .filter(a => a.effect.target.matches('.card')).length;
                }
                return document.body.dataset.busy !== 'true' && {gliding: seen[v]};
            }""",
            arg=str(version),
            polling="raf",
        )
        gliding: int = (await shown.json_value())["gliding"]
        return gliding

    # ------------------------------------------------------------------ games

    async def new_game(self, variant: str, deal: int | str | None) -> None:
        await self.page.select_option("#variant", variant)
        await self.page.fill("#deal", "" if deal is None else str(deal))
        await self.page.click("#start")
        await expect(self.table).to_have_attribute("data-variant", variant)
        await self.wait_version(1)

    # ------------------------------------------------------------------ moves

    def source_card(self, move: Transfer) -> Locator:
        """The card to press to pick up `move`'s cards: the lowest of them."""
        return self.pile(move.source).locator(".card").nth(-move.count)

    async def points(self, move: Transfer) -> tuple[tuple[float, float], tuple[float, float]]:
        """Where a person presses to pick `move`'s cards up (the corner of the lowest of
        them) and to put them down (the corner of the target pile), on the screen as
        it is now; scrolled into view first when off screen."""
        found: list[list[float]] = await self.page.evaluate(
            """([source, count, target, dx, dy]) => {
                const cards = document.querySelectorAll(
                    `#table .pile[data-pile="${source}"] .card`);
                const card = cards[cards.length - count];
                const pile = document.querySelector(`#table .pile[data-pile="${target}"]`);
                card.scrollIntoView({block: "nearest"});
                pile.scrollIntoView({block: "nearest"});
                const a = card.getBoundingClientRect(), b = pile.getBoundingClientRect();
                return [[a.left + dx, a.top + dy], [b.left + dx, b.top + dy]];
            }""",
            [move.source, move.count, move.target, CORNER["x"], CORNER["y"]],
        )
        (sx, sy), (tx, ty) = found
        return (sx, sy), (tx, ty)

    async def click_move(self, notation: str) -> int:
        """Plays a move the way a person clicks it (the card, then the pile), and waits
        for the new version (returns the cards gliding as it showed: `wait_version`). The
        mouse is moved and pressed through the browser's input pipeline; the places come
        from the page as it is, as a person's eyes would."""
        before = await self.version()
        move = transfer(notation)
        if move is None:
            await self.press_button(notation)
        else:
            source, target = await self.points(move)
            await self.page.mouse.click(*source)
            await self.page.mouse.click(*target)
        return await self.wait_version(before + 1)

    async def drag_move(self, notation: str) -> None:
        """Plays a transfer by dragging its cards onto the target pile."""
        before = await self.version()
        move = transfer(notation)
        assert move is not None, notation
        (sx, sy), (tx, ty) = await self.points(move)
        mouse = self.page.mouse
        await mouse.move(sx, sy)
        await mouse.down()
        await mouse.move((sx + tx) / 2, (sy + ty) / 2)
        await mouse.move(tx, ty)
        await mouse.up()
        await self.wait_version(before + 1)

    async def press_button(self, notation: str) -> None:
        if notation == "deal":
            await self.page.click("#deal-card")
        elif notation == "redeal":
            await self.page.click("#redeal")
        else:
            await self.page.click(f'button.withdraw[data-move="{notation}"]')

    async def undo(self) -> int:
        """Undoes the last change (returns the cards gliding back: `wait_version`)."""
        before = await self.version()
        await self.page.click("#undo")
        return await self.wait_version(before + 1)

    async def redo(self) -> None:
        before = await self.version()
        await self.page.click("#redo")
        await self.wait_version(before + 1)
