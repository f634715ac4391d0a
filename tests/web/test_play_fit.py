"""Every game's table fits the screen and reads well, from the page's geometry: the nine
games at 1366x768 and 1280x720 (laptops) and 390x844 (a phone held upright), each at its
opening table (deal 7) and again in the middle of a game (after MIDGAME legal moves).

What is asserted, at every size:

- nothing needs scrolling: the document is no wider and no taller than the window, and
  every pile and every card lies inside it (on the phone too: the two-pack games take a
  compact layout there, columns in bands and fans in rows, rather than a long scroll);
- every card's corner (its rank and suit) is readable: at least 12 CSS px, inside its
  own card (a "10" is not clipped), and not covered by any card drawn over it, in its
  pile or another; no two corners overlap; piles do not overlap;
- the foundations' and the stock's labels are at least 12 px too.

One page per size, the games dealt one after another in it. PLAY_SCREENSHOTS=docs/img
also writes each opening table on the phone there (play-phone-<game>.png)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, expect

from tests.web.play_page import PlayPage, browsing, transfer

pytestmark = pytest.mark.xdist_group("browser")

VARIANTS = (
    "cody",
    "little-billee",
    "usk",
    "la-belle-lucie",
    "house-in-the-wood",
    "house-on-the-hill",
    "napoleon-at-st-helena",
    "the-fifteen",
    "bisley",
)
SCREENS = {
    "1366x768": {"viewport": {"width": 1366, "height": 768}},
    "1280x720": {"viewport": {"width": 1280, "height": 720}},
    "390x844": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
DEAL = 7
MIDGAME = 12
MIN_FONT_PX = 12.0
SLACK = 0.5  # px: rounding of the layout

# Everything the checks read, in one evaluation: the window, the document, and every
# pile, card and corner on the table. A card is "shown" unless it lies under the top card
# of a stack (a foundation, cell, stock or waste shows its top card only).
GEOMETRY = """() => {
    const box = (node) => {
        const r = node.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
    };
    const px = (node) => parseFloat(getComputedStyle(node).fontSize);
    const piles = [...document.querySelectorAll('#table .pile')].map((pile) => ({
        id: pile.dataset.pile,
        stack: pile.matches('.stack, .cell'),
        box: box(pile),
        labels: [...pile.querySelectorAll('.placeholder, .card.back')]
            .filter((n) => n.textContent.trim())
            .map((n) => ({text: n.textContent.trim(), font: px(n)})),
        cards: [...pile.querySelectorAll('.card')].map((card, order, all) => {
            const corner = card.querySelector('.corner');
            return {
                code: card.dataset.card || null,
                order,
                shown: !pile.matches('.stack, .cell') || order === all.length - 1,
                box: box(card),
                corner: corner && box(corner),
                fonts: corner ? [...corner.children].map(px) : [],
            };
        }),
    }));
    const table = document.getElementById('table');
    return {
        width: window.innerWidth,
        height: window.innerHeight,
        scrollWidth: document.documentElement.scrollWidth,
        scrollHeight: document.documentElement.scrollHeight,
        cardWidth: parseFloat(getComputedStyle(table).getPropertyValue('--card-w')),
        fits: table.dataset.fits,
        piles,
    };
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["left"] < b["right"] - SLACK
        and b["left"] < a["right"] - SLACK
        and a["top"] < b["bottom"] - SLACK
        and b["top"] < a["bottom"] - SLACK
    )


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["left"] >= outer["left"] - SLACK
        and inner["top"] >= outer["top"] - SLACK
        and inner["right"] <= outer["right"] + SLACK
        and inner["bottom"] <= outer["bottom"] + SLACK
    )


def problems(geometry: dict[str, Any]) -> tuple[list[str], dict[str, float]]:
    """What is wrong with the table as measured, and its smallest corner font and card."""
    wrong: list[str] = []
    screen = {"left": 0.0, "top": 0.0, "right": geometry["width"], "bottom": geometry["height"]}
    if geometry["scrollWidth"] > geometry["width"]:
        wrong.append(f"the page is {geometry['scrollWidth']} px wide")
    if geometry["scrollHeight"] > geometry["height"]:
        wrong.append(f"the page is {geometry['scrollHeight']} px tall")
    piles = geometry["piles"]
    shown = [(pile["id"], card) for pile in piles for card in pile["cards"] if card["shown"]]
    for pile in piles:
        if not inside(pile["box"], screen):
            wrong.append(f"{pile['id']} lies outside the window: {pile['box']}")
        for label in pile["labels"]:
            if label["font"] < MIN_FONT_PX:
                wrong.append(f"{pile['id']}'s label {label['text']!r} is {label['font']} px")
    for i, a in enumerate(piles):
        for b in piles[i + 1 :]:
            if overlap(a["box"], b["box"]):
                wrong.append(f"{a['id']} and {b['id']} overlap")
    fonts: list[float] = []
    widths: list[float] = []
    for pile, card in shown:
        name = f"{card['code'] or 'a card face down'} in {pile}"
        widths.append(card["box"]["right"] - card["box"]["left"])
        if not inside(card["box"], screen):
            wrong.append(f"{name} lies outside the window")
        if card["corner"] is None:
            continue
        fonts.extend(card["fonts"])
        if min(card["fonts"]) < MIN_FONT_PX:
            wrong.append(f"{name}: its corner is {min(card['fonts'])} px")
        if not inside(card["corner"], card["box"]):
            wrong.append(f"{name}: its corner is clipped by its own edge")
        # covered by a card drawn over it: a later one of its pile, or any of another
        for other_pile, other in shown:
            over = other_pile != pile or other["order"] > card["order"]
            if over and other is not card and overlap(card["corner"], other["box"]):
                wrong.append(f"{name}: its corner is covered by {other['code']} in {other_pile}")
    corners = [(pile, card) for pile, card in shown if card["corner"] is not None]
    for i, (pile, card) in enumerate(corners):
        for other_pile, other in corners[i + 1 :]:
            if overlap(card["corner"], other["corner"]):
                wrong.append(
                    f"the corners of {card['code']} in {pile} and {other['code']} in "
                    f"{other_pile} overlap"
                )
    smallest = {"font": min(fonts, default=0.0), "card": min(widths, default=0.0)}
    return wrong, smallest


async def play_midgame(page: PlayPage, moves: int) -> None:
    """Plays `moves` legal moves as a player might: onto the tableau where it can (the
    piles grow, which is what a layout must bear), never straight back, else any."""
    last: tuple[str, str] | None = None
    for _ in range(moves):
        view = await page.view()
        legal: list[str] = view["legal_moves"]
        chosen = None
        for notation in legal:
            move = transfer(notation)
            if move is None or not move.target.startswith("t"):
                continue
            if last == (move.target, move.source):
                continue
            chosen = notation
            break
        if chosen is None:
            transfers = [m for m in legal if transfer(m) is not None]
            chosen = (transfers or legal or [None])[0]
        if chosen is None:
            return
        move = transfer(chosen)
        last = (move.source, move.target) if move else None
        before = await page.version()
        await page.page.evaluate("notation => window.patience.play(notation)", chosen)
        await page.wait_version(before + 1)


@pytest.fixture(scope="module")
async def screens(browser: Browser, site: str) -> AsyncIterator[dict[str, PlayPage]]:
    """A page at each size, kept for the module: the games are dealt one after another."""
    async with AsyncExitStack() as stack:
        pages: dict[str, PlayPage] = {}
        for size, options in SCREENS.items():
            tabs = await stack.enter_async_context(
                browsing(browser, site, reduced_motion="reduce", **options)
            )
            pages[size] = await tabs.open()
        yield pages


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("size", SCREENS)
async def test_the_table_fits_and_reads_well(
    screens: dict[str, PlayPage], size: str, variant: str
) -> None:
    page = screens[size]
    await page.new_game(variant, DEAL)
    for moment in ("opening", "mid-game"):
        if moment == "mid-game":
            await play_midgame(page, MIDGAME)
            assert (await page.view())["counters"]["position"] >= MIDGAME // 2
        await expect(page.table).to_have_attribute("data-fits", "true")
        geometry = await page.page.evaluate(GEOMETRY)
        wrong, smallest = problems(geometry)
        shots = os.environ.get("PLAY_SCREENSHOTS")
        if shots and size == "390x844" and moment == "opening":
            await page.page.screenshot(path=Path(shots) / f"play-phone-{variant}.png")
        print(
            f"{size} {variant} {moment}: card {smallest['card']:.1f} px wide, "
            f"smallest corner {smallest['font']:.1f} px"
        )
        assert wrong == [], f"{variant} at {size}, {moment}: " + "; ".join(wrong[:12])
