"""A move's gain in one German line, from the table's preview answer (the rule module's preview, POST
/games/{id}/preview): "+4 Punkte: 3 waagerecht, 1 senkrecht", "2 Fliesen auf den Boden: −2 Punkte". No field
name or key of the answer ever reaches the text."""

from __future__ import annotations

from typing import Any

from services.web.boards.speedmosaik import common as c
from services.web.boards.speedmosaik.last import points_text, star_name


def _obj(value: Any) -> dict[str, Any]:
    """A JSON object of the answer, or an empty one where it holds something else."""
    return value if isinstance(value, dict) else {}


def _n(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _chains(params: dict[str, Any]) -> str:
    across, down = _n(params.get("waagerecht")), _n(params.get("senkrecht"))
    parts = [f"{across} waagerecht" if across > 1 else "", f"{down} senkrecht" if down > 1 else ""]
    if across > 1 and down > 1:
        return ", ".join(parts)
    return "".join(parts) or "einzeln"


def _kachelwand(preview: dict[str, Any]) -> str:
    if "spalte" in preview and "anzahl" not in preview:  # a column of the free wall at the round's end
        route = _obj(preview.get("rechenweg"))
        line = f"{points_text(_n(preview.get('punkte')), signed=True)}: {_chains(route.get('params') or {})}"
        falls = _n(preview.get("faellt"))
        if falls:
            line += f"; danach fällt {_count(falls, 'Musterreihe', 'Musterreihen')} auf den Boden"
        return line
    parts = []
    row, into, onto = _n(preview.get("reihe")), _n(preview.get("in_reihe")), _n(preview.get("auf_boden"))
    penalty, lid = _n(preview.get("bodenstrafe")), _n(preview.get("in_deckel"))
    if row:
        wall = (_obj(preview.get("wandpunkte")) or None)
        if preview.get("reihe_voll") and wall:
            route = _obj(wall.get("rechenweg"))
            parts.append(f"{points_text(_n(wall.get('punkte')), signed=True)}: {_chains(route.get('params') or {})}"
                         f" (Musterreihe {row} voll, zählt am Rundenende)")
        elif preview.get("reihe_voll"):
            parts.append(f"Musterreihe {row} voll: am Rundenende wählst du die Spalte")
        else:
            parts.append(f"{_count(into, 'Fliese', 'Fliesen')} in Musterreihe {row}")
    floor = onto + (1 if preview.get("startstein") else 0)
    if floor:
        what = _count(onto, "Fliese", "Fliesen") if onto else ""
        if preview.get("startstein"):
            what = f"Startstein und {what}" if what else "Startstein"
        parts.append(f"{what} auf den Boden: {points_text(penalty, signed=True) if penalty else 'ohne Strafe'}")
    if lid:
        parts.append(f"{lid} in den Deckel")
    return "; ".join(parts) or "Keine Punkte"


def _kirchenfenster(preview: dict[str, Any]) -> str:
    kind = preview.get("art")
    if kind == "glasermeister":
        master = _obj(preview.get("glasermeister"))
        return f"Glasermeister von Streifen {master.get('vorher')} zurück über Streifen 1: kein Punkt"
    if kind == "fenster":
        route = preview.get("rechenweg")
        line = points_text(_n(preview.get("punkte")), signed=True)
        return f"{line}: {route}" if isinstance(route, str) and route else line
    parts = []
    strip, placed, broken = _n(preview.get("streifen")), _n(preview.get("eingesetzt")), _n(preview.get("zerbricht"))
    if strip:
        parts.append(f"{_count(placed, 'Scheibe', 'Scheiben')} auf Streifen {strip}")
    if preview.get("streifen_voll"):
        score = _obj(preview.get("wertung"))
        parts.append(f"Streifen voll: {points_text(_n(score.get('punkte')), signed=True)}")
    breakage = _obj(preview.get("glasbruch"))
    loss = _n(breakage.get("punkte"))
    if broken or loss:
        what = _count(broken, "Scheibe zerbricht", "Scheiben zerbrechen") if broken else "Glasbruch"
        parts.append(f"{what}: {points_text(loss, signed=True) if loss else 'kein Punkt'}")
    if preview.get("startstein"):
        parts.append("Startstein")
    return "; ".join(parts) or "Keine Punkte"


def _sternpavillon(preview: dict[str, Any]) -> str:
    kind = preview.get("art")
    if kind == "nehmen":
        jokers = _n(preview.get("joker"))
        line = f"{_n(preview.get('anzahl'))} × {c.name(preview.get('farbe'))}"
        if jokers:
            line += f" und {jokers} Joker ({c.name(preview.get('jokerfarbe'))})"
        line += " auf die Hand"
        centre = _n(preview.get("in_die_mitte"))
        if centre:
            line += f"; {_count(centre, 'Stein wandert', 'Steine wandern')} in die Mitte"
        if preview.get("startstein"):
            line += f"; Startstein: {points_text(-_n(preview.get('verlust')), signed=True)}"
        return line
    if kind == "legen":
        stones = _obj(preview.get("steine"))
        paid = f"{_n(stones.get('echt'))} × {c.name(stones.get('farbe'))}"
        if _n(stones.get("joker")):
            paid += f" + {_n(stones.get('joker'))} Joker ({c.name(stones.get('jokerfarbe'))})"
        line = f"{points_text(_n(preview.get('punkte')), signed=True)}: {star_name(preview.get('stern'))}, " \
               f"Feld {preview.get('feld')}, zahlt {paid}"
        for place in preview.get("umschlossen") or []:
            if isinstance(place, dict):
                reward = _count(_n(place.get("belohnung")), "Bonusstein", "Bonussteine")
                line += f"; umschließt {place.get('name')}: {reward}"
        if preview.get("stern_voll"):
            line += f"; Stern voll: {points_text(_n(preview.get('stern_bonus')), signed=True)} am Ende"
        return line
    if kind == "passen":
        held = _n(preview.get("steine"))
        if preview.get("letzte_runde"):
            cost = _n(preview.get("uebrige_kosten"))
            return f"Passen: {_count(held, 'Stein bleibt', 'Steine bleiben')} übrig: " \
                   f"{points_text(-cost, signed=True) if cost else 'kein Punkt'}"
        if preview.get("frage_behalten"):
            return f"Passen: dann wählst du, welche deiner {held} Steine du behältst"
        return f"Passen: du behältst {_count(held, 'Stein', 'Steine')}" if held else "Passen"
    if kind == "bonus":
        left = _n(preview.get("noch"))
        line = f"{c.name(preview.get('farbe'))} als Bonusstein auf die Hand"
        return line + (f"; noch {_count(left, 'Bonusstein', 'Bonussteine')} zu wählen" if left else "")
    if kind == "behalten":
        kept, cost, tower = _n(preview.get("behalten")), _n(preview.get("kosten")), _n(preview.get("in_den_turm"))
        line = f"{_count(kept, 'Stein', 'Steine')} behalten: " + (
            points_text(-cost, signed=True) if cost else "kostenlos")
        return line + (f"; {tower} in den Turm" if tower else "")
    return "Keine Punkte"


def preview_line(move: Any, preview: Any, view: dict[str, Any]) -> str:
    """The move's gain in one line, in the workshop's words."""
    if not isinstance(preview, dict):
        return ""
    workshop = str(((view.get("board") or {}).get("einstellungen") or {}).get("workshop", "kachelwand"))
    if workshop == "kirchenfenster":
        return _kirchenfenster(preview)
    if workshop == "sternpavillon":
        return _sternpavillon(preview)
    return _kachelwand(preview)
