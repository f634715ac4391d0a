"""The web client on a phone-sized screen, by keyboard alone, with its animations; and
the documentation pages, which must work with every other site out of reach."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, Page, Route, expect

from tests.gateway.helpers import load_wins
from tests.web.play_page import CORNER, PlayPage, Tabs, browsing, transfer

pytestmark = pytest.mark.xdist_group("browser")

WINS = {win.variant: win for win in load_wins()}
PHONE = {"width": 390, "height": 844}
GLIDING = "() => document.getAnimations().filter(a => a.effect.target.matches('.card')).length"


@pytest.fixture
async def phone(browser: Browser, site: str) -> AsyncIterator[Tabs]:
    async with browsing(
        browser, site, viewport=PHONE, is_mobile=True, has_touch=True, reduced_motion="reduce"
    ) as tabs:
        yield tabs


@pytest.fixture
async def moving(browser: Browser, site: str) -> AsyncIterator[Tabs]:
    """Tabs that show the cards' animations (as a person's browser does by default)."""
    async with browsing(browser, site, viewport={"width": 1280, "height": 900}) as tabs:
        yield tabs


async def fits_the_width(page: Page) -> None:
    width = PHONE["width"]
    assert await page.evaluate("document.documentElement.scrollWidth") <= width
    right_edges = await page.locator("#table .pile").evaluate_all(
        "nodes => nodes.map(n => n.getBoundingClientRect().right)"
    )
    assert right_edges and max(right_edges) <= width
    for control in ("#variant", "#deal", "#start", "#undo", "#redo"):
        box = await page.locator(control).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, control


@pytest.mark.parametrize(
    "variant", ["the-fifteen", "house-in-the-wood", "cody", "napoleon-at-st-helena"]
)
async def test_the_widest_tables_fit_a_phone_and_play_by_touch(phone: Tabs, variant: str) -> None:
    page = await phone.open()
    await page.new_game(variant, 1)
    await fits_the_width(page.page)
    first = (await page.view())["legal_moves"][0]
    move = transfer(first)
    if move is None:
        await page.page.locator("#deal-card" if first == "deal" else "#redeal").tap()
    else:
        await page.source_card(move).tap(position=CORNER)
        await page.pile(move.target).tap(position=CORNER)
    await page.wait_version(2)
    await fits_the_width(page.page)


async def focused(page: Page) -> dict[str, str | int | None]:
    info: dict[str, str | int | None] = await page.evaluate(
        """() => {
            const node = document.activeElement;
            const piles = [...document.querySelectorAll('#table .pile')];
            return {id: node.id || null, pile: node.dataset.pile || null,
                    index: piles.indexOf(node)};
        }"""
    )
    return info


async def tab_to(page: Page, wanted: str, backwards: bool = False) -> None:
    """Presses Tab (or Shift+Tab) until the element with id `wanted`, or any pile for
    `wanted == "pile"`, has the focus."""
    for _ in range(80):
        now = await focused(page)
        if now["id"] == wanted or (wanted == "pile" and now["pile"]):
            return
        await page.keyboard.press("Shift+Tab" if backwards else "Tab")
    raise AssertionError(f"Tab never reached {wanted}")


async def arrow_to(page: Page, pile: str) -> None:
    piles: list[str] = await page.locator("#table .pile").evaluate_all(
        "nodes => nodes.map(n => n.dataset.pile)"
    )
    steps = piles.index(pile) - int((await focused(page))["index"] or 0)
    for _ in range(abs(steps)):
        await page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
    assert (await focused(page))["pile"] == pile


async def keyboard_move(play: PlayPage, notation: str) -> None:
    page = play.page
    before = await play.version()
    move = transfer(notation)
    if move is None:
        await tab_to(page, "redeal" if notation == "redeal" else "deal-card", backwards=True)
        await page.keyboard.press("Enter")
    else:
        await tab_to(page, "pile")
        await arrow_to(page, move.source)
        picked = play.pile(move.source).locator(".card.picked")
        for _ in range(4):  # Enter again: more cards, as many as may move together
            await page.keyboard.press("Enter")
            if await picked.count() == move.count:
                break
        assert await picked.count() == move.count
        await arrow_to(page, move.target)
        await page.keyboard.press("Enter")
    await play.wait_version(before + 1)


async def test_a_game_is_played_by_keyboard_alone(tabs: Tabs) -> None:
    play = await tabs.open()
    page = play.page
    win = WINS["usk"]
    await tab_to(page, "variant")
    await page.keyboard.type("Usk")
    await page.keyboard.press("Tab")
    await page.keyboard.type(str(win.deal))
    await page.keyboard.press("Enter")
    await expect(play.table).to_have_attribute("data-variant", "usk")
    await play.wait_version(1)
    # a redeal (a button) and runs of two cards moved as units (Enter twice)
    moves = win.moves[:12]
    assert "redeal" in moves and any(m.endswith("/2") for m in moves)
    for notation in moves:
        await keyboard_move(play, notation)
    await tab_to(page, "pile")
    await page.keyboard.press("u")
    await play.wait_version(len(moves) + 2)
    await page.keyboard.press("r")
    await play.wait_version(len(moves) + 3)
    assert (await play.view())["counters"]["position"] == len(moves)


async def test_the_cards_that_move_are_animated(moving: Tabs) -> None:
    play = await moving.open()
    win = WINS["la-belle-lucie"]
    await play.new_game("la-belle-lucie", win.deal)
    assert await play.click_move(win.moves[0]) >= 1
    await play.page.wait_for_function(f"() => ({GLIDING})() === 0")
    assert await play.undo() >= 1


async def test_the_documentation_pages_work_with_nothing_else_reachable(
    tabs: Tabs, site: str
) -> None:
    elsewhere: list[str] = []

    async def only_the_gateway(route: Route) -> None:
        if route.request.url.startswith(site):
            await route.continue_()
        else:
            elsewhere.append(route.request.url)
            await route.abort()

    await tabs.context.route("**/*", only_the_gateway)
    page = await tabs.context.new_page()
    await page.goto(f"{site}/docs")
    # both pages lay out the whole OpenAPI document in the browser: slow on a busy machine
    await expect(page.locator(".opblock").first).to_be_visible(timeout=30_000)
    assert await page.locator(".opblock").count() >= 10
    await page.goto(f"{site}/redoc")
    heading = page.get_by_role("heading", name="Make a move")
    await expect(heading).to_be_visible(timeout=30_000)
    assert elsewhere == []
