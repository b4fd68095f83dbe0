"""Speedspore in a real browser: a new player plays a solo game against two computers (turbo, 8 victory points) to
the end by clicking on the island (corners, edges, hexes), the discard form, the trade panel and "Zurück"."""

from __future__ import annotations

import re
import time
from typing import Any

from tests.web.browsing import kept_on_failure, new_player, shoot, shown_n, start_solo
from tests.web.conftest import WebPlatform

GAME_SECONDS = 230
STEP_MS = 20_000


def _confirm(page: Any, before: int) -> bool:
    """Confirm the preview shown; True once the page shows a newer state, False if the move was refused."""
    preview = page.locator("#preview")
    preview.locator("button.confirm, .error, [role=alert]").first.wait_for(timeout=STEP_MS)
    if not preview.locator("button.confirm").count():
        return False
    preview.locator("button.confirm").click(timeout=STEP_MS)
    page.wait_for_function("n => Number(document.querySelector('#game .status').dataset.n) > n", arg=before,
                           timeout=STEP_MS)
    return True


def _click_and_confirm(page: Any, target: Any) -> bool:
    before = shown_n(page)
    try:
        target.click(timeout=5_000)
    except Exception:
        return False  # the live stream swapped the place away (a computer moved meanwhile): look again
    try:
        return _confirm(page, before)
    except Exception:
        if page.locator("#preview .cancel").count():
            page.locator("#preview .cancel").first.click()
        return False


def _mine(page: Any) -> str:
    """What "Zurück" restores: the own hand and the own pieces on the island (seat 0 is the player)."""
    return str(page.locator("#board .hand").inner_text() + f"|{page.locator('#board g.thread.p0').count()}"
            f"|{page.locator('#board g.piece.p0').count()}|{page.locator('#board g.piece.p0.tower').count()}")


def _best(places: Any) -> Any:
    """The place on the island whose fields' numbers bring the most (its label names them: "Park 9, Ruine 10")."""
    labels = places.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")

    def dots(label: str) -> int:
        found = re.search(r"auf Ecke \d+ \(([^)]*)\)", label)
        return sum(6 - abs(7 - int(n)) for n in re.findall(r"\b(\d{1,2})\b", found.group(1) if found else ""))

    return places.nth(max(range(len(labels)), key=lambda i: (dots(labels[i]), -i)))


def _undo(page: Any, before: str) -> bool:
    """Click "Zurück" (the page's own button) and see the island and hand as they were before the step."""
    undo = page.locator("#game button.undo")
    if not undo.count() or _mine(page) == before:
        return False
    n = shown_n(page)
    undo.click()
    page.wait_for_function("n => Number(document.querySelector('#game .status').dataset.n) > n", arg=n,
                           timeout=STEP_MS)
    for _ in range(50):
        if _mine(page) == before:
            return True
        page.wait_for_timeout(100)
    raise AssertionError(f"Zurück did not restore {before!r}: {_mine(page)!r}")


def _discard(page: Any) -> bool:
    form = page.locator("#board .spore-discard form")
    said = re.search(r"genau (\d+)", page.locator("#board .spore-discard").inner_text())
    assert said is not None
    need = int(said.group(1))
    for item in page.locator("#board .hand .res").all():
        kind = str(item.get_attribute("class")).split("r-")[-1]
        have = int(item.locator("strong").inner_text())
        take = min(have, need)
        form.locator(f'input[name="m.abwerfen.{kind}"]').fill(str(take))
        need -= take
    return _click_and_confirm(page, form.get_by_role("button"))


def _offer(page: Any) -> str:
    """Offer the computers a trade from the trade panel; wait for their answers; trade or withdraw."""
    trade = page.locator("#board .spore-trade")
    if not _click_and_confirm(page, trade.locator("button.move", has_text="Angebot an alle").first):
        return ""
    offer = page.locator("#board .offer")
    offer.wait_for(timeout=STEP_MS)
    page.wait_for_function("() => { const o = document.querySelector('#board .offer');"
                           " return o && !o.innerText.includes('überlegt noch'); }", timeout=STEP_MS)
    answers = str(page.locator("#board .offer").inner_text())
    shoot(page, "spore-trade")
    accept = page.locator("#board .spore-trade button.move", has_text="Handeln mit")
    if accept.count():
        _click_and_confirm(page, accept.first)
    elif page.locator("#board .spore-trade button.move", has_text="Angebot zurückziehen").count():
        _click_and_confirm(page, page.locator("#board .spore-trade button.move",
                                              has_text="Angebot zurückziehen").first)
    return answers


def test_a_speedspore_game_against_computers_is_played_to_the_end_on_the_island(browser: Any,
                                                                              web_platform: WebPlatform) -> None:
    started = time.monotonic()
    context, page = new_player(browser, web_platform, "Sporia")
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    done = {"corner": 0, "edge": 0, "field": 0, "discard": 0, "answer": 0, "undo": 0, "other": 0}
    answers = ""
    try:
        with kept_on_failure(page, "speedspore"):
            start_solo(page, "speedspore", {"Siegpunkte": "8 (kurz)", "Insel": "Einsteiger"},
                       opponents="2")
            page.locator("#board svg.island").wait_for()
            assert page.locator("#board .hex").count() == 19 and page.locator("#board .gully").count() == 9
            shoot(page, "spore-start")
            # A place on the island is a button for the keyboard too: focus a corner, Enter shows its preview.
            page.locator("#board g.hit.corner").first.focus()
            page.keyboard.press("Enter")
            page.locator("#preview").get_by_role("heading", name=re.compile("^Vorschau: Fruchtkörper")).wait_for()
            page.locator("#preview").get_by_role("button", name="Abbrechen").click()
            page.locator("#preview").get_by_role("heading").wait_for(state="detached")
            deadline = time.monotonic() + GAME_SECONDS
            attempts = 0
            while time.monotonic() < deadline:
                attempts += 1
                page.locator("#game .end, #board .hit, #board .move, #board form, #game button.move").first.wait_for(
                    timeout=60_000)
                if page.locator("#game .end").count():
                    break
                status = page.locator("#board .spore-status").inner_text()
                corners = page.locator("#board g.hit.corner")
                fields = page.locator("#board g.hit.field")
                edges = page.locator("#board g.hit.edge")
                turn_ends = page.locator("#board button.move", has_text="Zug beenden")
                vorrat = page.locator("#board .spore-trade button.move", has_text="Tausch mit dem Vorrat")
                if page.locator("#board .spore-discard").count():
                    done["discard"] += _discard(page)
                elif fields.count():
                    done["field"] += _click_and_confirm(page, fields.first)
                elif corners.count() or (edges.count() and (not turn_ends.count() or not done["undo"])):
                    kind = "corner" if corners.count() else "edge"
                    before = _mine(page)
                    if _click_and_confirm(page, _best(corners) if corners.count() else
                                          edges.nth(attempts % edges.count())):
                        done[kind] += 1
                        if turn_ends.count() and not done["undo"]:
                            done["undo"] += _undo(page, before)
                elif not done["undo"] and vorrat.count() and turn_ends.count():
                    before = _mine(page)
                    if _click_and_confirm(page, vorrat.first):
                        done["undo"] += _undo(page, before)
                elif page.locator("#board .spore-trade button.move", has_text="Angebot ablehnen").count():
                    done["answer"] += _click_and_confirm(page, page.locator(
                        "#board .spore-trade button.move", has_text="Angebot ablehnen").first)
                elif not answers and page.locator("#board .spore-trade button.move",
                                                  has_text="Angebot an alle").count():
                    answers = _offer(page) or "-"
                    if answers != "-":
                        shoot(page, "spore-middle")
                elif page.locator("#board .spore-trade button.move", has_text="Handeln mit").count():
                    _click_and_confirm(page, page.locator("#board .spore-trade button.move",
                                                          has_text="Handeln mit").first)
                elif turn_ends.count():
                    done["other"] += _click_and_confirm(page, turn_ends.first)
                elif page.locator("#board .spore-status button.move").count():
                    done["other"] += _click_and_confirm(page, page.locator("#board .spore-status button.move").first)
                elif page.locator("#game button.move:not(.undo)").count():
                    done["other"] += _click_and_confirm(page, page.locator("#game button.move:not(.undo)").last)
                else:
                    page.wait_for_timeout(200)
                assert "Fehler" not in status
            end = page.locator("#game .end")
            end.wait_for(timeout=5_000)
            assert "Ergebnis" in end.inner_text() and end.locator("tbody tr").count() == 3
            assert page.locator("#board .spore section, #board section[aria-label=Endtafel]").count() >= 0
            page.locator("#board section[aria-label=Endtafel]").wait_for(timeout=STEP_MS)
            shoot(page, "spore-end")
        assert done["corner"] >= 2 and done["edge"] >= 2, done  # the founding, on the island
        assert done["undo"] == 1, done
        assert re.search(r"Platz \d: (ja|nein|Gegenangebot)", answers), answers
        assert not [text for text in console if "Content Security Policy" in text], console
        print(f"\nspeedspore in the browser: {done}, {time.monotonic() - started:.1f} s")
    finally:
        context.close()
