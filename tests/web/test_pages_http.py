"""The web front end over plain HTTP (no browser): headers, cookies, CSRF, escaping, refusals."""

from __future__ import annotations

import html
import json
import re
import time
from typing import Any

import httpx

from tests.web.conftest import WebPlatform

CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')


def assert_no_inline_code(html: str) -> None:
    """Scripts only from files, no event-handler or style attributes (the CSP would block them anyway)."""
    tags = re.findall(r"<[a-zA-Z][^>]*>", html)
    assert all(re.search(r"\bsrc=", tag) for tag in tags if tag.startswith("<script"))
    assert not [tag for tag in tags if re.search(r"\s(on[a-z]+|style)=", tag)]
    assert "<style" not in html


def _client(web_platform: WebPlatform) -> httpx.Client:
    return httpx.Client(base_url=web_platform.url, timeout=20, follow_redirects=False)


def _guest(client: httpx.Client, name: str) -> str:
    start = client.get("/")
    token = CSRF.search(start.text)
    assert token, start.text
    answer = client.post("/gast", data={"name": name, "csrf": token.group(1)})
    assert answer.status_code == 303, answer.text
    return token.group(1)


def test_start_page_has_a_strict_policy_and_no_inline_script(web_platform: WebPlatform) -> None:
    with _client(web_platform) as client:
        answer = client.get("/")
    assert answer.status_code == 200
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy and "unsafe-inline" not in policy
    assert_no_inline_code(answer.text)
    assert "Als Gast spielen" in answer.text


def test_the_session_cookie_is_httponly_and_lax_and_the_token_is_never_in_a_page(web_platform: WebPlatform) -> None:
    with _client(web_platform) as client:
        csrf = CSRF.search(client.get("/").text).group(1)  # type: ignore[union-attr]
        answer = client.post("/gast", data={"name": "Cookie", "csrf": csrf})
        header = next(h for h in answer.headers.get_list("set-cookie") if h.startswith("speed_session="))
        token = header.split(";")[0].split("=", 1)[1]
        home = client.get("/")
        behind_tls = client.post("/gast", data={"name": "Cookie2", "csrf": csrf},
                                 headers={"X-Forwarded-Proto": "https"})
    attributes = [part.strip().lower() for part in header.split(";")]
    assert "httponly" in attributes and "samesite=lax" in attributes and "secure" not in attributes
    assert answer.headers["location"] == "/" and token not in answer.headers["location"]
    assert token not in home.text and "Angemeldet als" in home.text
    assert all("speed_session" not in h for h in home.headers.get_list("set-cookie"))  # not set again
    tls_header = next(h for h in behind_tls.headers.get_list("set-cookie") if h.startswith("speed_session="))
    assert "secure" in [part.strip().lower() for part in tls_header.split(";")]


def test_a_form_without_the_csrf_token_is_refused(web_platform: WebPlatform) -> None:
    with _client(web_platform) as client:
        client.get("/")
        answer = client.post("/gast", data={"name": "Mallory"})
    assert answer.status_code == 403
    assert "speed_session" not in answer.headers.get("set-cookie", "")
    assert "abgelaufen" in answer.text


def test_a_typed_name_is_escaped(web_platform: WebPlatform) -> None:
    with _client(web_platform) as client:
        csrf = CSRF.search(client.get("/").text).group(1)  # type: ignore[union-attr]
        answer = client.post("/gast", data={"name": "<img src=x onerror=alert(1)>", "csrf": csrf})
    # The lobby refuses the name (German reason beside the form); the typed text comes back escaped.
    assert answer.status_code == 422
    assert "<img src=x" not in answer.text
    assert "&lt;img src=x onerror=alert(1)&gt;" in answer.text
    assert 'role="alert"' in answer.text


def _solo_game(client: httpx.Client, csrf: str) -> str:
    answer = client.post("/solo", data={"csrf": csrf, "game": "speedmosaik", "s:workshop": "kachelwand",
                                        "opponents": "1", "bot_level": "easy", "p:turbo": "true"})
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"]).rsplit("/", 1)[1]


def _my_move(client: httpx.Client, game_id: str) -> dict[str, Any]:
    """The first move button's values (Speedmosaik's are on its board) once it is this player's turn (the computer
    answers on its own)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        found = re.search(r"""hx-vals=(?:'([^']+)'|"([^"]+)")""", client.get(f"/spiel/{game_id}").text)
        if found:
            values: dict[str, Any] = json.loads(html.unescape(found.group(1) or found.group(2)))
            return values
        time.sleep(0.1)
    raise AssertionError("never this player's turn")


def _events(client: httpx.Client, game_id: str, headers: dict[str, str], count: int) -> list[tuple[str, str]]:
    """The first `count` server-sent events of the page's live stream: (event, data)."""
    found: list[tuple[str, str]] = []
    event, data = "", []
    with client.stream("GET", f"/spiel/{game_id}/live", headers=headers,
                       timeout=httpx.Timeout(10.0, read=20.0)) as stream:
        assert stream.status_code == 200 and "token" not in str(stream.url)
        for line in stream.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
            elif line == "" and event:
                found.append((event, "\n".join(data)))
                event, data = "", []
                if len(found) >= count:
                    break
    return found


def test_a_move_without_the_csrf_header_is_refused_and_changes_nothing(web_platform: WebPlatform) -> None:
    with _client(web_platform) as client:
        csrf = _guest(client, "Moritz")
        game_id = _solo_game(client, csrf)
        values = _my_move(client, game_id)
        refused = client.post(f"/spiel/{game_id}/zug", data={"move": values["move"], "n": str(values["n"])},
                              headers={"HX-Request": "true"})
        assert refused.status_code == 403
        assert 'class="status" data-n="1"' in client.get(f"/spiel/{game_id}").text  # still the first state
        made = client.post(f"/spiel/{game_id}/zug", data={"move": values["move"], "n": str(values["n"])},
                           headers={"HX-Request": "true", "X-CSRF-Token": csrf})
        assert made.status_code == 200 and 'data-n="2"' in made.text


def test_a_dropped_live_stream_catches_up_when_it_reconnects(web_platform: WebPlatform) -> None:
    with _client(web_platform) as client:
        csrf = _guest(client, "Lena")
        game_id = _solo_game(client, csrf)
        first = _events(client, game_id, {}, 2)
        assert [event for event, _ in first] == ["update", "board"]  # the game as it is, at once
        # Moves happen while the browser is away (two moves and the computer's answers) ...
        for _ in range(2):
            values = _my_move(client, game_id)
            answer = client.post(f"/spiel/{game_id}/zug", data={"move": values["move"], "n": str(values["n"])},
                                 headers={"HX-Request": "true", "X-CSRF-Token": csrf})
            assert answer.status_code == 200
        # ... and the reconnecting browser (EventSource sends the last id it saw) gets the game and the whole log.
        again = _events(client, game_id, {"Last-Event-ID": "1"}, 3)
        assert [event for event, _ in again] == ["update", "board", "logall"]
        assert again[2][1].count("<li") >= 3


def test_a_click_on_the_board_makes_the_move_at_once_unless_the_player_wants_to_confirm(
        web_platform: WebPlatform) -> None:
    """"Züge bestätigen" off (web.js sends direkt=1): the preview route makes the move and answers as /zug does,
    aimed at the game part; on: the move bar, in German words only; "Abbrechen" draws the plain board again."""
    from tests.web.test_game_page import assert_player_text

    with _client(web_platform) as client:
        csrf = _guest(client, "Direkta")
        game_id = _solo_game(client, csrf)
        headers = {"HX-Request": "true", "X-CSRF-Token": csrf}
        values = _my_move(client, game_id)
        page = client.get(f"/spiel/{game_id}").text
        moves = [json.loads(html.unescape(a or b)) for a, b in re.findall(r"""hx-vals=(?:'([^']+)'|"([^"]+)")""", page)]
        quiet, warned = None, None  # a move whose preview warns and one whose preview does not
        for values in (m for m in moves if "move" in m):
            bar = client.post(f"/spiel/{game_id}/vorschau", data={"move": values["move"], "n": str(values["n"])},
                              headers=headers)
            assert bar.status_code == 200 and "Zug ausführen" in bar.text and "Abbrechen" in bar.text
            assert "HX-Retarget" not in bar.headers and 'class="status"' not in bar.text  # nothing made yet
            assert_player_text(bar.text, "the move bar")
            if 'class="warning"' in bar.text:
                warned = warned or values
            else:
                quiet = quiet or values
            if quiet and warned:
                break
        assert quiet and warned
        cancelled = client.get(f"/spiel/{game_id}/abbrechen", headers=headers)
        assert cancelled.status_code == 200 and cancelled.text.startswith('<section id="board" hx-swap-oob')
        asked = client.post(f"/spiel/{game_id}/vorschau",
                            data={"move": warned["move"], "n": str(warned["n"]), "direkt": "1"}, headers=headers)
        assert "Zug ausführen" in asked.text and 'class="warning"' in asked.text  # a warning always asks
        made = client.post(f"/spiel/{game_id}/vorschau",
                           data={"move": quiet["move"], "n": str(quiet["n"]), "direkt": "1"}, headers=headers)
        assert made.status_code == 200 and made.headers["HX-Retarget"] == "#game"
        assert f'data-n="{int(quiet["n"]) + 1}"' in made.text and 'id="preview" hx-swap-oob' in made.text
        again = client.post(f"/spiel/{game_id}/vorschau",
                            data={"move": quiet["move"], "n": str(quiet["n"]), "direkt": "1"}, headers=headers)
        assert again.headers.get("HX-Retarget") == "#preview" and 'role="alert"' in again.text  # refused, in German
