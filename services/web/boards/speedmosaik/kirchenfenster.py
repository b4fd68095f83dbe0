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
                content = "alles zerbrechen" if strip == 0 else "hier"
                buttons.append(c.move_button(view, move, content, f"{words}: {move_label(move, view)}",
                                             "mz-target", pick_for=key))
    return Markup("").join(buttons)


def _fill_order(pattern: list[Any], fields: list[Any], colour: Any) -> list[int]:
    """The fields a pane of `colour` goes to, in the rules' order: its colour's fields first, then joker fields."""
    return [index for wanted in (colour, "joker") for index, kind in enumerate(pattern)
            if kind == wanted and not (fields[index] if index < len(fields) else None)]


def _strips(view: dict[str, Any], player: dict[str, Any], mine: bool, shown: c.Shown) -> Markup:
    seat = player.get("platz")
    master = player.get("glasermeister")
    ghost_master = shown.ghost.get(("glasermeister", seat))
    items = []
    for strip in player.get("streifen") or []:
        number = strip.get("streifen")
        key = ("streifen", seat, number)
        pattern, fields = list(strip.get("muster") or []), list(strip.get("felder") or [])
        if strip.get("fertig"):
            words = f"Streifen {number}: fertig (zum Fenster gewandert)"
            picture = Markup('<span class="mz-done">fertig</span>')
        else:
            placed = sum(1 for field in fields if field)
            words = (f"Streifen {number}, Seite {strip.get('seite')}: {placed} von {len(pattern)} belegt; Muster "
                     + ", ".join(c.name(colour) for colour in pattern))
            ghost = shown.ghost.get(key)
            ghosts = set(_fill_order(pattern, fields, ghost[0])[:ghost[1]]) if ghost else set()
            came = shown.marks.get(("streifen-farbe", seat, number))  # the colour an opponent just set in
            arrived = {i for i in range(len(fields)) if came and fields[i] == came}
            cells = []
            for index, colour in enumerate(pattern):
                got = fields[index] if index < len(fields) else None
                if ghost and index in ghosts:
                    item, state = "~" + str(ghost[0]), "mz-on"
                elif got:
                    item, state = ("+" if index in arrived else "") + str(got), "mz-on"
                else:
                    item, state = str(colour), "mz-off"
                cells.append(Markup('<span class="mz-cell {0}">{1}</span>').format(state, c.tiles_svg([item])))
            picture = Markup('<span class="mz-column">{}</span>').format(Markup("").join(cells))
        here = master == number
        moved = ghost_master == number
        head = Markup('<span class="mz-master{0}" title="Glasermeister">{1}</span>').format(
            (" ghost" if moved else "") + shown.classes(("glasermeister", seat)) if here or moved else " mz-none",
            "▼G" if here or moved else "")
        target = _targets(view, int(number or 0), words) if mine else Markup("")
        items.append(Markup('<li class="mz-strip{5}" aria-label="{0}">{1}<span class="mz-num">{2}</span>{3}{4}</li>')
                     .format(words + (", Glasermeister hier" if here else "") + (", eben belegt" if key in shown.marks
                                                                                  else ""),
                             head, number, picture, target, shown.classes(key)))
    legend = Markup('<p class="mz-legend" aria-hidden="true">Streifen 1–8 · <b>▼G</b> Glasermeister: nehmen nur '
                    'für Streifen unter oder rechts von ihm</p>')
    return legend + Markup('<ol class="mz-strips" aria-label="Streifen">{}</ol>').format(Markup("").join(items))


def _windows(view: dict[str, Any], player: dict[str, Any], mine: bool, shown: c.Shown) -> Markup:
    """The palace as a picture: the eight windows (number, value, panes) in the strips' columns, under each pair of
    windows its pillar with the frame fields and points (palace side Säulen), or the window colour's count."""
    board = view.get("board") or {}
    seat = player.get("platz")
    choice = board.get("fensterwahl") if mine else None
    choosing = isinstance(choice, dict) and choice.get("platz") == seat
    items = []
    for window in player.get("fenster") or []:
        number = window.get("fenster")
        key = ("fenster", seat, number)
        panes = [str(pane) for pane in window.get("scheiben") or []]
        if key in shown.marks and panes:
            panes[-1] = "+" + panes[-1]
        if key in shown.ghost:
            panes.append("~" + str(shown.ghost[key]))
        words = f"Fenster {number}, Wert {window.get('wert')}: {c.counted(window.get('scheiben') or [])}"
        buttons = Markup("")
        if choosing and isinstance(choice, dict) and choice.get("fenster") == number:
            buttons = Markup("").join(
                c.move_button(view, move, c.tiles_svg([move.get("farbe")]), move_label(move, view) or "",
                              "mz-choose")
                for move in view.get("legal_moves") or []
                if isinstance(move, dict) and move.get("aktion") == "fenster")
        glass = Markup("").join(Markup('<span class="mz-pane">{}</span>').format(c.tiles_svg([pane]))
                                for pane in panes)
        items.append(Markup('<li class="mz-window{4}" aria-label="{0}"><span class="mz-wnum">{1}</span>'
                            '<span class="mz-wval">Wert {2}</span>{3}{5}</li>').format(
            words, number, window.get("wert"), glass, shown.classes(key), buttons))
    side = (board.get("einstellungen") or {}).get("palace", "saeulen")
    palace = player.get("palast") or {}
    if side == "fensterfarbe":
        colour = palace.get("fensterfarbe") or {}
        name = c.name(colour.get("farbe")) if colour.get("farbe") else "–"
        base = Markup('<div class="mz-palacebar" aria-label="Palast, Fensterfarbe: {0} volle Fenster, {1} × {2}, '
                      '{3}"><span class="mz-name">Palast · Fensterfarbe</span> <b>{1} × {2}</b> in {0} vollen Fenstern'
                      ' → <b>{3}</b></div>').format(colour.get("volle_fenster", 0), name, colour.get("anzahl", 0),
                                                     c.points_words(colour.get("punkte", 0)))
    else:
        pillars = []
        for column in palace.get("saeulen") or []:
            fields = int(column.get("rahmenfelder", 0) or 0)
            frame = Markup("").join(Markup('<i class="{}"></i>').format("mz-on" if k < fields else "mz-off")
                                    for k in range(4))
            pillars.append(Markup('<li class="mz-pillar" aria-label="Säule {0} (Fenster {1}): {2} von 4 Rahmenfeldern, '
                                  '{3}"><b>Säule {0}</b><span class="mz-frame" aria-hidden="true">{4}</span>'
                                  '<span>{2}/4 · {3}</span></li>').format(
                column.get("saeule"), " und ".join(str(n) for n in column.get("fenster") or []), fields,
                c.points_words(column.get("punkte", 0)), frame))
        base = Markup('<ol class="mz-pillars" aria-label="Palast: Säulen">{}</ol>').format(Markup("").join(pillars))
    return Markup('<div class="mz-palace" role="group" aria-label="Palast"><div class="mz-name">Palast: Fenster '
                  '(Nummer, Wert)</div><ol class="mz-windows" aria-label="Fenster">{0}</ol>{1}</div>').format(
        Markup("").join(items), base)


def _breakage(view: dict[str, Any], player: dict[str, Any], mine: bool, shown: c.Shown) -> Markup:
    track = list((view.get("board") or {}).get("glasbruch_leiste") or [])
    state = player.get("glasbruch") or {}
    field = state.get("feld")
    key = ("glasbruch", player.get("platz"))
    cells = Markup("").join(
        Markup('<li class="{0}">{1}</li>').format("mz-here" if index == field else "", str(value).replace("-", "−"))
        for index, value in enumerate(track, start=1))
    words = (f"Glasbruch-Leiste: Feld {field}, Wert {state.get('wert')}, {state.get('umlaeufe', 0)} Umläufe, "
             f"bisher {c.points_words(state.get('verloren', 0))} verloren")
    target = _targets(view, 0, "Glasbruch") if mine else Markup("")
    return Markup('<div class="mz-breakage{3}" aria-label="{0}"><span class="mz-name">Glasbruch</span>'
                  '<ol class="mz-track" aria-hidden="true">{1}</ol>{2}</div>').format(words, cells, target,
                                                                                      shown.classes(key))


def _player(view: dict[str, Any], player: dict[str, Any], shown: c.Shown) -> Markup:
    mine = player.get("platz") == view.get("you")
    master = [move for move in view.get("legal_moves") or []
              if mine and isinstance(move, dict) and move.get("aktion") == "glasermeister"]
    reset = Markup("").join(c.move_button(view, move, "▼G ganz nach links holen", move_label(move, view) or "")
                            for move in master)
    score = player.get("wertung") or {}
    extra = c.facts([("Bonusfarben", score.get("bonusfarben", 0)), ("Fensterpunkte", score.get("fenster", 0))])
    return Markup('<section class="mz-player{0}" aria-label="Tableau {1}">{2}{3}{4}{5}{6}{7}</section>').format(
        " mz-mine" if mine else "", c.seat_name(view, player.get("platz")), c.player_head(view, player), reset,
        _strips(view, player, mine, shown), _breakage(view, player, mine, shown), _windows(view, player, mine, shown),
        extra)


def ghost(view: dict[str, Any], move: dict[str, Any], preview: dict[str, Any]) -> dict[tuple[Any, ...], Any]:
    """What a previewed move changes on the viewer's board: the panes on the strip, the breakage, the
    Glasermeister's new place, the pane in the window; and the display it takes from."""
    me = view.get("you")
    out: dict[tuple[Any, ...], Any] = {}
    action = move.get("aktion")
    if action == "glasermeister":
        out[("glasermeister", me)] = 1
    elif action == "fenster":
        choice = (view.get("board") or {}).get("fensterwahl") or {}
        out[("fenster", me, choice.get("fenster"))] = move.get("farbe")
    elif action == "nehmen":
        source = move.get("source", move.get("quelle"))
        out[("quelle", source, move.get("schale") if source == "schale" else None)] = move.get("farbe")
        strip = move.get("streifen")
        if strip:
            out[("streifen", me, strip)] = (move.get("farbe"), int(preview.get("eingesetzt", 0) or 0))
            out[("glasermeister", me)] = strip
        if not strip or preview.get("zerbricht"):
            out[("glasbruch", me)] = int(preview.get("zerbricht", 0) or 0)
    return out


def prompt(view: dict[str, Any]) -> str:
    """What the viewer does now: a take (or bringing the Glasermeister back), or the pane for a window."""
    moves = [move for move in view.get("legal_moves") or [] if isinstance(move, dict)]
    if any(move.get("aktion") == "fenster" for move in moves):
        choice = (view.get("board") or {}).get("fensterwahl") or {}
        return f"Wähle die Scheibe für Fenster {choice.get('fenster')}"
    text = "Nimm Scheiben aus einer Schale oder der Mitte, dann wähle den Streifen"
    if any(move.get("aktion") == "glasermeister" for move in moves):
        text += " – oder hol den Glasermeister nach links"
    return text


def render(view: dict[str, Any], shown: c.Shown = c.NOTHING, move: Any = None) -> Markup:
    board = view.get("board") or {}
    start = board.get("startstein") or {}
    tower = board.get("glasturm") or {}
    bonus = list(board.get("bonusfarben") or [])
    round_no = board.get("runde")
    head = c.facts([("Runde", f"{round_no} von {board.get('runden', 6)}"),
                    ("Bonusfarbe", c.name(board.get("bonusfarbe")) if board.get("bonusfarbe") else "–"),
                    ("Palast", "Fensterfarbe" if (board.get("einstellungen") or {}).get("palace") == "fensterfarbe"
                     else "Säulen"),
                    ("Beutel", (board.get("beutel") or {}).get("anzahl", 0)),
                    ("Glasturm", tower.get("anzahl", 0)),
                    ("Startstein", "in der Mitte" if start.get("in_mitte") else c.seat_name(view, start.get("platz")))])
    head += Markup('<div class="mz-bonus" aria-label="Bonusfarben der Runden: {0}"><span class="mz-name">Bonusfarben '
                   'der Runden</span>{1}</div>').format(", ".join(c.name(colour) for colour in bonus),
                                                       c.tiles_svg(bonus))
    players = [_player(view, player, shown) for player in c.order_players(view, board.get("spieler") or [])]
    return c.root("kirchenfenster", view, Markup('<div class="mz-head">{}</div>').format(head),
                  c.displays(view, move_label, shown), players, move)
