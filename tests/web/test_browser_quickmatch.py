""""Schnell spielen" in a real browser: two players who ask for the same game land in the same game; a player
nobody joins is given a computer after the time they chose; a search can be cancelled."""

from __future__ import annotations

import re
from typing import Any

from tests.web.browsing import kept_on_failure, new_player, shoot
from tests.web.conftest import DESKTOP, PHONE, WebPlatform
from tests.web.test_browser_start import page_is_usable

GAME_PAGE = re.compile(r"/spiel/([0-9a-f]+)$")


def ask_for_a_quick_match(page: Any, game: str, seats: str, computers: str) -> None:
    """Fill in the start page's "Schnell spielen" form and send it; the waiting page shows the search."""
    form = page.locator("section.quick-match-form")
    form.get_by_label("Spiel", exact=True).select_option(label=game)
    form.get_by_label("Plätze am Tisch").select_option(label=seats)
    form.get_by_label("Computer auffüllen").select_option(label=computers)
    form.get_by_role("button", name="Schnell spielen").click()


def test_two_players_who_click_schnell_spielen_land_in_the_same_game(browser: Any,
                                                                     web_platform: WebPlatform) -> None:
    first_context, first = new_player(browser, web_platform, "Frieda")
    second_context, second = new_player(browser, web_platform, "Gustav")
    try:
        with kept_on_failure(first, "quick-match-first"), kept_on_failure(second, "quick-match-second"):
            ask_for_a_quick_match(first, "Speedmosaik – Kachelwand", "2", "nie")
            first.wait_for_url(re.compile(r"/schnell/[0-9a-f]+$"))
            first.get_by_text("Suche Mitspieler mit ähnlicher Wertung").wait_for()
            shoot(first, "quick-match-waiting")
            for size in (DESKTOP, PHONE):
                first.set_viewport_size(size)
                page_is_usable(first, size["width"])
            first.set_viewport_size(DESKTOP)

            ask_for_a_quick_match(second, "Speedmosaik – Kachelwand", "2–4", "nie")

            second.wait_for_url(GAME_PAGE, timeout=20_000)
            first.wait_for_url(GAME_PAGE, timeout=20_000)  # the waiting page's next look finds the table
            assert GAME_PAGE.search(first.url)[1] == GAME_PAGE.search(second.url)[1]
            for page, other in ((first, "Gustav"), (second, "Frieda")):
                page.locator("#game").get_by_text(other).first.wait_for()
    finally:
        first_context.close()
        second_context.close()


def test_a_player_nobody_joins_is_given_a_computer_after_the_chosen_time(browser: Any,
                                                                         web_platform: WebPlatform) -> None:
    context, page = new_player(browser, web_platform, "Hilde")
    try:
        with kept_on_failure(page, "quick-match-computer"):
            ask_for_a_quick_match(page, "Speedkoi – Laternenfest", "2", "nach 10 Sekunden")
            page.get_by_text("Computer füllen nach 10 s auf.").wait_for()

            page.wait_for_timeout(5_000)
            assert "/schnell/" in page.url  # not before the chosen time

            page.wait_for_url(GAME_PAGE, timeout=20_000)
            page.locator("#game").get_by_text("Computer 1").first.wait_for()
    finally:
        context.close()


def test_a_search_can_be_cancelled(browser: Any, web_platform: WebPlatform) -> None:
    context, page = new_player(browser, web_platform, "Ida")
    try:
        with kept_on_failure(page, "quick-match-cancel"):
            ask_for_a_quick_match(page, "Speedspore", "4", "nie")
            page.get_by_role("button", name="Suche abbrechen").click()
            page.get_by_text("Die Suche ist abgebrochen.").wait_for()
            page.get_by_role("link", name="Zur Startseite").click()
            page.locator("section.quick-match-form").wait_for()
    finally:
        context.close()
