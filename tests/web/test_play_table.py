"""What a player expects on the table, in the web client: every pile and card named for
a screen reader (as Chromium's accessibility tree gives them), a move played by those
names and the keyboard alone with what happened said aloud, the focus always visible,
the keys listed in a help dialog (and doing what it says), the game's moves and time,
restart and a new random deal on screen, and a won game celebrated (still, where the
browser asks for reduced motion)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from tests.gateway.helpers import load_wins
from tests.web.play_page import PlayPage, Tabs, browsing, transfer

pytestmark = pytest.mark.xdist_group("browser")

WINS = {win.variant: win for win in load_wins()}
RANKS = {
    "A": "ace",
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "T": "ten",
    "J": "jack",
    "Q": "queen",
    "K": "king",
}
SUITS = {"C": "clubs", "S": "spades", "H": "hearts", "D": "diamonds"}
KEYS = ("Tab", "Arrows", "Enter", "Escape", "F", "U", "R", "Shift+R", "D", "H", "A", "N", "T")
KEYS += ("S", "?", "Replay")


def card_words(code: str) -> str:
    return f"{RANKS[code[:-1]]} of {SUITS[code[-1]]}"


def pile_words(pile: dict[str, Any]) -> str:
    number = re.sub(r"^[a-z]+", "", pile["id"])
    if pile["kind"] == "foundation":
        way = "down from the king" if pile["direction"] == "down" else "up from the ace"
        return f"foundation {number} ({SUITS[pile['suit']]}, {way})"
    if pile["kind"] == "reserve":
        return f"reserve cell {number}"
    if pile["kind"] == "tableau":
        return f"tableau {number}"
    return str(pile["kind"])


async def accessibility_tree(page: Page) -> list[tuple[str, str]]:
    """(role, name) of every node Chromium's accessibility tree exposes: what a screen
    reader is given."""
    session = await page.context.new_cdp_session(page)
    try:
        tree = await session.send("Accessibility.getFullAXTree")
    finally:
        await session.detach()
    return [
        (node.get("role", {}).get("value", ""), node.get("name", {}).get("value", ""))
        for node in tree["nodes"]
        if not node.get("ignored")
    ]


async def description(page: PlayPage) -> dict[str, Any]:
    found: dict[str, Any] = await page.page.evaluate("window.patience.table.description")
    return found


async def announced(page: PlayPage) -> str:
    return str(await page.page.locator("#announce").text_content()).strip()


@pytest.fixture
async def moving(browser: Browser, site: str) -> AsyncIterator[Tabs]:
    """Tabs with the browser's animations on, as a person's browser has them."""
    async with browsing(browser, site, viewport={"width": 1280, "height": 720}) as tabs:
        yield tabs


@pytest.mark.parametrize("variant", ["bisley", "cody", "napoleon-at-st-helena"])
async def test_every_pile_and_card_has_a_name_a_screen_reader_reads(
    tabs: Tabs, variant: str
) -> None:
    """Columns and foundations (Bisley), fans and reserve cells (Cody), a stock and a
    waste (Napoleon at St Helena): the names as Chromium exposes them."""
    page = await tabs.open()
    await page.new_game(variant, 7)
    if variant == "napoleon-at-st-helena":
        await page.click_move("deal")  # a card on the waste
    view = await page.view()
    piles = {pile["id"]: pile for pile in (await description(page))["piles"]}
    exposed = set(await accessibility_tree(page.page))
    for shown in view["piles"]:
        pile = piles[shown["id"]]
        words = pile_words(pile)
        name = words[0].upper() + words[1:]
        size = shown["size"]
        if size == 0:
            assert ("button", f"{name}: empty") in exposed, name
            continue
        buttons = [n for role, n in exposed if role == "button" and n.startswith(f"{name}: ")]
        assert len(buttons) == 1, (name, buttons)
        assert f"{size} card{'s' if size > 1 else ''}" in buttons[0]
        if shown["cards"]:
            assert buttons[0].endswith(f"{card_words(shown['cards'][-1])} on top"), buttons[0]
        where = re.sub(r" \(.*\)$", "", words)
        # every card shown is named with its pile; a stack's covered cards are not said
        named = shown["cards"] if pile["kind"] == "tableau" else shown["cards"][-1:]
        for code in named:
            label = f"{card_words(code)}, {where}"
            assert ("image", label[0].upper() + label[1:]) in exposed, label
        if pile["kind"] == "stock":
            assert ("image", f"{size} cards face down, stock") in exposed
    table = page.page.get_by_role("region", name="The table")
    await expect(table.get_by_role("group", name="Tableau")).to_be_visible()


async def test_a_move_is_played_by_the_names_and_the_keyboard_and_said(tabs: Tabs) -> None:
    """Bisley deal 0: the two of clubs on tableau 4 goes to foundation 1. Found by the
    names a screen reader reads, picked up and put down with Enter; then a move by a
    screen reader's activation (a click no pointer made)."""
    page = await tabs.open()
    await page.new_game("bisley", 0)
    source = page.page.get_by_role("button", name=re.compile(r"^Tableau 4: "))
    await expect(source).to_have_accessible_name(re.compile(r"two of clubs on top$"))
    await source.focus()
    await page.page.keyboard.press("Enter")
    await expect(page.page.locator("#announce")).to_have_text(
        re.compile(r"^Picked up two of clubs from tableau 4: it may go to .*foundation 1")
    )
    await page.page.keyboard.press("Escape")
    await expect(page.page.locator("#announce")).to_have_text("Let go.")
    await page.page.keyboard.press("Enter")
    target = page.page.get_by_role("button", name=re.compile(r"^Foundation 1 \(clubs"))
    await target.focus()
    await page.page.keyboard.press("Enter")
    await page.wait_version(2)
    await expect(page.page.locator("#announce")).to_have_text(
        "Moved two of clubs from tableau 4 to foundation 1."
    )
    await expect(target).to_have_accessible_name(re.compile(r": 2 cards, two of clubs on top$"))
    await expect(target).to_be_focused()

    # a screen reader's "activate" on a pile: a click event that no pointer made
    view = await page.view()
    move = next(m for m in map(transfer, view["legal_moves"]) if m is not None and m.count == 1)
    await page.pile(move.source).dispatch_event("click")
    await expect(page.page.locator("#announce")).to_contain_text(
        f"from tableau {move.source[1:]}" if move.source.startswith("t") else "Picked up"
    )
    await page.pile(move.target).dispatch_event("click")
    await page.wait_version(3)
    await expect(page.page.locator("#announce")).to_have_text(re.compile(r"^Moved "))


async def test_the_focus_is_always_visible(tabs: Tabs) -> None:
    page = await tabs.open()
    await page.new_game("la-belle-lucie", 7)
    await page.page.keyboard.press("t")
    first = page.page.locator("#table .pile").first
    await expect(first).to_be_focused()
    for _ in range(3):
        style = await page.page.evaluate(
            """() => {
                const s = getComputedStyle(document.activeElement);
                return {style: s.outlineStyle, width: parseFloat(s.outlineWidth),
                        color: s.outlineColor, pile: document.activeElement.dataset.pile};
            }"""
        )
        assert style["pile"] and style["style"] != "none" and style["width"] >= 2, style
        await page.page.keyboard.press("ArrowRight")
    # a picked-up pile and the piles its cards may go to keep a focus ring of their own
    await page.page.keyboard.press("Enter")
    marked = await page.page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert marked != "none"
    # and the buttons
    await page.page.locator("#hint").focus()
    await page.page.keyboard.press("Shift+Tab")
    await page.page.keyboard.press("Tab")
    button = await page.page.evaluate(
        "() => [document.activeElement.id, getComputedStyle(document.activeElement).outlineStyle]"
    )
    assert button == ["hint", "solid"], button


async def test_the_keys_are_listed_and_do_what_the_help_says(tabs: Tabs) -> None:
    page = await tabs.open()
    win = WINS["la-belle-lucie"]
    await page.new_game("la-belle-lucie", win.deal)
    help_dialog = page.page.get_by_role("dialog", name="Help")
    await expect(help_dialog).to_be_hidden()
    await page.page.keyboard.press("t")
    await page.page.keyboard.press("?")
    await expect(help_dialog).to_be_visible()
    listed = await help_dialog.locator("#keys tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.key)"
    )
    assert tuple(listed) == KEYS
    variant = await description(page)
    await expect(help_dialog.locator("#rules-title")).to_have_text("Rules of La Belle Lucie")
    await expect(help_dialog.locator("#rules-text")).to_have_text(variant["summary"])
    await page.page.keyboard.press("Escape")
    await expect(help_dialog).to_be_hidden()
    await expect(page.page.locator("#table .pile").first).to_be_focused()
    # the Help button opens it too, and the shortcut is told to assistive technology
    await expect(page.page.locator("#help-open")).to_have_attribute("aria-keyshortcuts", "?")
    await page.page.click("#help-open")
    await expect(help_dialog).to_be_visible()
    await page.page.keyboard.press("Escape")

    # Shift+R restarts the deal; N deals a new random game of the same kind
    await page.click_move(win.moves[0])
    await expect(page.page.locator("#record-moves")).to_have_text("1")
    await page.page.keyboard.press("t")
    await page.page.keyboard.press("Shift+R")
    await page.wait_version(3)
    view = await page.view()
    assert view["counters"]["position"] == 0
    await expect(page.page.locator("#announce")).to_have_text("Restarted: the deal again.")
    before = view["id"]
    await page.page.keyboard.press("n")
    await page.page.wait_for_function(
        "id => window.patience.view && window.patience.view.id !== id", arg=before
    )
    await page.wait_version(1)
    view = await page.view()
    assert view["variant"] == "la-belle-lucie" and view["counters"]["position"] == 0
    await expect(page.page.locator("#deal")).to_have_value("")


async def play_to_one_move_from_won(page: PlayPage) -> str:
    """Bisley's winning line played but for its last move (which is returned)."""
    win = WINS["bisley"]
    await page.new_game("bisley", win.deal)
    for notation in win.moves[:-1]:
        before = await page.version()
        await page.page.evaluate("notation => window.patience.play(notation)", notation)
        await page.wait_version(before + 1)
    # the cards stand still before a person would press one
    await page.page.wait_for_function("() => document.getAnimations().length === 0")
    return win.moves[-1]


async def test_a_won_game_is_celebrated(moving: Tabs) -> None:
    page = await moving.open()
    last = await play_to_one_move_from_won(page)
    await expect(page.page.locator(".celebration")).to_have_count(0)
    await page.click_move(last)
    celebration = page.page.locator("#table .celebration")
    await expect(page.page.locator("body")).to_have_attribute("data-celebration", "shown")
    await expect(celebration).to_have_attribute("aria-hidden", "true")
    assert await celebration.locator("span").count() >= 20
    falling = await page.page.evaluate(
        "() => document.getAnimations().filter(a => a.effect.target.closest('.celebration')).length"
    )
    assert falling >= 20
    await expect(page.page.locator("#outcome")).to_contain_text("Won!")
    # it ends by itself, and never stands in a pointer's way
    assert await celebration.evaluate("n => getComputedStyle(n).pointerEvents") == "none"
    await expect(page.page.locator("body")).to_have_attribute(
        "data-celebration", "done", timeout=10_000
    )
    await expect(celebration).to_have_count(0)


async def test_a_won_game_is_celebrated_without_motion_where_motion_is_reduced(
    tabs: Tabs,
) -> None:
    page = await tabs.open()
    last = await play_to_one_move_from_won(page)
    await page.click_move(last)
    await expect(page.page.locator("#outcome")).to_contain_text("Won!")
    await expect(page.page.locator("body")).to_have_attribute("data-celebration", "still")
    await expect(page.page.locator(".celebration")).to_have_count(0)
    await expect(page.page.locator("#announce")).to_contain_text("Won!")


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)], ids=["1280x720", "390x844"])
async def test_moves_time_restart_and_a_new_deal_are_on_screen(
    browser: Browser, site: str, size: tuple[int, int]
) -> None:
    """Without scrolling, on a laptop and a phone: the record (moves and time), and the
    buttons a player reaches for most."""
    width, height = size
    phone = width < 600
    async with browsing(
        browser,
        site,
        viewport={"width": width, "height": height},
        is_mobile=phone,
        has_touch=phone,
        reduced_motion="reduce",
    ) as tabs:
        page = await tabs.open()
        await page.new_game("house-in-the-wood", 7)
        view = await page.view()
        await page.click_move(view["legal_moves"][0])
        await expect(page.page.locator("#record-moves")).to_have_text("1")
        await expect(page.page.locator("#record-time")).to_have_text(re.compile(r"^\d+:\d\d$"))
        for control in (
            "#record",
            "#undo",
            "#restart",
            "#new-random",
            "#hint",
            "#stats-open",
            "#help-open",
        ):
            box = await page.page.locator(control).bounding_box()
            assert box is not None, control
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, control
            assert box["y"] >= 0 and box["y"] + box["height"] <= height, control
        await page.page.click("#restart")
        await page.wait_version(3)
        assert (await page.view())["counters"]["position"] == 0
