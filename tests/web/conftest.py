"""Browser fixtures: Debian's Chromium driven headless by Playwright, against a real
gateway process (with the suite's Redis, PostgreSQL and engine, and a player token key,
as `patience serve` runs it) serving the web client at /play.

Playwright cannot download its own browser here, so it is pointed at the system's
Chromium (`make test` installs the `chromium` package when it runs as root). Where
there is none the tests are skipped with the reason, except on CI (CI=true), where a
missing browser fails them: they must never be skipped silently there."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis
from patience_gateway.storage.boards import board_key, built_key
from playwright.async_api import Browser, async_playwright

from bench.harness.servers import gateway_process
from tests.gateway.engines import EngineThread
from tests.gateway.helpers import PLAYER_KEY
from tests.web.play_page import Tabs, browsing

# As Debian's Chromium is known to run here as root and without a network: no sandbox
# (root), and none of the background connections a closed network refuses.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# The games with a daily deal on the site (test_play_daily plays them).
DAILY_VARIANTS = ("bisley", "usk")


def chromium_executable() -> str | None:
    return (
        os.environ.get("CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
        or shutil.which("google-chrome")
    )


async def forget_boards(redis_url: str, *names: str) -> None:
    """Deletes boards from Redis, as if Redis had lost them: the next read rebuilds each
    from PostgreSQL's records (rows a test wrote there directly included)."""
    client = aioredis.from_url(redis_url)
    try:
        await client.delete(*(key for name in names for key in (board_key(name), built_key(name))))
    finally:
        await client.aclose()


async def forget_game(redis_url: str, game_id: str) -> None:
    """Deletes a game's keys from Redis, as if it had expired: a player's finished game
    is then kept only as its record in PostgreSQL."""
    client = aioredis.from_url(redis_url)
    try:
        async for key in client.scan_iter(match=f"game:{{{game_id}}}:*"):
            await client.delete(key)
    finally:
        await client.aclose()


@pytest.fixture(scope="session")
def chromium() -> str:
    path = chromium_executable()
    if path is None:
        reason = (
            "no Chromium on this machine: the browser tests need Debian's `chromium` "
            "package (`make test` installs it when run as root; else apt-get install chromium)"
        )
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return path


@pytest.fixture(scope="session")
async def browser(chromium: str) -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture(scope="session")
def site(redis_url: str, database_url: str, engine: EngineThread) -> Iterator[str]:
    """A gateway process (`python -m patience_gateway`) serving /play, keeping players
    and their records, with daily deals of DAILY_VARIANTS; its base URL. Whatever went
    wrong in it must not have ended in a traceback."""
    players = {
        "DATABASE_URL": database_url,
        "PLAYER_TOKEN_KEYS": PLAYER_KEY,
        # every browser context is a new player, all from one address
        "NEW_PLAYERS_PER_MINUTE": "100000",
        # the daily deals proven at start (each takes the engine a search or more)
        "DAILY_VARIANTS": ",".join(DAILY_VARIANTS),
    }
    with gateway_process(redis_url=redis_url, engine_target=engine.target, env=players) as server:
        yield server.base_url
        assert "Traceback" not in server.output(), server.output()


@pytest.fixture
async def tabs(browser: Browser, site: str) -> AsyncIterator[Tabs]:
    """Browser tabs on the site, at a desktop's size. Without the cards' glide: a click
    waits for its target to stand still, and the games would spend most of their time
    waiting (test_play_access has a test with it on)."""
    async with browsing(
        browser, site, viewport={"width": 1280, "height": 900}, reduced_motion="reduce"
    ) as opened:
        yield opened
