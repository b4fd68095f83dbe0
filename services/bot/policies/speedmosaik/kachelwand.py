"""Kachelwand bot policy: values every legal move from its preview (pure, no I/O).

- easy: the heuristic value of a move plus much random noise ("bewertet seine Züge mit viel Zufall").
- normal: the move with the best heuristic value for its own board.
- strong: the normal value minus ``DENIAL_WEIGHT`` × the best value the next player could take from the
  displays after this move (computed on a determinized state) — "achtet zusätzlich darauf, was er dem
  nächsten Spieler in der Auslage übrig lässt".

At a free-wall round end every level chooses the column (also for a player whose time ran out); the
column's value is its wall points, its progress towards rows, columns and colours, minus the lines
below it would make fall. Moves that first return a warning come from ``legal_moves`` already confirmed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from libs.rules.engine import Engine, Position
from libs.rules.protocol import Json
from services.bot.policies.contract import Candidate, DeterminizedPolicy, Situation

EASY_NOISE = 12.0
"""Spread of the random noise added at level easy ("bewertet seine Züge mit viel Zufall")."""

FINISH_BONUS = 1.5
PARTIAL_TILE_VALUE = 0.45
OPEN_SPACE_COST = 0.25
COLUMN_PROGRESS = 0.35
COLOUR_PROGRESS = 0.25
ROW_PROGRESS = 0.2
FALL_CERTAIN_COST = 1.6
"""Per tile of a line that will certainly fall (free wall): about its later floor penalty."""
FALL_POSSIBLE_COST = 0.5
FALL_COLUMN_COST = 2.5
"""Per lower line a column choice makes fall."""

DENIAL_WEIGHT = 0.9
"""Strong: how much the next player's best value after our move counts against it."""
STRONG_CANDIDATES = 16
"""Strong: how many of the best moves by own value get the look at the next player's reply."""


def _board(view: Json, seat: int) -> Json:
    board: Json = view["spieler"][seat]
    return board


def _column_of(board: Json, row: int, colour: str, preview: Json) -> int:
    wall_points = preview.get("wandpunkte") or {}
    if "spalte" in wall_points:
        return int(wall_points["spalte"]) - 1
    cells: list[dict[str, Any]] = board["wand"][row]
    return next((c for c, cell in enumerate(cells) if cell["farbe"] == colour), 0)


def _progress_value(board: Json, row: int, column: int, colour: str) -> float:
    """Return a small value for how far a new wall tile advances its row, column and colour."""
    wall: list[list[dict[str, Any]]] = board["wand"]
    in_row = sum(1 for cell in wall[row] if cell["belegt"])
    in_column = sum(1 for r in range(len(wall)) if wall[r][column]["belegt"])
    of_colour = sum(1 for cells in wall for cell in cells if cell["belegt"] and cell["farbe"] == colour)
    return ROW_PROGRESS * in_row + COLUMN_PROGRESS * in_column + COLOUR_PROGRESS * of_colour


def _fall_cost(preview: Json, tiles_in_line: int) -> float:
    cost = 0.0
    for warning in preview["warnungen"]:
        if warning["key"] == "kachelwand.warnung.wand_faellt":
            per_tile = FALL_CERTAIN_COST if warning["params"]["sicher"] else FALL_POSSIBLE_COST
            cost += per_tile * tiles_in_line
    return cost


def move_value(preview: Json, board: Json) -> float:
    """Return the heuristic value of a take from its preview: wall points, line progress, floor cost."""
    value = float(preview["bodenstrafe"])
    line = int(preview["reihe"])
    if line == 0:
        return value - 0.5
    pattern = board["musterreihen"][line - 1]
    colour = pattern["farbe"] or preview["farbe"]
    after = pattern["anzahl"] + preview["in_reihe"]
    if preview["reihe_voll"] and preview["wandpunkte"] is not None:
        value += float(preview["wandpunkte"]["punkte"]) + FINISH_BONUS
        value += _progress_value(board, line - 1, _column_of(board, line - 1, colour, preview), colour)
    elif not preview["reihe_voll"]:
        value += PARTIAL_TILE_VALUE * preview["in_reihe"] - OPEN_SPACE_COST * (line - after)
    return value - _fall_cost(preview, after)


def column_value(preview: Json, board: Json) -> float:
    """Return the heuristic value of a free-wall column choice from its preview."""
    row = int(preview["reihe"]) - 1
    column = int(preview["spalte"]) - 1
    value = float(preview["punkte"]) + _progress_value(board, row, column, preview["farbe"])
    return value - FALL_COLUMN_COST * float(preview["faellt"])


def _value(preview: Json, board: Json) -> float:
    return column_value(preview, board) if "spalte" in preview else move_value(preview, board)


def _preview(engine: Engine, position: Position, seat: int, move: Json) -> Json:
    """Return the preview of a move taken from ``engine.legal_moves`` for this very position.

    The engine's checks (game running, seat pending, a JSON object) hold for every such move; asking the
    module directly spares repeating them for each of the many moves a decision values.
    """
    preview: Json = engine.module.preview(position.state, seat, move)
    return preview


def _ranked(engine: Engine, position: Position, seat: int, board: Json) -> list[tuple[float, int, Json, Json]]:
    """Return (value, index, move, preview) for every legal move, best first (ties: first in order)."""
    scored = []
    for index, move in enumerate(engine.legal_moves(position, seat)):
        preview = _preview(engine, position, seat, move)
        scored.append((_value(preview, board), index, move, preview))
    if not scored:
        raise ValueError("the bot's seat has no legal move")
    scored.sort(key=lambda item: (-item[0], item[1]))
    return scored


@dataclass(frozen=True)
class Reply:
    """The next player's best take after our move: its seat, value, move and preview."""

    seat: int
    value: float
    move: Json
    preview: Json


def _best_reply(engine: Engine, position: Position) -> Reply | None:
    """Return the next mover's best take now, or None if the round's takes are over (or the game)."""
    if engine.is_over(position):
        return None
    view = engine.view(position, None)
    if view.get("phase") == "wand" or not (any(view["schalen"]) or view["mitte"]):
        return None
    seat = engine.must_act(position)[0]
    board = _board(view, seat)
    best: Reply | None = None
    for move in engine.legal_moves(position, seat):
        preview = _preview(engine, position, seat, move)
        value = move_value(preview, board)
        if best is None or value > best.value:
            best = Reply(seat, value, move, preview)
    return best


@dataclass(frozen=True)
class Detail:
    """What the advice is built from: the move's preview and the next player's best reply after it."""

    preview: Json
    reply: Reply | None


def _strong_candidates(engine: Engine, position: Position, seat: int, board: Json) -> list[Candidate]:
    """Return the best moves by own value minus what each leaves the next player (columns: own value)."""
    ranked = _ranked(engine, position, seat, board)
    if "spalte" in ranked[0][3]:
        return [Candidate(move, value, Detail(preview, None)) for value, _, move, preview in ranked]
    candidates = []
    for value, _, move, preview in ranked[:STRONG_CANDIDATES]:
        after = engine.apply(position, seat, move).position
        reply = _best_reply(engine, after)
        total = value - (0.0 if reply is None else DENIAL_WEIGHT * max(reply.value, 0.0))
        candidates.append(Candidate(move, total, Detail(preview, reply)))
    return candidates


_NAMES = {"blau": "Blau", "gelb": "Gelb", "rot": "Rot", "schwarz": "Schwarz", "tuerkis": "Türkis", "joker": "Joker"}


def _taken_text(move: Json, preview: Json) -> str:
    colour = _NAMES.get(preview["farbe"], preview["farbe"])
    jokers = int(preview.get("joker", 0))
    count = int(preview["anzahl"])
    if preview["farbe"] == "joker":
        taken = "1 Joker"
    else:
        taken = f"{count - jokers} × {colour}" + (" + Joker" if jokers else "")
    source = "der Mitte" if move["source"] == "mitte" else f"Schale {move['schale']}"
    return f"{taken} aus {source}"


def _wall_gain(preview: Json) -> int | None:
    if preview["reihe"] and preview["reihe_voll"] and preview["wandpunkte"] is not None:
        return int(preview["wandpunkte"]["punkte"])
    return None


def _take_reason(move: Json, preview: Json, reply: Reply | None) -> Json:
    target = "auf den Boden" if preview["reihe"] == 0 else f"in Musterreihe {preview['reihe']}"
    parts: list[str] = []
    gain = _wall_gain(preview)
    if gain is not None:
        where = f" in Spalte {preview['wandpunkte']['spalte']}" if "spalte" in preview["wandpunkte"] else ""
        parts.append(f"die Reihe wird voll (+{gain} an der Wand{where})")
    elif preview["reihe"]:
        placed = preview["in_reihe"]
        parts.append(f"{placed} {'Fliese kommt' if placed == 1 else 'Fliesen kommen'} in die Reihe")
    if preview["bodenstrafe"]:
        parts.append(f"der Boden kostet {preview['bodenstrafe']}".replace("-", "−"))
    else:
        parts.append("nichts fällt auf den Boden")
    for warning in preview["warnungen"]:
        if warning["key"] == "kachelwand.warnung.wand_faellt":
            parts.append("aber Achtung: " + warning["text"].removeprefix("Achtung: ").rstrip("."))
    if reply is not None:
        left = f"Platz {reply.seat + 1} bleibt danach höchstens {_taken_text(reply.move, reply.preview)}"
        reply_gain = _wall_gain(reply.preview)
        if reply_gain is not None:
            left += f" (+{reply_gain} an der Wand)"
        parts.append(left)
    else:
        parts.append("danach ist die Runde vorbei")
    text = f"Nimm {_taken_text(move, preview)} {target}: " + "; ".join(parts) + "."
    return {
        "key": "kachelwand.rat.zug",
        "params": {
            "zug": move,
            "anzahl": preview["anzahl"],
            "farbe": preview["farbe"],
            "reihe": preview["reihe"],
            "wandpunkte": gain,
            "bodenstrafe": preview["bodenstrafe"],
            "naechster_platz": None if reply is None else reply.seat + 1,
            "naechster_zug": None if reply is None else reply.move,
            "naechster_wandpunkte": None if reply is None else _wall_gain(reply.preview),
        },
        "text": text,
    }


def _column_reason(preview: Json) -> Json:
    colour = _NAMES.get(preview["farbe"], preview["farbe"])
    label = preview["rechenweg"]["label"].split(": ", 1)[-1]
    falls = (
        "keine Musterreihe darunter fällt"
        if not preview["faellt"]
        else (f"{preview['faellt']} Musterreihe(n) darunter fallen ohnehin auf den Boden")
    )
    text = (
        f"Hänge {colour} in Wandreihe {preview['reihe']} in Spalte {preview['spalte']}: "
        f"+{preview['punkte']} an der Wand ({label}), {falls}."
    )
    return {
        "key": "kachelwand.rat.spalte",
        "params": {
            "reihe": preview["reihe"],
            "spalte": preview["spalte"],
            "farbe": preview["farbe"],
            "punkte": preview["punkte"],
            "faellt": preview["faellt"],
        },
        "text": text,
    }


class KachelwandPolicy(DeterminizedPolicy):
    """Kachelwand on the shared skeleton: one determinization, previews valued for the seat's own board."""

    NOISE: ClassVar[Mapping[str, float]] = {"easy": EASY_NOISE, "normal": 0.0, "strong": 0.0}

    def evaluate_one(self, situation: Situation, position: Position) -> list[Candidate]:
        """Return the level's candidates: every legal move (easy, normal) or the strong look-ahead."""
        engine, seat = situation.engine, situation.seat
        board = _board(situation.view, seat)
        if situation.level == "strong":
            return _strong_candidates(engine, position, seat, board)
        candidates = []
        for move in engine.legal_moves(position, seat):
            preview = _preview(engine, position, seat, move)
            candidates.append(Candidate(move, _value(preview, board), Detail(preview, None)))
        return candidates

    def reason(self, situation: Situation, chosen: Candidate) -> Json:
        """Return the German reason built from the chosen move's preview (and the next player's reply)."""
        detail: Detail = chosen.detail
        assert chosen.move is not None
        if "spalte" in detail.preview:
            return _column_reason(detail.preview)
        return _take_reason(chosen.move, detail.preview, detail.reply)


POLICY = KachelwandPolicy()
"""The Kachelwand computer player (both walls, with and without jokers)."""
