"""Zuschauen in a real browser (issue 35, point 7): a running game at an open table (a human and a computer) is
listed, a visitor who never signed in watches it live, and neither the spectator's page nor its stream ever holds
a seat's hand (the seat's own page and view do)."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx

from tests.web.browsing import kept_on_failure, new_player, play_one, shoot
from tests.web.conftest import DESKTOP, PHONE, WebPlatform
from tests.web.test_browser_start import page_is_usable


def _open_and_start(host: Any) -> str:
    """The host opens a two-seat Zwergenstich table, a computer fills the free seat at the start."""
    offer = host.locator('section.game-offer[data-game="tinygame"]')
    offer.get_by_text("Tisch für Mitspieler eröffnen").click()
    offer.get_by_label("Plätze am Tisch").select_option("2")
    offer.get_by_label("Freie Plätze beim Start").select_option("true")
    offer.get_by_role("button", name="Tisch eröffnen").click()
    host.wait_for_url(re.compile(r"/tisch/[0-9a-f]+$"))
    host.get_by_role("button", name="Partie starten").click()
    host.wait_for_url(re.compile(r"/spiel/[0-9a-f]+$"))
    return str(host.url.rsplit("/", 1)[1])


def _hand_text(web_platform: WebPlatform, context: Any, game_id: str) -> str:
    """The host's hand as the generic board writes it ("3, 7, 9"), from the host's own view."""
    token = next(c["value"] for c in context.cookies() if c["name"] == "speed_session")
    view = httpx.get(f"{web_platform.service('table')}/games/{game_id}/view",
                     headers={"Authorization": f"Bearer {token}"}).json()
    hand = view["board"]["du"]["hand"]
    assert hand, "the seat's own view holds its hand"
    return ", ".join(str(card) for card in hand)


def _stream_text(url: str, seconds: float) -> str:
    """What the spectator page's live stream sends within about `seconds` (at least its first update)."""
    received: list[str] = []
    deadline = time.monotonic() + seconds
    try:
        with httpx.stream("GET", url, timeout=httpx.Timeout(5.0, read=seconds)) as answer:
            assert answer.status_code == 200
            for line in answer.iter_lines():
                received.append(line)
                if time.monotonic() > deadline:
                    break
    except httpx.ReadTimeout:
        pass  # nothing more within the time: what came is what the spectator got
    return "\n".join(received)


def test_a_visitor_watches_a_running_game_live_without_any_hand(browser: Any, web_platform: WebPlatform) -> None:
    host_context, host = new_player(browser, web_platform, "Ulla")
    watcher_context = browser.new_context(viewport=DESKTOP, locale="de-DE")
    watcher = watcher_context.new_page()
    try:
        with kept_on_failure(host, "watch-host"), kept_on_failure(watcher, "watch-spectator"):
            game_id = _open_and_start(host)
            hand = _hand_text(web_platform, host_context, game_id)
            assert hand in host.locator("#board").inner_text()  # the seat sees its own hand

            # A visitor who never signed in: the header's "Zuschauen", the game in the list, its page.
            watcher.goto(web_platform.url + "/")
            watcher.locator("header.top").get_by_role("link", name="Zuschauen").click()
            watcher.wait_for_url(re.compile(r"/zuschauen$"))
            entry = watcher.locator(f'.watch-list li[data-game-id="{game_id}"]')
            assert "Zwergenstich" in entry.inner_text() and "Ulla" in entry.inner_text()
            entry.get_by_role("link").click()
            watcher.wait_for_url(re.compile(f"/zuschauen/{game_id}$"))
            strip = watcher.locator(".watch-seats-strip")
            assert "Ulla" in strip.inner_text() and "Computer" in strip.inner_text()
            board = watcher.locator("#watch-board")
            assert board.is_visible()
            assert watcher.locator("#watch button, #watch form, #watch [hx-post]").count() == 0  # no move controls
            shown = watcher.content()
            assert "<dt>Hand</dt>" not in shown and ("," not in hand or hand not in shown)
            assert "<dt>Hand</dt>" in host.content()

            # Live: the host's move reaches the spectator's page without a reload.
            before = int(watcher.locator(".watch-game").get_attribute("data-n"))
            assert play_one(host)
            watcher.wait_for_function(
                "n => Number(document.querySelector('.watch-game').dataset.n) > n", arg=before, timeout=15_000)
            assert "<dt>Hand</dt>" not in watcher.content()
            for size in (DESKTOP, PHONE):
                watcher.set_viewport_size(size)
                page_is_usable(watcher, size["width"])
            shoot(watcher, "watch")

            # The stream itself: views for a spectator, never a hand, whatever the host holds now.
            now = _hand_text(web_platform, host_context, game_id)
            streamed = _stream_text(f"{web_platform.url}/zuschauen/{game_id}/live", 5.0)
            assert "event: watch" in streamed and "Ulla" in streamed
            assert "<dt>Hand</dt>" not in streamed and ("," not in now or now not in streamed)
            # The table's own spectator view, which the page draws, holds no seat's hand either.
            spectator = httpx.get(f"{web_platform.service('table')}/games/{game_id}").json()
            assert spectator["board"]["du"] is None and spectator.get("you") is None

            watcher.goto(web_platform.url + "/zuschauen")
            page_is_usable(watcher, PHONE["width"])
            shoot(watcher, "watch-list")
    finally:
        host_context.close()
        watcher_context.close()


def _normalized(page: Any, html: str) -> str:
    """`html` as this browser writes it back (quoting, entities, SVG tags), to compare markup with the DOM."""
    return str(page.evaluate("html => { const box = document.createElement('div'); box.innerHTML = html;"
                             " return box.innerHTML; }", html))


def test_the_spectator_page_draws_exactly_the_tables_spectator_view_of_a_real_game(
        browser: Any, web_platform: WebPlatform) -> None:
    """Speedkoi (hidden hands) at an open table, a human and a computer: the spectator's board is the board
    renderer's drawing of the table's view for no seat, never the seat's own (which holds the hand)."""
    from services.web.boards import renderer_for

    host_context, host = new_player(browser, web_platform, "Vera")
    watcher_context = browser.new_context(viewport=PHONE, locale="de-DE")
    watcher = watcher_context.new_page()
    try:
        with kept_on_failure(host, "watch-koi-host"), kept_on_failure(watcher, "watch-koi-spectator"):
            offer = host.locator('section.game-offer[data-game="speedkoi"]')
            offer.get_by_text("Tisch für Mitspieler eröffnen").click()
            offer.get_by_label("Plätze am Tisch").select_option("2")
            offer.get_by_role("button", name="Tisch eröffnen").click()
            host.wait_for_url(re.compile(r"/tisch/[0-9a-f]+$"))
            host.get_by_role("button", name="Partie starten").click()
            host.wait_for_url(re.compile(r"/spiel/[0-9a-f]+$"))
            game_id = host.url.rsplit("/", 1)[1]
            token = next(c["value"] for c in host_context.cookies() if c["name"] == "speed_session")
            table = web_platform.service("table")

            watcher.goto(f"{web_platform.url}/zuschauen/{game_id}")
            for _ in range(20):  # the same state on the page and from the table (a computer may move between)
                shown_n = int(watcher.locator(".watch-game").get_attribute("data-n"))
                spectator = httpx.get(f"{table}/games/{game_id}").json()
                if spectator["n"] == shown_n:
                    break
                time.sleep(0.3)
            assert spectator["n"] == shown_n
            own = httpx.get(f"{table}/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"}).json()
            renderer = renderer_for("speedkoi")
            as_spectator = str(renderer.render({**spectator, "you": None, "legal_moves": [], "can_undo": False}))
            as_seat = str(renderer.render({**own, "legal_moves": [], "can_undo": False}))
            drawn = watcher.locator("#watch-board").inner_html()
            assert _normalized(watcher, drawn) == _normalized(watcher, as_spectator)
            assert _normalized(watcher, as_seat) != _normalized(watcher, as_spectator)  # the seat's own holds more
            assert watcher.locator("#watch button, #watch form, #watch [hx-post], #watch [hx-get]").count() == 0
            assert "Vera" in watcher.locator(".watch-seats-strip").inner_text()
            page_is_usable(watcher, PHONE["width"])
            shoot(watcher, "watch-speedkoi")
    finally:
        host_context.close()
        watcher_context.close()
