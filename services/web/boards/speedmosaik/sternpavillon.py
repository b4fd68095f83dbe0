"""Werkstatt „Sternpavillon“: the seven star boards (six outer stars of one colour, the centre star), the
tiles in hand, the round's joker colour, the supply with the bonus tiles, the bonus places and the tower.
A take is one click on a colour in a display; laying is two: a free space of a star, then how to pay
(colour and jokers); passing and bonus tiles from the supply are buttons on the board; which tiles to keep is a
form of counts per colour (the suggestion and keeping none also as buttons)."""

from __future__ import annotations

import math
from typing import Any

from markupsafe import Markup, escape

from services.web.boards.speedmosaik import common as c
from services.web.boards.speedmosaik.last import star_name as _star

STARS = ["mitte", "rot", "blau", "gelb", "orange", "gruen", "lila"]
"""The centre star, then the six outer stars in ring order (clockwise from the top), as the rules order them."""
SIDE = 34
"""A space's side (a 60° rhombus; six make a star) in the SVG's units, which are CSS px on a desktop."""
DISTANCE = 125
"""From the centre star's middle to an outer star's."""
HALF = 195
"""Half the pavilion picture's width and height."""
KIND_NAMES = {"saeule": "Säule", "statue": "Statue", "fenster": "Fenster"}


def _unit(degrees: float) -> tuple[float, float]:
    return math.cos(math.radians(degrees)), math.sin(math.radians(degrees))


def star_centre(star: str) -> tuple[float, float]:
    """Where a star stands in the picture: the centre star in the middle, the outer ones around it."""
    index = STARS.index(star) if star in STARS else 0
    if index == 0:
        return 0.0, 0.0
    x, y = _unit(-90 + 60 * (index - 1))
    return DISTANCE * x, DISTANCE * y


def space_direction(star: str, number: int) -> int:
    """Where a star's space points, in sixths of a turn (0 = right, clockwise). An outer star points its spaces 2
    and 3 at the centre star, 1 and 2 at the next star clockwise, 5 and 6 outwards; the centre star's space k into
    the gap between the outer stars k and k+1 (the rules' geometry, libs/rules/speedmosaik/sternpavillon/tiles.py)."""
    index = STARS.index(star) if star in STARS else 0
    if index == 0:
        return (number - 2) % 6  # -60° + 60° (k - 1)
    return (index - 1 + number - 1) % 6


def _place_point(place: dict[str, Any]) -> tuple[float, float]:
    """Where a pillar (between the centre star and an outer one), statue (between two outer stars) or window
    (outside an outer star) stands."""
    parts = str(place.get("id", "")).split("-")
    if parts[0] == "statue" and len(parts) == 3:
        (x1, y1), (x2, y2) = star_centre(parts[1]), star_centre(parts[2])
        return (x1 + x2) / 2, (y1 + y2) / 2
    x, y = star_centre(parts[1] if len(parts) > 1 else "mitte")
    factor = 0.5 if parts[0] == "saeule" else (DISTANCE + SIDE + 13) / DISTANCE
    return x * factor, y * factor


def move_label(move: dict[str, Any], view: dict[str, Any]) -> str | None:
    action = move.get("aktion")
    if action == "nehmen" and c.take_key(move) is not None:
        count = c.source_count(view.get("board") or {}, move)
        return f"{count} × {c.name(move.get('farbe'))} {c.source_words(move)} nehmen"
    if action == "legen":
        colour = f", {c.name(move['farbe'])}" if move.get("farbe") else ""
        jokers = int(move.get("joker", 0) or 0)
        return f"{_star(move.get('stern'))}, Feld {move.get('feld')}{colour} legen ({jokers} Joker)"
    if action == "passen":
        return "Passen"
    if action == "bonus":
        return f"Bonusstein {c.name(move.get('farbe'))} aus dem Vorrat"
    if action == "behalten":
        stones = move.get("steine") or {}
        kept = ", ".join(f"{n} × {c.name(colour)}" for colour, n in stones.items() if n)
        return f"Behalten: {kept}" if kept else "Nichts behalten"
    return None


def offers(move: dict[str, Any], view: dict[str, Any]) -> bool:
    """Whether the board makes this legal move: a take (a colour of a display or the centre), a star space (with
    how to pay), passing, a bonus tile of the supply (buttons), or which tiles to keep (the form of counts)."""
    action = move.get("aktion")
    if action == "nehmen":
        return c.take_key(move) is not None
    return action in ("legen", "passen", "bonus", "behalten")


def _moves(view: dict[str, Any], action: str) -> list[dict[str, Any]]:
    return [move for move in view.get("legal_moves") or [] if isinstance(move, dict) and move.get("aktion") == action]


def _rhombus(x: float, y: float, direction: int) -> str:
    """The four corners of a space: from the star's middle out along its direction."""
    angle = 60 * direction
    ax, ay = _unit(angle - 30)
    bx, by = _unit(angle)
    cx, cy = _unit(angle + 30)
    long = SIDE * math.sqrt(3)
    return (f"{x:.1f},{y:.1f} {x + SIDE * ax:.1f},{y + SIDE * ay:.1f} {x + long * bx:.1f},{y + long * by:.1f} "
            f"{x + SIDE * cx:.1f},{y + SIDE * cy:.1f}")


def _pavilion_svg(view: dict[str, Any], player: dict[str, Any], shown: c.Shown) -> str:
    """The seven stars as a picture: each space a rhombus with its value (what it costs), a laid tile in its
    colour with its letter; the pillars, statues and windows between the stars (filled once surrounded)."""
    seat = player.get("platz")
    parts = []
    surrounded = set(player.get("umschlossen") or [])
    for place in (view.get("board") or {}).get("bonusorte") or []:
        x, y = _place_point(place)
        kind = str(place.get("art", ""))
        state = "mz-won" if place.get("id") in surrounded else ""
        title = escape(f"{place.get('name')}: {place.get('belohnung')} Bonusstein"
                       + ("e" if place.get("belohnung") != 1 else "") + (", umschlossen" if state else ""))
        if kind == "saeule":
            shape = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="9"/>'
        elif kind == "statue":
            shape = f'<rect x="{x - 9:.1f}" y="{y - 9:.1f}" width="18" height="18" rx="2"/>'
        else:
            shape = f'<path d="M{x - 9:.1f},{y + 9:.1f} v-9 a9,9 0 0 1 18,0 v9 z"/>'
        parts.append(f'<g class="mz-place mz-{escape(kind)} {state}"><title>{title}</title>{shape}'
                     f'<text x="{x:.1f}" y="{y + 4:.1f}">{escape(place.get("belohnung"))}</text></g>')
    for star in player.get("sterne") or []:
        name = str(star.get("stern"))
        x, y = star_centre(name)
        for field in star.get("felder") or []:
            number = int(field.get("feld", 0) or 0)
            direction = space_direction(name, number)
            key = ("feld", seat, name, number)
            colour, ghost = field.get("farbe"), shown.ghost.get(key)
            dx, dy = _unit(60 * direction)
            mid = SIDE * math.sqrt(3) / 2
            tx, ty = x + mid * dx, y + mid * dy
            state = " last arrive" if key in shown.marks else ""
            if colour or ghost:
                kind = escape(c.css(colour or ghost))
                state += "" if colour else " ghost"
                body = (f'<polygon class="mz-tile {kind}" points="{_rhombus(x, y, direction)}"/>'
                        f'<text class="mz-letter {kind}" x="{tx:.1f}" y="{ty + 5:.1f}">'
                        f'{escape(c.LETTERS.get(str(colour or ghost), "?"))}</text>'
                        f'<text class="mz-value {kind}" x="{x + 1.45 * mid * dx:.1f}" '
                        f'y="{y + 1.45 * mid * dy + 3:.1f}">{number}</text>')
            else:
                kind = escape(c.css(star.get("farbe"))) if star.get("farbe") else "t-mitte"
                body = (f'<polygon class="mz-space {kind}" points="{_rhombus(x, y, direction)}"/>'
                        f'<text class="mz-cost" x="{tx:.1f}" y="{ty + 5:.1f}">{number}</text>')
            parts.append(f'<g class="mz-sp-draw{state}">{body}</g>')
    size = 2 * HALF
    return (f'<svg class="mz-pavsvg" viewBox="{-HALF} {-HALF} {size} {size}" aria-hidden="true" focusable="false">'
            f'{"".join(parts)}</svg>')


ZOOM = Markup('<label class="mz-zoom"><input type="checkbox" id="mz-zoom" hx-preserve="true"> Sterne vergrößern'
              '</label>')
"""Under the viewer's own pavilion (the only one with spaces to click), shown only on a phone: the pavilion at
twice the width in its own scrolling box, so each space is a target of at least 44 px; kept across redraws
(hx-preserve)."""


def _stars(view: dict[str, Any], player: dict[str, Any], mine: bool, shown: c.Shown) -> Markup:
    """The pavilion: the picture, with a button over each space the seat may lay on (a pick where several ways
    to pay are open: they show above the picture), and each star and space said in words for screen readers."""
    places: dict[str, list[dict[str, Any]]] = {}
    for move in _moves(view, "legen") if mine else []:
        places.setdefault(f"feld-{move.get('stern')}-{move.get('feld')}", []).append(move)
    seat = player.get("platz")
    buttons: list[Markup] = []
    targets: list[Markup] = []
    words: list[Markup] = []
    for star in player.get("sterne") or []:
        name = str(star.get("stern"))
        filled = []
        for field in star.get("felder") or []:
            number = int(field.get("feld", 0) or 0)
            key = f"feld-{name}-{number}"
            colour = field.get("farbe")
            if colour:
                filled.append(f"{number} {c.name(colour)}")
            said = f"{_star(name)}, Feld {number} (kostet {number}): " + (
                f"{c.name(colour)} belegt" if colour else "frei")
            if ("feld", seat, name, number) in shown.marks:
                said += ", eben gelegt"
            where = f"mz-sp mz-at-{STARS.index(name) if name in STARS else 0} mz-dir-{space_direction(name, number)}"
            moves = places.get(key, [])
            if len(moves) == 1:
                buttons.append(c.move_button(view, moves[0], "", f"{said} – {move_label(moves[0], view)}", where))
            elif moves:
                buttons.append(c.pick_button(key, "", f"{said}: legen, dann bezahlen wählen", where))
                targets.extend(c.move_button(view, move, _pay_words(move), move_label(move, view) or "",
                                             "mz-target", pick_for=key) for move in moves)
        words.append(Markup("<li>{0}: {1}</li>").format(
            _star(name), ", ".join(filled) + f" ({len(filled)} von 6 belegt)" if filled else "leer"))
    pay = Markup('<div class="mz-pay" role="group" aria-label="Bezahlen">{}</div>').format(
        Markup("").join(targets)) if targets else Markup("")
    said = Markup('<ul class="mz-sr">{}</ul>').format(Markup("").join(words))
    # the payment choices above the stars: after picking a space they show where the eye already is
    return Markup('{0}<div class="mz-pavbox"><div class="mz-pav" role="group" aria-label="Sterne">{1}{2}{3}</div>'
                  '</div>{4}<p class="mz-legend">Zahl = was das Feld kostet · Mittelstern: jede Farbe einmal · '
                  '● Säule 1, ■ Statue 2, ⌂ Fenster 3 Bonussteine, wenn umschlossen</p>').format(
        pay, Markup(_pavilion_svg(view, player, shown)), Markup("").join(buttons), said, ZOOM if mine else "")


def _pay_words(move: dict[str, Any]) -> str:
    """How a payment choice reads on its button: "3 × Rot + 1 Joker"."""
    jokers = int(move.get("joker", 0) or 0)
    real = int(move.get("feld", 0) or 0) - jokers
    colour = c.name(move.get("farbe")) if move.get("farbe") else ""
    parts = [f"{real} × {colour}" if real and colour else "", f"{jokers} Joker" if jokers else ""]
    text = " + ".join(part for part in parts if part)
    return f"{colour}: {text}" if colour and move.get("stern") == "mitte" else (text or "bezahlen")


def _keep(view: dict[str, Any], hand: dict[str, int], moves: list[dict[str, Any]]) -> Markup:
    """Which tiles to keep: the rules' suggestion and keeping none as buttons, any other choice as a form of counts
    (each colour in hand from 0 to what is held, the suggestion filled in). The choices are every part of the
    hand, up to a thousand and more: one button each would not fit a page (nor a keyboard)."""
    board = view.get("board") or {}
    state = board.get("behalten") or {}
    suggested = {colour: int(n) for colour, n in (state.get("vorschlag") or {}).items() if n}
    quick = [move for move in moves if move.get("steine") == suggested] + \
        [move for move in moves if move.get("steine") == {} and suggested]
    buttons = Markup("").join(
        c.move_button(view, move, words, words) for move in quick
        for words in [("Vorschlag – " if move.get("steine") else "") + (move_label(move, view) or "")])
    fields = Markup("").join(
        Markup('<label class="mz-count">{0} <input type="number" name="m.steine.{1}" min="0" max="{2}" value="{3}" '
               'inputmode="numeric" aria-label="{0} behalten, 0 bis {2}"></label>').format(
            c.name(colour), colour, held, suggested.get(colour, 0))
        for colour, held in hand.items())
    fixed = c.move_json({"aktion": "behalten", "steine": {}})
    form = Markup('<form class="mz-keepform" id="mz-keep-{0}" hx-preserve="true" aria-label="Steine behalten: Anzahl '
                  'je Farbe" hx-post="/spiel/{1}/vorschau" hx-target="#preview"><input type="hidden" name="m" '
                  'value="{2}">{3}<button type="submit">Diese Steine behalten</button></form>').format(
        board.get("runde", ""), view.get("game_id", ""), fixed, fields)
    note = Markup('<p>{0} Steine behältst du frei, jeder weitere kostet 1 Punkt.</p>').format(state.get("frei", 4))
    return Markup('<div class="mz-keep" role="group" aria-label="Steine behalten">{0}{1}{2}</div>').format(
        note, buttons, form)


def _player(view: dict[str, Any], player: dict[str, Any], shown: c.Shown) -> Markup:
    mine = player.get("platz") == view.get("you")
    hand = {colour: int(n) for colour, n in (player.get("hand") or {}).items() if n}
    tiles = [colour for colour, n in hand.items() for _ in range(n)]
    hand_words = ", ".join(f"{n} × {c.name(colour)}" for colour, n in hand.items()) or "keine"
    actions = Markup("")
    if mine:
        actions = Markup("").join(c.move_button(view, move, "Passen", "Passen: keine Steine mehr legen")
                                  for move in _moves(view, "passen"))
        keep = _moves(view, "behalten")
        if keep:
            actions += _keep(view, hand, keep)
    account = player.get("konto") or {}
    extra = c.facts([("Steine", player.get("steine", 0)), ("Gepasst", "ja" if player.get("gepasst") else "nein"),
                     ("Belegte Felder", player.get("belegte_felder", 0)),
                     ("Legepunkte", account.get("legepunkte", 0)),
                     ("Umschlossen", len(player.get("umschlossen") or []))])
    key = ("hand", player.get("platz"))
    ghost = shown.ghost.get(key) or []
    hand_html = Markup('<div class="mz-hand{2}" aria-label="Steine in der Hand: {0}"><span class="mz-name">Hand</span>'
                       '{1}</div>').format(hand_words, c.tiles_svg(tiles + ["~" + str(tile) for tile in ghost]),
                                           shown.classes(key))
    return Markup('<section class="mz-player{0}" aria-label="Tableau {1}">{2}{3}{4}{5}{6}</section>').format(
        " mz-mine" if mine else "", c.seat_name(view, player.get("platz")), c.player_head(view, player), hand_html,
        actions, _stars(view, player, mine, shown), extra)


def _supply(view: dict[str, Any]) -> Markup:
    board = view.get("board") or {}
    supply = list(board.get("vorrat") or [])
    bonus = {move.get("farbe"): move for move in _moves(view, "bonus")}
    items = []
    for colour in dict.fromkeys(supply):
        count = supply.count(colour)
        words = f"Vorrat: {count} × {c.name(colour)}"
        if colour in bonus:
            items.append(c.move_button(view, bonus[colour], c.tiles_svg([colour] * count),
                                       f"{words} – {move_label(bonus[colour], view)}", "mz-group"))
        else:
            items.append(Markup('<span class="mz-group" role="img" aria-label="{0}">{1}</span>').format(
                words, c.tiles_svg([colour] * count)))
    state = board.get("bonus")
    note = Markup("")
    if isinstance(state, dict):
        left = state.get("noch")
        note = Markup('<p>{0} wählt noch {1} {2}.</p>').format(c.seat_name(view, state.get("platz")), left,
                                                              "Bonusstein" if left == 1 else "Bonussteine")
    places = Markup("").join(
        Markup('<li>{0}: {1} {3} – {2}</li>').format(
            place.get("name"), place.get("belohnung"),
            ", ".join(f"{_star(field.get('stern'))} {field.get('feld')}" for field in place.get("felder") or []),
            "Bonusstein" if place.get("belohnung") == 1 else "Bonussteine")
        for place in board.get("bonusorte") or [])
    body = Markup('<div class="mz-supply">{0}</div>{1}<details><summary>Bonusorte</summary><ul>{2}</ul></details>')\
        .format(Markup("").join(items) or Markup('<span class="mz-empty">leer</span>'), note, places)
    return c.section("Vorrat", body, "mz-market")


def ghost(view: dict[str, Any], move: dict[str, Any], preview: dict[str, Any]) -> dict[tuple[Any, ...], Any]:
    """What a previewed move changes on the viewer's board: the tile on its star space, the tiles taken into the
    hand (and the display they come from), a bonus tile."""
    me = view.get("you")
    action = move.get("aktion")
    out: dict[tuple[Any, ...], Any] = {}
    if action == "legen":
        out[("feld", me, move.get("stern"), move.get("feld"))] = preview.get("farbe") or move.get("farbe") or \
            move.get("stern")
    elif action == "nehmen":
        source = move.get("quelle", move.get("source"))
        out[("quelle", source, move.get("schale") if source == "schale" else None)] = move.get("farbe")
        jokers = int(preview.get("joker", 0) or 0)
        out[("hand", me)] = [move.get("farbe")] * int(preview.get("anzahl", 0) or 0) + \
            [preview.get("jokerfarbe")] * jokers
    elif action == "bonus":
        out[("hand", me)] = [move.get("farbe")]
    else:
        out[("hand", me)] = []
    return out


def prompt(view: dict[str, Any]) -> str:
    """What the viewer does now, by the round's phase."""
    board = view.get("board") or {}
    moves = [move for move in view.get("legal_moves") or [] if isinstance(move, dict)]
    actions = {move.get("aktion") for move in moves}
    if "behalten" in actions:
        free = (board.get("behalten") or {}).get("frei", 4)
        return f"Behalte bis zu {free} Steine – jeder weitere kostet 1 Punkt"
    if "bonus" in actions:
        left = (board.get("bonus") or {}).get("noch", 1)
        return f"Wähle {left} {'Bonusstein' if left == 1 else 'Bonussteine'} aus dem Vorrat"
    if "legen" in actions:
        return "Lege einen Stein auf ein Sternfeld oder passe"
    if "passen" in actions:
        return "Passe: kein Feld ist mehr zu bezahlen"
    joker = c.name((board.get("joker") or {}).get("farbe"))
    return f"Nimm Steine einer Farbe aus einer Schale oder der Mitte ({joker} ist Joker)"


def render(view: dict[str, Any], shown: c.Shown = c.NOTHING, move: Any = None) -> Markup:
    board = view.get("board") or {}
    joker = board.get("joker") or {}
    start = board.get("startstein") or {}
    tower = board.get("turm") or {}
    phases = {"nehmen": "Nehmen", "legen": "Legen", "bonus": "Bonussteine", "behalten": "Behalten", "ende": "Ende"}
    head = c.facts([("Runde", f"{board.get('runde')} von {board.get('runden', 6)}"),
                    ("Phase", phases.get(str(board.get("phase")), board.get("phase"))),
                    ("Joker diese Runde", c.name(joker.get("farbe")) if joker.get("farbe") else "–"),
                    ("Joker-Reihenfolge", ", ".join(c.name(colour) for colour in joker.get("reihenfolge") or [])),
                    ("Beutel", (board.get("beutel") or {}).get("anzahl", 0)), ("Turm", tower.get("anzahl", 0)),
                    ("Startstein", "in der Mitte" if start.get("in_mitte") else c.seat_name(view, start.get("platz")))])
    players = [_player(view, player, shown) for player in c.order_players(view, board.get("spieler") or [])]
    return c.root("sternpavillon", view, Markup('<div class="mz-head">{}</div>').format(head),
                  c.displays(view, move_label, shown) + _supply(view), players, move)
