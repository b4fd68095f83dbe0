"""Public status lines: phase and whose turn in words, the gullys (rate, kind, who is connected), the pieces
left per seat, the mutation deck's count and the open offer with every seat's answer."""

from __future__ import annotations

from libs.rules.protocol import Json, phrase_json
from libs.rules.speedspore.board import gully_frame
from libs.rules.speedspore.building import connected
from libs.rules.speedspore.material import ANY, KIND_NAMES, KINDS, LIMITS
from libs.rules.speedspore.state import (
    ABWERFEN,
    ENDE,
    GEGEN,
    GRUENDUNG,
    HAUPT,
    JA,
    NEIN,
    OPEN,
    SCHIMMEL,
    SELF,
    WUCHSSCHUB,
    WURF,
    SporeState,
)
from libs.rules.speedspore.texts import bundle_json, bundle_words, seat_name


def _seats_words(seats: list[int]) -> str:
    names = [seat_name(seat) for seat in seats]
    if not names:
        return "niemand"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " und " + names[-1]


def phase_json(state: SporeState) -> Json:
    """Return the phase and whose turn in words: ``{"phase", "dran", "zug", "text"}``."""
    who = seat_name(state.current)
    phase = state.phase
    params: Json = {"phase": phase, "dran": state.current, "zug": state.turn}
    if phase == GRUENDUNG:
        second = state.founding >= state.seats
        piece = "seinen Myzelfaden" if state.founding_corner >= 0 else (
            "den zweiten Fruchtkörper" if second else "den ersten Fruchtkörper")
        params["runde"] = 2 if second else 1
        text = f"Gründung: {who} setzt {piece}."
    elif phase == WURF:
        text = f"Zug {state.turn}: {who} würfelt."
    elif phase == HAUPT:
        text = f"Zug {state.turn}: {who} handelt und baut."
    elif phase == ABWERFEN:
        waiting = [seat for seat in range(state.seats) if state.discard[seat]]
        params["abwerfen"] = {str(seat): state.discard[seat] for seat in waiting}
        parts = ", ".join(f"{seat_name(seat)} {state.discard[seat]}" for seat in waiting)
        text = f"Zug {state.turn}: Fäulnis – es werfen ab: {parts}."
    elif phase == SCHIMMEL:
        text = f"Zug {state.turn}: {who} versetzt den Schimmel."
    elif phase == WUCHSSCHUB:
        params["gratis"] = state.free_threads
        text = f"Zug {state.turn}: {who} legt Gratis-Fäden (noch {state.free_threads})."
    elif phase == ENDE:
        params["sieger"] = state.winner
        text = f"Die Partie ist zu Ende: {seat_name(state.winner)} gewinnt." if state.winner >= 0 \
            else "Die Partie ist zu Ende."
    else:
        text = f"{who} ist am Zug."
    return {"phase": phase, "dran": state.current, "zug": state.turn,
            "text": phrase_json(f"speedspore.phase.{phase}", text, params)}


def gullys_json(state: SporeState) -> list[Json]:
    """Return per gully its rate, kind, corners and connected seats, with the explaining sentence."""
    result = []
    corners = gully_frame(state.gully_edges).corners
    for gully, kind in enumerate(state.gullys):
        seats = connected(state, gully)
        rate = "3:1" if kind == ANY else "2:1"
        what = "jede Sorte 3:1" if kind == ANY else f"{KIND_NAMES[kind]} 2:1"
        result.append({"gully": gully, "kurs": rate, "rohstoff": None if kind == ANY else KINDS[kind],
                       "ecken": list(corners[gully]), "angeschlossen": seats,
                       "text": phrase_json("speedspore.gully", f"Gully: {what} – angeschlossen: {_seats_words(seats)}",
                                           {"gully": gully, "kurs": rate,
                                            "rohstoff": None if kind == ANY else KINDS[kind],
                                            "angeschlossen": seats})})
    return result


def pieces_json(state: SporeState) -> list[Json]:
    """Return per seat the pieces left: threads of 15, Fruchtkörper of 5, towers of 4."""
    result = []
    for seat in range(state.seats):
        threads, fks, towers = state.pieces[seat]
        left = {"faeden": LIMITS["faden"] - threads, "fruchtkoerper": LIMITS["fruchtkoerper"] - fks,
                "tuerme": LIMITS["turm"] - towers}
        text = (f"{seat_name(seat)}: noch {left['faeden']} von 15 Fäden, {left['fruchtkoerper']} von 5 Fruchtkörpern, "
                f"{left['tuerme']} von 4 Türmen")
        result.append({"platz": seat, **left,
                       "text": phrase_json("speedspore.reststeine", text, {"platz": seat, **left})})
    return result


def deck_json(state: SporeState) -> Json:
    """Return the mutation deck's count (never its order)."""
    count = len(state.deck)
    return {"anzahl": count, "text": phrase_json("speedspore.mutationsstapel",
                                                 f"Mutationsstapel: noch {count} Karten", {"anzahl": count})}


_ANSWER_WORDS = {JA: "ja", NEIN: "nein", OPEN: "überlegt noch"}


def offer_json(state: SporeState) -> Json | None:
    """Return the open offer with each other seat's answer („ja“, „nein“, Gegenangebot, „überlegt noch“)."""
    offer = state.offer
    if offer is None:
        return None
    answers = []
    for seat, answer in enumerate(offer.answers):
        if answer.kind == SELF:
            continue
        if answer.kind == GEGEN:
            words = f"Gegenangebot: gibt {bundle_words(answer.give)} für {bundle_words(answer.take)}"
            body: Json = {"platz": seat, "antwort": "gegenangebot", "gib": bundle_json(answer.give),
                          "nimm": bundle_json(answer.take)}
        else:
            words = _ANSWER_WORDS.get(answer.kind, answer.kind)
            body = {"platz": seat, "antwort": "offen" if answer.kind == OPEN else answer.kind}
        body["text"] = phrase_json("speedspore.angebot.antwort", f"{seat_name(seat)}: {words}",
                                   {"platz": seat, "antwort": body["antwort"]})
        answers.append(body)
    text = (f"{seat_name(state.current)} bietet {bundle_words(offer.give)} für {bundle_words(offer.take)} "
            f"(Angebot {offer.number} von 5)")
    return {"nummer": offer.number, "von": state.current, "gib": bundle_json(offer.give),
            "nimm": bundle_json(offer.take), "antworten": answers,
            "text": phrase_json("speedspore.angebot", text, {"platz": state.current, "nummer": offer.number,
                                                           "gib": bundle_json(offer.give),
                                                           "nimm": bundle_json(offer.take)})}
