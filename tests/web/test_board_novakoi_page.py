"""What the Speednova and Speedkoi boards declare for the game page (docs/services/web.md, "What a board declares
for the game page"): the prompt, the seats' scores, the opponents' last moves (lines and marks on the board), the
preview's line, the ghost, the board's own words for recorded effects and the thumbnail. Views are built from the
rule modules, `last_moves` as the table builds it: per seat the effects (as the viewer may read them) of its latest
turn, i.e. its moves since another seat last made a move it had to make."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from libs.rules import registry
from libs.rules.engine import visible_effects
from services.web.boards import speedkoi as koi
from services.web.boards import speednova as nova

NAMES = ["Vega", "Computer 1", "Computer 2", "Computer 3"]
KEYISH = re.compile(r"\b[a-z]+[._][a-z_.]+\b|[{}\[\]]|\bNone\b|\bTrue\b|\bFalse\b")
"""Dotted keys ("speedkoi.zuletzt"), field names with underscores ("punkte_danach"), JSON, Python words."""
ENGLISH = re.compile(r"\b(points?|label|key|move|preview|cells?|colou?r|score|null)\b", re.IGNORECASE)


class Game:
    """A game played with random legal moves, remembering each seat's latest turn as the table does."""

    def __init__(self, rules: str, seats: int, config: dict[str, Any], seed: int) -> None:
        self.engine = registry.engine(rules)
        self.rules, self.seats, self.n = rules, seats, 1
        self.position = self.engine.start(self.engine.normalize_config(config, seats), seats, bytes([seed]) * 32)
        self.turns: list[dict[str, Any] | None] = [None] * seats
        self.broken = [True] * seats
        self.rng = random.Random(seed)

    def apply(self, seat: int, move: Any) -> None:
        must = seat in self.engine.must_act(self.position)
        step = self.engine.apply(self.position, seat, move)
        self.position, self.n = step.position, self.n + 1
        if self.broken[seat] or self.turns[seat] is None:
            self.turns[seat] = {"n": self.n, "effects": []}
            self.broken[seat] = False
        turn = self.turns[seat]
        assert turn is not None
        turn["n"] = self.n
        turn["effects"] += step.effects
        if must:
            for other in range(self.seats):
                if other != seat:
                    self.broken[other] = True

    def view(self, viewer: int | None) -> dict[str, Any]:
        engine, position = self.engine, self.position
        pending = engine.pending(position)
        last = [None if turn is None else {"n": turn["n"], "effects": visible_effects(turn["effects"], viewer)}
                for turn in self.turns]
        return {"game_id": "ab" * 16, "game": engine.spec.game, "rules": self.rules, "settings": {}, "n": self.n,
                "status": "ended" if engine.is_over(position) else "running", "you": viewer,
                "seats": [{"seat": i, "name": NAMES[i], "kind": "human", "level": None, "left": False}
                          for i in range(self.seats)],
                "to_move": [p.seat for p in pending if p.must], "may_act": [p.seat for p in pending if not p.must],
                "board": engine.view(position, viewer),
                "legal_moves": engine.legal_moves(position, viewer) if viewer is not None else [],
                "can_undo": False, "last_effects": [], "clocks": [], "last_moves": last}

    def play(self, steps: int | None = None) -> Iterator[int]:
        """Random legal moves (placements and lantern plays preferred); yields the seat about to move."""
        count = 0
        while not self.engine.is_over(self.position) and (steps is None or count < steps):
            seat = self.engine.must_act(self.position)[0]
            yield seat
            moves = [m for m in self.engine.legal_moves(self.position, seat) if "signal" not in m]
            plays = [m for m in moves if m.get("aktion") == "anlegen"]
            self.apply(seat, self.rng.choice(plays if plays and self.rng.random() < .8 else moves))
            count += 1


NOVA = [("speednova@2", 1, {"solo": "rekordjagd"}), ("speednova@2", 1, {"solo": "klassisch"}),
        ("speednova@2", 2, {}), ("speednova@2", 3, {}), ("speednova@2", 4, {"teams": "mit"})]
KOI = [("speedkoi@1", seats, {"spielart": art}) for seats in (2, 3, 4) for art in ("klassisch", "laternenfest")]


def _board_module(rules: str) -> Any:
    return nova if rules.startswith("speednova") else koi


def _clean(text: str) -> None:
    assert text and not KEYISH.search(text), text
    assert not ENGLISH.search(text), text
    assert "Platz" not in text and "Jemand" not in text and " 1 Punkte" not in text, text


@pytest.mark.parametrize(("rules", "seats", "config"), NOVA + KOI, ids=lambda v: str(v))
def test_prompt_scores_last_moves_previews_and_ghosts_along_whole_games(rules: str, seats: int,
                                                                         config: dict[str, Any]) -> None:
    board = _board_module(rules)
    game = Game(rules, seats, config, seed=seats * 11 + len(str(config)))
    prompts, lines, ghosts, previews = 0, 0, 0, 0
    for step, mover in enumerate(game.play()):
        for viewer in range(seats):
            view = game.view(viewer)
            said = board.prompt(view)
            if viewer in view["to_move"]:
                _clean(said)
                prompts += 1
            else:
                assert said is None
            scores = board.seat_scores(view)
            assert len(scores) == seats and all(score for score in scores)
            assert all(re.fullmatch(r"schwächste: \w+ \d+|−?\d+ Punkte?", score) for score in scores), scores
            for line in board.last_move_lines(view):
                _clean(line)
                assert line.split(": ")[0] in NAMES[:seats] and not line.startswith(NAMES[viewer] + ":")
                lines += 1
        if step % 3:
            continue
        view = game.view(mover)
        plain = str(board.render(view))
        for move in random.Random(step).sample(view["legal_moves"], min(4, len(view["legal_moves"]))):
            preview = game.engine.preview(game.position, mover, move)
            line = board.preview_line(move, {"move": move, "preview": preview}, view)
            _clean(line)
            assert line == board.preview_line(move, preview, view)  # the table's answer or its preview part
            previews += 1
            ghost = str(board.render_ghost(view, move, preview))
            if board is nova and "stein" not in move and move.get("signal") != "frei":
                assert ghost == plain  # a colour signal or the swap has nothing to show on the map
                continue
            assert ghost != plain and " ghosted" in ghost and "style=" not in ghost and "<script" not in ghost
            ghosts += 1
    assert prompts > 5 and previews > 5 and ghosts > 5
    assert lines > 3 or seats == 1


def test_speednova_marks_an_opponents_last_placement_and_not_the_viewers() -> None:
    game = Game("speednova@2", 2, {}, seed=3)
    seen = 0
    for _mover in game.play(steps=30):
        for viewer in (0, 1):
            view = game.view(viewer)
            html = str(nova.render(view))
            other = view["last_moves"][1 - viewer]
            own = view["last_moves"][viewer]
            theirs = {c for e in (other or {}).get("effects", []) if e["key"] == "speednova.legen"
                      for c in e["params"]["felder"]}
            mine = {c for e in (own or {}).get("effects", []) if e["key"] == "speednova.legen"
                    for c in e["params"]["felder"]}
            marked = {int(c) for c in re.findall(r'<g class="cell[^"]* last[^"]*"[^>]*aria-label="Feld (\d+),', html)}
            assert marked == theirs and not (mine - theirs) & marked
            if theirs:
                seen += 1
                line = nova.last_move_lines(view)[0]
                assert line.startswith(f"{NAMES[1 - viewer]}: ") and "–" in line
            arriving = {int(c) for c in re.findall(r'<g class="cell[^"]* arrive[^"]*"[^>]*aria-label="Feld (\d+),',
                                                   html)}
            newest = [entry for entry in view["last_moves"] if entry and entry["n"] == view["n"]]
            assert arriving == {c for e in (newest[0]["effects"] if newest else []) if e["key"] == "speednova.legen"
                                for c in e["params"]["felder"]}
    assert seen > 10


def test_speedkoi_marks_an_opponents_figure_and_pile_and_not_the_viewers() -> None:
    game = Game("speedkoi@1", 2, {"spielart": "klassisch"}, seed=5)
    figures = piles = 0
    for _mover in game.play(steps=60):
        for viewer in (0, 1):
            view = game.view(viewer)
            html = str(koi.render(view))
            other = view["last_moves"][1 - viewer] or {"effects": []}
            moved = [e["params"] for e in other["effects"] if e["key"] in ("speedkoi.schritt", "speedkoi.neue_figur")]
            opponent = 1 - viewer
            for params in moved:
                path = html.split(f'<li class="koi-path koi-c-{params["farbe"]}"')[1].split("</li>")[0]
                assert re.search(rf'class="koi-fig koi-seat{opponent} koi-\w+ (arrive )?last"', path), path
                figures += 1
            discarded = [e["params"]["farbe"] for e in other["effects"] if e["key"] == "speedkoi.abwerfen"]
            for colour in discarded:
                assert re.search(rf'<li class="koi-pile (arrive )?last" aria-label="Ablage {koi.NAMES[colour]}', html)
                piles += 1
            # The viewer's own moves are never marked as "last".
            assert not re.search(rf'class="koi-fig koi-seat{viewer} koi-\w+[^"]*last', html)
    assert figures > 5 and piles > 0


def test_the_rack_never_shows_another_seats_tiles() -> None:
    game = Game("speednova@2", 4, {}, seed=9)
    for _mover in game.play(steps=12):
        pass
    for viewer in range(4):
        view = game.view(viewer)
        html = str(nova.render(view))
        rack = html.split('<section class="nova-rack"')[1].split("</section>")[0]
        shown = sorted(re.findall(r'aria-label="Doppelstern (\w+) \(\w+\) / (\w+) \(\w+\)', rack))
        own = sorted(tuple(nova.NAMES[c] for c in entry["stein"]) for entry in view["board"]["du"]["bank"])
        assert shown == own and len(own) == 6
        assert html.count('aria-label="Doppelstern ') == 6  # nobody else's rack anywhere on the board
    spectator = str(nova.render(game.view(None)))
    assert "Doppelstern" not in spectator and "nova-rack" not in spectator


def test_the_ghost_carries_the_move() -> None:
    game = Game("speednova@2", 2, {}, seed=4)
    view = game.view(0)
    move = view["legal_moves"][0]
    preview = game.engine.preview(game.position, 0, move)
    ghost = str(nova.render_ghost(view, move, preview))
    first, second = move["stein"]
    cells = preview["felder"]
    for cell, colour in zip(cells, (first, second), strict=True):
        assert re.search(rf'<g class="cell ghost nova-c-{colour}[^"]*"[^>]*aria-label="Feld {cell},', ghost)
        assert '<text class="cell-no"' in ghost and f">{cell}</text>" in ghost  # the label's numbers shown
    koi_game = Game("speedkoi@1", 2, {"spielart": "klassisch"}, seed=2)
    seat = koi_game.engine.must_act(koi_game.position)[0]
    view = koi_game.view(seat)
    play = next(m for m in view["legal_moves"] if m["aktion"] == "anlegen")
    preview = koi_game.engine.preview(koi_game.position, seat, play)
    ghost = str(koi.render_ghost(view, play, preview))
    path = ghost.split(f'<li class="koi-path koi-c-{play["farbe"]}"')[1].split("</li>")[0]
    assert 'class="koi-stone target"' in path and f'koi-seat{seat} koi-{preview["schritt"]["figur"]} ghost' in path
    assert f'koi-c-{play["farbe"]} ghost">{play["wert"]}</span>' in ghost  # the lantern in the own row
    throw = next(m for m in view["legal_moves"] if m["aktion"] == "abwerfen")
    ghost = str(koi.render_ghost(view, throw, koi_game.engine.preview(koi_game.position, seat, throw)))
    assert f'{koi.NAMES[throw["farbe"]]} {throw["wert"]} käme hierher' in ghost


def test_phrases_name_the_seats_and_agree_in_number() -> None:
    view = {"seats": [{"name": "Vega"}, {"name": "Computer 1"}]}
    placed = {"key": "speednova.legen", "params": {"platz": 2}, "text": "Platz 2 legt Komet/Nebel: Komet +3."}
    assert nova.phrase(placed, view) == "Computer 1 legt Komet/Nebel: Komet +3."
    assert nova.phrase({"key": "speednova.endwarnung", "params": {"passen_noch": 1},
                        "text": "Nur noch etwa eine Runde: 1 Doppelsterne passen noch auf die Karte. …"}, view) \
        .startswith("Nur noch etwa eine Runde: 1 Doppelstern passt noch auf die Karte.")
    assert nova.phrase({"key": "speednova.vorschau", "params": {}, "text": "Komet +3"}, view) is None
    assert koi.phrase({"key": "speedkoi.plaettchen", "params": {"platz": 1},
                       "text": "Platz 1 nimmt eine Kirschblüte: +1 Punkte."}, view) == \
        "Vega nimmt eine Kirschblüte: +1 Punkt."
    warned = {"key": "speedkoi.warnung.ende", "params": {}, "text": "Achtung, damit endet die Partie – du ziehst "
              "die letzte verdeckte Laterne: du 3, Platz 2 5 → du würdest Zweiter."}
    assert str(koi.phrase(warned, view)).endswith("du 3, Computer 1 5 → du würdest Zweiter.")
    assert koi.phrase({"key": "speedkoi.zuletzt", "params": {}, "text": "legte Gold 7"}, view) is None
    assert koi.phrase({"key": "speedkoi.ergebnis.sieg", "params": {"platz": 2, "punkte": 1},
                       "text": "Platz 2 gewinnt mit 1 Punkten."}, view) == "Computer 1 gewinnt mit 1 Punkt."
    tie = {"key": "speedkoi.ergebnis.gleichstand", "params": {}, "text": "Platz 1 und Platz 2 teilen sich den ersten "
           "Platz mit je −1 Punkten und 1 Perlen."}
    assert koi.phrase(tie, view) == "Vega und Computer 1 teilen sich den ersten Platz mit je −1 Punkt und 1 Perle."


@pytest.mark.parametrize("board", [nova, koi], ids=["speednova", "speedkoi"])
def test_the_undo_has_its_own_preview_line(board: Any) -> None:
    undo = {"zurueck": True}
    assert board.preview_line(undo, {"zug": undo, "zurueck": True}, {"board": {}}) == "Deinen letzten Zug zurücknehmen"


@pytest.mark.parametrize("board", [nova, koi], ids=["speednova", "speedkoi"])
def test_the_thumbnail_is_a_small_svg_in_the_boards_style(board: Any) -> None:
    picture = str(board.thumbnail())
    assert picture.startswith("<svg") and picture.endswith("</svg>") and 'role="img"' in picture
    assert len(picture.encode()) <= 8 * 1024 and "style=" not in picture and "<script" not in picture
    assert picture == str(board.thumbnail())
