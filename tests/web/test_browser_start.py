"""The start page in a real browser, as a new visitor meets it (issue 35, point 6, 8, 9): every game with its
picture before anyone signs in, "Spielen" lands in a running game against one computer in one click, "Optionen"
opens the settings (long choices readable at 360 px), the header stays one slim line, every control is at least
44 px tall, nothing scrolls sideways, and the tiny test game is offered only with the development setting."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx

from libs.devservers.ports import free_port
from libs.devservers.processes import web_process
from tests.conftest import Infrastructure
from tests.web.browsing import kept_on_failure, shoot
from tests.web.conftest import DESKTOP, PHONE, WebPlatform

GAMES = {"speedkoi": "Speedkoi", "speedmosaik": "Speedmosaik", "speednova": "Speednova", "speedspore": "Speedspore"}
SMALL_CONTROLS = (
    "() => [...document.querySelectorAll('header a, main button, main select, main summary, "
    "main input:not([type=radio]):not([type=hidden]), main .open-tables a, main .watch-list a, main a.more')]"
    ".filter(e => e.offsetParent !== null && !e.closest('.board-box') && e.getBoundingClientRect().height < 44)"
    ".map(e => (e.textContent || e.name || e.tagName).trim().slice(0, 40) + ': ' + e.getBoundingClientRect().height)")


def page_is_usable(page: Any, width: int) -> None:
    """At `width`: the header one line of at most 48 px, no sideways scroll, no control under 44 px (a board's own
    controls are its renderer's to size)."""
    assert page.locator("header.top").bounding_box()["height"] <= 48
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate(SMALL_CONTROLS) == []


def test_a_new_visitor_sees_every_game_with_a_picture_and_plays_in_one_click(
        browser: Any, web_platform: WebPlatform) -> None:
    for size in (DESKTOP, PHONE):
        context = browser.new_context(viewport=size, locale="de-DE")
        page = context.new_page()
        try:
            with kept_on_failure(page, f"start-{size['width']}"):
                page.goto(web_platform.url + "/")
                for game, title in GAMES.items():
                    offer = page.locator(f'section.game-offer[data-game="{game}"]')
                    assert offer.get_by_role("heading", name=title).is_visible()
                    picture = offer.locator(".game-pic svg, .game-pic img").first
                    assert picture.is_visible() and picture.bounding_box()["height"] >= 40, game
                    assert len(offer.locator(".game-line").inner_text()) > 20
                    assert offer.get_by_role("button", name="Spielen", exact=True).is_visible()
                    assert not offer.get_by_label("Computergegner").is_visible()  # settings folded
                header = page.locator("header.top")
                assert header.get_by_role("link", name="Spielen").is_visible()
                assert header.get_by_role("link", name="Zuschauen").is_visible()
                assert header.get_by_role("link", name="Anmelden").is_visible()
                assert not page.get_by_text("Betrieb").count()
                page_is_usable(page, size["width"])

                # "Optionen" opens the settings; Speednova's long choices stay whole at this width.
                nova = page.locator('section.game-offer[data-game="speednova"]')
                nova.get_by_text("Optionen", exact=True).click()
                assert nova.get_by_label("Computergegner").is_visible()
                long_choice = nova.get_by_role("radio", name=re.compile("^Rekordjagd")).first
                text = nova.locator("details.options label.radio span",
                                     has_text="Rekordjagd (ohne Bank, ein Stein nach dem anderen)")
                box = text.bounding_box()
                assert long_choice.is_visible() and box["x"] + box["width"] <= size["width"]
                assert text.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
                assert not nova.get_by_text("Turbo", exact=False).count()
                page_is_usable(page, size["width"])
                if size is PHONE:
                    shoot(page, "start-options")
                    nova.get_by_text("Optionen", exact=True).click()
                    page.evaluate("window.scrollTo(0, 0)")
                    shoot(page, "start")

                # "Spielen": a guest with a generated name, at once in a game against one computer (normal).
                page.locator('section.game-offer[data-game="speedkoi"]').get_by_role(
                    "button", name="Spielen", exact=True).click()
                page.wait_for_url(re.compile(r"/spiel/[0-9a-f]+$"))
                game_id = page.url.rsplit("/", 1)[1]
                token = next(c["value"] for c in context.cookies() if c["name"] == "speed_session")
                view = httpx.get(f"{web_platform.service('table')}/games/{game_id}/view",
                                 headers={"Authorization": f"Bearer {token}"}).json()
                assert view["status"] == "running" and view["game"] == "speedkoi"
                seats = view["seats"]
                assert len(seats) == 2 and seats[view["you"]]["kind"] == "human"
                assert re.fullmatch(r"Gast \d{4}", seats[view["you"]]["name"])
                other = seats[1 - view["you"]]
                assert other["kind"] == "bot" and other.get("level") == "normal"
                assert page.locator("header.top").get_by_role("link", name="Meine Seite").is_visible()
        finally:
            context.close()


def test_the_tiny_test_game_is_offered_only_with_the_development_setting(
        browser: Any, web_platform: WebPlatform, infra: Infrastructure, tmp_path: Path) -> None:
    urls = {name: web_platform.service(name) for name in ("lobby", "table", "leaderboard", "bot")}
    # WEB_SHOW_TEST_GAMES unset: the players' view; on a port of its own (not the 8100 `make run` prefers).
    plain = web_process(infra.env(), urls, logs=tmp_path, port=free_port()).start()
    context = browser.new_context(viewport=PHONE, locale="de-DE")
    page = context.new_page()
    try:
        plain.wait_ready(timeout=60)
        page.goto(plain.url + "/")
        offered = page.locator("section.game-offer").evaluate_all("all => all.map(e => e.dataset.game)")
        assert sorted(offered) == sorted(GAMES)
        assert "Zwergenstich" not in page.content()
        page.goto(web_platform.url + "/")  # the browser tests' web, with the setting: the tiny game is there
        assert page.locator('section.game-offer[data-game="tinygame"]').count() == 1
    finally:
        context.close()
        plain.stop()
