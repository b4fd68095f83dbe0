"""What a move would bring, as the seat's preview shows it — never a future draw or another seat's hidden hand.

``describe(before, after, seat, move)`` is called with the state before a move and the state ``apply``
returned for it (so a preview refuses exactly what ``apply`` refuses, with its reason). Only what follows
from the seat's own knowledge is read from ``after``:

- builds (``faden``, ``fruchtkoerper``, ``turm``), supply trades (``vorrat``), trades with a player
  (``handeln``), discards and free threads: points, Geflecht (own trail, holder), own hand and the supply
  trades carried out — all determined by the move itself;
- a bought mutation: its cost and that a hidden card is drawn (points from ``before``: the card may be a Fund,
  which the preview must not tell);
- a played mutation, a roll, moving the mold, offers and answers: what the card or move does in words,
  from ``before`` only (a Netzsog's yield depends on others' hidden hands; a roll or robbery on chance).
"""

from __future__ import annotations

from typing import Any

from libs.rules.evolve import evolve
from libs.rules.protocol import Json, phrase_json
from libs.rules.speedspore import scoring
from libs.rules.speedspore.building import rates
from libs.rules.speedspore.material import (
    BUILD_NAMES,
    CARD_INDEX,
    CARD_NAMES,
    COSTS,
    FIELD_NAMES,
    KIND_INDEX,
    KIND_NAMES,
    NAEHRQUELLE,
    NETZSOG,
    SPECIAL_POINTS,
    WOLKE,
    WUCHSSCHUB,
)
from libs.rules.speedspore.specials import clouds, largest_holder
from libs.rules.speedspore.state import SporeState
from libs.rules.speedspore.texts import bundle_json, bundle_words, seat_name
from libs.rules.speedspore.whatgoes import Trade, trade_words

_BUILDS = ("faden", "fruchtkoerper", "turm")


def _own(state: SporeState, seat: int) -> int:
    return scoring.points(state, seat)


def _geflecht(before: SporeState, after: SporeState, seat: int) -> Json:
    return {"vorher": before.trail[seat], "nachher": after.trail[seat],
            "halter_vorher": before.longest_holder, "halter_nachher": after.longest_holder}


def _trades(before: SporeState, seat: int, move: Json) -> tuple[list[Json], str]:
    raw: Any = move.get("tausch", [])
    seat_rates = rates(before, seat)
    trades: list[Trade] = [(KIND_INDEX[item["gib"]], KIND_INDEX[item["nimm"]]) for item in raw]
    listed = [{"gib": item["gib"], "anzahl": seat_rates[give], "nimm": item["nimm"],
               "kurs": f"{seat_rates[give]}:1"} for (give, _), item in zip(trades, raw, strict=True)]
    return listed, trade_words(tuple(trades), seat_rates) if trades else ""


def describe(before: SporeState, after: SporeState, seat: int, move: Json) -> Json:
    """Return ``{"art", "zufall", "punkte_vorher", "punkte_nachher", "hand_nachher", "tausch", "geflecht",
    "text", …}`` for a move ``apply`` accepted (``after`` is its result)."""
    points_before = _own(before, seat)
    body: Json = {"zug": dict(move), "zufall": False, "punkte_vorher": points_before,
                  "punkte_nachher": points_before, "hand_nachher": None, "tausch": [], "geflecht": None}
    build = next((key for key in _BUILDS if key in move), None)
    if build is not None:
        listed, words = _trades(before, seat, move)
        name = BUILD_NAMES[build]
        gained = _own(after, seat) - points_before
        body.update(art=build, punkte_nachher=_own(after, seat), hand_nachher=bundle_json(after.hands[seat]),
                    tausch=listed, geflecht=_geflecht(before, after, seat), sieg=after.winner == seat)
        free = before.phase == "wuchsschub" or before.phase == "gruendung"
        parts = [f"{name}" + (" gratis" if free else f" für {bundle_words(COSTS[build])}")]
        if words:
            parts.append(f"vorher Tausch: {words}")
        if gained:
            parts.append(f"+{gained} Siegpunkt{'e' if gained != 1 else ''}")
        if build == "faden" and after.trail[seat] != before.trail[seat]:
            parts.append(f"Geflecht {before.trail[seat]} → {after.trail[seat]}")
        if after.longest_holder != before.longest_holder:
            parts.append("Weitestes Geflecht geht an " + (seat_name(after.longest_holder)
                                                         if after.longest_holder >= 0 else "niemanden"))
        if after.winner == seat:
            parts.append("gewinnt die Partie")
        body["text"] = phrase_json(f"speedspore.vorschau.{build}", " · ".join(parts),
                                   {"bau": build, "punkte": gained})
        return body
    if "mutation" in move:
        listed, words = _trades(before, seat, move)
        # the hand after the trades and the cost: a drawn card touches no resource, so it may be shown
        body.update(art="mutation", zufall=True, hand_nachher=bundle_json(after.hands[seat]), tausch=listed,
                    stapel_nachher=len(before.deck) - 1)
        text = (f"Mutation für {bundle_words(COSTS['mutation'])}: eine verdeckte Karte vom Stapel "
                f"(noch {len(before.deck)})")
        if words:
            text += f" · vorher Tausch: {words}"
        body["text"] = phrase_json("speedspore.vorschau.mutation", text, {"stapel": len(before.deck)})
        return body
    if "vorrat" in move:
        give, take = KIND_INDEX[move["vorrat"]["gib"]], KIND_INDEX[move["vorrat"]["nimm"]]
        rate = rates(before, seat)[give]
        body.update(art="vorrat", hand_nachher=bundle_json(after.hands[seat]),
                    tausch=[{"gib": move["vorrat"]["gib"], "anzahl": rate, "nimm": move["vorrat"]["nimm"],
                             "kurs": f"{rate}:1"}])
        body["text"] = phrase_json("speedspore.vorschau.vorrat",
                                   f"Tausch: {rate} {KIND_NAMES[give]} gegen {KIND_NAMES[take]} ({rate}:1)",
                                   {"gib": move["vorrat"]["gib"], "nimm": move["vorrat"]["nimm"], "kurs": rate})
        return body
    if "handeln" in move or "abwerfen" in move:
        body.update(art="handeln" if "handeln" in move else "abwerfen", hand_nachher=bundle_json(after.hands[seat]))
        if "handeln" in move:
            other = int(move["handeln"])
            delta = tuple(b - a for a, b in zip(before.hands[seat], after.hands[seat], strict=True))
            gave = tuple(max(0, -d) for d in delta)
            got = tuple(max(0, d) for d in delta)
            text = f"Handel mit {seat_name(other)}: du gibst {bundle_words(gave)} und bekommst {bundle_words(got)}"
        else:
            text = f"Du behältst {bundle_words(after.hands[seat])}"
        body["text"] = phrase_json(f"speedspore.vorschau.{body['art']}", text, {})
        return body
    if "ausspielen" in move:
        return _play(before, seat, move, body)
    if "wuerfeln" in move:
        body.update(art="wuerfeln", zufall=True)
        body["text"] = phrase_json("speedspore.vorschau.wuerfeln", "Würfeln: Felder mit der Zahl bringen Ertrag.", {})
        return body
    if "schimmel" in move:
        field = int(move["schimmel"])
        victim = move.get("opfer")
        text = f"Schimmel auf {FIELD_NAMES[before.fields[field]]} ({before.numbers[field] or 'ohne Zahl'})"
        if victim is not None:
            text += f", nimmt {seat_name(int(victim))} eine zufällige Karte"
        body.update(art="schimmel", zufall=victim is not None)
        body["text"] = phrase_json("speedspore.vorschau.schimmel", text, {"feld": field, "opfer": victim})
        return body
    key = next(iter(move), "zug")
    body["art"] = key
    body["text"] = phrase_json(f"speedspore.vorschau.{key}", {
        "angebot": "Angebot an alle Mitspieler", "gegenangebot": "Gegenangebot an den Spieler am Zug",
        "antwort": "Antwort auf das Angebot", "zurueckziehen": "Angebot zurückziehen",
        "zug_beenden": "Zug beenden", "verzichten": "Auf die restlichen Gratis-Fäden verzichten"}.get(key, "Zug"), {})
    return body


def _play(before: SporeState, seat: int, move: Json, body: Json) -> Json:
    card = CARD_INDEX[str(move["ausspielen"])]
    name = CARD_NAMES[card]
    body["art"] = "ausspielen"
    if card == WOLKE:
        mine = clouds(before, seat) + 1
        holder = largest_holder(_with_cloud(before, seat), seat)
        takes = holder == seat and before.largest_holder != seat
        body.update(zufall=True, wolken=mine, wolke_halter=holder,
                    punkte_nachher=body["punkte_vorher"] + (SPECIAL_POINTS if takes else 0))
        text = f"{name}: Schimmel versetzen und rauben ({mine}. Sporenwolke"
        text += ", Größte Sporenwolke)" if takes else ")"
    elif card == WUCHSSCHUB:
        text = f"{name}: zwei Myzelfäden gratis"
    elif card == NAEHRQUELLE:
        kinds = [KIND_INDEX[str(item)] for item in move["rohstoffe"]]
        text = f"{name}: " + (" und ".join(f"1 {KIND_NAMES[k]}" for k in kinds) or "nichts") + " aus dem Vorrat"
    elif card == NETZSOG:
        target = KIND_INDEX[str(move["rohstoff"])]
        text = f"{name}: alle anderen geben dir ihr {KIND_NAMES[target]}"
        body["zufall"] = True  # how many depends on hands the seat cannot see
    else:
        text = name
    body["text"] = phrase_json("speedspore.vorschau.ausspielen", text, {"karte": str(move["ausspielen"])})
    return body


def _with_cloud(state: SporeState, seat: int) -> SporeState:
    played = tuple((*cards, WOLKE) if other == seat else cards for other, cards in enumerate(state.played))
    return evolve(state, played=played)
