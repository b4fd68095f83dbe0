"""Speedspore's board renderer without servers: views built from the rule module for every seat count, the island's
ids as the rules', board moves as clickable places, hidden hands absent, escaping, size (docs/services/web.md)."""

from __future__ import annotations

import json
import random
import re
from typing import Any
from urllib.parse import parse_qsl

import pytest

from libs.rules import registry
from libs.rules.engine import visible_effects
from libs.rules.speedspore import board as rules_board
from services.web.boards import renderer_for
from services.web.boards import speedspore as spore
from services.web.boards.speedspore import geometry
from services.web.pages import TEMPLATES, game_context

RULES = registry.latest("speedspore").rules_id
PAGE_LIMIT = 150_000
"""The largest game page (4 seats) stays below 150 KB (issue 25)."""


ANSWERS = ("antwort", "gegenangebot")


def played_view(seats: int, viewer: int, plies: int, config: dict[str, Any] | None = None,
                seed: bytes = b"s" * 32, stop: Any = None) -> dict[str, Any]:
    """A table view for `viewer` after `plies` random legal moves (or earlier, once `stop(position)` holds), with
    the view's `last_moves` as the table builds them: per seat the effects (as `viewer` may read them) of its
    latest turn, its moves since another seat last made a move of its own (answers to an offer break no turn)."""
    engine = registry.engine(RULES)
    position = engine.start(engine.normalize_config(config or {"siegpunkte": 8}, seats), seats, seed)
    chance = random.Random(seats * 100 + plies)
    last: list[dict[str, Any] | None] = [None] * seats
    turn_of = -1
    for number in range(1, plies + 1):
        if stop is not None and stop(engine, position):
            break
        pending = engine.pending(position)
        if not pending:
            break
        mover = pending[chance.randrange(len(pending))].seat
        moves = [m for m in engine.legal_moves(position, mover) if "zurueck" not in m]
        if not moves:
            break
        move = chance.choice(moves)
        step = engine.apply(position, mover, move)
        position = step.position
        effects = visible_effects(step.effects, viewer)
        answer = any(key in move for key in ANSWERS)
        entry = last[mover]
        if entry is not None and (turn_of == mover or (answer and entry.get("answer"))):
            entry["n"], entry["effects"] = number, [*entry["effects"], *effects]
        else:
            last[mover] = {"n": number, "effects": effects, "answer": answer}
        if not answer:
            turn_of = mover
    pending = engine.pending(position)
    return {"game_id": "0" * 32, "game": "speedspore", "rules": RULES, "settings": {}, "n": 7,
            "status": "running", "you": viewer,
            "seats": [{"seat": i, "name": f"Spieler {i}", "kind": "human", "level": None, "left": False}
                      for i in range(seats)],
            "to_move": [p.seat for p in pending if p.must], "may_act": [p.seat for p in pending if not p.must],
            "board": engine.view(position, viewer), "legal_moves": engine.legal_moves(position, viewer),
            "can_undo": False, "last_effects": [], "clocks": [],
            "last_moves": [None if e is None else {"n": e["n"], "effects": e["effects"]} for e in last]}


def test_the_island_has_the_rules_ids() -> None:
    assert geometry.CORNER_POINTS == rules_board.CORNER_POINTS
    assert geometry.FIELD_CORNERS == rules_board.FIELD_CORNERS
    assert geometry.EDGE_CORNERS == rules_board.EDGE_CORNERS
    assert renderer_for("speedspore") is spore


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("plies", [0, 1, 60, 200])
def test_every_seat_count_is_drawn_with_distinct_move_words(seats: int, plies: int) -> None:
    for viewer in range(seats):
        view = played_view(seats, viewer, plies)
        html = str(spore.render(view))
        assert html.startswith('<div class="board spore">') and 'aria-label="Die Insel' in html
        assert html.count('class="hex k-') == 19 and html.count('class="gully"') == 9
        assert html == str(spore.render(view))  # deterministic
        assert "style=" not in html and "<script" not in html
        labels = [spore.move_label(move, view) for move in view["legal_moves"]]
        assert all(labels) and len(set(labels)) == len(labels)


def test_founding_corners_are_buttons_on_the_island_carrying_the_move() -> None:
    view = played_view(3, 0, 0)
    html = str(spore.render(view))
    corners = re.findall(r'<g class="hit corner" role="button" tabindex="0" aria-label="([^"]*)" '
                         r'hx-post="/spiel/0{32}/vorschau" hx-target="#preview" hx-vals=\'([^\']*)\'', html)
    assert len(corners) == len([m for m in view["legal_moves"] if "fruchtkoerper" in m]) > 20
    vals = json.loads(corners[0][1].replace("&#34;", '"'))
    assert json.loads(vals["move"]) in view["legal_moves"] and vals["n"] == 7
    # then the thread: edges at that corner
    engine = registry.engine(RULES)
    thread = played_view(3, 0, 1)
    assert thread["legal_moves"] and all("faden" in m for m in thread["legal_moves"])
    assert str(spore.render(thread)).count('class="hit edge"') == len(thread["legal_moves"])
    assert engine  # the engine is the rules' own


def _mold_stop(engine: Any, position: Any) -> bool:
    return any("schimmel" in m for p in engine.pending(position) for m in engine.legal_moves(position, p.seat))


def test_the_mold_is_moved_by_clicking_a_hex() -> None:
    for seed in range(30):
        view = None
        for viewer in range(3):
            candidate = played_view(3, viewer, 400, seed=bytes([seed]) * 32, stop=_mold_stop)
            if any("schimmel" in m for m in candidate["legal_moves"]):
                view = candidate
        if view is not None:
            break
    assert view is not None
    html = str(spore.render(view))
    fields = {m["schimmel"] for m in view["legal_moves"] if "schimmel" in m}
    assert html.count('class="hit field"') == len(fields) and "Schimmel hierher" in html


def test_another_seats_hand_is_not_drawn() -> None:
    view = played_view(4, 0, 120)
    others = [played_view(4, seat, 120)["board"]["du"] for seat in range(1, 4)]
    html = str(spore.render(view))
    mine = view["board"]["du"]["hand"]
    for kind, count in mine.items():
        assert f'<li class="res r-{kind}"><strong>{count}</strong>' in html
    assert html.count('class="res r-') == 5  # one hand: the viewer's
    for other in others:
        theirs = "".join(f'<li class="res r-{kind}"><strong>{other["hand"].get(kind, 0)}</strong>'
                         for kind in spore.KINDS)
        assert other["hand"] == mine or theirs not in html.replace("</li>", "")
    assert '"hand"' not in json.dumps(view["board"]["spieler"])  # the view itself holds only counts


def test_names_are_escaped() -> None:
    view = played_view(2, 0, 60)
    view["seats"][1]["name"] = "<img src=x onerror=alert(1)>"
    html = str(spore.render(view)) + "".join(spore.move_label(m, view) for m in view["legal_moves"])
    assert "<img src=x" not in str(spore.render(view)) and "&lt;img src=x" in html


def test_the_largest_page_stays_below_150_kb() -> None:
    largest = 0
    for plies in (0, 1, 40, 80, 120, 160, 240, 320):
        for viewer in range(4):
            view = played_view(4, viewer, plies)
            context = game_context(view)
            page = TEMPLATES.get_template("_game.html").render({"game_id": "0" * 32, "csrf": "c", **context})
            largest = max(largest, len(page.encode()) + len(str(context["board"]).encode()))
    assert largest < PAGE_LIMIT, largest


def test_discard_and_offer_forms_build_the_move() -> None:
    from services.web.pages import _move_from_fields
    assert _move_from_fields({"n": "3", "m.abwerfen.humus": "2", "m.abwerfen.moos": "0", "m.abwerfen.totholz": "1"}) \
        == {"abwerfen": {"humus": 2, "totholz": 1}}
    assert _move_from_fields({"m.angebot.gib.moos": "1", "m.angebot.nimm.humus": "2"}) == \
        {"angebot": {"gib": {"moos": 1}, "nimm": {"humus": 2}}}
    assert _move_from_fields({"m.a": "1", "m.a.b": "1"}) is None


def _seat_with(engine: Any, position: Any, key: str) -> int | None:
    for pending in engine.pending(position):
        if any(key in move for move in engine.legal_moves(position, pending.seat)):
            return int(pending.seat)
    return None


def _view_with(key: str, seats: int = 3) -> dict[str, Any]:
    for seed in range(40):
        engine = registry.engine(RULES)
        found: dict[str, int] = {}

        def stop(engine: Any, position: Any, found: dict[str, int] = found) -> bool:
            seat = _seat_with(engine, position, key)
            if seat is not None:
                found["seat"] = seat
            return seat is not None

        probe = played_view(seats, 0, 600, seed=bytes([seed + 1]) * 32, stop=stop)
        if "seat" in found:
            view = played_view(seats, found["seat"], 600, seed=bytes([seed + 1]) * 32, stop=stop)
            assert any(key in move for move in view["legal_moves"]) and engine and probe
            return view
    raise AssertionError(f"no view with a {key} move")


def _click(view: dict[str, Any], html: str, panel: str, pressed: bool, kind: str | None = None) -> str:
    """Click a card in a choice panel as htmx does: its `hx-get` asks for `render_choice` with its query."""
    part = html[html.index(f'id="{panel}'):]
    part = part[:part.index("</section>")]
    found = re.findall(r'<button type="button" class="card r-(\w+)( on)?" aria-pressed="(?:true|false)" '
                       r'aria-label="[^"]*" hx-get="([^"]*)" hx-target="#([^"]*)" hx-select="#\4" '
                       r'hx-swap="outerHTML">', part)
    for card_kind, on, url, _ in found:
        if bool(on) == pressed and (kind is None or card_kind == kind):
            query = dict(parse_qsl(url.replace("&amp;", "&").split("?", 1)[1]))
            assert url.startswith(f"/spiel/{view['game_id']}/brett?")
            return str(spore.render_choice(view, query))
    raise AssertionError(f"no {'chosen' if pressed else 'free'} {kind or ''} card in {panel}")


def _sent(html: str, panel: str) -> Any:
    part = html[html.index(f'id="{panel}'):]
    part = part[:part.index("</section>")]
    vals = re.findall(r'class="move send" hx-post="/spiel/0{32}/vorschau" hx-target="#preview" hx-vals=\'([^\']*)\'',
                      part)
    assert len(vals) == 1
    return json.loads(json.loads(vals[0].replace("&#34;", '"'))["move"])


def test_the_discard_is_made_by_clicking_cards_with_the_count_shown() -> None:
    view = _view_with("abwerfen")
    html = str(spore.render(view))
    need = view["board"]["spieler"][view["you"]]["abwerfen"]
    hand = view["board"]["du"]["hand"]
    assert f"wirf genau {need} Karten ab" in html and f"0 von {need} gewählt" in html
    assert 'class="part spore-discard spore-choice dock" id="spore-discard-' in html and 'hx-preserve="true"' in html
    # one card per resource in hand
    assert html.count('class="card r-') == sum(hand.values())
    assert _sent(html, "spore-discard") == {"abwerfen": {}}  # sent as it is: the rule's reason answers
    chosen = html
    for step in range(1, need + 1):
        chosen = _click(view, chosen, "spore-discard", pressed=False)
        assert f"{step} von {need} gewählt" in chosen and 'hx-preserve' not in chosen.split('id="spore-discard')[1][:40]
    assert f"{need} von {need} gewählt ✓" in chosen
    move = _sent(chosen, "spore-discard")
    assert move in view["legal_moves"] and sum(move["abwerfen"].values()) == need
    # a chosen card clicked again goes back
    back = _click(view, chosen, "spore-discard", pressed=True)
    assert f"{need - 1} von {need} gewählt" in back
    assert sum(_sent(back, "spore-discard")["abwerfen"].values()) == need - 1


def test_every_legal_discard_can_be_clicked_together() -> None:
    view = _view_with("abwerfen")
    discards = [m for m in view["legal_moves"] if "abwerfen" in m]
    for move in discards[:40]:
        html = str(spore.render(view))
        for kind, times in move["abwerfen"].items():
            for _ in range(times):
                html = _click(view, html, "spore-discard", pressed=False, kind=kind)
        assert _sent(html, "spore-discard") == move


def test_an_offer_is_made_by_clicking_cards_and_the_rules_accept_it() -> None:
    view = _view_with("angebot")
    html = str(spore.render(view))
    assert 'aria-label="Eigenes Angebot an alle"' in html and "dock" in html
    hand = view["board"]["du"]["hand"]
    give = next(kind for kind, n in hand.items() if n)
    take = next(kind for kind in spore.KINDS if kind != give)
    html = _click(view, html, "spore-offer", pressed=False, kind=give)
    html = _click(view, html, "spore-offer", pressed=False, kind=take)
    html = _click(view, html, "spore-offer", pressed=False, kind=take)
    assert "Du gibst 1 Karte, du willst 2 Karten" in html
    assert _sent(html, "spore-offer") == {"angebot": {"gib": {give: 1}, "nimm": {take: 2}}}


def test_an_offer_to_answer_shows_the_offer_and_the_answer_buttons() -> None:
    view = _view_with("antwort")
    html = str(spore.render(view))
    assert "Angebot annehmen (ja)" in html or "Angebot ablehnen (nein)" in html
    assert 'class="offer"' in html and "bietet" in html and 'id="spore-counter-' in html
    assert 'class="spore-answer dock"' in html  # the answer in the panel fixed to the bottom on phones


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_every_legal_move_is_offered_on_the_board_so_the_page_lists_none(seats: int) -> None:
    for plies in range(0, 400, 41):
        for viewer in range(seats):
            view = played_view(seats, viewer, plies)
            html = str(spore.render(view))
            offered = {json.loads(json.loads(vals.replace("&#34;", '"'))["move"])
                       .__repr__() for vals in re.findall(r"hx-vals='([^']*)'", html)}
            for move in view["legal_moves"]:
                if "abwerfen" in move:
                    assert 'id="spore-discard-' in html  # clicked together card by card (tested above)
                else:
                    assert repr(move) in offered, move
            assert game_context(view)["moves"] == []
