"""The German reasons of Speedspore's advice ("Rat"), built only from what the advised seat can see.

The seat's own hand, cards and points are its own; of the others a reason names only public things (their
buildings, visible points, how many cards they hold). It never names another seat's hidden cards: a Netzsog
is explained by the kind the seat needs, not by what the others are thought to hold.
"""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json
from libs.rules.speedspore.board import CORNER_FIELDS
from libs.rules.speedspore.material import (
    CARD_INDEX,
    CARD_NAMES,
    DESERT,
    FIELD_NAMES,
    KIND_INDEX,
    KIND_NAMES,
    KINDS,
)
from libs.rules.speedspore.state import SporeState
from libs.rules.speedspore.texts import bundle_words, seat_name
from services.bot.policies.speedspore_bots.options import Option, bundle
from services.bot.policies.speedspore_bots.values import PIPS, public_points

__all__ = ["reason"]


def _field_words(state: SporeState, fld: int) -> str:
    kind = state.fields[fld]
    if kind == DESERT:
        return FIELD_NAMES[kind]
    return f"{FIELD_NAMES[kind]} {state.numbers[fld]}"


def _corner_words(state: SporeState, corner: int) -> str:
    fields = [_field_words(state, fld) for fld in CORNER_FIELDS[corner]]
    pips = sum(PIPS[state.numbers[fld]] for fld in CORNER_FIELDS[corner] if state.fields[fld] != DESERT)
    return f"Ecke {corner} an {', '.join(fields)} ({pips} Punkte unter den Zahlen)"


def _trades_words(move: Json) -> str:
    trades = move.get("tausch", [])
    if not trades:
        return ""
    parts = [f"{KIND_NAMES[KIND_INDEX[t['gib']]]} gegen {KIND_NAMES[KIND_INDEX[t['nimm']]]}" for t in trades]
    return " – vorher mit dem Vorrat: " + ", ".join(parts)


def _text(state: SporeState, seat: int, option: Option) -> tuple[str, str, dict[str, Any]]:
    move = option.move or {}
    what = option.what
    params: dict[str, Any] = {"zug": move, "wert": round(option.value, 1)}
    if what in ("einzig",):
        return "einzig", "Das ist gerade der einzige mögliche Zug.", params
    if what == "wuerfeln":
        return "wuerfeln", "Würfle: vorher lohnt sich nichts.", params
    if what == "gruendung":
        corner = move["fruchtkoerper"]
        params["ecke"] = corner
        return what, (f"Setze deinen Fruchtkörper auf {_corner_words(state, corner)}: viele Erträge, "
                      "Sorten, die dir noch fehlen, und Platz zum Wachsen."), params
    if what == "gruendung_faden":
        params["kante"] = move["faden"]
        return what, "Lege den Faden in Richtung der besten freien Ecke, auf der du später siedeln kannst.", params
    if what == "faden":
        params["kante"] = move["faden"]
        text = "Lege einen Myzelfaden: er bringt dich näher an eine gute freie Ecke oder verlängert dein Geflecht"
        return what, text + _trades_words(move) + ".", params
    if what == "fruchtkoerper":
        corner = move["fruchtkoerper"]
        params["ecke"] = corner
        return what, (f"Baue einen Fruchtkörper auf {_corner_words(state, corner)}: 1 Siegpunkt und neue "
                      f"Erträge{_trades_words(move)}."), params
    if what == "turm":
        corner = move["turm"]
        params["ecke"] = corner
        return what, (f"Baue einen Sporenturm auf {_corner_words(state, corner)}: 1 Siegpunkt mehr und doppelter "
                      f"Ertrag{_trades_words(move)}."), params
    if what == "mutation":
        return what, f"Kaufe eine Mutation: gut für den Rest deiner Karten{_trades_words(move)}.", params
    if what == "vorrat":
        give_kind, take_kind = KIND_INDEX[move["vorrat"]["gib"]], KIND_INDEX[move["vorrat"]["nimm"]]
        return what, (f"Tausche mit dem Vorrat {KIND_NAMES[give_kind]} gegen {KIND_NAMES[take_kind]}: "
                      f"{KIND_NAMES[take_kind]} fehlt dir für deinen nächsten Bau."), params
    if what == "angebot":
        give, take = bundle(move["angebot"]["gib"]), bundle(move["angebot"]["nimm"])
        return what, (f"Biete {bundle_words(give)} für {bundle_words(take)} an: davon hast du genug, "
                      "das andere brauchst du."), params
    if what == "handeln":
        partner = move["handeln"]
        params["partner"] = partner
        return what, f"Tausche mit {seat_name(partner)}: der Handel bringt dich deinem nächsten Bau näher.", params
    if what == "zurueckziehen":
        return what, "Zieh dein Angebot zurück: keiner nimmt es so an, dass es sich lohnt.", params
    if what == "antwort":
        near = state.target - public_points(state, state.current)
        if move.get("antwort") == "ja":
            return "antwort_ja", "Nimm an: du bekommst, was dir fehlt, und gibst, was du übrig hast.", params
        if near <= 2:
            return "antwort_nein", (f"Lehne ab: {seat_name(state.current)} fehlen nur noch {near} Siegpunkte "
                                    "– hilf ihm nicht zum Sieg."), params
        return "antwort_nein", "Lehne ab: der Tausch bringt dir nichts.", params
    if what == "gegenangebot":
        give, take = bundle(move["gegenangebot"]["gib"]), bundle(move["gegenangebot"]["nimm"])
        return what, (f"Mach ein Gegenangebot: {bundle_words(give)} für {bundle_words(take)} – "
                      f"{bundle_words(take)} brauchst du."), params
    if what == "abwerfen":
        gone = bundle(move["abwerfen"])
        return what, (f"Wirf {bundle_words(gone)} ab: den Rest brauchst du für deinen nächsten Bau."), params
    if what == "schimmel":
        fld = move["schimmel"]
        victim = move.get("opfer")
        params["feld"] = fld
        text = f"Setze den Schimmel auf {_field_words(state, fld)}: dort ernten vor allem andere"
        if victim is not None:
            params["opfer"] = victim
            text += (f"; raube bei {seat_name(victim)} ({public_points(state, victim)} sichtbare Siegpunkte, "
                     f"{sum(state.hands[victim])} Karten)")
        return what, text + ".", params
    if what in ("wolke", "wuchsschub", "naehrquelle", "netzsog"):
        card = CARD_INDEX[move["ausspielen"]]
        name = CARD_NAMES[card]
        if what == "wolke":
            return what, f"Spiele eine {name}: versetze den Schimmel weg von dir und auf einen Gegner.", params
        if what == "wuchsschub":
            return what, f"Spiele den {name}: zwei Fäden gratis in Richtung einer freien Ecke.", params
        if what == "naehrquelle":
            kinds = [KIND_NAMES[KIND_INDEX[k]] for k in move["rohstoffe"]]
            return what, f"Spiele die {name} und nimm {' und '.join(kinds)}: genau das fehlt dir.", params
        kind = KIND_INDEX[move["rohstoff"]]
        return what, f"Spiele den {name} auf {KIND_NAMES[kind]}: den brauchst du für deinen nächsten Bau.", params
    if what == "verzichten":
        return what, "Verzichte auf den Rest: kein Faden bringt dir noch etwas.", params
    if what == "zug_beenden":
        return what, "Beende den Zug: mit deinen Karten lohnt sich gerade kein Bau und kein Tausch.", params
    if what == "nichts":
        return what, "Warte ab.", params
    return "zug", "Das ist der beste Zug, den ich sehe.", params


def reason(state: SporeState, seat: int, option: Option) -> Json:
    """Return ``{"key", "params", "text"}`` for the advised option (public facts and the seat's own only)."""
    key, text, params = _text(state, seat, option)
    params["rohstoffe"] = {KINDS[k]: n for k, n in enumerate(state.hands[seat]) if n}
    return {"key": f"speedspore.rat.{key}", "params": params, "text": text}

