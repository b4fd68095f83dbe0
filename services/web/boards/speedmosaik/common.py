"""What every Speedmosaik workshop draws alike: tiles (colour plus letter, so no colour vision is needed), the
displays ("Schalen") and the centre ("Mitte") with their tiles as buttons, round, bag and start tile, and the
board buttons that carry a legal move to the preview.

Moves by clicking on the board: a button with `data-pick` (a tile group in a display) selects the first half
of a move; `static/web.js` then shows the buttons with the same `data-pick-for` (the targets on the player's own
board, each carrying the complete legal move). A pick with a single legal move posts that move directly.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape

from services.web.boards.seats import seat_name as seat_name  # the boards' one naming of seats

NAMES = {"blau": "Blau", "gelb": "Gelb", "rot": "Rot", "schwarz": "Schwarz", "tuerkis": "Türkis",
         "gruen": "Grün", "violett": "Violett", "lila": "Lila", "orange": "Orange", "joker": "Joker",
         "startstein": "Startstein"}
LETTERS = {"blau": "B", "gelb": "Ge", "rot": "R", "schwarz": "S", "tuerkis": "T", "gruen": "Gr",
           "violett": "V", "lila": "L", "orange": "O", "joker": "J", "startstein": "1"}
TILE = 30
"""One tile's space in the SVG's units (= CSS px): the tile itself 28 px, as the issue asks on a desktop."""


@dataclass(frozen=True)
class Shown:
    """What a drawing adds to the view: `marks`, the parts the other seats' last turns touched (with how many
    pieces arrived there; class `last`, the pieces `arrive`), and `ghost`, what a previewed move would change
    (the pieces it would lay, class `ghost`; the parts it takes from or aims at, class `target`). Keys as in
    `last.Mark`."""

    marks: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    ghost: dict[tuple[Any, ...], Any] = field(default_factory=dict)

    def classes(self, key: tuple[Any, ...]) -> str:
        """ " last" and/or " target" for a part of the board."""
        return (" last" if key in self.marks else "") + (" target" if key in self.ghost else "")

    def arrived(self, key: tuple[Any, ...]) -> int:
        """How many pieces an opponent's last turn brought to this part."""
        count = self.marks.get(key, 0)
        return count if isinstance(count, int) else 0


NOTHING = Shown()


def name(colour: Any) -> str:
    """A colour id in German words ("tuerkis" → "Türkis"); an unknown id as it is."""
    return NAMES.get(str(colour), str(colour))


def css(colour: Any) -> str:
    """The class of a colour's tile: only known colours, anything else drawn as an unknown tile."""
    return f"t-{colour}" if colour in NAMES else "t-x"


def tiles_svg(colours: Iterable[Any], empty: int = 0, marks: Iterable[str] = ()) -> Markup:
    """A row of tiles as inline SVG (hidden from screen readers: the surrounding element says it in words):
    each tile a coloured square with its letter; `empty` empty spaces after them; `marks` a small text under
    each space (e.g. floor penalties). A colour written "~rot" is a ghost (where a previewed move would put a
    tile), "+rot" a tile that just arrived (an opponent's last move; it fades in)."""
    items, marked = tuple(str(colour) for colour in colours), tuple(str(mark) for mark in marks)
    return _tiles_svg(items, empty, marked)


def tile_svg_parts(item: str, x: float, y: float, size: int = TILE - 2) -> str:
    """One tile (a square with its letter) at (x, y) as SVG parts; "~" ghost and "+" arriving as in tiles_svg."""
    if item == ".":
        return f'<rect class="mz-slot" x="{x}" y="{y}" width="{size}" height="{size}" rx="4"/>'
    state = ""
    if item[:1] == "~":
        state, item = " ghost", item[1:]
    elif item[:1] == "+":
        state, item = " arrive", item[1:]
    kind = escape(css(item))
    half = size / 2
    joker = (f'<circle class="mz-jokerdot" cx="{x + half}" cy="{y + half}" r="{size / 2 - 3}"/>'
             if item == "joker" else "")
    return (f'<g class="mz-t{state}"><rect class="mz-tile {kind}" x="{x}" y="{y}" width="{size}" height="{size}" '
            f'rx="4"/>{joker}<text class="mz-letter {kind}" x="{x + half}" y="{y + half + 4.5}">'
            f'{escape(LETTERS.get(item, "?"))}</text></g>')


@lru_cache(maxsize=4096)
def _tiles_svg(items: tuple[str, ...], empty: int, marks: tuple[str, ...]) -> Markup:
    # A board draws the same few rows (one tile, an empty space, a floor) hundreds of times: cached, and built
    # with f-strings over escaped values, which is several times faster than Markup.format for these small parts.
    count = len(items) + empty
    height = TILE + (12 if marks else 0)
    half = (TILE - 2) / 2
    parts = []
    for index in range(count):
        x = index * (TILE + 2) + 1
        if index < len(items):
            parts.append(tile_svg_parts(items[index], x, 1))
        else:
            parts.append(f'<rect class="mz-slot" x="{x}" y="1" width="{TILE - 2}" height="{TILE - 2}" rx="4"/>')
        if index < len(marks):
            parts.append(f'<text class="mz-mark" x="{x + half}" y="{TILE + 10}">{escape(marks[index])}</text>')
    width = max(count, 1) * (TILE + 2)
    return Markup(f'<svg class="mz-svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
                  f'aria-hidden="true" focusable="false">{"".join(parts)}</svg>')


def counted(colours: Iterable[Any]) -> str:
    """Tiles in words: "2 × Blau, 1 × Rot"; "leer" for none."""
    counts = Counter(str(colour) for colour in colours)
    return ", ".join(f"{n} × {name(colour)}" for colour, n in counts.items()) or "leer"


def move_json(move: Any) -> str:
    return json.dumps(move, separators=(",", ":"), ensure_ascii=False)


def move_button(view: dict[str, Any], move: Any, content: Markup | str, label: str, classes: str = "",
                pick_for: str | None = None) -> Markup:
    """A board element that previews one legal move, exactly as the shell's move buttons do (the move's JSON in
    `hx-vals`, posted to the preview route). With `pick_for` it stays hidden until its pick is selected."""
    vals = json.dumps({"move": move_json(move), "n": view.get("n")}, ensure_ascii=False)
    extra = f' data-pick-for="{escape(pick_for)}" hidden' if pick_for is not None else ""
    return Markup(f'<button type="button" class="mz-move {escape(classes)}" '
                  f'hx-post="/spiel/{escape(view.get("game_id", ""))}/vorschau" hx-target="#preview" '
                  f'hx-vals="{escape(vals)}" aria-label="{escape(label)}"{extra}>{escape(content)}</button>')


def pick_button(key: str, content: Markup | str, label: str, classes: str = "") -> Markup:
    """The first half of a two-click move: selecting shows the targets with the same key (web.js)."""
    return Markup('<button type="button" class="mz-pick {0}" data-pick="{1}" aria-pressed="false" '
                  'aria-label="{2}">{3}</button>').format(classes, key, label, content)


def section(title: str, body: Markup, classes: str = "", label: str | None = None) -> Markup:
    return Markup('<section class="mz-part {0}" aria-label="{1}"><h3>{2}</h3>{3}</section>').format(
        classes, label or title, title, body)


def take_key(move: dict[str, Any]) -> str | None:
    """The display-and-colour half of a take ("schale-3-blau", "mitte-rot"), None for other moves."""
    source = move.get("source", move.get("quelle"))
    colour = move.get("farbe")
    if source == "schale" and isinstance(move.get("schale"), int) and isinstance(colour, str):
        return f"schale-{move['schale']}-{colour}"
    if source == "mitte" and isinstance(colour, str):
        return f"mitte-{colour}"
    return None


def source_words(move: dict[str, Any]) -> str:
    if move.get("source", move.get("quelle")) == "mitte":
        return "aus der Mitte"
    return f"aus Schale {move.get('schale')}"


def source_count(board: dict[str, Any], move: dict[str, Any]) -> int:
    """How many tiles of the move's colour its source holds (what a take takes)."""
    if move.get("source", move.get("quelle")) == "mitte":
        tiles = board.get("mitte") or []
    else:
        displays = board.get("schalen") or []
        index = int(move.get("schale", 0)) - 1
        tiles = displays[index] if 0 <= index < len(displays) else []
    return sum(1 for tile in tiles if tile == move.get("farbe"))


def group_moves(view: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The legal takes by display and colour, in the order the view lists them."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for move in view.get("legal_moves") or []:
        if isinstance(move, dict):
            key = take_key(move)
            if key is not None:
                groups.setdefault(key, []).append(move)
    return groups


def _source_tiles(view: dict[str, Any], tiles: list[Any], prefix: str, where: str,
                  groups: dict[str, list[dict[str, Any]]], labeller: Any, taken: Any = None) -> Markup:
    """One display's (or the centre's) tiles: each colour group a button when it can be taken, else a picture;
    `taken`: the colour a previewed move takes from here (drawn as ghosts: they are about to leave)."""
    counts = Counter(str(tile) for tile in tiles)
    parts = []
    for colour in counts:
        key = f"{prefix}-{colour}"
        words = f"{where}: {counts[colour]} × {name(colour)}"
        picture = tiles_svg([("~" if colour == taken else "") + colour] * counts[colour])
        moves = groups.get(key, [])
        if len(moves) == 1:
            parts.append(move_button(view, moves[0], picture, f"{words} nehmen – {labeller(moves[0], view)}",
                                     "mz-group"))
        elif moves:
            parts.append(pick_button(key, picture, f"{words} nehmen: dann das Ziel wählen", "mz-group"))
        else:
            parts.append(Markup('<span class="mz-group" role="img" aria-label="{}">{}</span>').format(
                words, picture))
    return Markup("").join(parts)


def displays(view: dict[str, Any], labeller: Any, shown: Shown = NOTHING) -> Markup:
    """The displays and the centre (with the start tile while it lies there) as one section; a display an
    opponent just took from is marked (`last`), the one a previewed move takes from too (`target`)."""
    board = view.get("board") or {}
    groups = group_moves(view)
    items = []
    for index, tiles in enumerate(board.get("schalen") or [], start=1):
        where = f"Schale {index}"
        mark: tuple[Any, ...] = ("quelle", "schale", index)
        body = _source_tiles(view, list(tiles), f"schale-{index}", where, groups, labeller, shown.ghost.get(mark)) \
            if tiles else Markup('<span class="mz-empty">leer</span>')
        items.append(Markup('<li class="mz-display{3}" aria-label="{0}: {1}{4}"><span class="mz-name">{0}</span>{2}'
                            '</li>').format(where, counted(tiles), body, shown.classes(mark),
                                            ", eben genommen" if mark in shown.marks else ""))
    centre = list(board.get("mitte") or [])
    start = (board.get("startstein") or {}).get("in_mitte")
    mark = ("quelle", "mitte", None)
    body = _source_tiles(view, centre, "mitte", "Mitte", groups, labeller, shown.ghost.get(mark))
    if start:
        body += Markup('<span class="mz-group" role="img" aria-label="Startstein">{}</span>').format(
            tiles_svg(["startstein"]))
    if not centre and not start:
        body = Markup('<span class="mz-empty">leer</span>')
    items.append(Markup('<li class="mz-display mz-centre{3}" aria-label="Mitte: {0}{1}"><span class="mz-name">Mitte'
                        '</span>{2}</li>').format(counted(centre), ", mit Startstein" if start else "", body,
                                                  shown.classes(mark)))
    return section("Schalen und Mitte", Markup('<ul class="mz-displays">{}</ul>').format(Markup("").join(items)),
                   "mz-market")


def facts(items: Iterable[tuple[str, Any]]) -> Markup:
    """A short line of facts ("Runde 2", "Beutel 54"): a definition list in one row."""
    body = Markup("").join(Markup('<div><dt>{}</dt><dd>{}</dd></div>').format(key, value) for key, value in items)
    return Markup('<dl class="mz-facts">{}</dl>').format(body)


def order_players(view: dict[str, Any], players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The seat's own board first, then the others in seat order."""
    me = view.get("you")
    return sorted(players, key=lambda player: (player.get("platz") != me, player.get("platz", 0)))


def points_words(points: Any) -> str:
    """ "1 Punkt", "12 Punkte"."""
    return f"{points} Punkt" if points in (1, -1) else f"{points} Punkte"


def player_head(view: dict[str, Any], player: dict[str, Any], extra: str = "") -> Markup:
    """The board's title: the seat's name ("Dein Tableau" for the viewer's own), whether it moves, its points."""
    seat = player.get("platz")
    mine = seat == view.get("you")
    moving = seat in ((view.get("board") or {}).get("am_zug") or [])
    title = f"Dein Tableau ({seat_name(view, seat)})" if mine else seat_name(view, seat)
    moving_mark = Markup(' <span class="mz-moving">am Zug</span>') if moving else ""
    return Markup('<h3><span class="mz-seat mz-seat-{4}" aria-hidden="true"></span>{0}{1} · {2}{3}</h3>').format(
        title, moving_mark, points_words(player.get("punkte", 0)), extra, seat if isinstance(seat, int) else "x")


def root(workshop: str, view: dict[str, Any], head: Markup, market: Markup, players: list[Markup],
         ghost: Any = None) -> Markup:
    """The board's outer element (`data-n`: the event number it shows; the browser tests wait for it; with a
    ghost, `data-ghost`: the previewed move): the facts line, then the displays and the viewer's own board side by
    side (one above the other on a phone), then the other seats' boards. `players` has the own board first."""
    me = view.get("you")
    own = isinstance(me, int) and any(player.get("platz") == me for player in
                                       (view.get("board") or {}).get("spieler") or [])
    mine, others = (players[0], players[1:]) if own and players else (Markup(""), players)
    ghosted = Markup(' data-ghost="{}"').format(move_json(ghost)) if ghost is not None else ""
    return Markup('<div class="board mosaik {0}" data-n="{1}"{2}>{3}<div class="mz-top">'
                  '<div class="mz-marketcol">{4}</div>{5}</div><div class="mz-players">{6}</div></div>').format(
        workshop, view.get("n", ""), ghosted, head, market, mine, Markup("").join(others))
