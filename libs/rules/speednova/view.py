"""What a seat sees of Speednova, and the full state a bot rebuilds from it (determinization).

Public: the map, every placed double star, the tracks with their computations, how many double stars each
rack and the bag hold, whose decision it is. A seat also sees its own rack (with hints per tile) and, in a
team game, its team's signals. Never: other racks, the bag's order, the seed, the other team's signals.
"""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speednova import signals
from libs.rules.speednova.board import FREE, board, greedy_pairs
from libs.rules.speednova.config import config_of
from libs.rules.speednova.placement import allowed_pairs
from libs.rules.speednova.rules import best_placements, holds_weakest, weakest_colours
from libs.rules.speednova.scoring import analysis
from libs.rules.speednova.state import NovaState
from libs.rules.speednova.tiles import ALL_TILES, COLOUR_INDEX, COLOURS, N_COLOURS, colour_json, tile_code, tile_json

GAME = "speednova"
RULES_V1 = "speednova@1"
"""The first version: signals in the game's log (``NovaState.side_signals`` False)."""
COLOUR_TABLE: list[Json] = [colour_json(colour) for colour in range(N_COLOURS)]


def _colour(value: int) -> str | None:
    return None if value == FREE else COLOURS[value]


def line_hints(state: NovaState) -> list[Json]:
    """Per free cell beside a star: along each line, what a same-coloured half there would score."""
    the_board = board(state.radius)
    hints: list[Json] = []
    for cell, lines in enumerate(analysis(state.radius, state.cells).lines):
        for direction, colour, run in lines:
            hints.append({"feld": cell, "richtung": direction, "stern": the_board.neighbours[cell][direction],
                          "farbe": COLOURS[colour], "punkte": run})
    return hints


def _track_json(state: NovaState, owner: int) -> Json:
    track = state.tracks[owner]
    seats = [seat for seat in range(state.seats) if state.track_of(seat) == owner]
    return {
        "sitze": seats,
        "werte": {COLOURS[colour]: value for colour, value in enumerate(track)},
        "schwaechste": [COLOURS[colour] for colour in weakest_colours(track)],
        "rechenweg": {COLOURS[colour]: list(state.gains[owner][colour]) for colour in range(N_COLOURS)},
    }


def _own_json(state: NovaState, seat: int) -> Json:
    weakest = weakest_colours(state.tracks[state.track_of(seat)])
    best = best_placements(state, seat)
    rack = []
    for code in state.racks[seat]:
        found = best[code]
        rack.append({
            "stein": tile_json(code),
            "schwaechste": holds_weakest(code, weakest),
            "bester_platz": None if found is None else {
                "zug": {"stein": [COLOURS[found[3]], COLOURS[found[4]]], "feld": found[1], "richtung": found[2]},
                "punkte": found[0],
            },
        })
    own: Json = {"sitz": seat, "bank": rack}
    if state.teams:
        own["signale"] = [signals.signal_json(member, signal) for member in state.team_of(seat)
                          for signal in signals.active(state, member)]
        if state.side_signals:
            own["signale_erloschen"] = [signals.gone_json(member, signal) for member in state.team_of(seat)
                                        for signal in signals.gone_out(state, member)]
    return own


def make_view(state: NovaState, seat: int | None, rules_id: str) -> Json:
    """Return what ``seat`` (None: a spectator) may see."""
    the_board = board(state.radius)
    mover = state.current
    starting = state.started[mover] < 0 and not state.is_finished
    start_cells = sorted({cell for pair in allowed_pairs(state, mover) for cell in (pair[0], pair[2])}) \
        if starting else []
    return {
        "spiel": GAME,
        "regeln": rules_id,
        "einstellungen": config_of(state.seats, state.teams, state.solo),
        "sitze": state.seats,
        "teams": [list(state.team_of(s)) for s in (0, 1)] if state.teams else None,
        "solo": state.solo,
        "phase": state.phase,
        "am_zug": None if state.is_finished else mover,
        "entscheidung": state.decision,
        "bonuszuege": state.bonus,
        "tausche": state.shuffles,
        "oben": state.top,
        "supernova_bei": list(state.thresholds),
        "farben": COLOUR_TABLE,
        "karte": {
            "radius": state.radius,
            "koordinaten": [list(coord) for coord in the_board.coords],
            "sterne": [_colour(value) for value in state.cells],
            "leitsterne": [{"feld": cell, "farbe": COLOURS[colour], "begonnen": colour in state.started}
                           for colour, cell in enumerate(the_board.leitsterne)],
            "freie_felder": sum(1 for value in state.cells if value == FREE),
            "passen_noch": greedy_pairs(state.cells, the_board.neighbours),
            "endwarnung": state.warned,
            "startfelder": start_cells,
            "linienwerte": line_hints(state),
        },
        "gelegt": [{"sitz": s, "felder": [a, b], "farben": [COLOURS[x], COLOURS[y]]} for s, a, b, x, y in state.placed],
        "spieler": [
            {"sitz": s, "steine": len(state.racks[s]), "gelegt": sum(1 for entry in state.placed if entry[0] == s),
             "tafel": state.track_of(s), "begonnen_bei": None if state.started[s] < 0 else COLOURS[state.started[s]],
             "sechserlinie": state.six_line[s], "andromeda": None if state.andromeda[s] < 0 else state.andromeda[s]}
            for s in range(state.seats)
        ],
        "tafeln": [_track_json(state, owner) for owner in range(len(state.tracks))],
        "beutel": len(state.bag),
        "ende": state.end_reason or None,
        "du": None if seat is None else _own_json(state, seat),
    }


def _codes(tiles: list[Any]) -> list[int]:
    return [tile_code(COLOUR_INDEX[tile[0]], COLOUR_INDEX[tile[1]]) for tile in tiles]


def state_from_view(view: Json, seat: int, rng: SeededRng) -> NovaState:
    """Return a full state matching ``seat``'s view: the other racks and the bag's order sampled from ``rng``,
    the other team's signals empty, a fresh seed for later swaps."""
    seats = int(view["sitze"])
    config = view["einstellungen"]
    teams = config.get("teams") == "mit"
    solo = view["solo"]
    karte = view["karte"]
    cells = tuple(FREE if star is None else COLOUR_INDEX[star] for star in karte["sterne"])
    placed = tuple((entry["sitz"], entry["felder"][0], entry["felder"][1], COLOUR_INDEX[entry["farben"][0]],
                    COLOUR_INDEX[entry["farben"][1]]) for entry in view["gelegt"])
    own = view["du"]
    own_rack = tuple(sorted(_codes([entry["stein"] for entry in own["bank"]])))
    unseen = list(ALL_TILES)
    for code in [tile_code(x, y) for _s, _a, _b, x, y in placed] + list(own_rack):
        unseen.remove(code)
    unseen = rng.shuffle(unseen)
    tafeln = view["tafeln"]
    tracks = tuple(tuple(table["werte"][colour] for colour in COLOURS) for table in tafeln)
    gains = tuple(tuple(tuple(table["rechenweg"][colour]) for colour in COLOURS) for table in tafeln)
    current = view["am_zug"] if view["am_zug"] is not None else 0
    players = view["spieler"]
    racks: list[tuple[int, ...]] = []
    for other in range(seats):
        if other == seat:
            racks.append(own_rack)
            continue
        count = players[other]["steine"]
        if view["phase"] == "tauschen" and other == current:
            # The mover was offered the swap: its rack holds none of its weakest colours.
            weakest = tuple(COLOUR_INDEX[c] for c in tafeln[players[other]["tafel"]]["schwaechste"])
            fitting = [code for code in unseen if not holds_weakest(code, weakest)]
            picked = fitting[:count] if len(fitting) >= count else unseen[:count]
        else:
            picked = unseen[:count]
        for code in picked:
            unseen.remove(code)
        racks.append(tuple(sorted(picked)))
    team = (seat % 2, seat % 2 + 2) if teams else (seat,)
    own_signals: dict[int, list[tuple[str, int]]] = {member: [] for member in team}
    for entry in [*(own.get("signale") or []), *(own.get("signale_erloschen") or [])]:
        value = entry["feld"] if entry["signal"] == signals.KEEP_FREE else COLOUR_INDEX[entry["farbe"]]
        own_signals[entry["sitz"]].append((entry["signal"], value))
    seed = rng.next_u64().to_bytes(8, "big") + rng.next_u64().to_bytes(8, "big")
    return NovaState(
        seats=seats, teams=teams, solo=solo, radius=int(karte["radius"]), seed=seed, cells=cells, placed=placed,
        racks=tuple(racks), bag=tuple(unseen), tracks=tracks, gains=gains,
        started=tuple(-1 if p["begonnen_bei"] is None else COLOURS.index(p["begonnen_bei"]) for p in players),
        current=current, phase=view["phase"], bonus=int(view["bonuszuege"]), decision=int(view["entscheidung"]),
        shuffles=int(view["tausche"]), warned=bool(karte["endwarnung"]),
        signals=tuple(tuple(own_signals.get(s, ())) for s in range(seats)),
        six_line=tuple(bool(p["sechserlinie"]) for p in players),
        andromeda=tuple(-1 if p["andromeda"] is None else int(p["andromeda"]) for p in players),
        end_reason=view["ende"] or "",
        side_signals=view["regeln"] != RULES_V1,
    )
