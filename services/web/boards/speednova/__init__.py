"""Speednova's board: the hex map (91, 127 or 169 cells) as inline SVG with the Leitsterne and every placed star
(colour and its shape, so it reads without colour vision), the rack, every track (six colours, 0–18 or 0–36),
Supernova and bonus placements, the swap offer, the end warning and, in team games, the team's signals.

Placing a double star takes three clicks, each a server-rendered state of this board (`render_choice`, reached
through the shell's `GET /spiel/{id}/brett?…`, no script of its own):

1. a rack tile (`?stein=komet.nebel`: the first colour goes on the cell clicked next; "Drehen" swaps them);
2. a cell where that colour may lie (`&feld=45`): the cells are buttons only where some legal move puts it;
3. the neighbour for the second colour: a button posting that legal move (exactly as `legal_moves` lists it)
   to the preview, as the generic move buttons do.

A team's „Feld frei halten“ works alike (`?modus=frei`: every free cell a button posting the signal). The
renderer reads only the view (a seat sees its own rack and its own team's signals, nothing else).
"""

from __future__ import annotations

import json
import math
from typing import Any

from markupsafe import Markup

from services.web.boards.seats import named, preview_body, seat_name

COLOURS = ("komet", "nebel", "riese", "zwerg", "pulsar", "quasar")
NAMES = {"komet": "Komet", "nebel": "Nebel", "riese": "Riese", "zwerg": "Zwerg", "pulsar": "Pulsar",
         "quasar": "Quasar"}
SHAPES = {"komet": "Schweif", "nebel": "Spirale", "riese": "Kreis", "zwerg": "Punkt", "pulsar": "Strahlenkranz",
          "quasar": "Raute"}
"""Fallbacks only: the view's `farben` names each colour's name and shape, and wins."""
DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
DIRECTION_WORDS = ("Osten", "Nordosten", "Nordwesten", "Westen", "Südwesten", "Südosten")
SIZE = 10.0
"""A hex cell's circumradius in SVG units (pointy top)."""
SQRT3 = math.sqrt(3.0)
SIGNAL_WORDS = {"viel": "Ich habe viel", "brauche": "Brauche"}


# ---- reading the view -------------------------------------------------------------------------------------

def _board(view: dict[str, Any]) -> dict[str, Any]:
    board = view.get("board")
    return board if isinstance(board, dict) else {}


def _colour_table(board: dict[str, Any]) -> dict[str, tuple[str, str]]:
    table = {colour: (NAMES[colour], SHAPES[colour]) for colour in COLOURS}
    for entry in board.get("farben") or []:
        if isinstance(entry, dict) and entry.get("farbe") in table:
            table[entry["farbe"]] = (str(entry.get("name") or NAMES[entry["farbe"]]),
                                     str(entry.get("form") or SHAPES[entry["farbe"]]))
    return table


def _name(board: dict[str, Any], colour: str) -> str:
    return _colour_table(board).get(colour, (colour, ""))[0]


def _named(board: dict[str, Any], colour: str) -> str:
    """"Komet (Schweif)": a colour with its shape, for screen readers and labels."""
    name, shape = _colour_table(board).get(colour, (colour, ""))
    return f"{name} ({shape})" if shape else name


def _coords(board: dict[str, Any]) -> list[tuple[int, int]]:
    return [(int(c[0]), int(c[1])) for c in (board.get("karte") or {}).get("koordinaten") or []]


def _neighbour_table(board: dict[str, Any]) -> list[list[int | None]]:
    coords = _coords(board)
    index = {coord: cell for cell, coord in enumerate(coords)}
    return [[index.get((q + dq, r + dr)) for dq, dr in DIRECTIONS] for q, r in coords]


def _seat(view: dict[str, Any], seat: Any) -> str:
    """A seat by its player's name (never "Platz 2": "Platz" is a rank)."""
    return seat_name(view, seat)


def _placements(view: dict[str, Any]) -> list[tuple[int, str, int, str, dict[str, Any]]]:
    """Every legal placement as (cell, colour, partner cell, partner colour, the legal move)."""
    neighbours = _neighbour_table(_board(view))
    found = []
    for move in view.get("legal_moves") or []:
        if not (isinstance(move, dict) and isinstance(move.get("stein"), list) and len(move["stein"]) == 2):
            continue
        cell, direction = move.get("feld"), move.get("richtung")
        if not (isinstance(cell, int) and isinstance(direction, int) and 0 <= cell < len(neighbours)
                and 0 <= direction < 6):
            continue
        partner = neighbours[cell][direction]
        if partner is None:
            continue
        found.append((cell, str(move["stein"][0]), partner, str(move["stein"][1]), move))
    return found


def _targets(view: dict[str, Any], first: str, second: str) -> dict[int, dict[int, dict[str, Any]]]:
    """For a tile laid `first` then `second`: per cell for `first`, per partner cell, the legal move."""
    targets: dict[int, dict[int, dict[str, Any]]] = {}
    for cell, a, partner, b, move in _placements(view):
        if (a, b) == (first, second):
            targets.setdefault(cell, {})[partner] = move
        if (b, a) == (first, second):
            targets.setdefault(partner, {})[cell] = move
    return targets


# ---- htmx attributes ----------------------------------------------------------------------------------------

def _move_json(move: Any) -> str:
    return json.dumps(move, separators=(",", ":"), ensure_ascii=False)


def _post(view: dict[str, Any], move: Any) -> Markup:
    """The attributes of a board element that previews `move`, exactly as the generic move buttons post it."""
    vals = json.dumps({"move": _move_json(move), "n": view.get("n")}, ensure_ascii=False)
    return Markup('hx-post="/spiel/{}/vorschau" hx-target="#preview" hx-vals="{}"').format(
        view.get("game_id", ""), vals)


def _choose(view: dict[str, Any], **params: Any) -> Markup:
    """The attributes of a board element that shows the board in the next state of a choice."""
    query = "&".join(f"{key}={value}" for key, value in params.items() if value is not None)
    return Markup('hx-get="/spiel/{}/brett{}" hx-target="#board" hx-swap="innerHTML"').format(
        view.get("game_id", ""), ("?" + query) if query else "")


# ---- shapes -------------------------------------------------------------------------------------------------

def _f(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _shape(colour: str, x: float, y: float, s: float) -> Markup:
    """The colour's shape as dark strokes centred on (x, y), `s` its radius: it tells the colours apart alone."""
    if colour == "komet":  # Schweif: a head with a tail
        return Markup('<g class="shape"><circle cx="{}" cy="{}" r="{}"/><path d="M{} {} L{} {} M{} {} L{} {} M{} {} '
                      'L{} {}"/></g>').format(
            _f(x + .35 * s), _f(y - .35 * s), _f(.3 * s),
            _f(x + .1 * s), _f(y - .1 * s), _f(x - .8 * s), _f(y + .8 * s),
            _f(x + .05 * s), _f(y - .45 * s), _f(x - .6 * s), _f(y + .25 * s),
            _f(x + .45 * s), _f(y - .05 * s), _f(x - .25 * s), _f(y + .65 * s))
    if colour == "nebel":  # Spirale
        points = []
        for step in range(29):
            angle = step * 0.38
            radius = s * (0.08 + 0.032 * step)
            points.append(f"{_f(x + radius * math.cos(angle))} {_f(y + radius * math.sin(angle))}")
        return Markup('<g class="shape"><path d="M{}"/></g>').format(" L".join(points))
    if colour == "riese":  # Kreis
        return Markup('<g class="shape"><circle cx="{}" cy="{}" r="{}"/></g>').format(_f(x), _f(y), _f(.62 * s))
    if colour == "zwerg":  # Punkt
        return Markup('<g class="shape dot"><circle cx="{}" cy="{}" r="{}"/></g>').format(_f(x), _f(y), _f(.28 * s))
    if colour == "pulsar":  # Strahlenkranz
        rays = " ".join(
            f"M{_f(x + .35 * s * math.cos(k * math.pi / 4))} {_f(y + .35 * s * math.sin(k * math.pi / 4))} "
            f"L{_f(x + .85 * s * math.cos(k * math.pi / 4))} {_f(y + .85 * s * math.sin(k * math.pi / 4))}"
            for k in range(8))
        return Markup('<g class="shape"><circle cx="{}" cy="{}" r="{}"/><path d="{}"/></g>').format(
            _f(x), _f(y), _f(.22 * s), rays)
    if colour == "quasar":  # Raute
        return Markup('<g class="shape"><path d="M{} {} L{} {} L{} {} L{} {} Z"/></g>').format(
            _f(x), _f(y - .75 * s), _f(x + .5 * s), _f(y), _f(x), _f(y + .75 * s), _f(x - .5 * s), _f(y))
    return Markup("")


def _star_icon(colour: str, board: dict[str, Any], size: str = "icon") -> Markup:
    """A small SVG of one star (colour and shape) for HTML parts (rack, tracks, signals)."""
    return Markup('<svg class="nova-{} nova-c-{}" viewBox="-10 -10 20 20" aria-hidden="true" focusable="false">'
                  '<circle class="disc" cx="0" cy="0" r="9.5"/>{}</svg>').format(
        size, colour if colour in COLOURS else "x", _shape(colour, 0, 0, 8))


# ---- the map ------------------------------------------------------------------------------------------------

def _centre(q: int, r: int) -> tuple[float, float]:
    return SIZE * SQRT3 * (q + r / 2), SIZE * 1.5 * r


def _hex_points(x: float, y: float) -> str:
    corners = []
    for k in range(6):
        angle = math.pi / 180 * (60 * k - 30)
        corners.append(f"{_f(x + SIZE * .97 * math.cos(angle))},{_f(y + SIZE * .97 * math.sin(angle))}")
    return " ".join(corners)


def _marks(view: dict[str, Any], arriving: bool = True) -> dict[str, set[int]]:
    """The cells the opponents' last turns covered (`last`) and those placed in the newest event (`arrive`), from
    the view's `last_moves` (per seat its latest turn's effects); without it, the last placement if another
    seat's."""
    you, n = view.get("you"), view.get("n")
    last: set[int] = set()
    arrive: set[int] = set()
    moves = view.get("last_moves")
    if isinstance(moves, list):
        for seat, entry in enumerate(moves):
            if not isinstance(entry, dict):
                continue
            cells = {cell for effect in _placed_effects(entry) for cell in effect[1]}
            if seat != you:
                last |= cells
            if arriving and entry.get("n") == n:
                arrive |= cells
    else:
        placed = (_board(view).get("gelegt") or [None])[-1]
        if isinstance(placed, dict) and placed.get("sitz") != you:
            last = {int(c) for c in placed.get("felder") or [] if isinstance(c, int)}
    return {"last": last, "arrive": arrive}


def _placed_effects(entry: dict[str, Any]) -> list[tuple[list[str], list[int], dict[str, int]]]:
    """The placements in a `last_moves` entry: (colours, cells, points per colour)."""
    found = []
    for effect in entry.get("effects") or []:
        if not (isinstance(effect, dict) and effect.get("key") == "speednova.legen"):
            continue
        params = effect.get("params") or {}
        cells = [int(c) for c in params.get("felder") or [] if isinstance(c, int)]
        colours = [str(c) for c in params.get("stein") or []]
        points = {str(k): int(v) for k, v in (params.get("punkte") or {}).items() if isinstance(v, int)}
        found.append((colours, cells, points))
    return found


def _map(view: dict[str, Any], choice: dict[str, Any], marks: dict[str, Any]) -> Markup:
    board = _board(view)
    karte = board.get("karte") or {}
    coords = _coords(board)
    stars = list(karte.get("sterne") or [])
    leit = {entry.get("feld"): entry for entry in karte.get("leitsterne") or [] if isinstance(entry, dict)}
    starts = set(karte.get("startfelder") or [])
    last_cells, arriving = marks.get("last") or set(), marks.get("arrive") or set()
    ghosts: dict[int, str] = marks.get("ghost") or {}
    scoring: set[int] = marks.get("scoring") or set()
    mine = _my_turn(view)
    kept_free = {entry.get("feld"): entry for entry in ((board.get("du") or {}).get("signale") or [])
                 if isinstance(entry, dict) and entry.get("signal") == "frei"}
    radius = int(karte.get("radius") or 5)
    extent_x, extent_y = SIZE * SQRT3 * (radius + .5) + 1, SIZE * (1.5 * radius + 1) + 1
    cells = []
    for cell, (q, r) in enumerate(coords):
        x, y = _centre(q, r)
        colour = stars[cell] if cell < len(stars) else None
        classes = ["cell"]
        words = [f"Feld {cell}"]
        if colour:
            classes.append(f"nova-c-{colour}" if colour in COLOURS else "nova-c-x")
            words.append(_named(board, str(colour)))
        elif cell in ghosts:
            classes.append(f"ghost nova-c-{ghosts[cell]}" if ghosts[cell] in COLOURS else "ghost nova-c-x")
            words.append(f"{_named(board, ghosts[cell])} käme hierher")
        else:
            classes.append("free")
            words.append("frei")
        if cell in leit:
            classes.append("leit")
            words.append("Leitstern" + (", begonnen" if leit[cell].get("begonnen") else ""))
        if cell in last_cells:
            classes.append("last")
            words.append("zuletzt gelegt")
        if cell in arriving:
            classes.append("arrive")
        if cell in (marks.get("target") or set()):
            classes.append("target")
            words.append("hier")
        if cell in scoring and cell not in ghosts:
            classes.append("scoring")
            words.append("zählt mit")
        if cell in starts and mine and not colour and cell not in ghosts:
            classes.append("start")
            words.append("Startfeld")
        if cell in kept_free:
            classes.append("keep")
            words.append(f"frei halten ({_seat(view, kept_free[cell].get('sitz'))})")
        action, extra = choice.get("cells", {}).get(cell, (None, ""))
        if action is not None:
            classes.append("pick")
            if extra:
                words.append(extra)
        body = Markup('<polygon points="{}"/>').format(_hex_points(x, y))
        if colour:
            body += _shape(str(colour), x, y, SIZE * .62)
        elif cell in ghosts:
            body += _shape(ghosts[cell], x, y, SIZE * .62)
        if cell in leit:
            body += Markup('<circle class="leit-ring" cx="{}" cy="{}" r="{}"/>').format(_f(x), _f(y), _f(SIZE * .8))
        if cell in kept_free:  # the signal's text names the cell: its number stands on it
            body += Markup('<text class="keep-mark" x="{}" y="{}">F</text><text class="cell-no" x="{}" y="{}">{}'
                           '</text>').format(_f(x), _f(y + 1), _f(x), _f(y + 7.5), cell)
        elif cell in ghosts or cell in (marks.get("target") or set()):
            # the move's words name its cells ("Komet auf Feld 45", "Feld 60 frei halten"): the numbers stand there
            body += Markup('<text class="cell-no" x="{}" y="{}">{}</text>').format(_f(x), _f(y + 7.5), cell)
        if choice.get("first") is not None and choice.get("feld") == cell:
            body += _shape(choice["first"], x, y, SIZE * .62)
            classes.append("chosen nova-c-" + choice["first"])
        if action is not None:
            cells.append(Markup('<g class="{}" role="button" tabindex="0" aria-label="{}" {}>{}</g>').format(
                " ".join(classes), ", ".join(words), action, body))
        else:
            cells.append(Markup('<g class="{}" role="img" aria-label="{}">{}</g>').format(
                " ".join(classes), ", ".join(words), body))
    label = f"Sternenkarte, {len(coords)} Felder, {karte.get('freie_felder', '?')} frei"
    return Markup('<svg class="nova-map" viewBox="{} {} {} {}" role="group" aria-label="{}">{}</svg>').format(
        _f(-extent_x), _f(-extent_y), _f(2 * extent_x), _f(2 * extent_y), label, Markup("").join(cells))


# ---- the parts around the map -----------------------------------------------------------------------------------

def _my_turn(view: dict[str, Any]) -> bool:
    return view.get("you") is not None and view.get("you") in (view.get("to_move") or [])


def _phase_line(view: dict[str, Any]) -> Markup:
    """The end, a Supernova's bonus placements and the end warning (whose turn it is and what to do says the
    page's banner from `prompt`)."""
    board = _board(view)
    lines = []
    if view.get("status") == "ended" or board.get("phase") == "ende":
        ends = {"voll": "Die Karte ist voll.", "sofort": "Eine Tafel hat alle sechs Farben oben: Sieg sofort.",
                "steine": "Niemand hat mehr Doppelsterne."}
        lines.append(Markup('<p class="nova-note">Ende. {}</p>').format(ends.get(board.get("ende") or "", "")))
    bonus = board.get("bonuszuege") or 0
    if bonus and board.get("phase") != "ende":
        lines.append(Markup('<p class="nova-note supernova" role="status">✶ Supernova: {} noch {} '
                            'Bonus-Legung{}.</p>').format(
            "du hast" if _my_turn(view) else _seat(view, board.get("am_zug")) + " hat", bonus,
            "en" if bonus != 1 else ""))
    karte = board.get("karte") or {}
    if karte.get("endwarnung") and board.get("phase") != "ende":
        fit = karte.get("passen_noch", "?")
        lines.append(Markup('<p class="nova-note warning" role="status">Endwarnung: nur noch {} {} auf die Karte.'
                            '</p>').format(fit, "Doppelstern passt" if fit == 1 else "Doppelsterne passen"))
    return Markup("").join(lines)


def _tile_svg(board: dict[str, Any], first: str, second: str, weakest: bool = False) -> Markup:
    """A double star as on the map: two hexes side by side, each in its colour with its shape; the rule book's red
    dot where it holds a weakest colour."""
    dx = SIZE * SQRT3 / 2
    halves = Markup("").join(
        Markup('<g class="half nova-c-{}"><polygon points="{}"/>{}</g>').format(
            colour if colour in COLOURS else "x", _hex_points(x, 0), _shape(colour, x, 0, SIZE * .62))
        for colour, x in ((first, -dx), (second, dx)))
    dot = Markup('<circle class="weak-dot" cx="{}" cy="-7" r="2.6"/>').format(_f(2 * dx - 2)) if weakest else ""
    return Markup('<svg class="nova-tile" viewBox="{} -10.5 {} 21" aria-hidden="true" focusable="false">{}{}</svg>'
                  ).format(_f(-2 * dx - .5), _f(4 * dx + 1), halves, dot)


def _rack(view: dict[str, Any], choice: dict[str, Any]) -> Markup:
    board = _board(view)
    own = board.get("du")
    if not isinstance(own, dict):
        return Markup("")
    legal_tiles = {tuple(sorted((a, b), key=_order)) for _c, a, _p, b, _m in _placements(view)}
    chosen = choice.get("tile")
    items = []
    seen: set[tuple[str, str]] = set()
    for entry in own.get("bank") or []:
        tile = tuple(str(c) for c in (entry.get("stein") or [])[:2])
        if len(tile) != 2:
            continue
        a, b = tile
        words = f"{_named(board, a)} / {_named(board, b)}"
        hints = []
        if entry.get("schwaechste"):
            hints.append("hat eine schwächste Farbe")
        best = entry.get("bester_platz")
        short = ""
        if isinstance(best, dict) and best.get("punkte") is not None:
            hints.append(f"bestenfalls {best['punkte']} Punkt{'' if best['punkte'] == 1 else 'e'}")
            short = f"bis {best['punkte']} Punkt{'' if best['punkte'] == 1 else 'e'}"
        label = f"Doppelstern {words}" + (f", {', '.join(hints)}" if hints else "")
        face = _tile_svg(board, a, b, bool(entry.get("schwaechste")))
        hint = Markup('<span class="tile-hint" aria-hidden="true">{}</span>').format(short) if short else Markup("")
        if tile in legal_tiles:  # a second tile alike is laid alike: a button too (the first one shows chosen)
            pressed = chosen is not None and tuple(sorted(chosen, key=_order)) == tile and tile not in seen
            seen.add(tile)
            items.append(Markup('<li><button type="button" class="tile{}" aria-pressed="{}" aria-label="{}" {}>'
                                '{}{}</button></li>').format(
                " chosen" if pressed else "", "true" if pressed else "false", label,
                _choose(view, stein=f"{a}.{b}"), face, hint))
        else:
            items.append(Markup('<li><span class="tile" role="img" aria-label="{}">{}{}</span></li>').format(
                label, face, hint))
    if not items:
        items.append(Markup('<li class="empty">keine Doppelsterne</li>'))
    return Markup('<section class="nova-rack" aria-labelledby="nova-rack-h"><h3 id="nova-rack-h">Deine Bank</h3>'
                  '<ul>{}</ul>{}</section>').format(Markup("").join(items), _choice_panel(view, choice))


def _order(colour: str) -> int:
    return COLOURS.index(colour) if colour in COLOURS else 99


def _choice_panel(view: dict[str, Any], choice: dict[str, Any]) -> Markup:
    """What the chosen tile needs next, in words, with "Drehen" and "Abbrechen"."""
    board = _board(view)
    if choice.get("mode") == "frei":
        return Markup('<div class="nova-choice dock" role="status"><p>Feld frei halten: klicke ein freies Feld.</p>'
                      '<button type="button" class="cancel" {}>Abbrechen</button></div>').format(_choose(view))
    if choice.get("tile") is None:
        return Markup("")
    first, second = choice["tile"]
    buttons = Markup("")
    if first != second:
        buttons += Markup('<button type="button" class="turn-tile" {}>Drehen ({} zuerst)</button>').format(
            _choose(view, stein=f"{second}.{first}"), _name(board, second))
    buttons += Markup('<button type="button" class="cancel" {}>Abbrechen</button>').format(_choose(view))
    if choice.get("feld") is None:
        text = Markup("Wähle das Feld für {} (grün markiert).").format(_named(board, first))
    else:
        text = Markup("{} liegt: wähle das Nachbarfeld für {} (grün markiert).").format(
            _named(board, first), _named(board, second))
    return Markup('<div class="nova-choice dock" role="status"><p>{} {}</p><div class="nova-choice-buttons">{}</div>'
                  '</div>').format(_tile_svg(board, first, second), text, buttons)


def _tracks(view: dict[str, Any], own: bool) -> Markup:
    """The viewer's own track (`own`) or every other one."""
    board = _board(view)
    top = int(board.get("oben") or 18)
    marks = [int(x) for x in board.get("supernova_bei") or []]
    parts = []
    mine = None
    for player in board.get("spieler") or []:
        if player.get("sitz") == view.get("you"):
            mine = player.get("tafel")
    for index, track in enumerate(board.get("tafeln") or []):
        if (index == mine) != own:
            continue
        seats = track.get("sitze") or []
        who = " + ".join(_seat(view, s) for s in seats) or f"Tafel {index + 1}"
        weakest = set(track.get("schwaechste") or [])
        rows = []
        for colour in COLOURS:
            value = int((track.get("werte") or {}).get(colour, 0))
            steps = Markup("").join(
                Markup('<span class="step{}{}"></span>').format(" on" if k <= value else "",
                                                                 " nova-mark" if k in marks else "")
                for k in range(1, top + 1))
            notes = []
            if colour in weakest:
                notes.append("schwächste")
            if any(value >= m for m in marks):
                notes.append("Supernova erreicht")
            if value >= top:
                notes.append("oben")
            said = f"{_named(board, colour)}: {value} von {top}" + (f", {', '.join(notes)}" if notes else "")
            novas = sum(1 for m in marks if value >= m)
            star = Markup('<span class="nova-sn" aria-hidden="true">{}</span>').format("✶" * novas) if novas \
                else Markup("")
            rows.append(Markup('<li class="track nova-c-{}{}" aria-label="{}"><span class="track-name">{}{}</span>'
                               '<span class="steps nova-top-{}">{}</span><span class="track-value">{}{}</span></li>')
                        .format(colour, " weakest" if colour in weakest else "",
                                said,
                                _star_icon(colour, board), _name(board, colour), top, steps, star, value))
        heading = who + (" – deine Tafel" if index == mine else "")
        parts.append(Markup('<section class="nova-track" aria-label="Tafel {}"><h3>{}</h3><ul>{}</ul></section>')
                     .format(who, heading, Markup("").join(rows)))
    if not parts:
        return Markup("")
    return Markup('<div class="nova-tracks{}">{}</div>').format(" own" if own else "", Markup("").join(parts))


def _swap(view: dict[str, Any]) -> Markup:
    board = _board(view)
    offers = [m for m in view.get("legal_moves") or [] if isinstance(m, dict) and "tauschen" in m]
    if board.get("phase") != "tauschen" or not offers:
        return Markup("")
    buttons = Markup("").join(
        Markup('<button type="button" class="move-board" {}>{}</button>').format(
            _post(view, move), "Ja, alle tauschen" if move["tauschen"] else "Nein, behalten")
        for move in sorted(offers, key=lambda m: not m["tauschen"]))
    return Markup('<section class="nova-swap" aria-labelledby="nova-swap-h"><h3 id="nova-swap-h">Tauschangebot'
                  '</h3><p>Kein Doppelstern deiner Bank hat eine deiner schwächsten Farben. Alle Doppelsterne '
                  'in den Beutel zurück und neu ziehen?</p>{}</section>').format(buttons)


def _signals(view: dict[str, Any]) -> Markup:
    board = _board(view)
    own = board.get("du")
    if not board.get("teams") or not isinstance(own, dict):
        return Markup("")
    shown = []
    for entry in own.get("signale") or []:
        if isinstance(entry, dict):
            who = "du" if entry.get("sitz") == view.get("you") else _seat(view, entry.get("sitz"))
            icon = _star_icon(str(entry["farbe"]), board) if entry.get("farbe") else Markup("")
            shown.append(Markup('<li class="signal{}">{}{}: {}</li>').format(
                " partner" if who != "du" else "", icon, who, entry.get("text", "")))
    for entry in own.get("signale_erloschen") or []:
        if isinstance(entry, dict):
            gone = _named_text(view, str(entry.get("text", "")))
            shown.append(Markup('<li class="signal gone">{}</li>').format(gone))
    listing = Markup('<ul class="signal-list">{}</ul>').format(Markup("").join(shown)) if shown else \
        Markup('<p class="muted">Keine Signale.</p>')
    team_log = view.get("team_log")
    last = ""
    if isinstance(team_log, dict):
        texts = [phrase(e, view) or _named_text(view, str(e["text"])) for e in team_log.get("last_effects") or []
                 if isinstance(e, dict) and e.get("text")]
        last = " ".join(str(t) for t in texts)
    last_line = Markup('<p class="signal-last">Zuletzt: {}</p>').format(last) if last else Markup("")
    moves = [m for m in view.get("legal_moves") or [] if isinstance(m, dict) and "signal" in m]
    buttons = []
    for kind in ("viel", "brauche"):
        row = [m for m in moves if m.get("signal") == kind]
        if row:
            buttons.append(Markup('<div class="signal-row"><span class="signal-kind">{}:</span>{}</div>').format(
                SIGNAL_WORDS[kind], Markup("").join(
                    Markup('<button type="button" class="signal-btn" aria-label="{}" {}>{}{}</button>').format(
                        move_label(m, view), _post(view, m), _star_icon(str(m.get("farbe")), board),
                        _name(board, str(m.get("farbe")))) for m in row)))
    extra = Markup("")
    if any(m.get("signal") == "frei" for m in moves):
        extra += Markup('<button type="button" class="signal-btn" {}>Feld frei halten …</button>').format(
            _choose(view, modus="frei"))
    for m in moves:
        if m.get("signal") == "zuruecknehmen":
            extra += Markup('<button type="button" class="signal-btn" {}>Zurücknehmen</button>').format(_post(view, m))
    controls = Markup('<div class="signal-controls">{}<div class="signal-row">{}</div></div>').format(
        Markup("").join(buttons), extra) if moves else Markup("")
    return Markup('<section class="nova-signals" aria-labelledby="nova-sig-h"><h3 id="nova-sig-h">Team-Signale '
                  '(nur dein Team sieht sie)</h3>{}{}{}</section>').format(listing, last_line, controls)


def _legend(board: dict[str, Any]) -> Markup:
    items = Markup("").join(Markup("<li>{}{}</li>").format(_star_icon(c, board), _named(board, c)) for c in COLOURS)
    return Markup('<ul class="nova-legend" aria-label="Farben und Formen">{}</ul>').format(items)


def _facts(view: dict[str, Any]) -> Markup:
    board = _board(view)
    karte = board.get("karte") or {}
    racks = ", ".join(f"{_seat(view, p.get('sitz'))}: {p.get('steine', 0)}" for p in board.get("spieler") or [])
    return Markup('<p class="nova-facts">Beutel: {} · frei: {} Felder · passen noch: {} · Bänke: {}</p>').format(
        board.get("beutel", "?"), karte.get("freie_felder", "?"), karte.get("passen_noch", "?"), racks)


# ---- choosing a placement -------------------------------------------------------------------------------------

def _parse_choice(view: dict[str, Any], params: dict[str, str]) -> dict[str, Any]:
    """The state of a choice from the query (`stein=a.b`, `feld=c`, `modus=frei`), checked against the view:
    anything the legal moves do not allow is dropped (the board then shows the plain state)."""
    choice: dict[str, Any] = {"cells": {}, "tile": None, "feld": None, "first": None}
    if params.get("modus") == "frei":
        frees = {m.get("feld"): m for m in view.get("legal_moves") or []
                 if isinstance(m, dict) and m.get("signal") == "frei"}
        if frees:
            choice["mode"] = "frei"
            choice["cells"] = {cell: (_post(view, move), "frei halten wählen") for cell, move in frees.items()}
        return choice
    tile = str(params.get("stein") or "").split(".")
    if len(tile) != 2 or not all(c in COLOURS for c in tile):
        return choice
    first, second = tile
    targets = _targets(view, first, second)
    if not targets:
        return choice
    choice["tile"] = (first, second)
    cell_text = str(params.get("feld") or "")
    cell = int(cell_text) if cell_text.isdigit() else None
    if cell is not None and cell in targets:
        choice["feld"] = cell
        choice["first"] = first
        neighbours = _neighbour_table(_board(view))[cell]
        cells: dict[int, tuple[Markup, str]] = {}
        for partner, move in sorted(targets[cell].items()):
            direction = neighbours.index(partner)
            cells[partner] = (_post(view, move), f"{_name(_board(view), second)} hierher ({DIRECTION_WORDS[direction]}"
                                                 f" von Feld {cell}), Vorschau")
        cells[cell] = (_choose(view, stein=f"{first}.{second}"), "gewählt, zurück zur Feldwahl")
        choice["cells"] = cells
    else:
        choice["cells"] = {c: (_choose(view, stein=f"{first}.{second}", feld=c),
                               f"{_name(_board(view), first)} hierher legen") for c in sorted(targets)}
    return choice


# ---- the contract -----------------------------------------------------------------------------------------------

def render(view: dict[str, Any]) -> Markup:
    return render_choice(view, {})


def render_choice(view: dict[str, Any], params: dict[str, str]) -> Markup:
    """The board in a state of a choice (the shell's `GET /spiel/{id}/brett?…`); `render` is the plain state."""
    choice = _parse_choice(view, params) if _may_choose(view) else {"cells": {}, "tile": None}
    return _draw(view, choice, _marks(view, arriving=not params))


ZOOM = Markup('<label class="nova-zoom"><input type="checkbox" id="nova-zoom" hx-preserve="true"> Karte vergrößern'
              '</label>')
"""On a phone (only there is it shown) the map at twice the width in its own scrolling box, so each cell is a
target of 44 px even on the 169 cells of four players (the rule book's zoom); kept across redraws (hx-preserve)."""


def _draw(view: dict[str, Any], choice: dict[str, Any], marks: dict[str, Any], extra: str = "") -> Markup:
    """The map first (at the board's top), beside it on a desktop (below it on a phone) the notes, the swap offer,
    the rack and the own track; then the team's signals, the other tracks and the facts."""
    board = _board(view)
    size = len(_coords(board))
    return Markup('<div class="board nova nova-{}{}" data-cells="{}" data-n="{}"><div class="nova-main">'
                  '<div class="nova-left"><div class="nova-mapbox">{}</div>{}</div>'
                  '<div class="nova-right">{}{}{}{}{}{}{}</div>{}</div></div>').format(
        size, extra, size, view.get("n", ""), _map(view, choice, marks), ZOOM,
        _phase_line(view), _swap(view), _rack(view, choice), _tracks(view, own=True), _signals(view),
        _tracks(view, own=False), _facts(view), _legend(board))


def _may_choose(view: dict[str, Any]) -> bool:
    you = view.get("you")
    return you is not None and (you in (view.get("to_move") or []) or you in (view.get("may_act") or []))


def listed_move(move: Any, view: dict[str, Any]) -> bool:
    """Whether the shell lists `move` among the move buttons: placements and signals are made on the board (a
    list of hundreds of placements helps nobody); the swap offer stays listed as well."""
    return not (isinstance(move, dict) and ("stein" in move or "signal" in move))


def move_label(move: dict[str, Any], view: dict[str, Any]) -> str:
    board = _board(view)
    if not isinstance(move, dict):
        return str(move)
    if "tauschen" in move:
        return "Tauschen: ja, alle Doppelsterne tauschen" if move["tauschen"] else "Tauschen: nein, behalten"
    if "signal" in move:
        kind = move.get("signal")
        if kind in SIGNAL_WORDS:
            return f"Signal: {SIGNAL_WORDS[kind]} {_name(board, str(move.get('farbe')))}"
        if kind == "frei":
            return f"Signal: Feld {move.get('feld')} frei halten"
        if kind == "zuruecknehmen":
            return "Signal: Zurücknehmen"
        return f"Signal: {kind}"
    stein = move.get("stein")
    if isinstance(stein, list) and len(stein) == 2:
        cell, direction = move.get("feld"), move.get("richtung")
        partner = None
        neighbours = _neighbour_table(board)
        if isinstance(cell, int) and isinstance(direction, int) and 0 <= cell < len(neighbours) \
                and 0 <= direction < 6:
            partner = neighbours[cell][direction]
        return (f"{_name(board, str(stein[0]))} auf Feld {cell}, {_name(board, str(stein[1]))} auf Feld "
                f"{partner if partner is not None else '?'}")
    return json.dumps(move, ensure_ascii=False)


# ---- what the board declares for the game page (docs/services/web.md) -----------------------------------------



def _named_text(view: dict[str, Any], text: str) -> str:
    """A recorded text with "Platz 2" (a seat, in the rule module's words) replaced by the seat's name."""
    return named(text, view)


def _points(value: int) -> str:
    return f"{value} Punkt" if abs(value) == 1 else f"{value} Punkte"


def _weakest(view: dict[str, Any], seat: Any) -> tuple[str, int] | None:
    """A seat's weakest colour (the first in colour order among equals) and its value: what the game ranks by."""
    board = _board(view)
    players = {p.get("sitz"): p for p in board.get("spieler") or [] if isinstance(p, dict)}
    tracks = board.get("tafeln") or []
    index = (players.get(seat) or {}).get("tafel")
    if not isinstance(index, int) or not 0 <= index < len(tracks):
        return None
    values = {colour: int((tracks[index].get("werte") or {}).get(colour, 0)) for colour in COLOURS}
    low = min(values.values())
    return next(colour for colour in COLOURS if values[colour] == low), low


def prompt(view: dict[str, Any]) -> str | None:
    """What to do now, in the game's words, while the viewer has to decide (a signal alone is no turn)."""
    if not _my_turn(view) or view.get("status") == "ended":
        return None
    board = _board(view)
    if board.get("phase") == "tauschen":
        return "Kein Doppelstern deiner Bank hat deine schwächste Farbe: tausche alle oder behalte sie"
    if board.get("bonuszuege"):
        return "Supernova! Lege einen Bonusstein: wähle ihn in deiner Bank, dann zwei freie Nachbarfelder"
    return "Lege einen Doppelstern: wähle ihn in deiner Bank, dann zwei freie Nachbarfelder"


def seat_scores(view: dict[str, Any]) -> list[str | None]:
    """Per seat the value the game ranks by: its (team's) weakest colour, "schwächste: Riese 4"."""
    result: list[str | None] = []
    board = _board(view)
    for seat in range(len(view.get("seats") or [])):
        weakest = _weakest(view, seat)
        result.append(None if weakest is None else f"schwächste: {_name(board, weakest[0])} {weakest[1]}")
    return result


def last_move_lines(view: dict[str, Any]) -> list[str]:
    """One line per opponent with a last turn: "Computer 1: Komet–Nebel (Komet +3 · Nebel +1), Supernova Komet"."""
    board = _board(view)
    lines = []
    for seat, entry in enumerate(view.get("last_moves") or []):
        if seat == view.get("you") or not isinstance(entry, dict):
            continue
        parts = []
        for effect in entry.get("effects") or []:
            if not isinstance(effect, dict):
                continue
            key, params = effect.get("key"), effect.get("params") or {}
            if key == "speednova.legen":
                colours = [_name(board, str(c)) for c in params.get("stein") or []]
                points = {str(k): v for k, v in (params.get("punkte") or {}).items() if isinstance(v, int) and v}
                gain = " · ".join(f"{_name(board, c)} +{v}" for c, v in points.items()) or "keine Punkte"
                parts.append(f"{'–'.join(colours)} ({gain})")
            elif key == "speednova.supernova":
                parts.append(f"Supernova {_name(board, str(params.get('farbe')))}")
            elif key == "speednova.tauschen":
                parts.append("tauscht die ganze Bank")
            elif key == "speednova.behalten":
                parts.append("behält die Bank")
        if parts:
            lines.append(f"{_seat(view, seat)}: {', '.join(parts)}")
    return lines


def preview_line(move: Any, preview: Any, view: dict[str, Any]) -> str:
    """The move's gain in one line: "+5 Punkte: Komet +3, Nebel +2", the weakest colour, a Supernova, lost points."""
    board = _board(view)
    body = preview_body(preview)
    if isinstance(move, dict) and move.get("zurueck"):  # "Zurück": the platform's undo, not a move of the game
        return "Deinen letzten Zug zurücknehmen"
    if isinstance(move, dict) and "tauschen" in move:
        count = len((board.get("du") or {}).get("bank") or [])
        if not move["tauschen"]:
            return "Du behältst deine Bank."
        return ("Du legst deinen Doppelstern zurück in den Beutel und ziehst einen neuen." if count == 1 else
                f"Du legst alle {count} Doppelsterne zurück in den Beutel und ziehst neue.")
    if isinstance(move, dict) and "signal" in move:
        text = (body.get("text") or {}).get("text") if isinstance(body.get("text"), dict) else None
        return str(text) if text else move_label(move, view)
    points = {str(k): int(v) for k, v in (body.get("punkte") or {}).items() if isinstance(v, int)}
    raw = {str(k): int(v) for k, v in (body.get("roh") or {}).items() if isinstance(v, int)}
    total = sum(points.values())
    shown = [f"{_name(board, c)} +{v}" for c, v in points.items() if v]
    line = f"+{_points(total)}: {', '.join(shown)}" if total else "Keine Punkte"
    lost = [f"{_name(board, c)} {v - points.get(c, 0)}" for c, v in raw.items() if v > points.get(c, 0)]
    if lost:
        line += f" ({'verfällt' if len(lost) == 1 and raw else 'verfallen'}: {', '.join(lost)} über der Spitze)"
    weakest = _weakest(view, view.get("you"))
    if weakest is not None and points.get(weakest[0]):
        line += f"; hebt deine schwächste Farbe {_name(board, weakest[0])} auf {weakest[1] + points[weakest[0]]}"
    for nova in body.get("supernova") or []:
        if isinstance(nova, dict):
            line += f"; Supernova {_name(board, str(nova.get('farbe')))}: du legst sofort noch einen Stein"
    if body.get("sechserlinie"):
        line += "; eine Sechserlinie"
    return line


def render_ghost(view: dict[str, Any], move: Any, preview: Any) -> Markup:
    """The board with the move on it: the double star's two halves as ghosts on their cells (with the cells'
    numbers, which the move's words name), the cells of the lines it scores marked."""
    if isinstance(move, dict) and move.get("signal") == "frei" and isinstance(move.get("feld"), int):
        return _draw(view, {"cells": {}, "tile": None}, {**_marks(view, arriving=False), "target": {move["feld"]}},
                     " ghosted")
    if not (isinstance(move, dict) and isinstance(move.get("stein"), list) and len(move["stein"]) == 2):
        return render(view)
    neighbours = _neighbour_table(_board(view))
    cell, direction = move.get("feld"), move.get("richtung")
    if not (isinstance(cell, int) and isinstance(direction, int) and 0 <= cell < len(neighbours)
            and 0 <= direction < 6 and neighbours[cell][direction] is not None):
        return render(view)
    partner = neighbours[cell][direction]
    assert partner is not None
    ghost = {cell: str(move["stein"][0]), partner: str(move["stein"][1])}
    scoring = set()
    for half in preview_body(preview).get("haelften") or []:
        for line in (half.get("linien") or []) if isinstance(half, dict) else []:
            scoring |= {int(c) for c in line.get("felder") or [] if isinstance(c, int)}
    marks = {**_marks(view, arriving=False), "ghost": ghost, "scoring": scoring}
    return _draw(view, {"cells": {}, "tile": None}, marks, " ghosted")


def phrase(effect: Any, view: dict[str, Any]) -> str | None:
    """The board's German for a recorded effect that reads wrong: seats by name (the rule module writes "Platz 2"),
    numbers that agree ("1 Doppelstern passt", "den 1 Stein"); None where the recorded text is right."""
    if not isinstance(effect, dict) or not isinstance(effect.get("text"), str):
        return None
    key, params, text = str(effect.get("key")), effect.get("params") or {}, str(effect["text"])
    fixed = text
    if key == "speednova.endwarnung" and params.get("passen_noch") == 1:
        fixed = ("Nur noch etwa eine Runde: 1 Doppelstern passt noch auf die Karte. Jetzt ist die letzte "
                 "Gelegenheit, die schwächste Farbe zu retten.")
    elif key == "speednova.tauschen" and params.get("anzahl") == 1:
        fixed = (f"Platz {params.get('platz')} legt den letzten Stein der Bank zurück in den Beutel und zieht "
                 "einen neuen.")
    elif key == "speednova.tausch_vorschau" and "alle 1 Steine" in text:
        fixed = "Du legst deinen Stein zurück in den Beutel und ziehst einen neuen."
    fixed = _named_text(view, fixed)
    return None if fixed == text else fixed


THUMB_STARS = {0: "komet", 1: "komet", 2: "nebel", 5: "riese", 6: "riese", 7: "pulsar", 9: "quasar", 12: "zwerg",
               13: "zwerg", 15: "nebel", 16: "quasar", 18: "pulsar"}
THUMB_FILLS = {"komet": "#f28e2b", "nebel": "#b07cc6", "riese": "#e15759", "zwerg": "#edc948", "pulsar": "#4e9ad8",
               "quasar": "#59a14f"}


def thumbnail() -> Markup:
    """A small Speednova map (19 cells) in the board's style: dark sky, stars in their colours and shapes."""
    coords = [(q, r) for r in range(-2, 3) for q in range(-2, 3) if -2 <= q + r <= 2]
    cells = []
    for index, (q, r) in enumerate(coords):
        x, y = _centre(q, r)
        colour = THUMB_STARS.get(index)
        fill = THUMB_FILLS.get(colour or "", "#eef1f6")
        shape = Markup('<g fill="{}" stroke="#111" stroke-width="1.1" stroke-linecap="round">{}</g>').format(
            "#111" if colour == "zwerg" else "none", _shape(colour, x, y, SIZE * .62)) if colour else Markup("")
        cells.append(Markup('<polygon points="{}" fill="{}" stroke="#10162b" stroke-width=".6"/>{}').format(
            _hex_points(x, y), fill, shape))
    return Markup('<svg class="thumb thumb-speednova" viewBox="-46 -41 92 82" role="img" '
                  'aria-label="Speednova: eine Sternenkarte aus Sechsecken"><rect x="-46" y="-41" width="92" '
                  'height="82" rx="6" fill="#10162b"/>{}</svg>').format(Markup("").join(cells))
