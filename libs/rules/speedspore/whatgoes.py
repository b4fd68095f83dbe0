"""„Was geht?“: per build whether the seat can build it now, only with supply trades, or not (and why).

Three answers per build (Myzelfaden, Fruchtkörper, Sporenturm, Mutation), in the seat's own turn:

- ``baubar``: the hand pays it and there is a place (with the number of places);
- ``mit_tausch``: the hand pays it after the supply trades of ``trade_plan`` (4:1, through own gullys 3:1 or
  2:1); a build move carrying these trades as ``"tausch"`` makes them first, as one step;
- ``geht_nicht``: with the reason in the rule book's words (wrong phase, no piece left, no place, the
  mutation deck is empty, or missing resources that no trade can make up).

``missing_reason`` is the sentence the rules give when a build without (enough) trades is refused, e.g.
„Es fehlen 1 Moos und 1 Regenwasser – Tausch möglich: 4 Humus gegen Moos (4:1), 3 Totholz gegen
Regenwasser (3:1).“

The trade plan (eigene Festlegung, docs/rules/speedspore.md „Was geht?“): among all ways to make up the
missing cards with one supply trade per missing card, take the one that

1. gives the fewest cards (cheapest rates first — the seat's own 2:1 and 3:1 gullys);
2. then keeps the most of the other builds payable from the cards left (Myzelfaden, Fruchtkörper,
   Sporenturm, Mutation — the build itself not counted);
3. then leaves the fewest cards missing for those other builds in all;
4. then gives from kinds earlier in the order Totholz, Humus, Moos, Regenwasser, Mineralien.

A trade only gives cards the build does not need, and only takes a kind the supply still holds. The plan
depends on the seat's hand, its rates and the supply only: nothing hidden from the seat.
"""

from __future__ import annotations

from libs.rules.protocol import Json, phrase_json
from libs.rules.speedspore.board import CORNER_EDGES, CORNER_NEIGHBOURS, EDGE_CORNERS, EDGE_COUNT
from libs.rules.speedspore.building import pieces_left, rates
from libs.rules.speedspore.material import (
    BUILD_NAMES,
    BUILDS,
    COSTS,
    FADEN,
    FRUCHTKOERPER,
    KIND_COUNT,
    KIND_NAMES,
    KINDS,
    LIMITS,
    MUTATION,
    TURM,
)
from libs.rules.speedspore.state import ABWERFEN, ENDE, GRUENDUNG, HAUPT, SCHIMMEL, WUCHSSCHUB, WURF, SporeState

Trade = tuple[int, int]
"""One supply trade: (kind given, kind taken); the seat gives its rate of the given kind."""

BAUBAR, MIT_TAUSCH, GEHT_NICHT = "baubar", "mit_tausch", "geht_nicht"

_PIECE_WORDS: dict[str, str] = {FADEN: "Alle 15 Myzelfäden sind verbaut.",
                                FRUCHTKOERPER: "Alle 5 Fruchtkörper sind verbaut.",
                                TURM: "Alle 4 Sporentürme sind verbaut."}
_NO_PLACE: dict[str, str] = {
    FADEN: "Kein freier Platz an deinem Geflecht.",
    FRUCHTKOERPER: "Kein Platz: Ein Fruchtkörper braucht eine Ecke mit eigenem Faden und freien Nachbarecken.",
    TURM: "Kein eigener Fruchtkörper, den ein Sporenturm ersetzen kann.",
}
_PHASE_WORDS: dict[str, tuple[str, str]] = {
    WURF: ("wurf", "Erst würfeln."),
    GRUENDUNG: ("gruendung", "Während der Gründung setzt du nur Fruchtkörper und Faden."),
    ABWERFEN: ("abwerfen", "Erst werfen alle mit mehr als 7 Karten die Hälfte ab."),
    SCHIMMEL: ("schimmel", "Erst den Schimmel versetzen."),
    WUCHSSCHUB: ("wuchsschub", "Erst die Gratis-Fäden legen oder verzichten."),
    ENDE: ("ende", "Die Partie ist zu Ende."),
}


def _amount_words(count: int, kind: int) -> str:
    return f"{count} {KIND_NAMES[kind]}"


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " und " + parts[-1]


def missing(hand: tuple[int, ...], build: str) -> tuple[int, ...]:
    """Return per kind how many cards the hand lacks for the build."""
    return tuple(max(0, need - have) for have, need in zip(hand, COSTS[build], strict=True))


def _lack(hand: list[int], build: str) -> int:
    cost = COSTS[build]
    return sum(max(0, cost[kind] - hand[kind]) for kind in range(KIND_COUNT))


def plan_for(hand: tuple[int, ...], build: str, seat_rates: tuple[int, ...],
             supply: tuple[int, ...]) -> tuple[Trade, ...] | None:
    """Return the supply trades (see the module docstring) that make ``hand`` pay ``build``.

    () when the hand pays it already; None when no trades through these rates can.
    """
    cost = COSTS[build]
    lacking = [0] * KIND_COUNT
    caps = [0] * KIND_COUNT
    needed = spare = 0
    for kind in range(KIND_COUNT):
        short = cost[kind] - hand[kind]
        if short > 0:
            if short > supply[kind]:
                return None
            lacking[kind] = short
            needed += short
        elif short < 0:
            caps[kind] = cap = -short // seat_rates[kind]
            spare += cap
    if needed == 0:
        return ()
    if spare < needed:
        return None
    givers = [kind for kind in range(KIND_COUNT) if caps[kind]]
    other_costs = [COSTS[other] for other in BUILDS if other != build]
    best_key: tuple[int, ...] | None = None
    best: list[int] = []
    counts = [0] * KIND_COUNT
    kinds = range(KIND_COUNT)

    def score() -> tuple[int, ...]:
        left = [hand[kind] - counts[kind] * seat_rates[kind] + lacking[kind] - cost[kind] for kind in kinds]
        lacks = []
        for other_cost in other_costs:  # ``_lack`` of each other build
            lack = 0
            for kind in kinds:
                short = other_cost[kind] - left[kind]
                if short > 0:
                    lack += short
            lacks.append(lack)
        given = sum(counts[kind] * seat_rates[kind] for kind in kinds)
        return (given, -lacks.count(0), sum(lacks), *(-count for count in counts))

    def spread(index: int, remaining: int) -> None:
        nonlocal best_key, best
        if index == len(givers) - 1:
            kind = givers[index]
            if remaining > caps[kind]:
                return
            counts[kind] = remaining
            key = score()
            if best_key is None or key < best_key:
                best_key, best = key, list(counts)
            counts[kind] = 0
            return
        kind = givers[index]
        for count in range(min(caps[kind], remaining), -1, -1):
            counts[kind] = count
            spread(index + 1, remaining - count)
        counts[kind] = 0

    spread(0, needed)
    gives = [kind for kind in range(KIND_COUNT) for _ in range(best[kind])]
    takes = [kind for kind in range(KIND_COUNT) for _ in range(lacking[kind])]
    return tuple(zip(gives, takes, strict=True))


def place_count(state: SporeState, seat: int, build: str) -> int:
    """Return on how many places the seat may build (``building.spots`` counted, walking its own net only)."""
    if pieces_left(state, seat, build) <= 0:
        return 0
    owners, edges = state.corner_owner, state.edge_owner
    if build == TURM:
        levels = state.corner_level
        return sum(1 for corner, owner in enumerate(owners) if owner == seat and levels[corner] == 1)
    ends: set[int] = set()
    for edge in range(EDGE_COUNT):
        if edges[edge] == seat:
            ends.update(EDGE_CORNERS[edge])
    if build == FRUCHTKOERPER:
        return sum(1 for corner in ends if owners[corner] == -1
                   and all(owners[other] == -1 for other in CORNER_NEIGHBOURS[corner]))
    ends.update(corner for corner, owner in enumerate(owners) if owner == seat)
    free: set[int] = set()
    for corner in ends:
        if owners[corner] in (-1, seat):
            free.update(edge for edge in CORNER_EDGES[corner] if edges[edge] == -1)
    return len(free)


def in_turn_refusal(state: SporeState, seat: int, build: str, places: int | None = None) -> Json | None:
    """Return why the seat cannot build now regardless of its cards (phase, pieces, places, deck), or None.

    ``places``: the build's place count when the caller has it already.
    """
    if state.phase != HAUPT or state.current != seat:
        if state.current != seat and state.phase != ENDE:
            return phrase_json("speedspore.geht.nicht_dran", "Du bist nicht am Zug.", {"bau": build})
        key, text = _PHASE_WORDS.get(state.phase, ("phase", "Gerade nicht."))
        return phrase_json(f"speedspore.geht.phase.{key}", text, {"bau": build, "phase": state.phase})
    if build == MUTATION:
        if not state.deck:
            return phrase_json("speedspore.geht.stapel_leer", "Der Mutationsstapel ist leer.", {"bau": build})
        return None
    if pieces_left(state, seat, build) <= 0:
        return phrase_json("speedspore.geht.keine_steine", _PIECE_WORDS[build],
                           {"bau": build, "limit": LIMITS[build]})
    if (place_count(state, seat, build) if places is None else places) == 0:
        return phrase_json("speedspore.geht.kein_platz", _NO_PLACE[build], {"bau": build})
    return None


def trade_words(trades: tuple[Trade, ...], seat_rates: tuple[int, ...]) -> str:
    """Return "4 Humus gegen Moos (4:1), 6 Totholz gegen 2 Regenwasser (3:1)" (equal trades merged)."""
    groups: dict[Trade, int] = {}
    for trade in trades:
        groups[trade] = groups.get(trade, 0) + 1
    parts = []
    for (give, take), times in groups.items():
        rate = seat_rates[give]
        got = KIND_NAMES[take] if times == 1 else f"{times} {KIND_NAMES[take]}"
        parts.append(f"{rate * times} {KIND_NAMES[give]} gegen {got} ({rate}:1)")
    return ", ".join(parts)


def trades_json(trades: tuple[Trade, ...]) -> list[Json]:
    """Return the trades as a build move's ``"tausch"`` list: ``[{"gib": "humus", "nimm": "moos"}, …]``."""
    return [{"gib": KINDS[give], "nimm": KINDS[take]} for give, take in trades]


def _trade_detail(trades: tuple[Trade, ...], seat_rates: tuple[int, ...]) -> list[Json]:
    return [{"gib": KINDS[give], "anzahl": seat_rates[give], "nimm": KINDS[take], "kurs": f"{seat_rates[give]}:1"}
            for give, take in trades]


def cost_reason(state: SporeState, seat: int, build: str) -> Json | None:
    """Return the missing-cards sentence for the build (None when the hand pays it).

    „Es fehlen 1 Moos und 1 Regenwasser – Tausch möglich: 4 Humus gegen Moos (4:1).“ or
    „Es fehlen 2 Mineralien – auch mit Tausch nicht genug.“ (with the kind the supply lacks named).
    """
    hand = state.hands[seat]
    if not any(missing(hand, build)):
        return None
    seat_rates = rates(state, seat)
    return _cost_reason(state, build, hand, seat_rates, plan_for(hand, build, seat_rates, state.supply))


def _cost_reason(state: SporeState, build: str, hand: tuple[int, ...], seat_rates: tuple[int, ...],
                 plan: tuple[Trade, ...] | None) -> Json:
    lacking = missing(hand, build)
    words = _join([_amount_words(count, kind) for kind, count in enumerate(lacking) if count])
    verb = "fehlt" if sum(lacking) == 1 else "fehlen"
    params: Json = {"bau": build, "fehlt": {KINDS[kind]: count for kind, count in enumerate(lacking) if count}}
    if plan:
        params["tausch"] = _trade_detail(plan, seat_rates)
        return phrase_json("speedspore.geht.fehlt_tausch",
                           f"Es {verb} {words} – Tausch möglich: {trade_words(plan, seat_rates)}.", params)
    empty = [kind for kind, count in enumerate(lacking) if count and state.supply[kind] < count]
    if empty:
        params["vorrat_aus"] = [KINDS[kind] for kind in empty]
        names = _join([KIND_NAMES[kind] for kind in empty])
        return phrase_json("speedspore.geht.fehlt_vorrat_aus",
                           f"Es {verb} {words} – {names} gibt es im Vorrat nicht mehr genug.", params)
    return phrase_json("speedspore.geht.fehlt", f"Es {verb} {words} – auch mit Tausch nicht genug.", params)


def missing_reason(state: SporeState, seat: int, build: str) -> Json | None:
    """Return why the seat cannot build ``build`` now without trades (None if it can): a phrase."""
    refusal = in_turn_refusal(state, seat, build)
    if refusal is not None:
        return refusal
    return cost_reason(state, seat, build)


def trade_plan(state: SporeState, seat: int, build: str) -> tuple[Trade, ...] | None:
    """Return the supply trades that make the build payable now (() if the hand pays it; None if none can).

    Only the cards, rates and supply are looked at; whether the build has a place is ``missing_reason``'s.
    """
    return plan_for(state.hands[seat], build, rates(state, seat), state.supply)


def what_goes(state: SporeState, seat: int) -> list[Json] | None:
    """Return „Was geht?“ for the seat: one entry per build (None when it is not the seat's turn).

    Entry: ``{"bau", "name", "status", "plaetze", "tausch", "gibt", "grund", "text"}``; ``tausch`` is the
    build move's ``"tausch"`` list (``mit_tausch`` only), ``gibt`` the cards it costs through those trades,
    ``grund`` the reason phrase (``geht_nicht`` and ``mit_tausch``), ``text`` the whole line as a phrase.
    """
    if state.current != seat or state.phase == ENDE:
        return None
    seat_rates = rates(state, seat)
    hand = state.hands[seat]
    entries: list[Json] = []
    for build in BUILDS:
        name = BUILD_NAMES[build]
        places = None if build == MUTATION or state.phase != HAUPT else place_count(state, seat, build)
        refusal = in_turn_refusal(state, seat, build, places)
        entry: Json = {"bau": build, "name": name, "plaetze": places, "tausch": [], "gibt": 0, "grund": None}
        if refusal is not None:
            entry["status"] = GEHT_NICHT
            entry["grund"] = refusal
            entry["text"] = phrase_json("speedspore.geht.zeile.nicht", f"{name}: geht nicht – {refusal['text']}",
                                        {"bau": build, "status": GEHT_NICHT})
            entries.append(entry)
            continue
        plan = plan_for(hand, build, seat_rates, state.supply)
        where = "" if places is None else (" (1 Platz)" if places == 1 else f" ({places} Plätze)")
        if plan == ():
            entry["status"] = BAUBAR
            entry["text"] = phrase_json("speedspore.geht.zeile.baubar", f"{name}: baubar{where}",
                                        {"bau": build, "status": BAUBAR, "plaetze": places})
        elif plan is not None:
            entry["status"] = MIT_TAUSCH
            entry["tausch"] = trades_json(plan)
            entry["gibt"] = sum(seat_rates[give] for give, _ in plan)
            entry["grund"] = _cost_reason(state, build, hand, seat_rates, plan)
            words = trade_words(plan, seat_rates)
            entry["text"] = phrase_json("speedspore.geht.zeile.tausch", f"{name}: mit Tausch{where} – {words}",
                                        {"bau": build, "status": MIT_TAUSCH, "plaetze": places,
                                         "tausch": _trade_detail(plan, seat_rates)})
        else:
            reason = _cost_reason(state, build, hand, seat_rates, plan)
            entry["status"] = GEHT_NICHT
            entry["grund"] = reason
            entry["text"] = phrase_json("speedspore.geht.zeile.nicht", f"{name}: geht nicht – {reason['text']}",
                                        {"bau": build, "status": GEHT_NICHT})
        entries.append(entry)
    return entries
