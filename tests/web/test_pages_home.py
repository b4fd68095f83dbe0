"""The home page's curve, badge books and the replay's boards, without servers."""

from __future__ import annotations

from services.web.home import _books, curve_svg
from services.web.replay import _boards


def test_the_curve_is_an_svg_with_every_point_the_best_dashed_and_a_label_read_aloud() -> None:
    curve = {"points": [{"game_id": "a", "date": "2026-12-01", "score": 4},
                        {"game_id": "b", "date": "2026-12-02", "score": 9},
                        {"game_id": "c", "date": "<b>2026-12-03</b>", "score": 6}], "best": 9, "best_all_time": 11}

    svg = str(curve_svg(curve))

    assert svg.startswith('<svg class="curve"') and svg.endswith("</svg>")
    assert svg.count("<circle") == 3 and svg.count('class="curve-point best"') == 1
    assert 'class="curve-best"' in svg and "Bestwert 9" in svg
    assert 'aria-label="Verlauf der Punkte in den letzten 3 Partien: zuerst 4, zuletzt 6, Bestwert 9"' in svg
    assert "<b>" not in svg and "&lt;b&gt;2026-12-03&lt;/b&gt;" in svg
    assert "style=" not in svg and "<script" not in svg
    assert str(curve_svg(curve)) == svg  # deterministic


def test_a_single_game_and_no_game_draw_without_dividing_by_zero() -> None:
    assert str(curve_svg({"points": [{"date": "2026-12-01", "score": 0}], "best": 0})).count("<circle") == 1
    assert "Noch keine" in str(curve_svg({"points": [], "best": None}))


def test_badges_are_grouped_by_their_book_in_order() -> None:
    badges = [{"title": "A", "book": "Abzeichen", "earned": True},
              {"title": "S", "book": "Gartenbuch", "earned": False},
              {"title": "B", "book": "Abzeichen", "earned": False}]
    books = _books(badges)
    assert [(book["title"], book["earned"], len(book["badges"])) for book in books] == [
        ("Abzeichen", 1, 2), ("Gartenbuch", 0, 1)]


def test_the_replays_board_has_no_move_buttons_and_the_whole_game_draws_every_seat() -> None:
    view = {"game": "kein_spiel", "seats": [{"name": "Anna"}, {"name": "<i>Bo</i>"}], "you": None, "status": "ended",
            "board": {"tisch": [1, 2]}, "legal_moves": [{"zug": "x"}], "seat_boards": [{"hand": [1]}, {"hand": [2]}]}

    boards = _boards({"view": view})

    assert [board["title"] for board in boards] == ["Tisch", "Sicht von Anna", "Sicht von <i>Bo</i>"]
    assert all("hx-post" not in str(board["html"]) for board in boards)
    assert "<i>" not in "".join(str(board["html"]) for board in boards)
