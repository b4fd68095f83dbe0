"""Speedkoi's board renderer without servers: views built from the rule module for 2–4 seats and both Spielarten,
whole games played through (every phase: legen, Libelle, Steg, Koi, ziehen, the end warning, the end)."""

from __future__ import annotations

import html
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from libs.rules import registry
from services.web.boards import renderer_for, speedkoi

RULES = "speedkoi@1"
NAMES = ["<img src=x onerror=alert(1)>", "Bea", "Carl", "Dora"]


def view_of(engine: Any, position: Any, seats: int, viewer: int, n: int) -> dict[str, Any]:
    """A view shaped as the table's `GET /games/{id}/view` answers it."""
    pending = engine.pending(position)
    over = engine.is_over(position)
    return {"game_id": "ab" * 16, "game": "speedkoi", "rules": RULES, "settings": {}, "n": n,
            "status": "ended" if over else "running", "you": viewer,
            "seats": [{"seat": i, "name": NAMES[i], "kind": "human", "level": None, "left": False}
                      for i in range(seats)],
            "to_move": [p.seat for p in pending if p.must], "may_act": [p.seat for p in pending if not p.must],
            "board": engine.view(position, viewer), "legal_moves": engine.legal_moves(position, viewer),
            "can_undo": False, "last_effects": [], "clocks": []}


def games(seats: int, spielart: str, seed: int) -> Any:
    """Every position of one game played with random legal moves, as (views per seat, n)."""
    engine = registry.engine(RULES)
    position = engine.start(engine.normalize_config({"spielart": spielart}, seats), seats,
                            bytes([seed]) * 32)
    rng = random.Random(seed)
    n = 1
    while True:
        yield [view_of(engine, position, seats, seat, n) for seat in range(seats)]
        if engine.is_over(position):
            return
        seat = engine.pending(position)[0].seat
        moves = engine.legal_moves(position, seat)
        plays = [m for m in moves if m.get("aktion") == "anlegen"]
        move = rng.choice(plays if plays and rng.random() < 0.8 else moves)
        position = engine.apply(position, seat, move).position
        n += 1


def _buttons(page: str) -> list[dict[str, Any]]:
    """The moves the board's buttons post (hx-vals → move JSON)."""
    found = []
    for vals in re.findall(r'hx-vals="([^"]*)"', page):
        data = json.loads(html.unescape(vals))
        found.append(json.loads(data["move"]))
    return found


def check_view(view: dict[str, Any], others: list[dict[str, Any]]) -> str:
    page = str(speedkoi.render(view))
    assert page.startswith('<div class="board koi') and "aria-label" in page
    assert "<script" not in page and "style=" not in page and "<img" not in page
    assert page == str(speedkoi.render(view))  # deterministic
    labels = [speedkoi.move_label(move, view) for move in view["legal_moves"]]
    assert all(labels) and len(set(labels)) == len(labels), labels
    # Every legal move is a button on the board posting exactly that move, and nothing else is.
    posted = _buttons(page)
    key = lambda m: json.dumps(m, sort_keys=True)  # noqa: E731
    assert sorted(map(key, posted)) == sorted(map(key, view["legal_moves"]))
    assert all(f'hx-post="/spiel/{view["game_id"]}/vorschau"' in page for _ in posted[:1])
    # A move that would end the game: the warning with the standings stands above the board.
    if any(move.get("bestaetigt") for move in view["legal_moves"]):
        assert "koi-warning" in page and "beendet die Partie" in page
    # Another seat's hand is never drawn (only counts and what it was seen taking openly).
    mine = speedkoi.hand_mark(view)
    assert f'data-hand="{mine}"' in page
    for other in others:
        theirs = speedkoi.hand_mark(other)
        if theirs != mine:
            assert f'data-hand="{theirs}"' not in page
    return page


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("spielart", ["klassisch", "laternenfest"])
def test_whole_games_are_drawn_with_every_legal_move_a_board_button(seats: int, spielart: str) -> None:
    phases: set[str] = set()
    ended = False
    for step, views in enumerate(games(seats, spielart, seed=seats * 7 + len(spielart))):
        special = views[0]["board"]["phase"] not in ("legen", "ziehen") or views[0]["status"] == "ended" or any(
            move.get("bestaetigt") for view in views for move in view["legal_moves"])
        if step % 4 and not special:
            continue  # every fourth ordinary position; every decision, warning and the end
        for seat, view in enumerate(views):
            if view["legal_moves"] or seat == 0 or view["status"] == "ended":
                page = check_view(view, views[:seat] + views[seat + 1:])
                phases.add(view["board"]["phase"])
                ended = ended or "Die Partie ist zu Ende" in page
    assert {"legen", "ziehen"} <= phases and ended
    if spielart == "laternenfest":
        assert phases & {"steg", "koi"}


def test_the_hand_chooses_a_lantern_then_its_row_or_pile() -> None:
    engine = registry.engine(RULES)
    position = engine.start(engine.normalize_config({}, 2), 2, b"k" * 32)
    seat = engine.pending(position)[0].seat
    view = view_of(engine, position, 2, seat, 1)
    page = str(speedkoi.render(view))
    hand = view["board"]["du"]["hand"]
    assert page.count('type="radio" name="koi-wahl"') == len(hand) == 8
    first = hand[0]
    label = f"{speedkoi.NAMES[first['farbe']]} {first['wert']} abwerfen"
    # The discard button sits on its colour's pile and shows only while that hand position is chosen.
    pile = page.split(f'aria-label="Ablage {speedkoi.NAMES[first["farbe"]]}: leer"')[1].split("</li>")[0]
    assert label in pile and "koi-target koi-t-0" in pile
    css = Path("services/web/static/web.css").read_text(encoding="utf-8")
    assert ".koi:has(#koi-pick-0:checked) .koi-t-0" in css and ".koi-target { display: none; }" in css


def test_move_words() -> None:
    view = {"board": {"ich": 0, "folge": {"art": "libelle"}, "ablagen": {"indigo": [2, 3]},
                      "spieler": [{"platz": 0, "figuren": {"jade": {"art": "pilger", "stein": 3}}}]}}
    words = {json.dumps(m): speedkoi.move_label(m, view) for m in [
        {"aktion": "anlegen", "farbe": "gold", "wert": 7, "figur": "meister"},
        {"aktion": "anlegen", "farbe": "gold", "wert": 7, "weiter": "jade", "bestaetigt": True},
        {"aktion": "abwerfen", "farbe": "gold", "wert": 7},
        {"aktion": "schritt", "pfad": "jade"}, {"aktion": "verzichten"},
        {"aktion": "ziehen", "von": "stapel"}, {"aktion": "ziehen", "von": "indigo"}]}
    assert list(words.values()) == [
        "Gold 7 anlegen (Meister)", "Gold 7 anlegen, dafür zieht Pilger Jade → Stein 4 – beendet die Partie",
        "Gold 7 abwerfen", "Libelle: Pilger Jade → Stein 4", "Libelle: verzichten", "Verdeckt vom Stapel ziehen",
        "Indigo 3 von der Ablage nehmen"]


def test_the_renderer_is_found_by_the_game_and_names_are_escaped() -> None:
    assert renderer_for("speedkoi") is speedkoi
    assert not speedkoi.listed_move({"aktion": "ziehen", "von": "stapel"}, {})  # every move is on the board
    engine = registry.engine(RULES)
    position = engine.start(engine.normalize_config({"spielart": "laternenfest"}, 4), 4, b"e" * 32)
    page = str(speedkoi.render(view_of(engine, position, 4, 1, 1)))
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "<img" not in page
    assert "Teehaus: +3 zu haben" in page and "St Steg" in page


def test_a_move_that_would_end_the_game_warns_with_the_standings() -> None:
    engine = registry.engine(RULES)
    position = engine.start(engine.normalize_config({}, 2), 2, b"w" * 32)
    seat = engine.pending(position)[0].seat
    view = view_of(engine, position, 2, seat, 1)
    view["legal_moves"][0] = {**view["legal_moves"][0], "bestaetigt": True}  # as the rules list an ending move
    page = str(speedkoi.render(view))
    warning = page.split('class="warning koi-warning" role="alert">')[1].split("</p>")[0]
    # The standings name the players (never "Platz 1": a seat is no rank).
    assert warning == ("Achtung: dieser Zug beendet die Partie. Stand jetzt: &lt;img src=x onerror=alert(1)&gt; −4, "
                       "Bea −4.")
    assert "beendet die Partie</button>" in page and "koi-ends" in page
