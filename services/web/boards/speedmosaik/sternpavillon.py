"""Werkstatt „Sternpavillon“: the seven star boards (six outer stars of one colour, the centre star), the
tiles in hand, the round's joker colour, the supply with the bonus tiles, the bonus places and the tower.
A take is one click on a colour in a display; laying is two: a free space of a star, then how to pay
(colour and jokers); passing and bonus tiles from the supply are buttons on the board; which tiles to keep is a
form of counts per colour (the suggestion and keeping none also as buttons)."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from services.web.boards.speedmosaik import common as c

STAR_NAMES = {"mitte": "Mitte-Stern"}


def _star(star: Any) -> str:
    return STAR_NAMES.get(str(star), f"Stern {c.name(star)}")


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


def _stars(view: dict[str, Any], player: dict[str, Any], mine: bool) -> Markup:
    places: dict[str, list[dict[str, Any]]] = {}
    for move in _moves(view, "legen") if mine else []:
        places.setdefault(f"feld-{move.get('stern')}-{move.get('feld')}", []).append(move)
    stars: list[Markup] = []
    targets: list[Markup] = []
    for star in player.get("sterne") or []:
        cells = []
        for field in star.get("felder") or []:
            key = f"feld-{star.get('stern')}-{field.get('feld')}"
            colour = field.get("farbe")
            words = f"{_star(star.get('stern'))}, Feld {field.get('feld')} (kostet {field.get('feld')}): " + (
                f"{c.name(colour)} belegt" if colour else "frei")
            picture = Markup('{0}<span class="mz-cost">{1}</span>').format(
                c.tiles_svg([colour]) if colour else c.tiles_svg([], empty=1), field.get("feld"))
            moves = places.get(key, [])
            if len(moves) == 1:
                cells.append(c.move_button(view, moves[0], picture, f"{words} – {move_label(moves[0], view)}",
                                           "mz-cell"))
            elif moves:
                cells.append(c.pick_button(key, picture, f"{words}: legen, dann bezahlen wählen", "mz-cell"))
                targets.extend(c.move_button(view, move, move_label(move, view) or "", move_label(move, view) or "",
                                             "mz-target", pick_for=key) for move in moves)
            else:
                cells.append(Markup('<span class="mz-cell" role="img" aria-label="{0}">{1}</span>').format(
                    words, picture))
        filled = sum(1 for field in star.get("felder") or [] if field.get("farbe"))
        stars.append(Markup('<li class="mz-star mz-star-{0}" aria-label="{1}: {2} von 6 belegt">'
                            '<span class="mz-name">{1}</span><span class="mz-ring">{3}</span></li>').format(
            c.css(star.get("farbe")) if star.get("farbe") else "t-mitte", _star(star.get("stern")), filled,
            Markup("").join(cells)))
    pay = Markup('<div class="mz-pay" role="group" aria-label="Bezahlen">{}</div>').format(
        Markup("").join(targets)) if targets else Markup("")
    # the payment choices above the stars: after picking a space they show where the eye already is
    return Markup('{1}<ol class="mz-stars" aria-label="Sterne">{0}</ol>').format(Markup("").join(stars), pay)


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


def _player(view: dict[str, Any], player: dict[str, Any]) -> Markup:
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
    hand_html = Markup('<div class="mz-hand" aria-label="Steine in der Hand: {0}"><span class="mz-name">Hand</span>'
                       '{1}</div>').format(hand_words, c.tiles_svg(tiles))
    return Markup('<section class="mz-player{0}" aria-label="Tableau {1}">{2}{3}{4}{5}{6}</section>').format(
        " mz-mine" if mine else "", c.seat_name(view, player.get("platz")), c.player_head(view, player), hand_html,
        actions, _stars(view, player, mine), extra)


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
        note = Markup('<p>{0} wählt noch {1} Bonusstein(e).</p>').format(c.seat_name(view, state.get("platz")),
                                                                         state.get("noch"))
    places = Markup("").join(
        Markup('<li>{0}: {1} Bonusstein(e) – {2}</li>').format(
            place.get("name"), place.get("belohnung"),
            ", ".join(f"{_star(field.get('stern'))} {field.get('feld')}" for field in place.get("felder") or []))
        for place in board.get("bonusorte") or [])
    body = Markup('<div class="mz-supply">{0}</div>{1}<details><summary>Bonusorte</summary><ul>{2}</ul></details>')\
        .format(Markup("").join(items) or Markup('<span class="mz-empty">leer</span>'), note, places)
    return c.section("Vorrat", body, "mz-market")


def render(view: dict[str, Any]) -> Markup:
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
    players = Markup("").join(_player(view, player) for player in c.order_players(view, board.get("spieler") or []))
    return c.root("sternpavillon", view, head, c.displays(view, move_label), _supply(view), players)
