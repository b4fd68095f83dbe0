"""The German reasons of Speednova's advice ("Rat des Meisters"), built from public data and the seat's own rack.

A reason never names a tile the seat cannot see: what the next opponent could still do is said from the map
alone (the most its weakest colour could gain on one cell), not from the sampled racks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from libs.rules.protocol import Json
from libs.rules.speednova.scoring import analysis, free_pairs
from libs.rules.speednova.state import NovaState
from libs.rules.speednova.texts import colour_list, points_text, seat_name
from libs.rules.speednova.tiles import COLOUR_NAMES, COLOURS
from services.bot.policies.contract import Situation
from services.bot.policies.speednova_bots import team
from services.bot.policies.speednova_bots.values import (
    balanced,
    best_placement,
    cells_after,
    free_pairs_after,
    raw_columns,
)

if TYPE_CHECKING:
    from services.bot.policies.speednova_bots.policy import PlaceDetail, SwapDetail


def _weakest(track: tuple[int, ...]) -> tuple[int, ...]:
    low = min(track)
    return tuple(colour for colour, value in enumerate(track) if value == low)


def _placed_text(first: int, cell: int, second: int, partner: int) -> str:
    return (f"{COLOUR_NAMES[first]}/{COLOUR_NAMES[second]} mit {COLOUR_NAMES[first]} auf Feld {cell} "
            f"und {COLOUR_NAMES[second]} auf Feld {partner}")


def place_reason(situation: Situation, detail: PlaceDetail) -> Json:
    """Return the reason of a placement: its points, the weakest colour, a Supernova, and (with the strong
    look ahead) what it takes from the next opponent and which tile it leaves for the seat's next turn."""
    state: NovaState = situation.position.state
    option, track = detail.option, detail.track
    yours = "eure" if state.teams else "deine"
    gained = detail.gained
    parts: list[str] = [f"Lege {_placed_text(option.first, option.cell, option.second, option.partner)}: "
                        f"{points_text(gained)}."]
    weakest = _weakest(track)
    raised = [colour for colour in weakest if gained.get(colour, 0) > 0]
    if raised:
        colour = raised[0]
        parts.append(f"Das stärkt {yours} schwächste Farbe {COLOUR_NAMES[colour]} "
                     f"({track[colour]} → {track[colour] + gained[colour]}).")
    else:
        parts.append(f"{yours.capitalize()} schwächste Farbe: {colour_list(weakest)} ({track[weakest[0]]}).")
    novas = [(colour, threshold) for colour, value in gained.items() for threshold in state.thresholds
             if track[colour] < threshold <= track[colour] + value]
    for colour, threshold in novas:
        parts.append(f"Supernova: {COLOUR_NAMES[colour]} erreicht {threshold}, du legst sofort noch einen Stein.")
    prefs = team.preferences(situation.view, situation.seat) if state.teams else team.NO_PREFERENCES
    helped = [colour for colour in prefs.needed if gained.get(colour, 0) > 0]
    if helped:
        parts.append(f"Dein Partner braucht {colour_list(helped)}.")
    params: dict[str, Any] = {
        "zug": option.move(), "felder": [option.cell, option.partner],
        "punkte": {COLOURS[colour]: value for colour, value in gained.items()},
        "schwaechste": [COLOURS[colour] for colour in weakest],
        "supernova": [{"farbe": COLOURS[colour], "wert": threshold} for colour, threshold in novas],
        "gegner": None, "gegner_weggenommen": None, "gegner_danach": None, "naechster_zug": None,
    }
    if detail.next_value is not None:
        _strong_parts(state, situation.seat, detail, parts, params)
    return {"key": "speednova.rat.legen", "params": params, "text": " ".join(parts)}


def _strong_parts(state: NovaState, seat: int, detail: PlaceDetail, parts: list[str], params: dict[str, Any]) -> None:
    """Add what the strong look ahead saw: cells taken from the next opponent, its best cell after, the next tile."""
    option = detail.option
    before = raw_columns(analysis(state.radius, state.cells))
    cells = cells_after(state.cells, option.cell, option.first, option.partner, option.second)
    after = raw_columns(analysis(state.radius, cells))
    pairs = free_pairs_after(free_pairs(state.cells, state.radius), option.cells)
    opponent = detail.opponent
    if opponent is not None:
        theirs = state.tracks[state.track_of(opponent)]
        weak = _weakest(theirs)[0]
        taken = max(before[weak][option.cell], before[weak][option.partner])
        free_cells = {cell for pair in pairs for cell in (pair[0], pair[2])}
        left = max((after[weak][cell] for cell in free_cells), default=0)
        params["gegner"] = opponent + 1
        params["gegner_danach"] = {"farbe": COLOURS[weak], "punkte": left}
        if taken > 0:
            params["gegner_weggenommen"] = {"farbe": COLOURS[weak], "punkte": taken}
            parts.append(f"Du nimmst {seat_name(opponent)} einen Platz weg, der seiner schwächsten Farbe "
                         f"{COLOUR_NAMES[weak]} +{taken} brächte;")
            parts.append(f"danach holt eine {COLOUR_NAMES[weak]}-Hälfte dort höchstens +{left}.")
        else:
            parts.append(f"Danach holt {seat_name(opponent)} mit einer Hälfte in seiner schwächsten Farbe "
                         f"{COLOUR_NAMES[weak]} höchstens +{left}.")
    rest = list(state.racks[seat])
    rest.remove(option.code)
    track_after = list(detail.track)
    for colour, value in detail.gained.items():
        track_after[colour] += value
    nxt = best_placement(pairs, after, balanced(tuple(track_after), state.top, state.thresholds), rest)
    if nxt is not None:
        _value, cell, partner, first, second = nxt
        points = {first: after[first][cell]} if first != second else {first: after[first][cell] + after[first][partner]}
        if first != second:
            points[second] = after[second][partner]
        params["naechster_zug"] = {"felder": [cell, partner], "stein": [COLOURS[first], COLOURS[second]]}
        parts.append(f"Für deinen nächsten Stein bleibt {_placed_text(first, cell, second, partner)} "
                     f"({points_text(points)}).")


def swap_reason(move: Json | None, detail: SwapDetail) -> Json:
    """Return the reason of a swap decision: the weakest colour is missing, and what new tiles would bring."""
    swap = bool(move and move.get("tauschen"))
    weakest = colour_list(detail.weakest)
    params = {"tauschen": swap, "schwaechste": [COLOURS[c] for c in detail.weakest],
              "behalten_wert": round(detail.keep, 2), "tauschen_wert": round(detail.swap, 2)}
    if swap:
        text = (f"Tausche die Bank: keiner deiner Steine zeigt {weakest}, und neue Steine aus dem Beutel "
                "bringen im Schnitt mehr als deine besten jetzt.")
    else:
        text = (f"Behalte die Bank: keiner deiner Steine zeigt zwar {weakest}, aber deine Steine bringen jetzt "
                "mindestens so viel wie neue aus dem Beutel im Schnitt.")
    return {"key": "speednova.rat.tauschen" if swap else "speednova.rat.behalten", "params": params, "text": text}
