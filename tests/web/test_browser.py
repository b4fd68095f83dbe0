"""A player in a real browser (Debian's chromium through Playwright): everything by clicking and typing.

Screenshots of the pages (desktop and 360 px wide) go to `.screens/`; `make screens` renews docs/screens/,
which the README shows.
"""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.browsing import (
    kept_on_failure,
    new_player,
    open_a_preview,
    play_one,
    play_to_the_end,
    shoot,
    shown_n,
    start_solo,
    wait_for_a_move,
)
from tests.web.conftest import DESKTOP, WebPlatform


def test_a_new_player_plays_a_game_against_a_computer_to_the_end_by_clicking(browser: Any,
                                                                            web_platform: WebPlatform) -> None:
    started = time.monotonic()
    context, page = new_player(browser, web_platform, "Klara", shots=True)
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    try:
        start_solo(page, "speedmosaik", {"Werkstatt": "Kachelwand"}, shots=True)
        page.evaluate("window.speedMarker = 'no reload'")
        shoot(page, "game-start")
        # The first move, made on the board (a colour in a display, then a pattern line) and previewed: the
        # preview panel shows the API's preview before anything is sent.
        assert wait_for_a_move(page)
        assert page.locator("#game button.move").count() == 0  # Speedmosaik's moves are all on its board
        open_a_preview(page)
        preview = page.locator("#preview")
        preview.get_by_role("heading", name=re.compile("^Vorschau")).wait_for()
        shoot(page, "game-preview")
        preview.get_by_role("button", name="Abbrechen").click()
        preview.get_by_role("heading").wait_for(state="detached")

        moves = play_to_the_end(page, shots=True)

        end = page.locator("#game .end")
        assert "Ergebnis" in end.inner_text()
        rows = end.locator("tbody tr")
        assert rows.count() == 2 and "Klara (du)" in end.inner_text()
        assert end.get_by_role("button", name="Nochmal").is_visible()
        # The end says how Klara did, in words, with the ways on: "Nochmal" and "Wiederholung".
        said = end.locator(".end-banner h2").inner_text()
        assert re.fullmatch(r"Du hast gewonnen!|Du teilst den 1\. Platz mit Computer 1\."
                            r"|Du bist 2\. von 2 – \d+ Punkte? hinter Computer 1", said), said
        assert end.get_by_role("link", name="Wiederholung", exact=True).is_visible()
        assert [cell.inner_text() for cell in rows.locator("td:first-child").all()] in (["1.", "2."], ["1.", "1."])
        assert "Platz 1" not in end.inner_text() and "Platz 2" not in end.inner_text()
        assert page.title() == "Speedmosaik – Speed"  # no "Dein Zug" after the end
        assert page.locator("#menu-leave button").count() == 0  # the menu lost "Partie verlassen" live
        # Every computer move arrived through the live stream: the page was never loaded again.
        assert page.evaluate("window.speedMarker") == "no reload"
        assert moves >= 5
        log = page.locator("#log li")
        assert log.count() > moves  # every move's effects, the computer's included, in the log
        shoot(page, "game-end")
        print(f"\nbrowser game: {moves} moves by clicking in {time.monotonic() - started:.1f} s")
        # "Nochmal": a new game with the same settings and computers, one click away.
        finished = page.url
        end.get_by_role("button", name="Nochmal").click()
        page.wait_for_url(lambda url: url != finished and "/spiel/" in url)
        assert wait_for_a_move(page)
        assert page.locator("#game .strip li").count() == 2
        # htmx, its SSE extension and web.js work within the policy: the browser reported no violation.
        assert not [text for text in console if "Content Security Policy" in text], console
    finally:
        context.close()


def test_a_refused_move_shows_the_german_reason_and_leaves_the_page(browser: Any, web_platform: WebPlatform) -> None:
    context, page = new_player(browser, web_platform, "Berta")
    try:
        start_solo(page, "speedmosaik", {"Werkstatt": "Kachelwand"})
        assert wait_for_a_move(page)
        # The same player in a second tab moves first; the first tab's confirmed move is then outdated.
        other = context.new_page()
        other.goto(page.url)
        open_a_preview(page)
        page.locator("#preview button.confirm").wait_for()
        before = shown_n(page)
        assert play_one(other)
        page.wait_for_function("n => Number(document.querySelector('#game .status').dataset.n) > n",
                               arg=before)  # the live stream brought the other tab's move
        assert wait_for_a_move(page)  # ... and the computer's answer: the board is quiet
        board_before = page.locator("#board").inner_html()
        page.locator("#preview button.confirm").click()
        notice = page.locator("#preview .error[role=alert]")
        notice.wait_for()
        assert "Der Spielstand hat sich inzwischen geändert." in notice.inner_text()
        assert "Traceback" not in page.content()
        assert page.locator("#board").inner_html() == board_before
        shoot(page, "refused-move")
    finally:
        context.close()


def test_a_name_with_markup_shows_as_text(browser: Any, web_platform: WebPlatform) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    dialogs: list[str] = []


    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    try:
        page.goto(web_platform.url + "/")
        evil = "<img src=x onerror=alert(1)>"
        page.get_by_label("Dein Name").fill(evil)
        page.get_by_role("button", name="Als Gast spielen").click()
        page.locator("#guest-error").wait_for()
        assert page.locator("img").count() == 0 and not dialogs
        assert page.get_by_label("Dein Name").input_value() == evil  # shown as typed, as text
        assert page.locator("#guest-error").inner_text()  # the lobby's German reason beside the form
    finally:
        context.close()


def _seat_hand_html(view: dict[str, Any]) -> str:
    from services.web.boards.speedkoi import hand_mark

    return f'data-hand="{hand_mark(view)}"'  # how the Speedkoi board writes the own hand


def test_a_page_and_its_stream_never_show_another_seats_hand(browser: Any, web_platform: WebPlatform) -> None:
    """Two humans at a Speedkoi table: seat 0's page and live stream never carry seat 1's hand."""
    lobby, table = web_platform.service("lobby"), web_platform.service("table")
    context, page = new_player(browser, web_platform, "Anton")
    try:
        anton = next(c["value"] for c in context.cookies() if c["name"] == "speed_session")
        bea = httpx.post(f"{lobby}/guests", json={"name": "Bea"}, timeout=10).json()["token"]
        opened = httpx.post(f"{lobby}/tables", headers={"Authorization": f"Bearer {anton}"}, timeout=10, json={
            "game": "speedkoi", "settings": {}, "player_count": 2, "fill_with_bots": False}).json()
        httpx.post(f"{lobby}/tables/{opened['table_id']}/join", headers={"Authorization": f"Bearer {bea}"},
                   timeout=10).raise_for_status()
        started = httpx.post(f"{lobby}/tables/{opened['table_id']}/start",
                             headers={"Authorization": f"Bearer {anton}"}, timeout=10).json()
        game_id = started["game_id"]
        seen_by_bea = httpx.get(f"{table}/games/{game_id}/view", headers={"Authorization": f"Bearer {bea}"},
                                timeout=10).json()
        seen_by_anton = httpx.get(f"{table}/games/{game_id}/view", headers={"Authorization": f"Bearer {anton}"},
                                  timeout=10).json()
        beas_hand, antons_hand = _seat_hand_html(seen_by_bea), _seat_hand_html(seen_by_anton)
        assert beas_hand != antons_hand

        page.goto(f"{web_platform.url}/spiel/{game_id}")
        html = page.content()
        assert antons_hand in html  # the check is not vacuous: the own hand is drawn just so
        assert beas_hand not in html
        # The live stream, read as the browser reads it (the session cookie), across a few moves.
        stream = ""
        cookies = {"speed_session": anton}
        with httpx.stream("GET", f"{web_platform.url}/spiel/{game_id}/live", cookies=cookies,
                          timeout=httpx.Timeout(10.0, read=20.0)) as answer:
            assert answer.status_code == 200
            for _ in range(2):  # whoever is to move (the start player is drawn) moves, through the API
                for token in (anton, bea):
                    seen = httpx.get(f"{table}/games/{game_id}/view", timeout=10,
                                     headers={"Authorization": f"Bearer {token}"}).json()
                    if seen["legal_moves"]:
                        httpx.post(f"{table}/games/{game_id}/moves", timeout=10,
                                   headers={"Authorization": f"Bearer {token}"},
                                   json={"move": seen["legal_moves"][0], "expected_n": seen["n"]}).raise_for_status()
                        break
            for line in answer.iter_lines():
                stream += line + "\n"
                if stream.count("event: update") >= 3:
                    break
        assert "event: update" in stream
        assert beas_hand not in stream and beas_hand not in page.content()
        assert str(seen_by_bea["board"]["du"]) not in stream
    finally:
        context.close()


def test_two_people_meet_at_an_open_table_play_and_one_leaves_after_being_told_the_price(
        browser: Any, web_platform: WebPlatform) -> None:
    """Open, join, start by clicking; each sees only their own hand; leaving asks first and says what it costs."""
    table = web_platform.service("table")
    host_context, host = new_player(browser, web_platform, "Greta")
    guest_context, guest = new_player(browser, web_platform, "Hanno")
    try:
        offer = host.locator('section.game-offer[data-game="speedkoi"]')
        offer.get_by_text("Tisch für Mitspieler eröffnen").click()
        offer.get_by_label("Plätze am Tisch").select_option("2")
        offer.get_by_label("Freie Plätze beim Start").select_option("false")
        offer.get_by_role("button", name="Tisch eröffnen").click()
        host.wait_for_url(re.compile(r"/tisch/[0-9a-f]+$"))
        shoot(host, "open-table")

        guest.reload()
        guest.get_by_role("link", name=re.compile("Speedkoi bei Greta")).click()
        guest.get_by_role("button", name="Beitreten").click()
        # the seats are names and colours (no "Platz 2": a place is a rank)
        guest.locator(".table-seats li.seat-1.taken").get_by_text("Hanno").wait_for()
        host.locator(".table-seats li.seat-1.taken").get_by_text("Hanno").wait_for()  # follows without reload
        assert "Platz" not in host.locator(".table-seats").inner_text()
        host.get_by_role("button", name="Partie starten").click()
        host.wait_for_url(re.compile(r"/spiel/[0-9a-f]+$"))
        guest.wait_for_url(re.compile(r"/spiel/[0-9a-f]+$"), timeout=15_000)  # the table page moves on by itself
        game_id = host.url.rsplit("/", 1)[1]

        views = {}
        for name, context in (("host", host_context), ("guest", guest_context)):
            token = next(c["value"] for c in context.cookies() if c["name"] == "speed_session")
            views[name] = httpx.get(f"{table}/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"},
                                    timeout=10).json()
        assert _seat_hand_html(views["host"]) in host.content()
        assert _seat_hand_html(views["guest"]) not in host.content()
        assert _seat_hand_html(views["guest"]) in guest.content()
        assert _seat_hand_html(views["host"]) not in guest.content()

        guest.get_by_role("button", name="Partie verlassen").click()
        warning = guest.locator("#preview .warning")
        warning.wait_for()
        assert "10 Punkte" in warning.inner_text()
        shoot(guest, "leave-question")
        guest.get_by_role("button", name="Ja, verlassen").click()
        guest.get_by_text("Du hast die Partie verlassen").wait_for()
        # live, on the other page: Hanno's seat in the strip says so
        host.locator("#game .strip li", has_text="Hanno").filter(has_text="hat verlassen").wait_for()
    finally:
        host_context.close()
        guest_context.close()


def test_a_move_is_made_by_keyboard_alone(browser: Any, web_platform: WebPlatform) -> None:
    """Tab to a move on the board, Enter (on a colour: Enter again on the target the focus moved to) for its
    preview; the confirm button has the focus, Enter makes the move."""
    context, page = new_player(browser, web_platform, "Ida")
    answers: list[str] = []  # what the move and preview routes answered, for a failure's message
    page.on("response", lambda response: answers.append(f"{response.request.method} "
                                                        f"{response.url.rsplit('/', 1)[-1]} {response.status}")
            if re.search(r"/(zug|vorschau)(\?|$)", response.url) else None)
    try:
        start_solo(page, "speedmosaik", {"Werkstatt": "Kachelwand"})
        assert wait_for_a_move(page)
        before = shown_n(page)
        focused = ("() => { const e = document.activeElement;"
                   " if (!e || !e.matches) return '';"
                   " if (e.matches('#game button.move:not(.undo), #board button[hx-post]')) return 'move';"
                   " return e.matches('#board button[data-pick]') ? 'pick' : ''; }")
        for _ in range(80):  # from the top of the page to the first move, by Tab
            page.keyboard.press("Tab")
            kind = page.evaluate(focused)
            if kind:
                break
        else:
            raise AssertionError("no move reachable by Tab")
        page.keyboard.press("Enter")
        with kept_on_failure(page, "keyboard"):
            if kind == "pick":  # a colour chosen: the focus is on its first target
                page.wait_for_function(
                    "() => document.activeElement && document.activeElement.hasAttribute('data-pick-for')")
                page.keyboard.press("Enter")
            page.locator("#preview button.confirm").wait_for()
            page.wait_for_function(
                "() => document.activeElement && document.activeElement.classList.contains('confirm')")
            page.keyboard.press("Enter")
            try:
                page.wait_for_function("n => Number(document.querySelector('#game .status').dataset.n) > n",
                                       arg=before)
            except PlaywrightTimeout:
                raise AssertionError(f"Enter on 'Zug ausführen' made no move; answers: {answers}") from None
    finally:
        context.close()


def test_the_tiny_test_game_is_played_to_the_end_through_the_generic_renderer_with_zurueck(
        browser: Any, web_platform: WebPlatform) -> None:
    """A game the web knows nothing about (a plugin, no board of its own): simultaneous decisions, "Zurück"."""
    context, page = new_player(browser, web_platform, "Zora")
    try:
        start_solo(page, "tinygame", {})
        page.locator("#game button.move").first.wait_for()
        mark = page.locator("#game button.move", has_text="Vormerken").first
        mark.click()
        page.locator("#preview button.confirm").click()
        undo = page.locator("#game button.undo")
        undo.wait_for()
        before = shown_n(page)
        undo.click()
        page.wait_for_function("n => Number(document.querySelector('#game .status').dataset.n) > n", arg=before)
        page.locator("#log").get_by_text("nimmt den letzten Schritt zurück").wait_for()  # the log, live
        shoot(page, "tinygame")
        play_to_the_end(page)
        assert page.locator("#game .end tbody tr").count() == 2
    finally:
        context.close()
