"""The game page shell in a real browser, for every game (the three Speedmosaik workshops, Speednova, Speedkoi,
Speedspore; a solo game against one computer, turbo) at 1280×800 and 360×740: the board near the top, the player
strip with every seat, "Du bist am Zug" and the tab title, one-click moves with "Züge bestätigen" off and the move
bar with it on, the settings remembered, no sideways scroll, controls at least 44 px, no internal key anywhere
(issue 35, points 1, 2, 3 and 9)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.browsing import (
    MOVED_OR_ASKED,
    kept_on_failure,
    new_player,
    shoot,
    shown_n,
    start_solo,
    wait_for_a_move,
)
from tests.web.conftest import WebPlatform
from tests.web.test_game_page import assert_player_text

WIDE = {"width": 1280, "height": 800}
NARROW = {"width": 360, "height": 740}
STEP_MS = 20_000
CLICK_MS = 6_000
GAMES = [("speedmosaik", {"Werkstatt": "Kachelwand"}), ("speedmosaik", {"Werkstatt": "Kirchenfenster"}),
         ("speedmosaik", {"Werkstatt": "Sternpavillon"}), ("speednova", {}), ("speedkoi", {}), ("speedspore", {})]
BOARD_TOP = "() => document.getElementById('board').getBoundingClientRect().top + window.scrollY"
SHELL_CONTROLS = ("#game button, #preview button, details.menu summary, details.menu .setting, #game a.button")
LOW_CONTROLS = (f"() => Array.from(document.querySelectorAll('{SHELL_CONTROLS}'))"
                ".filter(e => e.offsetParent !== null && e.getBoundingClientRect().height < 43.5)"
                ".map(e => e.textContent.trim().slice(0, 40) + ': ' + e.getBoundingClientRect().height)")


def click_a_move(page: Any, choice: int = 0) -> None:
    """Make a move on the board as a player does, whatever the board asks for: a colour and its target
    (Speedmosaik), a lantern and its target (Speedkoi), a move button or a marked place (all boards), a tile and
    its cells (Speednova, drawn afresh by the server for each step). `choice` counts through the board's moves
    (0: the last colour's first target, the first lantern, the first button), wrapping round. A board the live
    stream redraws under the click (the computer's last move arriving) is looked at afresh."""
    for attempt in range(3):
        try:
            _click_a_move(page, choice)
            return
        except (PlaywrightTimeout, NoMove):
            if attempt == 2:
                raise
            page.wait_for_timeout(700)


class NoMove(AssertionError):
    """The board offers nothing to click (it may have just been drawn afresh by the live stream)."""


def _click_a_move(page: Any, choice: int) -> None:
    board = page.locator("#board")
    for _ in range(4):
        picks = board.locator("button[data-pick]")
        lanterns = board.locator("label.koi-pickcard")
        moves = board.locator('[hx-post*="/vorschau"]:not(form):visible')
        steps = board.locator('[hx-get*="/brett"]:visible')
        if board.locator("button[data-pick]:visible").count():
            # Every (colour, target) pair, the last colour first: the targets are hidden until their pick is
            # selected, so they are counted in the markup.
            pairs = [(key, index) for key in reversed(picks.evaluate_all(
                "es => es.filter(e => e.offsetParent !== null).map(e => e.dataset.pick)"))
                for index in range(board.locator(f'button[data-pick-for="{key}"]').count())]
            if not pairs:
                raise NoMove("no target for any colour")
            key, index = pairs[choice % len(pairs)]
            board.locator(f'button[data-pick="{key}"]:visible').first.click(timeout=CLICK_MS)
            board.locator(f'button[data-pick-for="{key}"]').nth(index).click(timeout=STEP_MS)
            return
        if count := lanterns.count():
            lanterns.nth(choice % count).click(timeout=CLICK_MS)
            board.locator("button.koi-act.koi-target:visible").first.click(timeout=CLICK_MS)
            return
        if count := moves.count():
            moves.nth(choice % count).click(timeout=CLICK_MS)
            return
        if steps.count():
            html = board.inner_html()
            on_map = board.locator('svg [hx-get*="/brett"]:visible')  # a place on the map before a tile
            places = on_map if on_map.count() else steps
            places.nth(choice % max(places.count(), 1)).click(timeout=CLICK_MS)
            choice = 0  # the later steps take their first option
            page.wait_for_function("h => document.getElementById('board').innerHTML !== h", arg=html,
                                   timeout=STEP_MS)
            continue
        break
    raise NoMove("no move to click on the board: " + page.evaluate(
        "() => document.querySelector('#game .status').outerHTML + document.getElementById('board').outerHTML"
        ".slice(0, 300) + ' preview: ' + document.getElementById('preview').innerText"))


def _ask_and_cancel_a_floor_move(page: Any, game: str, before: int) -> None:
    """Kachelwand: a colour onto the floor asks even with "Züge bestätigen" off, the warning saying so in the bar;
    "Abbrechen" closes the bar and the turn is still the player's."""
    board = page.locator("#board")
    pick = board.locator("button[data-pick]:visible").last
    key = pick.get_attribute("data-pick")
    pick.click(timeout=CLICK_MS)
    board.locator(f'button[data-pick-for="{key}"][aria-label^="Boden"]').click(timeout=STEP_MS)
    page.wait_for_function(MOVED_OR_ASKED, arg=before, timeout=STEP_MS)
    assert shown_n(page) == before, "a move onto the floor went out without asking"
    assert "auf den Boden" in page.locator("#preview .warning").first.inner_text()
    assert_player_text(page.locator("#preview").inner_html(), f"{game} warning bar")
    page.locator("#preview button.cancel").click(timeout=STEP_MS)
    page.wait_for_function("() => !document.querySelector('#preview > *')", timeout=STEP_MS)
    assert shown_n(page) == before and page.locator("#game .banner.turn").is_visible()


def _check_first_screen(page: Any, game: str) -> None:
    """It is the player's turn: the shell says so at both widths, the board stands near the top."""
    strip = page.locator("#game .strip li")
    assert strip.count() == 2
    assert strip.nth(0).locator(".seat-name").inner_text() == "Du"
    assert "Computer 1" in strip.nth(1).inner_text()
    assert "am Zug" in page.locator("#game .strip li.turn").inner_text()
    banner = page.locator("#game .banner.turn")
    assert banner.is_visible() and banner.inner_text().startswith("Du bist am Zug")
    assert len(banner.locator(".prompt").inner_text()) > 5  # what to do, in words
    page.wait_for_function("() => document.title.startsWith('▶ Dein Zug')")
    assert_player_text(page.content(), f"{game} page")
    for size, limit in ((WIDE, 160), (NARROW, 200)):
        page.set_viewport_size(size)
        page.evaluate("window.scrollTo(0, 0)")
        top = page.evaluate(BOARD_TOP)
        print(f"\n{game}: the board's top {top:.0f} px at {size['width']}×{size['height']} (at most {limit})")
        assert top <= limit, (size, top)
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], size
        assert banner.is_visible()
    assert not page.evaluate(LOW_CONTROLS)  # at 360 px: every control of the shell at least 44 px tall
    page.set_viewport_size(WIDE)


@pytest.mark.parametrize(("game", "settings"), GAMES, ids=lambda value: str(value))
def test_the_game_page_shell(browser: Any, web_platform: WebPlatform, game: str, settings: dict[str, str]) -> None:
    name = f"shell-{game}-{'-'.join(settings.values()).lower() or 'solo'}"
    context, page = new_player(browser, web_platform, "Pia", confirm_moves=False, viewport=WIDE)
    try:
        with kept_on_failure(page, name):
            start_solo(page, game, settings)
            assert wait_for_a_move(page, timeout=60_000)
            _check_first_screen(page, game)
            shoot(page, f"{name}-turn")

            # "Züge bestätigen" is off (the default): a click on the board makes the move; only a preview that
            # warns asks, with the warning in the bar.
            menu = page.locator("details.menu")
            assert not menu.get_by_label("Züge bestätigen").is_checked()
            # One turn: the board's moves in order until one goes out at its first click; each that asks instead
            # shows its warning in the bar and is cancelled, the turn still the player's (a turn always has a
            # quiet move early in a game: a colour into a line with room, a card, a place).
            assert wait_for_a_move(page, timeout=60_000)
            before, warned = shown_n(page), 0
            if settings.get("Werkstatt") == "Kachelwand":  # a move that always warns: every tile onto the floor
                _ask_and_cancel_a_floor_move(page, game, before)
            for choice in range(24):
                click_a_move(page, choice)
                page.wait_for_function(MOVED_OR_ASKED, arg=before, timeout=STEP_MS)
                if shown_n(page) > before:
                    assert not page.locator("#preview button.confirm").count()
                    break
                assert page.locator("#preview .warning").count(), "the bar asked without a warning"
                assert_player_text(page.locator("#preview").inner_html(), f"{game} warning bar")
                warned += 1
                page.locator("#preview button.cancel").click(timeout=STEP_MS)
                page.wait_for_function("() => !document.querySelector('#preview > *')", timeout=STEP_MS)
                assert shown_n(page) == before  # cancelled: nothing went out
            else:
                raise AssertionError("no move went out at its first click")
            print(f"\n{game}: a move went out at its first click after {warned} that warned")

            # On: the move bar, "Zug ausführen" focused, the move's gain in words; "Abbrechen" closes it.
            menu.get_by_label("Züge bestätigen").check()
            assert not page.evaluate("() => Number(document.body.dataset.beeps || 0)")  # off by default
            menu.get_by_label("Ton, wenn du am Zug bist").check()
            turns_before = page.evaluate("() => Number(document.body.dataset.turns || 0)")
            assert wait_for_a_move(page, timeout=60_000)
            page.wait_for_function("() => document.title.startsWith('▶ Dein Zug')")
            before = shown_n(page)
            click_a_move(page)
            bar = page.locator("#preview .move-bar")
            bar.wait_for(timeout=STEP_MS)
            page.locator("#preview button.confirm:focus").wait_for(timeout=STEP_MS)
            assert bar.get_by_role("button", name="Abbrechen").is_visible()
            assert_player_text(page.locator("#preview").inner_html(), f"{game} bar")
            assert_player_text(page.locator("#board").inner_html(), f"{game} board with the move")
            shoot(page, f"{name}-bar")
            page.set_viewport_size(NARROW)  # on a phone the bar sits at the bottom of the screen
            box = bar.bounding_box()
            assert box is not None and box["y"] + box["height"] >= NARROW["height"] - 12, box
            assert page.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
            assert not page.evaluate(LOW_CONTROLS)
            page.set_viewport_size(WIDE)
            page.locator("#preview button.confirm").click(timeout=STEP_MS)
            page.wait_for_function("n => Number(document.querySelector('#game .status').dataset.n) > n",
                                   arg=before, timeout=STEP_MS)
            page.wait_for_function("() => !document.querySelector('#preview > *')", timeout=STEP_MS)  # closed

            # The tone sounded each time the turn came back to the player since it was switched on, never before
            # (web.js counts both on the body).
            assert wait_for_a_move(page, timeout=60_000)
            turns = page.evaluate("() => Number(document.body.dataset.turns || 0)")
            assert page.evaluate("() => Number(document.body.dataset.beeps || 0)") == turns - turns_before > 0 \
                or turns == turns_before
            # Each log line once (the live ones too), numbered by its event.
            live = page.locator("#log li .log-n").all_inner_texts()
            assert live and len(live) == len(set(live)) and all(n.isdigit() for n in live), live
            # Both settings are remembered (this browser).
            page.reload()
            assert menu.get_by_label("Züge bestätigen").is_checked()
            assert menu.get_by_label("Ton, wenn du am Zug bist").is_checked()
            numbers = page.locator("#log li .log-n").all_inner_texts()
            assert numbers and len(numbers) == len(set(numbers)) and all(n.isdigit() for n in numbers)
            assert_player_text(page.content(), f"{game} page after moves")
    finally:
        context.close()


def test_a_table_of_four_keeps_the_board_near_the_top(browser: Any, web_platform: WebPlatform) -> None:
    """Four seats (Speedspore against three computers): every seat in the strip, each computer with its level,
    and the board's top still within the limits at both widths."""
    context, page = new_player(browser, web_platform, "Quirin", confirm_moves=False, viewport=WIDE)
    try:
        with kept_on_failure(page, "shell-four"):
            start_solo(page, "speedspore", {}, opponents="3")
            assert wait_for_a_move(page, timeout=60_000)
            strip = page.locator("#game .strip li")
            assert strip.count() == 4
            assert [strip.nth(i).locator(".seat-kind").get_attribute("title") for i in range(1, 4)] == [
                "Computer, Stufe normal"] * 3
            assert [strip.nth(i).locator(".chip").get_attribute("class") for i in range(4)] == [
                "chip circle", "chip square", "chip triangle", "chip diamond"]
            for size, limit in ((WIDE, 160), (NARROW, 200)):
                page.set_viewport_size(size)
                top = page.evaluate(BOARD_TOP)
                print(f"\nfour seats: the board's top {top:.0f} px at {size['width']}×{size['height']}")
                assert top <= limit, (size, top)
                assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    finally:
        context.close()
