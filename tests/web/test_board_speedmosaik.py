"""Speedmosaik's board renderer without any server: views built from the rule module for every workshop,
option and seat count, played through with random legal moves (docs/services/web.md, "Board renderers")."""

from __future__ import annotations

import html
import json
import random
import re
from typing import Any

import pytest

from libs.rules import registry
from services.web.boards import renderer_for, speedmosaik
from services.web.boards.speedmosaik import common

CONFIGS = [{"workshop": "kachelwand"}, {"workshop": "kachelwand", "wall": "frei", "jokers": "mit"},
           {"workshop": "kirchenfenster", "palace": "saeulen"},
           {"workshop": "kirchenfenster", "palace": "fensterfarbe"},
           {"workshop": "sternpavillon"}]


def views(config: dict[str, Any], seats: int, every: int = 1, seed: int = 1) -> list[dict[str, Any]]:
    """Table-shaped views of every seat along one random game (every `every`-th state, and the end)."""
    engine = registry.engine("speedmosaik@1")
    position = engine.start(engine.normalize_config(config, seats), seats, b"m" * 32)
    rng, out, step = random.Random(seed), [], 0
    while True:
        over = engine.is_over(position)
        if over or step % every == 0:
            for seat in range(seats):
                out.append({"game_id": "ab" * 16, "game": "speedmosaik", "rules": "speedmosaik@1", "n": step,
                            "you": seat, "status": "ended" if over else "running",
                            "seats": [{"seat": i, "name": f"Spieler {i}", "kind": "human"} for i in range(seats)],
                            "board": engine.view(position, seat), "legal_moves": engine.legal_moves(position, seat)})
        if over:
            return out
        seat = engine.pending(position)[0].seat
        position = engine.apply(position, seat, rng.choice(engine.legal_moves(position, seat))).position
        step += 1


def board_moves(board_html: str) -> list[Any]:
    """The moves the board's buttons post (their `hx-vals`, read back as the browser reads them)."""
    return [json.loads(json.loads(html.unescape(vals))["move"])
            for vals in re.findall(r'hx-vals="([^"]*)"', board_html)]


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(c.values()))
def test_every_state_is_drawn_and_every_legal_move_is_on_the_board_with_its_own_words(
        config: dict[str, Any], seats: int) -> None:
    for view in views(config, seats, every=7 if seats > 2 else 3):
        board = str(speedmosaik.render(view))
        assert board.startswith(f'<div class="board mosaik {config["workshop"]}" data-n="{view["n"]}">')
        assert "<script" not in board and "style=" not in board
        labels = [speedmosaik.move_label(move, view) for move in view["legal_moves"]]
        assert all(labels) and len(set(labels)) == len(labels), labels
        clickable = board_moves(board)
        missing = [move for move in view["legal_moves"] if move not in clickable]
        assert not missing, missing  # every legal move can be made by clicking on the board
        assert all(move in view["legal_moves"] for move in clickable)  # and nothing else
        assert board == str(speedmosaik.render(view))  # deterministic


def test_the_renderer_is_found_by_the_views_game() -> None:
    assert renderer_for("speedmosaik") is speedmosaik


def test_a_take_is_two_clicks_a_colour_then_a_row_of_the_own_board() -> None:
    view = views({"workshop": "kachelwand"}, 2, every=1000)[0]
    board = str(speedmosaik.render(view))
    move = view["legal_moves"][1]  # Schale 1, first colour, Musterreihe 1
    key = common.take_key(move)
    assert f'data-pick="{key}"' in board and f'data-pick-for="{key}" hidden' in board
    label = speedmosaik.move_label(move, view)
    assert label.endswith("→ Musterreihe 1") and "aus Schale 1" in label
    # the targets sit only on the board of the seat that moves
    assert board.count('class="mz-player mz-mine"') == 1
    other = dict(view, you=1, legal_moves=[])
    assert "data-pick" not in str(speedmosaik.render(other))


def test_rows_and_tiles_are_named_in_words_for_screen_readers() -> None:
    view = views({"workshop": "kachelwand"}, 2, every=1000)[0]
    board = str(speedmosaik.render(view))
    assert 'aria-label="Musterreihe 3, leer, 3 Felder' in board
    assert 'aria-label="Wand Reihe 1, Spalte 1: Blau frei"' in board  # the fixed wall's pattern
    assert "Boden: 0 von 7 belegt" in board and "Schale 1:" in board
    assert 'aria-hidden="true"' in board  # the pictures; the words are on their elements


def test_text_from_the_view_is_escaped() -> None:
    view = views({"workshop": "sternpavillon"}, 2, every=1000)[0]
    view["seats"][0]["name"] = "<img src=x onerror=alert(1)>"
    view["board"]["schalen"][0] = ["<b>"]
    board = str(speedmosaik.render(view))
    assert "<img" not in board and "&lt;img src=x" in board and "<b>" not in board


def test_an_unknown_workshop_falls_back_to_the_generic_lists() -> None:
    view = views({"workshop": "kachelwand"}, 2, every=1000)[0]
    view["board"]["einstellungen"] = {"workshop": "neu"}
    assert str(speedmosaik.render(view)).startswith('<div class="board generic">')
    assert speedmosaik.move_label({"aktion": "x"}, view) == "X"


def test_the_move_json_in_a_board_button_reads_back_exactly() -> None:
    view = views({"workshop": "kirchenfenster"}, 2, every=1000)[0]
    move = view["legal_moves"][0]
    button = str(common.move_button(view, move, "x", "y"))
    vals = html.unescape(button.split('hx-vals="')[1].split('"')[0])
    assert json.loads(json.loads(vals)["move"]) == move and json.loads(vals)["n"] == view["n"]
