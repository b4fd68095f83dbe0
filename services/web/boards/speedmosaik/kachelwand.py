"""Werkstatt „Kachelwand“: pattern lines with their fill, the wall (fixed with its colour pattern, or free),
jokers, the floor with its penalties, box lid; a take is two clicks: a colour in a display, then a pattern
line (or the floor) of the player's own board; on the free wall the column as a button in the wall row."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from services.web.boards.speedmosaik import common as c
from services.web.boards.speedmosaik.last import fixed_column

WALL = ["blau", "gelb", "rot", "schwarz", "tuerkis"]
FLOOR = [-1, -1, -2, -2, -2, -3, -3]


def move_label(move: dict[str, Any], view: dict[str, Any]) -> str | None:
    board = view.get("board") or {}
    if "spalte" in move and len(move) <= 2:
        choice = _choice(view)
        where = f" für {c.name(choice.get('farbe'))} in Wandreihe {choice.get('reihe')}" if choice else ""
        points = [option.get("punkte") for option in (choice or {}).get("spalten") or []
                  if isinstance(option, dict) and option.get("spalte") == move["spalte"]]
        gain = f" ({points[0]:+d} Punkte)" if points and isinstance(points[0], int) else ""
        return f"Wand: Spalte {move['spalte']}{where}{gain}"
    if c.take_key(move) is None or "reihe" not in move:
        return None
    count = c.source_count(board, move)
    target = "Boden" if move["reihe"] == 0 else f"Musterreihe {move['reihe']}"
    return f"{count} × {c.name(move.get('farbe'))} {c.source_words(move)} → {target}"


def offers(move: dict[str, Any], view: dict[str, Any]) -> bool:
    """Whether the board has a button for this legal move: a take (a colour of a display or the centre, then a
    pattern line 1–5 or the floor 0 of the own board), or, while the seat places on the free wall, a column."""
    if "spalte" in move and c.take_key(move) is None:
        return _choice(view) is not None
    row = move.get("reihe")
    return c.take_key(move) is not None and isinstance(row, int) and 0 <= row <= len(WALL)


def _choice(view: dict[str, Any]) -> dict[str, Any] | None:
    me = view.get("you")
    for player in (view.get("board") or {}).get("spieler") or []:
        if player.get("platz") == me:
            wahl = (player.get("wandlegen") or {}).get("wahl")
            return wahl if isinstance(wahl, dict) else None
    return None


def _targets(view: dict[str, Any], groups: dict[str, list[dict[str, Any]]], row: int, row_words: str) -> Markup:
    """The hidden target buttons of one pattern line (row 0: the floor), one per take that may go there
    (`groups`: the view's takes by display and colour, `common.group_moves`)."""
    buttons = []
    for key, moves in groups.items():
        for move in moves:
            if move.get("reihe") == row:
                buttons.append(c.move_button(view, move, "hierher", f"{row_words}: {move_label(move, view)}",
                                             "mz-target", pick_for=key))
    return Markup("").join(buttons)


def _lines(view: dict[str, Any], player: dict[str, Any], mine: bool, shown: c.Shown) -> Markup:
    groups = c.group_moves(view) if mine else {}
    rows = []
    for line in player.get("musterreihen") or []:
        spaces, colour = int(line.get("felder", 0)), line.get("farbe")
        count, jokers = int(line.get("anzahl", 0)), int(line.get("joker", 0) or 0)
        tiles = [str(colour)] * count + ["joker"] * jokers
        words = f"Musterreihe {line.get('reihe')}, " + (
            f"{c.name(colour)}, {count + jokers} von {spaces} belegt" if tiles else f"leer, {spaces} Felder")
        if jokers:
            words += f" ({jokers} Joker)"
        key = ("reihe", player.get("platz"), line.get("reihe"))
        if key in shown.marks:
            words += ", eben belegt"
        # the line fills from the right, towards the wall: empty spaces, then what a preview would lay, then the
        # tiles (the newest leftmost; those of an opponent's last move arrive)
        drawn = list(reversed(tiles))
        arrived = min(shown.arrived(key), len(drawn))
        drawn = ["+" + tile for tile in drawn[:arrived]] + drawn[arrived:]
        ghosts = [str(tile) for tile in shown.ghost.get(key, [])][:max(0, spaces - len(tiles))]
        drawn = ["."] * (spaces - len(tiles) - len(ghosts)) + ["~" + tile for tile in ghosts] + drawn
        picture = c.tiles_svg(drawn)
        target = _targets(view, groups, int(line.get("reihe", 0)), words) if mine else Markup("")
        rows.append(Markup('<li class="mz-line{4}" aria-label="{0}"><span class="mz-num">{1}</span>'
                           '<span class="mz-right">{2}</span>{3}</li>').format(words, line.get("reihe"), picture,
                                                                               target, shown.classes(key)))
    return Markup('<ol class="mz-lines" aria-label="Musterreihen">{}</ol>').format(Markup("").join(rows))


def _wall(view: dict[str, Any], player: dict[str, Any], free: bool, mine: bool, shown: c.Shown) -> Markup:
    choice = _choice(view) if mine else None
    columns = {move.get("spalte"): move for move in view.get("legal_moves") or []
               if isinstance(move, dict) and "spalte" in move} if mine else {}
    rows = []
    for r, row in enumerate(player.get("wand") or [], start=1):
        cells = []
        for col, cell in enumerate(row, start=1):
            colour = cell.get("farbe")
            if not colour and not free:
                colour = WALL[(col - r) % 5]
            placed = bool(cell.get("belegt"))
            words = f"Wand Reihe {r}, Spalte {col}: " + (
                f"{c.name(colour)} belegt" if placed else (f"{c.name(colour)} frei" if colour else "frei"))
            key = ("wand", player.get("platz"), r, col)
            ghost = shown.ghost.get(key)
            if ghost and not placed:
                picture, state = c.tiles_svg(["~" + str(ghost)]), "mz-ghostcell"
            else:
                picture = c.tiles_svg([("+" if key in shown.marks else "") + str(colour)]) if colour \
                    else c.tiles_svg([], empty=1)
                state = "mz-on" if placed else "mz-off"
            state += shown.classes(key)
            if choice and choice.get("reihe") == r and col in columns:
                cells.append(c.move_button(view, columns[col], picture, move_label(columns[col], view) or "",
                                           f"mz-cell mz-choose {state}"))
            else:
                cells.append(Markup('<span class="mz-cell {0}" role="img" aria-label="{1}">{2}</span>').format(
                    state, words, picture))
        rows.append(Markup('<div class="mz-wallrow" role="group" aria-label="Wandreihe {0}">{1}</div>').format(
            r, Markup("").join(cells)))
    title = "Wand (frei)" if free else "Wand (fest)"
    return Markup('<div class="mz-wall" role="group" aria-label="{0}">{1}</div>').format(
        title, Markup("").join(rows))


def _floor(view: dict[str, Any], player: dict[str, Any], mine: bool, shown: c.Shown) -> Markup:
    tiles = [str(tile) for tile in player.get("boden") or []]
    words = f"Boden: {len(tiles)} von 7 belegt ({c.counted(tiles)}), Strafe {player.get('bodenstrafe', 0)}"
    key = ("boden", player.get("platz"))
    arrived = shown.arrived(key)
    drawn = tiles[:len(tiles) - arrived] + ["+" + tile for tile in tiles[len(tiles) - arrived:]] if arrived else tiles
    drawn = (drawn + ["~" + str(tile) for tile in shown.ghost.get(key, [])])[:7]
    picture = c.tiles_svg(drawn, empty=max(0, 7 - len(drawn)), marks=[f"−{-n}" for n in FLOOR])
    target = _targets(view, c.group_moves(view), 0, words) if mine else Markup("")
    return Markup('<div class="mz-floor{3}" aria-label="{0}"><span class="mz-name">Boden</span>{1}{2}</div>').format(
        words, picture, target, shown.classes(key))


def _player(view: dict[str, Any], player: dict[str, Any], free: bool, shown: c.Shown) -> Markup:
    mine = player.get("platz") == view.get("you")
    body = Markup('<div class="mz-kw">{0}{1}</div>{2}').format(
        _lines(view, player, mine, shown), _wall(view, player, free, mine, shown), _floor(view, player, mine, shown))
    rounds = player.get("rundenpunkte") or []
    extra = c.facts([("Volle Reihen", player.get("volle_reihen", 0)),
                     ("Runden", ", ".join(f"{p:+d}" for p in rounds) or "–")])
    lines = player.get("rechenweg") or []
    if lines:
        items = Markup("").join(Markup("<li>{}: {}</li>").format(line.get("label"), c.points_words(line.get("points")))
                                for line in lines if isinstance(line, dict))
        extra += Markup('<details><summary>Rechenweg der letzten Runde</summary><ul>{}</ul></details>').format(items)
    return Markup('<section class="mz-player{0}" aria-label="Tableau {1}">{2}{3}{4}</section>').format(
        " mz-mine" if mine else "", c.seat_name(view, player.get("platz")), c.player_head(view, player), body, extra)


def ghost(view: dict[str, Any], move: dict[str, Any], preview: dict[str, Any]) -> dict[tuple[Any, ...], Any]:
    """What a previewed move changes on the viewer's board: the tiles it lays (pattern line, floor, wall) and the
    display it takes from."""
    me = view.get("you")
    out: dict[tuple[Any, ...], Any] = {}
    if "spalte" in move and c.take_key(move) is None:
        row = preview.get("reihe")
        out[("wand", me, row, move.get("spalte"))] = preview.get("farbe")
        out[("reihe", me, row)] = []
        return out
    source = move.get("source", move.get("quelle"))
    colour = str(preview.get("farbe", move.get("farbe")))
    out[("quelle", source, move.get("schale") if source == "schale" else None)] = colour
    row = move.get("reihe")
    jokers = int(preview.get("joker_in_reihe", 0) or 0)
    into = int(preview.get("in_reihe", 0) or 0)
    line_colour = colour
    if colour == "joker":
        for player in (view.get("board") or {}).get("spieler") or []:
            if player.get("platz") == me and isinstance(row, int) and 0 < row <= len(player.get("musterreihen") or []):
                line_colour = str(player["musterreihen"][row - 1].get("farbe") or "joker")
    if isinstance(row, int) and row > 0:
        out[("reihe", me, row)] = [line_colour] * max(0, into - jokers) + ["joker"] * jokers
        wall = preview.get("wandpunkte") if isinstance(preview.get("wandpunkte"), dict) else None
        if preview.get("reihe_voll") and wall:
            column = wall.get("spalte") or fixed_column(row, line_colour)
            out[("wand", me, row, column)] = line_colour
    floor = ["startstein"] if preview.get("startstein") else []
    floor += [colour] * int(preview.get("auf_boden", 0) or 0)
    if floor or row == 0:
        out[("boden", me)] = floor
    return out


def render(view: dict[str, Any], shown: c.Shown = c.NOTHING, move: Any = None) -> Markup:
    board = view.get("board") or {}
    settings = board.get("einstellungen") or {}
    free = settings.get("wall") == "frei"
    lid = board.get("deckel") or {}
    start = board.get("startstein") or {}
    holder = "in der Mitte" if start.get("in_mitte") else c.seat_name(view, start.get("platz"))
    head = c.facts([("Runde", board.get("runde")), ("Wand", "frei" if free else "fest"),
                    ("Joker", "mit" if settings.get("jokers") == "mit" else "ohne"),
                    ("Beutel", (board.get("beutel") or {}).get("anzahl", 0)),
                    ("Deckel", lid.get("anzahl", 0)), ("Startstein", holder)])
    players = [_player(view, player, free, shown) for player in c.order_players(view, board.get("spieler") or [])]
    return c.root("kachelwand", view, Markup('<div class="mz-head">{}</div>').format(head),
                  c.displays(view, move_label, shown), players, move)


def prompt(view: dict[str, Any]) -> str:
    """What the viewer does now: a take, or the column of the free wall."""
    choice = _choice(view)
    if choice is not None and any(isinstance(move, dict) and "spalte" in move and c.take_key(move) is None
                                  for move in view.get("legal_moves") or []):
        return f"Wähle eine Wandspalte für {c.name(choice.get('farbe'))} in Wandreihe {choice.get('reihe')}"
    return "Nimm Fliesen aus einer Schale oder der Mitte, dann wähle die Musterreihe"
