"""The player's data in the web client's Statistics panel: downloaded as one file (the
export), and the player deleted once confirmed, after which this browser plays as a
new player and the deleted one's tokens open nothing."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from playwright.async_api import expect

from tests.web.play_page import Tabs

pytestmark = pytest.mark.xdist_group("browser")


async def test_the_player_downloads_its_data_and_deletes_itself(tabs: Tabs, site: str) -> None:
    page = await tabs.open()
    player = await page.player_id()
    assert player
    await page.new_game("bisley", 1)
    game = (await page.view())["id"]
    await page.open_statistics()

    async with page.page.expect_download() as downloading:
        await page.page.click("#export-data")
    download = await downloading.value
    assert download.suggested_filename == f"patience-{player}.json"
    document = json.loads(Path(await download.path()).read_text(encoding="utf-8"))
    assert document["format"] == "patience-export/1"
    assert document["player"]["id"] == player
    await expect(page.page.locator("#data-message")).to_contain_text("downloaded")

    old_token = await page.access_token()
    confirm = page.page.locator("#delete-confirm")
    await expect(confirm).to_be_hidden()
    await page.page.click("#delete-player")
    await expect(confirm).to_be_visible()
    await expect(page.page.locator("#delete-no")).to_be_focused()
    await page.page.click("#delete-no")  # kept: nothing happens
    await expect(confirm).to_be_hidden()
    assert await page.player_id() == player

    await page.page.click("#delete-player")
    await page.page.click("#delete-yes")
    await expect(page.page.locator("#data-message")).to_contain_text("is deleted")
    await expect(confirm).to_be_hidden()
    fresh = await page.player_id()
    assert fresh and fresh != player
    async with httpx.AsyncClient(base_url=site) as http:
        headers = {"Authorization": f"Bearer {old_token}"}
        refused = await http.get("/v1/players/me", headers=headers)
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith("Bearer ")
        gone = await http.get(f"/v1/games/{game}", headers=headers)
        assert gone.status_code in (401, 404)
    # the page goes on with the new player
    await page.close_statistics()
    await page.new_game("usk", 2)
    assert (await page.view())["record"]["player"] == fresh
    tabs.assert_no_errors()
