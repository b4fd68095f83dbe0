"""Speedspore's rules of play: pending seats, legal moves, applying a move, timeouts, undoable steps.

All functions are pure: a state is never changed in place (``evolve`` makes the new one).
"""

from __future__ import annotations

from typing import Any

from libs.rules.evolve import evolve
from libs.rules.protocol import IllegalMove, Json, Pending
from libs.rules.rng import SeededRng
from libs.rules.speedspore import building, dice, scoring, screens, specials, whatgoes
from libs.rules.speedspore.board import (
    CORNER_COUNT,
    CORNER_EDGES,
    CORNER_FIELDS,
    EDGE_CORNERS,
    EDGE_COUNT,
    FIELD_CORNERS,
    FIELD_COUNT,
)
from libs.rules.speedspore.material import (
    BUILD_NAMES,
    CARD_INDEX,
    CARD_KEYS,
    CARD_NAMES,
    COSTS,
    DESERT,
    FIELD_NAMES,
    HAND_LIMIT,
    KIND_COUNT,
    KIND_NAMES,
    KINDS,
    LIMITS,
    NAEHRQUELLE,
    NETZSOG,
    SPECIAL_POINTS,
    WOLKE,
    WUCHSSCHUB,
)
from libs.rules.speedspore.moves import (
    bundle,
    chosen_total,
    give_take,
    integer,
    keys_are,
    kind,
    malformed,
    supply_trade,
    trade_list,
)
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
    WURF,
    Answer,
    LogEntry,
    Offer,
    SporeState,
)
from libs.rules.speedspore.state import (
    WUCHSSCHUB as WUCHS_PHASE,
)
from libs.rules.speedspore.texts import bundle_json, bundle_words, effect, seat_name

MAX_OFFERS = 5
Effects = list[Json]
BUILD_KEYS = ("faden", "fruchtkoerper", "turm", "mutation")


# ---------------------------------------------------------------------------------------------------------
# Small helpers


def _add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def _sub(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x - y for x, y in zip(a, b, strict=True))


def _covers(hand: tuple[int, ...], need: tuple[int, ...]) -> bool:
    if len(hand) == 5 == len(need):  # a hand and a bundle of the five kinds, compared straight
        return (hand[0] >= need[0] and hand[1] >= need[1] and hand[2] >= need[2] and hand[3] >= need[3]
                and hand[4] >= need[4])
    return all(h >= n for h, n in zip(hand, need, strict=True))


def _set(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1:])


def _log(state: SporeState, seat: int, entry: LogEntry) -> tuple[tuple[LogEntry, ...], ...]:
    return _set(state.turn_log, seat, (*state.turn_log[seat], entry))


def _one(kind_index: int, count: int = 1) -> tuple[int, ...]:
    return tuple(count if index == kind_index else 0 for index in range(KIND_COUNT))


def founding_seat(seats: int, step: int) -> int:
    """Return who places in founding step ``step`` (snake order: 0, 1, …, n−1, n−1, …, 0)."""
    return step if step < seats else 2 * seats - 1 - step


def discard_count(hand: tuple[int, ...]) -> int:
    """Return how many cards a hand must discard on a 7 (half, rounded down, above 7 cards; else 0)."""
    total = sum(hand)
    return total // 2 if total > HAND_LIMIT else 0


def victims(state: SporeState, seat: int, field: int) -> list[int]:
    """Return the other seats with a building at ``field`` that hold cards, ascending."""
    found = {state.corner_owner[corner] for corner in FIELD_CORNERS[field]}
    return sorted(other for other in found if other not in (-1, seat) and sum(state.hands[other]) > 0)


# ---------------------------------------------------------------------------------------------------------
# Pending


def pending(state: SporeState) -> tuple[Pending, ...]:
    """Return who has to decide: the active seat, seats discarding, seats answering the open offer.

    The answer for the last state asked about is kept (``_PENDING``): the Engine and the module ask about
    the same state several times per move.
    """
    global _PENDING
    kept = _PENDING
    if kept is not None and kept[0] is state:
        return kept[1]
    result = _pending(state)
    _PENDING = (state, result)
    return result


_PENDING: tuple[SporeState, tuple[Pending, ...]] | None = None


def _pending(state: SporeState) -> tuple[Pending, ...]:
    phase = state.phase
    if phase == ENDE:
        return ()
    if phase == ABWERFEN:
        return tuple(Pending(seat, True, f"abwerfen-{state.turn}") for seat in range(state.seats)
                     if state.discard[seat] > 0)
    if phase == GRUENDUNG:
        return (Pending(state.current, True, f"gruendung-{state.founding}"),)
    name = f"schimmel{state.robberies}" if phase == SCHIMMEL else _DECISION_NAMES[phase]
    active = _must(state.current, f"{name}-{state.turn}")
    offer = state.offer
    if offer is None or phase != HAUPT:
        return (active,)
    asked = f"angebot-{state.turn}-{offer.number}"
    answering = [_must(seat, asked) for seat, answer in enumerate(offer.answers) if answer.kind == OPEN]
    if not answering:
        return (active,)
    # While answers are open the offering seat waits: it may act (trade with a "ja", withdraw, build, end
    # the turn) but need not, and its clock rests until the last answer is in (then its decision is new).
    return (Pending(state.current, False, active.decision), *answering)


_DECISION_NAMES = {WURF: "wurf", HAUPT: "zug", WUCHS_PHASE: "wuchsschub"}


def _must(seat: int, decision: str) -> Pending:
    """Return ``Pending(seat, True, decision)``, one shared (frozen) object for the same seat and decision."""
    key = (seat, decision)
    found = _MUSTS.get(key)
    if found is None:
        if len(_MUSTS) >= 1024:
            _MUSTS.clear()
        found = _MUSTS[key] = Pending(seat, True, decision)
    return found


_MUSTS: dict[tuple[int, str], Pending] = {}


def is_pending(state: SporeState, seat: int) -> bool:
    """True if the seat has an open decision."""
    return seat in [entry.seat for entry in pending(state)]


# ---------------------------------------------------------------------------------------------------------
# Legal moves


def legal_moves(state: SporeState, seat: int) -> list[Json]:
    """Return the seat's legal moves in canonical order (offers: a small canonical family)."""
    phase = state.phase
    if phase == ENDE:
        return []
    if phase == GRUENDUNG:
        if seat != state.current:
            return []
        if state.founding_corner == -1:
            return [{"fruchtkoerper": corner} for corner in building.founding_corners(state)]
        return [{"faden": edge} for edge in building.founding_edges(state, state.founding_corner)]
    if phase == ABWERFEN:
        need = state.discard[seat]
        return [{"abwerfen": bundle_json(choice)} for choice in _discards(state.hands[seat], need)] if need else []
    if seat != state.current:
        return _answers(state, seat)
    if phase == WURF:
        moves: list[Json] = [{"wuerfeln": True}]
        if _can_play(state, seat, WOLKE):
            moves.append({"ausspielen": "sporenwolke"})
        return moves
    if phase == SCHIMMEL:
        return _mold_moves(state, seat)
    if phase == WUCHS_PHASE:
        return [*({"faden": edge} for edge in building.spots(state, seat, "faden")), {"verzichten": True}]
    return _main_moves(state, seat)


def _answers(state: SporeState, seat: int) -> list[Json]:
    offer = state.offer
    if offer is None or state.phase != HAUPT or offer.answers[seat].kind != OPEN:
        return []
    moves: list[Json] = []
    if _covers(state.hands[seat], offer.take):
        moves.append({"antwort": JA})
    moves.append({"antwort": NEIN})
    # canonical counter-offers: one card of a kind the offerer wants (and the seat holds) for one card of
    # another kind, other than the offer's own 1:1 terms (that would be "ja")
    hand = state.hands[seat]
    mirror = _single(offer.take), _single(offer.give)
    for give in range(KIND_COUNT):
        if hand[give] and offer.take[give]:
            for take in range(KIND_COUNT):
                if take != give and (give, take) != mirror:
                    moves.append({"gegenangebot": {"gib": {KINDS[give]: 1}, "nimm": {KINDS[take]: 1}}})
    return moves


def _single(bundle: tuple[int, ...]) -> int:
    """Return the kind of a bundle of exactly one card, else -1."""
    if sum(bundle) != 1:
        return -1
    return bundle.index(1)


def _mold_moves(state: SporeState, seat: int) -> list[Json]:
    moves: list[Json] = []
    owners = state.corner_owner
    holding = [sum(hand) > 0 for hand in state.hands]
    for field in range(FIELD_COUNT):
        if field == state.mold:
            continue
        found = {owner for owner in map(owners.__getitem__, FIELD_CORNERS[field])
                 if owner != -1 and owner != seat and holding[owner]}  # ``victims``
        if found:
            moves.extend({"schimmel": field, "opfer": victim} for victim in sorted(found))
        else:
            moves.append({"schimmel": field})
    return moves


_PLAYABLE_CARDS = (WOLKE, WUCHSSCHUB, NAEHRQUELLE, NETZSOG)
_BUILD_COSTS = tuple((build, COSTS[build]) for build in BUILD_KEYS)
_COST_TOTALS = tuple(sum(COSTS[build]) for build in BUILD_KEYS)


def _main_moves(state: SporeState, seat: int) -> list[Json]:
    hand = state.hands[seat]
    rates = building.rates(state, seat)
    supply = state.supply
    on_board = state.pieces[seat]
    moves: list[Json] = []
    cards = sum(hand)
    for index, (build, cost) in enumerate(_BUILD_COSTS):
        # what pays first (the hand, else the canonical supply-trade plan), the places only when it pays
        if index == 3:  # mutation
            if not state.deck:
                continue
        elif on_board[index] >= LIMITS[build]:  # no piece left
            continue
        if (hand[0] >= cost[0] and hand[1] >= cost[1] and hand[2] >= cost[2] and hand[3] >= cost[3]
                and hand[4] >= cost[4]):
            plan: list[Json] = []
        else:
            if cards <= _COST_TOTALS[index]:  # each missing card takes at least 2 spare ones: no plan
                continue
            needed = spare = 0  # ``whatgoes.plan_for``'s first pass: no plan when it rejects there
            for kind_index in range(KIND_COUNT):
                short = cost[kind_index] - hand[kind_index]
                if short > 0:
                    if short > supply[kind_index]:
                        needed = -1
                        break
                    needed += short
                elif short < 0:
                    spare += -short // rates[kind_index]
            if needed < 0 or spare < needed:
                continue
            trades = _plan(hand, build, rates, supply)
            if trades is None:
                continue
            plan = whatgoes.trades_json(trades)
        extra = {"tausch": plan} if plan else {}
        if index == 3:
            moves.append({"mutation": True, **extra})
            continue
        places = building.spots(state, seat, build)
        moves.extend({build: place, **extra} for place in places)
    for give in range(KIND_COUNT):
        if hand[give] >= rates[give]:
            for take in range(KIND_COUNT):
                if take != give and supply[take] > 0:
                    moves.append({"vorrat": {"gib": KINDS[give], "nimm": KINDS[take]}})
    if not state.played_this_turn and state.cards[seat]:
        for card in _PLAYABLE_CARDS:
            if not _can_play(state, seat, card):
                continue
            if card == NAEHRQUELLE:
                moves.extend({"ausspielen": "naehrquelle", "rohstoffe": [KINDS[k] for k in pair]}
                             for pair in _nourish_choices(supply))
            elif card == NETZSOG:
                moves.extend({"ausspielen": "netzsog", "rohstoff": name} for name in KINDS)
            else:
                moves.append({"ausspielen": CARD_KEYS[card]})
    offer = state.offer
    if offer is not None:
        for other, answer in enumerate(offer.answers):
            if answer.kind in (JA, GEGEN) and _trade_terms(state, seat, other) is not None:
                moves.append({"handeln": other})
        moves.append({"zurueckziehen": True})
    elif state.offers_made < MAX_OFFERS and any(hand):
        most = hand.index(max(hand))  # the kind the seat holds most of (ties: the first)
        for take in range(KIND_COUNT):
            if take != most:
                moves.append({"angebot": {"gib": {KINDS[most]: 1}, "nimm": {KINDS[take]: 1}}})
    moves.append({"zug_beenden": True})
    return moves


def _plan(hand: tuple[int, ...], build: str, rates: tuple[int, ...],
          supply: tuple[int, ...]) -> tuple[whatgoes.Trade, ...] | None:
    """Return ``whatgoes.plan_for`` of the build, kept in ``_PLANS``: a turn with offers asks for the same hand
    many times."""
    key = (hand, build, rates, supply)
    found = _PLANS.get(key, _UNKNOWN)
    if found is _UNKNOWN:
        if len(_PLANS) >= 1024:
            _PLANS.clear()
        found = _PLANS[key] = whatgoes.plan_for(hand, build, rates, supply)
    return found


_PLANS: dict[tuple[tuple[int, ...], str, tuple[int, ...], tuple[int, ...]], tuple[whatgoes.Trade, ...] | None] = {}
_UNKNOWN: tuple[whatgoes.Trade, ...] = ((-1, -1),)


def _nourish_choices(supply: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Return the Nährquelle choices: pairs of kinds (sorted) the supply can pay; fewer if it cannot."""
    pairs = [(a, b) for a in range(KIND_COUNT) for b in range(a, KIND_COUNT)
             if supply[a] >= (2 if a == b else 1) and supply[b] >= 1]
    if pairs:
        return list(pairs)
    singles: list[tuple[int, ...]] = [(a,) for a in range(KIND_COUNT) if supply[a] >= 1]
    return singles or [()]


def _discards(hand: tuple[int, ...], need: int) -> list[tuple[int, ...]]:
    """Return every multiset of ``need`` cards from the hand, in canonical order."""
    result: list[tuple[int, ...]] = []

    def walk(index: int, left: int, chosen: list[int]) -> None:
        if index == KIND_COUNT - 1:
            if left <= hand[index]:
                result.append((*chosen, left))
            return
        for count in range(min(left, hand[index]), -1, -1):
            walk(index + 1, left - count, [*chosen, count])

    walk(0, need, [])
    return result


def _can_play(state: SporeState, seat: int, card: int) -> bool:
    """True if the seat may play this card now: it holds one not bought this turn, none played yet."""
    if state.played_this_turn:
        return False
    held = state.cards[seat].count(card)
    return held > state.bought.count(card)


def _trade_terms(state: SporeState, seat: int, other: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Return (active gives, active receives) of a trade with ``other`` if both hands pay it now, else None."""
    offer = state.offer
    if offer is None or other == seat or not 0 <= other < state.seats:
        return None
    answer = offer.answers[other]
    if answer.kind == JA:
        give, take = offer.give, offer.take
    elif answer.kind == GEGEN:
        give, take = answer.take, answer.give
    else:
        return None
    if not _covers(state.hands[seat], give) or not _covers(state.hands[other], take):
        return None
    return give, take


# ---------------------------------------------------------------------------------------------------------
# Applying


def apply(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects]:
    """Return the new state and its effects; raise IllegalMove (German reason) and leave the input as it was."""
    if _APPLIED is not None:
        done = _applied(state, seat, move)
        if done is not None:
            return done
    phase = state.phase
    if phase == GRUENDUNG:
        return _found(state, seat, move)
    if phase == ABWERFEN:
        return _discard(state, seat, move)
    if seat != state.current:
        return _answer(state, seat, move)
    if phase == WURF:
        new, effects = _before_roll(state, seat, move)
    elif phase == SCHIMMEL:
        new, effects = _move_mold(state, seat, move)
    elif phase == WUCHS_PHASE:
        new, effects = _free_thread(state, seat, move)
    else:
        new, effects = _main(state, seat, move)
    return _check_win(new, effects)


def _check_win(state: SporeState, effects: Effects) -> tuple[SporeState, Effects]:
    seat = state.current
    if state.phase in (GRUENDUNG, ENDE):
        return state, effects
    pieces = state.pieces[seat]
    if pieces[1] + 2 * pieces[2] + 2 * SPECIAL_POINTS + len(state.cards[seat]) < state.target:
        return state, effects  # not even with both special cards and every mutation card a Fund
    if scoring.points(state, seat) < state.target:
        return state, effects
    total = scoring.points(state, seat)
    effects.append(effect("sieg", f"{seat_name(seat)} erreicht {total} Siegpunkte und gewinnt.",
                          platz=seat, punkte=total))
    return evolve(state, phase=ENDE, winner=seat, offer=None), effects


def _found(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects]:
    if state.founding_corner == -1:
        keys_are(move, "fruchtkoerper", required=("fruchtkoerper",))
        corner = integer(move["fruchtkoerper"], 0, CORNER_COUNT - 1, "Diese Ecke")
        if not building.distance_ok(state, corner):
            raise IllegalMove("Dort ist kein Platz: Zwischen zwei Fruchtkörpern bleibt eine Ecke frei.", "distance")
        new = evolve(state, corner_owner=_set(state.corner_owner, corner, seat),
                     corner_level=_set(state.corner_level, corner, 1), founding_corner=corner,
                     pieces=_set(state.pieces, seat, _plus_piece(state.pieces[seat], 1)),
                     turn_log=_log(state, seat, ("fruchtkoerper", corner)))
        effects = [effect("gruendung.fruchtkoerper", f"{seat_name(seat)} setzt einen Fruchtkörper.",
                          platz=seat, ecke=corner)]
        if state.founding >= state.seats:
            gained = [0] * KIND_COUNT
            for field in CORNER_FIELDS[corner]:
                if state.fields[field] != DESERT:
                    gained[state.fields[field]] += 1
            got = tuple(min(g, s) for g, s in zip(gained, state.supply, strict=True))
            new = evolve(new, hands=_set(new.hands, seat, _add(new.hands[seat], got)),
                         supply=_sub(new.supply, got))
            effects.append(effect("gruendung.ertrag", f"{seat_name(seat)} erhält {bundle_words(got)}.",
                                  platz=seat, rohstoffe=bundle_json(got)))
        return new, effects
    keys_are(move, "faden", required=("faden",))
    edge = integer(move["faden"], 0, EDGE_COUNT - 1, "Diese Kante")
    if state.founding_corner not in EDGE_CORNERS[edge] or state.edge_owner[edge] != -1:
        raise IllegalMove("Der Myzelfaden muss frei am neuen Fruchtkörper liegen.", "not_adjacent")
    step = state.founding + 1
    new = evolve(state, edge_owner=_set(state.edge_owner, edge, seat), founding_corner=-1, founding=step,
                 pieces=_set(state.pieces, seat, _plus_piece(state.pieces[seat], 0)),
                 turn_log=_log(state, seat, ("faden", edge)))
    new = _update_trails(new)
    effects = [effect("gruendung.faden", f"{seat_name(seat)} legt einen Myzelfaden.", platz=seat, kante=edge)]
    if step < 2 * state.seats:
        nxt = founding_seat(state.seats, step)
        return evolve(new, current=nxt), effects
    effects.append(effect("zug", "Die Gründung ist vorbei. Platz 1 beginnt.", platz=0, zug=1))
    return evolve(new, current=0, turn=1, phase=WURF, turn_log=((),) * state.seats), effects


def _plus_piece(pieces: tuple[int, int, int], index: int, delta: int = 1) -> tuple[int, int, int]:
    values = list(pieces)
    values[index] += delta
    return (values[0], values[1], values[2])


def _update_trails(state: SporeState, changed: tuple[int, ...] | None = None) -> SporeState:
    """Return the state with the trails of the ``changed`` seats (None: all) recomputed and Weitestes Geflecht
    passed on accordingly."""
    if changed is None:
        lengths = specials.trails(state)
    else:
        if not changed:
            return state
        values = list(state.trail)
        for other in changed:
            values[other] = specials.longest_trail(state.edge_owner, state.corner_owner, other)
        lengths = tuple(values)
    return _set_trails(state, lengths)


def _set_trails(state: SporeState, lengths: tuple[int, ...]) -> SporeState:
    """Return the state with these trail lengths and Weitestes Geflecht passed on accordingly."""
    holder = specials.longest_holder(state.longest_holder, lengths)
    if lengths == state.trail and holder == state.longest_holder:
        return state
    return evolve(state, trail=lengths, longest_holder=holder)


_AFTER_ROLL_KEYS = frozenset({*BUILD_KEYS, "vorrat", "angebot", "handeln", "zurueckziehen", "zug_beenden"})


def _before_roll(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects]:
    if "ausspielen" in move:
        return _play(state, seat, move)
    if not _AFTER_ROLL_KEYS.isdisjoint(move):
        raise IllegalMove("Erst würfeln: Handeln, Bauen und das Zugende kommen nach dem Wurf.", "not_rolled")
    keys_are(move, "wuerfeln", required=("wuerfeln",))
    if move["wuerfeln"] is not True:
        raise malformed()
    return _roll(state, seat)


def _roll(state: SporeState, seat: int) -> tuple[SporeState, Effects]:
    pair, deck, seen, shuffles = dice.roll(state)
    total = pair[0] + pair[1]
    rolls = state.rolls + 1
    log = _log(state, seat, ("wurf", total))
    effects = [effect("wurf", f"{seat_name(seat)} würfelt {pair[0]} und {pair[1]}: {total}.",
                      platz=seat, wuerfel=list(pair), summe=total)]
    if shuffles != state.shuffles:
        effects.append(effect("wuerfelstapel", "Der Sporenstapel wird neu gemischt.", mischungen=shuffles))
    if total != 7:
        hands, supply, record = dice.harvest(state, total, pair, rolls)
        if hands is state.hands:  # nobody received anything
            return evolve(state, dice=pair, dice_deck=deck, dice_seen=seen, shuffles=shuffles, rolls=rolls,
                          rolled=True, turn_log=log, last_yield=record, phase=HAUPT), effects
        gained = [sum(line[3] for line in lines) for lines in record.received]
        new = evolve(state, dice=pair, dice_deck=deck, dice_seen=seen, shuffles=shuffles, rolls=rolls,
                     rolled=True, turn_log=log, hands=hands, supply=supply, last_yield=record, phase=HAUPT,
                     harvest=tuple(h + g for h, g in zip(state.harvest, gained, strict=True)))
        for other in range(state.seats):
            if hands[other] is not state.hands[other]:
                got = _sub(hands[other], state.hands[other])
                effects.append(effect("ertrag", f"{seat_name(other)} erhält {bundle_words(got)}.",
                                      platz=other, rohstoffe=bundle_json(got)))
        for kind_index in record.short:
            effects.append(effect("knapp", f"Der Vorrat reicht nicht: {KIND_NAMES[kind_index]} bekommt niemand.",
                                  rohstoff=KINDS[kind_index]))
        return new, effects
    need = tuple(discard_count(hand) for hand in state.hands)
    effects.append(effect("sieben", "Eine 7: kein Ertrag. Wer mehr als 7 Karten hat, wirft die Hälfte ab.",
                          abwerfen=list(need)))
    discarding = any(need)
    new = evolve(state, dice=pair, dice_deck=deck, dice_seen=seen, shuffles=shuffles, rolls=rolls, rolled=True,
                 turn_log=log, last_yield=None, after_mold=HAUPT, phase=ABWERFEN if discarding else SCHIMMEL,
                 discard=need if discarding else state.discard)
    return new, effects


def _discard(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects]:
    need = state.discard[seat]
    if need == 0:
        raise IllegalMove("Du musst nichts abwerfen.", "not_your_turn")
    keys_are(move, "abwerfen")
    chosen = chosen_total(move.get("abwerfen", {}))
    if chosen is not None and chosen != need:  # a choice of cards with the wrong count: the rule, not a format
        raise IllegalMove(f"Wirf genau {need} {'Karte' if need == 1 else 'Karten'} ab "
                          f"(gewählt: {chosen}).", "wrong_count")
    counts = bundle(move["abwerfen"])
    if sum(counts) != need:
        raise IllegalMove(f"Wirf genau {need} {'Karte' if need == 1 else 'Karten'} ab.", "wrong_count")
    if not _covers(state.hands[seat], counts):
        raise IllegalMove("So viele Karten dieser Sorte hast du nicht.", "not_in_hand")
    discard = _set(state.discard, seat, 0)
    new = evolve(state, hands=_set(state.hands, seat, _sub(state.hands[seat], counts)),
                 supply=_add(state.supply, counts), discard=discard,
                 turn_log=_log(state, seat, ("abwerfen", need)))
    effects = [effect("abwerfen", f"{seat_name(seat)} wirft {bundle_words(counts)} ab.",
                      platz=seat, rohstoffe=bundle_json(counts))]
    if not any(discard):
        new = evolve(new, phase=SCHIMMEL)
    return new, effects


def _move_mold(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects]:
    keys_are(move, "schimmel", "opfer", required=("schimmel",))
    field = integer(move["schimmel"], 0, FIELD_COUNT - 1, "Dieses Feld")
    if field == state.mold:
        raise IllegalMove("Der Schimmel muss auf ein anderes Feld.", "same_field")
    found = victims(state, seat, field)
    victim = -1
    if found:
        if "opfer" not in move:
            raise IllegalMove("Wähle, wem du eine Karte nimmst.", "no_victim")
        victim = integer(move["opfer"], 0, state.seats - 1, "Diesen Platz")
        if victim not in found:
            raise IllegalMove("Dieser Spieler hat dort keinen Bau oder keine Karten.", "bad_victim")
    elif "opfer" in move:
        raise IllegalMove("An diesem Feld kannst du niemandem eine Karte nehmen.", "bad_victim")
    effects = [effect("schimmel", f"{seat_name(seat)} versetzt den Schimmel auf {FIELD_NAMES[state.fields[field]]} "
                      f"({state.numbers[field] or 'ohne Zahl'}).", platz=seat, feld=field)]
    new = evolve(state, mold=field, phase=state.after_mold, turn_log=_log(state, seat, ("schimmel", field, victim)))
    if victim >= 0:
        hand = state.hands[victim]
        cards = [k for k in range(KIND_COUNT) for _ in range(hand[k])]
        robbed = SeededRng(state.seed, f"speedspore/raub/{state.robberies + 1}").choice(cards)
        one = _one(robbed)
        new = evolve(new, robberies=state.robberies + 1,
                     hands=_set(_set(new.hands, victim, _sub(hand, one)), seat, _add(new.hands[seat], one)))
        effects.append(effect("raub", f"{seat_name(seat)} nimmt {seat_name(victim)} eine Karte.",
                              platz=seat, opfer=victim))
        effects.append(effect("raub.karte", f"{seat_name(seat)} nimmt {seat_name(victim)} 1 {KIND_NAMES[robbed]}.",
                              (min(seat, victim), max(seat, victim)), platz=seat, opfer=victim,
                              rohstoff=KINDS[robbed]))
    return new, effects


def _free_thread(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects]:
    if "verzichten" in move:
        keys_are(move, "verzichten")
        if move["verzichten"] is not True:
            raise malformed()
        return evolve(state, phase=HAUPT if state.rolled else WURF, free_threads=0,
                      turn_log=_log(state, seat, ("verzichtet",))), [
            effect("verzichtet", f"{seat_name(seat)} verzichtet auf den Rest des Wuchsschubs.", platz=seat)]
    keys_are(move, "faden", required=("faden",))
    edge = integer(move["faden"], 0, EDGE_COUNT - 1, "Diese Kante")
    if building.pieces_left(state, seat, "faden") <= 0 or not building.thread_ok(state, seat, edge):
        raise IllegalMove("Dort kann dein Myzelfaden nicht wachsen.", "bad_place")
    new = _place(state, seat, "faden", edge)
    left = state.free_threads - 1
    if left <= 0 or not building.spots(new, seat, "faden"):
        new = evolve(new, phase=HAUPT if state.rolled else WURF, free_threads=0)
    else:
        new = evolve(new, free_threads=left)
    new = evolve(new, turn_log=_log(state, seat, ("gratis_faden", edge)))
    return new, [effect("gratis_faden", f"{seat_name(seat)} legt einen Myzelfaden gratis.", platz=seat, kante=edge)]


def _place(state: SporeState, seat: int, build: str, place: int, **changes: Any) -> SporeState:
    """Return the state with the piece placed (no cost) and ``changes`` made, trails and Geflecht updated."""
    pieces = state.pieces[seat]
    if build == "faden":
        new = evolve(state, edge_owner=_set(state.edge_owner, place, seat),
                     pieces=_set(state.pieces, seat, _plus_piece(pieces, 0)), **changes)
    elif build == "fruchtkoerper":
        new = evolve(state, corner_owner=_set(state.corner_owner, place, seat),
                     corner_level=_set(state.corner_level, place, 1),
                     pieces=_set(state.pieces, seat, _plus_piece(pieces, 1)), **changes)
    else:
        new = evolve(state, corner_level=_set(state.corner_level, place, 2),
                     pieces=_set(state.pieces, seat, _plus_piece(_plus_piece(pieces, 1, -1), 2)), **changes)
        return new  # a tower changes no trail
    if build == "faden":  # a thread lengthens only its own seat's trails, and only those through it
        length = max(new.trail[seat], specials.longest_through(new.edge_owner, new.corner_owner, seat, place))
        return _set_trails(new, _set(new.trail, seat, length))
    # a Fruchtkörper leaves its own seat's trails as they were and may break those of others through its corner
    edges = state.edge_owner
    broken = {edges[edge] for edge in CORNER_EDGES[place]}
    return _update_trails(new, tuple(sorted(other for other in broken if other not in (-1, seat))))


def _main(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects]:
    if "ausspielen" in move:
        return _play(state, seat, move)
    for key in BUILD_KEYS:
        if key in move:
            return _build(state, seat, key, move)
    if "vorrat" in move:
        keys_are(move, "vorrat")
        give, take = supply_trade(move["vorrat"])
        new, line = _supply_trade(state, seat, give, take)
        return new, [line]
    if "angebot" in move:
        return _offer(state, seat, move)
    if "handeln" in move:
        return _trade(state, seat, move)
    if "zurueckziehen" in move:
        keys_are(move, "zurueckziehen")
        if move["zurueckziehen"] is not True:
            raise malformed()
        if state.offer is None:
            raise IllegalMove("Es gibt kein offenes Angebot.", "no_offer")
        return evolve(state, offer=None), [effect("zurueckgezogen", f"{seat_name(seat)} zieht das Angebot zurück.",
                                                  platz=seat)]
    if "zug_beenden" in move:
        keys_are(move, "zug_beenden")
        if move["zug_beenden"] is not True:
            raise malformed()
        return _end_turn(state, seat)
    if "wuerfeln" in move:
        raise IllegalMove("Du hast in diesem Zug schon gewürfelt.", "already_rolled")
    raise malformed()


def _end_turn(state: SporeState, seat: int) -> tuple[SporeState, Effects]:
    nxt = (seat + 1) % state.seats
    new = evolve(state, current=nxt, turn=state.turn + 1, phase=WURF, rolled=False, bought=(),
                 played_this_turn=False, offer=None, offers_made=0, turn_log=_set(state.turn_log, nxt, ()))
    return new, [effect("zug_ende", f"{seat_name(seat)} beendet den Zug. {seat_name(nxt)} ist dran.",
                        platz=seat, naechster=nxt, zug=state.turn + 1)]


def _supply_trade(state: SporeState, seat: int, give: int, take: int) -> tuple[SporeState, Json]:
    rate = building.rates(state, seat)[give]
    hand = state.hands[seat]
    if hand[give] < rate:
        raise IllegalMove(f"Für diesen Tausch brauchst du {rate} {KIND_NAMES[give]}.", "not_in_hand")
    if state.supply[take] < 1:
        raise IllegalMove(f"Der Vorrat hat kein {KIND_NAMES[take]} mehr.", "supply_empty")
    delta = _sub(_one(take), _one(give, rate))
    new = evolve(state, hands=_set(state.hands, seat, _add(hand, delta)), supply=_sub(state.supply, delta),
                 trades=_set(state.trades, seat, state.trades[seat] + 1),
                 turn_log=_log(state, seat, ("vorrat", give, rate, take)))
    line = effect("vorrat", f"{seat_name(seat)} tauscht {rate} {KIND_NAMES[give]} gegen {KIND_NAMES[take]} "
                  f"({rate}:1).", platz=seat, gib=KINDS[give], anzahl=rate, nimm=KINDS[take])
    return new, line


def _build(state: SporeState, seat: int, key: str, move: Json) -> tuple[SporeState, Effects]:
    keys_are(move, key, "tausch", required=(key,))
    effects: Effects = []
    if key == "mutation":
        if move[key] is not True:
            raise malformed()
        place = -1
    else:
        place = integer(move[key], 0, (EDGE_COUNT if key == "faden" else CORNER_COUNT) - 1,
                        "Diese Kante" if key == "faden" else "Diese Ecke")
    new = state
    if "tausch" in move:
        for give, take in trade_list(move["tausch"]):
            new, line = _supply_trade(new, seat, give, take)
            effects.append(line)
    if not building.affordable(new.hands[seat], key):  # the reason is only looked for when the hand lacks cards
        reason = screens.missing_reason(new, seat, key)
        if reason is not None:
            raise IllegalMove(reason, "cannot_pay")
    if key == "mutation":
        if not new.deck:
            raise IllegalMove("Der Mutationsstapel ist leer.", "deck_empty")
    else:
        if building.pieces_left(new, seat, key) <= 0:
            raise IllegalMove(f"Du hast keine {BUILD_NAMES[key]} mehr.", "no_pieces")
        ok = {"faden": building.thread_ok, "fruchtkoerper": building.fk_ok}.get(key)
        if ok is not None and not ok(new, seat, place):
            raise IllegalMove(f"Dort kannst du keinen {BUILD_NAMES[key]} bauen.", "bad_place")
        if key == "turm" and (new.corner_owner[place] != seat or new.corner_level[place] != 1):
            raise IllegalMove("Ein Sporenturm ersetzt einen eigenen Fruchtkörper.", "bad_place")
    if not building.affordable(new.hands[seat], key):
        raise IllegalMove(f"Dafür fehlen dir Rohstoffe: {bundle_words(COSTS[key])}.", "cannot_pay")
    cost = COSTS[key]
    hands, supply = _set(new.hands, seat, _sub(new.hands[seat], cost)), _add(new.supply, cost)
    if key == "mutation":
        card = new.deck[-1]
        new = evolve(new, hands=hands, supply=supply, deck=new.deck[:-1],
                     cards=_set(new.cards, seat, tuple(sorted((*new.cards[seat], card)))),
                     bought=(*new.bought, card), turn_log=_log(new, seat, ("kauft",)))
        effects.append(effect("kauft", f"{seat_name(seat)} kauft eine Mutation.", platz=seat))
        effects.append(effect("kauft.karte", f"Du ziehst {CARD_NAMES[card]}.", (seat,), karte=CARD_KEYS[card]))
        return new, effects
    new = _place(new, seat, key, place, hands=hands, supply=supply, turn_log=_log(new, seat, (key, place)))
    where = {"faden": "kante", "fruchtkoerper": "ecke", "turm": "ecke"}[key]
    effects.append(effect(f"bau.{key}", f"{seat_name(seat)} baut {_article(key)}.", None, platz=seat, **{where: place}))
    return new, effects


def _article(key: str) -> str:
    return {"faden": "einen Myzelfaden", "fruchtkoerper": "einen Fruchtkörper", "turm": "einen Sporenturm"}[key]


def _play(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects]:
    name = move.get("ausspielen")
    if type(name) is not str or name not in CARD_INDEX:
        raise IllegalMove("Diese Mutation gibt es nicht.", "unknown_card")
    card = CARD_INDEX[name]
    extra = {NAEHRQUELLE: ("rohstoffe",), NETZSOG: ("rohstoff",)}.get(card, ())
    keys_are(move, "ausspielen", *extra, required=("ausspielen", *extra))
    if card not in (WOLKE, WUCHSSCHUB, NAEHRQUELLE, NETZSOG):
        raise IllegalMove("Ein Fund wird nicht ausgespielt: er zählt von selbst.", "not_playable")
    if state.phase == WURF and card != WOLKE:
        raise IllegalMove("Vor dem Würfeln geht nur eine Sporenwolke.", "wrong_phase")
    if state.played_this_turn:
        raise IllegalMove("Du hast in diesem Zug schon eine Mutation ausgespielt.", "played")
    if state.cards[seat].count(card) == 0:
        raise IllegalMove(f"Du hast keine {CARD_NAMES[card]}.", "not_in_hand")
    if state.cards[seat].count(card) <= state.bought.count(card):
        raise IllegalMove("Eine in diesem Zug gekaufte Mutation kannst du erst später ausspielen.", "bought")
    kinds: tuple[int, ...] = ()
    if card == NAEHRQUELLE:
        raw = move["rohstoffe"]
        if type(raw) is not list or len(raw) > 2:
            raise IllegalMove("Nenne bis zu zwei Rohstoffe.", "malformed")
        kinds = tuple(kind(item) for item in raw)
        if kinds not in _nourish_choices(state.supply):
            raise IllegalMove("So viel hat der Vorrat nicht (oder die Sorten sind nicht sortiert).", "supply_empty")
    target = kind(move["rohstoff"]) if card == NETZSOG else -1
    mine = list(state.cards[seat])
    mine.remove(card)
    new = evolve(state, cards=_set(state.cards, seat, tuple(mine)), played=_set(state.played, seat,
                 (*state.played[seat], card)), played_this_turn=True, offer=None,
                 turn_log=_log(state, seat, ("spielt", card)))
    effects = [effect("spielt", f"{seat_name(seat)} spielt {CARD_NAMES[card]}.", platz=seat, karte=name)]
    if card == WOLKE:
        holder = specials.largest_holder(new, seat)
        if holder != new.largest_holder:
            effects.append(effect("wolke", f"{seat_name(seat)} hat jetzt die Größte Sporenwolke.", platz=seat))
        return evolve(new, largest_holder=holder, phase=SCHIMMEL, after_mold=state.phase), effects
    if card == WUCHSSCHUB:
        if not building.spots(new, seat, "faden"):
            return new, effects
        return evolve(new, phase=WUCHS_PHASE, free_threads=2), effects
    if card == NAEHRQUELLE:
        got = [0] * KIND_COUNT
        for index in kinds:
            got[index] += 1
        gained = tuple(got)
        new = evolve(new, hands=_set(new.hands, seat, _add(new.hands[seat], gained)), supply=_sub(new.supply, gained),
                     turn_log=_log(new, seat, ("naehrquelle", *kinds)))
        effects.append(effect("naehrquelle", f"{seat_name(seat)} nimmt {bundle_words(gained)} aus dem Vorrat.",
                              platz=seat, rohstoffe=bundle_json(gained)))
        return new, effects
    hands = list(new.hands)
    total = 0
    given: dict[str, int] = {}
    for other in range(state.seats):
        if other != seat and hands[other][target]:
            amount = hands[other][target]
            total += amount
            given[str(other)] = amount
            hands[other] = _sub(hands[other], _one(target, amount))
    hands[seat] = _add(hands[seat], _one(target, total))
    new = evolve(new, hands=tuple(hands), turn_log=_log(new, seat, ("netzsog", target, total)))
    effects.append(effect("netzsog", f"Alle anderen geben {seat_name(seat)} ihr {KIND_NAMES[target]}: {total} Karten.",
                          platz=seat, rohstoff=KINDS[target], anzahl=total, von=given))
    return new, effects


_SELF_ANSWER, _OPEN_ANSWER, _YES, _NO = Answer(SELF), Answer(OPEN), Answer(JA), Answer(NEIN)
"""The answers without cards (frozen: one shared object each)."""


def _offer(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects]:
    keys_are(move, "angebot")
    give, take = give_take(move["angebot"])
    if state.offers_made >= MAX_OFFERS:
        raise IllegalMove(f"Mehr als {MAX_OFFERS} Angebote je Zug gehen nicht.", "too_many_offers")
    if not _covers(state.hands[seat], give):
        raise IllegalMove("So viele Karten hast du nicht.", "not_in_hand")
    answers = tuple(_SELF_ANSWER if other == seat else _OPEN_ANSWER for other in range(state.seats))
    number = state.offers_made + 1
    new = evolve(state, offer=Offer(number, give, take, answers), offers_made=number)
    return new, [effect("angebot", f"{seat_name(seat)} bietet {bundle_words(give)} für {bundle_words(take)}.",
                        platz=seat, gib=bundle_json(give), nimm=bundle_json(take), nummer=number)]


def _answer(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects]:
    offer = state.offer
    if offer is None or state.phase != HAUPT or offer.answers[seat].kind != OPEN:
        raise IllegalMove("Du bist gerade nicht am Zug.", "not_your_turn")
    if "gegenangebot" in move:
        keys_are(move, "gegenangebot")
        give, take = give_take(move["gegenangebot"])
        if not _covers(state.hands[seat], give):
            raise IllegalMove("So viele Karten hast du nicht.", "not_in_hand")
        answer = Answer(GEGEN, give, take)
        text = f"{seat_name(seat)} bietet stattdessen {bundle_words(give)} für {bundle_words(take)}."
        params: Json = {"platz": seat, "antwort": GEGEN, "gib": bundle_json(give), "nimm": bundle_json(take)}
    else:
        keys_are(move, "antwort", required=("antwort",))
        value = move["antwort"]
        if value not in (JA, NEIN) or type(value) is not str:
            raise IllegalMove("Antworte mit „ja“ oder „nein“.", "malformed")
        if value == JA and not _covers(state.hands[seat], offer.take):
            raise IllegalMove("Dafür hast du nicht genug Karten.", "not_in_hand")
        answer = _YES if value == JA else _NO
        text = f"{seat_name(seat)} sagt {value}."
        params = {"platz": seat, "antwort": value}
    new = evolve(state, offer=evolve(offer, answers=_set(offer.answers, seat, answer)))
    return new, [effect("antwort", text, **params)]


def _trade(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects]:
    keys_are(move, "handeln")
    other = integer(move["handeln"], 0, state.seats - 1, "Diesen Platz")
    terms = _trade_terms(state, seat, other)
    if terms is None:
        raise IllegalMove("Mit diesem Spieler gibt es gerade keinen Handel.", "no_trade")
    give, take = terms
    hands = _set(state.hands, seat, _add(_sub(state.hands[seat], give), take))
    hands = _set(hands, other, _add(_sub(hands[other], take), give))
    trades = _set(_set(state.trades, seat, state.trades[seat] + 1), other, state.trades[other] + 1)
    new = evolve(state, hands=hands, trades=trades, offer=None,
                 turn_log=_log(state, seat, ("handel", other, *give, *take)))
    return new, [effect("handel", f"{seat_name(seat)} tauscht mit {seat_name(other)}: {bundle_words(give)} gegen "
                        f"{bundle_words(take)}.", platz=seat, partner=other, gib=bundle_json(give),
                        nimm=bundle_json(take))]


# ---------------------------------------------------------------------------------------------------------
# Timeouts and undo


def timeout_move(state: SporeState, seat: int) -> Json | None:
    """Return the move made when the seat's think time runs out (roll, end the turn, a fixed choice, "nein")."""
    phase = state.phase
    if phase == ENDE or not is_pending(state, seat):
        return None
    if phase == ABWERFEN:
        hand = list(state.hands[seat])
        counts = [0] * KIND_COUNT
        for _ in range(state.discard[seat]):
            most = max(range(KIND_COUNT), key=lambda k: (hand[k], -k))
            hand[most] -= 1
            counts[most] += 1
        return {"abwerfen": bundle_json(tuple(counts))}
    if seat != state.current:
        return {"antwort": NEIN}
    if phase == WURF:
        return {"wuerfeln": True}
    if phase == HAUPT:
        return {"zug_beenden": True}
    if phase == WUCHS_PHASE:
        return {"verzichten": True}
    if phase == GRUENDUNG:
        return _founding_timeout(state)
    return _mold_timeout(state, seat)


PIPS: tuple[int, ...] = (0, 0, 1, 2, 3, 4, 5, 0, 5, 4, 3, 2, 1)
"""Per number token how many of the 36 rolls bring it (the dots under the number)."""


def corner_pips(state: SporeState, corner: int) -> int:
    """Return the dots of the yielding fields at a corner (the Autobahnkreuz has none)."""
    return sum(PIPS[state.numbers[field]] for field in CORNER_FIELDS[corner] if state.fields[field] != DESERT)


def _founding_timeout(state: SporeState) -> Json:
    """Founding on a timeout: the free corner with the most dots (ties: lowest id), then the thread towards
    the neighbouring corner with the most dots (ties: lowest edge id)."""
    if state.founding_corner == -1:
        corners = building.founding_corners(state)
        return {"fruchtkoerper": max(corners, key=lambda corner: (corner_pips(state, corner), -corner))}
    here = state.founding_corner

    def far(edge: int) -> int:
        a, b = EDGE_CORNERS[edge]
        return corner_pips(state, b if a == here else a)

    edges = building.founding_edges(state, here)
    return {"faden": max(edges, key=lambda edge: (far(edge), -edge))}


def _mold_timeout(state: SporeState, seat: int) -> Json:
    """Moving the mold on a timeout: a field touching none of the seat's own buildings where it harms the
    others most (dots × building level), ties by lowest id; robbing the victim with most cards (ties: lowest
    seat)."""

    def key(field: int) -> tuple[bool, int, int]:
        own = any(state.corner_owner[corner] == seat for corner in FIELD_CORNERS[field])
        dots = 0 if state.fields[field] == DESERT else PIPS[state.numbers[field]]
        harm = sum(dots * state.corner_level[corner] for corner in FIELD_CORNERS[field]
                   if state.corner_owner[corner] not in (-1, seat))
        return (own, -harm, field)

    field = min((field for field in range(FIELD_COUNT) if field != state.mold), key=key)
    found = victims(state, seat, field)
    if not found:
        return {"schimmel": field}
    return {"schimmel": field, "opfer": max(found, key=lambda other: (sum(state.hands[other]), -other))}


def undoable(state: SporeState, seat: int, move: Json) -> bool:
    """True for builds (threads, Fruchtkörper, towers, with their supply trades) and supply trades, unless the
    build wins the game.

    Whether a build wins takes applying it; the result is kept (``_APPLIED``) for the ``apply`` of the same
    state, seat and move that follows in the Engine, so the move is applied once, not twice.
    """
    global _APPLIED
    if state.phase != HAUPT or seat != state.current:
        return False
    if not ("vorrat" in move or any(key in move for key in ("faden", "fruchtkoerper", "turm"))):
        return False
    try:
        after, effects = apply(state, seat, move)
    except IllegalMove:
        return False
    _APPLIED = (state, seat, move, _copy_json(move), after, effects)
    return after.phase != ENDE  # a build that wins ends the game: nothing to take back


_APPLIED: tuple[SporeState, int, Json, Json, SporeState, Effects] | None = None
"""The last move ``undoable`` applied: (state, seat, the move, a copy of it as it was, the new state, effects).
``apply`` hands it out once for the very same state and move object, unchanged since (states are immutable)."""


def _copy_json(value: Any) -> Any:
    if type(value) is dict:
        return {key: _copy_json(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy_json(item) for item in value]
    return value


def _applied(state: SporeState, seat: int, move: Json) -> tuple[SporeState, Effects] | None:
    """Return (and forget) what ``undoable`` computed for exactly this apply, else None."""
    global _APPLIED
    kept = _APPLIED
    if kept is None or kept[0] is not state or kept[1] != seat or kept[2] is not move:
        return None
    _APPLIED = None
    if kept[3] != move:  # the move was changed in between: apply it anew
        return None
    return kept[4], kept[5]
