"""The player's home ("Meine Seite") and the table chat in a real browser: a daily game started from the home
page and played to the end shows in the day list, in the history with its curve and, rated against the
computer, as the rating on the end table (before → after) and on the home page with its curve; two people at an open
table chat live (markup shown as text), and "Nochmal" keeps the seats at the same table."""

from __future__ import annotations

import re
import time
from typing import Any

from tests.web.browsing import kept_on_failure, new_player, play_to_the_end, shoot
from tests.web.conftest import DESKTOP, PHONE, SCREENS, WebPlatform
from tests.web.test_browser_start import page_is_usable


def _shoot_part(page: Any, selector: str, name: str) -> None:
    """As `shoot`, scrolled to one part of a long page (desktop and 360 px)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    for size, suffix in ((DESKTOP, "desktop"), (PHONE, "360")):
        page.set_viewport_size(size)
        page.locator(selector).scroll_into_view_if_needed()
        page.evaluate("selector => document.querySelector(selector).scrollIntoView()", selector)
        page.screenshot(path=str(SCREENS / f"{name}-{suffix}.png"))
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], name
    page.set_viewport_size(DESKTOP)


def test_a_daily_game_from_the_home_page_shows_in_the_day_list_and_the_history_curve(
        browser: Any, web_platform: WebPlatform) -> None:
    started = time.monotonic()
    context, page = new_player(browser, web_platform, "Hedwig")
    try:
        with kept_on_failure(page, "home"):
            page.get_by_role("link", name="Meine Seite").click()
            page.get_by_role("heading", name="Tagesspiele heute").wait_for()
            daily = page.locator('li.daily[data-game="tinygame"][data-mode="tagesstich"]')
            # The start button first; the day's seed commitment folded below it, one click away.
            commitment = daily.locator("details.commitments")
            assert not commitment.locator("code").is_visible()
            button_box = daily.get_by_role("button", name="Tagesstich spielen").bounding_box()
            assert commitment.bounding_box()["y"] > button_box["y"]
            commitment.locator("summary").click()
            assert re.fullmatch(r"[0-9a-f]{64}", commitment.locator("code").inner_text()), "the commitment is published"
            daily.get_by_role("button", name="Tagesstich spielen").click()
            page.wait_for_url(re.compile(r"/spiel/[0-9a-f]+$"))
            game_id = page.url.rsplit("/", 1)[1]
            play_to_the_end(page)

            # The leaderboard projects the end from the game's facts: look until it is there.
            deadline = time.monotonic() + 30
            while True:
                page.goto(web_platform.url + "/meine-seite?spiel=tinygame")
                mode = page.locator('section.mode[data-mode="tagesstich"]')
                if "Hedwig" in mode.inner_text() and page.locator(f'tr[data-game-id="{game_id}"]').count():
                    break
                assert time.monotonic() < deadline, "the finished daily game never reached the lists"
                time.sleep(0.5)
            day_list = mode.locator("table.mode-list").first
            assert "Hedwig" in day_list.inner_text()
            curve = page.locator("svg.curve")
            assert curve.count() == 1 and curve.locator("circle.curve-point").count() >= 1
            assert "Verlauf der Punkte" in (curve.get_attribute("aria-label") or "")
            # The daily game against the computer was rated: the rating, its uncertainty and its curve.
            mine = page.locator("div.my-rating").first
            assert re.fullmatch(r"\d{3,4}", mine.locator(".rating-value").inner_text()), mine.inner_text()
            assert re.fullmatch(r"± \d{2,3}", mine.locator(".rating-uncertainty").inner_text())
            assert "1 gewertete Partie · vorläufig" in mine.inner_text()
            assert mine.locator("svg.rating-curve circle.curve-point").count() == 1
            rating = mine.locator(".rating-value").inner_text()
            assert page.locator("#badges-h").is_visible() and page.locator("ul.badges li").count() >= 3
            assert page.locator("section.mode[data-mode=reise] ol.stages li").count() == 2  # the campaign's stages
            shoot(page, "home")
            for size in (DESKTOP, PHONE):  # no sideways scroll, every control at least 44 px tall
                page.set_viewport_size(size)
                page_is_usable(page, size["width"])
            page.set_viewport_size(DESKTOP)
            _shoot_part(page, "#history-h", "home-history")
            # The whole day list, on its own page, and the day chosen there.
            page.get_by_role("link", name="Ganze Tagesliste").click()
            page.get_by_role("heading", name=re.compile("Tagesstich – Tagesliste")).wait_for()
            assert "Hedwig" in page.locator("table.mode-list").inner_text()
            page.get_by_role("button", name="Zeigen").click()
            page.get_by_role("heading", name=re.compile("Tagesstich – Tagesliste")).wait_for()
            page.go_back()
            page.go_back()
            page.locator(f'tr[data-game-id="{game_id}"]').wait_for()
            # The history links the game's replay.
            page.locator(f'tr[data-game-id="{game_id}"]').get_by_role("link", name="ansehen").click()
            page.get_by_role("heading", name=re.compile("^Schritt 1 von")).wait_for()
            # "Nochmal" after a daily game: the same mode again (a practice attempt), not a plain solo table.
            page.goto(f"{web_platform.url}/spiel/{game_id}")
            end = page.locator("#game .end")
            assert "als Übung" in end.inner_text()
            # The end table shows the rating before and after the game, as the home page has it now.
            assert f"1500 → {rating}" in end.locator("tr.me td.rating").inner_text()
            end.get_by_role("button", name="Nochmal").click()
            page.wait_for_url(lambda url: "/spiel/" in url and game_id not in url)
            page.goto(web_platform.url + "/meine-seite?spiel=tinygame")
            assert "Tagesstich" in page.locator("#resume-h + ul").inner_text()
        print(f"\nhome: daily game to the lists in {time.monotonic() - started:.1f} s")
    finally:
        context.close()


def _open_tinygame_table(host: Any, guest: Any, host_name: str, stake: str | None = None) -> None:
    offer = host.locator('section.game-offer[data-game="tinygame"]')
    offer.get_by_text("Tisch für Mitspieler eröffnen").click()
    if stake is not None:
        offer.get_by_label("Einsatz", exact=False).select_option(stake)
    offer.get_by_label("Plätze am Tisch").select_option("2")
    offer.get_by_label("Freie Plätze beim Start").select_option("false")
    offer.get_by_role("button", name="Tisch eröffnen").click()
    host.wait_for_url(re.compile(r"/tisch/[0-9a-f]+$"))
    guest.reload()
    guest.get_by_role("link", name=re.compile(f"Zwergenstich bei {host_name}")).click()
    guest.get_by_role("button", name="Beitreten").click()
    host.locator(".table-seats li.seat-1.taken").wait_for()
    host.get_by_role("button", name="Partie starten").click()
    host.wait_for_url(re.compile(r"/spiel/[0-9a-f]+$"))
    guest.wait_for_url(re.compile(r"/spiel/[0-9a-f]+$"), timeout=15_000)


def test_two_people_chat_at_their_table_live_and_markup_stays_text_then_nochmal_keeps_the_seats(
        browser: Any, web_platform: WebPlatform) -> None:
    host_context, host = new_player(browser, web_platform, "Lotte")
    guest_context, guest = new_player(browser, web_platform, "Mats")
    try:
        with kept_on_failure(host, "chat"):
            _open_tinygame_table(host, guest, "Lotte")
            host.evaluate("window.speedMarker = 'no reload'")
            guest.evaluate("window.speedMarker = 'no reload'")
            host.get_by_role("heading", name="Tisch-Chat").wait_for()
            guest.get_by_role("heading", name="Tisch-Chat").wait_for()

            host.get_by_label(re.compile("^Nachricht")).fill("<b>Hallo</b> & viel Glück <script>x()</script>")
            host.locator(".chat-form").get_by_role("button", name="Senden").click()
            message = guest.locator("#chat-messages li").first
            message.wait_for(timeout=15_000)
            assert "<b>Hallo</b> & viel Glück <script>x()</script>" in message.inner_text()
            assert guest.locator("#chat-messages b, #chat-messages script").count() == 0
            guest.get_by_label(re.compile("^Nachricht")).fill("Danke, dir auch!")
            guest.get_by_label(re.compile("^Nachricht")).press("Enter")
            host.locator("#chat-messages li", has_text="Danke, dir auch!").wait_for(timeout=15_000)
            assert host.evaluate("window.speedMarker") == "no reload" == guest.evaluate("window.speedMarker")
            # Too long is refused in German by the lobby (the field's maxlength is bypassed here on purpose).
            host.locator("#chat-text").evaluate("field => field.removeAttribute('maxlength')")
            host.get_by_label(re.compile("^Nachricht")).fill("x" * 301)
            host.locator(".chat-form").get_by_role("button", name="Senden").click()
            host.locator(".chat-form .error").wait_for()
            assert "300" in host.locator(".chat-form .error").inner_text()
            # The lobby's rate limit (5 in 10 s): its German refusal beside the field.
            for index in range(7):
                host.get_by_label(re.compile("^Nachricht")).fill(f"Nachricht {index}")
                with host.expect_response(lambda answer: answer.url.endswith("/chat")
                                          and answer.request.method == "POST"):
                    host.locator(".chat-form").get_by_role("button", name="Senden").click()
                host.locator(".chat-form").wait_for()
                if "Zu viele" in " ".join(host.locator(".chat-form .error").all_inner_texts()):
                    break
            assert "Zu viele Nachrichten" in host.locator(".chat-form .error").inner_text()
            _shoot_part(host, ".chat", "chat")

            # Mats leaves (the computer plays on for him); Lotte plays to the end and asks for "Nochmal" at
            # the same table: her seat is taken again, Mats's kept for two minutes.
            guest.get_by_role("button", name="Partie verlassen").click()
            guest.get_by_role("button", name="Ja, verlassen").click()
            guest.get_by_text("Du hast die Partie verlassen").wait_for()
            play_to_the_end(host)
            host.locator("#game .end").get_by_role("button", name="Nochmal").click()
            host.wait_for_url(re.compile(r"/tisch/[0-9a-f]+$"))
            host.get_by_text("wartet auf „Nochmal“").wait_for()
            assert "Stuhl frei gehalten bis" in host.locator(".table-seats").inner_text()
            host.get_by_text("Du bist wieder dabei").wait_for()
            assert host.locator("#table").get_by_role("button", name="Nochmal").count() == 0
            game_id = re.compile(r"/spiel/([0-9a-f]+)$")
            first_game = guest.url
            guest.goto(host.url)
            guest.locator("#table").get_by_role("button", name="Nochmal").click()
            guest.wait_for_url(lambda url: bool(game_id.search(url)) and url != first_game, timeout=15_000)
            host.wait_for_url(lambda url: url == guest.url, timeout=15_000)  # the host's table page follows
            shoot(host, "table-nochmal")
    finally:
        host_context.close()
        guest_context.close()


def _signed_up(browser: Any, web_platform: WebPlatform, prefix: str) -> tuple[Any, Any, str]:
    """A new registered player's browser on the start page once the ledger has opened the wallet."""
    context = browser.new_context(viewport=DESKTOP, locale="de-DE")
    page = context.new_page()
    page.goto(web_platform.url + "/")
    name = f"{prefix}{int(time.time() * 1000) % 100000}"
    page.get_by_text("Registrieren oder anmelden").click()
    page.get_by_label("Name", exact=True).first.fill(name)
    page.get_by_label(re.compile("^Passwort \\(mindestens")).fill("geheim-123")
    page.get_by_role("button", name="Registrieren").click()
    page.get_by_text(f"Angemeldet als {name}").first.wait_for()
    deadline = time.monotonic() + 20  # the ledger opens the wallet when it reads the registration
    while not page.locator(".wallet-line").count():
        assert time.monotonic() < deadline, "the wallet never showed"
        time.sleep(0.5)
        page.reload()
    return context, page, name


def test_the_end_table_shows_what_each_player_won_or_lost_at_a_stake_table(
        browser: Any, web_platform: WebPlatform) -> None:
    """Two registered players at a stake table; the second leaves (forfeits, the computer plays on for the
    seat), the first plays to the end: the end table shows the pot's Taler per seat, from the ledger via the
    lobby's `GET /pots/{game_id}`."""
    host_context, host, host_name = _signed_up(browser, web_platform, "Rosa")
    guest_context, guest, guest_name = _signed_up(browser, web_platform, "Sven")
    try:
        with kept_on_failure(host, "taler"):
            _open_tinygame_table(host, guest, host_name, stake="25")
            guest.get_by_role("button", name="Partie verlassen").click()
            assert "Deinen Einsatz von 25 Taler verlierst du" in guest.locator("#preview .warning").inner_text()
            guest.get_by_role("button", name="Ja, verlassen").click()
            guest.get_by_text("Du hast die Partie verlassen").wait_for()
            play_to_the_end(host)
            deadline = time.monotonic() + 20  # the ledger pays the pot when it reads the game's end
            while "+25 Taler" not in host.locator("#game .end").inner_text():
                assert time.monotonic() < deadline, host.locator("#game .end").inner_text()
                time.sleep(0.5)
                host.reload()
            rows = {row.locator("td").nth(1).inner_text(): row.locator("td.taler").inner_text()
                    for row in host.locator("#game .end tbody tr").all()}
            assert rows[f"{host_name} (du)"] == "+25 Taler (eingesetzt 25 Taler, aus dem Topf 50 Taler)"
            assert rows[guest_name] == "\u221225 Taler (eingesetzt 25 Taler, aus dem Topf 0 Taler)"
            assert host.locator("#game .pot-line").inner_text().startswith("Topf: 50 Taler.")
            shoot(host, "end-taler")
    finally:
        host_context.close()
        guest_context.close()


def test_a_registered_player_sees_the_wallet_beside_the_stake_and_after_sitting_down(
        browser: Any, web_platform: WebPlatform) -> None:
    """The lobby's `GET /me/wallet` (the ledger's balance over NATS): on the home page, in the table form beside
    the stake, and on the table page once the stake is held."""
    context, page, _ = _signed_up(browser, web_platform, "Wilma")
    try:
        with kept_on_failure(page, "wallet"):
            offer = page.locator('section.game-offer[data-game="tinygame"]')
            offer.get_by_text("Tisch für Mitspieler eröffnen").click()
            shown = re.search(r"(\d+) Taler", offer.locator(".wallet-line").inner_text())
            assert shown is not None
            before = int(shown.group(1))
            offer.get_by_label("Einsatz", exact=False).select_option("25")
            offer.get_by_label("Plätze am Tisch").select_option("2")
            offer.get_by_role("button", name="Tisch eröffnen").click()
            page.wait_for_url(re.compile(r"/tisch/[0-9a-f]+$"))
            assert f"dein Guthaben: {before - 25} Taler" in page.locator(".table-card").inner_text()
            page.get_by_role("link", name="Meine Seite").click()
            assert f"{before - 25} Taler" in page.locator(".home-intro .wallet").inner_text()
    finally:
        context.close()
