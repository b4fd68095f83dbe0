"""What a seat sees of a Speedkoi game (and nothing more), the hints a client shows, and ``determinize``.

Public: rows, figures, tiles, discard piles (every discarded lantern was seen face up), pile and deck sizes,
hand sizes, the lanterns a seat was seen taking into its hand (from a pile or by a Koi) while it holds them,
tiles taken, scores, everyone's last move. Hidden: other hands (beyond what was seen taken), the deck's
order, the set-aside lanterns. The ``du`` part is built from the seat's own knowledge only.
"""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speedkoi import scoring
from libs.rules.speedkoi.material import (
    ALL_LANTERNS,
    COLOUR_NAMES,
    COLOURS,
    COPIES,
    END_STONE,
    FESTIVAL,
    GAME,
    GOAL_FIGURES,
    KINDS,
    MASTER,
    PATHS,
    PILGRIM,
    STONE_VALUES,
    STONES,
    TEAHOUSE_BONUS,
    TILE_KINDS,
    VALUES,
    figure_points,
    lantern,
    lantern_json,
)
from libs.rules.speedkoi.rows import asks_figure, direction, fits, goal_count, movable, pilgrims_free
from libs.rules.speedkoi.state import ENDE, STEG, KoiState
from libs.rules.speedkoi.texts import last_move, part_from_json

WAYS = {1: "auf", -1: "ab", 0: None}


def step_info(state: KoiState, seat: int, path: int) -> Json:
    """Return what moving the seat's figure on ``path`` one stone brings: stones, points, tile, Teehaus, goal."""
    stone = state.stones[seat][path]
    target = stone + 1
    master = state.masters[seat] == path
    bonus = 0
    if target == END_STONE and state.spielart == FESTIVAL and seat not in state.arrivals[path]:
        rank = len(state.arrivals[path])
        bonus = TEAHOUSE_BONUS[rank] if rank < len(TEAHOUSE_BONUS) else 0
    return {"pfad": COLOURS[path], "figur": MASTER if master else PILGRIM, "von": stone, "nach": target,
            "punkte": figure_points(target, master) - figure_points(stone, master),
            "plaettchen": state.tiles[path][target], "teehaus": bonus, "ins_ziel": target == 7}


def play_info(state: KoiState, seat: int, code: int) -> Json | None:
    """Return what playing this lantern brings (None if it fits no row)."""
    colour, value = divmod(code, VALUES)
    if not fits(state.rows[seat][colour], value):
        return None
    stone = state.stones[seat][colour]
    if stone == 0:
        asked = asks_figure(state, seat, colour)
        art = None if asked else (PILGRIM if pilgrims_free(state, seat) else MASTER)
        return {"art": "neuer_pfad", "fragt": asked, "figur": art, "nach": 1,
                "punkte": STONE_VALUES[1] * (2 if art == MASTER else 1),
                "punkte_meister": STONE_VALUES[1] * 2 if asked else None}
    if stone < END_STONE:
        return {"art": "schritt", "fragt": False, **step_info(state, seat, colour)}
    others = movable(state, seat)
    return {"art": "endstein", "fragt": False, "weiter": [step_info(state, seat, path) for path in others],
            "nur_reihe": not others}


def _users(state: KoiState, seat: int | None, code: int) -> list[int]:
    """Return the other seats that could use this lantern: it fits a row of theirs they have started."""
    colour, value = divmod(code, VALUES)
    return [other for other in range(state.seats) if other != seat and state.rows[other][colour]
            and fits(state.rows[other][colour], value)]


def _player(state: KoiState, seat: int, points: int) -> Json:
    master = state.masters[seat]
    return {
        "platz": seat,
        "hand": len(state.hands[seat]),
        "hand_bekannt": [lantern_json(code) for code in state.known[seat]],
        "reihen": {COLOURS[colour]: {"werte": list(row), "richtung": WAYS[direction(row)]}
                   for colour, row in enumerate(state.rows[seat])},
        "figuren": {COLOURS[path]: None if stone == 0 else {"art": MASTER if path == master else PILGRIM,
                                                            "stein": stone}
                    for path, stone in enumerate(state.stones[seat])},
        "pilger_frei": pilgrims_free(state, seat),
        "meister_frei": master == -1,
        "perlen": state.taken[seat][0],
        "blueten": state.blossoms[seat],
        "teehaus": state.teahouse[seat],
        "plaettchen": dict(zip(TILE_KINDS, state.taken[seat], strict=True)),
        "punkte": points,
        "rechenweg": [line.to_json() for line in scoring.lines(state, seat)],
        "zuletzt": last_move(seat, state.last[seat]),
    }


def make_view(state: KoiState, seat: int | None, rules_id: str) -> Json:
    """Return what ``seat`` (None: a spectator) sees."""
    points = scoring.scores(state)
    finished = state.phase == ENDE
    in_goal = goal_count(state)
    folge: Json | None = None
    if state.phase in ("libelle", "steg"):
        folge = {"art": state.phase, "von_pfad": COLOURS[state.jetty_path] if state.phase == STEG else None,
                 "pfade": [COLOURS[path] for path in movable(state, state.current,
                                                              state.jetty_path if state.phase == STEG else -1)]}
    elif state.phase == "koi":
        folge = {"art": "koi", "von_pfad": None, "pfade": [COLOURS[c] for c, pile in enumerate(state.piles) if pile]}
    standings = ", ".join(f"Platz {other + 1} {scoring.number(points[other])}" for other in range(state.seats))
    view: Json = {
        "spiel": GAME, "regeln": rules_id, "einstellungen": {"spielart": state.spielart},
        "plaetze": state.seats, "ich": seat, "am_zug": [] if finished else [state.current],
        "dran": state.current, "beendet": finished, "phase": state.phase, "zug": state.turn,
        "startspieler": state.start,
        "ende": {"grund": state.end_reason, "platz": state.ended_by} if finished else None,
        "folge": folge,
        "abgeworfen": COLOURS[state.discarded] if state.discarded >= 0 else None,
        "stapel": {"anzahl": len(state.deck)}, "beiseite": {"anzahl": len(state.aside)},
        "ablagen": {COLOURS[colour]: list(pile) for colour, pile in enumerate(state.piles)},
        "pfade": [_path(state, path) for path in range(PATHS)],
        "im_ziel": {"anzahl": in_goal, "ende_bei": GOAL_FIGURES},
        "stand": {"key": "speedkoi.stand", "params": {"im_ziel": in_goal, "punkte": list(points)},
                  "text": f"Im Ziel {in_goal}/{GOAL_FIGURES} · {standings}"},
        "spieler": [_player(state, other, points[other]) for other in range(state.seats)],
        "du": None if seat is None else _own(state, seat),
    }
    return view


def _path(state: KoiState, path: int) -> Json:
    arrived = state.arrivals[path]
    bonus: int | None = None
    if state.spielart == FESTIVAL:
        bonus = TEAHOUSE_BONUS[len(arrived)] if len(arrived) < len(TEAHOUSE_BONUS) else 0
    return {"farbe": COLOURS[path], "name": COLOUR_NAMES[path],
            "steine": [{"stein": stone, "wert": STONE_VALUES[stone], "plaettchen": state.tiles[path][stone]}
                       for stone in range(1, STONES + 1)],
            "endstein": {"erreicht": list(arrived), "teehaus_bonus": bonus, "bonus_zu_haben": bool(bonus)}}


def unseen_counts(state: KoiState, seat: int) -> list[int]:
    """Return per lantern kind how many of its two copies ``seat`` has not seen where they are now.

    Seen: its own hand, every row, every discard pile, and what others were seen taking into their hands.
    Unseen: the deck, the rest of the others' hands and (two players) the set-aside lanterns.
    """
    counts = [COPIES] * KINDS
    for code in state.hands[seat]:
        counts[code] -= 1
    for other in range(state.seats):
        for colour, row in enumerate(state.rows[other]):
            base = colour * VALUES
            for value in row:
                counts[base + value] -= 1
        if other != seat:
            for code in state.known[other]:
                counts[code] -= 1
    for colour, pile in enumerate(state.piles):
        base = colour * VALUES
        for value in pile:
            counts[base + value] -= 1
    return counts


def _asks(info: Json | None) -> bool:
    return bool(info is not None and info["fragt"])


def _own(state: KoiState, seat: int) -> Json:
    hints: dict[int, Json | None] = {}
    for code in state.hands[seat]:
        if code not in hints:
            hints[code] = play_info(state, seat, code)
    hand = [{**lantern_json(code), "passt": hints[code] is not None, "fragt": _asks(hints[code]),
             "bringt": hints[code], "gegner": _users(state, seat, code)} for code in state.hands[seat]]
    tops = []
    for colour, pile in enumerate(state.piles):
        if pile:
            code = lantern(colour, pile[-1])
            info = play_info(state, seat, code)
            tops.append({**lantern_json(code), "passt": info is not None, "fragt": _asks(info),
                         "bringt": info, "gegner": _users(state, seat, code),
                         "nehmbar": colour != state.discarded})
    unseen = unseen_counts(state, seat)
    in_hand = [0] * KINDS
    for code in state.hands[seat]:
        in_hand[code] += 1
    known_at: list[list[int]] = [[] for _ in range(KINDS)]
    for other in range(state.seats):
        if other != seat:
            for code in state.known[other]:
                known_at[code].append(other)
    overview = {COLOURS[colour]: [
        {"wert": value, "ungesehen": unseen[colour * VALUES + value], "in_hand": in_hand[colour * VALUES + value],
         "passt": fits(state.rows[seat][colour], value), "bekannt_bei": known_at[colour * VALUES + value]}
        for value in range(VALUES)] for colour in range(PATHS)}
    return {"platz": seat, "hand": hand,
            "passt_nicht": [lantern_json(code) for code in state.hands[seat] if hints[code] is None],
            "ablagen_oben": tops, "uebersicht": overview}


def state_from_view(view: Json, seat: int, rng: SeededRng) -> KoiState:
    """Return a full state consistent with ``seat``'s view: the unseen lanterns dealt anew at random.

    The others' hands keep what was seen taken into them; the rest of their hands, the deck (in a new
    order) and the set-aside lanterns are drawn from the lanterns the seat has not seen.
    """
    players = view["spieler"]
    seats = int(view["plaetze"])
    own = tuple(sorted(lantern(COLOURS.index(item["farbe"]), int(item["wert"])) for item in view["du"]["hand"]))
    known = tuple(tuple(sorted(lantern(COLOURS.index(item["farbe"]), int(item["wert"]))
                               for item in player["hand_bekannt"])) for player in players)
    rows = tuple(tuple(tuple(int(v) for v in player["reihen"][colour]["werte"]) for colour in COLOURS)
                 for player in players)
    piles = tuple(tuple(int(v) for v in view["ablagen"][colour]) for colour in COLOURS)
    pool = list(ALL_LANTERNS)
    counts = [COPIES] * KINDS
    for code in own:
        counts[code] -= 1
    for other in range(seats):
        for colour, row in enumerate(rows[other]):
            for value in row:
                counts[colour * VALUES + value] -= 1
        if other != seat:
            for code in known[other]:
                counts[code] -= 1
    for colour, pile in enumerate(piles):
        for value in pile:
            counts[colour * VALUES + value] -= 1
    pool = rng.shuffle([code for code in range(KINDS) for _ in range(counts[code])])
    hands: list[tuple[int, ...]] = []
    for other, player in enumerate(players):
        if other == seat:
            hands.append(own)
            continue
        extra = int(player["hand"]) - len(known[other])
        hands.append(tuple(sorted((*known[other], *pool[:extra]))))
        pool = pool[extra:]
    aside_count = int(view["beiseite"]["anzahl"])
    aside, deck = tuple(sorted(pool[:aside_count])), tuple(pool[aside_count:])
    if len(deck) != int(view["stapel"]["anzahl"]):
        raise ValueError("the view does not add up to 110 lanterns")
    stones, masters = [], []
    for player in players:
        figures = player["figuren"]
        stones.append(tuple(0 if figures[colour] is None else int(figures[colour]["stein"]) for colour in COLOURS))
        masters.append(next((path for path, colour in enumerate(COLOURS)
                             if figures[colour] is not None and figures[colour]["art"] == MASTER), -1))
    tiles = tuple((None, *(stone["plaettchen"] for stone in path["steine"])) for path in view["pfade"])
    folge: Any = view["folge"]
    ende: Any = view["ende"]
    return KoiState(
        spielart=str(view["einstellungen"]["spielart"]), seats=seats, hands=tuple(hands), known=known, deck=deck,
        aside=aside, piles=piles, rows=rows, stones=tuple(stones), masters=tuple(masters), tiles=tiles,
        taken=tuple(tuple(int(player["plaettchen"][kind]) for kind in TILE_KINDS) for player in players),
        blossoms=tuple(int(player["blueten"]) for player in players),
        teahouse=tuple(int(player["teehaus"]) for player in players),
        arrivals=tuple(tuple(int(s) for s in path["endstein"]["erreicht"]) for path in view["pfade"]),
        current=int(view["dran"]), start=int(view["startspieler"]), turn=int(view["zug"]), phase=str(view["phase"]),
        jetty_path=COLOURS.index(folge["von_pfad"]) if folge is not None and folge["von_pfad"] else -1,
        discarded=COLOURS.index(view["abgeworfen"]) if view["abgeworfen"] else -1,
        last=tuple(tuple(part_from_json(part) for part in player["zuletzt"]["params"]["teile"])
                   if player["zuletzt"] else () for player in players),
        end_reason=str(ende["grund"]) if ende else "", ended_by=int(ende["platz"]) if ende else -1)
