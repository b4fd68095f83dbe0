"""Speednova in a real browser, played by clicking on the board only: a rack tile, a cell, the neighbour, then
"Zug ausführen" in the preview; the swap offer answered on the board; in a team game a signal given on the board
and seen there. Screenshots (desktop and 360 px) as `nova-*` in `.screens/`."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.browsing import assert_the_end_says_how_you_did, kept_on_failure, new_player, shoot, shown_n, start_solo
from tests.web.conftest import WebPlatform

GAME_SECONDS = 420
STEP_MS = 15_000


def _wait_newer(page: Any, before: int) -> None:
    page.wait_for_function("n => Number(document.querySelector('#game .status').dataset.n) > n", arg=before,
                           timeout=STEP_MS)


def _my_move_on_board(page: Any) -> str:
    """Wait until the board offers this player something (a rack tile or the swap offer) or the game ends."""
    page.locator("#game .end, #board button.tile, #board .nova-swap button").first.wait_for(timeout=60_000)
    if page.locator("#game .end").count():
        return "end"
    if page.locator("#board .nova-swap button").count():
        return "swap"
    return "place"


def _confirm(page: Any) -> None:
    before = shown_n(page)
    page.locator("#preview button.confirm").click(timeout=STEP_MS)
    _wait_newer(page, before)


def _place(page: Any, shots: str | None = None) -> None:
    """Pick the first rack tile, the first marked cell, the first neighbour; preview; confirm."""
    board = page.locator("#board")
    board.locator("button.tile").first.click(timeout=STEP_MS)
    board.locator(".nova-choice").wait_for(timeout=STEP_MS)
    board.locator("g.cell.pick[hx-get]").first.click(timeout=STEP_MS)
    board.locator("g.cell.pick[hx-post]").first.wait_for(timeout=STEP_MS)
    if shots:
        shoot(page, shots)
    board.locator("g.cell.pick[hx-post]").first.click(timeout=STEP_MS)
    page.locator("#preview button.confirm").wait_for(timeout=STEP_MS)
    _confirm(page)


def _swap(page: Any) -> None:
    page.locator("#board .nova-swap button", has_text="Nein").click(timeout=STEP_MS)
    _confirm(page)


LAST_MARK = ("() => { const cells = [...document.querySelectorAll('#board svg.nova-map g.cell.last polygon')];"
             " const plain = document.querySelector('#board svg.nova-map g.cell:not(.last):not(.pick) polygon');"
             " if (!cells.length || !plain) return 0;"
             " const width = e => parseFloat(getComputedStyle(e).strokeWidth);"
             " return cells.filter(c => width(c) >= 2 * width(plain)).length; }")
"""How many cells of the map are marked as an opponent's last placement, visibly (a stroke twice as wide)."""


def _play_to_the_end(page: Any, name: str, middle_at: int = 6, marked: list[int] | None = None) -> int:
    moves, retries, deadline = 0, 0, time.monotonic() + GAME_SECONDS
    while time.monotonic() < deadline:
        with kept_on_failure(page, name):
            state = _my_move_on_board(page)
        if state == "end":
            return moves
        if marked is not None and state == "place" and moves:
            marked.append(page.evaluate(LAST_MARK))
        try:
            if state == "swap":
                _swap(page)
            else:
                _place(page, shots=f"{name}-choice" if moves == 1 else None)
        except PlaywrightTimeout:
            # A live update may have swapped the board under a click: cancel a refused preview and look again.
            retries += 1
            assert retries <= 8, "moves on the board kept failing"
            if page.locator("#preview .cancel").count():
                page.locator("#preview .cancel").first.click()
            continue
        moves += 1
        if moves == middle_at:
            shoot(page, f"{name}-middle")
    raise AssertionError("the game did not end in time")


def _assert_end(page: Any, rows: int, name: str) -> None:
    end = page.locator("#game .end")
    assert "Ergebnis" in end.inner_text() and end.locator("tbody tr").count() == rows
    assert f"{name} (du)" in end.inner_text()
    assert_the_end_says_how_you_did(page)
    assert page.locator("#board .nova-note", has_text="Ende.").count() == 1


def test_speednova_for_two_played_to_the_end_by_clicking_on_the_board(browser: Any,
                                                                      web_platform: WebPlatform) -> None:
    started = time.monotonic()
    context, page = new_player(browser, web_platform, "Vega")
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    try:
        start_solo(page, "speednova", {}, opponents="1")
        page.locator("#board .nova-map").wait_for()
        assert page.locator("#board svg.nova-map polygon").count() == 91
        assert page.locator("#game button.move").count() == 0  # placements are made on the board
        shoot(page, "nova-start")
        # The rack: tiles of two hexes (colour and shape), buttons, no links.
        tiles = page.locator("#board .nova-rack button.tile")
        assert tiles.count() >= 1 and page.locator("#board .nova-rack a").count() == 0
        assert tiles.first.locator("svg.nova-tile polygon").count() == 2
        assert tiles.first.locator("svg.nova-tile .shape").count() == 2
        # The map, the rack and the own track on the first screen at 1280 × 800 (from the board's top, which the
        # page shell puts at most 160 px down); the rack and the track beside the map.
        page.set_viewport_size({"width": 1280, "height": 800})
        top = page.locator("#board .board").bounding_box()
        the_map = page.locator("#board svg.nova-map").bounding_box()
        for part in ("#board .nova-map", "#board .nova-rack", "#board .nova-tracks.own"):
            box = page.locator(part).bounding_box()
            assert top and box and box["y"] + box["height"] - top["y"] <= 800 - 160, (part, box)
        rack = page.locator("#board .nova-rack").bounding_box()
        assert the_map and rack and rack["x"] >= the_map["x"] + the_map["width"]
        # On a phone „Karte vergrößern“ makes every cell a 44 px target (the map scrolls in its own box).
        page.set_viewport_size({"width": 360, "height": 740})
        page.locator("#board .nova-zoom input").check()
        cell = page.locator("#board svg.nova-map g.cell polygon").first.bounding_box()
        assert cell and cell["width"] >= 44, cell
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.locator("#board .nova-zoom input").uncheck()
        page.set_viewport_size({"width": 1280, "height": 800})
        # Keyboard: the rack tile and a cell of the map are reached and chosen without a mouse.
        page.locator("#board button.tile").first.focus()
        page.keyboard.press("Enter")
        page.locator("#board .nova-choice").wait_for()
        # htmx wires a swapped-in element only once the swap has settled (then it carries htmx's internal data):
        # a key pressed before that is a click nobody hears (on a busy machine it was, now and then).
        page.wait_for_function("() => { const cell = document.querySelector('#board g.cell.pick[hx-get]'); "
                               "return cell !== null && cell['htmx-internal-data'] !== undefined; }")
        page.locator("#board g.cell.pick[hx-get]").first.focus()
        page.keyboard.press("Enter")
        page.locator("#board g.cell.pick[hx-post]").first.wait_for()
        # "Drehen"/"Abbrechen" of the half-made placement sit in a dock (fixed at the bottom on a phone).
        assert page.locator("#board .nova-choice.dock button.cancel").count() == 1
        page.locator("#board .nova-choice button.cancel").click()
        page.locator("#board .nova-choice").wait_for(state="detached")

        marked: list[int] = []
        moves = _play_to_the_end(page, "nova", marked=marked)
        assert moves >= 10
        # The computer's last placement is marked on the map (both cells) whenever this player places again.
        assert marked and max(marked) >= 2 and sum(1 for count in marked if count >= 2) >= len(marked) // 2, marked
        _assert_end(page, 2, "Vega")
        shoot(page, "nova-end")
        assert not [text for text in console if "Content Security Policy" in text], console
        print(f"\nspeednova for two: {moves} moves on the board in {time.monotonic() - started:.1f} s")
    finally:
        context.close()


def test_speednova_in_teams_a_signal_given_on_the_board_and_played_to_the_end(browser: Any,
                                                                               web_platform: WebPlatform) -> None:
    started = time.monotonic()
    context, page = new_player(browser, web_platform, "Deneb")
    try:
        start_solo(page, "speednova", {"Teams": "Zwei Teams (Platz 1 + 3 gegen Platz 2 + 4)"}, opponents="3")
        page.locator("#board .nova-map").wait_for()
        assert page.locator("#board svg.nova-map polygon").count() == 169
        signals = page.locator("#board .nova-signals")
        assert "Team-Signale" in signals.inner_text()  # (the computer partner may have signalled already)
        shoot(page, "nova-teams-start")
        with kept_on_failure(page, "nova-signal"):
            # „Brauche Komet“, previewed and confirmed, shows on this player's board (the team's view).
            signals.get_by_role("button", name="Signal: Brauche Komet").click()
            page.locator("#preview button.confirm").click()
            page.locator("#board .nova-signals .signal", has_text="„Brauche Komet“").wait_for(timeout=STEP_MS)
            # „Feld frei halten“ on a clicked free cell: the cell then carries the mark on the map.
            page.locator("#board .nova-signals button", has_text="Feld frei halten").click()
            page.locator("#board .nova-choice", has_text="Feld frei halten").wait_for()
            page.locator("#board g.cell.pick[hx-post]").nth(20).click()
            page.locator("#preview button.confirm").click()
            page.locator("#board .nova-signals .signal", has_text="frei halten").wait_for(timeout=STEP_MS)
            assert page.locator("#board g.cell.keep").count() == 1
            shoot(page, "nova-teams-signal")

        moves = _play_to_the_end(page, "nova-teams", middle_at=8)
        assert moves >= 10
        _assert_end(page, 4, "Deneb")
        assert page.locator("#board .nova-track").count() == 2
        shoot(page, "nova-teams-end")
        print(f"\nspeednova in teams: {moves} moves on the board in {time.monotonic() - started:.1f} s")
    finally:
        context.close()


def test_a_team_signal_never_reaches_the_other_teams_page(browser: Any, web_platform: WebPlatform) -> None:
    """Two humans on opposite teams (Platz 1 and Platz 2) and two more humans who only sit (Platz 3 and 4): Platz 1
    signals on the board, sees it; Platz 2's live page and a fresh load of it show no trace of it.

    Humans in the other seats, not computers: a computer partner of Platz 2 asks for what it needs by itself, and
    its own „Brauche Quasar“ would rightly be on Platz 2's page."""
    import httpx

    lobby = web_platform.service("lobby")
    anton_context, anton = new_player(browser, web_platform, "Altair")
    bea_context, bea = new_player(browser, web_platform, "Rigel")
    try:
        token = {name: next(c["value"] for c in context.cookies() if c["name"] == "speed_session")
                 for name, context in (("a", anton_context), ("b", bea_context))}
        opened = httpx.post(f"{lobby}/tables", headers={"Authorization": f"Bearer {token['a']}"}, timeout=10, json={
            "game": "speednova", "settings": {"teams": "mit"}, "player_count": 4, "fill_with_bots": False}).json()
        sitting = [httpx.post(f"{lobby}/guests", json={"name": name}, timeout=10).json()["token"]
                   for name in ("Wega", "Spica")]
        for joining in (token["b"], *sitting):  # Platz 2, 3 and 4 in the order they join
            httpx.post(f"{lobby}/tables/{opened['table_id']}/join", headers={"Authorization": f"Bearer {joining}"},
                       timeout=10).raise_for_status()
        started = httpx.post(f"{lobby}/tables/{opened['table_id']}/start", timeout=10,
                             headers={"Authorization": f"Bearer {token['a']}"}).json()
        seats = httpx.get(f"{lobby}/tables/{opened['table_id']}", timeout=10).json()["seats"]
        assert [seat["name"] for seat in seats] == ["Altair", "Rigel", "Wega", "Spica"]  # 1 + 3 against 2 + 4
        game = f"{web_platform.url}/spiel/{started['game_id']}"
        anton.goto(game)
        bea.goto(game)
        bea.locator("#board .nova-signals").wait_for()
        with kept_on_failure(anton, "nova-other-team"):
            anton.locator("#board .nova-signals").get_by_role("button", name="Signal: Brauche Quasar").click()
            anton.locator("#preview button.confirm").click()
            anton.locator("#board .nova-signals .signal", has_text="„Brauche Quasar“").wait_for(timeout=STEP_MS)
        bea.wait_for_timeout(1500)  # time for any live update to arrive (none should carry it)
        for html in (bea.content(), httpx.get(game, cookies={"speed_session": token["b"]}, timeout=10).text):
            assert "„Brauche Quasar“" not in html and "Altair: „" not in html and "Platz 1 (Altair): „" not in html
        assert "„Brauche Quasar“" in anton.content()  # the check is not vacuous: the team sees it just so
    finally:
        anton_context.close()
        bea_context.close()


def test_a_half_made_choice_stays_when_the_partners_signal_arrives(browser: Any, web_platform: WebPlatform) -> None:
    """Platz 1 has „Feld frei halten“ open on the board; Platz 3, the partner, signals meanwhile. The live update
    shows the partner's signal and the free cells stay buttons: the choice was not taken from under the hand."""
    import httpx

    lobby, table = web_platform.service("lobby"), web_platform.service("table")
    context, page = new_player(browser, web_platform, "Altair")
    try:
        host = next(c["value"] for c in context.cookies() if c["name"] == "speed_session")
        opened = httpx.post(f"{lobby}/tables", headers={"Authorization": f"Bearer {host}"}, timeout=10, json={
            "game": "speednova", "settings": {"teams": "mit"}, "player_count": 4, "fill_with_bots": False}).json()
        others = [httpx.post(f"{lobby}/guests", json={"name": name}, timeout=10).json()["token"]
                  for name in ("Rigel", "Wega", "Spica")]
        for joining in others:  # Platz 2, 3 and 4
            httpx.post(f"{lobby}/tables/{opened['table_id']}/join", headers={"Authorization": f"Bearer {joining}"},
                       timeout=10).raise_for_status()
        started = httpx.post(f"{lobby}/tables/{opened['table_id']}/start", timeout=10,
                             headers={"Authorization": f"Bearer {host}"}).json()
        game_id = started["game_id"]
        page.goto(f"{web_platform.url}/spiel/{game_id}")
        with kept_on_failure(page, "nova-choice-kept"):
            page.locator("#board .nova-signals button", has_text="Feld frei halten").click()
            page.locator("#board .nova-choice", has_text="Feld frei halten").wait_for()
            partner = {"Authorization": f"Bearer {others[1]}"}
            seen = httpx.get(f"{table}/games/{game_id}/view", headers=partner, timeout=10).json()
            need = next(move for move in seen["legal_moves"] if move.get("signal") == "brauche")
            httpx.post(f"{table}/games/{game_id}/moves", headers=partner, timeout=10,
                       json={"move": need, "expected_n": seen["n"]}).raise_for_status()
            # The live redraw brings the partner's signal on the plain board; the choice comes back onto it.
            page.locator("#board .nova-signals .signal.partner").wait_for(timeout=STEP_MS)
            page.locator("#board .nova-choice", has_text="Feld frei halten").wait_for(timeout=STEP_MS)
            assert page.locator("#board .nova-signals .signal.partner").count() == 1
            page.locator("#board g.cell.pick[hx-post]").nth(20).click()
            page.locator("#preview button.confirm").click()
            page.locator("#board .nova-signals .signal", has_text="frei halten").wait_for(timeout=STEP_MS)
    finally:
        context.close()
