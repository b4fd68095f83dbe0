"""Speednova's rules: setup, whose decision it is, legal moves, and applying placements and rack swaps.

A turn: place one double star from the rack; every colour that reaches the Supernova threshold with it earns
a bonus placement before refilling (lapsing when the rack is empty or the map full); refill; if no rack
tile holds one of the track's weakest colours, decide whether to swap the whole rack. Team signals live in
``signals.py``. All functions are pure: states are frozen and copied with ``evolve``.
"""

from __future__ import annotations

from libs.rules.evolve import evolve
from libs.rules.protocol import IllegalMove, Json, Pending
from libs.rules.rng import SeededRng
from libs.rules.speednova import signals
from libs.rules.speednova.board import FREE, board, greedy_pairs, radius_for
from libs.rules.speednova.config import parts
from libs.rules.speednova.placement import (
    Placement,
    allowed_pairs,
    evaluate,
    parse,
)
from libs.rules.speednova.scoring import analysis, best_for_tile
from libs.rules.speednova.state import (
    ANDROMEDA_TILES,
    PHASE_OVER,
    PHASE_PLACE,
    PHASE_SWAP,
    NovaState,
)
from libs.rules.speednova.texts import colour_keys, colour_list, effect, seat_name
from libs.rules.speednova.tiles import ALL_TILES, COLOUR_NAMES, COLOURS, N_COLOURS, TILE_COLOURS, tile_name

SWAP_MOVES: tuple[Json, Json] = ({"tauschen": True}, {"tauschen": False})
BAG_LABEL = "beutel"
"""SeededRng label of the bag's shuffle at setup; a swap shuffles with ``tausch-<n>`` (n from 0)."""


# ---- setup ---------------------------------------------------------------------------------------------------
def draw(rack: tuple[int, ...], bag: tuple[int, ...], size: int) -> tuple[tuple[int, ...], tuple[int, ...],
                                                                          tuple[int, ...]]:
    """Return (rack refilled to ``size`` from the front of the bag, sorted; the bag after; the tiles drawn)."""
    count = max(0, min(size - len(rack), len(bag)))
    drawn = bag[:count]
    return tuple(sorted(rack + drawn)), bag[count:], drawn


def new_game(config: Json, seats: int, seed: bytes, side_signals: bool = False) -> NovaState:
    """Return the first state: Leitsterne on the map, the bag shuffled from the seed, racks dealt from seat 0 on.

    Platz 1 (seat 0) begins (eigene Festlegung). ``side_signals``: speednova@2 (see ``NovaState``)."""
    teams, solo = parts(config, seats)
    radius = radius_for(seats)
    the_board = board(radius)
    cells = [FREE] * the_board.size
    for colour, cell in enumerate(the_board.leitsterne):
        cells[cell] = colour
    bag = tuple(SeededRng(seed, BAG_LABEL).shuffle(ALL_TILES))
    tracks = 2 if teams else seats
    state = NovaState(
        seats=seats, teams=teams, solo=solo, radius=radius, seed=bytes(seed), cells=tuple(cells), placed=(),
        racks=((),) * seats, bag=bag, tracks=((0,) * N_COLOURS,) * tracks, gains=(((),) * N_COLOURS,) * tracks,
        started=(-1,) * seats, current=0, phase=PHASE_PLACE, signals=((),) * seats, six_line=(False,) * seats,
        andromeda=(-1,) * seats, side_signals=side_signals,
    )
    racks = []
    for _seat in range(seats):
        rack, bag, _drawn = draw((), bag, state.rack_size)
        racks.append(rack)
    return evolve(state, racks=tuple(racks), bag=bag)


# ---- who decides ---------------------------------------------------------------------------------------------
_MAY = tuple(Pending(seat, must=False, decision="signale") for seat in range(4))


def pending(state: NovaState) -> tuple[Pending, ...]:
    """The seat to move must act (its decision named per placement or swap); in team games every other seat may
    give signals."""
    if state.phase == PHASE_OVER:
        return ()
    mover = Pending(state.current, must=True, decision=f"entscheidung-{state.decision}")
    if not state.teams:
        return (mover,)
    return tuple(mover if seat == state.current else _MAY[seat] for seat in range(state.seats))


def weakest_colours(track: tuple[int, ...]) -> tuple[int, ...]:
    """Return every colour at the track's lowest value."""
    low = min(track)
    return tuple(colour for colour, value in enumerate(track) if value == low)


def holds_weakest(code: int, weakest: tuple[int, ...]) -> bool:
    """True if the double star shows one of the weakest colours."""
    low, high = TILE_COLOURS[code]
    return low in weakest or high in weakest


def placement_moves(state: NovaState, seat: int) -> list[Json]:
    """Return every placement of the seat: each different rack tile, both ways round, on every allowed pair."""
    pairs = allowed_pairs(state, seat)
    moves: list[Json] = []
    for code in sorted(set(state.racks[seat])):
        low, high = TILE_COLOURS[code]
        for first, second in ((low, high),) if low == high else ((low, high), (high, low)):
            stone = [COLOURS[first], COLOURS[second]]
            moves += [{"stein": list(stone), "feld": cell, "richtung": direction} for cell, direction, _p in pairs]
    return moves


def legal_moves(state: NovaState, seat: int) -> list[Json]:
    """Return the seat's legal moves: placements (or the swap decision) for the mover, then team signals.

    The mover deciding a swap has only the two swap moves (signals wait until it has decided)."""
    if state.phase == PHASE_OVER:
        return []
    moves: list[Json] = []
    if seat == state.current:
        if state.phase == PHASE_SWAP:
            return [dict(move) for move in SWAP_MOVES]
        moves = placement_moves(state, seat)
    if state.teams:
        moves += signals.moves(state, seat)
    return moves


def timeout_placement(state: NovaState, seat: int) -> Placement:
    """Return the placement the computer makes for a seat out of think time: the one that leaves its weakest
    colour highest, then the most points, then the first in the legal moves' order (eigene Festlegung)."""
    pairs = allowed_pairs(state, seat)
    values = analysis(state.radius, state.cells).values
    track = state.tracks[state.track_of(seat)]
    top = state.top
    best: tuple[tuple[int, int], Placement] | None = None
    for code in sorted(set(state.racks[seat])):
        low, high = TILE_COLOURS[code]
        for first, second in ((low, high),) if low == high else ((low, high), (high, low)):
            rest = min((value for colour, value in enumerate(track) if colour not in (first, second)), default=top)
            for cell, direction, partner in pairs:
                if first == second:
                    gain = min(values[cell][first] + values[partner][first], top - track[first])
                    key = (min(rest, track[first] + gain), gain)
                else:
                    gain_first = min(values[cell][first], top - track[first])
                    gain_second = min(values[partner][second], top - track[second])
                    key = (min(rest, track[first] + gain_first, track[second] + gain_second), gain_first + gain_second)
                if best is None or key > best[0]:
                    best = (key, Placement(cell, direction, partner, first, second))
    if best is None:
        raise ValueError("no placement to make")
    return best[1]


def timeout_move(state: NovaState, seat: int) -> Json | None:
    """Decline the swap; place as ``timeout_placement`` says (bonus placements too)."""
    if state.phase == PHASE_OVER or seat != state.current:
        return None
    if state.phase == PHASE_SWAP:
        return {"tauschen": False}
    return timeout_placement(state, seat).move()


def best_placements(state: NovaState, seat: int) -> dict[int, tuple[int, int, int, int, int] | None]:
    """Return per different rack tile its best placement now: (points, cell, direction, colour on cell, on partner)."""
    pairs = allowed_pairs(state, seat)
    values = analysis(state.radius, state.cells).values
    track = state.tracks[state.track_of(seat)]
    return {code: best_for_tile(values, pairs, track, state.top, code) for code in sorted(set(state.racks[seat]))}


# ---- applying ------------------------------------------------------------------------------------------------
def apply(state: NovaState, seat: int, move: Json) -> tuple[NovaState, list[Json]]:
    """Return the state after ``move`` and its effects; raise IllegalMove (German reason), changing nothing."""
    if "signal" in move:
        if state.current == seat and state.phase == PHASE_SWAP:
            raise IllegalMove("Entscheide zuerst, ob du deine Bank tauschst.", "decide_swap")
        return signals.apply(state, seat, move)
    if seat != state.current:
        raise IllegalMove("Du bist nicht am Zug; du kannst nur Teamsignale geben.", "not_your_turn")
    if "tauschen" in move:
        return apply_swap(state, seat, move)
    return place(state, seat, parse(state, seat, move))


def check_swap(state: NovaState, move: Json) -> bool:
    """Return the swap decision of a swap move; raise IllegalMove if it is malformed or not asked for."""
    if set(move) != {"tauschen"} or not isinstance(move["tauschen"], bool):
        raise IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")
    if state.phase != PHASE_SWAP:
        raise IllegalMove("Tauschen darfst du nur, wenn das Spiel es dir nach dem Nachziehen anbietet.", "no_swap")
    return bool(move["tauschen"])


def apply_swap(state: NovaState, seat: int, move: Json) -> tuple[NovaState, list[Json]]:
    """Swap the whole rack (back into the bag, shuffled, as many drawn) or keep it; then the next turn."""
    if not check_swap(state, move):
        effects = [effect("behalten", f"{seat_name(seat)} behält die Bank.", platz=seat + 1)]
        return next_turn(state, effects)
    rack = state.racks[seat]
    bag = tuple(SeededRng(state.seed, f"tausch-{state.shuffles}").shuffle(state.bag + rack))
    new_rack, bag, drawn = draw((), bag, len(rack))
    racks = _replace(state.racks, seat, new_rack)
    effects = [
        effect("tauschen", f"{seat_name(seat)} legt alle {len(rack)} Steine der Bank zurück in den Beutel und zieht "
                           f"{len(drawn)} neue.", platz=seat + 1, anzahl=len(rack)),
        _drawn_effect(seat, drawn),
    ]
    return next_turn(evolve(state, racks=racks, bag=bag, shuffles=state.shuffles + 1), effects)


def _replace(items: tuple, index: int, value: object) -> tuple:  # type: ignore[type-arg]
    return (*items[:index], value, *items[index + 1:])


def _drawn_effect(seat: int, drawn: tuple[int, ...]) -> Json:
    drawn = tuple(sorted(drawn))  # the order drawn is the bag's order: nobody learns it
    names = ", ".join(tile_name(code) for code in drawn)
    return effect("gezogen", f"Du ziehst {names}.", visible_to=(seat,), steine=[list(TILE_COLOURS[c]) for c in drawn],
                  namen=[tile_name(code) for code in drawn])


def place(state: NovaState, seat: int, placement: Placement) -> tuple[NovaState, list[Json]]:
    """Lay a legal placement: score it, ignite Supernovas, clear signals on its cells, then go on."""
    result = evaluate(state, seat, placement)
    cells = list(state.cells)
    cells[placement.cell], cells[placement.partner] = placement.first, placement.second
    rack = list(state.racks[seat])
    rack.remove(placement.code)
    owner = state.track_of(seat)
    gains = list(state.gains[owner])
    for colour, value in result.gained.items():
        if value > 0:
            gains[colour] = (*gains[colour], value)
    placed = (*state.placed, (seat, placement.cell, placement.partner, placement.first, placement.second))
    count = sum(1 for entry in placed if entry[0] == seat)
    started = state.started
    if started[seat] < 0:
        leit = board(state.radius).leit_adjacent
        colour = next((c for c in range(N_COLOURS)
                       if c not in started and (placement.cell in leit[c] or placement.partner in leit[c])), 0)
        started = _replace(started, seat, colour)
    andromeda = state.andromeda
    if count == ANDROMEDA_TILES:
        andromeda = _replace(andromeda, seat, min(result.track_after))
    name = f"{COLOUR_NAMES[placement.first]}/{COLOUR_NAMES[placement.second]}"
    effects = [
        effect("legen", f"{seat_name(seat)} legt {name}: {result.points_text()}.", platz=seat + 1,
               stein=[COLOURS[placement.first], COLOURS[placement.second]],
               felder=[placement.cell, placement.partner], haelften=list(result.halves),
               punkte=result.points_json(), text_punkte=result.points_text()),
        effect("rechenweg", result.computation_text(state.top), platz=seat + 1,
               summanden={COLOURS[c]: p for c, p in result.parts.items()}, punkte=result.points_json()),
    ]
    for colour, value in result.raw.items():
        lost = value - result.gained[colour]
        if lost > 0:
            effects.append(effect("voll", f"{COLOUR_NAMES[colour]} steht auf {state.top}: {lost} "
                                          f"{'Punkt verfällt' if lost == 1 else 'Punkte verfallen'}.",
                                  farbe=COLOURS[colour], verfallen=lost, oben=state.top))
    for colour, threshold in result.novas:
        effects.append(effect("supernova", f"Supernova! {COLOUR_NAMES[colour]} erreicht {threshold}: "
                                           f"{seat_name(seat)} legt sofort noch einen Stein.",
                              platz=seat + 1, farbe=COLOURS[colour], wert=threshold))
    state_signals, cleared = signals.clear_cells(state, (placement.cell, placement.partner))
    effects += cleared
    bonus = max(0, state.bonus - 1) + len(result.novas)
    after = evolve(
        state, cells=tuple(cells), racks=_replace(state.racks, seat, tuple(rack)), placed=placed,
        tracks=_replace(state.tracks, owner, result.track_after), gains=_replace(state.gains, owner, tuple(gains)),
        started=started, andromeda=andromeda, signals=state_signals, bonus=bonus,
        six_line=_replace(state.six_line, seat, True) if result.six_line else state.six_line,
    )
    if all(value >= state.top for value in result.track_after):
        return end_game(after, effects, "sofort", winner=seat)
    fit = greedy_pairs(after.cells, board(state.radius).neighbours)
    if fit == 0:
        if bonus:
            effects.append(_lapse(seat, bonus, "voll"))
        return end_game(evolve(after, bonus=0), effects, "voll")
    if not after.warned and fit <= state.seats:
        after = evolve(after, warned=True)
        effects.append(effect("endwarnung", f"Nur noch etwa eine Runde: {fit} Doppelsterne passen noch auf die Karte. "
                                            "Jetzt ist die letzte Gelegenheit, die schwächste Farbe zu retten.",
                              passen_noch=fit))
    if bonus:
        if not rack:
            effects.append(_lapse(seat, bonus, "leer"))
            return finish_turn(evolve(after, bonus=0), seat, effects)
        effects.append(effect("bonuszug", f"{seat_name(seat)} legt einen Bonusstein aus der Bank"
                                          f"{'' if bonus == 1 else f' (noch {bonus} Bonuszüge)'}.",
                              platz=seat + 1, bonuszuege=bonus))
        return evolve(after, decision=after.decision + 1), effects
    return finish_turn(after, seat, effects)


def _lapse(seat: int, bonus: int, why: str) -> Json:
    reason = "die Bank ist leer" if why == "leer" else "die Karte ist voll"
    moves = "Der Bonuszug verfällt" if bonus == 1 else f"Die {bonus} Bonuszüge verfallen"
    return effect("bonus_verfaellt", f"{moves}: {reason}.", platz=seat + 1, bonuszuege=bonus, grund=why)


def finish_turn(state: NovaState, seat: int, effects: list[Json]) -> tuple[NovaState, list[Json]]:
    """Refill the rack; offer the swap once if no rack tile holds a weakest colour; else the next turn."""
    rack, bag, drawn = draw(state.racks[seat], state.bag, state.rack_size)
    state = evolve(state, racks=_replace(state.racks, seat, rack), bag=bag)
    if drawn:
        what = "einen Stein" if len(drawn) == 1 else f"{len(drawn)} Steine"
        effects.append(effect("nachziehen", f"{seat_name(seat)} zieht {what} nach.", platz=seat + 1,
                              anzahl=len(drawn)))
        effects.append(_drawn_effect(seat, drawn))
    weakest = weakest_colours(state.tracks[state.track_of(seat)])
    if (state.solo != "rekordjagd" and rack and state.bag
            and not any(holds_weakest(code, weakest) for code in rack)):
        effects.append(effect("tauschangebot", f"{seat_name(seat)} hat keinen Stein mit der schwächsten Farbe "
                                               f"({colour_list(weakest)}) und darf die Bank tauschen.",
                              platz=seat + 1, schwaechste=colour_keys(weakest)))
        return evolve(state, phase=PHASE_SWAP, decision=state.decision + 1), effects
    return next_turn(state, effects)


def next_turn(state: NovaState, effects: list[Json]) -> tuple[NovaState, list[Json]]:
    """Give the turn to the next seat holding double stars (seats without pass); end if nobody has one."""
    for step in range(1, state.seats + 1):
        seat = (state.current + step) % state.seats
        if state.racks[seat]:
            if state.seats > 1:
                effects.append(effect("am_zug", f"{seat_name(seat)} ist am Zug.", platz=seat + 1))
            return evolve(state, current=seat, phase=PHASE_PLACE, bonus=0, decision=state.decision + 1), effects
        if state.seats > 1:
            effects.append(effect("aussetzen", f"{seat_name(seat)} hat keine Steine mehr und setzt aus.",
                                  platz=seat + 1))
    return end_game(state, effects, "steine")


def end_game(state: NovaState, effects: list[Json], reason: str, winner: int | None = None) -> tuple[NovaState,
                                                                                                    list[Json]]:
    """End the game and say why."""
    if reason == "sofort" and winner is not None:
        who = ("Team " + " + ".join(seat_name(s) for s in state.team_of(winner))) if state.teams else seat_name(winner)
        if state.seats == 1:
            text = f"Alle sechs Farben stehen auf {state.top}: die Partie ist zu Ende."
        else:
            text = f"{who} hat alle sechs Farben auf {state.top} und gewinnt sofort!"
        effects.append(effect("ende", text, grund=reason, platz=winner + 1))
    elif reason == "voll":
        effects.append(effect("ende", "Kein Paar freier Nachbarfelder mehr: die Partie ist zu Ende.", grund=reason))
    else:
        effects.append(effect("ende", "Niemand hat mehr einen Stein: die Partie ist zu Ende.", grund=reason))
    return evolve(state, phase=PHASE_OVER, bonus=0, end_reason=reason), effects


def preview_placement(state: NovaState, seat: int, placement: Placement) -> Json:
    """Return what a placement would bring: its lines per half (cells in order), points per colour, Supernovas."""
    result = evaluate(state, seat, placement)
    return {
        "zug": placement.move(),
        "felder": [placement.cell, placement.partner],
        "haelften": list(result.halves),
        "punkte": result.points_json(),
        "roh": {COLOURS[colour]: value for colour, value in result.raw.items()},
        "text": effect("vorschau", result.points_text(), punkte=result.points_json()),
        "rechenweg": effect("rechenweg", result.computation_text(state.top), punkte=result.points_json()),
        "supernova": [{"farbe": COLOURS[colour], "wert": threshold} for colour, threshold in result.novas],
        "sechserlinie": result.six_line,
    }
