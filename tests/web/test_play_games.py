"""The web client at /play in headless Chromium: every variant's table drawn from its
description, whole games played to WON by clicks and drags, undo and redo, an illegal
move explained, a stale move from a second tab shown and recovered from."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from tests.gateway.helpers import Win, load_wins
from tests.web.play_page import CORNER, PlayPage, Tabs, transfer

pytestmark = pytest.mark.xdist_group("browser")

WINS = {win.variant: win for win in load_wins()}
# Fans (La Belle Lucie, with its redeals), columns with runs moved as units (Usk, with a
# redeal) and columns with two-way foundations (Bisley).
PLAYED_TO_WON = ("bisley", "la-belle-lucie", "usk")


def test_every_variants_opening_table_is_drawn_from_its_description(
    tabs: Tabs, site: str, tmp_path: Path
) -> None:
    """Also the screenshots in docs/img: PLAY_SCREENSHOTS=docs/img writes them there."""
    shots = Path(os.environ.get("PLAY_SCREENSHOTS") or tmp_path)
    variants = httpx.get(f"{site}/v1/variants").json()["variants"]
    assert len(variants) == 9
    page = tabs.open()
    for variant in variants:
        description = httpx.get(f"{site}/v1/variants/{variant['id']}").json()
        page.new_game(variant["id"], 1)
        view = page.view()
        drawn = page.page.locator("#table .pile")
        assert drawn.count() == len(description["piles"])
        for pile, shown in zip(description["piles"], view["piles"], strict=True):
            node = page.pile(pile["id"])
            assert pile["kind"] in (node.get_attribute("class") or "").split()
            assert page.cards(pile["id"]) == shown["cards"], pile["id"]
            if pile["kind"] == "foundation" and not shown["cards"]:
                base = "K" if pile["direction"] == "down" else "A"
                arrow = "▼" if pile["direction"] == "down" else "▲"
                suit = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}[pile["suit"]]
                expect(node.locator(".placeholder")).to_have_text(f"{base}{suit} {arrow}")
            if pile["kind"] == "stock":
                expect(node.locator(".card.back")).to_have_text(str(shown["size"]))
        expect(page.page.locator("#status")).to_contain_text(f"{description['name']}, deal 1")
        page.page.screenshot(path=shots / f"play-{variant['id']}.png", full_page=True)
    assert len(list(shots.glob("play-*.png"))) >= 9


@pytest.mark.parametrize("variant", PLAYED_TO_WON)
def test_a_whole_game_is_played_to_won_by_clicks_and_drags(tabs: Tabs, variant: str) -> None:
    win: Win = WINS[variant]
    assert not win.options
    page = tabs.open()
    page.new_game(variant, win.deal)
    for number, notation in enumerate(win.moves):
        if transfer(notation) is not None and number % 2:
            page.drag_move(notation)
        else:
            page.click_move(notation)
    outcome = page.page.locator("#outcome")
    expect(outcome).to_be_visible()
    expect(outcome).to_contain_text("Won!")
    view = page.view()
    assert view["status"] == "won"
    assert view["counters"]["foundation_cards"] == view["counters"]["total_cards"]
    foundations = [p["id"] for p in view["piles"] if p["kind"] == "foundation"]
    assert sum(len(page.cards(f)) for f in foundations) == view["counters"]["total_cards"]
    expect(page.message()).to_be_hidden()


def all_cards(page: PlayPage) -> dict[str, list[str]]:
    return {pile["id"]: page.cards(pile["id"]) for pile in page.view()["piles"]}


def test_undo_and_redo(tabs: Tabs) -> None:
    page = tabs.open()
    win = WINS["bisley"]
    page.new_game("bisley", win.deal)
    expect(page.page.locator("#undo")).to_be_disabled()
    expect(page.page.locator("#redo")).to_be_disabled()
    tables = [all_cards(page)]
    for notation in win.moves[:3]:
        page.click_move(notation)
        tables.append(all_cards(page))
    page.undo()
    assert all_cards(page) == tables[2]
    page.undo()
    assert all_cards(page) == tables[1]
    expect(page.page.locator("#redo")).to_be_enabled()
    page.redo()
    assert all_cards(page) == tables[2]
    assert page.view()["counters"]["moves_made"] == 2
    # a new move drops what could still be redone
    page.undo()
    page.drag_move(win.moves[1])
    expect(page.page.locator("#redo")).to_be_disabled()
    page.undo()
    page.undo()
    expect(page.page.locator("#undo")).to_be_disabled()
    assert all_cards(page) == tables[0]


def test_an_illegal_move_is_explained_and_changes_nothing(tabs: Tabs) -> None:
    tabs.expect_refusals(422)
    page = tabs.open()
    page.new_game("la-belle-lucie", 0)
    view = page.view()
    legal = set(view["legal_moves"])
    illegal = next(
        f"{source}-{target}"
        for source in (p["id"] for p in view["piles"] if p["kind"] == "tableau")
        for target in (p["id"] for p in view["piles"] if p["kind"] == "tableau")
        if source != target and f"{source}-{target}" not in legal
    )
    move = transfer(illegal)
    assert move is not None
    page.source_card(move).click(position=CORNER)
    # the piles the card may go to are marked, and this one is not
    assert "target" not in (page.pile(move.target).get_attribute("class") or "")
    page.pile(move.target).click(position=CORNER)
    expect(page.message()).to_contain_text("That move is not allowed")
    assert tabs.refusals == [422]
    assert page.version() == 1 and page.view()["legal_moves"] == view["legal_moves"]
    page.click_move(view["legal_moves"][0])
    expect(page.message()).to_be_hidden()


def test_a_stale_move_from_a_second_tab_is_shown_and_recovered_from(tabs: Tabs) -> None:
    tabs.expect_refusals(412)
    first = tabs.open()
    win = WINS["la-belle-lucie"]
    first.new_game("la-belle-lucie", win.deal)
    # The first tab hears nothing of the second's moves (its event stream is cut off).
    first.page.route("**/events?*", lambda route: route.abort())
    second = tabs.open(first.address())
    second.wait_version(1)
    second.click_move(win.moves[0])
    # The first tab still shows version 1 and tries a move from there.
    assert first.version() == 1
    move = transfer(win.moves[1])
    assert move is not None
    first.source_card(move).click(position=CORNER)
    first.pile(move.target).click(position=CORNER)
    expect(first.message()).to_contain_text("changed elsewhere")
    expect(first.message()).to_contain_text("version 2")
    first.wait_version(2)
    assert tabs.refusals == [412]
    assert all_cards(first) == all_cards(second)
    first.click_move(win.moves[1])
    expect(first.message()).to_be_hidden()
    assert first.version() == 3
