"""Speedspore's board: the island as inline SVG (19 hexes with kind and number, corners with Fruchtkörper and
Sporentürme, edges with threads, the Gullys, the mold) and beside it the seat's hand, the others' counts, dice,
victory points, „Was geht?“, the trade panel, the discard form, the yield table and the turn summaries.

Reads only the view JSON (`board` is the rule module's view for this seat, `board.anzeige` its German texts,
docs/rules/speedspore-screens.md). Legal moves that name a place are drawn on the island as SVG elements with
`role="button"` carrying the move in `hx-vals` (posting to the preview route as the generic buttons do):
corners for Fruchtkörper and Türme, edges for threads, hexes for the mold. Pieces are told apart without
colour: each seat has its own shape (circle, square, triangle, diamond) with its seat number inside, its
threads their own dash pattern; a Sporenturm is the shape drawn large with a „T“. Field kinds carry their
name and a pattern, 6 and 8 are bold with a ring.
"""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from services.web.boards import generic
from services.web.boards.speedspore.geometry import (
    CORNER_POINTS,
    EDGE_CORNERS,
    FIELD_CENTRES,
    FIELD_CORNERS,
    RADIUS,
    fmt,
    point,
)

KINDS = ("totholz", "humus", "moos", "regenwasser", "mineralien")
KIND_NAMES = {"totholz": "Totholz", "humus": "Humus", "moos": "Moos", "regenwasser": "Regenwasser",
              "mineralien": "Mineralien"}
FIELD_NAMES = {"park": "Verwilderter Park", "deponie": "Alte Deponie", "stadion": "Moosstadion",
               "klaerwerk": "Klärwerk", "ruine": "Hochhausruine", "autobahnkreuz": "Autobahnkreuz"}
FIELD_SHORT = {"park": "Park", "deponie": "Deponie", "stadion": "Stadion", "klaerwerk": "Klärwerk",
               "ruine": "Ruine", "autobahnkreuz": "Kreuz"}
FIELD_YIELDS = {"park": "Totholz", "deponie": "Humus", "stadion": "Moos", "klaerwerk": "Regenwasser",
                "ruine": "Mineralien", "autobahnkreuz": "nichts"}
CARD_NAMES = {"sporenwolke": "Sporenwolke", "wuchsschub": "Wuchsschub", "naehrquelle": "Nährquelle",
              "netzsog": "Netzsog", "bibliothek": "Bibliothek", "kathedrale": "Kathedrale", "u-bahnhof": "U-Bahnhof",
              "museum": "Museum", "rathaus": "Rathaus"}
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
    seats = view.get("seats") or []
    if isinstance(seat, int) and 0 <= seat < len(seats):
        name = seats[seat].get("name")
        return f"Platz {seat + 1} ({name})" if name else f"Platz {seat + 1}"
    return f"Platz {seat + 1}" if isinstance(seat, int) else str(seat)


def _field_words(board: dict[str, Any], field: Any) -> str:
    fields = board.get("felder") or []
    if isinstance(field, int) and 0 <= field < len(fields):
        kind = str(fields[field].get("art"))
        number = fields[field].get("zahl")
        name = FIELD_NAMES.get(kind, kind)
        return f"Feld {field}, {name} {number}" if number else f"Feld {field}, {name}"
    return f"Feld {field}"


def _corner_fields(board: dict[str, Any], corner: int) -> str:
    fields = board.get("felder") or []
    names = []
    for field, ring in enumerate(FIELD_CORNERS):
        if corner in ring and field < len(fields):
            kind = str(fields[field].get("art"))
            number = fields[field].get("zahl")
            names.append(f"{FIELD_SHORT.get(kind, kind)} {number}" if number else FIELD_SHORT.get(kind, kind))
    return ", ".join(names)


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
        return f"Fruchtkörper auf Ecke {corner} ({_corner_fields(board, corner)}){trades}"
    if "turm" in move:
        corner = move["turm"]
        return f"Sporenturm auf Ecke {corner} ({_corner_fields(board, corner)}){trades}"
    if "faden" in move:
        edge = move["faden"]
        if isinstance(edge, int) and 0 <= edge < len(EDGE_CORNERS):
            a, b = EDGE_CORNERS[edge]
            return f"Myzelfaden auf Kante {edge} (Ecke {a}–{b}){trades}"
        return f"Myzelfaden auf Kante {edge}{trades}"
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
        words = f"Schimmel auf {_field_words(board, move['schimmel'])}"
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


def _piece(seat: int, level: int, x: float, y: float) -> Markup:
    size = 12.0 if level >= 2 else 8.5
    text = f"{seat + 1}T" if level >= 2 else str(seat + 1)
    return Markup('<g class="piece p{} {}">{}<text x="{}" y="{}">{}</text></g>').format(
        seat % 4, "tower" if level >= 2 else "fk", _shape(seat, x, y, size), fmt(x), fmt(y + 4), text)


def _hexagon(field: int) -> str:
    return " ".join(f"{fmt(x)},{fmt(y)}" for x, y in (point(CORNER_POINTS[c]) for c in FIELD_CORNERS[field]))


def _pips(number: int) -> str:
    return "•" * max(0, 6 - abs(7 - number)) if number else ""


def _island(view: dict[str, Any], board: dict[str, Any], moves: list[Any]) -> Markup:
    fields = board.get("felder") or []
    corners = board.get("ecken") or []
    edges = board.get("kanten") or []
    mold = board.get("schimmel")
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
        text = generic.scalar(shown[gully_index].get("text")) if gully_index < len(shown) else f"Gully: {word} {rate}"
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
        label = (f"Feld {field}: {FIELD_NAMES.get(kind, kind)}, Zahl {number or 'keine'}, "
                 f"bringt {FIELD_YIELDS.get(kind, '?')}")
        if field == mold:
            label += ", mit Schimmel"
        token = _EMPTY
        if number:
            token = Markup('<circle cx="{0}" cy="{1}" r="13" class="token{2}"/><text x="{0}" y="{3}" '
                           'class="num{2}">{4}</text><text x="{0}" y="{5}" class="pips">{6}</text>').format(
                fmt(cx), fmt(cy + 4), " hot" if hot else "", fmt(cy + 8.5), number, fmt(cy + 22), _pips(number))
        mold_mark = _EMPTY
        if field == mold:
            mold_mark = Markup('<g class="mold"><circle cx="{0}" cy="{1}" r="11"/><text x="{0}" y="{2}">S</text></g>'
                               ).format(fmt(cx + 24), fmt(cy + 4), fmt(cy + 8))
        inner = Markup('<polygon points="{0}" class="hex k-{1}"/><polygon points="{0}" class="pat-{1}" '
                       'fill="url(#sp-{1})"/><text x="{2}" y="{3}" class="kind">{4}</text>{5}{6}').format(
            _hexagon(field), kind if kind in FIELD_NAMES else "x", fmt(cx), fmt(cy - 18),
            FIELD_SHORT.get(kind, kind), token, mold_mark)
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
            out.append(Markup('<g class="thread p{}" role="img" aria-label="Kante {}: Faden von {}, {}">{}</g>')
                       .format(owner % 4, edge, _seat_words(view, owner), THREAD_WORDS[owner % 4], line))
        elif edge in edge_moves:
            handle = Markup('<circle cx="{}" cy="{}" r="6" class="spot"/>').format(fmt((ax + bx) / 2),
                                                                                  fmt((ay + by) / 2))
            out.append(_hit(view, edge_moves[edge], "edge", f"Kante {edge} – {move_label(edge_moves[edge], view)}",
                            line + handle))
    # buildings and places for buildings
    for corner, (x, y) in enumerate(point(c) for c in CORNER_POINTS):
        owner, level = (corners[corner] + [0, 0])[:2] if corner < len(corners) else (-1, 0)
        piece = _EMPTY
        label = f"Ecke {corner}"
        if isinstance(owner, int) and owner >= 0:
            piece = _piece(owner, int(level), x, y)
            what = "Sporenturm" if level >= 2 else "Fruchtkörper"
            label += f": {what} von {_seat_words(view, owner)} ({SHAPES[owner % 4]})"
        if corner in corner_moves:
            out.append(_hit(view, corner_moves[corner], "corner",
                            f"{label} – {move_label(corner_moves[corner], view)}",
                            Markup('<circle cx="{}" cy="{}" r="11" class="spot"/>{}').format(fmt(x), fmt(y), piece)))
        elif piece:
            out.append(Markup('<g role="img" aria-label="{}">{}</g>').format(label, piece))
    extent = RADIUS * 5.9
    box = f"{fmt(-extent)} {fmt(-RADIUS * 5.1)} {fmt(extent * 2)} {fmt(RADIUS * 10.2)}"
    return Markup('<svg class="island" viewBox="{}" role="group" aria-label="Die Insel: 19 Felder, Gullys, Gebäude '
                  'und Fäden">{}</svg>').format(box, Markup("").join(out))


# ---- the panels ------------------------------------------------------------------------------------------------

def _text(value: Any) -> str:
    return generic.scalar(value.get("text")) if isinstance(value, dict) and "text" in value else generic.scalar(value)


def _mini_shape(seat: int) -> Markup:
    return Markup('<svg class="mini" viewBox="-14 -14 28 28" aria-hidden="true"><g class="piece p{} fk">{}'
                  '<text x="0" y="4">{}</text></g></svg>').format(seat % 4, _shape(seat, 0, 0, 10), seat + 1)


def _status(view: dict[str, Any], board: dict[str, Any], shown: dict[str, Any], moves: list[Any]) -> Markup:
    dice = board.get("wuerfel") or []
    dice_text = _EMPTY
    if len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        dice_text = Markup('<p class="dice" aria-label="Würfel: {0} und {1}, zusammen {2}">'
                           '<span aria-hidden="true">{3} {4}</span> {0} + {1} = <strong>{2}</strong></p>').format(
            dice[0], dice[1], dice[0] + dice[1], DICE_FACES[dice[0]], DICE_FACES[dice[1]])
    quick = [m for m in moves if isinstance(m, dict) and
             ({"wuerfeln", "zug_beenden", "verzichten"} & set(m) or ("ausspielen" in m and len(m) == 1))]
    settings = board.get("einstellungen") or {}
    return Markup('<section class="part spore-status" aria-label="Stand"><p class="phase">{}</p>'
                  '<p>Ziel: {} Siegpunkte · Vorrat: {} · Mutationsstapel: {}</p>{}<div class="move-list">{}</div>'
                  '</section>').format(
        _text(shown.get("phase")), settings.get("siegpunkte", "?"),
        ", ".join(f"{KIND_NAMES[k]} {n}" for k, n in zip(KINDS, board.get("vorrat") or [], strict=False)),
        board.get("mutationsstapel", "?"), dice_text,
        Markup("").join(_button(view, m) for m in quick))


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
        details = Markup("").join(Markup("<li>{}</li>").format(_text(line)) for line in score.get("zeilen") or [])
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
    return Markup('<section class="part" aria-label="Spieler"><h3>Spieler</h3><div class="scroll"><table>'
                  '<thead><tr><th scope="col">Platz</th><th scope="col">Siegpunkte</th><th scope="col">Karten</th>'
                  '<th scope="col">Mutationen</th><th scope="col">Ausgespielt</th><th scope="col">Reststeine</th>'
                  '<th scope="col">Sonderkarten</th></tr></thead><tbody>{}</tbody></table></div></section>').format(
        Markup("").join(rows))


def _hand(view: dict[str, Any], board: dict[str, Any], moves: list[Any]) -> Markup:
    mine = board.get("du")
    if not isinstance(mine, dict):
        return _EMPTY
    hand = mine.get("hand") or {}
    cards = Markup("").join(Markup('<li class="res r-{}"><strong>{}</strong> {}</li>').format(
        kind, int(hand.get(kind, 0)), KIND_NAMES[kind]) for kind in KINDS)
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
                  '<ul class="hand">{}</ul><p>Mutationen: {}</p>{}<div class="move-list">{}</div>'
                  '<p class="rates">Tauschkurse mit dem Vorrat: {}</p></section>').format(
        cards, len(mine.get("mutationen") or []),
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
        name = str(entry.get("name", ""))
        words = _text(entry.get("text"))
        words = words[len(name) + 1:].strip() if words.startswith(name + ":") else words
        if status == "baubar" and entry.get("bau") != "mutation":
            words += " – auf der Insel wählen"
        rows.append(Markup('<li class="goes {}"><strong>{}</strong>: {}</li>').format(status, name, words))
    return Markup('<section class="part" aria-label="Was geht?"><h3>Was geht?</h3><ul class="goes">{}</ul>'
                  '<div class="move-list">{}</div></section>').format(
        Markup("").join(rows), Markup("").join(_button(view, m) for m in buy))


def _count_inputs(prefix: str, limit: dict[str, int] | None, label: str) -> Markup:
    fields = []
    for kind in KINDS:
        top = 19 if limit is None else int(limit.get(kind, 0))
        fields.append(Markup('<label class="count">{} {}<input type="number" name="{}.{}" min="0" max="{}" '
                             'value="0" inputmode="numeric"></label>').format(
            label, KIND_NAMES[kind], prefix, kind, top))
    return Markup("").join(fields)


def _form(view: dict[str, Any], inner: Markup, submit: str, aria: str, ident: str) -> Markup:
    """A form of counts (a discard, an offer). It keeps what the player typed while live updates redraw the board
    (`hx-preserve`: htmx leaves an element with the same id as it is), so it carries no state number: the table
    checks the move against the game as it is then."""
    return Markup('<form class="bundle-form" id="{}" hx-preserve="true" aria-label="{}" hx-post="/spiel/{}/vorschau" '
                  'hx-target="#preview">{}<button type="submit">{}</button></form>').format(
        ident, aria, view.get("game_id", ""), inner, submit)


def _trade(view: dict[str, Any], board: dict[str, Any], shown: dict[str, Any], moves: list[Any]) -> Markup:
    you = view.get("you")
    hand = (board.get("du") or {}).get("hand") or {}
    parts: list[Markup] = []
    offer = shown.get("angebot")
    offer_number = offer.get("nummer") if isinstance(offer, dict) else 0
    if isinstance(offer, dict):
        answers = Markup("").join(Markup("<li>{}</li>").format(_text(a)) for a in offer.get("antworten") or [])
        parts.append(Markup('<div class="offer" role="status"><p><strong>{}</strong></p><ul>{}</ul></div>').format(
            _text(offer), answers))
    kinds = ("handeln", "zurueckziehen", "antwort", "gegenangebot", "vorrat", "angebot")
    by_kind = {key: [m for m in moves if isinstance(m, dict) and key in m] for key in kinds}
    for key, title in (("handeln", "Wer angenommen hat"), ("antwort", "Deine Antwort"),
                       ("gegenangebot", "Gegenangebote"), ("zurueckziehen", ""), ("vorrat", "Mit dem Vorrat"),
                       ("angebot", "Angebote an die Mitspieler")):
        if by_kind[key]:
            heading = Markup("<h4>{}</h4>").format(title) if title else _EMPTY
            parts.append(Markup('{}<div class="move-list">{}</div>').format(
                heading, Markup("").join(_button(view, m) for m in by_kind[key])))
    if by_kind["angebot"]:
        parts.append(_form(view, Markup('<fieldset><legend>Du gibst</legend>{}</fieldset><fieldset><legend>Du '
                                        'willst</legend>{}</fieldset>').format(
            _count_inputs("m.angebot.gib", hand, "gib"), _count_inputs("m.angebot.nimm", None, "nimm")),
            "Eigenes Angebot ansehen", "Eigenes Angebot", f"spore-offer-{board.get('wuerfe', 0)}"))
    if by_kind["gegenangebot"] or by_kind["antwort"]:
        parts.append(_form(view, Markup('<fieldset><legend>Du gibst</legend>{}</fieldset><fieldset><legend>Du '
                                        'willst</legend>{}</fieldset>').format(
            _count_inputs("m.gegenangebot.gib", hand, "gib"), _count_inputs("m.gegenangebot.nimm", None, "nimm")),
            "Eigenes Gegenangebot ansehen", "Eigenes Gegenangebot",
            f"spore-counter-{board.get('wuerfe', 0)}-{offer_number}"))
    if not parts:
        return _EMPTY
    who = "" if you is None else f" – du bist {_seat_words(view, you)}"
    return Markup('<section class="part spore-trade" aria-label="Handel"><h3>Handel{}</h3>{}</section>').format(
        who, Markup("").join(parts))


def _discard(view: dict[str, Any], board: dict[str, Any], moves: list[Any]) -> Markup:
    if not any(isinstance(m, dict) and "abwerfen" in m for m in moves):
        return _EMPTY
    you = view.get("you")
    players = board.get("spieler") or []
    count = players[you].get("abwerfen", 0) if isinstance(you, int) and you < len(players) else 0
    hand = (board.get("du") or {}).get("hand") or {}
    return Markup('<section class="part spore-discard" aria-label="Abwerfen"><h3>Abwerfen</h3>'
                  '<p>Du hast mehr als 7 Karten: wirf genau {} ab.</p>{}</section>').format(
        count, _form(view, _count_inputs("m.abwerfen", hand, "wirf ab:"), f"{count} Karten abwerfen (Vorschau)",
                     "Abwerfen", f"spore-discard-{board.get('wuerfe', 0)}"))


def _mold_choices(view: dict[str, Any], moves: list[Any]) -> Markup:
    mold = [m for m in moves if isinstance(m, dict) and "schimmel" in m]
    fields = {m.get("schimmel") for m in mold}
    if len(mold) <= len(fields):
        return _EMPTY  # one move per field: the hexes are enough
    return Markup('<section class="part" aria-label="Schimmel"><h3>Schimmel versetzen und berauben</h3>'
                  '<p>Klicke ein Feld auf der Insel oder wähle hier, wen der Schimmel beraubt.</p>'
                  '<div class="move-list">{}</div></section>').format(Markup("").join(_button(view, m) for m in mold))


def _yields(shown: dict[str, Any]) -> Markup:
    table = shown.get("ertrag")
    if not isinstance(table, dict):
        return _EMPTY
    rows = Markup("").join(Markup("<tr><th scope=\"row\">Platz {}</th><td>{}</td><td>{}</td></tr>").format(
        int(line.get("platz", 0)) + 1, "; ".join(_text(z) for z in line.get("zeilen") or []) or "nichts",
        line.get("summe", 0)) for line in table.get("spieler") or [])
    extra = [table.get("schimmel"), *(table.get("knapp") or []), *(table.get("teilweise") or [])]
    notes = Markup("").join(Markup("<li>{}</li>").format(_text(item)) for item in extra if item)
    body = _EMPTY
    if rows:
        body = Markup('<div class="scroll"><table><thead><tr><th scope="col">Wer</th><th scope="col">Woher</th>'
                      '<th scope="col">Karten</th></tr></thead><tbody>{}</tbody></table></div>').format(rows)
    return Markup('<section class="part" aria-label="Ertragstafel"><h3>Ertragstafel</h3><p>{}</p>{}{}</section>'
                  ).format(_text(table), body, Markup("<ul>{}</ul>").format(notes) if notes else _EMPTY)


def _summaries(shown: dict[str, Any]) -> Markup:
    cards = shown.get("zugkarten") or []
    if not cards:
        return _EMPTY
    items = Markup("").join(Markup('<li{}>{}{}</li>').format(
        Markup(' class="now"') if card.get("laeuft") else _EMPTY, _text(card),
        " (läuft)" if card.get("laeuft") else "") for card in cards)
    return Markup('<section class="part" aria-label="Zugkarten"><h3>Zugkarten</h3><ul>{}</ul></section>').format(items)


def _end(shown: dict[str, Any]) -> Markup:
    table = shown.get("endtafel")
    if not isinstance(table, dict):
        return _EMPTY
    rows = []
    for row in table.get("zeilen") or []:
        steps = ", ".join(f"{_text(step)} → {step.get('stand')}" for step in row.get("hochzaehlen") or [])
        rows.append(Markup("<li><strong>{}</strong>{}<br><small>{}</small></li>").format(
            _text(row), " – gewonnen" if row.get("gewonnen") else "", steps))
    return Markup('<section class="part" aria-label="Endtafel"><h3>Endtafel</h3><ol class="list">{}</ol>'
                  '</section>').format(Markup("").join(rows))


def _legend(view: dict[str, Any], board: dict[str, Any]) -> Markup:
    items = Markup("").join(Markup("<li>{} {}: {}, Fäden {}</li>").format(
        _mini_shape(seat), _seat_words(view, seat), SHAPES[seat % 4], THREAD_WORDS[seat % 4])
        for seat in range(int(board.get("plaetze") or len(view.get("seats") or []))))
    return Markup('<ul class="legend" aria-label="Wer welche Form hat">{}<li>Großes Zeichen mit T: Sporenturm · '
                  'S: Schimmel · fette Zahl im Ring: 6 oder 8</li></ul>').format(items)


def render(view: dict[str, Any]) -> Markup:
    """The seat's Speedspore board: the island (SVG) and the panels beside it."""
    board = view.get("board")
    if not isinstance(board, dict) or not isinstance(board.get("felder"), list):
        return generic.render(view)
    shown: dict[str, Any] = board["anzeige"] if isinstance(board.get("anzeige"), dict) else {}
    moves = list(view.get("legal_moves") or [])
    return Markup('<div class="board spore"><div class="spore-map">{}{}{}</div><div class="spore-side">{}{}{}{}{}'
                  '{}{}{}{}</div></div>').format(
        _status(view, board, shown, moves), _island(view, board, moves), _legend(view, board),
        _end(shown), _discard(view, board, moves), _mold_choices(view, moves), _hand(view, board, moves),
        _trade(view, board, shown, moves), _what_goes(view, shown, moves), _players(view, board, shown),
        _yields(shown), _summaries(shown))
