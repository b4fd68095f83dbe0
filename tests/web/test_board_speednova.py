"""Speednova's board renderer without servers: views built from the rule module for every seat count and variant
(docs/services/web.md, "Board renderers: the contract")."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import pytest

from libs.rules import registry
from services.web import game_view
from services.web.boards import renderer_for
from services.web.boards import speednova as nova

RULES = "speednova@2"
VARIANTS = [(1, {"solo": "rekordjagd"}), (1, {"solo": "klassisch"}), (2, {}), (3, {}), (4, {}),
            (4, {"teams": "mit"})]
HX_VALS = re.compile(r'hx-vals="([^"]*)"')


def _view(engine: Any, position: Any, viewer: int | None, seats: int, names: list[str] | None = None,
          n: int = 1) -> dict[str, Any]:
    pending = engine.pending(position)
    return {"game_id": "ab" * 16, "game": "speednova", "rules": RULES, "settings": {}, "n": n,
            "status": "ended" if engine.is_over(position) else "running", "you": viewer,
            "seats": [{"seat": i, "name": (names or [])[i] if i < len(names or []) else f"Spieler {i}",
                       "kind": "human", "level": None, "left": False} for i in range(seats)],
            "to_move": [p.seat for p in pending if p.must], "may_act": [p.seat for p in pending if not p.must],
            "board": engine.view(position, viewer),
            "legal_moves": engine.legal_moves(position, viewer) if viewer is not None else [],
            "can_undo": False, "last_effects": [], "clocks": []}


def _start(seats: int, config: dict[str, Any], seed: bytes = b"n" * 32) -> tuple[Any, Any]:
    engine = registry.engine(RULES)
    return engine, engine.start(engine.normalize_config(config, seats), seats, seed)


def _posted(html: str) -> list[Any]:
    """The moves the board's elements post to the preview (hx-vals, unescaped)."""
    found = []
    for raw in HX_VALS.findall(html):
        vals = json.loads(raw.replace("&#34;", '"').replace("&quot;", '"').replace("&amp;", "&")
                          .replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">"))
        found.append(json.loads(vals["move"]))
    return found


@lru_cache(maxsize=1)
def _played_views() -> list[dict[str, Any]]:
    """A 2-seat game played to the end (the module's own timeout choice each turn), seat 0's view after each
    move: it passes Supernova bonuses, swap offers, the end warning and the end."""
    engine, position = _start(2, {}, b"p" * 32)
    views = [_view(engine, position, 0, 2)]
    n = 1
    while not engine.is_over(position):
        seat = engine.must_act(position)[0]
        position = engine.apply(position, seat, engine.timeout_move(position, seat)).position
        n += 1
        views.append(_view(engine, position, 0, 2, n=n))
    return views


@pytest.mark.parametrize(("seats", "config"), VARIANTS, ids=lambda v: str(v))
def test_every_variant_and_seat_is_drawn_with_its_map_and_tracks(seats: int, config: dict[str, Any]) -> None:
    engine, position = _start(seats, config)
    cells = {1: 91, 2: 91, 3: 127, 4: 169}[seats]
    for viewer in [*range(seats), None]:
        view = _view(engine, position, viewer, seats)
        html = str(renderer_for("speednova").render(view))
        assert html.startswith('<div class="board nova')
        the_map = html.split('<svg class="nova-map"')[1].split("</svg>")[0]
        assert the_map.count("<polygon") == cells and f"{cells} Felder" in html
        assert html.count('aria-label="Feld ') == cells
        tracks = len(view["board"]["tafeln"])
        assert html.count('class="nova-track"') == tracks == (2 if config.get("teams") else seats)
        top = 36 if config.get("teams") or seats == 1 else 18
        assert f"0 von {top}" in html
        assert "Komet (Schweif)" in html and "Strahlenkranz" in html  # the shapes are named too
        assert html == str(nova.render(view))  # deterministic
        labels = [nova.move_label(move, view) for move in view["legal_moves"]]
        assert all(labels) and len(set(labels)) == len(labels)
        rack = view["board"]["du"]["bank"] if viewer is not None else []
        assert html.count('aria-label="Doppelstern ') == len(rack)
        assert html.count('<svg class="nova-tile"') == len(rack)  # each a tile: two hexes
        assert html.count("<polygon") == cells + 2 * len(rack)
        if viewer is None:
            assert "Deine Bank" not in html and "Team-Signale" not in html


def test_the_placements_are_not_listed_as_buttons_but_reached_on_the_board() -> None:
    engine, position = _start(2, {})
    view = _view(engine, position, 0, 2)
    assert game_view.moves_of(view) == []  # all are placements, made on the board
    plain = str(nova.render(view))
    assert _posted(plain) == []  # the first click only chooses a tile
    reached: list[Any] = []
    tiles = {tuple(entry["stein"]) for entry in view["board"]["du"]["bank"]}
    for a, b in sorted(tiles):
        for first, second in {(a, b), (b, a)}:
            step1 = str(nova.render_choice(view, {"stein": f"{first}.{second}"}))
            cells = sorted(int(c) for c in re.findall(rf"stein={first}\.{second}&amp;feld=(\d+)", step1))
            assert cells, (first, second)
            for cell in cells:
                step2 = str(nova.render_choice(view, {"stein": f"{first}.{second}", "feld": str(cell)}))
                posted = _posted(step2)
                assert posted and all(move in view["legal_moves"] for move in posted)
                reached += posted
    placements = [move for move in view["legal_moves"] if "stein" in move]
    assert sorted(map(json.dumps, set(map(json.dumps, reached)))) == sorted(map(json.dumps, set(
        map(json.dumps, placements))))  # every legal placement, and nothing else, is three clicks away


def test_a_choice_the_legal_moves_do_not_allow_shows_the_plain_board() -> None:
    engine, position = _start(2, {})
    view = _view(engine, position, 0, 2)
    plain = str(nova.render(view))
    for query in ({"stein": "x.y"}, {"stein": "komet"}, {"stein": "<b>.komet"}, {"feld": "3"},
                  {"modus": "frei"}):
        assert str(nova.render_choice(view, query)) == plain
    waiting = _view(engine, position, 1, 2)  # seat 1 is not to move: nothing to choose
    tile = waiting["board"]["du"]["bank"][0]["stein"]
    assert str(nova.render_choice(waiting, {"stein": ".".join(tile)})) == str(nova.render(waiting))


def test_supernova_bonus_swap_offer_end_warning_and_end_are_shown() -> None:
    views = _played_views()
    bonus = next(v for v in views if v["board"]["bonuszuege"] and 0 in v["to_move"])
    assert "Supernova" in str(nova.render(bonus)) and "Bonus-Legung" in str(nova.render(bonus))
    swap = next(v for v in views if v["board"]["phase"] == "tauschen" and 0 in v["to_move"])
    html = str(nova.render(swap))
    assert "Tauschangebot" in html
    assert sorted(m["tauschen"] for m in _posted(html)) == [False, True]
    assert {m["label"] for m in game_view.moves_of(swap)} == {"Tauschen: ja, alle Doppelsterne tauschen",
                                                             "Tauschen: nein, behalten"}
    warned = next(v for v in views if v["board"]["karte"]["endwarnung"] and v["board"]["phase"] != "ende")
    assert "Endwarnung: nur noch" in str(nova.render(warned))
    end = views[-1]
    html = str(nova.render(end))
    assert "Ende." in html and _posted(html) == [] and "hx-get" not in html
    assert "Supernova erreicht" in html and 'class="nova-sn"' in html  # said and shown


def test_team_signals_show_to_the_team_only_and_are_given_on_the_board() -> None:
    engine, position = _start(4, {"teams": "mit"})
    before = {seat: str(nova.render(_view(engine, position, seat, 4))) for seat in (1, 3, None)}
    view = _view(engine, position, 2, 4)  # seat 2 may act (signals) while seat 0 places
    html = str(nova.render(view))
    assert "Team-Signale" in html and "Keine Signale." in html
    posted = _posted(html)
    assert {"signal": "brauche", "farbe": "riese"} in posted and {"signal": "viel", "farbe": "komet"} in posted
    assert not any("stein" in move for move in posted)
    free = str(nova.render_choice(view, {"modus": "frei"}))
    assert {"signal": "frei", "feld": 60} in _posted(free)
    position = engine.apply(position, 2, {"signal": "brauche", "farbe": "riese"}).position
    position = engine.apply(position, 2, {"signal": "frei", "feld": 60}).position
    for seat in (0, 2):
        html = str(nova.render(_view(engine, position, seat, 4)))
        assert "„Brauche Riese“" in html and "„Feld 60 frei halten“" in html and "frei halten (Spieler 2)" in html
    for seat in (1, 3, None):
        html = str(nova.render(_view(engine, position, seat, 4)))
        assert "„Brauche Riese“" not in html and "„Feld 60" not in html and "frei halten (" not in html
        assert html == before[seat]  # the other team's board is exactly as without the signals
    withdraw = _posted(str(nova.render(_view(engine, position, 2, 4))))
    assert {"signal": "zuruecknehmen"} in withdraw


def test_a_team_log_line_and_gone_out_signals_are_shown_to_the_team() -> None:
    engine, position = _start(4, {"teams": "mit"})
    position = engine.apply(position, 2, {"signal": "frei", "feld": 60}).position
    view = _view(engine, position, 0, 4)
    view["team_log"] = {"team": 0, "seats": [0, 2], "n": 1,
                        "last_effects": [{"key": "speednova.signal", "params": {}, "text": "Platz 3 signalisiert."}]}
    view["board"]["du"]["signale_erloschen"] = [{"sitz": 2, "signal": "frei", "feld": 60, "text":
                                                 "Das Signal „Feld 60 frei halten“ von Platz 3 erlischt."}]
    html = str(nova.render(view))
    assert "Zuletzt: Spieler 2 signalisiert." in html and 'class="signal gone"' in html  # names, not "Platz 3"
    assert "von Spieler 2 erlischt" in html and "Platz 3" not in html


def test_text_in_the_view_is_escaped() -> None:
    engine, position = _start(4, {"teams": "mit"})
    position = engine.apply(position, 2, {"signal": "viel", "farbe": "komet"}).position
    view = _view(engine, position, 0, 4, names=["<img src=x onerror=alert(1)>", "b", "<script>x</script>", "d"])
    view["board"]["du"]["signale"][0]["text"] = "<b>fett</b>"
    html = str(nova.render(view))
    assert "<img" not in html and "<script" not in html and "<b>fett" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;b&gt;fett" in html
    assert " style=" not in html and "<script" not in html and "onclick" not in html
