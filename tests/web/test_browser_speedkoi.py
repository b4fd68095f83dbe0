"""Speedkoi in a real browser, played to the end against a computer by clicking on the board only: a hand
lantern, then its row or pile; Libelle, Steg and Koi on the paths and piles; drawing from the deck or a pile.
Classic and Laternenfest; screenshots of start, middle and end (desktop and 360 px)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.browsing import assert_the_end_says_how_you_did, kept_on_failure, new_player, shown_n, start_solo
from tests.web.conftest import DESKTOP, PHONE, SCREENS, WebPlatform

GAME_SECONDS = 420


def shoot_at(page: Any, name: str, part: Any) -> None:
    """As `shoot` (desktop and 360 px, nothing wider than the screen), each with `part` scrolled to the top."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for width, viewport in (("desktop", DESKTOP), ("360", PHONE)):
        page.set_viewport_size(viewport)
        part.evaluate("element => element.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(SCREENS / f"{name}-{width}.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
    page.set_viewport_size(size)


def click_on_the_board(page: Any, shot: str = "", keyboard: bool = False) -> str:
    """Make one move by clicking on the board (never the move list); return what kind of click it was. With
    `shot`, a chosen lantern and its targets are saved as that screenshot before the target is clicked."""
    board = page.locator("#board")
    picks = board.locator("input.koi-pick")
    if picks.count() and keyboard:
        # By keyboard alone: Space chooses the first lantern, Tab reaches its first target, Enter previews it,
        # and Enter again confirms (the preview's confirm button has the focus).
        picks.first.focus()
        page.keyboard.press("Space")
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.className")
        assert "koi-target" in focused, focused
        page.keyboard.press("Enter")
        page.locator("#preview button.confirm:focus").wait_for(timeout=10_000)
        page.keyboard.press("Enter")
        return "keyboard"
    if picks.count():
        # A lantern that fits a row if there is one (so figures walk and the game ends), else the first.
        fitting = board.locator('label.koi-pickcard:has(input[data-passt="1"])')
        (fitting.first if fitting.count() else board.locator("label.koi-pickcard").first).click()
        if shot:
            shoot_at(page, shot, board.locator(".koi-hand"))
        targets = board.locator("button.koi-target:visible")
        rows = board.locator(".koi-rows button.koi-target:visible")
        (rows.first if rows.count() else targets.first).click()
        return "lantern"
    steps = board.locator("button.koi-step")
    if steps.count():
        steps.first.click()
        return "step"
    takes = board.locator("button.koi-take")
    draws = board.locator("button.koi-draw")
    if draws.count():
        draws.first.click()
        return "draw"
    if takes.count():
        takes.first.click()
        return "take"
    board.locator("button.koi-act").first.click()
    return "other"


ON_STONES = ("() => { let on = 0, off = 0; for (const svg of document.querySelectorAll('#board svg.koi-pathsvg')) {"
             " const stones = [...svg.querySelectorAll('circle.koi-stone')].map(c => c.getBBox());"
             " for (const fig of svg.querySelectorAll('g.koi-fig')) { const b = fig.firstElementChild.getBBox();"
             " const x = b.x + b.width / 2, y = b.y + b.height / 2;"
             " const inside = s => x > s.x && x < s.x + s.width && y > s.y && y < s.y + s.height;"
             " if (stones.some(inside)) on++; else off++; } }"
             " return [on, off]; }")
"""How many figures stand on a stone of their path (the centre of the figure inside the stone) and how many not."""
MARKED = "() => document.querySelectorAll('#board .koi-fig.last, #board .koi-pile.last, #board .koi-row.last').length"
"""What the opponent's last turn touched, marked on the board (a figure moved, a row laid to, a pile or the deck)."""


def play_on_the_board(page: Any, name: str, marked: list[int] | None = None) -> dict[str, int]:
    """Click moves on the board, each previewed and confirmed, until the end table shows."""
    kinds: dict[str, int] = {}
    deadline, retries, middle = time.monotonic() + GAME_SECONDS, 0, False
    with kept_on_failure(page, name):
        while time.monotonic() < deadline:
            page.locator("#game .end, #board button.koi-act:not(.koi-target), #board input.koi-pick").first \
                .wait_for(timeout=60_000)
            if page.locator("#game .end").count():
                return kinds
            before = shown_n(page)
            if marked is not None and kinds.get("lantern") and page.locator("#board input.koi-pick").count():
                marked.append(page.evaluate(MARKED))  # the computer has had its turn since this player's
            try:
                wanted = not middle and sum(kinds.values()) >= 12
                kind = click_on_the_board(page, f"{name}-middle" if wanted else "", keyboard="keyboard" not in kinds)
                if kind == "keyboard":
                    page.wait_for_function(
                        "n => Number(document.querySelector('#game .status').dataset.n) > n", arg=before,
                        timeout=10_000)
                    kinds[kind] = 1
                    continue
                if wanted and kind == "lantern":
                    middle, kinds["shot"] = True, 1
                page.locator("#preview button.confirm").click(timeout=10_000)
                page.wait_for_function(
                    "n => Number(document.querySelector('#game .status').dataset.n) > n", arg=before, timeout=10_000)
            except PlaywrightTimeout:
                retries += 1  # the live stream swapped the board under the click: look again
                assert retries <= 5, "moves kept failing"
                if page.locator("#preview .cancel").count():
                    page.locator("#preview .cancel").first.click()
                continue
            kinds[kind] = kinds.get(kind, 0) + 1
    raise AssertionError("the game did not end in time")


@pytest.mark.parametrize("spielart", ["Klassisch", "Laternenfest"])
def test_speedkoi_played_to_the_end_by_clicking_on_the_board(browser: Any, web_platform: WebPlatform,
                                                               spielart: str) -> None:
    name = f"speedkoi-{spielart.lower()}"
    context, page = new_player(browser, web_platform, f"Koi{spielart[:3]}")
    try:
        start_solo(page, "speedkoi", {"Spielart": spielart})
        with kept_on_failure(page, f"{name}-start"):
            page.locator("#board .koi").wait_for(timeout=60_000)
        assert page.locator("#board .koi-path").count() == 5
        assert page.locator("#board .koi-hand .koi-cards > li").count() == 8
        shoot_at(page, f"{name}-start", page.locator("#board"))
        # Lanterns at least 28 px on a desktop; the own hand and rows on the first screen (1280 × 800) beside the
        # paths.
        page.set_viewport_size(DESKTOP)
        page.evaluate("window.scrollTo(0, 0)")
        # Their laid-out size, read at one moment: a card the computer's move just brought grows in from half its
        # size (`.arrive`), and the live stream may redraw the board between reading one card and the next.
        sizes = page.evaluate("() => Array.from(document.querySelectorAll('#board .koi-card'))"
                              ".map(card => [card.offsetWidth, card.offsetHeight])")
        assert sizes and all(width >= 28 and height >= 28 for width, height in sizes), sizes
        # (Measured from the board's top, which the page shell puts at most 160 px down.)
        # Read at one moment (a live redraw between two reads left no box to measure).
        reach = page.evaluate("() => { const top = document.querySelector('#board .board').getBoundingClientRect().y;"
                              " return ['#board .koi-hand', '#board .koi-player.koi-me .koi-rows'].map(part => {"
                              " const box = document.querySelector(part).getBoundingClientRect();"
                              " return [part, box.y + box.height - top]; }); }")
        assert all(bottom <= 800 - 160 for _part, bottom in reach), reach
        marked: list[int] = []
        kinds = play_on_the_board(page, name, marked)
        # The computer's last turn was marked on the board each time this player was to lay a lantern again.
        assert marked and all(count >= 1 for count in marked), marked
        on, off = page.evaluate(ON_STONES)  # figures stand on their stones, not beside the path
        assert on >= 2 and off == 0, (on, off)
        assert kinds.get("lantern", 0) >= 5 and kinds.get("draw", 0) + kinds.get("take", 0) >= 5, kinds
        page.locator("#game .end").get_by_text("Ergebnis").wait_for()
        assert page.locator("#game .end-table tbody tr").count() == 2
        assert_the_end_says_how_you_did(page)
        assert page.locator("#board .koi-end").count() == 1  # the board says why it ended
        # One move by keyboard alone; the middle screenshot shows a lantern chosen with its targets.
        assert kinds.get("shot") == 1 and kinds.get("keyboard") == 1
        shoot_at(page, f"{name}-end", page.locator("#game .end"))
    finally:
        context.close()
