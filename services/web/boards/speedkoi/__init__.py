"""Speedkoi's board: the five paths with their stones, tiles and every player's figures, the discard piles and
the deck, the seat's hand as cards, every player's rows, points and tiles, the end warning with the standings.

Moves by clicking on the board, drawn only from the view's `legal_moves` (so every button posts a complete legal
move to the preview route, exactly as the generic move buttons do):

- `legen`: the hand's lanterns are radio buttons ("Tippe eine Laterne in deiner Hand an"); choosing one shows
  its targets (CSS `:has()`, no script): under the own row of its colour one button per way to play it (pilgrim
  or master, which other figure steps on from the end stone), on the discard pile of its colour "abwerfen".
- `libelle` / `steg`: a button on each path whose figure may step, "verzichten" beside the decision.
- `koi`: a button on each discard pile that may be taken; `ziehen`: the deck and the piles one may draw from.

Reads only the view's JSON (docs/services/web.md, "Board renderers: the contract"); deterministic.
"""

from __future__ import annotations

import json
import re
from typing import Any

from markupsafe import Markup

from services.web.boards.seats import named, preview_body, seat_name

COLOURS = ("gold", "indigo", "jade", "karmin", "silber")
NAMES = {"gold": "Gold", "indigo": "Indigo", "jade": "Jade", "karmin": "Karmin", "silber": "Silber"}
LETTERS = {"gold": "G", "indigo": "I", "jade": "J", "karmin": "K", "silber": "S"}
"""Every path, row, pile and lantern carries its colour's letter: told apart without colour vision."""
FIGURES = {"pilger": "Pilger", "meister": "Meister"}
TILES = {"perle": ("Perle", "P"), "libelle": ("Libelle", "L"), "bluete1": ("Kirschblüte 1", "B1"),
         "bluete2": ("Kirschblüte 2", "B2"), "bluete3": ("Kirschblüte 3", "B3"), "steg": ("Steg", "St"),
         "koi": ("Koi", "Koi")}
TILE_COUNTERS = {"perle": "Perlen", "libelle": "Libellen", "bluete": "Kirschblüten", "steg": "Stege", "koi": "Koi"}
SEAT_SHAPES = ("kreis", "quadrat", "dreieck", "raute")
"""Each seat's figures have their own shape (and carry the seat's number): told apart without colour."""
WAYS = {"auf": "aufsteigend", "ab": "absteigend", None: "Richtung offen"}
DECISIONS = {"libelle": "Libelle", "steg": "Steg", "koi": "Koi"}
END_REASONS = {"ziel": "die fünfte Figur steht im Zielbereich", "stapel": "die letzte verdeckte Laterne ist gezogen"}
MAX_HAND = 16
"""Hand positions the style sheet has a selection rule for (8, plus one per Koi)."""

STONE_GAP, STONE_X0, STONE_R, STONE_Y = 44, 24, 18, 36


def _name(colour: Any) -> str:
    return NAMES.get(str(colour), str(colour))


def _number(value: Any) -> str:
    """Signed numbers as the rule texts write them: −4, +3."""
    number = int(value)
    return f"−{-number}" if number < 0 else (f"+{number}" if number > 0 else "0")


def _seat(view: dict[str, Any], seat: Any) -> str:
    """A seat by its player's name (never "Platz 2": "Platz" is a rank)."""
    return seat_name(view, seat)


def _lantern(item: dict[str, Any]) -> str:
    return f"{_name(item.get('farbe'))} {item.get('wert')}"


def _pile_top(board: dict[str, Any], colour: str) -> int | None:
    pile = (board.get("ablagen") or {}).get(colour) or []
    return pile[-1] if pile else None


def _own_figure(board: dict[str, Any], colour: str) -> str:
    me = board.get("ich")
    for player in board.get("spieler") or []:
        if player.get("platz") == me:
            figure = (player.get("figuren") or {}).get(colour)
            if figure:
                return f"{FIGURES.get(figure.get('art'), 'Figur')} {_name(colour)} → Stein {int(figure['stein']) + 1}"
    return f"Figur {_name(colour)}"


def move_label(move: dict[str, Any], view: dict[str, Any]) -> str:
    """A legal move in the rule text's words: „Gold 7 anlegen (Meister)“, „Indigo 3 abwerfen“, „Libelle: Pilger
    Jade → Stein 4“, „Verdeckt vom Stapel ziehen“; „– beendet die Partie“ where it ends the game."""
    board = view.get("board") or {}
    action = move.get("aktion")
    end = " – beendet die Partie" if move.get("bestaetigt") else ""
    if action == "anlegen":
        words = f"{_name(move.get('farbe'))} {move.get('wert')} anlegen"
        if move.get("figur"):
            words += f" ({FIGURES.get(str(move['figur']), str(move['figur']))})"
        if move.get("weiter"):
            words += f", dafür zieht {_own_figure(board, str(move['weiter']))}"
        return words + end
    if action == "abwerfen":
        return f"{_name(move.get('farbe'))} {move.get('wert')} abwerfen" + end
    decision = DECISIONS.get(str((board.get("folge") or {}).get("art")), "Schritt")
    if action == "schritt":
        return f"{decision}: {_own_figure(board, str(move.get('pfad')))}" + end
    if action == "verzichten":
        return f"{decision}: verzichten" + end
    if action == "koi":
        colour = str(move.get("farbe"))
        return f"Koi: {_name(colour)} {_pile_top(board, colour)} nehmen" + end
    if action == "ziehen":
        source = str(move.get("von"))
        if source == "stapel":
            return "Verdeckt vom Stapel ziehen" + end
        return f"{_name(source)} {_pile_top(board, source)} von der Ablage nehmen" + end
    return json.dumps(move, ensure_ascii=False, sort_keys=True)


def listed_move(move: dict[str, Any], view: dict[str, Any]) -> bool:
    """Whether the shell also lists this move among "Deine Züge" (the optional hook on main since board-nova):
    no, every Speedkoi move is a button on the board (hand → row or pile, paths, piles, deck)."""
    return False


# ---- move buttons ------------------------------------------------------------------------------------------

def _button(move: dict[str, Any], view: dict[str, Any], classes: str, text: str | None = None) -> Markup:
    """A button posting the complete move to the preview, as the generic move buttons do."""
    vals = json.dumps({"move": json.dumps(move, separators=(",", ":"), ensure_ascii=False), "n": view.get("n")},
                      ensure_ascii=False)
    label = move_label(move, view)
    extra = " koi-ends" if move.get("bestaetigt") else ""
    return Markup('<button type="button" class="koi-act {}{}" hx-post="/spiel/{}/vorschau" hx-target="#preview" '
                  'hx-vals="{}" aria-label="{}">{}</button>').format(
        classes, extra, view.get("game_id", ""), vals, label, text or label)


def _moves(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [move for move in view.get("legal_moves") or [] if isinstance(move, dict)]


# ---- the parts ---------------------------------------------------------------------------------------------

def _status(view: dict[str, Any], board: dict[str, Any]) -> Markup:
    goal = board.get("im_ziel") or {}
    stand = board.get("stand") or {}
    points = (stand.get("params") or {}).get("punkte") or []
    standings = Markup("").join(
        Markup('<li{}>{}: <strong>{}</strong></li>').format(
            Markup(' class="me"') if seat == board.get("ich") else "", _seat(view, seat), _number(score))
        for seat, score in enumerate(points))
    deck = int((board.get("stapel") or {}).get("anzahl", 0))
    parts = [Markup('<p class="koi-goal" aria-label="Im Ziel {0} von {1} Figuren">Im Ziel <strong>{0}/{1}</strong>'
                    ' · verdeckt: <strong>{2}</strong> Laternen</p>').format(
        goal.get("anzahl", 0), goal.get("ende_bei", 5), deck)]
    parts.append(Markup('<ul class="koi-standings" aria-label="Zwischenstand">{}</ul>').format(standings))
    if board.get("beendet"):
        ende = board.get("ende") or {}
        parts.append(Markup('<p class="koi-end">Die Partie ist zu Ende: {}.</p>').format(
            END_REASONS.get(str(ende.get("grund")), str(ende.get("grund")))))
    else:
        ending = [move for move in _moves(view) if move.get("bestaetigt")]
        near = int(goal.get("ende_bei", 5)) - int(goal.get("anzahl", 0))
        if ending:
            parts.append(Markup('<p class="warning koi-warning" role="alert">Achtung: {} beendet die Partie. '
                                'Stand jetzt: {}.</p>').format(
                "dieser Zug" if len(ending) == 1 else f"{len(ending)} deiner Züge",
                ", ".join(f"{_seat(view, seat)} {_number(score)}" for seat, score in enumerate(points))))
        elif near == 1 or deck <= 3:
            parts.append(Markup('<p class="warning koi-warning">Das Ende ist nah: {}.</p>').format(
                "noch eine Figur bis zum Zielbereich-Ende" if near == 1 else f"nur noch {deck} verdeckte Laternen"))
    folge = board.get("folge")
    if folge and not board.get("beendet"):
        art = DECISIONS.get(str(folge.get("art")), str(folge.get("art")))
        skip = [move for move in _moves(view) if move.get("aktion") == "verzichten"]
        what = {"libelle": "Eine deiner Figuren auf Stein 1 bis 8 springt einen Stein weiter – wähle sie auf ihrem "
                           "Pfad, oder verzichte.",
                "steg": "Eine eigene Figur auf einem anderen Pfad (Stein 1 bis 8) zieht einen Stein weiter – wähle "
                        "sie auf ihrem Pfad, oder verzichte.",
                "koi": "Nimm die oberste Laterne einer Ablage zusätzlich auf die Hand."}
        if skip or _moves(view):
            parts.append(Markup('<p class="koi-decision"><strong>{}:</strong> {} {}</p>').format(
                art, what.get(str(folge.get("art")), ""), Markup("").join(_button(m, view, "koi-skip") for m in skip)))
        else:
            parts.append(Markup('<p class="koi-decision">{}: {} entscheidet.</p>').format(
                art, _seat(view, int(board.get("dran", 0)))))
    return Markup('<section class="koi-status" aria-label="Stand">{}</section>').format(Markup("").join(parts))


def _figure_svg(seat: int, art: str, x: float, y: float, size: float = 7.5, extra: str = "",
                label: bool = True) -> Markup:
    """A seat's figure: the seat's shape with its number ("M" marks the master, larger)."""
    shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]
    size = size + 2 if art == "meister" else size
    if shape == "kreis":
        body = Markup('<circle cx="{}" cy="{}" r="{}"/>').format(_f(x), _f(y), _f(size))
    elif shape == "quadrat":
        body = Markup('<rect x="{}" y="{}" width="{}" height="{}"/>').format(
            _f(x - size * .9), _f(y - size * .9), _f(1.8 * size), _f(1.8 * size))
    elif shape == "dreieck":
        body = Markup('<polygon points="{},{} {},{} {},{}"/>').format(
            _f(x), _f(y - size - 1.5), _f(x - size - 1.5), _f(y + size * .8), _f(x + size + 1.5), _f(y + size * .8))
    else:
        body = Markup('<polygon points="{},{} {},{} {},{} {},{}"/>').format(
            _f(x), _f(y - size - 1.5), _f(x + size + 1.5), _f(y), _f(x), _f(y + size + 1.5), _f(x - size - 1.5), _f(y))
    mark = (f"{seat + 1}M" if size > 9 else "M") if art == "meister" else str(seat + 1)
    text = Markup('<text x="{}" y="{}">{}</text>').format(_f(x), _f(y + size * .4), mark) if label else ""
    return Markup('<g class="koi-fig koi-seat{} koi-{}{}">{}{}</g>').format(seat % 4, art, extra, body, text)


def _f(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


FIGURE_SPOTS = {1: ((0, 0),), 2: ((-8, 0), (8, 0)), 3: ((-8, -7), (8, -7), (0, 7)),
                4: ((-8, -7), (8, -7), (-8, 7), (8, 7))}
"""Where the figures on one stone stand, relative to its centre: on the stone, as on the game's board."""


def _path(view: dict[str, Any], board: dict[str, Any], path: dict[str, Any], steps: list[dict[str, Any]],
          marks: dict[str, Any]) -> Markup:
    colour = str(path.get("farbe"))
    name = _name(colour)
    stones = path.get("steine") or []
    figures: dict[int, list[tuple[int, str]]] = {}
    for player in board.get("spieler") or []:
        figure = (player.get("figuren") or {}).get(colour)
        if figure:
            figures.setdefault(int(figure["stein"]), []).append((int(player["platz"]), str(figure["art"])))
    ghost = marks.get("ghost_figure")
    ghost_stone = ghost[1] if ghost and ghost[0] == colour else None
    width = STONE_X0 * 2 + STONE_GAP * (len(stones) - 1)
    drawn = []
    for stone in stones:
        number = int(stone["stein"])
        x = STONE_X0 + STONE_GAP * (number - 1)
        tile = stone.get("plaettchen")
        here = sorted(figures.get(number, []))
        words = [f"Stein {number}, Wert {_number(stone['wert'])}"]
        if tile:
            words.append(f"Plättchen {TILES.get(tile, (tile, ''))[0]}")
        for seat, art in here:
            words.append(f"{FIGURES.get(art, art)} von {_seat(view, seat)}")
        classes = "koi-stone" + (" koi-goalstone" if number >= 7 else "") + (
            " target" if number == ghost_stone else "")
        # The stone's number inside it (the words say "Stein 5"), its value below it; figures stand on it.
        parts = [Markup('<circle class="{}" cx="{}" cy="{}" r="{}"/><text class="koi-no" x="{}" y="{}">{}</text>'
                        '<text class="koi-val" x="{}" y="{}">{}</text>')
                 .format(classes, x, STONE_Y, STONE_R, x, STONE_Y + 4, number, x, STONE_Y + STONE_R + 13,
                         _number(stone["wert"]))]
        if tile:
            letter = TILES.get(tile, (tile, "?"))[1]
            parts.append(Markup('<rect class="koi-tile koi-tile-{}" x="{}" y="1" width="30" height="14" rx="4"/>'
                                '<text class="koi-tiletext" x="{}" y="12">{}</text>').format(
                tile, x - 15, x, letter))
        crowd = len(here) + (1 if number == ghost_stone else 0)
        spots = FIGURE_SPOTS.get(min(max(crowd, 1), 4), FIGURE_SPOTS[4])
        size = 9.0 if crowd <= 1 else 6.0
        for index, (seat, art) in enumerate(here[:4]):
            dx, dy = spots[index]
            extra = "".join(f" {mark}" for mark in sorted(marks.get("figures", {}).get((seat, colour), ())))
            parts.append(_figure_svg(seat, art, x + dx, STONE_Y + dy, size, extra))
        if number == ghost_stone and ghost:
            dx, dy = spots[min(len(here), 3)]
            parts.append(_figure_svg(int(ghost[2]), str(ghost[3]), x + dx, STONE_Y + dy, size, " ghost"))
            words.append("hierher zöge deine Figur")
        drawn.append(Markup('<g role="img" aria-label="{}">{}</g>').format(", ".join(words), Markup("").join(parts)))
    end = path.get("endstein") or {}
    arrived = ", ".join(_seat(view, int(seat)) for seat in end.get("erreicht") or []) or "noch niemand"
    teahouse = ""
    if end.get("teehaus_bonus") is not None:
        bonus = int(end.get("teehaus_bonus") or 0)
        teahouse = f" · Teehaus: {'+' + str(bonus) + ' zu haben' if bonus else 'kein Bonus mehr'}"
    figures_words = "; ".join(f"{FIGURES.get(art, art)} von {_seat(view, seat)} auf Stein {number}"
                              for number, here in sorted(figures.items()) for seat, art in here) or "keine Figuren"
    buttons = Markup("").join(_button(move, view, "koi-step") for move in steps)
    return Markup(
        '<li class="koi-path koi-c-{0}" aria-label="Pfad {1}: {2}">'
        '<div class="koi-pathhead"><span class="koi-letter" aria-hidden="true">{3}</span> <strong>{1}</strong>'
        '<span class="koi-arrived"> · Endstein: {4}{5}</span></div>'
        '<svg class="koi-pathsvg" viewBox="0 0 {6} 70" role="group" aria-label="Steine des Pfads {1}">'
        '<line class="koi-line" x1="{7}" y1="{11}" x2="{8}" y2="{11}"/>{9}</svg>{10}</li>').format(
        colour, name, figures_words, LETTERS.get(colour, "?"), arrived, teahouse, width, STONE_X0,
        width - STONE_X0, Markup("").join(drawn),
        Markup('<div class="koi-targets">{}</div>').format(buttons) if steps else "", STONE_Y)


def _paths(view: dict[str, Any], board: dict[str, Any], marks: dict[str, Any]) -> Markup:
    steps: dict[str, list[dict[str, Any]]] = {}
    for move in _moves(view):
        if move.get("aktion") == "schritt":
            steps.setdefault(str(move.get("pfad")), []).append(move)
    items = Markup("").join(_path(view, board, path, steps.get(str(path.get("farbe")), []), marks)
                            for path in board.get("pfade") or [])
    legend = Markup("").join(
        Markup('<li><svg class="koi-legend" viewBox="0 0 24 24" aria-hidden="true">{}</svg>{}</li>').format(
            _figure_svg(seat, "pilger", 12, 12, 8), _seat(view, seat))
        for seat in range(int(board.get("plaetze") or 0)))
    tiles = "P Perle · L Libelle · B1–B3 Kirschblüte" + (
        " · St Steg · Koi" if (board.get("einstellungen") or {}).get("spielart") == "laternenfest" else "")
    return Markup('<section class="koi-paths" aria-label="Pfade"><h3>Pfade zum Teehaus</h3>'
                  '<ul class="koi-legendlist" aria-label="Figuren der Spieler (M: Meister)">{}</ul>'
                  '<ol class="koi-pathlist">{}</ol><p class="koi-tilekey">{} · M Meister · Stein 7–9: Zielbereich</p>'
                  '</section>').format(legend, items, tiles)


def _hand_targets(view: dict[str, Any], hand: list[dict[str, Any]]) -> dict[tuple[str, str], list[Markup]]:
    """The `legen` moves as buttons, by where they go ("reihe"/"ablage", colour), each shown while one of the
    hand positions holding its lantern is chosen."""
    positions: dict[tuple[str, int], list[int]] = {}
    for index, item in enumerate(hand[:MAX_HAND]):
        positions.setdefault((str(item.get("farbe")), int(item.get("wert", -1))), []).append(index)
    targets: dict[tuple[str, str], list[Markup]] = {}
    for move in _moves(view):
        action = move.get("aktion")
        if action not in ("anlegen", "abwerfen"):
            continue
        colour = str(move.get("farbe"))
        where = positions.get((colour, int(move.get("wert", -1))), [])
        if not where:
            continue
        classes = "koi-target " + " ".join(f"koi-t-{index}" for index in where)
        targets.setdefault(("reihe" if action == "anlegen" else "ablage", colour), []).append(
            _button(move, view, classes))
    return targets


def _piles(view: dict[str, Any], board: dict[str, Any], targets: dict[tuple[str, str], list[Markup]],
           marks: dict[str, Any]) -> Markup:
    takes: dict[str, list[dict[str, Any]]] = {}
    deck_moves = []
    for move in _moves(view):
        if move.get("aktion") == "koi":
            takes.setdefault(str(move.get("farbe")), []).append(move)
        elif move.get("aktion") == "ziehen":
            if move.get("von") == "stapel":
                deck_moves.append(move)
            else:
                takes.setdefault(str(move.get("von")), []).append(move)
    deck = int((board.get("stapel") or {}).get("anzahl", 0))
    aside = int((board.get("beiseite") or {}).get("anzahl", 0))
    pile_marks: dict[str, set[str]] = marks.get("piles") or {}
    deck_class = "".join(f" {mark}" for mark in sorted(pile_marks.get("stapel", ())))
    items = [Markup('<li class="koi-pile koi-deck{3}" aria-label="Stapel: {0} verdeckte Laternen">'
                    '<span class="koi-pilehead">Stapel</span><span class="koi-card koi-back">{0}</span>{1}{2}</li>')
             .format(deck, Markup(" <small>({} beiseite)</small>").format(aside) if aside else "",
                     Markup("").join(_button(move, view, "koi-draw", "Verdeckt ziehen") for move in deck_moves),
                     deck_class)]
    discarded = board.get("abgeworfen")
    for colour in COLOURS:
        pile = list((board.get("ablagen") or {}).get(colour) or [])
        top = (Markup('<span class="koi-card koi-c-{}" aria-hidden="true">{}&#8239;{}</span>').format(
            colour, LETTERS[colour], pile[-1]) if pile else Markup('<span class="koi-card koi-empty">–</span>'))
        below = ", ".join(str(value) for value in pile[:-1])
        words = f"Ablage {_name(colour)}: " + (f"oben {pile[-1]}" + (f", darunter {below}" if below else "")
                                              if pile else "leer")
        if discarded == colour:
            words += " (eben abgeworfen, nicht nehmbar)"
        buttons = [_button(move, view, "koi-take",
                           f"{'Koi: ' if move.get('aktion') == 'koi' else ''}{_name(colour)} {pile[-1] if pile else ''}"
                           " nehmen") for move in takes.get(colour, [])]
        buttons += targets.get(("ablage", colour), [])
        ghost = marks.get("ghost_pile")
        if ghost and ghost[0] == colour:
            top = Markup('<span class="koi-card koi-c-{} ghost" aria-label="{} käme hierher">{}&#8239;{}</span>'
                         ).format(colour, f"{_name(colour)} {ghost[1]}", LETTERS[colour], ghost[1])
        extra = "".join(f" {mark}" for mark in sorted(pile_marks.get(colour, ())))
        items.append(Markup('<li class="koi-pile{}" aria-label="{}"><span class="koi-pilehead">{}</span>{}'
                            '<span class="koi-under">{}</span>{}</li>').format(
            extra, words, _name(colour), top, f"darunter {below}" if below else "", Markup("").join(buttons)))
    return Markup('<section class="koi-piles" aria-label="Stapel und Ablagen"><h3>Stapel und Ablagen</h3>'
                  '<ul class="koi-pilelist">{}</ul></section>').format(Markup("").join(items))


def _brings(item: dict[str, Any]) -> str:
    info = item.get("bringt")
    if not item.get("passt") or not isinstance(info, dict):
        return "passt in keine deiner Reihen"
    if info.get("art") == "neuer_pfad":
        if info.get("fragt"):
            return (f"neuer Pfad: Pilger {_number(info.get('punkte', 0))} oder Meister "
                    f"{_number(info.get('punkte_meister') or 0)}")
        return f"neuer Pfad: {FIGURES.get(str(info.get('figur')), 'Figur')} {_number(info.get('punkte', 0))}"
    if info.get("art") == "schritt":
        words = f"{FIGURES.get(str(info.get('figur')), 'Figur')} → Stein {info.get('nach')} " \
                f"({_number(info.get('punkte', 0))})"
        if info.get("plaettchen"):
            words += f", {TILES.get(str(info['plaettchen']), (str(info['plaettchen']), ''))[0]}"
        return words
    if info.get("nur_reihe"):
        return "Endstein erreicht: nur Reihe"
    return "Endstein erreicht: eine andere Figur zieht"


def hand_mark(view: dict[str, Any]) -> str:
    """The own hand as the board writes it into `data-hand` (tests: another seat's hand never shows)."""
    hand = ((view.get("board") or {}).get("du") or {}).get("hand") or []
    return " ".join(f"{item.get('farbe')}-{item.get('wert')}" for item in hand)


def _hand(view: dict[str, Any], board: dict[str, Any]) -> Markup:
    own = board.get("du")
    if not isinstance(own, dict):
        return Markup("")
    hand = own.get("hand") or []
    choosing = any(move.get("aktion") in ("anlegen", "abwerfen") for move in _moves(view))
    cards = []
    for index, item in enumerate(hand):
        colour = str(item.get("farbe"))
        words = f"{_lantern(item)}: {_brings(item)}"
        if item.get("gegner"):
            words += "; passt auch bei " + ", ".join(_seat(view, int(seat)) for seat in item["gegner"])
        fits = " koi-fits" if item.get("passt") else " koi-nofit"
        face = Markup('<span class="koi-card koi-c-{}{}" aria-hidden="true">{}&#8239;{}</span>').format(
            colour, fits, LETTERS.get(colour, "?"), item.get("wert"))
        if choosing and index < MAX_HAND:
            cards.append(Markup('<li><label class="koi-pickcard"><input type="radio" name="koi-wahl" '
                                'class="koi-pick" id="koi-pick-{}" data-passt="{}" aria-label="{}">{}</label></li>')
                         .format(index, "1" if item.get("passt") else "0", words, face))
        else:
            cards.append(Markup('<li aria-label="{}">{}</li>').format(words, face))
    hint = (Markup('<p class="koi-hint">Tippe eine Laterne an: unter deinen Reihen und auf den Ablagen erscheinen '
                   'die Möglichkeiten.</p>') if choosing else "")
    return Markup('<section class="koi-hand" aria-label="Deine Hand: {} Laternen" data-hand="{}"><h3>Deine Hand</h3>'
                  '{}<ul class="koi-cards">{}</ul></section>').format(
        len(hand), hand_mark(view), hint, Markup("").join(cards))


def _rows(player: dict[str, Any], targets: dict[tuple[str, str], list[Markup]] | None,
          marks: dict[str, Any]) -> Markup:
    rows = []
    seat = int(player.get("platz", 0))
    for colour in COLOURS:
        row = (player.get("reihen") or {}).get(colour) or {}
        values = list(row.get("werte") or [])
        way = WAYS.get(row.get("richtung"), "Richtung offen")
        row_marks = (marks.get("rows") or {}).get((seat, colour), set())
        cells = Markup("").join(Markup('<span class="koi-card koi-small koi-c-{}{}">{}</span>').format(
            colour, "".join(f" {m}" for m in sorted(row_marks)) if index == len(values) - 1 else "", value)
            for index, value in enumerate(values))
        ghost = marks.get("ghost_row")
        if ghost and ghost[0] == seat and ghost[1] == colour:
            cells += Markup('<span class="koi-card koi-small koi-c-{} ghost">{}</span>').format(colour, ghost[2])
        words = f"Reihe {_name(colour)}, {way}, {len(values)} Laternen" + (
            f": {', '.join(str(v) for v in values)}" if values else "")
        arrow = {"auf": "↑", "ab": "↓"}.get(str(row.get("richtung")), "·")
        buttons = Markup("").join((targets or {}).get(("reihe", colour), []))
        rows.append(Markup('<li class="koi-row{}" aria-label="{}"><span class="koi-letter koi-c-{}" aria-hidden="true">'
                           '{}</span><span class="koi-way" aria-hidden="true">{}</span>'
                           '<span class="koi-rowcards" aria-hidden="true">{}</span>{}</li>').format(
            " last" if "last" in row_marks else "", words, colour, LETTERS[colour], arrow,
            cells or Markup('<span class="koi-emptyrow">leer</span>'),
            Markup('<span class="koi-targets">{}</span>').format(buttons) if buttons else ""))
    return Markup('<ul class="koi-rows">{}</ul>').format(Markup("").join(rows))


def _player(view: dict[str, Any], board: dict[str, Any], player: dict[str, Any],
            targets: dict[tuple[str, str], list[Markup]] | None, marks: dict[str, Any]) -> Markup:
    seat = int(player.get("platz", 0))
    me = seat == board.get("ich")
    tiles = player.get("plaettchen") or {}
    counters = ", ".join(f"{TILE_COUNTERS[kind]} {tiles.get(kind, 0)}" for kind in TILE_COUNTERS
                         if kind in ("perle", "libelle", "bluete") or tiles.get(kind))
    facts = [f"{player.get('hand', 0)} Laternen auf der Hand", f"Pilger frei {player.get('pilger_frei', 0)}",
             f"Meister {'frei' if player.get('meister_frei') else 'unterwegs'}", counters,
             f"Blütenpunkte {player.get('blueten', 0)}"]
    if (board.get("einstellungen") or {}).get("spielart") == "laternenfest":
        facts.append(f"Teehaus-Bonus {player.get('teehaus', 0)}")
    known = player.get("hand_bekannt") or []
    if known and not me:
        facts.append("offen genommen: " + ", ".join(_lantern(item) for item in known))
    last = (player.get("zuletzt") or {}).get("text") if isinstance(player.get("zuletzt"), dict) else None
    lines = Markup("").join(Markup("<li>{}</li>").format(line.get("label", ""))
                            for line in player.get("rechenweg") or [] if isinstance(line, dict))
    turn = " koi-turn" if board.get("dran") == seat and not board.get("beendet") else ""
    legend = Markup('<svg class="koi-legend" viewBox="0 0 24 24" aria-hidden="true">{}</svg>').format(
        _figure_svg(seat, "pilger", 12, 12, 8))
    return Markup(
        '<section class="koi-player{0}{1}" aria-label="{2}{3}: {4}">'
        '<h3>{5}{2}{3} · <span class="koi-points">{4}</span></h3>'
        '<p class="koi-facts">{6}</p>{7}{8}<details><summary>Rechenweg</summary><ul>{9}</ul></details></section>'
        ).format(" koi-me" if me else "", turn, _seat(view, seat), " – du" if me else "",
                 _points(int(player.get("punkte", 0))), legend, " · ".join(facts),
                 Markup('<p class="koi-last">zuletzt: {}</p>').format(last) if last else "",
                 _rows(player, targets if me else None, marks), lines)


def _points(value: int) -> str:
    """"1 Punkt", "−4 Punkte", with the real minus sign."""
    return f"{_number(value) if value < 0 else value} Punkt{'' if abs(value) == 1 else 'e'}"


def _effects_marks(view: dict[str, Any]) -> list[tuple[int, bool, list[dict[str, Any]]]] | None:
    """Per seat with a last turn in the view's `last_moves`: (seat, its newest event?, the turn's effects)."""
    moves = view.get("last_moves")
    if not isinstance(moves, list):
        return None
    return [(seat, entry.get("n") == view.get("n"), [e for e in entry.get("effects") or [] if isinstance(e, dict)])
            for seat, entry in enumerate(moves) if isinstance(entry, dict)]


def _marks(view: dict[str, Any], arriving: bool = True) -> dict[str, Any]:
    """What the opponents' last turns touched (`last`: the figures moved, the row laid to, the pile discarded to
    or taken from, the deck drawn from) and what arrived in the newest event (`arrive`), from `last_moves`;
    without it, from each opponent's `zuletzt` (the view's last move per seat)."""
    you = view.get("you")
    figures: dict[tuple[int, str], set[str]] = {}
    piles: dict[str, set[str]] = {}
    rows: dict[tuple[int, str], set[str]] = {}
    entries = _effects_marks(view)

    def add(seat: int, newest: bool, kind: str, where: str) -> None:
        wanted = ({"last"} if seat != you else set()) | ({"arrive"} if newest and arriving else set())
        if kind == "genommen":
            wanted.discard("arrive")
        if not wanted:
            return
        if kind == "figur":
            figures.setdefault((seat, where), set()).update(wanted)
        elif kind == "reihe":
            rows.setdefault((seat, where), set()).update(wanted)
        else:
            piles.setdefault(where, set()).update(wanted)

    if entries is not None:
        for seat, newest, effects in entries:
            for effect in effects:
                key, params = str(effect.get("key")), effect.get("params") or {}
                colour = str(params.get("farbe"))
                if key in ("speedkoi.schritt", "speedkoi.neue_figur"):
                    add(seat, newest, "figur", colour)
                elif key == "speedkoi.anlegen":
                    add(seat, newest, "reihe", colour)
                elif key == "speedkoi.abwerfen":
                    add(seat, newest, "ablage", colour)
                elif key in ("speedkoi.nimmt", "speedkoi.koi_nimmt"):
                    add(seat, newest, "genommen", colour)
                elif key == "speedkoi.zieht":
                    add(seat, newest, "genommen", "stapel")
    else:
        for player in (view.get("board") or {}).get("spieler") or []:
            seat = int(player.get("platz", -1))
            last = player.get("zuletzt")
            if seat == you or not isinstance(last, dict):
                continue
            for part in (last.get("params") or {}).get("teile") or []:
                kind = part[0] if isinstance(part, list) and part else None
                if kind == "figur" and len(part) > 2:
                    add(seat, False, "figur", str(part[2]))
                elif kind == "legte":
                    add(seat, False, "reihe", str(part[1]))
                elif kind == "warf":
                    add(seat, False, "ablage", str(part[1]))
                elif kind in ("nahm", "koi"):
                    add(seat, False, "genommen", str(part[1]))
                elif kind == "zog":
                    add(seat, False, "genommen", "stapel")
    return {"figures": figures, "piles": piles, "rows": rows}


def render(view: dict[str, Any]) -> Markup:
    """The seat's Speedkoi board (docs/services/web.md: Speedkoi's board)."""
    return _draw(view, _marks(view))


def _draw(view: dict[str, Any], marks: dict[str, Any], extra: str = "") -> Markup:
    """The paths first; beside them on a desktop (below on a phone) the standing, the own hand, the own rows and
    the piles; the other players below."""
    board = view.get("board")
    if not isinstance(board, dict):
        return Markup('<div class="board koi" aria-label="Speedkoi"></div>')
    own: dict[str, Any] = board["du"] if isinstance(board.get("du"), dict) else {}
    targets = _hand_targets(view, list(own.get("hand") or []))
    players = list(board.get("spieler") or [])
    me = board.get("ich")
    mine = [p for p in players if p.get("platz") == me]
    others = [p for p in players if p.get("platz") != me]
    spielart = "Laternenfest" if (board.get("einstellungen") or {}).get("spielart") == "laternenfest" else "klassisch"
    return Markup('<div class="board koi{}" aria-label="Speedkoi, {}" data-n="{}"><div class="koi-main">'
                  '<div class="koi-left">{}</div><div class="koi-right">{}{}{}{}</div></div>'
                  '<div class="koi-players">{}</div></div>').format(
        extra, spielart, view.get("n", ""), _paths(view, board, marks), _status(view, board), _hand(view, board),
        Markup("").join(_player(view, board, player, targets, marks) for player in mine),
        _piles(view, board, targets, marks),
        Markup("").join(_player(view, board, player, targets, marks) for player in others))


# ---- what the board declares for the game page (docs/services/web.md) -----------------------------------------

PROMPTS = {"legen": "Lege eine Laterne an oder wirf eine ab",
           "ziehen": "Ziehe eine Laterne: verdeckt vom Stapel oder oben von einer Ablage",
           "libelle": "Libelle: ziehe eine deiner Figuren auf Stein 1 bis 8 einen Stein weiter, oder verzichte",
           "steg": "Steg: ziehe eine Figur auf einem anderen Pfad einen Stein weiter, oder verzichte",
           "koi": "Koi: nimm die oberste Laterne einer Ablage auf die Hand"}


def _named_text(view: dict[str, Any], text: str) -> str:
    """A recorded text with "Platz 2" (a seat, in the rule module's words) replaced by the seat's name."""
    return named(text, view)


def prompt(view: dict[str, Any]) -> str | None:
    """What to do now, in the game's words, while the viewer has to decide."""
    board = view.get("board") or {}
    you = view.get("you")
    if you is None or you not in (view.get("to_move") or []) or board.get("beendet"):
        return None
    return PROMPTS.get(str(board.get("phase")), "Du bist am Zug")


def seat_scores(view: dict[str, Any]) -> list[str | None]:
    """Per seat its points as they stand ("−4 Punkte", "1 Punkt")."""
    players = {int(p.get("platz", -1)): p for p in (view.get("board") or {}).get("spieler") or []}
    return [_points(int(players[seat].get("punkte", 0))) if seat in players else None
            for seat in range(len(view.get("seats") or []))]


def _effect_words(effect: dict[str, Any]) -> str | None:
    """A turn's effect as a short part of a last-move line ("legt Gold 7 an", "Pilger Gold → Stein 5 (+2)")."""
    key, params = str(effect.get("key")), effect.get("params") or {}
    lantern = f"{_name(params.get('farbe'))} {params.get('wert')}"
    if key == "speedkoi.anlegen":
        return f"legt {lantern} an"
    if key in ("speedkoi.schritt", "speedkoi.neue_figur"):
        via = {"libelle": "Libelle: ", "steg": "Steg: ", "endstein": "statt vom Endstein: "}.get(
            str(params.get("anlass") or ""), "")
        value = params.get("wert")
        return (f"{via}{FIGURES.get(str(params.get('art')), 'Figur')} {_name(params.get('farbe'))} → Stein "
                f"{params.get('stein')}" + (f" ({_number(value)})" if isinstance(value, int) else ""))
    if key == "speedkoi.plaettchen":
        tile = str(params.get("plaettchen"))
        return f"nimmt {'einen' if tile in ('steg', 'koi') else 'eine'} {TILES.get(tile, (tile, ''))[0]}"
    if key == "speedkoi.teehaus":
        return f"Teehaus +{params.get('bonus')}"
    if key == "speedkoi.nur_reihe":
        return "nur Reihe"
    if key == "speedkoi.verzichtet":
        return f"verzichtet auf {'die Libelle' if params.get('plaettchen') == 'libelle' else 'den Steg'}"
    if key == "speedkoi.abwerfen":
        return f"wirft {lantern} ab"
    if key == "speedkoi.koi_nimmt":
        return f"Koi: nimmt {lantern}"
    if key == "speedkoi.nimmt":
        return f"nimmt {lantern} von der Ablage"
    if key == "speedkoi.zieht":
        return "zieht verdeckt"
    return None


def last_move_lines(view: dict[str, Any]) -> list[str]:
    """One line per opponent with a last turn: "Computer 1: legt Gold 7 an, Pilger Gold → Stein 5 (+2), zieht
    verdeckt"."""
    lines = []
    for seat, _newest, effects in _effects_marks(view) or []:
        if seat == view.get("you"):
            continue
        parts = [words for words in (_effect_words(effect) for effect in effects) if words]
        if parts:
            lines.append(f"{_seat(view, seat)}: {', '.join(parts)}")
    return lines


def _step_words(step: Any) -> str:
    if not isinstance(step, dict):
        return "keine Figur zieht (nur Reihe)"
    words = (f"{FIGURES.get(str(step.get('figur')), 'Figur')} {_name(step.get('pfad'))} auf Stein {step.get('nach')}"
             f" ({_number(step.get('punkte', 0))})")
    tile = step.get("plaettchen")
    if tile:
        words += f", dazu {'ein' if tile in ('steg', 'koi') else 'eine'} {TILES.get(str(tile), (str(tile), ''))[0]}"
    if step.get("teehaus"):
        words += f", Teehaus +{step['teehaus']}"
    if step.get("ins_ziel"):
        words += ", in den Zielbereich"
    return words


def preview_line(move: Any, preview: Any, view: dict[str, Any]) -> str:
    """The move's gain in one line: "+2 Punkte: Pilger Gold auf Stein 5 (+2), dazu eine Perle"."""
    board = view.get("board") or {}
    body = preview_body(preview)
    if isinstance(move, dict) and move.get("zurueck"):  # "Zurück": the platform's undo, not a move of the game
        return "Deinen letzten Zug zurücknehmen"
    move = move if isinstance(move, dict) else {}
    action = str(body.get("aktion") or move.get("aktion"))
    you = view.get("you")
    before = next((int(p.get("punkte", 0)) for p in board.get("spieler") or [] if p.get("platz") == you), 0)
    after = body.get("punkte_danach")
    gain = (int(after[you]) - before) if isinstance(after, list) and isinstance(you, int) and you < len(after) else 0
    gained = f"{'+' if gain > 0 else ''}{_points(gain)}" if gain else "Keine Punkte"
    lantern = body.get("laterne") if isinstance(body.get("laterne"), dict) else None
    named = f"{_name(lantern.get('farbe'))} {lantern.get('wert')}" if lantern else ""
    if action == "anlegen":
        step = body.get("schritt")
        bringt: dict[str, Any] = body["bringt"] if isinstance(body.get("bringt"), dict) else {}
        if bringt.get("art") == "endstein" and isinstance(step, dict):
            line = f"{gained}: {named} angelegt, dafür zieht {_step_words(step)}"
        else:
            line = f"{gained}: {named} angelegt, {_step_words(step)}"
    elif action == "abwerfen":
        users = [_seat(view, int(seat)) for seat in body.get("gegner") or []]
        line = f"{named} auf die Ablage: " + (f"passt bei {', '.join(users)}" if users else
                                             "passt bei niemandem in eine begonnene Reihe")
    elif action == "schritt":
        line = f"{gained}: {_step_words(body.get('schritt'))}"
    elif action == "verzichten":
        line = "Du verzichtest; dann ziehst du eine Laterne"
    elif action == "koi":
        line = f"Koi: {named} zusätzlich auf die Hand"
    elif action == "ziehen":
        if lantern is None:
            left = body.get("stapel_danach")
            line = "Eine verdeckte Laterne ziehen" + (f" (danach {left} im Stapel)" if isinstance(left, int) else "")
        else:
            tops = (board.get("du") or {}).get("ablagen_oben") or []
            fits = any((t.get("farbe"), t.get("wert")) == (lantern.get("farbe"), lantern.get("wert"))
                       and t.get("passt") for t in tops if isinstance(t, dict))
            line = f"{named} auf die Hand" + (" – passt in deine Reihe" if fits else "")
    else:
        line = move_label(move, view)
    if body.get("endet"):
        line += " – beendet die Partie"
    return line


def render_ghost(view: dict[str, Any], move: Any, preview: Any) -> Markup:
    """The board with the move on it: the figure's target stone marked (`target`) with a ghost figure on it, the
    lantern as a ghost card in the own row or on its pile, a pile or the deck to draw from marked."""
    board = view.get("board") or {}
    body = preview_body(preview)
    move = move if isinstance(move, dict) else {}
    marks = _marks(view, arriving=False)
    you = view.get("you")
    step = body.get("schritt")
    if isinstance(step, dict) and isinstance(you, int):
        marks["ghost_figure"] = (str(step.get("pfad")), int(step.get("nach", 0)), you, str(step.get("figur")))
    action = move.get("aktion")
    if action == "anlegen" and isinstance(you, int):
        marks["ghost_row"] = (you, str(move.get("farbe")), move.get("wert"))
    elif action == "abwerfen":
        marks["ghost_pile"] = (str(move.get("farbe")), move.get("wert"))
    elif action in ("ziehen", "koi"):
        where = str(move.get("von") if action == "ziehen" else move.get("farbe"))
        marks["piles"] = {**marks["piles"], where: {*marks["piles"].get(where, set()), "target"}}
    if not board:
        return render(view)
    return _draw(view, marks, " ghosted")


def phrase(effect: Any, view: dict[str, Any]) -> str | None:
    """The board's German for a recorded effect that reads wrong: seats by name (the rule module writes "Platz 2"),
    "+1 Punkt" for a Kirschblüte of 1; None where the recorded text is right."""
    if not isinstance(effect, dict) or not isinstance(effect.get("text"), str):
        return None
    text = str(effect["text"])
    fixed = text.replace(": +1 Punkte.", ": +1 Punkt.")
    fixed = re.sub(r"\b(mit|je) (−?1) Punkten\b", r"\1 \2 Punkt", fixed).replace(" und 1 Perlen.", " und 1 Perle.")
    fixed = _named_text(view, fixed)
    return None if fixed == text else fixed


def thumbnail() -> Markup:
    """A small Speedkoi picture in the board's style: one path of nine stones with tiles above, figures standing on
    their stones, the goal area dashed, and three lanterns."""
    stones = []
    values = ("−4", "−3", "−2", "+1", "+2", "+3", "+6", "+7", "+10")
    for index, value in enumerate(values):
        x = 14 + 22 * index
        dash = ' stroke-dasharray="3 1.5" stroke-width="2"' if index >= 6 else ' stroke-width="1.2"'
        stones.append(f'<circle cx="{x}" cy="40" r="9" fill="#eef3f1" stroke="#566"{dash}/>'
                      f'<text x="{x}" y="60" font-size="7" font-weight="700" text-anchor="middle">{value}</text>')
        if index in (1, 3, 5, 7):
            stones.append(f'<rect x="{x - 7}" y="20" width="14" height="8" rx="2" fill="#d9f2ff" stroke="#333" '
                          'stroke-width=".6"/>')
    figures = ('<circle cx="80" cy="40" r="6" fill="#ffd28a" stroke="#111"/>'
               '<rect x="141" y="34" width="12" height="12" fill="#9fd3ff" stroke="#111" stroke-width="2"/>')
    cards = "".join(f'<rect x="{30 + 34 * i}" y="70" width="26" height="22" rx="3" fill="{fill}" stroke="#333"/>'
                    f'<text x="{43 + 34 * i}" y="85" font-size="10" font-weight="700" text-anchor="middle">{text}'
                    '</text>' for i, (fill, text) in enumerate((("#f3d36b", "G 3"), ("#8e9be8", "I 7"),
                                                              ("#ef8a8a", "K 9"))))
    return Markup('<svg class="thumb thumb-speedkoi" viewBox="0 0 212 100" font-family="system-ui, sans-serif" '
                  'role="img" aria-label="Speedkoi: ein '
                  'Pfad aus neun Steinen mit Figuren und Laternen"><rect width="212" height="100" rx="6" '
                  'fill="#e8f1f4"/><line x1="14" y1="40" x2="190" y2="40" stroke="#9bb" stroke-width="3"/>'
                  + "".join(stones) + figures + cards + "</svg>")
