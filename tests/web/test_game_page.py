"""The game page shell without servers: the player strip, the turn banner, the opponents' last moves, the move
bar, the log and the end banner, drawn from views and previews the rule modules make. Every page and every
preview answer of every game is scanned for internal keys and English field names (issue 35, point 3)."""

from __future__ import annotations

import html
import random
import re
from typing import Any

import pytest

from libs.rules import registry
from services.web import game_view
from services.web.pages import TEMPLATES, game_context, preview_context

GAMES = [("speedmosaik@1", {"workshop": "kachelwand"}), ("speedmosaik@1", {"workshop": "kirchenfenster"}),
         ("speedmosaik@1", {"workshop": "sternpavillon"}), ("speednova@2", {}), ("speedkoi@1", {}),
         ("speedspore@2", {})]
NAMES = ["Anna", "Computer 1", "Computer 2", "Computer 3"]
DOTTED_KEY = re.compile(r"\b[a-z][a-z0-9_]{2,}\.[a-z][a-z0-9_]{2,}(?:\.[a-z0-9_]+)*\b")
FIELD_NAMES = re.compile(r"\b(?:Label|Points|Key|Params|Zug [a-z]|Art [a-z]|Text)\b")


def visible_text(page: str) -> str:
    """What a player reads or hears: text between tags and the aria-label and title attributes."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    said = " ".join(html.unescape(value) for value in re.findall(r'(?:aria-label|title)="([^"]*)"', body))
    return html.unescape(re.sub(r"<[^>]+>", " ", body)) + " " + said


def assert_player_text(page: str, where: str) -> None:
    text = visible_text(page)
    assert not DOTTED_KEY.findall(text), (where, DOTTED_KEY.findall(text)[:5])
    assert not FIELD_NAMES.findall(text), (where, FIELD_NAMES.findall(text)[:5])


def _visible(effects: list[dict[str, Any]], viewer: int) -> list[dict[str, Any]]:
    return [effect for effect in effects if effect.get("visible_to") is None or viewer in effect["visible_to"]]


def view_of(engine: Any, rules: str, position: Any, seats: int, viewer: int, n: int,
            last: list[dict[str, Any] | None], effects: list[dict[str, Any]]) -> dict[str, Any]:
    pending = engine.pending(position)
    over = engine.is_over(position)
    view = {"game_id": "ab" * 16, "game": engine.spec.game, "rules": rules, "settings": {}, "n": n,
            "status": "ended" if over else "running", "you": viewer,
            "seats": [{"seat": i, "name": NAMES[i] if i else "Anna", "kind": "bot" if i else "human",
                       "level": "normal" if i else None, "left": False} for i in range(seats)],
            "to_move": [] if over else [p.seat for p in pending if p.must],
            "may_act": [] if over else [p.seat for p in pending if not p.must],
            "board": engine.view(position, viewer),
            "legal_moves": [] if over else engine.legal_moves(position, viewer),
            "can_undo": False, "last_effects": _visible(effects, viewer),
            "last_moves": [None if entry is None else {"n": entry["n"], "effects": _visible(entry["effects"], viewer)}
                           for entry in last],
            "clocks": [{"seat": p.seat, "deadline": "2030-01-01T00:00:00Z", "think_time": 60, "grace": 5}
                       for p in pending if p.must] if not over else []}
    if over:
        view["outcome"] = engine.outcome(position).to_json()
    return view


def play(rules: str, config: dict[str, Any], seats: int, seed: int, steps: int) -> Any:
    """Views for seat 0 along one game of random legal moves (every `steps`-th state and the end)."""
    engine = registry.engine(rules)
    position = engine.start(engine.normalize_config(config, seats), seats, bytes([seed]) * 32)
    rng = random.Random(seed)
    n = 1
    last: list[dict[str, Any] | None] = [None] * seats
    effects: list[dict[str, Any]] = []
    for index in range(2000):
        over = engine.is_over(position)
        if over or index % steps == 0:
            yield engine, position, view_of(engine, rules, position, seats, 0, n, last, effects)
        if over:
            return
        seat = engine.pending(position)[0].seat
        move = rng.choice(engine.legal_moves(position, seat))
        step = engine.apply(position, seat, move)
        position, n, effects = step.position, n + 1, step.effects
        last[seat] = {"n": n, "effects": effects}


def page_of(view: dict[str, Any], log: list[dict[str, Any]] | None = None) -> str:
    return TEMPLATES.get_template("game.html").render({"csrf": "c", "title": "Spiel", "game_id": view["game_id"],
                                                       "log": log or [], **game_context(view)})


@pytest.mark.parametrize(("rules", "config"), GAMES, ids=lambda value: str(value))
def test_no_page_and_no_preview_of_any_game_shows_an_internal_key_or_field_name(rules: str,
                                                                              config: dict[str, Any]) -> None:
    checked = 0
    for engine, position, view in play(rules, config, 2, seed=3, steps=7):
        page = page_of(view)
        assert_player_text(page, f"{rules} n={view['n']}")
        for move in view["legal_moves"][:: max(1, len(view["legal_moves"]) // 4)][:4]:
            answer = {"move": move, "preview": engine.preview(position, 0, move)}
            bar = TEMPLATES.get_template("_preview.html").render(
                {"game_id": "x", "move_json": "{}", "n": view["n"], **preview_context(view, move, answer)})
            assert_player_text(bar, f"{rules} preview {move}")
            assert "Zug ausführen" in bar and "Abbrechen" in bar
            checked += 1
    assert checked >= 3


def test_the_scan_finds_what_it_looks_for() -> None:
    with pytest.raises(AssertionError):
        assert_player_text("<dl><dt>Key</dt><dd>kachelwand.rechenweg.fliese</dd></dl>", "old preview")
    with pytest.raises(AssertionError):
        assert_player_text('<p aria-label="Label: x">x</p>', "label")
    assert_player_text('<p class="x.y">Fliesen: 3 Punkte. Die Partie beginnt.</p>', "fine")


def _view(**changes: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "game_id": "ab" * 16, "game": "tinygame", "n": 7, "status": "running", "you": 0,
        "seats": [{"name": "Anna", "kind": "human"}, {"name": "Computer 1", "kind": "bot", "level": "strong"},
                  {"name": "Bea", "kind": "human", "left": True}],
        "to_move": [0], "may_act": [2], "legal_moves": [], "board": {}, "last_effects": [],
        "clocks": [{"seat": 0, "deadline": "2030-01-01T00:00:00Z", "think_time": 60, "grace": 5},
                   {"seat": 2, "deadline": "2030-01-01T00:00:00Z", "think_time": 60, "grace": 5}]}
    view.update(changes)
    return view


def test_the_strip_shows_every_seat_with_du_clock_turn_level_and_left() -> None:
    rows = game_view.strip(_view())
    assert [row["label"] for row in rows] == ["Du", "Computer 1", "Bea"]
    assert [row["shape"] for row in rows] == ["circle", "square", "triangle"]
    assert rows[0]["turn"] and not rows[1]["turn"] and rows[2]["answer"]
    assert rows[0]["clock"]["text"] == "1:05" and rows[2]["clock"] and rows[1]["clock"] is None
    assert rows[1]["level"] == "stark" and rows[2]["left"]
    page = TEMPLATES.get_template("_game.html").render({"game_id": "x", "csrf": "c", **game_context(_view())})
    assert 'class="status" data-n="7"' in page and 'data-turn="1"' in page
    assert "Du bist am Zug" in page and "kann antworten" in page and "hat verlassen" in page
    assert "dürfen handeln" not in page and "Platz 1" not in page and "Platz 2" not in page
    assert page.count('class="clock"') == 2
    assert 'title="Computer, Stufe stark">stark</small>' in page


def test_the_banner_waits_for_the_others_and_says_so_by_name() -> None:
    page = TEMPLATES.get_template("_game.html").render(
        {"game_id": "x", "csrf": "c", **game_context(_view(to_move=[1], may_act=[]))})
    assert "Du bist am Zug" not in page and 'data-turn=""' in page
    assert "Computer 1 ist am Zug." in page


def test_a_board_without_declarations_gets_plain_fallbacks() -> None:
    view = _view(last_moves=[None, {"n": 6, "effects": [{"key": "x.y.z", "params": {}, "text": "Platz 2 zieht."}]},
                             None])
    assert game_view.prompt(view)  # a plain German line
    assert game_view.last_lines(view) == ["Computer 1: Computer 1 zieht."]
    assert game_view.named("Platz 3 gewinnt vor Platz 9.", view) == "Bea gewinnt vor Platz 9."
    answer = {"warnungen": [{"key": "a.b.c", "params": {}, "text": "Platz 2 bekommt 3 Punkte."}],
              "text": {"key": "a.b.d", "params": {}, "text": "+4 Punkte"}, "punkte": 4}
    assert game_view.preview_warnings(answer, view) == ["Computer 1 bekommt 3 Punkte."]
    assert game_view.preview_line({}, answer, view) == "+4 Punkte"
    assert game_view.preview_line({}, {"punkte": 4, "art": "nehmen"}, view) == ""  # no fields, no keys


def test_each_log_line_once_the_end_once_and_numbered_by_its_event() -> None:
    move = [{"key": "a.b.c", "params": {}, "text": "Platz 1 nimmt."}]
    first = _view(n=5, last_effects=move)
    again = _view(n=6, last_effects=move)  # another event (a seat left, a signal): the same last move
    ended = _view(n=7, last_effects=move, status="ended")
    assert game_view.live_entry(first, None) == {"n": 5, "texts": ["Anna nimmt."]}
    assert game_view.live_entry(again, first) is None
    assert game_view.live_entry(ended, again) == {"n": 7, "texts": ["Die Partie ist zu Ende."]}
    with_moves = _view(n=6, last_effects=move, last_moves=[{"n": 5, "effects": move}, None, None])
    assert game_view.live_entry(with_moves, None) is None
    entry = TEMPLATES.get_template("_log_entry.html").render({"entry": {"n": 12, "texts": ["Anna nimmt."]}})
    assert '<span class="log-n">12</span>' in entry


def _ended(places: list[int], scores: list[int], you: int | None = 0, **more: Any) -> dict[str, Any]:
    return _view(status="ended", you=you, to_move=[], may_act=[], clocks=[],
                 outcome={"places": places, "scores": scores, "summary": {"key": "s", "params": {},
                                                                         "text": "Platz 2 gewinnt."}}, **more)


def test_the_end_banner_says_how_you_did() -> None:
    assert game_view.result(_ended([1, 2, 3], [30, 18, 5]), [])["title"] == "Du hast gewonnen!"
    assert game_view.result(_ended([2, 1, 3], [18, 30, 5]), [])["title"] == \
        "Du bist 2. von 3 – 12 Punkte hinter Computer 1"
    assert game_view.result(_ended([1, 1, 3], [30, 30, 5]), [])["title"] == "Du teilst den 1. Platz mit Computer 1."
    assert game_view.result(_ended([3, 1, 2], [29, 30, 29]), [])["title"] == \
        "Du bist 3. von 3 – 1 Punkt hinter Computer 1"
    team = _ended([1, 2, 1], [9, 4, 9], team_log={"seats": [0, 2]})
    assert game_view.result(team, [])["title"] == "Ihr habt gewonnen! (mit Bea)"
    assert game_view.result(_ended([2, 1, 3], [1, 2, 0], you=None), [])["title"] == "Computer 1 gewinnt."
    rows = [{"you": True, "rating": {"text": "1500 → 1534", "change": "+34"}}]
    assert game_view.result(_ended([1, 2, 3], [3, 2, 1]), rows)["rating"] == "Wertung: 1500 → 1534 (+34)"
    page = TEMPLATES.get_template("_game.html").render(
        {"game_id": "x", "csrf": "c", **game_context(_ended([2, 1, 3], [18, 30, 5]))})
    assert "Du bist 2. von 3" in page and "Computer 1 gewinnt." in page and "Platz 2" not in page
    assert ">Nochmal<" in page and ">Wiederholung<" in page and "<td>1.</td>" in page


def test_the_move_bar_answers_without_a_ghost_and_the_live_part_carries_the_menu() -> None:
    view = _view()
    context = preview_context(view, {"a": 1}, {"move": {"a": 1}, "preview": {"punkte": 3}})
    assert context["ghost"] is None and context["warnings"] == [] and context["line"] == ""
    live = TEMPLATES.get_template("_game.html").render({"game_id": "x", "csrf": "c", "swapped": True,
                                                        **game_context(view)})
    assert 'id="menu-leave" hx-swap-oob="innerHTML"' in live and "Partie verlassen" in live
    first = page_of(view)
    assert first.count('id="menu-leave"') == 1 and "hx-swap-oob" not in first.split('id="board"')[0].split(
        '<div id="game"')[0]


def test_the_shell_styles_every_board_alike() -> None:
    """The seats' colours and shapes, the last move's outline, pieces that arrive (none with reduced motion), the
    phone's bottom bar for the move bar and any `.dock` panel: in the shell's part of the style sheet."""
    from pathlib import Path

    css = (Path(__file__).resolve().parents[2] / "services" / "web" / "static" / "web.css").read_text()
    shell = css[css.index("/* ---- game page shell ---- */"):css.index("/* ---- speednova board ---- */")]
    assert all(f"--seat-{seat}:" in shell for seat in range(4))
    assert all(f".chip.{shape}" in shell for shape in game_view.SEAT_SHAPES)
    assert ".board .last" in shell and ".board .arrive" in shell and "speed-arrive .22s" in shell
    reduced = shell[shell.index("prefers-reduced-motion"):]
    assert "animation: none" in reduced[:120]
    phone = shell[shell.index("@media (max-width: 30rem)"):]
    assert "#preview:has(> *), .board .dock { position: fixed;" in phone and "bottom: 0" in phone
    assert "min-height: 2.75rem" in phone  # 44 px
