"""Speedmosaik's board renderer without any server: views built from the rule module for every workshop,
option and seat count, played through with random legal moves (docs/services/web.md, "Board renderers")."""

from __future__ import annotations

import html
import json
import random
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any, ClassVar

import pytest

from libs.rules import registry
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik.config import valid_configs
from services.web import game_view
from services.web.boards import renderer_for, speedmosaik
from services.web.boards.speedmosaik import common
from services.web.pages import _move_from_fields

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
        clickable = reachable(board, view["legal_moves"])
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


# ---- every decision of whole random games: each legal move made on the board, none listed by the shell ----

WORKSHOPS = ["kachelwand", "kirchenfenster", "sternpavillon"]
GAMES = {"kachelwand": 4, "kirchenfenster": 2, "sternpavillon": 2}
"""Random games per workshop and seat count, so each option combination is played; Sternpavillon's games are
the longest (150–200 decisions)."""
KINDS = {"kachelwand": {"take to a line", "take to the floor", "take from the centre", "wall column",
                        "take confirmed"},
         "kirchenfenster": {"take to a strip", "take to the breakage", "take from the centre", "glasermeister",
                            "fenster"},
         "sternpavillon": {"take", "take from the centre", "legen", "passen", "bonus", "behalten"}}
"""The kinds of moves each workshop's random games must have met (so no phase escapes the check)."""


def decisions(config: dict[str, Any], seats: int, seed: int) -> Iterator[dict[str, Any]]:
    """One random game played through the rule module (moves drawn by the project's SeededRng): at every
    decision, the table-shaped view of each seat that may act then."""
    engine = registry.engine("speedmosaik@1")
    position = engine.start(engine.normalize_config(config, seats), seats, bytes([seed]) * 32)
    rng, n = SeededRng(bytes([seed]) * 32, "moves"), 1
    while not engine.is_over(position):
        pending = engine.pending(position)
        for decision in pending:
            yield {"game_id": "ab" * 16, "game": "speedmosaik", "rules": "speedmosaik@1", "n": n,
                   "you": decision.seat, "status": "running",
                   "seats": [{"seat": i, "name": f"Spieler {i}", "kind": "human"} for i in range(seats)],
                   "to_move": [p.seat for p in pending if p.must], "may_act": [p.seat for p in pending if not p.must],
                   "board": engine.view(position, decision.seat),
                   "legal_moves": engine.legal_moves(position, decision.seat), "can_undo": False}
        seat = rng.choice([decision.seat for decision in pending])
        position = engine.apply(position, seat, rng.choice(engine.legal_moves(position, seat))).position
        n += 1


PICTURES = re.compile(r'<svg class="mz-svg"[^>]*aria-hidden="true".*?</svg>', re.S)


class BoardControls(HTMLParser):
    """The controls of a drawn board as the browser builds them: each <button> and <form> (with its <input>s)
    with its attributes, and whether an element around it is hidden or a button (a button inside a button
    cannot be pressed)."""

    VOID: ClassVar[frozenset[str]] = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                                                "meta", "source", "track", "wbr"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[tuple[str, dict[str, str | None]]] = []
        self.buttons: list[dict[str, Any]] = []
        self.forms: list[dict[str, Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        enclosed = any("hidden" in a or t == "button" for t, a in self.open)
        in_form = any(t == "form" for t, _ in self.open)
        if tag == "button":
            self.buttons.append({"attrs": attributes, "enclosed": enclosed, "in_form": in_form})
        elif tag == "form":
            self.forms.append({"attrs": attributes, "enclosed": enclosed, "inputs": [], "submits": 0})
        if tag == "input" and in_form:
            self.forms[-1]["inputs"].append(attributes)
        if tag == "button" and in_form and attributes.get("type") == "submit":
            self.forms[-1]["submits"] += 1
        if tag not in self.VOID:
            self.open.append((tag, attributes))

    def handle_endtag(self, tag: str) -> None:
        while self.open and self.open.pop()[0] != tag:
            pass


PREVIEW = "/spiel/" + "ab" * 16 + "/vorschau"


def _count_in(move: Any, path: list[str]) -> Any:
    """The count a move holds at a form field's path (`m.steine.rot` → move["steine"]["rot"]), 0 where absent."""
    for part in path:
        move = move.get(part, 0) if isinstance(move, dict) else None
    return move


def _made_by_form(form: dict[str, Any], legal: list[Any]) -> list[Any]:
    """The legal moves a form of counts makes, as the page builds them from what the player typed
    (`pages._move_from_fields`), and a check that every combination its number fields allow is one of them."""
    attrs = form["attrs"]
    assert attrs.get("hx-target") == "#preview" and (attrs.get("aria-label") or "").strip(), attrs
    assert attrs.get("id") and attrs.get("hx-preserve") == "true" and form["submits"] == 1, attrs  # survives redraws
    numbers = [field for field in form["inputs"] if field.get("type") == "number"]
    fixed = {field["name"]: field.get("value") or "" for field in form["inputs"] if field.get("type") == "hidden"}
    assert numbers and all((field.get("aria-label") or "").strip() for field in numbers)
    made, combinations = [], 1
    for field in numbers:
        combinations *= int(field["max"]) - int(field["min"]) + 1
    for move in legal:
        typed = dict(fixed)
        for field in numbers:
            count = _count_in(move, str(field["name"])[2:].split("."))
            if not isinstance(count, int) or not int(field["min"]) <= count <= int(field["max"]):
                break
            typed[field["name"]] = str(count)
        else:
            if _move_from_fields(typed) == move:
                made.append(move)
    assert len(made) == combinations  # whatever the player may type in it is a legal move
    return made


def reachable(board_html: str, legal: list[Any]) -> list[Any]:
    """The moves a player can make on the board by pointer or keyboard, as htmx and web.js make them: a shown
    button carrying a move (`hx-vals`) previews it; a hidden one with `data-pick-for="K"` is shown, and then
    previews its move, once a shown button with `data-pick="K"` is chosen; a form of counts previews what was
    typed into it. Every such button is a real `<button>` (Tab, Enter, Space) with words for a screen reader
    (`aria-label`), every number field too."""
    parser = BoardControls()
    parser.feed(PICTURES.sub("", board_html))  # the tiles' pictures hold no controls (and most of the tags)
    parser.close()
    shown = [button for button in parser.buttons if not button["enclosed"] and "hidden" not in button["attrs"]]
    picks = {button["attrs"]["data-pick"] for button in shown if button["attrs"].get("data-pick")}
    moves = []
    for button in parser.buttons:
        attrs = button["attrs"]
        if button["enclosed"] or button["in_form"] or not (attrs.get("hx-vals") or attrs.get("data-pick")):
            continue
        assert attrs.get("type") == "button" and (attrs.get("aria-label") or "").strip(), attrs
        if attrs.get("data-pick"):
            assert attrs.get("aria-pressed") == "false", attrs  # a toggle that says it is one
            continue
        assert attrs.get("hx-post") == PREVIEW and attrs.get("hx-target") == "#preview"
        vals = json.loads(attrs["hx-vals"] or "")
        move = json.loads(vals["move"])
        pick = attrs.get("data-pick-for")
        direct = pick is None and "hidden" not in attrs
        after_its_pick = pick is not None and "hidden" in attrs and pick in picks  # a target waits for its pick
        if direct or after_its_pick:
            moves.append(move)
    for form in parser.forms:
        if not form["enclosed"] and "hidden" not in form["attrs"] and form["attrs"].get("hx-post") == PREVIEW:
            moves.extend(_made_by_form(form, legal))
    return moves


def kind(move: dict[str, Any], workshop: str) -> str:
    """The kind of a legal move, for the coverage of the games' phases."""
    if "aktion" in move and move["aktion"] != "nehmen":
        return str(move["aktion"])
    if move.get("bestaetigt"):
        return "take confirmed"
    if move.get("source", move.get("quelle")) == "mitte":
        return "take from the centre"
    if "spalte" in move:
        return "wall column"
    if workshop == "sternpavillon":
        return "take"
    target = move.get("reihe", move.get("streifen"))
    if target == 0:
        return "take to the floor" if workshop == "kachelwand" else "take to the breakage"
    return "take to a line" if workshop == "kachelwand" else "take to a strip"


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("workshop", WORKSHOPS)
def test_at_every_decision_every_legal_move_is_made_on_the_board_and_the_shell_lists_none(
        workshop: str, seats: int) -> None:
    configs = valid_configs((workshop,))
    met: set[str] = set()
    decided = 0
    for game in range(GAMES[workshop]):
        for view in decisions(configs[game % len(configs)], seats, seed=16 * seats + game):
            legal = view["legal_moves"]
            board = str(speedmosaik.render(view))
            assert len(board.encode()) <= 150 * 1024  # issue 25's page size (a keep choice once drew 550 KB)
            on_board = reachable(board, legal)
            missing = [move for move in legal if move not in on_board]
            assert not missing, (view["n"], missing)  # every legal move: one or two clicks on the board
            assert all(move in legal for move in on_board)  # and the board offers nothing else
            assert not any(speedmosaik.listed_move(move, view) for move in legal)
            assert game_view.moves_of(view) == []  # so the shell lists none of them a second time
            met.update(kind(move, workshop) for move in legal)
            decided += 1
    assert met >= KINDS[workshop], KINDS[workshop] - met
    assert decided > 50 * GAMES[workshop]


def test_a_move_the_board_does_not_know_stays_listed_by_the_shell() -> None:
    view = next(decisions({"workshop": "kachelwand"}, 2, seed=1))
    unknown = {"aktion": "neu"}
    view["legal_moves"] = [*view["legal_moves"], unknown]
    assert not speedmosaik.listed_move(view["legal_moves"][0], view)
    assert speedmosaik.listed_move(unknown, view)
    assert [entry["json"] for entry in game_view.moves_of(view)] == ['{"aktion":"neu"}']
    assert unknown not in reachable(str(speedmosaik.render(view)), view["legal_moves"])


def test_keeping_tiles_is_a_form_of_counts_with_the_suggestion_filled_in() -> None:
    view = next(view for view in decisions({"workshop": "sternpavillon"}, 3, seed=48)
                if len(view["legal_moves"]) > 200 and view["board"]["phase"] == "behalten")
    board = str(speedmosaik.render(view))
    keep = board.split('<div class="mz-keep"')[1].split("</div>")[0]
    hand = next(p["hand"] for p in view["board"]["spieler"] if p["platz"] == view["you"])
    suggested = {colour: n for colour, n in view["board"]["behalten"]["vorschlag"].items() if n}
    for colour, held in hand.items():
        if held:
            assert f'name="m.steine.{colour}" min="0" max="{held}" value="{suggested.get(colour, 0)}"' in keep
    assert "4 Steine behältst du frei, jeder weitere kostet 1 Punkt." in keep
    assert keep.count('class="mz-move') == 2  # the suggestion and keeping none; the other choices are typed
    assert f"Vorschlag – Behalten: {', '.join(f'{n} × {common.name(c)}' for c, n in suggested.items())}" in keep
    # nothing typed (every count 0) is still the whole move "keep none"; a broken fixed part is no move
    fixed = html.unescape(re.search(r'name="m" value="([^"]+)"', keep).group(1))  # type: ignore[union-attr]
    assert _move_from_fields({"m": fixed, "m.steine.rot": "0"}) == {"aktion": "behalten", "steine": {}}
    assert _move_from_fields({"m": "[1]", "m.steine.rot": "2"}) is None


# ---- what the board declares for the game page: prompt, scores, last moves, preview line, ghost, phrase, thumbnail

NAMES = ["Mila", "Computer 1", "Computer 2", "Computer 3"]


def played(config: dict[str, Any], seats: int, seed: int, every: int = 1) -> Iterator[tuple[dict[str, Any], Any]]:
    """One random game with the view's `last_moves` as the table builds it (per seat the effects of its latest turn:
    its moves since another seat last moved): at every `every`-th decision the view of the seat that decides, with
    the position (for the rule module's preview)."""
    engine = registry.engine("speedmosaik@1")
    position = engine.start(engine.normalize_config(config, seats), seats, bytes([seed]) * 32)
    rng, n, previous = SeededRng(bytes([seed]) * 32, "moves"), 1, None
    last: list[dict[str, Any] | None] = [None] * seats
    while not engine.is_over(position):
        seat = engine.pending(position)[0].seat
        if n % every == 0:
            yield ({"game_id": "ab" * 16, "game": "speedmosaik", "rules": "speedmosaik@1", "n": n, "you": seat,
                    "status": "running", "seats": [{"seat": i, "name": NAMES[i], "kind": "bot"} for i in range(seats)],
                    "to_move": [seat], "may_act": [], "board": engine.view(position, seat),
                    "legal_moves": engine.legal_moves(position, seat), "last_moves": [dict(e) if e else None
                                                                                      for e in last]},
                   position)
        step = engine.apply(position, seat, rng.choice(engine.legal_moves(position, seat)))
        entry = last[seat]
        if previous != seat or entry is None:
            last[seat] = {"n": n, "effects": list(step.effects)}
        else:
            last[seat] = {"n": n, "effects": [*entry["effects"], *step.effects]}
        previous, position, n = seat, step.position, n + 1


CONFIG_SEATS = [(config, seats) for config in CONFIGS for seats in (2, 4)]
LAST = re.compile(r'class="[^"]*\blast\b')
DOTTED = re.compile(r"\b[a-z_]+\.[a-z_]+\b")
ENGLISH = re.compile(r"\b(label|points|key|params|true|false|none|null)\b", re.I)


@pytest.mark.parametrize(("config", "seats"), CONFIG_SEATS, ids=lambda v: "-".join(v.values()) if isinstance(v, dict)
                         else str(v))
def test_whenever_the_seat_may_act_the_board_says_what_to_do_and_marks_the_others_last_turns(
        config: dict[str, Any], seats: int) -> None:
    marked = 0
    for view, _ in played(config, seats, seed=seats + len(config), every=3):
        text = speedmosaik.prompt(view)
        assert text and "Platz" not in text and not DOTTED.search(text), view["legal_moves"][:2]
        scores = speedmosaik.seat_scores(view)
        assert len(scores) == seats and all(re.fullmatch(r"−?-?\d+ Punkte?", s or "") for s in scores), scores
        assert all(not s.startswith("1 Punkte") for s in scores if s)
        board = str(speedmosaik.render(view))
        lines = speedmosaik.last_move_lines(view)
        others = [seat for seat, entry in enumerate(view["last_moves"]) if entry and seat != view["you"]]
        mine_only = dict(view, last_moves=[e if seat == view["you"] else None for seat, e in
                                           enumerate(view["last_moves"])])
        assert not LAST.search(str(speedmosaik.render(mine_only)))  # the viewer's own last turn is never marked
        assert speedmosaik.last_move_lines(mine_only) == []
        if others:
            # an opponent's last turn is marked on the board (a Kachelwand turn that ended the round may leave
            # nothing to mark: its line and floor were emptied when the wall was tiled)
            within = [seat for seat in others if not any(effect["key"].endswith("runde_ende")
                                                         for effect in view["last_moves"][seat]["effects"])]
            assert LAST.search(board) or not within, view["last_moves"]
            assert len(lines) == len(others)  # one line per opponent, by name, in the game's words
            assert all(line.split(": ")[0] in NAMES and "Platz" not in line and not DOTTED.search(line)
                       for line in lines), lines
            marked += 1
    assert marked > 10


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(c.values()))
def test_every_legal_move_previews_as_one_german_line_and_as_a_ghost_on_the_board(config: dict[str, Any]) -> None:
    engine = registry.engine("speedmosaik@1")
    lines = 0
    for view, position in played(config, 3, seed=7, every=5):
        board = str(speedmosaik.render(view))
        sample = view["legal_moves"][:: max(1, len(view["legal_moves"]) // 12)]
        for move in view["legal_moves"]:  # every legal move reads as one line; a sample is drawn as a ghost
            preview = engine.preview(position, view["you"], move)
            line = speedmosaik.preview_line(move, preview, view)
            assert line and "\n" not in line and "Platz" not in line, (move, preview)
            assert not DOTTED.search(line) and "_" not in line and not ENGLISH.search(line), (line, preview)
            assert not re.search(r"(^|[^\d])1 (Punkte|Steine|Fliesen|Scheiben)\b", line), line
            if move not in sample:
                continue
            ghost = str(speedmosaik.render_ghost(view, move, preview))
            assert ghost != board and len(ghost.encode()) <= 150 * 1024
            carried = re.search(r'data-ghost="([^"]*)"', ghost.split(">", 1)[0])
            assert carried and json.loads(html.unescape(carried.group(1))) == move  # it carries the move
            assert re.search(r'class="[^"]*\b(ghost|target)\b', ghost), move  # and shows it on the board
            lines += 1
    assert lines > 30


def test_a_take_shows_its_tiles_as_ghosts_in_the_chosen_pattern_line_with_its_gain() -> None:
    view, position = next(played({"workshop": "kachelwand"}, 2, seed=1))
    move = next(m for m in view["legal_moves"] if m.get("reihe") == 3 and m.get("source") == "schale")
    preview = registry.engine("speedmosaik@1").preview(position, view["you"], move)
    ghost = str(speedmosaik.render_ghost(view, move, preview))
    line = ghost.split('aria-label="Musterreihe 3')[1].split("</li>")[0]
    assert line.count('class="mz-t ghost"') == preview["in_reihe"]
    text = speedmosaik.preview_line(move, preview, view)
    assert text.startswith(f"{preview['in_reihe']} Fliese") and "Musterreihe 3" in text
    floor = dict(move, reihe=0)
    on_floor = registry.engine("speedmosaik@1").preview(position, view["you"], floor)
    assert on_floor["anzahl"] == 1 and on_floor["bodenstrafe"] == -1
    assert speedmosaik.preview_line(floor, on_floor, view) == "1 Fliese auf den Boden: −1 Punkt"


def test_a_full_line_reads_as_its_wall_points() -> None:
    view = {"board": {"einstellungen": {"workshop": "kachelwand"}}}
    preview = {"reihe": 3, "in_reihe": 3, "auf_boden": 0, "bodenstrafe": 0, "reihe_voll": True, "startstein": False,
               "in_deckel": 0, "wandpunkte": {"punkte": 4, "rechenweg": {"params": {"waagerecht": 3, "senkrecht": 2}}}}
    assert speedmosaik.preview_line({}, preview, view).startswith("+4 Punkte: 3 waagerecht, 2 senkrecht")
    one = dict(preview, auf_boden=1, bodenstrafe=-1, wandpunkte={"punkte": 1, "rechenweg": {"params": {}}})
    assert speedmosaik.preview_line({}, one, view) == \
        "+1 Punkt: einzeln (Musterreihe 3 voll, zählt am Rundenende); 1 Fliese auf den Boden: −1 Punkt"


def test_the_board_says_in_its_own_words_what_the_recorded_texts_say_wrongly() -> None:
    view, _ = next(played({"workshop": "kachelwand"}, 3, seed=1))
    view["board"]["spieler"][1]["volle_reihen"] = 1
    def effect(key: str, text: str, **params: Any) -> dict[str, Any]:
        return {"key": key, "params": params, "text": text}
    assert speedmosaik.phrase(effect("kachelwand.spielende", "Jemand hat eine waagerechte Wandreihe voll: Die Partie "
                                     "ist vorbei.", grund="reihe"), view) == \
        "Computer 1 hat eine waagerechte Wandreihe voll: Die Partie ist vorbei."
    assert speedmosaik.phrase(effect("sternpavillon.passen", "Platz 2 passt; 1 Stein bleiben übrig.", platz=2,
                                     steine=1), view) == "Computer 1 passt; 1 Stein bleibt übrig."
    assert speedmosaik.phrase(effect("sternpavillon.nehmen", "Platz 3 nimmt 1 × Rot aus Schale 1; 1 Stein wandern "
                                     "in die Mitte.", platz=3), view) == \
        "Computer 2 nimmt 1 × Rot aus Schale 1; 1 Stein wandert in die Mitte."
    assert speedmosaik.phrase(effect("sternpavillon.endwertung", "Platz 1: Endwertung −1 (Übrige Steine: 1 × −1 = -1)"
                                     " → 1 Punkte", platz=1), view) == \
        "Mila: Endwertung −1 (Übrige Steine: 1 × −1 = −1) → 1 Punkt"
    assert speedmosaik.phrase(effect("kachelwand.gefallen", "Platz 2: In Wandreihe 2 ist keine Spalte für Schwarz frei "
                                     "– 2 Fliesen fallen auf den Boden, 2 in den Deckel.", platz=2, reihe=2,
                                     farbe="schwarz", anzahl=2, auf_boden=0, in_deckel=2), view) == \
        "Computer 1: In Wandreihe 2 ist keine Spalte für Schwarz frei – 2 Fliesen fallen herunter: 2 in den Deckel."
    assert speedmosaik.phrase(effect("kirchenfenster.streifen_fertig", "Streifen 8 ist fertig.", platz=1,
                                     streifen=8), view) == "Streifen 8 von Mila ist fertig."
    assert speedmosaik.phrase(effect("kachelwand.runde_ende", "Runde 1 ist vorbei: Die Wände werden gefliest.",
                                     runde=1), view) is None  # nothing to change


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(c.values()))
def test_no_effect_of_a_whole_game_reads_wrong_in_the_boards_words(config: dict[str, Any]) -> None:
    seen = 0
    for view, _ in played(config, 3, seed=5):
        for entry in view["last_moves"]:
            for effect in (entry or {}).get("effects", []):
                text = speedmosaik.phrase(effect, view) or effect["text"]
                assert "Platz" not in text and "Jemand" not in text, text
                assert not re.search(r"(^|[^\d,])[−-]?1 (Punkte|Steine|Fliesen|Scheiben)\b", text), text
                assert not re.search(r"\b1 (Stein|Fliese|Scheibe) (bleiben|kommen|fallen|wandern|passen)\b", text), text
                assert "= -" not in text, text
                seen += 1
    assert seen > 100


def test_the_thumbnail_is_a_small_picture_in_the_boards_style() -> None:
    picture = str(speedmosaik.thumbnail())
    assert picture.startswith("<svg") and picture.endswith("</svg>") and len(picture.encode()) <= 8 * 1024
    assert 'class="mz-tile t-blau"' in picture and 'role="img"' in picture and "<script" not in picture


def test_sternpavillon_draws_seven_stars_of_six_spaces_with_their_values() -> None:
    view, _ = next(played({"workshop": "sternpavillon"}, 2, seed=2))
    board = str(speedmosaik.render(view))
    mine = board.split('class="mz-player mz-mine"')[1].split("</section>")[0]
    assert mine.count("<polygon") == 7 * 6  # a rhombus per space: six points of a star
    assert sorted(re.findall(r'class="mz-cost"[^>]*>(\d)<', mine)) == sorted([str(n) for n in range(1, 7)] * 7)
    assert "Mittelstern: jede Farbe einmal" in mine
    assert mine.count('class="mz-place mz-saeule') == 6 and mine.count('class="mz-place mz-statue') == 6
    assert mine.count('class="mz-place mz-fenster') == 6
    # on a phone the own pavilion can be drawn at twice the width in its own box: one checkbox, kept across redraws
    assert board.count('id="mz-zoom"') == 1 and mine.count('class="mz-pavbox"><div class="mz-pav"') == 1
    assert '<label class="mz-zoom"><input type="checkbox" id="mz-zoom" hx-preserve="true"> Sterne vergrößern' in mine
    others = board.split('class="mz-players"')[1]
    assert "mz-zoom" not in others and others.count('class="mz-pavbox"') == 1  # another seat's pavilion
    watching = dict(view, you=None, legal_moves=[], board=dict(view["board"], ich=None))
    assert "mz-zoom" not in str(speedmosaik.render(watching))  # a spectator has no spaces to click


def test_kirchenfenster_labels_strips_glasermeister_windows_and_the_palace() -> None:
    for palace in ("saeulen", "fensterfarbe"):
        view, _ = next(played({"workshop": "kirchenfenster", "palace": palace}, 2, seed=2))
        mine = str(speedmosaik.render(view)).split('class="mz-player mz-mine"')[1].split("</section>")[0]
        assert "▲" not in mine and "Glasermeister" in mine and mine.count('<li class="mz-strip') == 8
        assert mine.count('<li class="mz-window') == 8 and "Wert 5" in mine
        if palace == "saeulen":
            assert mine.count('class="mz-pillar"') == 4 and "Säule 4" in mine
        else:
            assert "Palast · Fensterfarbe" in mine


def test_a_spectator_sees_every_seats_last_turn_and_no_own_board() -> None:
    view = next(view for view, _ in played({"workshop": "kirchenfenster"}, 3, seed=4) if all(view["last_moves"]))
    watching = dict(view, you=None, legal_moves=[], board=dict(view["board"], ich=None))
    board = str(speedmosaik.render(watching))
    assert "mz-mine" not in board and LAST.search(board) and speedmosaik.prompt(watching) is None
    assert [line.split(": ")[0] for line in speedmosaik.last_move_lines(watching)] == NAMES[:3]


def test_a_last_move_line_reads_like_the_take_it_was() -> None:
    view, _ = next(played({"workshop": "kachelwand", "wall": "frei", "jokers": "mit"}, 2, seed=1))
    take = {"key": "kachelwand.zug", "text": "Platz 2 nimmt 1 × Blau + Joker aus Schale 5 → Boden",
            "params": {"platz": 2, "anzahl": 2, "farbe": "blau", "quelle": "schale", "schale": 5, "reihe": 0,
                       "in_reihe": 0, "auf_boden": 2, "in_deckel": 0, "joker": 1}}
    view = dict(view, you=0, last_moves=[None, {"n": 3, "effects": [take]}])
    view["board"]["spieler"][1]["boden"] = ["blau", "joker"]
    assert speedmosaik.last_move_lines(view) == ["Computer 1: 1 × Blau + Joker aus Schale 5 → Boden"]
    board = str(speedmosaik.render(view))
    assert re.search(r'<li class="mz-display last" aria-label="Schale 5: [^"]*, eben genommen"', board)
    floor = board.split('aria-label="Tableau Computer 1"')[1].split('class="mz-floor')[1].split("</div>")[0]
    assert floor.startswith(" last") and floor.count('class="mz-t arrive"') == 2  # the two tiles fade in
