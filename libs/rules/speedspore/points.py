"""Victory points as a player's window shows them, and the Endtafel.

``breakdown(state, seat, viewer)``: Fruchtkörper, Türme, Weitestes Geflecht, Größte Sporenwolke and — for the
seat itself, or for everyone once the game is over — its Funde. Others see the points without hidden Funde
(not even how many there are; the Funde line is missing, not zero).

``end_table(state)``: once the game is over, per seat in place order the points counted up category by
category (each line with its running total), the builds, what it harvested from rolls, how often it traded,
its place (the outcome's rank vectors: won, points, towers, cards in hand; equal vectors share a place).
"""

from __future__ import annotations

from libs.rules.protocol import Json, phrase_json, shared_places
from libs.rules.speedspore import scoring
from libs.rules.speedspore.material import CARD_KEYS, FUNDE, SPECIAL_POINTS
from libs.rules.speedspore.specials import clouds
from libs.rules.speedspore.state import ENDE, SporeState
from libs.rules.speedspore.texts import seat_name


def _line(key: str, label: str, count: int, points: int) -> Json:
    return {"art": key, "anzahl": count, "punkte": points,
            "text": phrase_json(f"speedspore.punkte.{key}", f"{label}: {points}",
                                {"anzahl": count, "punkte": points})}


def breakdown(state: SporeState, seat: int, viewer: int | None) -> Json:
    """Return the seat's victory points as ``viewer`` may see them: ``{"platz", "punkte", "zeilen",
    "funde_verdeckt", "ziel", "text"}``."""
    fks, towers = state.pieces[seat][1], state.pieces[seat][2]
    longest = state.longest_holder == seat
    largest = state.largest_holder == seat
    lines = [_line("fruchtkoerper", f"Fruchtkörper {fks} × 1", fks, fks),
             _line("tuerme", f"Sporentürme {towers} × 2", towers, 2 * towers),
             _line("geflecht", f"Weitestes Geflecht ({state.trail[seat]} Fäden)" if longest
                   else f"Weitestes Geflecht: nein ({state.trail[seat]} Fäden)", state.trail[seat],
                   SPECIAL_POINTS if longest else 0),
             _line("wolke", f"Größte Sporenwolke ({clouds(state, seat)} gespielt)" if largest
                   else f"Größte Sporenwolke: nein ({clouds(state, seat)} gespielt)", clouds(state, seat),
                   SPECIAL_POINTS if largest else 0)]
    open_funde = viewer == seat or state.phase == ENDE
    if open_funde:
        found = [card for card in state.cards[seat] if card in FUNDE]
        line = _line("funde", f"Funde {len(found)} × 1", len(found), len(found))
        line["karten"] = [CARD_KEYS[card] for card in found]
        lines.append(line)
    total = sum(int(line["punkte"]) for line in lines)
    words = " + ".join(str(line["punkte"]) for line in lines)
    hidden = "" if open_funde else " (ohne verdeckte Funde)"
    return {"platz": seat, "punkte": total, "zeilen": lines, "funde_verdeckt": not open_funde, "ziel": state.target,
            "text": phrase_json("speedspore.punkte", f"{seat_name(seat)}: {total} Siegpunkte{hidden} = {words}",
                                {"platz": seat, "punkte": total, "funde_verdeckt": not open_funde})}


def end_table(state: SporeState) -> Json | None:
    """Return the Endtafel once the game is over (None while it runs)."""
    if state.phase != ENDE:
        return None
    keys = scoring.rank_keys(state)
    places = shared_places(keys)
    rows = []
    for seat in sorted(range(state.seats), key=lambda s: (places[s], s)):
        counted = breakdown(state, seat, seat)
        running = 0
        steps = []
        for line in counted["zeilen"]:
            running += int(line["punkte"])
            steps.append({**line, "stand": running})
        threads, fks, towers = state.pieces[seat]
        cards = sum(state.hands[seat])
        text = (f"{places[seat]}. {seat_name(seat)}: {counted['punkte']} Siegpunkte – {threads} Fäden, "
                f"{fks} Fruchtkörper, {towers} Türme; geerntet {state.harvest[seat]}, getauscht {state.trades[seat]}×")
        rows.append({"platz": seat, "rang": places[seat], "gewonnen": state.winner == seat,
                     "punkte": counted["punkte"], "hochzaehlen": steps,
                     "bauten": {"faeden": threads, "fruchtkoerper": fks, "tuerme": towers},
                     "geerntet": state.harvest[seat], "getauscht": state.trades[seat], "handkarten": cards,
                     "text": phrase_json("speedspore.endtafel.zeile", text,
                                         {"platz": seat, "rang": places[seat], "punkte": counted["punkte"],
                                          "geerntet": state.harvest[seat], "getauscht": state.trades[seat]})})
    return {"zeilen": rows, "sieger": state.winner,
            "text": phrase_json("speedspore.endtafel", "Endtafel", {"sieger": state.winner})}
