"""What a seat sees of a Speedspore game (and nothing more), and ``determinize`` (a full state from a view).

Public: the island, buildings, threads, the mold, the supply, dice, the "ausgeglichen" outcomes played since
the last shuffle, each seat's card counts (resources and mutations), played mutations, points without hidden
Funde, special cards, the open offer with every answer, the last yield record, turn logs, harvest and trade
counts. Own: the seat's resource hand and mutation cards (which were bought this turn). Hidden: other hands'
kinds, others' mutation cards, the mutation deck's order, the dice deck's order, the seed.
"""

from __future__ import annotations

from typing import Any

from libs.rules.evolve import evolve
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speedspore import building, scoring, screens
from libs.rules.speedspore.board import gully_frame
from libs.rules.speedspore.dice import ALL_OUTCOMES
from libs.rules.speedspore.material import (
    CARD_INDEX,
    CARD_KEYS,
    FIELD_KINDS,
    GAME,
    KIND_COUNT,
    KINDS,
    MUTATION_DECK,
)
from libs.rules.speedspore.state import ENDE, Answer, Offer, SporeState, YieldRecord
from libs.rules.speedspore.texts import bundle_json


def _counts(data: dict[str, int]) -> tuple[int, ...]:
    return tuple(int(data.get(name, 0)) for name in KINDS)


def _answer_json(answer: Answer) -> Json:
    return {"art": answer.kind, "gib": bundle_json(answer.give) if answer.give else None,
            "nimm": bundle_json(answer.take) if answer.take else None}


def _record_json(record: YieldRecord | None) -> Json | None:
    if record is None:
        return None
    return {"wurf": record.roll, "wuerfel": list(record.dice),
            "erhalten": [[list(line) for line in lines] for lines in record.received],
            "schimmel": [[seat, list(line)] for seat, line in record.mold],
            "knapp": list(record.short), "teilweise": [list(item) for item in record.partial]}


def _record_from(data: Json | None) -> YieldRecord | None:
    if data is None:
        return None

    def line(item: list[Any]) -> tuple[int, int, int, int, bool]:
        return (int(item[0]), int(item[1]), int(item[2]), int(item[3]), bool(item[4]))

    return YieldRecord(roll=data["wurf"], dice=(data["wuerfel"][0], data["wuerfel"][1]),
                       received=tuple(tuple(line(item) for item in lines) for lines in data["erhalten"]),
                       mold=tuple((int(seat), line(item)) for seat, item in data["schimmel"]),
                       short=tuple(data["knapp"]),
                       partial=tuple((int(a), int(b), int(c), int(d)) for a, b, c, d in data["teilweise"]))


def make_view(state: SporeState, seat: int | None, rules_id: str) -> Json:
    """Return what ``seat`` (None: a spectator) sees."""
    finished = state.phase == ENDE
    offer = state.offer
    frame = gully_frame(state.gully_edges)
    players = []
    for other in range(state.seats):
        full = finished or other == seat
        shown_points = scoring.points(state, other) if full else scoring.public_points(state, other)
        players.append({
            "platz": other, "karten": sum(state.hands[other]), "mutationen": len(state.cards[other]),
            "gekauft": len(state.bought) if other == state.current else 0,
            "ausgespielt": [CARD_KEYS[card] for card in state.played[other]],
            "stuecke": list(state.pieces[other]), "geflecht": state.trail[other],
            "punkte": shown_points, "rechenweg": [line.to_json() for line in scoring.lines(
                state, other, with_funde=finished or other == seat)],
            "abwerfen": state.discard[other], "zuletzt": [list(entry) for entry in state.turn_log[other]],
            "geerntet": state.harvest[other], "getauscht": state.trades[other],
            "funde": [CARD_KEYS[c] for c in state.cards[other] if c >= 4] if finished else None,
        })
    view: Json = {
        "spiel": GAME, "regeln": rules_id,
        "einstellungen": {"siegpunkte": state.target, "wuerfel": state.dice_mode, "insel": state.island},
        "plaetze": state.seats, "ich": seat, "beendet": finished, "sieger": state.winner,
        "phase": state.phase, "dran": state.current, "zug": state.turn,
        "gruendung": {"schritt": state.founding, "ecke": state.founding_corner},
        "felder": [{"art": FIELD_KINDS[kind], "zahl": number} for kind, number in zip(state.fields, state.numbers,
                                                                                      strict=True)],
        "gullys": [{"art": "3:1" if kind == -1 else KINDS[kind], "kante": frame.edges[gully],
                    "ecken": list(frame.corners[gully]), "angeschlossen": building.connected(state, gully)}
                   for gully, kind in enumerate(state.gullys)],
        "ecken": [[owner, level] for owner, level in zip(state.corner_owner, state.corner_level, strict=True)],
        "kanten": list(state.edge_owner),
        "schimmel": state.mold, "vorrat": list(state.supply),
        "wuerfel": list(state.dice), "wuerfe": state.rolls, "gewuerfelt": state.rolled,
        "wuerfelstapel": {"anzahl": len(state.dice_deck), "gespielt": list(state.dice_seen),
                          "mischungen": state.shuffles} if state.dice_mode == "ausgeglichen" else None,
        "mutationsstapel": len(state.deck), "ausgespielt_in_diesem_zug": state.played_this_turn,
        "nach_schimmel": state.after_mold, "gratis_faeden": state.free_threads,
        "angebot": None if offer is None else {
            "nummer": offer.number, "gib": bundle_json(offer.give), "nimm": bundle_json(offer.take),
            "antworten": [_answer_json(answer) for answer in offer.answers]},
        "angebote": state.offers_made, "raube": state.robberies,
        "weitestes_geflecht": state.longest_holder, "groesste_sporenwolke": state.largest_holder,
        "ertrag": _record_json(state.last_yield),
        "spieler": players,
        "du": None,
    }
    if seat is not None:
        view["du"] = {"platz": seat, "hand": bundle_json(state.hands[seat]),
                      "mutationen": [CARD_KEYS[card] for card in state.cards[seat]],
                      "gekauft": [CARD_KEYS[card] for card in state.bought] if seat == state.current else [],
                      "kurse": dict(zip(KINDS, building.rates(state, seat), strict=True))}
    view["anzeige"] = screens.extras(state, seat)
    return view


def state_from_view(view: Json, seat: int, rng: SeededRng) -> SporeState:
    """Return a full state matching the seat's view; what it cannot see is sampled from ``rng``.

    Other hands: the cards of the others (per kind: 19 − supply − own) are dealt anew to their counts, each
    seat first getting what its standing answer to the open offer commits. Others' mutation cards and the
    deck: the 25 cards minus own and played ones, dealt anew. The dice deck (the outcomes not yet played since
    the shuffle) is shuffled anew, and the seed is replaced, so future rolls and robberies differ.
    """
    seats = int(view["plaetze"])
    players = view["spieler"]
    supply = tuple(int(v) for v in view["vorrat"])
    own = _counts(view["du"]["hand"])
    offer_data = view["angebot"]
    answers: tuple[Answer, ...] = ()
    if offer_data is not None:
        answers = tuple(Answer(a["art"], _counts(a["gib"]) if a["gib"] else (), _counts(a["nimm"]) if a["nimm"] else ())
                        for a in offer_data["antworten"])
    offer = None if offer_data is None else Offer(int(offer_data["nummer"]), _counts(offer_data["gib"]),
                                                  _counts(offer_data["nimm"]), answers)
    pool = [19 - supply[k] - own[k] for k in range(KIND_COUNT)]
    hands: list[tuple[int, ...]] = []
    fixed: list[list[int]] = []
    for other in range(seats):
        need = [0] * KIND_COUNT
        if other != seat and offer is not None:
            answer = offer.answers[other]
            commit = offer.take if answer.kind == "ja" else answer.give if answer.kind == "gegen" else ()
            for k, count in enumerate(commit):
                need[k] = count
                pool[k] -= count
        fixed.append(need)
    cards = [k for k in range(KIND_COUNT) for _ in range(pool[k])]
    cards = rng.derive("haende").shuffle(cards)
    for other in range(seats):
        if other == seat:
            hands.append(own)
            continue
        hand = list(fixed[other])
        for _ in range(int(players[other]["karten"]) - sum(hand)):
            hand[cards.pop()] += 1
        hands.append(tuple(hand))
    unseen = list(MUTATION_DECK)
    mine = tuple(sorted(CARD_INDEX[name] for name in view["du"]["mutationen"]))
    for card in mine:
        unseen.remove(card)
    played = tuple(tuple(CARD_INDEX[name] for name in player["ausgespielt"]) for player in players)
    for cards_played in played:
        for card in cards_played:
            unseen.remove(card)
    shown = [[CARD_INDEX[name] for name in player["funde"] or ()] if other != seat else []
             for other, player in enumerate(players)]  # revealed at the end
    for revealed in shown:
        for card in revealed:
            unseen.remove(card)
    unseen = rng.derive("mutationen").shuffle(unseen)
    if view["beendet"]:  # the Funde are all revealed: the rest of the unseen cards hold none
        unseen = [card for card in unseen if card < 4] + [card for card in unseen if card >= 4]
        unseen.reverse()
    mutation_hands: list[tuple[int, ...]] = []
    for other in range(seats):
        if other == seat:
            mutation_hands.append(mine)
            continue
        count = int(players[other]["mutationen"]) - len(shown[other])
        mutation_hands.append(tuple(sorted([*shown[other], *(unseen.pop() for _ in range(count))])))
    deck = tuple(unseen)
    current = int(view["dran"])
    if current == seat:
        bought = tuple(CARD_INDEX[name] for name in view["du"]["gekauft"])
    else:
        bought = mutation_hands[current][:int(players[current]["gekauft"])]
    dice_info = view["wuerfelstapel"]
    dice_deck: tuple[int, ...] = ()
    dice_seen: tuple[int, ...] = ()
    shuffles = 0
    if dice_info is not None:
        dice_seen = tuple(int(v) for v in dice_info["gespielt"])
        left = list(ALL_OUTCOMES)
        for outcome in dice_seen:
            left.remove(outcome)
        dice_deck = tuple(rng.derive("wuerfel").shuffle(left))
        shuffles = int(dice_info["mischungen"])
    seed = rng.derive("seed").next_u64().to_bytes(8, "big") + b"determinized"
    settings = view["einstellungen"]
    base = SporeState(
        seats=seats, target=int(settings["siegpunkte"]), dice_mode=settings["wuerfel"], island=settings["insel"],
        fields=tuple(FIELD_KINDS.index(field["art"]) for field in view["felder"]),
        numbers=tuple(int(field["zahl"]) for field in view["felder"]),
        gullys=tuple(-1 if g["art"] == "3:1" else KINDS.index(g["art"]) for g in view["gullys"]),
        gully_edges=gully_frame(tuple(int(g["kante"]) for g in view["gullys"])).edges,
        seed=seed, phase=view["phase"], current=current, turn=int(view["zug"]),
        founding=int(view["gruendung"]["schritt"]), founding_corner=int(view["gruendung"]["ecke"]),
        corner_owner=tuple(int(c[0]) for c in view["ecken"]), corner_level=tuple(int(c[1]) for c in view["ecken"]),
        edge_owner=tuple(int(e) for e in view["kanten"]), hands=tuple(hands), supply=supply,
        cards=tuple(mutation_hands), bought=bought, deck=deck, played=played,
        played_this_turn=bool(view["ausgespielt_in_diesem_zug"]), rolled=bool(view["gewuerfelt"]),
        rolls=int(view["wuerfe"]), dice=tuple(int(d) for d in view["wuerfel"]), dice_deck=dice_deck,
        dice_seen=dice_seen, shuffles=shuffles, mold=int(view["schimmel"]),
        discard=tuple(int(p["abwerfen"]) for p in players), after_mold=view["nach_schimmel"],
        free_threads=int(view["gratis_faeden"]), offer=offer, offers_made=int(view["angebote"]),
        robberies=int(view["raube"]), pieces=tuple((int(p["stuecke"][0]), int(p["stuecke"][1]), int(p["stuecke"][2]))
                                                    for p in players),
        trail=tuple(int(p["geflecht"]) for p in players), longest_holder=int(view["weitestes_geflecht"]),
        largest_holder=int(view["groesste_sporenwolke"]), winner=int(view["sieger"]),
        last_yield=_record_from(view["ertrag"]),
        turn_log=tuple(tuple(tuple(entry) for entry in p["zuletzt"]) for p in players),
        harvest=tuple(int(p["geerntet"]) for p in players), trades=tuple(int(p["getauscht"]) for p in players),
    )
    return evolve(base)
