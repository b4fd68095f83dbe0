"""Board renderers and settings forms without any server: they read only JSON (docs/services/web.md)."""

from __future__ import annotations

from typing import Any

import pytest

from libs.rules import registry
from services.web import forms, game_view
from services.web.boards import generic, renderer_for
from services.web.pages import TEMPLATES, game_context

MODULES = registry.latest_modules()


def table_view(rules_id: str, seats: int, viewer: int, config: dict[str, Any] | None = None,
               seed: bytes = b"w" * 32) -> dict[str, Any]:
    """A view shaped as the table's `GET /games/{id}/view` answers it, for `viewer`."""
    engine = registry.engine(rules_id)
    position = engine.start(engine.normalize_config(config or {}, seats), seats, seed)
    pending = engine.pending(position)
    return {"game_id": "0" * 32, "game": engine.spec.game, "rules": rules_id, "settings": {}, "n": 1,
            "status": "running", "you": viewer,
            "seats": [{"seat": i, "name": f"Spieler {i}", "kind": "human", "level": None, "left": False}
                      for i in range(seats)],
            "to_move": [p.seat for p in pending if p.must], "may_act": [p.seat for p in pending if not p.must],
            "board": engine.view(position, viewer), "legal_moves": engine.legal_moves(position, viewer),
            "can_undo": False, "last_effects": [], "clocks": []}


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.rules_id)
def test_every_game_is_drawn_by_a_renderer_and_its_moves_have_distinct_words(module: Any) -> None:
    seats = min(n for n in module.spec.seat_counts if n >= 2)
    view = table_view(module.rules_id, seats, viewer=0)
    renderer = renderer_for(view["game"])
    html = str(renderer.render(view))
    assert html.startswith("<div class=\"board") and "aria-label" in html
    labels = [renderer.move_label(move, view) for move in view["legal_moves"]]
    assert all(labels) and len(set(labels)) == len(labels)  # every button says which move it makes


def test_an_unknown_game_falls_back_to_the_generic_renderer() -> None:
    assert renderer_for("no_such_game") is generic
    assert renderer_for("../etc") is generic


def test_text_in_a_view_is_escaped() -> None:
    html = str(generic.render({"board": {"name": "<img src=x onerror=alert(1)>", "liste": [{"a": "<b>"}]}}))
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;b&gt;" in html


def test_a_seat_never_sees_another_seats_hand_drawn() -> None:
    mine, theirs = table_view("speedkoi@1", 2, 0), table_view("speedkoi@1", 2, 1)
    page = TEMPLATES.get_template("_game.html").render({"game_id": "x", "csrf": "c", **game_context(mine)})
    page += str(game_context(mine)["board"])
    hand_of = renderer_for("speedkoi").hand_mark  # the board writes the own hand into `data-hand`
    assert f'data-hand="{hand_of(mine)}"' in page
    assert f'data-hand="{hand_of(theirs)}"' not in page


def test_the_end_table_orders_by_place_and_marks_the_player() -> None:
    view = {"you": 1, "seats": [{"name": "A", "kind": "bot"}, {"name": "B", "kind": "human"}],
            "outcome": {"places": [2, 1], "scores": [3, 9], "leaderboard_points": [20, 40], "lines": [[], []]}}
    rows = game_view.end_table(view, {"seats": [{"seat": 1, "new_badges": [{"title": "Erster Sieg"}]}]})
    assert [row["name"] for row in rows] == ["B", "A"] and rows[0]["you"] and rows[0]["badges"] == ["Erster Sieg"]


def test_settings_forms_come_from_the_description_and_read_back_only_what_applies() -> None:
    mosaik = {"settings": registry.latest("speedmosaik").settings_options(), "platform": {}}
    fields = forms.rule_fields(mosaik)
    assert fields[0].name == "s:workshop" and {child.name for child in fields[0].children} >= {"s:wall", "s:palace"}
    chosen = forms.read_settings(mosaik, {"s:workshop": "kirchenfenster", "s:wall": "frei",
                                          "s:palace": "fensterfarbe"}, seats=2)
    assert chosen == {"workshop": "kirchenfenster", "palace": "fensterfarbe"}
    nova = {"settings": registry.latest("speednova").settings_options()}
    assert forms.read_settings(nova, {"s:teams": "mit", "s:solo": "klassisch"}, seats=2) == {}
    assert forms.read_settings(nova, {"s:teams": "mit"}, seats=4) == {"teams": "mit"}
    spore = {"settings": registry.latest("speedspore").settings_options()}
    assert forms.read_settings(spore, {"s:siegpunkte": "8"}, seats=2) == {"siegpunkte": 8}  # an int again


VENDORED = {
    "htmx-2.0.11.min.js": "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717",
    "htmx-ext-sse-2.2.4.min.js": "98a46496de0c3605fbffdce9167ba427bdd9553184f83f149c261891a92c0136",
}


def test_the_vendored_scripts_are_the_pinned_npm_files_with_their_licences_and_the_pages_load_them() -> None:
    import hashlib
    from pathlib import Path

    vendor = Path(__file__).resolve().parents[2] / "services" / "web" / "static" / "vendor"
    base = (vendor.parents[1] / "templates" / "base.html").read_text()
    for name, digest in VENDORED.items():
        assert hashlib.sha256((vendor / name).read_bytes()).hexdigest() == digest, name
        assert (vendor / name.replace(".min.js", ".LICENSE")).read_text().strip()
        assert f'src="/static/vendor/{name}"' in base


def test_the_end_table_shows_each_humans_taler_from_the_pot() -> None:
    view = {"you": 0, "seats": [{"name": "Anna", "kind": "human"}, {"name": "Bert", "kind": "human"},
                                {"name": "Gast", "kind": "human"}, {"name": "Robo", "kind": "bot"}],
            "outcome": {"places": [2, 1, 3, 4], "scores": [5, 9, 2, 1]}}
    pot = {"state": "settled", "total": 100, "seats": [{"seat": 0, "paid": 50, "won": 0},
                                                       {"seat": 1, "paid": 50, "won": 100}]}

    rows = {row["name"]: row["taler"] for row in game_view.end_table(view, {"taler": pot})}
    waiting = game_view.end_table(view, {"taler": {**pot, "state": "open"}})
    without = game_view.end_table(view, {"taler": {"state": "none", "seats": []}})

    assert rows["Bert"] == {"text": "+50 Taler", "detail": "eingesetzt 50 Taler, aus dem Topf 100 Taler"}
    assert rows["Anna"]["text"] == "\u221250 Taler" and rows["Gast"]["text"] == "ohne Einsatz"
    assert rows["Robo"]["text"] == "–"
    assert {row["name"]: row["taler"]["text"] for row in waiting}["Anna"] == "wird ausgezahlt …"
    assert {row["taler"]["text"] for row in without if row["name"] != "Robo"} == {"ohne Einsatz"}
    assert game_view.pot_line({"taler": {**pot, "house": 1}}).startswith("Topf: 100 Taler, davon 1 Taler ans Haus.")
    assert game_view.pot_line({"taler": {**pot, "state": "open"}}) is None and game_view.pot_line(None) is None
