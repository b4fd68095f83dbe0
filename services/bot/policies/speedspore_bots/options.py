"""Every legal Speedspore decision of a seat, valued as the normal level judges it (the others build on it).

The candidates are the Engine's legal moves (JSON, canonical order); each is valued by what it changes for
the seat (``values``), never by applying it: a build by its points, production and what the hand gives up;
a thread by the places it brings within reach and the Weitestes Geflecht; a trade by the hand after it; an
offer by the trade's value times the chance someone takes it; the mold by what it blocks and robs; an
answer by the trade's value, never helping a seat that is close to winning.
"""

from __future__ import annotations

from dataclasses import dataclass

from libs.rules.protocol import Json
from libs.rules.speedspore.board import CORNER_COUNT, CORNER_EDGES, CORNER_FIELDS, CORNER_NEIGHBOURS, EDGE_CORNERS
from libs.rules.speedspore.building import pieces_left
from libs.rules.speedspore.material import (
    CARD_INDEX,
    COSTS,
    DESERT,
    FADEN,
    FRUCHTKOERPER,
    GEFLECHT_MIN,
    KIND_COUNT,
    KIND_INDEX,
    MUTATION,
    NAEHRQUELLE,
    NETZSOG,
    SPECIAL_POINTS,
    TURM,
    WOLKE,
    WOLKE_MIN,
    WUCHSSCHUB,
)
from libs.rules.speedspore.specials import clouds, longest_trail
from libs.rules.speedspore.state import GEGEN, JA, SporeState
from services.bot.policies.speedspore_bots.values import (
    PIPS,
    WIN,
    Table,
    card_value,
    corner_pips,
    corner_value,
    edge_far_corner,
    hand_value,
    network_value,
    settle_distances,
)

__all__ = ["Option", "bundle", "options_for", "trade_value"]

ACCEPT_CHANCE = 0.35
"""About how often an offer of one card for one card finds a partner."""
OFFER_COST = 0.4
"""An offer costs a little (the others think about it; one offer at a time): below this, none is made."""
OFFERS_PER_TURN = 2
"""A bot makes at most this many offers per turn (the rules allow 5)."""
CLOSE_TO_WIN = 2
"""A seat this many points (public) from the target gets no help: no trade with it."""
LEADER_SHARE = 0.25
"""Per point a trade partner is ahead of the seat, the share of the trade's value it counts as help given."""
STRONG_HELP = 0.0
"""The strong level counts every trade's help to its partner this much against it (a trade helps both)."""
MUTATION_DECK_VALUE = (14 * 1.8 + 5 * 6.0 + 2 * 2.5 + 2 * 3.0 + 2 * 2.5) / 25
"""What a mutation card bought blind is worth (deck mix: 14 Sporenwolken, 5 Funde, 2+2+2 others)."""


@dataclass(frozen=True, slots=True)
class Option:
    """A legal move, its value for the seat, and what the reason needs (``what``: the family, ``info``)."""

    move: Json | None
    value: float
    what: str
    info: tuple[int | float | str, ...] = ()


def bundle(value: Json) -> tuple[int, ...]:
    """Return the counts of a bundle ``{"humus": 2, …}``."""
    counts = [0] * KIND_COUNT
    for name, count in value.items():
        counts[KIND_INDEX[name]] += int(count)
    return tuple(counts)


def _minus(hand: tuple[int, ...] | list[int], cost: tuple[int, ...]) -> list[int]:
    return [have - need for have, need in zip(hand, cost, strict=True)]


def _plus(hand: tuple[int, ...] | list[int], gain: tuple[int, ...]) -> list[int]:
    return [have + more for have, more in zip(hand, gain, strict=True)]


def _after_trades(table: Table, hand: list[int], trades: list[Json]) -> list[int]:
    for trade in trades:
        give, take = KIND_INDEX[trade["gib"]], KIND_INDEX[trade["nimm"]]
        hand[give] -= table.rates[give]
        hand[take] += 1
    return hand


def _points_value(table: Table, gained: int) -> float:
    """Return what ``gained`` points are worth now; reaching the target in the own turn wins."""
    if table.state.phase != "gruendung" and table.points + gained >= table.target:
        return WIN
    return gained * table.vp_weight


def trade_value(table: Table, give: tuple[int, ...], take: tuple[int, ...]) -> float:
    """Return what giving ``give`` for ``take`` changes the seat's hand value (-WIN: it cannot pay)."""
    hand = table.state.hands[table.seat]
    after = _plus(_minus(hand, give), take)
    if min(after) < 0:
        return -WIN
    return hand_value(table, after) - hand_value(table, hand)


# ---- building ----------------------------------------------------------------------------------------
def thread_value(table: Table, edge: int) -> float:
    """Return what a thread on ``edge`` brings: places to settle within reach, and the Weitestes Geflecht."""
    state, seat = table.state, table.seat
    value = network_value(table, settle_distances(state, seat, extra_edge=edge)) - network_value(table,
                                                                                                  table.distance)
    owners = list(state.edge_owner)
    owners[edge] = seat
    length = longest_trail(tuple(owners), state.corner_owner, seat)
    holder = state.longest_holder
    if length > state.trail[seat]:
        if holder != seat and length >= GEFLECHT_MIN and (holder == -1 or length > state.trail[holder]) and all(
                length > state.trail[other] for other in range(state.seats) if other != seat):
            value += _points_value(table, SPECIAL_POINTS)
        elif holder != seat:
            best_other = max(state.trail[other] for other in range(state.seats) if other != seat)
            if length >= best_other - 1 and pieces_left(state, seat, FADEN) > 3:
                value += 0.5  # on the way to the Geflecht
    return value


def _build_value(table: Table, move: Json) -> Option:
    """Return a build's value (with the supply trades it carries): gain minus what the hand gives up."""
    state, seat = table.state, table.seat
    hand = list(state.hands[seat])
    trades = move.get("tausch", [])
    before = hand_value(table, hand)
    hand = _after_trades(table, hand, trades)
    if FADEN in move:
        edge = move[FADEN]
        paid = _minus(hand, COSTS[FADEN]) if state.phase == "haupt" else hand
        gain = thread_value(table, edge)
        return Option(move, gain + hand_value(table, paid) - before, FADEN, (edge, len(trades)))
    if FRUCHTKOERPER in move:
        corner = move[FRUCHTKOERPER]
        paid = _minus(hand, COSTS[FRUCHTKOERPER])
        gain = _points_value(table, 1) + corner_value(table, corner)
        return Option(move, gain + hand_value(table, paid) - before, FRUCHTKOERPER, (corner, len(trades)))
    if TURM in move:
        corner = move[TURM]
        paid = _minus(hand, COSTS[TURM])
        pips = sum(p * table.kind_weight[k] for k, p in corner_pips(state, corner))
        gain = _points_value(table, 1) + pips * table.pip_weight
        return Option(move, gain + hand_value(table, paid) - before, TURM, (corner, len(trades)))
    paid = _minus(hand, COSTS[MUTATION])
    return Option(move, MUTATION_DECK_VALUE + hand_value(table, paid) - before, MUTATION, (len(trades),))


# ---- mutations -----------------------------------------------------------------------------------------
def _others_holding(state: SporeState, seat: int, kind: int) -> int:
    return sum(state.hands[other][kind] for other in range(state.seats) if other != seat)


def _play_value(table: Table, move: Json) -> Option:
    state, seat = table.state, table.seat
    card = CARD_INDEX[move["ausspielen"]]
    hand = state.hands[seat]
    lost = card_value(card)
    if card == WOLKE:
        value = best_mold_value(table) + 0.5
        mine = clouds(state, seat) + 1
        holder = state.largest_holder
        if holder != seat and mine >= WOLKE_MIN and (holder == -1 or mine > clouds(state, holder)):
            value += _points_value(table, SPECIAL_POINTS)
        if state.phase == "wurf":
            value += 0.3  # the mold leaves the own field before the roll
        return Option(move, value - lost, "wolke")
    if card == WUCHSSCHUB:
        near = min(table.distance.values(), default=9)
        value = 2.0 * (1.5 if 0 < near <= 2 else 0.8) if pieces_left(state, seat, FADEN) > 0 else 0.0
        return Option(move, value - lost + 0.5, "wuchsschub")
    if card == NAEHRQUELLE:
        gain = [0] * KIND_COUNT
        for name in move["rohstoffe"]:
            gain[KIND_INDEX[name]] += 1
        after = _plus(hand, tuple(gain))
        return Option(move, hand_value(table, after) - hand_value(table, hand) - lost + 0.3, "naehrquelle")
    if card == NETZSOG:
        kind = KIND_INDEX[move["rohstoff"]]
        gain = [0] * KIND_COUNT
        gain[kind] = _others_holding(state, seat, kind)
        after = _plus(hand, tuple(gain))
        value = hand_value(table, after) - hand_value(table, hand) + 0.3 * gain[kind]
        return Option(move, value - lost - 0.5, "netzsog", (kind, gain[kind]))
    return Option(move, -lost, "spielen")


# ---- the mold -------------------------------------------------------------------------------------------
def mold_value(table: Table, fld: int, victim: int | None) -> float:
    """Return what the mold on ``fld`` (robbing ``victim``) is worth: others' yield blocked (the leaders' more),
    the own yield blocked counted against it, and the card robbed."""
    state, seat = table.state, table.seat
    pips = 0 if state.fields[fld] == DESERT else PIPS[state.numbers[fld]]
    value = 0.0
    leader = max(table.others)
    for corner in _field_corners(fld):
        owner = state.corner_owner[corner]
        if owner == -1:
            continue
        blocked = pips * state.corner_level[corner] * 0.35
        if owner == seat:
            value -= 2.0 * blocked
        else:
            value += blocked * (1.0 + (0.6 if table.others[owner] == leader else 0.0)
                                + 0.1 * table.others[owner])
    if victim is not None and victim >= 0:
        cards = sum(state.hands[victim])
        if cards:
            value += 1.0 + 0.15 * table.others[victim] + (0.3 if cards > 7 else 0.0)
    return value


_FIELD_CORNER_CACHE: dict[int, tuple[int, ...]] = {}


def _field_corners(fld: int) -> tuple[int, ...]:
    corners = _FIELD_CORNER_CACHE.get(fld)
    if corners is None:
        corners = tuple(c for c in range(CORNER_COUNT) if fld in CORNER_FIELDS[c])
        _FIELD_CORNER_CACHE[fld] = corners
    return corners


def best_mold_value(table: Table) -> float:
    """Return the best value of moving the mold now (any other field, robbing the best seat there)."""
    state, seat = table.state, table.seat
    best = 0.0
    for fld in range(len(state.fields)):
        if fld == state.mold:
            continue
        victims = {state.corner_owner[c] for c in _field_corners(fld)} - {-1, seat}
        value = max((mold_value(table, fld, v) for v in victims if sum(state.hands[v])),
                    default=mold_value(table, fld, None))
        best = max(best, value)
    return best


# ---- answers and offers --------------------------------------------------------------------------------
def helping_cost(table: Table, partner: int, gain: float) -> float:
    """Return how much a trade's help to ``partner`` counts against it (-WIN-sized if it is close to winning)."""
    points = table.others[partner]
    if points >= table.target - CLOSE_TO_WIN:
        return WIN
    ahead = points - table.points
    cost = max(0.0, ahead) * LEADER_SHARE * max(1.0, abs(gain))
    if table.level == "strong":
        cost += STRONG_HELP
    return cost


def answer_value(table: Table, give: tuple[int, ...], take: tuple[int, ...], partner: int) -> float:
    """Return what a trade of ``give`` for ``take`` with ``partner`` is worth, help to it counted against."""
    gain = trade_value(table, give, take)
    return gain - helping_cost(table, partner, gain)


def options_for(table: Table, moves: list[Json]) -> list[Option]:
    """Return every legal move of the seat's open decision with the normal level's value, in the given order."""
    return [value_of(table, table.state, table.seat, move) for move in moves]


def value_of(table: Table, state: SporeState, seat: int, move: Json) -> Option:
    """Return one move's option (its family read from its keys)."""
    if "wuerfeln" in move:
        return Option(move, 0.0, "wuerfeln")
    if "zug_beenden" in move:
        return Option(move, 0.0, "zug_beenden")
    if state.phase == "gruendung":
        return founding_value(table, move)
    if "ausspielen" in move:
        return _play_value(table, move)
    if "verzichten" in move:
        return Option(move, 0.0, "verzichten")
    if state.phase == "wuchsschub" and FADEN in move:
        return Option(move, thread_value(table, move[FADEN]) + 0.05, FADEN, (move[FADEN], 0))
    if FADEN in move or FRUCHTKOERPER in move or TURM in move or MUTATION in move:
        return _build_value(table, move)
    if "vorrat" in move:
        give_kind, take_kind = KIND_INDEX[move["vorrat"]["gib"]], KIND_INDEX[move["vorrat"]["nimm"]]
        paid = [0] * KIND_COUNT
        paid[give_kind] = table.rates[give_kind]
        got = [0] * KIND_COUNT
        got[take_kind] = 1
        return Option(move, trade_value(table, tuple(paid), tuple(got)) - 0.05, "vorrat", (give_kind, take_kind))
    if "angebot" in move:
        give, take = bundle(move["angebot"]["gib"]), bundle(move["angebot"]["nimm"])
        if state.offers_made >= OFFERS_PER_TURN:
            return Option(move, -WIN, "angebot")
        gain = trade_value(table, give, take)
        return Option(move, ACCEPT_CHANCE * gain - OFFER_COST, "angebot", tuple(give) + tuple(take))
    if "handeln" in move:
        partner = move["handeln"]
        offer = state.offer
        if offer is None:
            return Option(move, 0.0, "handeln")
        answer = offer.answers[partner]
        give, take = (answer.take, answer.give) if answer.kind == GEGEN else (offer.give, offer.take)
        return Option(move, answer_value(table, give, take, partner), "handeln", (partner,))
    if "zurueckziehen" in move:
        return Option(move, 0.0, "zurueckziehen")
    if "antwort" in move:
        offer = state.offer
        if offer is None or move["antwort"] != JA:
            return Option(move, 0.0, "antwort")
        # The offerer gives ``offer.give`` to the answering seat and wants ``offer.take``.
        return Option(move, answer_value(table, offer.take, offer.give, state.current), "antwort")
    if "gegenangebot" in move:
        give, take = bundle(move["gegenangebot"]["gib"]), bundle(move["gegenangebot"]["nimm"])
        value = answer_value(table, give, take, state.current)
        return Option(move, ACCEPT_CHANCE * value - OFFER_COST, "gegenangebot")
    if "abwerfen" in move:
        hand = _minus(state.hands[seat], bundle(move["abwerfen"]))
        return Option(move, hand_value(table, hand), "abwerfen")
    if "schimmel" in move:
        victim = move.get("opfer")
        return Option(move, mold_value(table, move["schimmel"], victim), "schimmel")
    return Option(move, -1.0, "unbekannt")


# ---- founding ------------------------------------------------------------------------------------------
def founding_value(table: Table, move: Json) -> Option:
    """Return a founding placement's value: the corner's production (scarcity, kinds new to the seat, its
    gully); a thread by the best free corner it leads towards."""
    state = table.state
    if FRUCHTKOERPER in move:
        corner = move[FRUCHTKOERPER]
        value = corner_value(table, corner, founding=True)
        value += 0.4 * _future_spots(table, corner)
        return Option(move, value, "gruendung", (corner,))
    edge = move[FADEN]
    start = state.founding_corner
    far = edge_far_corner(edge, start) if start in EDGE_CORNERS[edge] else EDGE_CORNERS[edge][0]
    best = 0.0
    for edge2 in CORNER_EDGES[far]:
        nxt = edge_far_corner(edge2, far)
        if nxt == start or state.edge_owner[edge2] != -1:
            continue
        if _free_spot(state, nxt):
            best = max(best, corner_value(table, nxt, founding=True))
    return Option(move, best, "gruendung_faden", (edge,))


def _free_spot(state: SporeState, corner: int) -> bool:
    if state.corner_owner[corner] != -1:
        return False
    return all(state.corner_owner[c] == -1 for c in _neighbours(corner))


def _neighbours(corner: int) -> tuple[int, ...]:
    return CORNER_NEIGHBOURS[corner]


def _future_spots(table: Table, corner: int) -> float:
    """Return the best free corner two threads away (where the seat could settle next), by its value."""
    state = table.state
    best = 0.0
    for first in _neighbours(corner):
        for second in _neighbours(first):
            if second != corner and _free_spot(state, second) and second not in _neighbours(corner):
                best = max(best, corner_value(table, second, founding=True))
    return best

