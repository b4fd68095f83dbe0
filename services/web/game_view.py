"""What the game page shows besides the board, from the seat's view alone: the player strip (names, colours,
scores, clocks, whose turn), the turn banner, the opponents' last moves, the moves with their words, "Zurück", the
end banner and table; and the log lines of the game's events. Pure functions, no I/O.

The board's optional declarations (docs/services/web.md, "What a board declares for the game page") are called
here through `getattr`, each with a plain fallback, so every board works whether it declares them or not."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from services.web.boards import renderer_for
from services.web.boards.seats import named, seat_name

STATUS_WORDS = {"running": "läuft", "ending": "wird gewertet", "ended": "beendet"}
KIND_WORDS = {"human": "Mensch", "bot": "Computer"}
LEVEL_WORDS = {"easy": "leicht", "normal": "normal", "strong": "stark"}
SEAT_SHAPES = ("circle", "square", "triangle", "diamond")
"""The seats' shapes in seat order (their colours are the CSS variables --seat-0 … --seat-3)."""


def _declared(view: dict[str, Any], name: str) -> Callable[..., Any] | None:
    """The board's optional declaration `name` (a function), or None when the board has none."""
    found = getattr(renderer_for(str(view.get("game", ""))), name, None)
    return found if callable(found) else None


def phrase(effect: Any, view: dict[str, Any]) -> str | None:
    """One effect ({key, params, text}) in German for a player: the board's own words (`phrase`) where it has
    them, else the recorded text with seats named by their names; None for what is no phrase (a sealed part)."""
    text = phrase_text(effect)
    if text is None:
        return None
    own = _declared(view, "phrase")
    if own is not None:
        said = own(effect, view)
        if isinstance(said, str) and said:
            return said
    return named(text, view)


def _clock_text(clock: dict[str, Any]) -> str:
    seconds = int(clock.get("think_time") or 0) + int(clock.get("grace") or 0)
    return f"{seconds // 60}:{seconds % 60:02d}"


def strip(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The player strip: per seat its name ("Du" for the viewer), colour and shape, score (the board's
    `seat_scores`), running clock, whether it is to move or may answer, left, computer level."""
    seats = view.get("seats") or []
    scores_of = _declared(view, "seat_scores")
    scores = list(scores_of(view) or []) if scores_of is not None else []
    clocks = {clock.get("seat"): clock for clock in view.get("clocks") or [] if isinstance(clock, dict)}
    to_move, may_act = set(view.get("to_move") or []), set(view.get("may_act") or [])
    you = view.get("you")
    ended = view.get("status") == "ended"
    rows = []
    for index, seat in enumerate(seats):
        clock = clocks.get(index)
        level = seat.get("level") if seat.get("kind") == "bot" else None
        rows.append({
            "seat": index, "name": seat_name(view, index), "you": index == you,
            "label": "Du" if index == you else seat_name(view, index),
            "shape": SEAT_SHAPES[index % len(SEAT_SHAPES)], "colour": index % 4,
            "score": scores[index] if index < len(scores) and scores[index] else None,
            "clock": {"deadline": clock.get("deadline"), "text": _clock_text(clock)} if clock else None,
            "turn": not ended and index in to_move,
            "answer": not ended and index in may_act and index not in to_move,
            "left": bool(seat.get("left")),
            "bot": seat.get("kind") == "bot",
            "level": LEVEL_WORDS.get(str(level), str(level)) if level else None,
        })
    return rows


def has_left(view: dict[str, Any]) -> bool:
    """Whether the viewer's seat was left (the computer plays on for it)."""
    you, seats = view.get("you"), view.get("seats") or []
    return isinstance(you, int) and 0 <= you < len(seats) and bool(seats[you].get("left"))


def turn(view: dict[str, Any]) -> str:
    """The viewer's part now: "move" (must decide: the banner "Du bist am Zug"), "answer" (may act without having
    to, e.g. answer an offer), "" otherwise (waiting, a spectator, the end, a seat that left)."""
    you = view.get("you")
    if you is None or view.get("status") != "running" or has_left(view):
        return ""
    if you in (view.get("to_move") or []):
        return "move"
    if you in (view.get("may_act") or []):
        return "answer"
    return ""


def prompt(view: dict[str, Any], listed: bool | None = None) -> str:
    """What to do now, in the game's words (the board's `prompt`), else a plain German line (`listed`: whether
    the shell lists moves, when the caller knows it already)."""
    own = _declared(view, "prompt")
    said = own(view) if own is not None else None
    if isinstance(said, str) and said:
        return said
    if turn(view) == "answer":
        return "Du kannst jetzt antworten, musst aber nicht."
    listed = bool(moves_of(view)) if listed is None else listed
    return "Wähle einen deiner Züge." if listed else "Wähle deinen Zug auf dem Brett."


def waiting_line(view: dict[str, Any]) -> str:
    """Whom the game waits for, while it is not the viewer's turn."""
    names = [seat_name(view, seat) for seat in view.get("to_move") or [] if seat != view.get("you")]
    if not names:
        return ""
    return f"{' und '.join(names)} {'ist' if len(names) == 1 else 'sind'} am Zug."


def last_lines(view: dict[str, Any]) -> list[str]:
    """One line per opponent with its latest turn: the board's `last_move_lines`, else the seat's name and the
    effects of its entry in the view's `last_moves` (absent in older views: no lines then)."""
    own = _declared(view, "last_move_lines")
    if own is not None:
        return [line for line in own(view) or [] if isinstance(line, str) and line]
    lines = []
    for index, entry in enumerate(view.get("last_moves") or []):
        if index == view.get("you") or not isinstance(entry, dict):
            continue
        texts = [text for text in (phrase(effect, view) for effect in entry.get("effects") or []) if text]
        if texts:
            lines.append(f"{seat_name(view, index)}: {' · '.join(texts)}")
    return lines


def moves_of(view: dict[str, Any]) -> list[dict[str, str]]:
    """The legal moves as buttons: German words (the game's board package, else generic) and the move's JSON."""
    renderer = renderer_for(str(view.get("game", "")))
    listed = getattr(renderer, "listed_move", None)  # optional: moves a board makes by clicking on it
    return [{"label": renderer.move_label(move, view), "json": json.dumps(move, separators=(",", ":"),
                                                                         ensure_ascii=False)}
            for move in view.get("legal_moves") or [] if listed is None or listed(move, view)]


def end_table(view: dict[str, Any], finished: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Places, points and the Rechenweg per seat from the view's outcome; list points, new badges and the rating
    before → after from the leaderboard's end table when it has the game already."""
    outcome = view.get("outcome") or {}
    places = outcome.get("places") or []
    scores = outcome.get("scores") or []
    lines = outcome.get("lines") or []
    points = outcome.get("leaderboard_points") or []
    by_seat = {seat.get("seat"): seat for seat in (finished or {}).get("seats", [])}
    rows = []
    for index, seat in enumerate(view.get("seats") or []):
        end = by_seat.get(index, {})
        rows.append({
            "seat": index, "name": seat_name(view, index),
            "kind": KIND_WORDS.get(seat.get("kind"), seat.get("kind")),
            "place": places[index] if index < len(places) else None,
            "score": scores[index] if index < len(scores) else None,
            "points": points[index] if index < len(points) else None,
            "lines": lines[index] if index < len(lines) else [],
            "badges": [badge.get("title") for badge in end.get("new_badges", [])],
            "taler": taler_cell(seat, index, (finished or {}).get("taler")),
            "rating": rating_cell(end.get("rating")),
            "you": index == view.get("you"), "shape": SEAT_SHAPES[index % len(SEAT_SHAPES)],
        })
    return sorted(rows, key=lambda row: (row["place"] if row["place"] is not None else 99, row["seat"]))


def rating_cell(rating: dict[str, Any] | None) -> dict[str, str]:
    """The end table's rating of one seat from the leaderboard's end table: "1500 → 1534" with the change
    ("+34", "−12", "±0") and the uncertainty after the game; "–" for a game that is not rated (solo, practice)
    and while the leaderboard has not rated it yet."""
    if not rating or not isinstance(rating.get("before"), int) or not isinstance(rating.get("after"), int):
        return {"text": "–", "change": "", "detail": ""}
    change = int(rating["after"]) - int(rating["before"])
    sign = f"+{change}" if change > 0 else (f"\u2212{-change}" if change < 0 else "\u00b10")
    return {"text": f"{rating['before']} \u2192 {rating['after']}", "change": sign,
            "detail": f"Unsicherheit \u00b1{rating.get('uncertainty_after', '?')}"}


def taler_cell(seat: dict[str, Any], index: int, pot: dict[str, Any] | None) -> dict[str, str]:
    """The end table's Taler of one seat from the lobby's `GET /pots/{game_id}`: what it won or lost in the pot
    ("+50", "−50", "±0") with the amounts paid and won in words; "ohne Einsatz" for a human who paid nothing
    (a guest, a game without stake), "–" for computers and while the lobby has not answered."""
    if seat.get("kind") != "human" or not pot:
        return {"text": "–", "detail": ""}
    share = next((line for line in pot.get("seats") or [] if line.get("seat") == index), None)
    if pot.get("state") == "none" or share is None:
        return {"text": "ohne Einsatz", "detail": ""}
    paid, won = int(share.get("paid") or 0), int(share.get("won") or 0)
    if pot.get("state") != "settled":
        return {"text": "wird ausgezahlt …", "detail": f"eingesetzt {paid} Taler"}
    net = won - paid
    text = f"+{net}" if net > 0 else (f"\u2212{-net}" if net < 0 else "\u00b10")
    return {"text": f"{text} Taler", "detail": f"eingesetzt {paid} Taler, aus dem Topf {won} Taler"}


def pot_line(finished: dict[str, Any] | None) -> str | None:
    """The line under the end table of a stake game once the pot is paid: its size, the house's rest, and the
    rule in the rule text's words; None without stake or before the payout."""
    pot = (finished or {}).get("taler") or {}
    if pot.get("state") != "settled":
        return None
    line = f"Topf: {pot.get('total', 0)} Taler"
    if pot.get("house"):
        line += f", davon {pot['house']} Taler ans Haus"
    return (line + ". Der Topf geht an den bestplatzierten Menschen; wer vorzeitig verlässt, verliert seinen "
                   "Einsatz; sitzt nur ein Mensch mit Einsatz am Tisch, bekommt er ihn zurück.")


def phrase_text(item: Any) -> str | None:
    """A German phrase's text ({key, params, text}); None for what is no phrase (e.g. a sealed part)."""
    if isinstance(item, dict) and isinstance(item.get("text"), str):
        return str(item["text"])
    return None


def log_entries(events: list[dict[str, Any]], limit: int = 200,
                view: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The game's log as the seat may read it (`GET /games/{id}/events` with its token), newest first: each
    event's German effect lines (the board's words, seats by their names when `view` is given); others' private
    parts (sealed digests) are not shown."""
    entries = []
    for event in events:
        data = event.get("data") or {}
        texts = _texts(data.get("effects") or [], view)
        if event.get("type") == "GameStarted":
            texts = ["Die Partie beginnt."]
        elif event.get("type") == "GameEnded":
            texts = ["Die Partie ist zu Ende."]
        elif event.get("type") == "PlayerLeft":
            texts = texts or ["Ein Mensch hat die Partie verlassen; der Computer spielt für ihn weiter."]
        if texts:
            entries.append({"n": event.get("n"), "texts": texts})
    return list(reversed(entries))[:limit]


def _texts(effects: list[Any], view: dict[str, Any] | None) -> list[str]:
    if view is None:
        return [text for text in (phrase_text(effect) for effect in effects) if text]
    return [text for text in (phrase(effect, view) for effect in effects) if text]


def is_move_view(view: dict[str, Any], before: dict[str, Any] | None) -> bool:
    """Whether the view follows a move (its `last_effects` are that move's), not another event that leaves the
    last move's effects in place (the end, a seat leaving, a team's signal): then its log line is new.

    With `last_moves` the view says so itself (a seat's last move is the view's event); without, the effects
    are compared with the view before."""
    moves = view.get("last_moves")
    if isinstance(moves, list) and any(isinstance(entry, dict) for entry in moves):
        return any(isinstance(entry, dict) and entry.get("n") == view.get("n") for entry in moves)
    if before is None:
        return True
    return bool(view.get("last_effects")) and view.get("last_effects") != before.get("last_effects")


def live_entry(view: dict[str, Any], before: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The log entry a live update adds: the view's `last_effects` when they are a new move's (each line once),
    "Die Partie ist zu Ende." when the update is the end."""
    if view.get("status") == "ended" and (before is None or before.get("status") != "ended"):
        return {"n": view.get("n"), "texts": ["Die Partie ist zu Ende."]}
    if not is_move_view(view, before):
        return None
    texts = _texts(view.get("last_effects") or [], view)
    return {"n": view.get("n"), "texts": texts} if texts else None


# ---- the end banner ------------------------------------------------------------------------------------------

def _points(number: int) -> str:
    return f"{number} Punkt" if abs(number) == 1 else f"{number} Punkte"


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} und {names[-1]}"


def result(view: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, str]:
    """The end banner: how the viewer did ("Du hast gewonnen!", "Du teilst den 1. Platz mit …", "Du bist 2. von 3
    – 12 Punkte hinter Computer 1"; a team as a team), the rating change when the leaderboard has it; for a
    spectator who won. Empty before the end or without places."""
    outcome = view.get("outcome") or {}
    places = outcome.get("places") or []
    scores = outcome.get("scores") or []
    seats = view.get("seats") or []
    if view.get("status") != "ended" or len(places) != len(seats) or not seats:
        return {}
    you = view.get("you")
    team = [int(seat) for seat in (view.get("team_log") or {}).get("seats") or []]
    best = min(places)
    winners = [index for index, place in enumerate(places) if place == best]
    if you is None or not 0 <= you < len(places):
        names = [seat_name(view, index) for index in winners]
        title = f"{_names(names)} {'gewinnt' if len(names) == 1 else 'gewinnen gemeinsam'}."
        return {"title": title, "rating": "", "won": ""}
    mine = places[you]
    partners = [index for index in team if index != you]
    tied = [index for index in winners if index != you and index not in partners]
    if mine == best and not tied:
        title = "Ihr habt gewonnen!" if partners else "Du hast gewonnen!"
        if partners:
            title += f" (mit {_names([seat_name(view, index) for index in partners])})"
    elif mine == best:
        title = f"Du teilst den 1. Platz mit {_names([seat_name(view, index) for index in tied])}."
    else:
        distinct = sorted(set(places))
        rank = distinct.index(mine) + 1 if partners else mine
        of = len(distinct) if partners else len(places)
        title = f"{'Ihr seid' if partners else 'Du bist'} {rank}. von {of}"
        leader = winners[0]
        if you < len(scores) and leader < len(scores) and isinstance(scores[you], int) \
                and isinstance(scores[leader], int) and scores[leader] >= scores[you]:
            behind = scores[leader] - scores[you]
            title += f" – {_points(behind)} hinter {seat_name(view, leader)}" if behind else \
                f" – punktgleich mit {seat_name(view, leader)}"
    own = next((row for row in rows if row.get("you")), None)
    rating = ""
    if own is not None and (own.get("rating") or {}).get("change"):
        rating = f"Wertung: {own['rating']['text']} ({own['rating']['change']})"
    return {"title": title, "rating": rating, "won": "yes" if mine == best else ""}


# ---- the move bar --------------------------------------------------------------------------------------------

def preview_warnings(answer: Any, view: dict[str, Any]) -> list[str]:
    """The preview's warnings in German (tiles that break, points lost, the last stone)."""
    found: list[str] = []
    if isinstance(answer, dict):
        for key in ("warnungen", "warnung", "warnings"):
            value = answer.get(key)
            for item in value if isinstance(value, list) else [value]:
                text = phrase(item, view) or (item if isinstance(item, str) else None)
                if text:
                    found.append(text)
    return found


def _phrases(value: Any, depth: int = 0) -> list[dict[str, Any]]:
    """Every phrase ({key, params, text}) inside a preview answer, in order, the warnings left out."""
    if depth > 8:
        return []
    if isinstance(value, dict):
        if isinstance(value.get("text"), str) and "key" in value:
            return [value]
        return [found for key, item in value.items() if key not in ("warnungen", "warnung", "warnings", "zug")
                for found in _phrases(item, depth + 1)]
    if isinstance(value, list):
        return [found for item in value for found in _phrases(item, depth + 1)]
    return []


def preview_line(move: Any, answer: Any, view: dict[str, Any]) -> str:
    """The move's gain in one German line: the board's `preview_line`, else the phrases the preview carries
    (never a field name or key); "" when there is nothing to say beyond the move's own words."""
    own = _declared(view, "preview_line")
    if own is not None:
        said = own(move, answer, view)
        if isinstance(said, str):
            return said
    texts: list[str] = []
    main = answer.get("text") if isinstance(answer, dict) else None
    for item in [main] if phrase_text(main) else _phrases(answer):
        text = phrase(item, view)
        if text and text not in texts:
            texts.append(text)
    return " · ".join(texts)
