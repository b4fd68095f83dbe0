"""The generic board renderer: any registered game's view as readable lists and tables, its legal moves as
buttons with German words made from the move's own keys. Every game is playable in the browser with it
before it has a board of its own (the tiny test game, a new game)."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

MAX_DEPTH = 8
_HIDDEN_KEYS = frozenset({"spiel", "regeln"})
"""Said by the page's header already."""
_WORDS = {
    # A few keys the games share whose plain form reads badly; anything else is shown as the key itself.
    "plaetze": "Plätze", "platz": "Platz", "am_zug": "Am Zug", "beendet": "Beendet", "punkte": "Punkte",
    "einstellungen": "Einstellungen", "spieler": "Spieler", "ich": "Ich (Platz)", "du": "Du",
    "zurueck": "Zurück", "waehlen": "Wählen", "groesse": "Größe", "wuerfel": "Würfel", "uebrig": "Übrig",
    "naechster": "Nächster", "zaehler": "Zähler", "rueckseite": "Rückseite",
}


def label(key: str) -> str:
    """A view or move key as a German heading: `am_zug` → "Am Zug", `musterreihen` → "Musterreihen"."""
    if key in _WORDS:
        return _WORDS[key]
    words = key.replace("-", "_").split("_")
    return " ".join(word[:1].upper() + word[1:] if i == 0 else word for i, word in enumerate(words) if word)


def scalar(value: Any) -> str:
    """One value as text: ja/nein, – for nothing, numbers and strings as they are."""
    if value is None:
        return "–"
    if value is True:
        return "ja"
    if value is False:
        return "nein"
    if isinstance(value, dict) and isinstance(value.get("text"), str) and "key" in value:
        return str(value["text"])  # a German phrase {key, params, text}
    return str(value)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool)) or _is_phrase(value)


def _is_phrase(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("text"), str) and "key" in value


def render_value(value: Any, depth: int = 0) -> Markup:
    """Any JSON value of a view as HTML: objects as definition lists, lists of like objects as tables, other
    lists as lists; every text escaped. The same value always gives the same HTML, wherever it sits."""
    if _is_scalar(value):
        return Markup('<span class="v">{}</span>').format(scalar(value))
    if depth >= MAX_DEPTH:
        return Markup('<span class="v">…</span>')
    if isinstance(value, dict):
        if not value:
            return Markup('<span class="v">–</span>')
        items = Markup("").join(
            Markup('<div class="kv"><dt>{}</dt><dd>{}</dd></div>').format(label(str(key)),
                                                                          render_value(item, depth + 1))
            for key, item in value.items())
        return Markup('<dl class="obj">{}</dl>').format(items)
    if isinstance(value, list):
        if not value:
            return Markup('<span class="v">–</span>')
        if all(_is_scalar(item) for item in value):
            return Markup('<span class="v">{}</span>').format(", ".join(scalar(item) for item in value))
        if all(isinstance(item, dict) and not _is_phrase(item) for item in value):
            return _table(value, depth)
        rows = Markup("").join(Markup("<li>{}</li>").format(render_value(item, depth + 1)) for item in value)
        return Markup('<ol class="list">{}</ol>').format(rows)
    return Markup('<span class="v">{}</span>').format(str(value))


def _table(rows: list[dict[str, Any]], depth: int) -> Markup:
    columns: list[str] = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    head = Markup("").join(Markup('<th scope="col">{}</th>').format(label(key)) for key in columns)
    body = Markup("").join(
        Markup("<tr>{}</tr>").format(Markup("").join(
            Markup("<td>{}</td>").format(render_value(row.get(key), depth + 1) if key in row else "")
            for key in columns))
        for row in rows)
    return Markup('<div class="scroll"><table><thead><tr>{}</tr></thead><tbody>{}</tbody></table></div>').format(
        head, body)


def render(view: dict[str, Any]) -> Markup:
    """The seat's board: each top-level part of the view's `board` as a section with a heading."""
    board = view.get("board")
    if not isinstance(board, dict):
        return Markup('<section class="part" aria-label="Spielbrett">{}</section>').format(render_value(board))
    parts = []
    for key, value in board.items():
        if key in _HIDDEN_KEYS:
            continue
        title = label(str(key))
        parts.append(Markup('<section class="part" aria-label="{0}" data-part="{1}"><h3>{0}</h3>{2}</section>')
                     .format(title, key, render_value(value)))
    return Markup('<div class="board generic">{}</div>').format(Markup("").join(parts))


def move_label(move: dict[str, Any], view: dict[str, Any]) -> str:
    """A legal move in words, from its own keys: {"aktion": "anlegen", "farbe": "gold", "wert": 2} →
    "Anlegen: Farbe gold, Wert 2". A game's own board package says it better."""
    if not isinstance(move, dict):
        return scalar(move)
    head = ""
    rest = dict(move)
    for key in ("aktion", "art", "zug"):
        if isinstance(rest.get(key), str):
            head = label(str(rest.pop(key)))
            break
    words = []
    for key, value in rest.items():
        if value is True:
            words.append(label(key))
        elif value is False or value is None:
            continue
        elif isinstance(value, (dict, list)):
            words.append(f"{label(key)} {_compact(value)}")
        else:
            words.append(f"{label(key)} {value}")
    if head and words:
        return f"{head}: {', '.join(words)}"
    return head or ", ".join(words) or "Zug"


def _compact(value: Any) -> str:
    if isinstance(value, dict):
        return "(" + ", ".join(f"{label(str(k))} {_compact(v)}" for k, v in value.items()) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_compact(v) for v in value) + "]"
    return scalar(value)
