"""Werkstatt „Kirchenfenster“: the eight strips with their pattern (front or back side) and panes, the
Glasermeister above them, the windows with their values, the breakage track, the palace side (Säulen or
Fensterfarbe), the round's bonus colour and the glass tower; a take is two clicks: a colour in a display,
then a strip (or the breakage track) of the player's own board."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from services.web.boards.speedmosaik import common as c


def move_label(move: dict[str, Any], view: dict[str, Any]) -> str | None:
    action = move.get("aktion")
    if action == "glasermeister":
        return "Glasermeister ganz nach links holen"
    if action == "fenster":
        choice = (view.get("board") or {}).get("fensterwahl") or {}
        where = f" für Fenster {choice.get('fenster')}" if choice.get("fenster") else ""
        return f"Scheibe {c.name(move.get('farbe'))}{where} wählen"
    if action == "nehmen" and c.take_key(move) is not None and "streifen" in move:
        count = c.source_count(view.get("board") or {}, move)
        target = "zerbrechen (Glasbruch)" if move["streifen"] == 0 else f"Streifen {move['streifen']}"
        return f"{count} × {c.name(move.get('farbe'))} {c.source_words(move)} → {target}"
    return None


def offers(move: dict[str, Any], view: dict[str, Any]) -> bool:
    """Whether the board has a button for this legal move: a take (a colour, then a strip 1–8 or the breakage
    track 0), the Glasermeister's return, or a pane while the seat chooses one for its window."""
    action = move.get("aktion")
    if action == "glasermeister":
        return True
    if action == "fenster":
        choice = (view.get("board") or {}).get("fensterwahl")
        return isinstance(choice, dict) and choice.get("platz") == view.get("you")
    strip = move.get("streifen")
    return action == "nehmen" and c.take_key(move) is not None and isinstance(strip, int) and 0 <= strip <= 8


def _targets(view: dict[str, Any], strip: int, words: str) -> Markup:
    buttons = []
    for key, moves in c.group_moves(view).items():
        for move in moves:
            if move.get("streifen") == strip:
                content = "hierher" if strip == 0 else "▲"  # narrow: eight strips side by side at 360 px
                buttons.append(c.move_button(view, move, content, f"{words}: {move_label(move, view)}",
                                             "mz-target", pick_for=key))
    return Markup("").join(buttons)


def _strips(view: dict[str, Any], player: dict[str, Any], mine: bool) -> Markup:
    master = player.get("glasermeister")
    items = []
    for strip in player.get("streifen") or []:
        number = strip.get("streifen")
        pattern, fields = list(strip.get("muster") or []), list(strip.get("felder") or [])
        if strip.get("fertig"):
            words = f"Streifen {number}: fertig (zum Fenster gewandert)"
            picture = Markup('<span class="mz-empty">fertig</span>')
        else:
            placed = sum(1 for field in fields if field)
            words = (f"Streifen {number}, Seite {strip.get('seite')}: {placed} von {len(pattern)} belegt; Muster "
                     + ", ".join(c.name(colour) for colour in pattern))
            cells = []
            for index, colour in enumerate(pattern):
                got = fields[index] if index < len(fields) else None
                cells.append(Markup('<span class="mz-cell {0}">{1}</span>').format(
                    "mz-on" if got else "mz-off", c.tiles_svg([got or colour])))
            picture = Markup('<span class="mz-column">{}</span>').format(Markup("").join(cells))
        head = Markup('<span class="mz-master" aria-label="Glasermeister">▼ G</span>') if master == number \
            else Markup('<span class="mz-master mz-none"></span>')
        target = _targets(view, int(number or 0), words) if mine else Markup("")
        items.append(Markup('<li class="mz-strip" aria-label="{0}">{1}<span class="mz-num">{2}</span>{3}{4}</li>')
                     .format(words + (", Glasermeister hier" if master == number else ""), head, number, picture,
                             target))
    return Markup('<ol class="mz-strips" aria-label="Streifen">{}</ol>').format(Markup("").join(items))


def _windows(view: dict[str, Any], player: dict[str, Any], mine: bool) -> Markup:
    board = view.get("board") or {}
    choice = board.get("fensterwahl") if mine else None
    choosing = isinstance(choice, dict) and choice.get("platz") == player.get("platz")
    items = []
    for window in player.get("fenster") or []:
        panes = list(window.get("scheiben") or [])
        words = f"Fenster {window.get('fenster')}, Wert {window.get('wert')}: {c.counted(panes)}"
        buttons = Markup("")
        if choosing and isinstance(choice, dict) and choice.get("fenster") == window.get("fenster"):
            buttons = Markup("").join(
                c.move_button(view, move, c.tiles_svg([move.get("farbe")]), move_label(move, view) or "",
                              "mz-choose")
                for move in view.get("legal_moves") or []
                if isinstance(move, dict) and move.get("aktion") == "fenster")
        items.append(Markup('<li class="mz-window" aria-label="{0}"><span class="mz-name">{1} · {2}</span>{3}{4}</li>')
                     .format(words, window.get("fenster"), window.get("wert"), c.tiles_svg(panes), buttons))
    return Markup('<div class="mz-name" aria-hidden="true">Fenster (Nummer · Wert)</div>'
                  '<ol class="mz-windows" aria-label="Fenster">{}</ol>').format(Markup("").join(items))


def _breakage(view: dict[str, Any], player: dict[str, Any], mine: bool) -> Markup:
    track = list((view.get("board") or {}).get("glasbruch_leiste") or [])
    state = player.get("glasbruch") or {}
    field = state.get("feld")
    cells = Markup("").join(
        Markup('<li class="{0}">{1}</li>').format("mz-here" if index == field else "", value)
        for index, value in enumerate(track, start=1))
    words = (f"Glasbruch-Leiste: Feld {field}, Wert {state.get('wert')}, {state.get('umlaeufe', 0)} Umläufe, "
             f"bisher {state.get('verloren', 0)} verloren")
    target = _targets(view, 0, "Glasbruch") if mine else Markup("")
    return Markup('<div class="mz-breakage" aria-label="{0}"><span class="mz-name">Glasbruch</span>'
                  '<ol class="mz-track" aria-hidden="true">{1}</ol>{2}</div>').format(words, cells, target)


def _palace(view: dict[str, Any], player: dict[str, Any]) -> Markup:
    side = (view.get("board") or {}).get("einstellungen", {}).get("palace", "saeulen")
    palace = player.get("palast") or {}
    if side == "fensterfarbe":
        colour = palace.get("fensterfarbe") or {}
        return Markup('<p class="mz-palace">Palast (Fensterfarbe): {0} volle Fenster, Farbe {1} × {2} → {3} Punkte'
                      '</p>').format(colour.get("volle_fenster", 0), c.name(colour.get("farbe")) if colour.get("farbe")
                                     else "–", colour.get("anzahl", 0), colour.get("punkte", 0))
    items = Markup("").join(
        Markup("<li>Säule {0} (Fenster {1}): {2} Rahmenfelder → {3} Punkte</li>").format(
            column.get("saeule"), "+".join(str(n) for n in column.get("fenster") or []),
            column.get("rahmenfelder", 0), column.get("punkte", 0))
        for column in palace.get("saeulen") or [])
    return Markup('<div class="mz-palace"><span class="mz-name">Palast (Säulen)</span><ul>{}</ul></div>').format(items)


def _player(view: dict[str, Any], player: dict[str, Any]) -> Markup:
    mine = player.get("platz") == view.get("you")
    master = [move for move in view.get("legal_moves") or []
              if mine and isinstance(move, dict) and move.get("aktion") == "glasermeister"]
    reset = Markup("").join(c.move_button(view, move, "Glasermeister nach links", move_label(move, view) or "")
                            for move in master)
    score = player.get("wertung") or {}
    extra = c.facts([("Glasermeister über Streifen", player.get("glasermeister")),
                     ("Bonusfarben", score.get("bonusfarben", 0)), ("Fensterpunkte", score.get("fenster", 0))])
    return Markup('<section class="mz-player{0}" aria-label="Tableau {1}">{2}{3}{4}{5}{6}{7}{8}</section>').format(
        " mz-mine" if mine else "", c.seat_name(view, player.get("platz")), c.player_head(view, player), reset,
        _strips(view, player, mine), _windows(view, player, mine), _breakage(view, player, mine),
        _palace(view, player), extra)


def render(view: dict[str, Any]) -> Markup:
    board = view.get("board") or {}
    start = board.get("startstein") or {}
    tower = board.get("glasturm") or {}
    bonus = list(board.get("bonusfarben") or [])
    round_no = board.get("runde")
    head = c.facts([("Runde", f"{round_no} von {board.get('runden', 6)}"),
                    ("Bonusfarbe", c.name(board.get("bonusfarbe")) if board.get("bonusfarbe") else "–"),
                    ("Bonusfarben der Runden", ", ".join(c.name(colour) for colour in bonus)),
                    ("Palast", "Fensterfarbe" if (board.get("einstellungen") or {}).get("palace") == "fensterfarbe"
                     else "Säulen"),
                    ("Beutel", (board.get("beutel") or {}).get("anzahl", 0)),
                    ("Glasturm", tower.get("anzahl", 0)),
                    ("Startstein", "in der Mitte" if start.get("in_mitte") else c.seat_name(view, start.get("platz")))])
    head += Markup('<div class="mz-bonus" aria-hidden="true">{}</div>').format(c.tiles_svg(bonus))
    players = Markup("").join(_player(view, player) for player in c.order_players(view, board.get("spieler") or []))
    return c.root("kirchenfenster", view, head, c.displays(view, move_label), players)
