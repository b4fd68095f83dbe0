"""Speedmosaik on its own board in a real browser: each workshop played to the end against a computer (turbo)
by clicking on the board only — a colour in a display, then the row, strip or star space of the player's own
board — with the API's preview confirmed each time. Screenshots per workshop: start, middle (after the 8th
move, with a colour or star space picked and its targets shown where that move is two clicks), end. On a phone
"Sterne vergrößern" makes every star space of the own pavilion at least 44 px."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.browsing import (
    assert_the_end_says_how_you_did,
    kept_on_failure,
    new_player,
    shoot,
    shown_n,
    start_solo,
    wait_for_a_move,
)
from tests.web.conftest import DESKTOP, PHONE, SCREENS, WebPlatform

WORKSHOP_SECONDS = 420
BOARD = "#board .mosaik"


def _my_turn(page: Any) -> bool:
    """Wait until the game ended or the board, drawn for the state the game part shows, offers this seat a move;
    the shell lists none of Speedmosaik's moves (all are on the board)."""
    if not wait_for_a_move(page, timeout=60_000):
        return False
    assert page.locator("#game button.move:not(.undo)").count() == 0
    return True


def _shoot_board(page: Any, name: str) -> None:
    """Screenshots (desktop and 360 px) with the board scrolled into view (the status and seats stand above it)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for viewport, suffix in ((DESKTOP, "desktop"), (PHONE, "360")):
        page.set_viewport_size(viewport)
        page.evaluate("document.querySelector('#board').scrollIntoView()")
        page.screenshot(path=str(SCREENS / f"{name}-{suffix}.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name  # usable at 360 px
    page.set_viewport_size(size)


def _zoomed_stars(page: Any) -> list[float]:
    """At 360 px with "Sterne vergrößern" checked: every space to click on the own pavilion at least 44 px wide and
    tall, only the pavilion's own box scrolls (the page never sideways); the box, not shown on a desktop, is
    unchecked again (it survives redraws). The sides measured."""
    size = page.viewport_size
    zoom = page.locator(f"{BOARD} #mz-zoom")
    assert zoom.count() == 1 and not zoom.is_visible()
    page.set_viewport_size(PHONE)
    try:
        zoom.check()
        sides = page.evaluate("[...document.querySelectorAll('#board .mz-pav button')].filter("
                              "e => e.getClientRects().length).map(e => { const r = e.getBoundingClientRect();"
                              " return Math.min(r.width, r.height); })")
        assert sides and min(sides) >= 44, sides
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        zoom.uncheck()
    finally:
        page.set_viewport_size(size)
    return [float(side) for side in sides]


def _board_move(page: Any, kept: list[int], shot: str | None = None) -> bool:
    """One move by clicking on the board: a pick (a colour, a star space) and then its first target, or else a
    move button of the board itself; then the preview's "Zug ausführen". True when `shot` was taken.

    Sternpavillon: until the player has once been asked which tiles to keep, it passes as soon as it may (with
    all the tiles of the first takes in hand), so the keep form is filled in (one colour less than suggested)
    and sent; `kept` holds the state numbers where that happened."""
    before, shot_taken = shown_n(page), False
    picks = page.locator(f"{BOARD} button.mz-pick")
    keep = page.locator(f"{BOARD} form.mz-keepform")
    passing = page.locator(f"{BOARD} button.mz-move", has_text="Passen")
    keeping = keep.count() > 0
    if keeping:
        counts = keep.locator("input[type=number]")
        for index in range(counts.count()):
            if int(counts.nth(index).input_value()) > 0:
                counts.nth(index).fill(str(int(counts.nth(index).input_value()) - 1))  # typed, not the suggestion
                break
        keep.get_by_role("button", name="Diese Steine behalten").click(timeout=10_000)
    elif passing.count() and not kept:
        passing.first.click(timeout=10_000)
    elif picks.count():
        pick = picks.last
        key = pick.get_attribute("data-pick")
        pick.click(timeout=10_000)
        target = page.locator(f'{BOARD} button.mz-target[data-pick-for="{key}"]:visible').first
        target.wait_for(timeout=10_000)
        assert pick.get_attribute("aria-pressed") == "true"
        if shot:
            _shoot_board(page, shot)
            shot_taken = True
        target.click(timeout=10_000)
    else:
        if shot:
            _shoot_board(page, shot)
            shot_taken = True
        page.locator(f"{BOARD} button.mz-move:not(.mz-target)").first.click(timeout=10_000)
    page.locator("#preview button.confirm").click(timeout=10_000)
    page.wait_for_function("n => Number(document.querySelector('#game .status').dataset.n) > n", arg=before,
                           timeout=20_000)
    if keeping:
        kept.append(before)  # made: the preview of the typed counts was confirmed
    return shot_taken


def _play_on_the_board(page: Any, name: str, zoomed: list[float] | None = None) -> tuple[int, bool, int]:
    """Play to the end on the board; how many moves, whether the middle screenshot was taken, and how often the
    keep form was sent. With `zoomed` (Sternpavillon): the first time star spaces are offered, their sizes on the
    zoomed pavilion at 360 px are measured into it."""
    moves, retries, deadline, middle = 0, 0, time.monotonic() + WORKSHOP_SECONDS, False
    kept: list[int] = []
    while time.monotonic() < deadline:
        with kept_on_failure(page, name):
            if not _my_turn(page):
                return moves, middle, len(kept)
            if zoomed is not None and not zoomed and page.locator(f"{BOARD} .mz-pav button.mz-sp").count():
                zoomed.extend(_zoomed_stars(page))
        try:
            middle = _board_move(page, kept, shot=f"{name}-middle" if moves >= 8 and not middle else None) or middle
        except PlaywrightTimeout:
            # A live update may redraw the board under the click, or a refused outdated move left its reason in
            # the preview: cancel it and look again.
            retries += 1
            assert retries <= 8, "board moves kept failing"
            if page.locator("#preview .cancel").count():
                page.locator("#preview .cancel").click()
            continue
        moves += 1
    raise AssertionError(f"{name} did not end in time")


@pytest.mark.parametrize(("workshop", "options", "name"), [
    ("Kachelwand", {}, "speedmosaik-kachelwand"),
    ("Kachelwand", {"Wand": "frei", "Joker": "mit Jokern"}, "speedmosaik-kachelwand-frei"),
    ("Kirchenfenster", {}, "speedmosaik-kirchenfenster"),
    ("Sternpavillon", {}, "speedmosaik-sternpavillon"),
], ids=["kachelwand", "kachelwand-frei-joker", "kirchenfenster", "sternpavillon"])
def test_a_workshop_is_played_to_the_end_by_clicking_on_the_board(browser: Any, web_platform: WebPlatform,
                                                                  workshop: str, options: dict[str, str],
                                                                  name: str) -> None:
    started = time.monotonic()
    context, page = new_player(browser, web_platform, f"Mila {workshop}")
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    try:
        start_solo(page, "speedmosaik", {"Werkstatt": workshop, **options})
        page.locator(BOARD).wait_for()
        assert page.locator(f"{BOARD}.{workshop.lower()}").count() == 1
        if options.get("Wand") == "frei":
            assert page.locator(f'{BOARD} .mz-wall[aria-label="Wand (frei)"]').count() == 2
        assert _my_turn(page)
        assert page.locator("#game .banner.turn", has_text="Du bist am Zug").count() == 1
        _shoot_board(page, f"{name}-start")
        zoomed: list[float] = []
        moves, middle, kept = _play_on_the_board(page, name, zoomed if workshop == "Sternpavillon" else None)
        end = page.locator("#game .end")
        assert "Ergebnis" in end.inner_text() and f"Mila {workshop} (du)" in end.inner_text()
        assert_the_end_says_how_you_did(page)
        assert moves >= 5 and middle
        if workshop == "Sternpavillon":
            assert kept >= 1  # the tiles to keep were typed into the board's form
            assert zoomed and min(zoomed) >= 44, zoomed  # "Sterne vergrößern": every star space ≥ 44 px at 360 px
        shoot(page, f"{name}-end")  # the end table on top
        _shoot_board(page, f"{name}-end-board")
        assert not [text for text in console if "Content Security Policy" in text], console
        print(f"\n{workshop}: {moves} moves on the board in {time.monotonic() - started:.1f} s"
              + (f", tiles kept through the form {kept} times, zoomed star spaces ≥ {min(zoomed):.1f} px"
                 if workshop == "Sternpavillon" else ""))
    finally:
        context.close()


def test_a_take_on_the_board_by_keyboard_alone(browser: Any, web_platform: WebPlatform) -> None:
    context, page = new_player(browser, web_platform, "Tastatur")
    try:
        with kept_on_failure(page, "speedmosaik-keyboard"):
            start_solo(page, "speedmosaik", {"Werkstatt": "Kachelwand"})
            assert _my_turn(page)
            before = shown_n(page)
            pick = page.locator(f"{BOARD} button.mz-pick").first
            for _ in range(3):  # the live stream's first redraw of the same state may take the focus once
                pick.focus()
                page.keyboard.press("Enter")
                if pick.get_attribute("aria-pressed") == "true":
                    break
            assert pick.get_attribute("aria-pressed") == "true"
            focused = page.evaluate("document.activeElement.getAttribute('data-pick-for')")
            assert focused == pick.get_attribute("data-pick")  # on to the first target of that colour
            page.keyboard.press("Enter")
            page.locator("#preview button.confirm").wait_for()
            # web.js gives the preview's "Zug ausführen" the focus once htmx has wired it (htmx:load), as it shows
            # ... and the board with the move on it (the same answer, swapped in out of band) has settled: a player
            # presses Enter on what they see, not in the milliseconds htmx is still swapping.
            page.wait_for_function(
                "() => document.activeElement && document.activeElement.classList.contains('confirm')"
                " && document.querySelector('#board [data-ghost]')"
                " && !document.querySelector('.htmx-swapping, .htmx-settling, .htmx-request')", timeout=5_000)
            page.keyboard.press("Enter")
            page.wait_for_function("n => Number(document.querySelector('#game .status').dataset.n) > n", arg=before)
    finally:
        context.close()


def _measure(page: Any) -> dict[str, float]:
    """What a player sees of the board at the page's width: where the own board starts below the board's top, the
    smallest tile or space of the own board (its shorter side, px), how wide the page is."""
    measured: dict[str, float] = page.evaluate("""() => {
        const board = document.querySelector('#board .mosaik'), mine = board.querySelector('.mz-mine');
        const sizes = [...mine.querySelectorAll('.mz-tile, .mz-slot, .mz-space')].map(e => e.getBoundingClientRect())
            .filter(r => r.width > 0).map(r => Math.min(r.width, r.height));
        return {own: mine.getBoundingClientRect().top - board.getBoundingClientRect().top,
                tile: Math.min(...sizes), width: document.documentElement.scrollWidth};
    }""")
    return measured


@pytest.mark.parametrize("workshop", ["Kachelwand", "Kirchenfenster", "Sternpavillon"])
def test_the_board_looks_like_its_game_at_both_widths(browser: Any, web_platform: WebPlatform, workshop: str) -> None:
    context, page = new_player(browser, web_platform, f"Bild {workshop}")
    try:
        with kept_on_failure(page, f"speedmosaik-look-{workshop}"):
            start_solo(page, "speedmosaik", {"Werkstatt": workshop})
            assert _my_turn(page)
            desktop = _measure(page)
            assert desktop["tile"] >= 28, desktop  # tiles at least 28 px on a desktop
            assert desktop["own"] <= 500, desktop  # the own board high on the first screen, beside the displays
            mine = page.locator(f"{BOARD} .mz-mine")
            if workshop == "Sternpavillon":
                assert mine.locator(".mz-pav svg polygon").count() == 42  # seven stars of six spaces
                costs = mine.locator(".mz-pav svg text.mz-cost").evaluate_all("els => els.map(e => e.textContent)")
                assert sorted(costs) == sorted([str(n) for n in range(1, 7)] * 7)  # each star's values 1–6
                assert mine.locator(".mz-place").count() == 18  # pillars, statues, windows between the stars
            if workshop == "Kirchenfenster":
                assert mine.locator(".mz-strip .mz-num").all_inner_texts() == [str(n) for n in range(1, 9)]
                assert mine.locator(".mz-master:not(.mz-none)").count() == 1
                assert "Glasermeister" in mine.locator(".mz-legend").first.inner_text()
                assert mine.locator(".mz-window .mz-wnum").all_inner_texts() == [str(n) for n in range(1, 9)]
                assert mine.locator(".mz-pillar").count() == 4
                assert "▲" not in mine.inner_text()
                heads = [mine.locator(".mz-strip").nth(n).bounding_box()["y"] for n in range(8)]
                assert max(heads) - min(heads) < 1  # the strips' heads in one line
            # one move, then the computer's: its last turn is marked on its board
            before = shown_n(page)
            _board_move(page, [1])
            page.wait_for_function("n => Number(document.querySelector('#game .status').dataset.n) > n + 1",
                                   arg=before, timeout=30_000)
            assert _my_turn(page)
            marked = page.locator(f"{BOARD} .mz-player:not(.mz-mine) .last, {BOARD} .mz-display.last")
            assert marked.count() >= 1 and marked.first.is_visible()
            page.set_viewport_size(PHONE)
            phone = _measure(page)
            assert phone["width"] <= PHONE["width"], phone  # nothing wider than the phone
            page.evaluate("document.querySelector('#board').scrollIntoView()")
            page.screenshot(path=str(SCREENS / f"speedmosaik-{workshop.lower()}-look-360.png"))
            page.set_viewport_size(DESKTOP)
            page.screenshot(path=str(SCREENS / f"speedmosaik-{workshop.lower()}-look-desktop.png"))
            print(f"\n{workshop}: own board {desktop['own']:.0f} px below the board's top, smallest tile "
                  f"{desktop['tile']:.0f} px (desktop), {phone['tile']:.0f} px at 360 px")
    finally:
        context.close()
