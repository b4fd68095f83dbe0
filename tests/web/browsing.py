"""What every browser test does as a player: sign up as a guest, start a solo game, play moves by clicking,
save screenshots (desktop and 360 px; where: tests/web/conftest.py SCREENS). Shared by tests/web/test_browser*.py."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.conftest import DESKTOP, PHONE, SCREENS, WebPlatform

GAME_END_SECONDS = 240


def shoot(page: Any, name: str) -> None:
    """Save the page at desktop width and at 360 px (small PNGs: the visible part only)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(SCREENS / f"{name}-desktop.png"))
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(SCREENS / f"{name}-360.png"))
    # Usable at 360 px: nothing wider than the screen (wide tables scroll inside their own box).
    if page.evaluate("document.documentElement.scrollWidth") > PHONE["width"]:
        Path(f"/tmp/web-too-wide-{name}.html").write_text(page.content())  # to look at after the failure
        raise AssertionError((name, page.evaluate(TOO_WIDE, PHONE["width"])))
    page.set_viewport_size(size)


TOO_WIDE = ("w => Array.from(document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right > w + 1)"
            ".slice(0, 8).map(e => e.tagName + '.' + (e.getAttribute('class') || '') + ' ' +"
            " Math.round(e.getBoundingClientRect().right))")
"""The first elements that reach beyond the screen's width (said when a page scrolls sideways)."""


CONFIRM_KEY = "speed.confirm"
"""The game page's setting "Züge bestätigen" in the browser's localStorage ("1": on; unset: off, one click)."""


def new_player(browser: Any, web_platform: WebPlatform, name: str, shots: bool = False,
               confirm_moves: bool = True, viewport: dict[str, int] | None = None) -> tuple[Any, Any]:
    """Open the start page in a fresh browser context and sign up as the guest `name` (the start page's "Name und
    Konto" box); return context and page.

    `confirm_moves`: the player has switched "Züge bestätigen" on (a click on the board opens the move bar and
    "Zug ausführen" makes the move), as the tests that look at the bar need; off, the page's default, a move goes
    out at its first click unless the preview warns."""
    context = browser.new_context(viewport=viewport or DESKTOP, locale="de-DE", reduced_motion="reduce")
    if confirm_moves:  # as if switched on in the menu before; a later click in the menu still counts
        context.add_init_script(f"if (window.localStorage.getItem('{CONFIRM_KEY}') === null)"
                                f" window.localStorage.setItem('{CONFIRM_KEY}', '1');")
    page = context.new_page()
    page.goto(web_platform.url + "/")
    if shots:
        shoot(page, "start")
    page.get_by_label("Dein Name").fill(name)
    page.get_by_role("button", name="Als Gast spielen").click()
    page.get_by_text(f"Angemeldet als {name}").first.wait_for()
    return context, page


def choose(scope: Any, label: str, value: str) -> None:
    """Set the settings field `label` (a select, or radio buttons for long choices) to the choice `value`."""
    control = scope.get_by_label(label, exact=False).first
    if control.evaluate("element => element.tagName") == "SELECT":
        control.select_option(label=value)
    else:
        control.get_by_role("radio", name=value, exact=True).check()


def start_solo(page: Any, game: str, settings: dict[str, str], opponents: str = "1",
               shots: bool = False) -> None:
    """On the start page, open `game`'s "Optionen", choose its settings by their labels and start it against
    computers (turbo: the computers move at once)."""
    offer = page.locator(f'section.game-offer[data-game="{game}"]')
    options = offer.locator("details.options")
    if options.get_attribute("open") is None:
        options.locator("summary").click()
    for label, value in settings.items():
        choose(options, label, value)
    options.get_by_label("Computergegner").select_option(opponents)
    options.get_by_label("Computer ziehen").select_option(label="sofort")
    if shots:
        shoot(page, "games")
    options.get_by_role("button", name="Gegen Computer spielen").click()
    page.wait_for_url(re.compile(r"/spiel/[0-9a-f]+$"))


@contextlib.contextmanager
def kept_on_failure(page: Any, name: str) -> Iterator[None]:
    """On a failure, keep the page as it was (screenshot and HTML under /tmp) to look at."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            page.screenshot(path=f"/tmp/web-failed-{name}.png", full_page=True)
            Path(f"/tmp/web-failed-{name}.html").write_text(page.content())
        raise


def shown_n(page: Any) -> int:
    """The event number the game page shows the game after."""
    return int(page.locator("#game .status").get_attribute("data-n"))


MOVE_OR_END = (
    "() => { if (document.querySelector('#game .end, #game button.move')) return true;"
    " const s = document.querySelector('#game .status'); const b = document.querySelector('#board .board');"
    " if (!s || !b) return false;"
    " if (b.dataset.n !== undefined ? b.dataset.n !== s.dataset.n : (document.getElementById('board').dataset.n"
    " !== s.dataset.n || !(s.dataset.turn || s.dataset.answer))) return false;"
    " return !!b.querySelector('button[data-pick], button[hx-post]:not([hidden]), [role=button][hx-post],"
    " button[hx-get*=\"/brett\"], input.koi-pick'); }")
"""The page offers this player a move (among "Deine Züge", or on a board drawn for the state the page shows: the
board's own `data-n`, or else the one web.js keeps on `#board` while the shell says the player may act; a pick,
a move button, a marked place, a tile to choose) or shows the end."""


def wait_for_a_move(page: Any, timeout: float = 30_000) -> bool:
    """Wait until this player may move (listed or on the board) or the game has ended; True for a move."""
    page.wait_for_function(MOVE_OR_END, timeout=timeout)
    return not page.locator("#game .end").count()


def open_a_preview(page: Any, timeout: float = 30_000) -> None:
    """Click a move as a player does: the last one the shell lists, else one on the board (the last pick, such as a
    colour in a Speedmosaik display, then its first target; or else the board's first move button)."""
    listed = page.locator("#game button.move:not(.undo)")
    if listed.count():
        listed.last.click(timeout=timeout)
        return
    board = page.locator("#board .board")
    picks = board.locator("button[data-pick]")
    if picks.count():
        pick = picks.last
        pick.click(timeout=timeout)
        board.locator(f'button[data-pick-for="{pick.get_attribute("data-pick")}"]:visible').first.click(
            timeout=timeout)
    else:
        board.locator("button[hx-post]:visible").first.click(timeout=timeout)


def play_one(page: Any, timeout: float = 30_000) -> bool:
    """Wait for a move, preview it (listed or on the board), confirm it, wait until the page shows it; False
    when the game ended instead."""
    with kept_on_failure(page, "move"):
        if not wait_for_a_move(page, timeout):
            return False
        before = shown_n(page)
        open_a_preview(page, timeout)
        # With "Züge bestätigen" on (or a move whose preview warns) the bar asks; off, the move is made already.
        page.wait_for_function(MOVED_OR_ASKED, arg=before, timeout=timeout)
        if shown_n(page) <= before:
            page.locator("#preview button.confirm").click(timeout=timeout)
        page.wait_for_function("n => Number(document.querySelector('#game .status').dataset.n) > n", arg=before,
                               timeout=timeout)
    return True


MOVED_OR_ASKED = ("n => Number(document.querySelector('#game .status').dataset.n) > n"
                  " || !!document.querySelector('#preview button.confirm')")


def play_to_the_end(page: Any, shots: bool = False) -> int:
    """Make moves (listed or on the board) until the end table shows; return how many this player made."""
    moves, retries, deadline, middle = 0, 0, time.monotonic() + GAME_END_SECONDS, False
    while time.monotonic() < deadline:
        try:
            wait_for_a_move(page)
        except Exception:
            page.screenshot(path="/tmp/web-failed.png", full_page=True)  # to look at after a failure
            raise
        if page.locator("#game .end").count():
            assert_the_end_says_how_you_did(page)
            return moves
        try:
            if not play_one(page, timeout=10_000):
                continue  # the game ended meanwhile: the loop sees the end table
        except PlaywrightTimeout:
            # The live stream may swap the moves away under the click: the game ended meanwhile (the loop sees
            # it), or a refused outdated move left its reason in the preview: cancel it and look again.
            retries += 1
            assert retries <= 5, "moves kept failing"
            if page.locator("#preview .cancel").count():
                page.locator("#preview .cancel").click()
            continue
        moves += 1
        if shots and moves == 6 and not middle:
            middle = True
            shoot(page, "game-middle")
    raise AssertionError("the game did not end in time")


END_TITLE = re.compile(r"^(Du hast gewonnen!|Ihr habt gewonnen! \(mit .+\)|Du teilst den 1\. Platz mit .+\."
                       r"|(Du bist|Ihr seid) \d\. von \d( – (\d+ Punkte? hinter|punktgleich mit) .+)?)$")
"""How the end banner tells a seated player how they did (services/web/game_view.result)."""


def assert_the_end_says_how_you_did(page: Any) -> None:
    """The end, in every game: a banner that says how this player did, "Nochmal" and "Wiederholung"."""
    end = page.locator("#game .end")
    title = end.locator(".end-banner h2").inner_text().strip()
    assert END_TITLE.match(title), title
    assert end.locator(".end-banner").get_by_role("link", name="Wiederholung").count() == 1
    assert end.get_by_role("button", name="Nochmal").count() >= 1
