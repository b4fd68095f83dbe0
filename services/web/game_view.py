"""What the game page shows besides the board, from the seat's view alone: whose turn, clocks, the moves with
their words, "Zurück", the end table; and the log lines of the game's events. Pure functions, no I/O."""

from __future__ import annotations

import json
from typing import Any

from services.web.boards import renderer_for

STATUS_WORDS = {"running": "läuft", "ending": "wird gewertet", "ended": "beendet"}
KIND_WORDS = {"human": "Mensch", "bot": "Computer"}


def seat_name(view: dict[str, Any], seat: int) -> str:
    seats = view.get("seats") or []
    if 0 <= seat < len(seats):
        return str(seats[seat].get("name") or f"Platz {seat + 1}")
    return f"Platz {seat + 1}"


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
            "seat": index, "name": seat.get("name") or f"Platz {index + 1}",
            "kind": KIND_WORDS.get(seat.get("kind"), seat.get("kind")),
            "place": places[index] if index < len(places) else None,
            "score": scores[index] if index < len(scores) else None,
            "points": points[index] if index < len(points) else None,
            "lines": lines[index] if index < len(lines) else [],
            "badges": [badge.get("title") for badge in end.get("new_badges", [])],
            "taler": taler_cell(seat, index, (finished or {}).get("taler")),
            "rating": rating_cell(end.get("rating")),
            "you": index == view.get("you"),
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


def log_entries(events: list[dict[str, Any]], limit: int = 200) -> list[dict[str, Any]]:
    """The game's log as the seat may read it (`GET /games/{id}/events` with its token), newest first: each
    event's German effect lines; others' private parts (sealed digests) are not shown."""
    entries = []
    for event in events:
        data = event.get("data") or {}
        texts = [text for text in (phrase_text(effect) for effect in data.get("effects") or []) if text]
        if event.get("type") == "GameStarted":
            texts = ["Die Partie beginnt."]
        elif event.get("type") == "GameEnded":
            texts = ["Die Partie ist zu Ende."]
        elif event.get("type") == "PlayerLeft":
            texts = texts or ["Ein Mensch hat die Partie verlassen; der Computer spielt für ihn weiter."]
        if texts:
            entries.append({"n": event.get("n"), "texts": texts})
    return list(reversed(entries))[:limit]


def live_entry(view: dict[str, Any]) -> dict[str, Any] | None:
    """The log entry a live update adds: the view's `last_effects`."""
    texts = [text for text in (phrase_text(effect) for effect in view.get("last_effects") or []) if text]
    return {"n": view.get("n"), "texts": texts} if texts else None
