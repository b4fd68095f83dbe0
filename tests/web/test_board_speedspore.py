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
    # on a phone the island can be drawn larger in its own scrolling box: one checkbox, kept across redraws
    for drawn in (html, str(spore.render(thread))):
        assert drawn.count('<label class="spore-zoom"><input type="checkbox" id="spore-zoom" hx-preserve="true"> '
                           'Insel vergrößern</label>') == 1
        assert re.search(r'<div class="spore-islandbox"><svg class="island"[^>]*>.*</svg></div><label '
                         r'class="spore-zoom">', drawn)
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


def _click(view: dict[str, Any], html: str, panel: str, pressed: bool, kind: str | None = None,
           plus: bool = False) -> str:
    """Click a card in a choice panel as htmx does: its `hx-get` asks for `render_choice` with its query."""
    part = html[html.index(f'id="{panel}'):]
    part = part[:part.index("</section>")]
    found = re.findall(r'<button type="button" class="card r-(\w+)( on)?" aria-pressed="(?:true|false)" '
                       r'aria-label="([^"]*)" hx-get="([^"]*)" hx-target="#([^"]*)" hx-select="#\5" '
                       r'hx-swap="outerHTML">', part)
    for card_kind, on, label, url, _ in found:
        wanted = label.endswith("gewählt)") and "mehr verlangen" in label
        if bool(on) == pressed and (kind is None or card_kind == kind) and (pressed or wanted == plus):
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


def _supply_reaches(view: dict[str, Any], html: str, move: dict[str, Any]) -> bool:
    """Click the kind to give in the supply panel; the kind to take is then a button carrying the move."""
    chosen = _click(view, html, "spore-supply", pressed=False, kind=move["vorrat"]["gib"])
    part = chosen[chosen.index('id="spore-supply'):]
    part = part[:part.index("</section>")]
    carried = [json.loads(json.loads(vals.replace("&#34;", '"'))["move"])
               for vals in re.findall(r"hx-post=\"/spiel/0{32}/vorschau\" hx-target=\"#preview\" hx-vals='([^']*)'",
                                      part)]
    return move in carried and all(m in view["legal_moves"] for m in carried)


def _counter_reaches(view: dict[str, Any], html: str, move: dict[str, Any]) -> bool:
    """Click the cards of a counter-offer together in its panel; its button then sends exactly that move."""
    for side, pressed in (("gib", False), ("nimm", False)):
        for kind, times in move["gegenangebot"][side].items():
            for _ in range(times):
                html = _click(view, html, "spore-counter", pressed=pressed, kind=kind,
                              plus=side == "nimm")
    return bool(_sent(html, "spore-counter") == move)


def test_a_counter_offer_is_made_by_clicking_cards() -> None:
    view = _view_with("gegenangebot")
    html = str(spore.render(view))
    assert 'class="spore-answer dock"' in html and "Eigenes Gegenangebot" in html
    counters = [m for m in view["legal_moves"] if "gegenangebot" in m]
    assert counters and all(_counter_reaches(view, html, move) for move in counters)


def test_a_supply_trade_is_two_clicks_on_cards() -> None:
    view = _view_with("vorrat")
    html = str(spore.render(view))
    trades = [m for m in view["legal_moves"] if "vorrat" in m]
    assert "Tausch mit dem Vorrat" not in html  # no list of 20 buttons: a kind to give, then one to take
    for move in trades:
        assert _supply_reaches(view, html, move)
    chosen = _click(view, html, "spore-supply", pressed=False, kind=trades[0]["vorrat"]["gib"])
    back = _click(view, chosen, "spore-supply", pressed=True)
    assert "klicke, was du willst" in chosen and "klicke, was du willst" not in back


def test_an_offer_is_made_by_clicking_cards_given_and_wanted() -> None:
    view = _view_with("angebot")
    html = str(spore.render(view))
    # in the page's flow, not fixed over the island on a phone: an offer is a choice, never pending
    assert 'class="part spore-choice" id="spore-offer' in html and 'aria-label="Eigenes Angebot an alle"' in html
    hand = view["board"]["du"]["hand"]
    give = next(kind for kind, n in hand.items() if n)
    take = next(kind for kind in spore.KINDS if kind != give)
    html = _click(view, html, "spore-offer", pressed=False, kind=give)
    html = _click(view, html, "spore-offer", pressed=False, kind=take, plus=True)
    html = _click(view, html, "spore-offer", pressed=False, kind=take, plus=True)
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
                elif "vorrat" in move:
                    assert _supply_reaches(view, html, move), move
                elif "gegenangebot" in move:
                    assert _counter_reaches(view, html, move), move
                else:
                    assert repr(move) in offered, move
            assert game_context(view)["moves"] == []


# ---- what the board declares for the game page (docs/services/web.md) -------------------------------------------

KEYS = re.compile(r"\b[a-z_]+\.[a-z_.]+\b|\b(?:label|points|key|params|text|True|False|None|zug|art|punkte_\w+)\b|[{}]")
"""A dotted key, an English or internal field name, JSON braces: nothing a player should read."""


def _decisions(seats: int, seed: int, plies: int = 260) -> list[dict[str, Any]]:
    """Views of a random game at many decisions, each for a seat that may act there."""
    views = []
    for cut in range(0, plies, 13):
        for viewer in range(seats):
            view = played_view(seats, viewer, cut, seed=bytes([seed]) * 32)
            if view["legal_moves"]:
                views.append(view)
    return views


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_prompt_says_what_to_do_whenever_the_seat_may_act(seats: int) -> None:
    seen = set()
    for view in _decisions(seats, seats):
        said = spore.prompt(view)
        assert said and not KEYS.search(said) and "Platz" not in said, said
        seen.add(said.split(":")[0].split(" ")[0])
        if any("abwerfen" in m for m in view["legal_moves"]):
            need = view["board"]["spieler"][view["you"]]["abwerfen"]
            assert said.startswith(f"Wirf {need} Karten ab")
        if any("antwort" in m for m in view["legal_moves"]):
            offerer = view["seats"][view["board"]["dran"]]["name"]
            assert said.startswith(f"Antworte auf das Angebot von {offerer}")
    assert {"Gründe", "Würfle", "Handle"} <= seen, seen
    idle = played_view(seats, 1, 0)  # the founding: seat 0 first
    assert not idle["legal_moves"] and spore.prompt(idle) is None


def test_seat_scores_are_victory_points_without_others_hidden_funde() -> None:
    view = played_view(3, 0, 240)
    scores = spore.seat_scores(view)
    shown = view["board"]["anzeige"]["siegpunkte"]
    assert len(scores) == 3
    for seat, score in enumerate(scores):
        points = shown[seat]["punkte"]
        assert score == (f"{points} Siegpunkt" if points == 1 else f"{points} Siegpunkte")


def _view_with_last(key: str, seats: int = 3) -> tuple[dict[str, Any], int]:
    """A view whose opponent's last turn has an effect `speedspore.<key>`, and that opponent."""
    for plies in range(3, 300, 7):
        view = played_view(seats, 0, plies)
        for seat, entry in enumerate(view["last_moves"]):
            if seat != 0 and entry and any(e["key"] == f"speedspore.{key}" for e in entry["effects"]):
                return view, seat
    raise AssertionError(f"no opponent's turn with {key}")


def test_last_move_lines_name_each_opponent_and_say_what_happened() -> None:
    view, seat = _view_with_last("wurf")
    lines = spore.last_move_lines(view)
    names = [s["name"] for s in view["seats"]]
    assert lines and all(line.split(":")[0] in names[1:] for line in lines)  # never the viewer itself
    line = next(line for line in lines if line.startswith(names[seat] + ":"))
    rolled = next(e for e in view["last_moves"][seat]["effects"] if e["key"] == "speedspore.wurf")
    assert f"würfelt {rolled['params']['summe']}" in line
    assert not any("Platz" in line or "Jemand" in line or KEYS.search(line) for line in lines)
    view["last_moves"] = [None] * 3
    assert spore.last_move_lines(view) == []


@pytest.mark.parametrize("key,place", [("bau.faden", "kante"), ("gruendung.fruchtkoerper", "ecke")])
def test_an_opponents_last_build_is_marked_on_the_island_and_not_the_viewers_own(key: str, place: str) -> None:
    view, seat = _view_with_last(key)
    built = next(e["params"][place] for e in view["last_moves"][seat]["effects"] if e["key"] == f"speedspore.{key}")
    html = str(spore.render(view))
    words = geometry.edge_name(built) if place == "kante" else geometry.corner_name(built)
    marked = re.findall(r'<g class="(?:thread|piece) p(\d) (?:fk |tower )?last( arrive)?"', html)
    assert str(seat % 4) in [m[0] for m in marked] and f"{words}: " in html and "zuletzt gebaut" in html
    # it fades in while it came after the viewer's own last move, and only then
    own = view["last_moves"][0]["n"] if view["last_moves"][0] else -1
    arriving = view["last_moves"][seat]["n"] > own
    assert any(m == (str(seat % 4), " arrive" if arriving else "") for m in marked), (marked, arriving)
    line = next(line for line in spore.last_move_lines(view) if line.startswith(view["seats"][seat]["name"]))
    assert ("Myzelfaden" in line) if place == "kante" else ("Fruchtkörper" in line)
    # the same turn seen by the seat that made it: nothing of its own is marked as new
    own = dict(view, you=seat)
    assert not re.search(rf'class="(?:thread p{seat % 4}|piece p{seat % 4} \w+) last', str(spore.render(own)))


def test_the_rolled_number_and_the_moved_mold_are_marked() -> None:
    view, seat = _view_with_last("schimmel")
    field = next(e["params"]["feld"] for e in view["last_moves"][seat]["effects"] if e["key"] == "speedspore.schimmel")
    html = str(spore.render(view))
    if view["board"]["schimmel"] == field:
        assert '<g class="mold last arrive">' in html or '<g class="mold last">' in html
    marked = 0
    for plies in range(20, 200, 9):
        view = played_view(3, 0, plies)
        rolls = [(entry["n"], e["params"]["summe"]) for seat, entry in enumerate(view["last_moves"])
                 if seat and entry for e in entry["effects"] if e["key"] == "speedspore.wurf"]
        own = view["last_moves"][0]["n"] if view["last_moves"][0] else -1
        latest = max(rolls, default=(-1, 7))
        expected = 0 if latest[1] == 7 or latest[0] < own else \
            len([f for f in view["board"]["felder"] if f.get("zahl") == latest[1]])
        html = str(spore.render(view))
        assert html.count(' last"/>') == expected, plies
        assert html.count("zuletzt gewürfelt") == expected
        marked += expected
    assert marked > 0


@pytest.mark.parametrize("seats", [2, 4])
def test_preview_lines_are_one_german_line_without_keys_for_every_legal_move(seats: int) -> None:
    engine = registry.engine(RULES)
    checked = 0
    for seed, plies in ((seed, plies) for seed in (b"p", b"q", b"r") for plies in range(0, 300, 17)):
        for viewer in range(seats):
            view = played_view(seats, viewer, plies, seed=seed * 32)
            position = _position(seats, plies, seed * 32)
            for move in view["legal_moves"]:
                preview = engine.preview(position, viewer, move)
                line = spore.preview_line(move, preview, view)
                assert line and "\n" not in line and not KEYS.search(line) and "Platz" not in line, (move, line)
                checked += 1
    assert checked > 200


def _position(seats: int, plies: int, seed: bytes) -> Any:
    """The position `played_view` reached (the same random moves)."""
    engine = registry.engine(RULES)
    position = engine.start(engine.normalize_config({"siegpunkte": 8}, seats), seats, seed)
    chance = random.Random(seats * 100 + plies)
    for _ in range(plies):
        pending = engine.pending(position)
        if not pending:
            break
        mover = pending[chance.randrange(len(pending))].seat
        moves = [m for m in engine.legal_moves(position, mover) if "zurueck" not in m]
        if not moves:
            break
        position = engine.apply(position, mover, chance.choice(moves)).position
    return position


def test_the_ghost_shows_the_move_on_the_island_and_carries_it() -> None:
    engine = registry.engine(RULES)
    kinds = set()
    for plies in (0, 1, 60, 120, 200):
        for viewer in range(3):
            view = played_view(3, viewer, plies)
            position = _position(3, plies, b"s" * 32)
            plain = str(spore.render(view))
            for move in view["legal_moves"][:25]:
                preview = engine.preview(position, viewer, move)
                ghost = str(spore.render_ghost(view, move, preview))
                assert ghost != plain
                carried = re.search(r"data-ghost='([^']*)'", ghost)
                assert carried and json.loads(carried.group(1).replace("&#34;", '"')) == move
                place = next((k for k in ("fruchtkoerper", "turm", "faden", "schimmel") if k in move), None)
                if place:
                    kinds.add(place)
                    assert ' ghost"' in ghost
                if preview.get("hand_nachher") and not place:
                    assert '<p class="ghost">Danach: ' in ghost
    assert {"fruchtkoerper", "faden"} <= kinds


def test_the_thumbnail_is_a_small_island() -> None:
    picture = str(spore.thumbnail())
    assert picture.startswith('<svg class="island thumb"') and len(picture.encode()) <= 8_000
    assert picture.count('class="hex k-') == 19 and "style=" not in picture


def test_phrase_names_seats_and_counts_in_german() -> None:
    view = played_view(3, 0, 60)
    names = [s["name"] for s in view["seats"]]
    sog = {"key": "speedspore.netzsog", "params": {"platz": 1, "rohstoff": "moos", "anzahl": 1, "von": [1, 0, 0]},
           "text": "Alle anderen geben Platz 2 ihr Moos: 1 Karten."}
    assert spore.phrase(sog, view) == f"Alle anderen geben {names[1]} ihr Moos: 1 Karte."
    trade = {"key": "speedspore.handel", "params": {"platz": 0, "partner": 2}, "text":
             "Platz 1 tauscht mit Platz 3: 1 Humus gegen 1 Moos."}
    assert spore.phrase(trade, view) == f"{names[0]} tauscht mit {names[2]}: 1 Humus gegen 1 Moos."
    built = {"key": "speedspore.bau.faden", "params": {"platz": 2, "kante": 7},
             "text": "Platz 3 baut einen Myzelfaden."}
    assert spore.phrase(built, view) == f"{names[2]} baut einen Myzelfaden auf {geometry.edge_name(7)}."
    assert spore.phrase({"key": "speedspore.knapp", "params": {}, "text": "Der Vorrat reicht nicht."}, view) is None


def test_no_text_names_a_place_the_island_does_not_show() -> None:
    for plies in (0, 1, 120):
        view = played_view(3, 0, plies)
        html = str(spore.render(view))
        letters = set(re.findall(r'class="letter">([A-S])</text>', html))
        assert len(letters) == 19
        assert not re.search(r"(?:Feld|Ecke|Kante) \d", html)
        for label in (spore.move_label(m, view) for m in view["legal_moves"]):
            assert not re.search(r"(?:Feld|Ecke|Kante) \d", label)
            for place in re.findall(r"(?:Ecke|Kante) ([A-S](?:/[A-S])*)", label):
                assert set(place.split("/")) <= letters


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_board_names_seats_by_name_and_counts_agree(seats: int) -> None:
    for plies in range(0, 400, 37):
        for viewer in range(seats):
            view = played_view(seats, viewer, plies)
            text = re.sub(r"<[^>]+>", " ", str(spore.render(view)))
            assert not re.search(r"Platz \d|Jemand", text), re.search(r".{40}(?:Platz \d|Jemand).{40}", text)
            assert not re.search(r"(?<![\d,.])1 (?:Fäden|Karten|Siegpunkte|Myzelfäden|Sporentürme)\b", text)
            lines = spore.last_move_lines(view) + [spore.phrase(e, view) or e["text"] for entry in
                                                   view["last_moves"] if entry for e in entry["effects"]]
            assert not any(re.search(r"Platz \d|Jemand", line) for line in lines), lines


def test_pieces_fade_in_only_until_the_viewer_has_moved_since() -> None:
    view, seat = _view_with_last("bau.faden")
    view["last_moves"][0] = {"n": -5, "effects": []}
    before = str(spore.render(view))
    assert re.search(rf'<g class="thread p{seat % 4} last arrive"', before)
    view["last_moves"][0] = {"n": 10**6, "effects": []}  # the viewer moved after it
    after = str(spore.render(view))
    assert re.search(rf'<g class="thread p{seat % 4} last"', after) and " arrive" not in after
