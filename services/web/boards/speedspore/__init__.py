"""Speedspore's board: the island as inline SVG (19 hexes with kind and number, corners with Fruchtkörper and
Sporentürme, edges with threads, the Gullys, the mold) and beside it the seat's hand, the others' counts, dice,
victory points, „Was geht?“, the trade panel, the discard form, the yield table and the turn summaries.

Reads only the view JSON (`board` is the rule module's view for this seat, `board.anzeige` its German texts,
docs/rules/speedspore-screens.md). Legal moves that name a place are drawn on the island as SVG elements with
`role="button"` carrying the move in `hx-vals` (posting to the preview route as the generic buttons do):
corners for Fruchtkörper and Türme, edges for threads, hexes for the mold. Pieces are told apart without
colour: each seat has its own shape (circle, square, triangle, diamond) with its seat number inside, its
threads their own dash pattern; a Sporenturm is the shape drawn large with a „T“. Field kinds carry their
name and a pattern, 6 and 8 are bold with a ring; every field its letter A–S, by which the words name places.

For the game page's shell (docs/services/web.md): the words (`prompt`, `seat_scores`, `last_move_lines`,
`phrase`, `preview_line`, in `words.py`), the opponents' last turn marked on the island (`last`, `arrive`),
`render_ghost`, `thumbnail` and `render_choice`: choices of several cards (discard, offers, counter-offers,
supply trades) made by clicking cards, each click a server-drawn state of that panel.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from markupsafe import Markup

from services.web.boards import generic
from services.web.boards.speedspore.geometry import (
    CORNER_POINTS,
    EDGE_CORNERS,
    FIELD_CENTRES,
    FIELD_CORNERS,
    FIELD_LETTERS,
    RADIUS,
    corner_fields,
    corner_name,
    edge_name,
    fmt,
    point,
)
from services.web.boards.speedspore.words import (
    CARD_NAMES,
    FIELD_SHORT,
    KIND_NAMES,
    KINDS,
    count,
    field_words,
    last_move_lines,
    name,
    names_for_seats,
    phrase,
    preview_line,
    prompt,
    seat_scores,
)

__all__ = ["last_move_lines", "listed_move", "move_label", "phrase", "preview_line", "prompt", "render",
           "render_choice", "render_ghost", "seat_scores", "thumbnail"]

FIELD_NAMES = {"park": "Verwilderter Park", "deponie": "Alte Deponie", "stadion": "Moosstadion",
               "klaerwerk": "Klärwerk", "ruine": "Hochhausruine", "autobahnkreuz": "Autobahnkreuz"}
FIELD_YIELDS = {"park": "Totholz", "deponie": "Humus", "stadion": "Moos", "klaerwerk": "Regenwasser",
                "ruine": "Mineralien", "autobahnkreuz": "nichts"}
SHAPES = ("Kreis", "Quadrat", "Dreieck", "Raute")
"""Per seat the shape of its pieces (with its seat number inside), so nothing depends on colour."""
THREAD_WORDS = ("durchgezogen", "gestrichelt", "gepunktet", "strichpunktiert")
DICE_FACES = ("", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅")
PHASE_WORDS = {"gruendung": "Gründung", "wurf": "Würfeln", "haupt": "Handeln und Bauen", "abwerfen": "Abwerfen",
               "schimmel": "Schimmel versetzen", "wuchsschub": "Wuchsschub", "ende": "Ende"}

_EMPTY = Markup("")


# ---- words -----------------------------------------------------------------------------------------------------

def _bundle_words(bundle: Any) -> str:
    if not isinstance(bundle, dict) or not bundle:
        return "nichts"
    return ", ".join(f"{count} {KIND_NAMES.get(str(kind), str(kind))}" for kind, count in bundle.items())


def _seat_words(view: dict[str, Any], seat: Any) -> str:
    return name(view, seat)


def _corner_fields(board: dict[str, Any], corner: int) -> str:
    fields = board.get("felder") or []
    names = []
    for field in corner_fields(corner) if isinstance(corner, int) and 0 <= corner < len(CORNER_POINTS) else ():
        if field < len(fields):
            kind = str(fields[field].get("art"))
            number = fields[field].get("zahl")
            names.append(f"{FIELD_SHORT.get(kind, kind)} {number}" if number else FIELD_SHORT.get(kind, kind))
    return ", ".join(names)


def _corner_words(corner: Any) -> str:
    return corner_name(corner) if isinstance(corner, int) and 0 <= corner < len(CORNER_POINTS) else f"Ecke {corner}"


def _edge_words(edge: Any) -> str:
    return edge_name(edge) if isinstance(edge, int) and 0 <= edge < len(EDGE_CORNERS) else f"Kante {edge}"


def _trades_words(trades: Any, board: dict[str, Any]) -> str:
    if not isinstance(trades, list) or not trades:
        return ""
    rates = ((board.get("du") or {}).get("kurse") or {})
    words = []
    for trade in trades:
        if isinstance(trade, dict):
            give, take = str(trade.get("gib")), str(trade.get("nimm"))
            words.append(f"{rates.get(give, '?')} {KIND_NAMES.get(give, give)} gegen 1 {KIND_NAMES.get(take, take)}")
    return " (mit Tausch: " + "; ".join(words) + ")"


def move_label(move: dict[str, Any], view: dict[str, Any]) -> str:
    """A legal move in German words; two different legal moves never share them."""
    board: dict[str, Any] = view["board"] if isinstance(view.get("board"), dict) else {}
    if not isinstance(move, dict):
        return generic.move_label(move, view)
    trades = _trades_words(move.get("tausch"), board)
    if "fruchtkoerper" in move:
        corner = move["fruchtkoerper"]
        return f"Fruchtkörper auf {_corner_words(corner)} ({_corner_fields(board, corner)}){trades}"
    if "turm" in move:
        corner = move["turm"]
        return f"Sporenturm auf {_corner_words(corner)} ({_corner_fields(board, corner)}){trades}"
    if "faden" in move:
        return f"Myzelfaden auf {_edge_words(move['faden'])}{trades}"
    if "mutation" in move:
        return f"Mutation kaufen{trades}"
    if "wuerfeln" in move:
        return "Würfeln"
    if "ausspielen" in move:
        card = CARD_NAMES.get(str(move["ausspielen"]), str(move["ausspielen"]))
        if "rohstoffe" in move:
            chosen = " und ".join(KIND_NAMES.get(str(k), str(k)) for k in move.get("rohstoffe") or [])
            return f"{card} ausspielen: {chosen or 'nichts'}"
        if "rohstoff" in move:
            return f"{card} ausspielen: alle {KIND_NAMES.get(str(move['rohstoff']), str(move['rohstoff']))}"
        return f"{card} ausspielen"
    if "vorrat" in move and isinstance(move["vorrat"], dict):
        give, take = str(move["vorrat"].get("gib")), str(move["vorrat"].get("nimm"))
        rate = ((board.get("du") or {}).get("kurse") or {}).get(give, "?")
        return f"Tausch mit dem Vorrat: {rate} {KIND_NAMES.get(give, give)} gegen 1 {KIND_NAMES.get(take, take)}"
    if "angebot" in move and isinstance(move["angebot"], dict):
        offer = move["angebot"]
        return f"Angebot an alle: gib {_bundle_words(offer.get('gib'))}, nimm {_bundle_words(offer.get('nimm'))}"
    if "gegenangebot" in move and isinstance(move["gegenangebot"], dict):
        offer = move["gegenangebot"]
        return f"Gegenangebot: gib {_bundle_words(offer.get('gib'))}, nimm {_bundle_words(offer.get('nimm'))}"
    if "handeln" in move:
        return f"Handeln mit {_seat_words(view, move['handeln'])}"
    if "zurueckziehen" in move:
        return "Angebot zurückziehen"
    if "zug_beenden" in move:
        return "Zug beenden"
    if "antwort" in move:
        return {"ja": "Angebot annehmen (ja)", "nein": "Angebot ablehnen (nein)"}.get(str(move["antwort"]),
                                                                                  f"Antwort {move['antwort']}")
    if "abwerfen" in move:
        return f"Abwerfen: {_bundle_words(move['abwerfen'])}"
    if "schimmel" in move:
        words = f"Schimmel auf {field_words(board, move['schimmel'])}"
        if "opfer" in move:
            words += f", nimmt {_seat_words(view, move['opfer'])} eine Karte"
        return words
    if "verzichten" in move:
        return "Auf weitere Gratis-Fäden verzichten"
    if "zurueck" in move:
        return "Zurück"
    return generic.move_label(move, view)


def listed_move(move: Any, view: dict[str, Any]) -> bool:
    """Whether the page's own move list shows this move: no, the board offers every move itself (places on the
    island, buttons in its panels, the discard as a form), so the long list does not push the island away."""
    return False


# ---- buttons ---------------------------------------------------------------------------------------------------

def _vals(view: dict[str, Any], move: Any) -> str:
    return json.dumps({"move": json.dumps(move, separators=(",", ":"), ensure_ascii=False), "n": view.get("n")},
                      ensure_ascii=False)


def _button(view: dict[str, Any], move: Any, text: str | None = None, cls: str = "move") -> Markup:
    return Markup('<button type="button" class="{}" hx-post="/spiel/{}/vorschau" hx-target="#preview" '
                  "hx-vals='{}'>{}</button>").format(cls, view.get("game_id", ""), _vals(view, move),
                                                     text or move_label(move, view))


def _hit(view: dict[str, Any], move: Any, cls: str, label: str, inner: Markup) -> Markup:
    """A place on the island that makes a move when clicked (or Enter/Space: static/web.js)."""
    return Markup('<g class="hit {}" role="button" tabindex="0" aria-label="{}" hx-post="/spiel/{}/vorschau" '
                  "hx-target=\"#preview\" hx-vals='{}'>{}</g>").format(cls, label, view.get("game_id", ""),
                                                                      _vals(view, move), inner)


# ---- the island ------------------------------------------------------------------------------------------------

_DEFS = Markup(
    '<defs>'
    '<pattern id="sp-park" width="12" height="12" patternUnits="userSpaceOnUse">'
    '<path d="M6 2l3 6h-6z" class="pat"/></pattern>'
    '<pattern id="sp-deponie" width="8" height="8" patternUnits="userSpaceOnUse">'
    '<path d="M0 8L8 0" class="pat"/></pattern>'
    '<pattern id="sp-stadion" width="10" height="10" patternUnits="userSpaceOnUse">'
    '<circle cx="5" cy="5" r="1.6" class="pat"/></pattern>'
    '<pattern id="sp-klaerwerk" width="14" height="8" patternUnits="userSpaceOnUse">'
    '<path d="M0 4q3.5-4 7 0t7 0" class="pat"/></pattern>'
    '<pattern id="sp-ruine" width="10" height="10" patternUnits="userSpaceOnUse">'
    '<path d="M0 0h10v10" class="pat"/></pattern>'
    '<pattern id="sp-autobahnkreuz" width="12" height="12" patternUnits="userSpaceOnUse">'
    '<path d="M2 2l8 8M10 2l-8 8" class="pat"/></pattern>'
    '</defs>')


def _shape(seat: int, x: float, y: float, size: float) -> Markup:
    """The seat's piece shape centred at (x, y)."""
    kind = seat % 4
    s = size
    if kind == 0:
        return Markup('<circle cx="{}" cy="{}" r="{}"/>').format(fmt(x), fmt(y), fmt(s))
    if kind == 1:
        return Markup('<rect x="{}" y="{}" width="{}" height="{}"/>').format(fmt(x - s * .9), fmt(y - s * .9),
                                                                          fmt(s * 1.8), fmt(s * 1.8))
    if kind == 2:
        return Markup('<path d="M{} {}L{} {}L{} {}Z"/>').format(fmt(x), fmt(y - s * 1.2), fmt(x + s * 1.15),
                                                              fmt(y + s * .8), fmt(x - s * 1.15), fmt(y + s * .8))
    return Markup('<path d="M{} {}L{} {}L{} {}L{} {}Z"/>').format(fmt(x), fmt(y - s * 1.25), fmt(x + s * 1.15), fmt(y),
                                                               fmt(x), fmt(y + s * 1.25), fmt(x - s * 1.15), fmt(y))


def _piece(seat: int, level: int, x: float, y: float, extra: str = "") -> Markup:
    size = 12.0 if level >= 2 else 8.5
    text = f"{seat + 1}T" if level >= 2 else str(seat + 1)
    return Markup('<g class="piece p{} {}{}">{}<text x="{}" y="{}">{}</text></g>').format(
        seat % 4, "tower" if level >= 2 else "fk", extra, _shape(seat, x, y, size), fmt(x), fmt(y + 4), text)


def _hexagon(field: int) -> str:
    return " ".join(f"{fmt(x)},{fmt(y)}" for x, y in (point(CORNER_POINTS[c]) for c in FIELD_CORNERS[field]))


def _pips(number: int) -> str:
    return "•" * max(0, 6 - abs(7 - number)) if number else ""


def _effects_of(view: dict[str, Any], seat: int) -> tuple[int, list[dict[str, Any]]]:
    entries = view.get("last_moves") or []
    entry = entries[seat] if isinstance(entries, list) and seat < len(entries) else None
    if not isinstance(entry, dict):
        return -1, []
    number = int(entry["n"]) if isinstance(entry.get("n"), int) else -1
    return number, [e for e in entry.get("effects") or [] if isinstance(e, dict) and isinstance(e.get("params"), dict)]


def _marks(view: dict[str, Any], board: dict[str, Any]) -> dict[str, set[int]]:
    """What the opponents' last turns changed on the island (from the view's `last_moves`): corners and edges
    built, the field the mold went to, the fields of the latest opponent's roll. The viewer's own turn is not
    marked."""
    marks: dict[str, set[int]] = {"corners": set(), "edges": set(), "mold": set(), "rolled": set(), "new": set(),
                                  "mold_by": set()}
    you = view.get("you")
    latest_roll, latest_n = None, -1
    own_n, _ = _effects_of(view, you) if isinstance(you, int) else (-1, [])
    for seat in range(len(view.get("seats") or [])):
        if seat == you:
            continue
        number, effects = _effects_of(view, seat)
        if number > own_n:  # came after the viewer's own last move: those pieces arrive (once the viewer has
            marks["new"].add(seat)  # moved since, a redraw does not animate them again)
        for effect in effects:
            key = str(effect.get("key", "")).removeprefix("speedspore.")
            params = effect["params"]
            if params.get("platz", seat) != seat:
                continue
            if key in ("bau.fruchtkoerper", "bau.turm", "gruendung.fruchtkoerper") and isinstance(params.get("ecke"),
                                                                                                 int):
                marks["corners"].add(params["ecke"])
            elif key in ("bau.faden", "gruendung.faden", "gratis_faden") and isinstance(params.get("kante"), int):
                marks["edges"].add(params["kante"])
            elif key == "schimmel" and isinstance(params.get("feld"), int):
                marks["mold"].add(params["feld"])
                marks["mold_by"].add(seat)
            elif key == "wurf" and isinstance(params.get("summe"), int) and number > latest_n:
                latest_roll, latest_n = params["summe"], number
    if latest_roll is not None and latest_roll != 7 and latest_n > own_n:
        marks["rolled"] = {field for field, data in enumerate(board.get("felder") or [])
                           if isinstance(data, dict) and data.get("zahl") == latest_roll}
    return marks


def _mark(fresh: bool, seat: Any, marks: dict[str, set[int]]) -> str:
    """The classes of a part an opponent's last turn changed: `last`, and `arrive` (the fade-in) while that turn
    came after the viewer's own last move (`seat` None: any opponent's)."""
    if not fresh:
        return ""
    arriving = bool(marks["new"]) if seat is None else seat in marks["new"]
    return " last arrive" if arriving else " last"


def _ghost_places(view: dict[str, Any], ghost: Any) -> dict[str, int]:
    """Where a move to preview puts something on the island."""
    if not isinstance(ghost, dict):
        return {}
    return {key: ghost[key] for key in ("fruchtkoerper", "turm", "faden", "schimmel")
            if isinstance(ghost.get(key), int)}


def _island(view: dict[str, Any], board: dict[str, Any], moves: list[Any], ghost: Any = None) -> Markup:
    fields = board.get("felder") or []
    corners = board.get("ecken") or []
    edges = board.get("kanten") or []
    mold = board.get("schimmel")
    marks = _marks(view, board)
    ghosts = _ghost_places(view, ghost)
    you = int(view["you"]) if isinstance(view.get("you"), int) else 0
    corner_moves: dict[int, Any] = {}
    edge_moves: dict[int, Any] = {}
    field_moves: dict[int, Any] = {}
    for move in moves:
        if not isinstance(move, dict):
            continue
        for key, target in (("fruchtkoerper", corner_moves), ("turm", corner_moves), ("faden", edge_moves),
                            ("schimmel", field_moves)):
            place = move.get(key)
            if isinstance(place, int) and place not in target:
                target[place] = move
    out: list[Markup] = [_DEFS]
    # the sea with the Gullys
    for gully_index, gully in enumerate(board.get("gullys") or []):
        pair = gully.get("ecken") or []
        if len(pair) != 2 or not all(isinstance(c, int) and 0 <= c < len(CORNER_POINTS) for c in pair):
            continue
        (ax, ay), (bx, by) = point(CORNER_POINTS[pair[0]]), point(CORNER_POINTS[pair[1]])
        mx, my = (ax + bx) / 2, (ay + by) / 2
        length = max(1.0, (mx * mx + my * my) ** .5)
        gx, gy = mx + mx / length * 30, my + my / length * 30
        kind = str(gully.get("art"))
        rate = "3:1" if kind == "3:1" else "2:1"
        word = "alle" if kind == "3:1" else KIND_NAMES.get(kind, kind)
        shown = ((board.get("anzeige") or {}).get("gullys") or [])
        text = (_text(shown[gully_index].get("text"), view) if gully_index < len(shown)
                else f"Gully: {word} {rate}")
        out.append(Markup(
            '<g class="gully" role="img" aria-label="{}"><path d="M{} {}L{} {}L{} {}" class="dock"/>'
            '<rect x="{}" y="{}" width="58" height="26" rx="5"/><text x="{}" y="{}">{}</text>'
            '<text x="{}" y="{}" class="small">{}</text></g>').format(
            text, fmt(ax), fmt(ay), fmt(gx), fmt(gy), fmt(bx), fmt(by), fmt(gx - 29), fmt(gy - 13), fmt(gx),
            fmt(gy - 1), rate, fmt(gx), fmt(gy + 10), word))
    # the hexes
    for field, data in enumerate(fields[:len(FIELD_CENTRES)]):
        kind = str(data.get("art"))
        number = int(data.get("zahl") or 0)
        cx, cy = point(FIELD_CENTRES[field])
        hot = number in (6, 8)
        label = (f"Feld {FIELD_LETTERS[field]}: {FIELD_NAMES.get(kind, kind)}, Zahl {number or 'keine'}, "
                 f"bringt {FIELD_YIELDS.get(kind, '?')}")
        if field == mold:
            label += ", mit Schimmel" + (" (zuletzt hierher versetzt)" if field in marks["mold"] else "")
        if field in marks["rolled"]:
            label += ", zuletzt gewürfelt"
        token = _EMPTY
        if number:
            token = Markup('<circle cx="{0}" cy="{1}" r="13" class="token{2}"/><text x="{0}" y="{3}" '
                           'class="num{2}">{4}</text><text x="{0}" y="{5}" class="pips">{6}</text>').format(
                fmt(cx), fmt(cy + 4), " hot" if hot else "", fmt(cy + 8.5), number, fmt(cy + 22), _pips(number))
        mold_mark = _EMPTY
        if field == mold:
            moved = _mark(field in marks["mold"], min(marks["mold_by"], default=None), marks)
            mold_mark = Markup('<g class="mold{3}"><circle cx="{0}" cy="{1}" r="11"/><text x="{0}" y="{2}">S</text>'
                               '</g>').format(fmt(cx + 24), fmt(cy + 4), fmt(cy + 8), moved)
        if ghosts.get("schimmel") == field:
            mold_mark += Markup('<g class="mold ghost"><circle cx="{0}" cy="{1}" r="11"/><text x="{0}" y="{2}">S'
                                '</text></g>').format(fmt(cx + 24), fmt(cy + 4), fmt(cy + 8))
        hex_class = " last" if field in marks["rolled"] else ""
        hex_class += " target" if ghosts.get("schimmel") == field else ""
        inner = Markup('<polygon points="{0}" class="hex k-{1}{7}"/><polygon points="{0}" class="pat-{1}" '
                       'fill="url(#sp-{1})"/><text x="{2}" y="{3}" class="kind">{4}</text>'
                       '<text x="{8}" y="{9}" class="letter">{10}</text>{5}{6}').format(
            _hexagon(field), kind if kind in FIELD_NAMES else "x", fmt(cx), fmt(cy - 18),
            FIELD_SHORT.get(kind, kind), token, mold_mark, hex_class, fmt(cx - 25), fmt(cy + 4),
            FIELD_LETTERS[field])
        if field in field_moves:
            out.append(_hit(view, field_moves[field], "field", f"{label} – Schimmel hierher: "
                            + move_label(field_moves[field], view), inner))
        else:
            out.append(Markup('<g class="field" role="img" aria-label="{}">{}</g>').format(label, inner))
    # threads and places for threads
    for edge, (a, b) in enumerate(EDGE_CORNERS):
        (ax, ay), (bx, by) = point(CORNER_POINTS[a]), point(CORNER_POINTS[b])
        owner = edges[edge] if edge < len(edges) else -1
        line = Markup('<line x1="{}" y1="{}" x2="{}" y2="{}"/>').format(fmt(ax), fmt(ay), fmt(bx), fmt(by))
        if isinstance(owner, int) and owner >= 0:
            fresh = edge in marks["edges"]
            out.append(Markup('<g class="thread p{}{}" role="img" aria-label="{}: Faden von {}, {}{}">{}</g>')
                       .format(owner % 4, _mark(fresh, owner, marks), edge_name(edge), _seat_words(view, owner),
                               THREAD_WORDS[owner % 4], ", zuletzt gebaut" if fresh else "", line))
        elif ghosts.get("faden") == edge:
            out.append(Markup('<g class="thread p{} ghost" aria-hidden="true">{}</g>').format(you % 4, line))
        elif edge in edge_moves:
            handle = Markup('<circle cx="{0}" cy="{1}" r="12" class="pad"/><circle cx="{0}" cy="{1}" r="6" '
                            'class="spot"/>').format(fmt((ax + bx) / 2), fmt((ay + by) / 2))
            out.append(_hit(view, edge_moves[edge], "edge", f"{edge_name(edge)} – {move_label(edge_moves[edge], view)}",
                            line + handle))
    # buildings and places for buildings
    for corner, (x, y) in enumerate(point(c) for c in CORNER_POINTS):
        owner, level = (corners[corner] + [0, 0])[:2] if corner < len(corners) else (-1, 0)
        piece = _EMPTY
        label = corner_name(corner)
        fresh = corner in marks["corners"]
        if isinstance(owner, int) and owner >= 0:
            piece = _piece(owner, int(level), x, y, _mark(fresh, owner, marks))
            what = "Sporenturm" if level >= 2 else "Fruchtkörper"
            label += f": {what} von {_seat_words(view, owner)} ({SHAPES[owner % 4]})"
            if fresh:
                label += ", zuletzt gebaut"
        if ghosts.get("fruchtkoerper") == corner or ghosts.get("turm") == corner:
            piece = _piece(you, 2 if "turm" in ghosts else 1, x, y, " ghost")
            out.append(Markup('<g aria-hidden="true">{}</g>').format(piece))
        elif corner in corner_moves:
            out.append(_hit(view, corner_moves[corner], "corner",
                            f"{label} – {move_label(corner_moves[corner], view)}",
                            Markup('<circle cx="{0}" cy="{1}" r="18" class="pad"/><circle cx="{0}" cy="{1}" r="11" '
                                   'class="spot"/>{2}').format(fmt(x), fmt(y), piece)))
        elif piece:
            out.append(Markup('<g role="img" aria-label="{}">{}</g>').format(label, piece))
    extent = RADIUS * 5.9
    box = f"{fmt(-extent)} {fmt(-RADIUS * 5.1)} {fmt(extent * 2)} {fmt(RADIUS * 10.2)}"
    return Markup('<svg class="island" viewBox="{}" role="group" aria-label="Die Insel: 19 Felder (A bis S), Gullys, '
                  'Gebäude und Fäden">{}</svg>').format(box, Markup("").join(out))


# ---- the panels ------------------------------------------------------------------------------------------------

def _text(value: Any, view: dict[str, Any]) -> str:
    """A German phrase from the view, with seats named by their names (the rule module writes "Platz 2")."""
    text = generic.scalar(value.get("text")) if isinstance(value, dict) and "text" in value else generic.scalar(value)
    return names_for_seats(text, view)


def _mini_shape(seat: int) -> Markup:
    return Markup('<svg class="mini" viewBox="-14 -14 28 28" aria-hidden="true"><g class="piece p{} fk">{}'
                  '<text x="0" y="4">{}</text></g></svg>').format(seat % 4, _shape(seat, 0, 0, 10), seat + 1)


def _status(view: dict[str, Any], board: dict[str, Any], shown: dict[str, Any], moves: list[Any]) -> Markup:
    """One compact bar above the island: the phase, the dice and the quick moves (roll, end the turn …)."""
    dice = board.get("wuerfel") or []
    dice_text = _EMPTY
    if len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        dice_text = Markup('<span class="dice" aria-label="Würfel: {0} und {1}, zusammen {2}">'
                           '<span aria-hidden="true">{3} {4}</span> <strong>{2}</strong></span>').format(
            dice[0], dice[1], dice[0] + dice[1], DICE_FACES[dice[0]], DICE_FACES[dice[1]])
    quick = [m for m in moves if isinstance(m, dict) and
             ({"wuerfeln", "zug_beenden", "verzichten"} & set(m) or ("ausspielen" in m and len(m) == 1))]
    return Markup('<section class="part spore-status" aria-label="Stand"><p class="phase">{}</p>{}'
                  '<div class="move-list">{}</div></section>').format(
        _text(shown.get("phase"), view), dice_text, Markup("").join(_button(view, m) for m in quick))


def _players(view: dict[str, Any], board: dict[str, Any], shown: dict[str, Any]) -> Markup:
    points = shown.get("siegpunkte") or []
    pieces = shown.get("reststeine") or []
    rows = []
    for seat, player in enumerate(board.get("spieler") or []):
        score = points[seat] if seat < len(points) else {}
        specials = []
        if board.get("weitestes_geflecht") == seat:
            specials.append("Weitestes Geflecht")
        if board.get("groesste_sporenwolke") == seat:
            specials.append("Größte Sporenwolke")
        played = ", ".join(CARD_NAMES.get(str(c), str(c)) for c in player.get("ausgespielt") or []) or "–"
        hidden = " + verdeckte Funde?" if score.get("funde_verdeckt") else ""
        details = Markup("").join(Markup("<li>{}</li>").format(_text(line, view))
                                  for line in score.get("zeilen") or [])
        rest = pieces[seat] if seat < len(pieces) else {}
        discard = player.get("abwerfen") or 0
        rows.append(Markup(
            '<tr class="{}"><th scope="row">{} {} <small>({}, Fäden {})</small></th><td><strong>{}</strong>{}'
            '<details><summary>Rechenweg</summary><ul>{}</ul></details></td><td>{}</td><td>{}</td><td>{}</td>'
            '<td>{}</td><td>{}</td></tr>').format(
            "me" if seat == view.get("you") else "", _mini_shape(seat), _seat_words(view, seat), SHAPES[seat % 4],
            THREAD_WORDS[seat % 4], score.get("punkte", player.get("punkte")), hidden, details,
            player.get("karten", 0), player.get("mutationen", 0), played,
            f"{rest.get('faeden', '?')} Fäden, {rest.get('fruchtkoerper', '?')} Fruchtkörper, "
            f"{rest.get('tuerme', '?')} Türme",
            ", ".join(specials + ([f"muss {discard} abwerfen"] if discard else [])) or "–"))
    settings = board.get("einstellungen") or {}
    return Markup('<section class="part" aria-label="Spieler"><h3>Spieler</h3><p>Ziel: {} Siegpunkte · Vorrat: {} · '
                  'Mutationsstapel: {}</p><div class="scroll"><table>'
                  '<thead><tr><th scope="col">Wer</th><th scope="col">Siegpunkte</th><th scope="col">Karten</th>'
                  '<th scope="col">Mutationen</th><th scope="col">Ausgespielt</th><th scope="col">Reststeine</th>'
                  '<th scope="col">Sonderkarten</th></tr></thead><tbody>{}</tbody></table></div></section>').format(
        settings.get("siegpunkte", "?"),
        ", ".join(f"{KIND_NAMES[k]} {n}" for k, n in zip(KINDS, board.get("vorrat") or [], strict=False)),
        board.get("mutationsstapel", "?"), Markup("").join(rows))


def _hand(view: dict[str, Any], board: dict[str, Any], moves: list[Any], after: Any = None) -> Markup:
    mine = board.get("du")
    if not isinstance(mine, dict):
        return _EMPTY
    hand = mine.get("hand") or {}
    cards = Markup("").join(Markup('<li class="res r-{}"><strong>{}</strong> {}</li>').format(
        kind, int(hand.get(kind, 0)), KIND_NAMES[kind]) for kind in KINDS)
    ghost = _EMPTY
    if isinstance(after, dict):
        ghost = Markup('<p class="ghost">Danach: {}</p>').format(
            ", ".join(f"{int(after.get(kind, 0))} {KIND_NAMES[kind]}" for kind in KINDS))
    bought = list(mine.get("gekauft") or [])
    mutations = []
    for card in mine.get("mutationen") or []:
        note = ""
        if card in bought:
            bought.remove(card)
            note = " (in diesem Zug gekauft)"
        elif card in ("bibliothek", "kathedrale", "u-bahnhof", "museum", "rathaus"):
            note = " (Fund: 1 Siegpunkt, verdeckt)"
        mutations.append(Markup("<li>{}{}</li>").format(CARD_NAMES.get(str(card), str(card)), note))
    plays = [m for m in moves if isinstance(m, dict) and "ausspielen" in m and len(m) > 1]
    rates = mine.get("kurse") or {}
    return Markup('<section class="part spore-hand" aria-label="Deine Hand"><h3>Deine Hand</h3>'
                  '<ul class="hand">{}</ul>{}<p>Mutationen: {}</p>{}<div class="move-list">{}</div>'
                  '<p class="rates">Tauschkurse mit dem Vorrat: {}</p></section>').format(
        cards, ghost, len(mine.get("mutationen") or []),
        Markup('<ul>{}</ul>').format(Markup("").join(mutations)) if mutations else _EMPTY,
        Markup("").join(_button(view, m) for m in plays),
        ", ".join(f"{KIND_NAMES[k]} {rates.get(k, '?')}:1" for k in KINDS))


def _what_goes(view: dict[str, Any], shown: dict[str, Any], moves: list[Any]) -> Markup:
    entries = shown.get("was_geht")
    if not entries:
        return _EMPTY
    buy = [m for m in moves if isinstance(m, dict) and "mutation" in m]
    rows = []
    for entry in entries:
        status = str(entry.get("status"))
        title = str(entry.get("name", ""))
        words = _text(entry.get("text"), view)
        words = words[len(title) + 1:].strip() if words.startswith(title + ":") else words
        if status == "baubar" and entry.get("bau") != "mutation":
            words += " – auf der Insel wählen"
        rows.append(Markup('<li class="goes {}"><strong>{}</strong>: {}</li>').format(status, title, words))
    return Markup('<section class="part" aria-label="Was geht?"><h3>Was geht?</h3><ul class="goes">{}</ul>'
                  '<div class="move-list">{}</div></section>').format(
        Markup("").join(rows), Markup("").join(_button(view, m) for m in buy))


# ---- choices of several cards: each card a button that redraws the choice (render_choice) ---------------------

CHOICES = ("abwerfen", "angebot", "gegenangebot", "vorrat")
MAX_WANTED = 9
"""How many cards of one kind an offer may ask for on the board (the rules allow more; nobody holds that many)."""


def _counts(query: dict[str, str], side: str, limit: dict[str, int] | None) -> dict[str, int]:
    """The cards chosen so far on one side (`gib.humus=2`), each within what may be chosen."""
    chosen = {}
    for kind in KINDS:
        text = query.get(f"{side}.{kind}", "")
        top = MAX_WANTED if limit is None else int(limit.get(kind, 0) or 0)
        if text.isdigit() and 0 < int(text) <= top:
            chosen[kind] = int(text)
    return chosen


def _choice_url(view: dict[str, Any], choice: str, give: dict[str, int], take: dict[str, int]) -> str:
    query = [("wahl", choice)] + [(f"gib.{k}", str(n)) for k, n in give.items() if n > 0] + \
        [(f"nimm.{k}", str(n)) for k, n in take.items() if n > 0]
    return f"/spiel/{view.get('game_id', '')}/brett?{urlencode(query)}"


def _card(view: dict[str, Any], ident: str, url: str, kind: str, chosen: bool, label: str, text: str) -> Markup:
    return Markup('<button type="button" class="card r-{}{}" aria-pressed="{}" aria-label="{}" hx-get="{}" '
                  'hx-target="#{}" hx-select="#{}" hx-swap="outerHTML">{}</button>').format(
        kind, " on" if chosen else "", "true" if chosen else "false", label, url, ident, ident, text)


def _side(view: dict[str, Any], ident: str, choice: str, side: str, give: dict[str, int], take: dict[str, int],
          hand: dict[str, int] | None) -> Markup:
    """One side of a choice: a card per resource in hand (or, for what is wanted, the chosen ones and a „+“ per
    kind); a click on a free card adds it, on a chosen card takes it back."""
    mine = give if side == "gib" else take
    rows = []
    for kind in KINDS:
        have = MAX_WANTED if hand is None else int(hand.get(kind, 0) or 0)
        chosen = mine.get(kind, 0)
        cards = []
        shown = have if hand is not None else min(have, chosen + 1)
        for index in range(shown):
            is_chosen = index < chosen
            counts = dict(mine)
            counts[kind] = chosen - 1 if is_chosen else chosen + 1
            url = _choice_url(view, choice, counts if side == "gib" else give, counts if side == "nimm" else take)
            what = KIND_NAMES[kind]
            if hand is None and not is_chosen:
                text, label = f"+ {what}", f"1 {what} mehr verlangen ({chosen} gewählt)"
            else:
                text = what
                label = f"{what}: {'zurücknehmen' if is_chosen else 'wählen'} ({chosen} von {have} gewählt)"
            cards.append(_card(view, ident, url, kind, is_chosen, label, text))
        if cards:
            rows.append(Markup('<div class="cards" role="group" aria-label="{}">{}</div>').format(
                KIND_NAMES[kind], Markup("").join(cards)))
    return Markup("").join(rows)


def _chosen_move(choice: str, give: dict[str, int], take: dict[str, int]) -> dict[str, Any]:
    if choice == "abwerfen":
        return {"abwerfen": dict(give)}
    return {choice: {"gib": dict(give), "nimm": dict(take)}}


def _choice_panel(view: dict[str, Any], board: dict[str, Any], moves: list[Any], choice: str,
                  query: dict[str, str] | None) -> Markup:
    """A discard, an offer or a counter-offer made by clicking cards, with the count shown and the complete move
    sent to the preview (a wrong count gets the rule's reason there). Drawn plainly (no query) it carries
    `hx-preserve`, so a live update keeps a choice half made; a redraw of the choice itself does not."""
    you = view.get("you")
    mine: dict[str, Any] = board["du"] if isinstance(board.get("du"), dict) else {}
    hand = {k: int(n) for k, n in (mine.get("hand") or {}).items() if isinstance(n, int)}
    wanted = {"abwerfen": ("abwerfen",), "angebot": ("angebot",), "gegenangebot": ("gegenangebot", "antwort")}
    if not any(isinstance(m, dict) and set(wanted[choice]) & set(m) for m in moves):
        return _EMPTY
    if choice == "gegenangebot" and not any(hand.values()):
        return _EMPTY
    offer: dict[str, Any] = board["angebot"] if isinstance(board.get("angebot"), dict) else {}
    ident = {"abwerfen": f"spore-discard-{board.get('wuerfe', 0)}",
             "angebot": f"spore-offer-{board.get('wuerfe', 0)}-{board.get('angebote', 0)}",
             "gegenangebot": f"spore-counter-{board.get('wuerfe', 0)}-{offer.get('nummer', 0)}"}[choice]
    asked = query or {}
    mine_now = query is not None and asked.get("wahl") == choice
    give = _counts(asked, "gib", hand) if mine_now else {}
    take = _counts(asked, "nimm", None) if mine_now and choice != "abwerfen" else {}
    total = sum(give.values())
    move = _chosen_move(choice, give, take)
    send = Markup('<button type="button" class="move send" hx-post="/spiel/{}/vorschau" hx-target="#preview" '
                  "hx-vals='{}'>{}</button>")
    vals = json.dumps({"move": json.dumps(move, separators=(",", ":"), ensure_ascii=False)}, ensure_ascii=False)
    preserve = Markup("") if mine_now else Markup(' hx-preserve="true"')
    if choice == "abwerfen":
        players = board.get("spieler") or []
        need = int(players[you].get("abwerfen", 0)) if isinstance(you, int) and you < len(players) else 0
        state = "erreicht" if total == need else ("zu viele" if total > need else "")
        tally = f"{total} von {need} gewählt" + (" ✓" if total == need else "")
        button = f"{count(total, 'Karte', 'Karten')} abwerfen" if total else "Abwerfen"
        return Markup('<section class="part spore-discard spore-choice dock" id="{}"{} aria-label="Abwerfen">'
                      '<h3>Abwerfen</h3><p>Du hast mehr als 7 Karten: wirf genau {} ab. Klicke die Karten an.</p>'
                      '{}<p class="tally {}" role="status">{}</p>{}</section>').format(
            ident, preserve, count(need, "Karte", "Karten"), _side(view, ident, choice, "gib", give, take, hand),
            state, tally, send.format(view.get("game_id", ""), vals, button))
    title = "Eigenes Angebot an alle" if choice == "angebot" else "Eigenes Gegenangebot"
    tally = (f"Du gibst {count(total, 'Karte', 'Karten')}, du willst "
             f"{count(sum(take.values()), 'Karte', 'Karten')}")
    button = "Angebot ansehen" if choice == "angebot" else "Gegenangebot ansehen"
    # Not a `dock` of its own: an offer is never pending (docked on a phone it hid the island for the whole
    # building phase); a counter-offer is drawn inside the answer's dock.
    return Markup('<section class="part spore-choice" id="{}"{} aria-label="{}"><h4>{}</h4>'
                  '<p class="side">Du gibst (klicke Karten deiner Hand):</p>{}'
                  '<p class="side">Du willst (klicke „+“):</p>{}<p class="tally" role="status">{}</p>{}</section>'
                  ).format(ident, preserve, title, title, _side(view, ident, choice, "gib", give, take, hand),
                           _side(view, ident, choice, "nimm", give, take, None), tally,
                           send.format(view.get("game_id", ""), vals, button))


def _supply(view: dict[str, Any], board: dict[str, Any], trades: list[Any], query: dict[str, str] | None) -> Markup:
    """Trades with the supply by clicking cards: the kind to give (as many cards as the rate asks, one button per
    kind the hand can pay), then the kind to take, which previews that legal move. The panel's id names the hand,
    so a half-made choice survives live updates but not a change of the hand."""
    if not trades:
        return _EMPTY
    mine: dict[str, Any] = board["du"] if isinstance(board.get("du"), dict) else {}
    hand = mine.get("hand") or {}
    rates = mine.get("kurse") or {}
    ident = f"spore-supply-{board.get('wuerfe', 0)}-" + "-".join(str(int(hand.get(k, 0) or 0)) for k in KINDS)
    asked = query or {}
    chosen = asked.get("gib") if asked.get("wahl") == "vorrat" else None
    gives = [k for k in KINDS if any(m["vorrat"].get("gib") == k for m in trades)]
    if chosen not in gives:
        chosen = None
    cards = []
    for kind in gives:
        on = kind == chosen
        url = _choice_url(view, "vorrat", {}, {}) + ("" if on else f"&gib={kind}")
        text = f"{rates.get(kind, '?')} {KIND_NAMES[kind]}"
        label = f"{text} geben{' – zurücknehmen' if on else ''}"
        cards.append(_card(view, ident, url, kind, on, label, text))
    takes = _EMPTY
    if chosen is not None:
        takes = Markup('<p class="side">… gegen 1 (klicke, was du willst):</p><div class="cards">{}</div>').format(
            Markup("").join(_button(view, m, f"1 {KIND_NAMES.get(str(m['vorrat'].get('nimm')), '')}",
                                    f"move card r-{m['vorrat'].get('nimm')}")
                            for m in trades if m["vorrat"].get("gib") == chosen))
    preserve = Markup("") if asked.get("wahl") == "vorrat" else Markup(' hx-preserve="true"')
    return Markup('<section class="spore-choice spore-supply" id="{}"{} aria-label="Mit dem Vorrat tauschen">'
                  '<h4>Mit dem Vorrat tauschen</h4><p class="side">Du gibst (klicke eine Sorte):</p>'
                  '<div class="cards">{}</div>{}</section>').format(ident, preserve, Markup("").join(cards), takes)


def _trade(view: dict[str, Any], board: dict[str, Any], shown: dict[str, Any], moves: list[Any],
           query: dict[str, str] | None) -> Markup:
    """The open offer with its answers and what the seat may do about it (in a `dock`: trade with one who
    accepted, withdraw, answer, counter by clicking cards), then the supply trades and the own offers."""
    status = _EMPTY
    offer = shown.get("angebot")
    if isinstance(offer, dict):
        answers = Markup("").join(Markup("<li>{}</li>").format(_text(a, view)) for a in offer.get("antworten") or [])
        status = Markup('<div class="offer" role="status"><p><strong>{}</strong></p><ul>{}</ul></div>').format(
            _text(offer, view), answers)
    kinds = ("handeln", "zurueckziehen", "antwort", "vorrat", "angebot")
    by_kind = {key: [m for m in moves if isinstance(m, dict) and key in m] for key in kinds}
    dock: list[Markup] = []
    for key, title in (("handeln", "Wer angenommen hat"), ("antwort", "Deine Antwort"), ("zurueckziehen", "")):
        if by_kind[key]:
            heading = Markup("<h4>{}</h4>").format(title) if title else _EMPTY
            dock.append(Markup('{}<div class="move-list">{}</div>').format(
                heading, Markup("").join(_button(view, m) for m in by_kind[key])))
    counter = _choice_panel(view, board, moves, "gegenangebot", query)
    parts: list[Markup] = []
    if by_kind["angebot"]:
        quick = []
        for move in by_kind["angebot"]:
            offer_terms = move["angebot"]
            quick.append(_button(view, move, f"{_bundle_words(offer_terms.get('gib'))} → "
                                             f"{_bundle_words(offer_terms.get('nimm'))}"))
        parts.append(Markup('<h4>Schnelle Angebote an alle (du gibst → du willst)</h4>'
                            '<div class="move-list spore-quick">{}</div>').format(Markup("").join(quick)))
    parts.append(_choice_panel(view, board, moves, "angebot", query))
    parts.append(_supply(view, board, by_kind["vorrat"], query))
    if not any(parts) and not dock and not counter and not status:
        return _EMPTY
    if dock or counter:
        status = Markup('<div class="spore-answer dock">{}{}{}</div>').format(status, Markup("").join(dock), counter)
    return Markup('<section class="part spore-trade" aria-label="Handel"><h3>Handel</h3>{}{}</section>').format(
        status, Markup("").join(parts))


def _mold_choices(view: dict[str, Any], moves: list[Any]) -> Markup:
    mold = [m for m in moves if isinstance(m, dict) and "schimmel" in m]
    fields = {m.get("schimmel") for m in mold}
    if len(mold) <= len(fields):
        return _EMPTY  # one move per field: the hexes are enough
    return Markup('<section class="part" aria-label="Schimmel"><h3>Schimmel versetzen und berauben</h3>'
                  '<p>Klicke ein Feld auf der Insel oder wähle hier, wen der Schimmel beraubt.</p>'
                  '<div class="move-list">{}</div></section>').format(Markup("").join(_button(view, m) for m in mold))


def _yields(view: dict[str, Any], shown: dict[str, Any]) -> Markup:
    table = shown.get("ertrag")
    if not isinstance(table, dict):
        return _EMPTY
    rows = Markup("").join(Markup("<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td></tr>").format(
        name(view, int(line.get("platz", 0))), "; ".join(_text(z, view) for z in line.get("zeilen") or []) or "nichts",
        line.get("summe", 0)) for line in table.get("spieler") or [])
    extra = [table.get("schimmel"), *(table.get("knapp") or []), *(table.get("teilweise") or [])]
    notes = Markup("").join(Markup("<li>{}</li>").format(_text(item, view)) for item in extra if item)
    body = _EMPTY
    if rows:
        body = Markup('<div class="scroll"><table><thead><tr><th scope="col">Wer</th><th scope="col">Woher</th>'
                      '<th scope="col">Karten</th></tr></thead><tbody>{}</tbody></table></div>').format(rows)
    return Markup('<section class="part" aria-label="Ertragstafel"><h3>Ertragstafel</h3><p>{}</p>{}{}</section>'
                  ).format(_text(table, view), body, Markup("<ul>{}</ul>").format(notes) if notes else _EMPTY)


def _summaries(view: dict[str, Any], shown: dict[str, Any]) -> Markup:
    cards = shown.get("zugkarten") or []
    if not cards:
        return _EMPTY
    items = Markup("").join(Markup('<li{}>{}{}</li>').format(
        Markup(' class="now"') if card.get("laeuft") else _EMPTY, _text(card, view),
        " (läuft)" if card.get("laeuft") else "") for card in cards)
    return Markup('<section class="part" aria-label="Zugkarten"><h3>Zugkarten</h3><ul>{}</ul></section>').format(items)


def _end(view: dict[str, Any], shown: dict[str, Any]) -> Markup:
    table = shown.get("endtafel")
    if not isinstance(table, dict):
        return _EMPTY
    rows = []
    for row in table.get("zeilen") or []:
        steps = ", ".join(f"{_text(step, view)} → {step.get('stand')}" for step in row.get("hochzaehlen") or [])
        rows.append(Markup("<li><strong>{}</strong>{}<br><small>{}</small></li>").format(
            _text(row, view), " – gewonnen" if row.get("gewonnen") else "", steps))
    return Markup('<section class="part" aria-label="Endtafel"><h3>Endtafel</h3><ol class="list">{}</ol>'
                  '</section>').format(Markup("").join(rows))


def _legend(view: dict[str, Any], board: dict[str, Any]) -> Markup:
    items = Markup("").join(Markup("<li>{} {}: {}, Fäden {}</li>").format(
        _mini_shape(seat), _seat_words(view, seat), SHAPES[seat % 4], THREAD_WORDS[seat % 4])
        for seat in range(int(board.get("plaetze") or len(view.get("seats") or []))))
    return Markup('<ul class="legend" aria-label="Wer welche Form hat">{}<li>Großes Zeichen mit T: Sporenturm · '
                  'S: Schimmel · fette Zahl im Ring: 6 oder 8 · A–S: die Felder · dick umrandet: zuletzt gebaut '
                  'oder gewürfelt</li></ul>').format(items)


ZOOM = Markup('<label class="spore-zoom"><input type="checkbox" id="spore-zoom" hx-preserve="true"> Insel vergrößern'
              '</label>')
"""On a phone (only there is it shown) the island at three times the width in its own scrolling box, so each
corner, edge and field to click is a target of at least 44 px (corners and edge midpoints are only half a hex side
apart); kept across redraws (hx-preserve)."""


def _render(view: dict[str, Any], query: dict[str, str] | None = None, ghost: Any = None,
            preview: Any = None) -> Markup:
    board = view.get("board")
    if not isinstance(board, dict) or not isinstance(board.get("felder"), list):
        return generic.render(view)
    shown: dict[str, Any] = board["anzeige"] if isinstance(board.get("anzeige"), dict) else {}
    moves = list(view.get("legal_moves") or [])
    after = preview.get("hand_nachher") if isinstance(preview, dict) else None
    data = Markup("")
    if ghost is not None:
        data = Markup(" data-ghost='{}'").format(json.dumps(ghost, separators=(",", ":"), ensure_ascii=False))
    return Markup('<div class="board spore"{}><div class="spore-map">{}<div class="spore-islandbox">{}</div>{}{}</div>'
                  '<div class="spore-side">{}{}{}{}{}{}{}{}{}</div></div>').format(
        data, _status(view, board, shown, moves), _island(view, board, moves, ghost), ZOOM, _legend(view, board),
        _end(view, shown), _choice_panel(view, board, moves, "abwerfen", query), _mold_choices(view, moves),
        _hand(view, board, moves, after), _trade(view, board, shown, moves, query), _what_goes(view, shown, moves),
        _players(view, board, shown), _yields(view, shown), _summaries(view, shown))


def render(view: dict[str, Any]) -> Markup:
    """The seat's Speedspore board: the island (SVG) and the panels beside it."""
    return _render(view)


def render_choice(view: dict[str, Any], query: dict[str, str]) -> Markup:
    """The board with a choice of cards half made (`?wahl=abwerfen&gib.humus=2`, `?wahl=angebot&gib.moos=1&nimm.
    humus=1`): the chosen cards marked, the count so far, the complete move on the button to the preview. A choice
    the view does not offer (any more) draws the plain board."""
    if query.get("wahl") not in CHOICES:
        return render(view)
    return _render(view, query)


def render_ghost(view: dict[str, Any], move: Any, preview: Any) -> Markup:
    """The board with the move shown on it: the piece or the mold as a ghost where it would go, the hand after
    trades and discards; the root carries the move (`data-ghost`)."""
    return _render(view, ghost=move if isinstance(move, dict) else {}, preview=preview)


# ---- the start page's picture ----------------------------------------------------------------------------------

_THUMB_FIELDS = ("ruine", "stadion", "park", "klaerwerk", "deponie", "stadion", "deponie", "klaerwerk", "park",
                 "autobahnkreuz", "park", "ruine", "park", "ruine", "klaerwerk", "stadion", "deponie", "klaerwerk",
                 "stadion")
_THUMB_NUMBERS = (10, 2, 9, 12, 6, 4, 10, 9, 11, 0, 3, 8, 8, 3, 4, 5, 5, 6, 11)
"""The Einsteiger island (docs/rules/speedspore.md)."""


def thumbnail() -> Markup:
    """A small picture of the island in the board's own style (the Einsteiger layout, a few pieces), inline SVG."""
    out: list[Markup] = []
    for field, kind in enumerate(_THUMB_FIELDS):
        cx, cy = point(FIELD_CENTRES[field])
        number = _THUMB_NUMBERS[field]
        token = _EMPTY
        if number:
            hot = " hot" if number in (6, 8) else ""
            token = Markup('<circle cx="{0}" cy="{1}" r="14" class="token{2}"/><text x="{0}" y="{3}" class="num{2}">'
                           '{4}</text>').format(fmt(cx), fmt(cy), hot, fmt(cy + 5), number)
        out.append(Markup('<polygon points="{}" class="hex k-{}"/>{}').format(_hexagon(field), kind, token))
    for edge, seat in ((20, 0), (21, 0), (50, 1), (51, 1)):
        a, b = EDGE_CORNERS[edge]
        (ax, ay), (bx, by) = point(CORNER_POINTS[a]), point(CORNER_POINTS[b])
        out.append(Markup('<g class="thread p{}"><line x1="{}" y1="{}" x2="{}" y2="{}"/></g>').format(
            seat, fmt(ax), fmt(ay), fmt(bx), fmt(by)))
    for corner, seat, size in ((EDGE_CORNERS[20][0], 0, 13.0), (EDGE_CORNERS[50][0], 1, 17.0)):
        x, y = point(CORNER_POINTS[corner])
        out.append(Markup('<g class="piece p{} fk">{}</g>').format(seat, _shape(seat, x, y, size)))
    extent = RADIUS * 5.2
    return Markup('<svg class="island thumb" viewBox="{0} {0} {1} {1}" role="img" aria-label="Speedspore: eine '
                  'Insel aus 19 Feldern mit Zahlen, Fruchtkörpern und Myzelfäden">{2}</svg>').format(
        fmt(-extent), fmt(extent * 2), Markup("").join(out))
