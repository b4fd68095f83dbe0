"""A finished game's replay in a real browser: stepped through by buttons and arrow keys, the audit's verdict
beside it, the export downloaded; an operator signs in with an operator token and sees the whole game."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from libs.platform.auth import issue_operator_token
from tests.conftest import TEST_AUTH_SECRET
from tests.web.browsing import kept_on_failure, new_player, play_to_the_end, shoot, start_solo
from tests.web.conftest import DESKTOP, PHONE, WebPlatform
from tests.web.test_browser_start import page_is_usable


def _step(page: Any) -> tuple[int, int]:
    step = page.locator("#replay .replay-step")
    return int(step.get_attribute("data-n")), int(step.get_attribute("data-of"))


def _wait_step(page: Any, n: int) -> None:
    """Until step n is shown and settled (htmx has wired its buttons)."""
    page.wait_for_function("n => Number(document.querySelector('#replay .replay-step').dataset.n) === n && "
                           "!document.querySelector('#replay.htmx-settling, #replay .htmx-request')", arg=n)


def test_a_finished_game_is_replayed_step_by_step_with_the_audit_and_the_export(
        browser: Any, web_platform: WebPlatform) -> None:
    started = time.monotonic()
    context, page = new_player(browser, web_platform, "Rita")
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    try:
        with kept_on_failure(page, "replay"):
            start_solo(page, "tinygame", {})
            game_id = page.url.rsplit("/", 1)[1]
            play_to_the_end(page)
            page.locator("#game .end").get_by_role("link", name="Wiederholung und Prüfung").click()
            page.wait_for_url(re.compile(f"/wiederholung/{game_id}"))
            assert _step(page)[0] == 1
            last = _step(page)[1]
            assert last > 3
            # The page opens with the board; the audit is folded under "Fairness-Nachweis", one click away, and
            # no player's page offers the operators' sign-in.
            assert page.locator("#replay .board-box").count() >= 1
            audit = page.locator("details.audit-box")
            assert audit.locator("summary").inner_text().startswith("Fairness-Nachweis")
            assert not page.locator(".audit-checks").is_visible()
            assert audit.bounding_box()["y"] > page.locator("#replay .board-box").first.bounding_box()["y"]
            assert not page.get_by_text("Als Betrieb anmelden").count()
            assert not page.locator('a[href="/betrieb"]').count()
            audit.locator("summary").click()
            assert "Prüfung bestanden" in page.locator(".audit .verdict").inner_text()
            assert "✓" in page.locator(".audit-checks").inner_text()
            for size in (DESKTOP, PHONE):  # no sideways scroll, every control at least 44 px tall
                page.set_viewport_size(size)
                page_is_usable(page, size["width"])
            page.set_viewport_size(DESKTOP)

            page.locator("body").press("ArrowRight")
            _wait_step(page, 2)
            page.get_by_role("button", name=re.compile("Vor")).click()
            _wait_step(page, 3)
            page.locator("body").press("ArrowLeft")
            _wait_step(page, 2)
            for n in range(3, last + 1):  # to the end by the arrow key alone
                page.locator("body").press("ArrowRight")
                _wait_step(page, n)
            assert page.get_by_role("button", name=re.compile("Vor")).is_disabled()
            page.locator("body").press("Home")
            _wait_step(page, 1)
            # Two quick presses: the second, made while the first step is still loading, is not lost.
            page.locator("body").press("ArrowRight")
            page.locator("body").press("ArrowRight")
            _wait_step(page, 3)
            page.get_by_role("button", name=re.compile("Ende")).click()
            _wait_step(page, last)
            assert "Ergebnis" in page.locator("#replay").inner_text() or page.locator("#replay li").count()
            shoot(page, "replay")
            assert re.search(rf"/wiederholung/{game_id}\?n={last}", page.url)  # the step is in the address

            if page.locator("details.audit-box").get_attribute("open") is None:
                page.locator("details.audit-box summary").click()
            with page.expect_download() as download_info:
                page.get_by_role("link", name=re.compile("Export herunterladen")).click()
            download = download_info.value
            assert download.suggested_filename == f"speed-partie-{game_id}.json"
            exported = json.loads(Path(download.path()).read_text(encoding="utf-8"))
            assert exported["game_id"] == game_id and len(exported["events"]) == last
            assert not [text for text in console if "Content Security Policy" in text], console
        print(f"\nreplay: {last} steps, audit and export in {time.monotonic() - started:.1f} s")

        # An operator: the token pasted on /betrieb, kept in an HttpOnly cookie; the whole game with every seat.
        with kept_on_failure(page, "operator"):
            page.goto(web_platform.url + "/betrieb")
            page.get_by_label("Betriebs-Token").fill(issue_operator_token(TEST_AUTH_SECRET, "anna-ops"))
            page.get_by_role("button", name="Als Betrieb anmelden").click()
            page.get_by_text("Du bist als Betrieb angemeldet").wait_for()
            cookie = next(c for c in context.cookies() if c["name"] == "speed_operator")
            assert cookie["httpOnly"] and "speed_operator" not in page.evaluate("document.cookie")
            page.goto(f"{web_platform.url}/wiederholung/{game_id}?n=3")
            assert page.locator("#replay-sicht").input_value() == "all"
            assert page.locator("#replay .replay-board > h3").count() == 3  # the table and both seats' boards
            assert "als Betrieb angemeldet" in page.locator(".replay-links").inner_text()
    finally:
        context.close()
