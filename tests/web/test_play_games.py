"""The web client at /play in headless Chromium: every variant's table drawn from its
description, whole games played to WON by clicks and drags, undo and redo, an illegal
move explained, a stale move from a second tab shown and recovered from, a stuck game
shown, withdrawal buttons while they are legal."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest
from playwright.async_api import expect

from tests.gateway.helpers import Win, load_wins
from tests.web.play_page import CORNER, Tabs, transfer

pytestmark = pytest.mark.xdist_group("browser")

WINS = {win.variant: win for win in load_wins()}
# Fans (La Belle Lucie, with its redeals), columns with runs moved as units (Usk, with a
# redeal) and columns with two-way foundations (Bisley).
PLAYED_TO_WON = ("bisley", "la-belle-lucie", "usk")
SUITS = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}


async def test_every_variants_opening_table_is_drawn_from_its_description(
    tabs: Tabs, site: str, tmp_path: Path
) -> None:
    """Also the screenshots in docs/img: PLAY_SCREENSHOTS=docs/img writes them there."""
    shots = Path(os.environ.get("PLAY_SCREENSHOTS") or tmp_path)
    async with httpx.AsyncClient(base_url=site) as http:
        variants = (await http.get("/v1/variants")).json()["variants"]
        descriptions = [(await http.get(f"/v1/variants/{v['id']}")).json() for v in variants]
    assert len(descriptions) == 9
    page = await tabs.open()
    for description in descriptions:
        await page.new_game(description["id"], 1)
        view = await page.view()
        assert await page.page.locator("#table .pile").count() == len(description["piles"])
        shown = await page.all_cards()
        for pile, dealt in zip(description["piles"], view["piles"], strict=True):
            node = page.pile(pile["id"])
            assert pile["kind"] in (await node.get_attribute("class") or "").split()
            assert shown[pile["id"]] == dealt["cards"], pile["id"]
            if pile["kind"] == "foundation" and not dealt["cards"]:
                down = pile["direction"] == "down"
                hint = f"{'K' if down else 'A'}{SUITS[pile['suit']]} {'▼' if down else '▲'}"
                await expect(node.locator(".placeholder")).to_have_text(hint)
            if pile["kind"] == "stock":
                await expect(node.locator(".card.back")).to_have_text(str(dealt["size"]))
        status = page.page.locator("#status")
        await expect(status).to_contain_text(f"{description['name']}, deal 1")
        await page.page.screenshot(path=shots / f"play-{description['id']}.png", full_page=True)
    assert len(list(shots.glob("play-*.png"))) >= 9


@pytest.mark.parametrize("variant", PLAYED_TO_WON)
async def test_a_whole_game_is_played_to_won_by_clicks_and_drags(tabs: Tabs, variant: str) -> None:
    win: Win = WINS[variant]
    assert not win.options
    page = await tabs.open()
    await page.new_game(variant, win.deal)
    for number, notation in enumerate(win.moves):
        if transfer(notation) is not None and number % 2:
            await page.drag_move(notation)
        else:
            await page.click_move(notation)
    outcome = page.page.locator("#outcome")
    await expect(outcome).to_be_visible()
    await expect(outcome).to_contain_text("Won!")
    view = await page.view()
    assert view["status"] == "won"
    total = view["counters"]["total_cards"]
    assert view["counters"]["foundation_cards"] == total
    shown = await page.all_cards()
    foundations = [p["id"] for p in view["piles"] if p["kind"] == "foundation"]
    assert sum(len(shown[f]) for f in foundations) == total
    await expect(page.message()).to_be_hidden()


async def test_undo_and_redo(tabs: Tabs) -> None:
    page = await tabs.open()
    win = WINS["bisley"]
    await page.new_game("bisley", win.deal)
    undo, redo = page.page.locator("#undo"), page.page.locator("#redo")
    await expect(undo).to_be_disabled()
    await expect(redo).to_be_disabled()
    tables = [await page.all_cards()]
    for notation in win.moves[:3]:
        await page.click_move(notation)
        tables.append(await page.all_cards())
    await page.undo()
    assert await page.all_cards() == tables[2]
    await page.undo()
    assert await page.all_cards() == tables[1]
    await expect(redo).to_be_enabled()
    await page.redo()
    assert await page.all_cards() == tables[2]
    assert (await page.view())["counters"]["position"] == 2
    # a new move drops what could still be redone
    await page.undo()
    await page.drag_move(win.moves[1])
    await expect(redo).to_be_disabled()
    await page.undo()
    await page.undo()
    await expect(undo).to_be_disabled()
    assert await page.all_cards() == tables[0]


async def test_an_illegal_move_is_explained_and_changes_nothing(tabs: Tabs) -> None:
    tabs.expect_refusals(422)
    page = await tabs.open()
    await page.new_game("la-belle-lucie", 0)
    view = await page.view()
    legal = set(view["legal_moves"])
    fans = [p["id"] for p in view["piles"] if p["kind"] == "tableau"]
    illegal = next(
        f"{source}-{target}"
        for source in fans
        for target in fans
        if source != target and f"{source}-{target}" not in legal
    )
    move = transfer(illegal)
    assert move is not None
    await page.source_card(move).click(position=CORNER)
    # the piles the card may go to are marked, and this one is not
    assert "target" not in (await page.pile(move.target).get_attribute("class") or "")
    await page.pile(move.target).click(position=CORNER)
    await expect(page.message()).to_contain_text("That move is not allowed")
    assert tabs.refusals == [422]
    assert await page.version() == 1
    assert (await page.view())["legal_moves"] == view["legal_moves"]
    await page.click_move(view["legal_moves"][0])
    await expect(page.message()).to_be_hidden()


async def test_a_stale_move_from_a_second_tab_is_shown_and_recovered_from(tabs: Tabs) -> None:
    tabs.expect_refusals(412)
    first = await tabs.open()
    # The first tab hears nothing of the second's moves: its event stream never connects
    # (the request is held, unanswered).
    await first.page.route("**/events?*", lambda route: None)
    win = WINS["la-belle-lucie"]
    await first.new_game("la-belle-lucie", win.deal)
    second = await tabs.open(await first.address())
    await second.wait_version(1)
    await second.click_move(win.moves[0])
    # The first tab still shows version 1 and tries a move from there.
    assert await first.version() == 1
    move = transfer(win.moves[1])
    assert move is not None
    await first.source_card(move).click(position=CORNER)
    await first.pile(move.target).click(position=CORNER)
    await expect(first.message()).to_contain_text("changed elsewhere")
    await expect(first.message()).to_contain_text("version 2")
    await first.wait_version(2)
    assert tabs.refusals == [412]
    assert await first.all_cards() == await second.all_cards()
    await first.click_move(win.moves[1])
    await expect(first.message()).to_be_hidden()
    assert await first.version() == 3


async def test_two_tabs_are_kept_in_step_by_the_event_stream(tabs: Tabs) -> None:
    first = await tabs.open()
    win = WINS["la-belle-lucie"]
    await first.new_game("la-belle-lucie", win.deal)
    second = await tabs.open(await first.address())
    for tab in (first, second):
        await expect(tab.page.locator("body")).to_have_attribute("data-stream", "open")
    await first.click_move(win.moves[0])
    await second.wait_version(2)  # no click in the second tab: the stream brought it
    assert await second.all_cards() == await first.all_cards()
    await second.drag_move(win.moves[1])
    await first.wait_version(3)
    await second.undo()
    await first.wait_version(4)
    assert await first.all_cards() == await second.all_cards()
    await expect(first.page.locator("#redo")).to_be_enabled()
    await first.redo()
    await second.wait_version(5)
    assert await second.all_cards() == await first.all_cards()


async def test_a_stuck_game_is_shown_and_the_piles_a_card_may_go_to_are_marked(
    tabs: Tabs,
) -> None:
    """Usk deal 2 has no move left after these three."""
    page = await tabs.open()
    await page.new_game("usk", 2)
    await page.click_move("redeal")
    await page.click_move("t6-t7")
    move = transfer("t2-t10")
    assert move is not None
    source, target = await page.points(move)
    await page.page.mouse.click(*source)
    await expect(page.pile(move.target)).to_have_class(re.compile(r"\btarget\b"))
    await page.page.mouse.click(*target)
    await page.wait_version(4)
    outcome = page.page.locator("#outcome")
    await expect(outcome).to_be_visible()
    await expect(outcome).to_contain_text("Stuck: no move is left")
    view = await page.view()
    assert view["status"] == "stuck" and view["legal_moves"] == []


async def test_withdrawals_are_buttons_while_they_are_legal(tabs: Tabs) -> None:
    """The Fifteen's opening exception (deal 15 allows it), one button per withdrawal."""
    page = await tabs.open()
    await page.new_game("the-fifteen", 15)
    buttons = page.page.locator("button.withdraw")
    view = await page.view()
    legal = [m for m in view["legal_moves"] if m.startswith("withdraw")]
    assert "withdraw t2" in legal
    await expect(buttons).to_have_count(len(legal))
    await expect(page.page.locator("#deal-card")).to_be_hidden()
    await page.click_move("withdraw t2")
    left = [m for m in (await page.view())["legal_moves"] if m.startswith("withdraw")]
    await expect(buttons).to_have_count(len(left))
    assert "withdraw t2" not in left


async def test_hint_marks_the_move_and_autoplay_plays_the_safe_cards(tabs: Tabs) -> None:
    """Bisley deal 0: won, with seven safe moves at the deal; deal 9: proven lost."""
    page = await tabs.open()
    await page.new_game("bisley", 0)
    await page.page.locator("#hint").click()
    await expect(page.table).to_have_attribute("data-hint", "t4-f1")
    await expect(page.pile("t4")).to_have_class(re.compile(r"\bsource\b"))
    await expect(page.pile("f1")).to_have_class(re.compile(r"\btarget\b"))
    await expect(page.message()).to_contain_text("Hint: t4 to f1 (it leads to a win")
    assert await page.version() == 1  # a hint changes nothing

    await page.page.locator("#autoplay").click()
    await page.wait_version(2)
    view = await page.view()
    assert view["counters"]["foundation_cards"] == 4 + 7  # the aces and the seven
    await page.page.locator("#autoplay").click()  # nothing more is safe
    await expect(page.message()).to_contain_text("No card can safely go to a foundation")
    await page.undo()
    assert (await page.view())["counters"]["foundation_cards"] == 4

    # after each move: the toggle is the game's setting
    toggle = page.page.locator("#autoplay-each")
    await toggle.check()
    await page.wait_version(4)
    assert (await page.view())["autoplay"] is True
    move = next(m for m in (await page.view())["legal_moves"] if "-f" not in m)
    await page.click_move(move)
    assert (await page.view())["counters"]["foundation_cards"] > 4


async def test_a_game_that_can_no_longer_be_won_says_so(tabs: Tabs) -> None:
    page = await tabs.open()
    await page.new_game("bisley", 9)
    outlook = page.page.locator("#outlook")
    await expect(outlook).to_be_hidden()
    await page.page.locator("#hint").click()
    await expect(outlook).to_be_visible()
    await expect(outlook).to_contain_text("can no longer be won")
    await expect(page.message()).to_contain_text("No line of moves wins from here")
