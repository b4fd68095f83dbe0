"""What the other seats did last, read from the view's `last_moves` (docs/services/web.md, "What a board declares
for the game page"): the parts of the board their last turn touched (`marks`), one line per opponent
(`lines`), and the board's own German for effects whose recorded text reads wrong (`phrase`)."""

from __future__ import annotations

import re
from typing import Any

from services.web.boards.seats import named
from services.web.boards.speedmosaik import common as c

WALL = ["blau", "gelb", "rot", "schwarz", "tuerkis"]
"""The fixed wall's first row (each row shifted one to the right), as in kachelwand.py."""
STAR_NAMES = {"mitte": "Mittelstern"}

Mark = tuple[Any, ...]
"""A part of the board: ("quelle", "schale", 2), ("reihe", seat, 3), ("boden", seat), ("wand", seat, row, column),
("streifen", seat, n), ("glasbruch", seat), ("glasermeister", seat), ("fenster", seat, n), ("feld", seat, star, n),
("hand", seat)."""


def _obj(value: Any) -> dict[str, Any]:
    """A JSON object of the answer, or an empty one where it holds something else."""
    return value if isinstance(value, dict) else {}


def star_name(star: Any) -> str:
    """ "Stern Rot", "Mittelstern"."""
    return STAR_NAMES.get(str(star), f"Stern {c.name(star)}")


def turns(view: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]]]]:
    """The other seats' last turns: (seat, effects) for every seat but the viewer's with an entry."""
    entries = view.get("last_moves")
    if not isinstance(entries, list):
        return []
    me = view.get("you")
    out = []
    for seat, entry in enumerate(entries):
        if seat == me or not isinstance(entry, dict):
            continue
        effects = [effect for effect in entry.get("effects") or [] if isinstance(effect, dict)]
        if effects:
            out.append((seat, effects))
    return out


def _own(effects: list[dict[str, Any]], seat: int) -> list[tuple[str, dict[str, Any]]]:
    """The effects of a turn that are the seat's own doing (key without the workshop, params)."""
    out = []
    for effect in effects:
        params = _obj(effect.get("params"))
        if params.get("platz") == seat + 1:
            out.append((str(effect.get("key", "")).split(".", 1)[-1], params))
    return out


def fixed_column(row: int, colour: Any) -> int | None:
    """The fixed wall's column (1–5) of a colour in a row (1–5)."""
    if colour not in WALL:
        return None
    return (WALL.index(colour) + row - 1) % 5 + 1


def marks(view: dict[str, Any]) -> dict[Mark, Any]:
    """The parts of the board the other seats' last turns touched (the viewer's own turn is never marked), each
    with how many pieces arrived there (0 where none did, as at an emptied display)."""
    out: dict[Mark, Any] = {}
    for seat, effects in turns(view):
        ended = any(str(effect.get("key", "")).endswith("runde_ende") for effect in effects)
        for key, params in _own(effects, seat):
            if key in ("zug", "nehmen") and not ended:  # the display emptied (refilled after the round's end)
                out[("quelle", params.get("quelle"), params.get("schale"))] = 0
            if key == "zug" and "reihe" in params:
                if ended:  # the wall was tiled at the round's end: the line and floor are empty again
                    continue
                row = params.get("reihe")
                if row:
                    out[("reihe", seat, row)] = int(params.get("in_reihe", 0) or 0)
                if not row or params.get("auf_boden"):
                    out[("boden", seat)] = int(params.get("auf_boden", 0) or 0)
            elif key == "zug":
                strip = params.get("streifen")
                if strip:
                    out[("streifen", seat, strip)] = int(params.get("eingesetzt", 0) or 0)
                    out[("streifen-farbe", seat, strip)] = params.get("farbe")
                if not strip or params.get("zerbrochen"):
                    out[("glasbruch", seat)] = 1
            elif key == "wand":
                row = params.get("reihe")
                column = params.get("spalte") or (fixed_column(row, params.get("farbe")) if isinstance(row, int)
                                                   else None)
                out[("wand", seat, row, column)] = 1
            elif key in ("glasbruch", "glasbruch_unten"):
                out[("glasbruch", seat)] = 1
            elif key == "glasermeister":
                out[("glasermeister", seat)] = 1
            elif key == "fenster":
                out[("fenster", seat, params.get("fenster"))] = 1
            elif key == "legen":
                out[("feld", seat, params.get("stern"), params.get("feld"))] = 1
            elif key in ("nehmen", "bonusstein", "behalten", "passen"):
                out[("hand", seat)] = 0
    return out


def _source(params: dict[str, Any]) -> str:
    return "aus der Mitte" if params.get("quelle") == "mitte" else f"aus Schale {params.get('schale')}"


def _count(n: Any, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _part(key: str, params: dict[str, Any]) -> str | None:
    """One action of a turn in few words ("3 × Rot aus Schale 2 → Reihe 3"); None for what only follows."""
    colour = c.name(params.get("farbe"))
    if key == "zug" and "reihe" in params:
        jokers = int(params.get("joker", 0) or 0)
        count = int(params.get("anzahl", 0) or 0) - jokers if params.get("farbe") != "joker" else params.get("anzahl")
        row = params.get("reihe")
        target = f"Reihe {row}" if row else "Boden"
        extra = f" ({params.get('auf_boden')} auf den Boden)" if row and params.get("auf_boden") else ""
        taken = f"{count} × {colour}" + (" + Joker" if jokers and params.get("farbe") != "joker" else "")
        return f"{taken} {_source(params)} → {target}{extra}"
    if key == "zug":
        strip = params.get("streifen")
        target = f"Streifen {strip}" if strip else "alles zerbricht"
        broken = params.get("zerbrochen") if strip else 0
        extra = f" ({broken} {'zerbricht' if broken == 1 else 'zerbrechen'})" if broken else ""
        return f"{params.get('anzahl')} × {colour} {_source(params)} → {target}{extra}"
    if key == "nehmen":
        wild = f" + {params.get('joker')} Joker" if params.get("joker") else ""
        return f"{params.get('anzahl')} × {colour}{wild} {_source(params)}"
    if key == "spaltenwahl":
        return None
    if key == "wand" and params.get("spalte"):
        return f"{colour} in Wandreihe {params.get('reihe')}, Spalte {params.get('spalte')} ({_signed(params)})"
    if key == "glasermeister":
        return "holt den Glasermeister nach links"
    if key == "fenster":
        return f"{colour} in Fenster {params.get('fenster')} ({_signed(params)})"
    if key == "legen":
        return f"{colour} auf Feld {params.get('feld')} im {star_name(params.get('stern'))} ({_signed(params)})"
    if key == "passen":
        return "passt"
    if key == "behalten":
        return f"behält {_count(params.get('behalten'), 'Stein', 'Steine')}"
    if key == "bonusstein":
        return f"{colour} als Bonusstein"
    return None


def _signed(params: dict[str, Any]) -> str:
    points = params.get("punkte")
    if not isinstance(points, int):
        return "–"
    return points_text(points, signed=True)


def points_text(points: int, signed: bool = False) -> str:
    """ "1 Punkt", "4 Punkte"; signed "+4 Punkte", "−1 Punkt" (a real minus sign)."""
    sign = ("+" if points > 0 else "−" if points < 0 else "") if signed else ("−" if points < 0 else "")
    return f"{sign}{abs(points)} {'Punkt' if abs(points) == 1 else 'Punkte'}"


def lines(view: dict[str, Any]) -> list[str]:
    """One line per opponent with a last turn: "Computer 1: 3 × Rot aus Schale 2 → Reihe 3"."""
    out = []
    for seat, effects in turns(view):
        parts = [part for key, params in _own(effects, seat) if (part := _part(key, params))]
        if parts:
            out.append(f"{c.seat_name(view, seat)}: {'; '.join(parts)}")
    return out


# ---- the board's own words for recorded texts that read wrong (the records themselves never change) ----

_SINGULAR = {"bleiben": "bleibt", "wandern": "wandert", "kommen": "kommt", "fallen": "fällt", "passen": "passt"}
_ONE_VERB = re.compile(r"\b1 (Stein|Fliese|Scheibe) (" + "|".join(_SINGULAR) + r")\b")
_ONE_POINTS = re.compile(r"(^|[^\d,.])([+−-]?1) Punkte\b")
_ASCII_MINUS = re.compile(r"= -(\d)")


def _names(view: dict[str, Any], seats: list[int]) -> str:
    names = [c.seat_name(view, seat) for seat in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " und " + names[-1]


def phrase(effect: dict[str, Any], view: dict[str, Any]) -> str | None:
    """The effect's text as a player should read it: seats by their names, "1 Punkt", "1 Stein bleibt übrig",
    who filled a wall row instead of "Jemand"; None where the recorded text needs nothing."""
    if not isinstance(effect, dict) or not isinstance(effect.get("text"), str):
        return None
    text, key = str(effect["text"]), str(effect.get("key", ""))
    params = _obj(effect.get("params"))
    if key == "kachelwand.spielende" and params.get("grund") == "reihe":
        full = [int(player.get("platz", 0)) for player in (view.get("board") or {}).get("spieler") or []
                if isinstance(player, dict) and int(player.get("volle_reihen", 0) or 0) > 0]
        if full:
            verb = "hat" if len(full) == 1 else "haben"
            text = f"{_names(view, full)} {verb} eine waagerechte Wandreihe voll: Die Partie ist vorbei."
        else:
            text = "Eine waagerechte Wandreihe ist voll: Die Partie ist vorbei."
    elif key == "kachelwand.gefallen":
        onto, lid = int(params.get("auf_boden", 0) or 0), int(params.get("in_deckel", 0) or 0)
        count = int(params.get("anzahl", onto + lid) or 0)
        where = ", ".join(part for part in (f"{onto} auf den Boden" if onto else "",
                                            f"{lid} in den Deckel" if lid else "") if part)
        text = (f"Platz {params.get('platz')}: In Wandreihe {params.get('reihe')} ist keine Spalte für "
                f"{c.name(params.get('farbe'))} frei – {_count(count, 'Fliese fällt', 'Fliesen fallen')} "
                f"herunter{': ' + where if where else ''}.")
    elif key in ("kirchenfenster.streifen_gedreht", "kirchenfenster.streifen_fertig") and params.get("platz"):
        text = text.replace(f"Streifen {params.get('streifen')} ",
                            f"Streifen {params.get('streifen')} von Platz {params.get('platz')} ", 1)
    elif key == "sternpavillon.passen" and "welche seiner" in text:
        text = f"Platz {params.get('platz')} passt und wählt, welche der {params.get('steine')} Steine bleiben."
    elif key == "kachelwand.warnung.alles_auf_boden" and params.get("anzahl") == 1:
        text = "Die Fliese fällt auf den Boden."
    elif key == "kirchenfenster.warnung.zerbricht" and params.get("anzahl") == 1:
        text = text.replace("alle 1 zerbrechen", "die Scheibe zerbricht").replace(
            "1 passen nicht", "1 passt nicht").replace("und zerbrechen", "und zerbricht")
    text = _ONE_VERB.sub(lambda m: f"1 {m.group(1)} {_SINGULAR[m.group(2)]}", text)
    text = _ONE_POINTS.sub(lambda m: f"{m.group(1)}{m.group(2)} Punkt", text)
    text = _ASCII_MINUS.sub(lambda m: f"= −{m.group(1)}", text)
    text = text.replace("1 Stein(e)", "1 Stein").replace("1 Bonussteine", "1 Bonusstein")
    text = named(text, view)
    return text if text != effect["text"] else None
