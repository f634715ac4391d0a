"""The web client on a phone-sized screen, by keyboard alone, with its animations; and
the documentation pages, which must work with every other site out of reach."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.gateway.helpers import load_wins
from tests.web.play_page import CORNER, PlayPage, Tabs, browsing, transfer

pytestmark = pytest.mark.xdist_group("browser")

WINS = {win.variant: win for win in load_wins()}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser: Browser, site: str) -> Iterator[Tabs]:
    with browsing(
        browser, site, viewport=PHONE, is_mobile=True, has_touch=True, reduced_motion="reduce"
    ) as tabs:
        yield tabs


@pytest.fixture
def moving(browser: Browser, site: str) -> Iterator[Tabs]:
    """Tabs that show the cards' animations (as a person's browser does by default)."""
    with browsing(browser, site, viewport={"width": 1280, "height": 900}) as tabs:
        yield tabs


def fits_the_width(page: Page) -> None:
    width = PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    right_edges = page.locator("#table .pile").evaluate_all(
        "nodes => nodes.map(n => n.getBoundingClientRect().right)"
    )
    assert right_edges and max(right_edges) <= width
    for control in ("#variant", "#deal", "#start", "#undo", "#redo"):
        box = page.locator(control).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, control


@pytest.mark.parametrize(
    "variant", ["the-fifteen", "house-in-the-wood", "cody", "napoleon-at-st-helena"]
)
def test_the_widest_tables_fit_a_phone_and_play_by_touch(phone: Tabs, variant: str) -> None:
    page = phone.open()
    page.new_game(variant, 1)
    fits_the_width(page.page)
    first = page.view()["legal_moves"][0]
    move = transfer(first)
    if move is None:
        page.page.locator("#deal-card" if first == "deal" else "#redeal").tap()
    else:
        page.source_card(move).tap(position=CORNER)
        page.pile(move.target).tap(position=CORNER)
    page.wait_version(2)
    fits_the_width(page.page)


def focused(page: Page) -> dict[str, str | int | None]:
    info: dict[str, str | int | None] = page.evaluate(
        """() => {
            const node = document.activeElement;
            const piles = [...document.querySelectorAll('#table .pile')];
            return {id: node.id || null, pile: node.dataset.pile || null,
                    index: piles.indexOf(node)};
        }"""
    )
    return info


def tab_to(page: Page, wanted: str, backwards: bool = False) -> None:
    """Presses Tab (or Shift+Tab) until the element with id `wanted`, or any pile for
    `wanted == "pile"`, has the focus."""
    for _ in range(80):
        now = focused(page)
        if now["id"] == wanted or (wanted == "pile" and now["pile"]):
            return
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
    raise AssertionError(f"Tab never reached {wanted}")


def arrow_to(page: Page, pile: str) -> None:
    piles: list[str] = page.locator("#table .pile").evaluate_all(
        "nodes => nodes.map(n => n.dataset.pile)"
    )
    steps = piles.index(pile) - int(focused(page)["index"] or 0)
    for _ in range(abs(steps)):
        page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
    assert focused(page)["pile"] == pile


def keyboard_move(play: PlayPage, notation: str) -> None:
    page = play.page
    before = play.version()
    move = transfer(notation)
    if move is None:
        tab_to(page, "redeal" if notation == "redeal" else "deal-card", backwards=True)
        page.keyboard.press("Enter")
    else:
        tab_to(page, "pile")
        arrow_to(page, move.source)
        picked = play.pile(move.source).locator(".card.picked")
        for _ in range(4):  # Enter again: more cards, as many as may move together
            page.keyboard.press("Enter")
            if picked.count() == move.count:
                break
        assert picked.count() == move.count
        arrow_to(page, move.target)
        page.keyboard.press("Enter")
    play.wait_version(before + 1)


def test_a_game_is_played_by_keyboard_alone(tabs: Tabs) -> None:
    play = tabs.open()
    page = play.page
    win = WINS["usk"]
    tab_to(page, "variant")
    page.keyboard.type("Usk")
    page.keyboard.press("Tab")
    page.keyboard.type(str(win.deal))
    page.keyboard.press("Enter")
    expect(play.table).to_have_attribute("data-variant", "usk")
    play.wait_version(1)
    # a redeal (a button) and runs of two cards moved as units (Enter twice)
    moves = win.moves[:12]
    assert "redeal" in moves and any(m.endswith("/2") for m in moves)
    for notation in moves:
        keyboard_move(play, notation)
    tab_to(page, "pile")
    page.keyboard.press("u")
    play.wait_version(len(moves) + 2)
    page.keyboard.press("r")
    play.wait_version(len(moves) + 3)
    assert play.view()["counters"]["moves_made"] == len(moves)
    page.keyboard.press("Escape")


def test_the_cards_that_move_are_animated(moving: Tabs) -> None:
    play = moving.open()
    win = WINS["la-belle-lucie"]
    play.new_game("la-belle-lucie", win.deal)
    play.click_move(win.moves[0])
    gliding = "() => document.getAnimations().filter(a => a.effect.target.matches('.card')).length"
    assert play.page.evaluate(gliding) >= 1
    play.page.wait_for_function(f"() => ({gliding})() === 0")
    play.undo()
    assert play.page.evaluate(gliding) >= 1


def test_the_documentation_pages_work_with_nothing_else_reachable(tabs: Tabs, site: str) -> None:
    elsewhere: list[str] = []

    def only_the_gateway(route: Route) -> None:
        if route.request.url.startswith(site):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    tabs.context.route("**/*", only_the_gateway)
    page = tabs.context.new_page()
    page.goto(f"{site}/docs")
    # both pages lay out the whole OpenAPI document in the browser: slow on a busy machine
    expect(page.locator(".opblock").first).to_be_visible(timeout=30_000)
    assert page.locator(".opblock").count() >= 10
    page.goto(f"{site}/redoc")
    expect(page.get_by_role("heading", name="Make a move")).to_be_visible(timeout=30_000)
    assert elsewhere == []
