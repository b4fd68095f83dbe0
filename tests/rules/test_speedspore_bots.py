"""Speedspore's computer players (issue 12, point 9): every decision, offers and answers, the winning build,
advice, determinism.

Strength and decision times are measured by ``make bench`` (tools/bench.py: the 4-seat ladder); here only
cheap behavioural checks on seeded positions.
"""

from __future__ import annotations

import pytest

from libs.rules import registry
from libs.rules.engine import Engine, Position
from libs.rules.evolve import evolve
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speedspore import MODULE
from libs.rules.speedspore.building import rates
from libs.rules.speedspore.material import KINDS, WUCHSSCHUB
from libs.rules.speedspore.state import ABWERFEN, HAUPT, SCHIMMEL, Answer, Offer
from services.bot.policies import advise, decide
from services.bot.policies.registry import dedicated
from services.bot.policies.speedspore_bots import POLICY

RULES = MODULE.rules_id
LEVELS = ("easy", "normal", "strong")


def _engine() -> Engine:
    return registry.engine(RULES)


def _step(engine: Engine, position: Position, level: str, number: int) -> Position:
    """Let the last seat that must act decide at ``level`` (answers before the offering seat) and apply it."""
    seat = engine.must_act(position)[-1]
    move = decide(RULES, engine.view(position, seat), seat, level, SeededRng(f"spore-{number}".encode()))
    assert move is not None
    return engine.apply(position, seat, move).position


def _main_phase(seed: bytes = b"bots", seats: int = 4) -> Position:
    """Return the first main phase after founding and the first roll (normal bots placing)."""
    engine = _engine()
    position = engine.start(engine.normalize_config({}, seats), seats, seed)
    number = 0
    while not (position.state.phase == HAUPT and position.state.offer is None):
        position = _step(engine, position, "normal", number)
        number += 1
    return position


def _with(position: Position, **changes: object) -> Position:
    """Return the position with the state's fields changed; new hands take their cards from the supply."""
    if "hands" in changes:
        hands = changes["hands"]
        assert isinstance(hands, tuple)
        changes["supply"] = tuple(19 - sum(hand[k] for hand in hands) for k in range(5))
    state = evolve(position.state, **changes)
    return _engine().from_state(state, state.seats)


def _hand(**counts: int) -> tuple[int, ...]:
    return tuple(counts.get(kind, 0) for kind in KINDS)


def _accepted(engine: Engine, position: Position, seat: int, move: Json | None) -> bool:
    """True if the engine takes the move (listed, or an open move such as a counter-offer)."""
    if move is None:
        return False
    engine.apply(position, seat, move)
    return move in engine.legal_moves(position, seat) or any(key in MODULE.spec.open_moves for key in move)


def _positions() -> list[tuple[str, Position, int]]:
    """Seeded positions of every kind of decision: founding (corner, thread), roll, main, answer, discard, mold,
    free threads."""
    engine = _engine()
    start = engine.start(engine.normalize_config({}, 4), 4, b"phases")
    result: list[tuple[str, Position, int]] = [("gruendung", start, 0)]
    after_corner = _step(engine, start, "normal", 0)
    result.append(("gruendung-faden", after_corner, after_corner.state.current))
    main = _main_phase(b"phases")
    seat = main.state.current
    result.append(("haupt", main, seat))
    before_roll = _with(main, phase="wurf", rolled=False)
    result.append(("wurf", before_roll, seat))
    offering = _with(main, hands=tuple(_hand(humus=2, moos=1) if s == seat else _hand(moos=2, mineralien=1)
                                        for s in range(4)))
    offered = engine.apply(offering, seat, {"angebot": {"gib": {"humus": 1}, "nimm": {"moos": 1}}}).position
    answering = (seat + 1) % 4
    result.append(("antwort", offered, answering))
    discard = (0, 4, 0, 0)
    discarding = _with(main, phase=ABWERFEN, discard=discard,
                       hands=tuple(_hand(totholz=3, humus=2, moos=2, regenwasser=1) if s == 1 else _hand()
                                   for s in range(4)))
    result.append(("abwerfen", discarding, 1))
    result.append(("schimmel", _with(main, phase=SCHIMMEL, after_mold=HAUPT), seat))
    with_card = _with(main, cards=tuple((WUCHSSCHUB,) if s == seat else () for s in range(4)), bought=())
    growing = engine.apply(with_card, seat, {"ausspielen": "wuchsschub"}).position
    result.append(("wuchsschub", growing, seat))
    return result


@pytest.fixture(scope="module")
def positions() -> list[tuple[str, Position, int]]:
    return _positions()


def test_speedspore_has_its_own_policy() -> None:
    view = MODULE.view(MODULE.setup(MODULE.normalize_config({}, 3), 3, b"x"), 0)
    assert dedicated(RULES, view) is POLICY


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_decides_every_kind_of_decision_legally(level: str,
                                                           positions: list[tuple[str, Position, int]]) -> None:
    engine = _engine()
    for name, position, seat in positions:
        move = decide(RULES, engine.view(position, seat), seat, level, SeededRng(b"legal"))
        assert _accepted(engine, position, seat, move), (name, move)


def _offer_to_seat0(needs: bool) -> Position:
    """Seat 1 offers 1 Mineralien for 1 Humus; seat 0 holds 2 Regenwasser and 2 Mineralien (a tower lacks one
    Mineralien) and a spare Humus. ``needs`` False: seat 0 already holds the 3 Mineralien."""
    main = _main_phase(b"angebot")
    state = main.state
    hands = list(state.hands)
    hands[0] = _hand(humus=1, regenwasser=2, mineralien=3 if needs is False else 2)
    hands[1] = _hand(mineralien=2, totholz=1)
    state = evolve(state, current=1, hands=tuple(hands), supply=tuple(19 - sum(h[k] for h in hands)
                                                                     for k in range(5)), phase=HAUPT, rolled=True,
                   offer=Offer(1, _hand(mineralien=1), _hand(humus=1),
                               tuple(Answer("-") if s == 1 else Answer("") for s in range(4))), offers_made=1)
    return _engine().from_state(state, 4)


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_an_offer_that_brings_what_the_bot_needs_gets_a_yes(level: str) -> None:
    position = _offer_to_seat0(needs=True)
    move = decide(RULES, _engine().view(position, 0), 0, level, SeededRng(b"ja"))
    assert move == {"antwort": "ja"}


def _close_to_winning(position: Position, seat: int) -> Position:
    """Give ``seat`` 8 public points: its two Fruchtkörper become towers, and both special cards."""
    state = position.state
    levels = tuple(2 if owner == seat else level for owner, level in zip(state.corner_owner, state.corner_level,
                                                                         strict=True))
    pieces = tuple((p[0], 0, p[1] + p[2]) if s == seat else p for s, p in enumerate(state.pieces))
    state = evolve(state, corner_level=levels, pieces=pieces, longest_holder=seat, largest_holder=seat)
    return _engine().from_state(state, state.seats)


@pytest.mark.parametrize("level", LEVELS)
def test_no_bot_hands_a_player_about_to_win_the_card_it_needs(level: str) -> None:
    position = _close_to_winning(_offer_to_seat0(needs=True), 1)
    move = decide(RULES, _engine().view(position, 0), 0, level, SeededRng(b"nein"))
    assert move is not None and move != {"antwort": "ja"} and "gegenangebot" not in move


def _tower_for_the_win() -> Position:
    """The current seat (main phase, 8 to win) has 7 points (a Fruchtkörper, a tower, both special cards) and a
    hand that pays a tower: the tower wins."""
    main = _main_phase(b"sieg")
    state = main.state
    seat = state.current
    levels = list(state.corner_level)
    own = [c for c, owner in enumerate(state.corner_owner) if owner == seat]
    levels[own[0]] = 2
    pieces = tuple((p[0], 1, 1) if s == seat else p for s, p in enumerate(state.pieces))
    hands = tuple(_hand(regenwasser=2, mineralien=3, totholz=1) if s == seat else state.hands[s] for s in range(4))
    state = evolve(state, corner_level=tuple(levels), pieces=pieces, hands=hands, longest_holder=seat,
                   largest_holder=seat, supply=tuple(19 - sum(h[k] for h in hands) for k in range(5)), target=8)
    return _engine().from_state(state, 4)


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_takes_the_build_that_wins(level: str) -> None:
    position = _tower_for_the_win()
    seat = position.state.current
    move = decide(RULES, _engine().view(position, seat), seat, level, SeededRng(b"sieg"))
    assert move is not None and "turm" in move and "tausch" not in move
    after = _engine().apply(position, seat, move).position
    assert _engine().is_over(after) and after.state.winner == seat


def test_advice_is_the_strong_move_with_a_german_reason(positions: list[tuple[str, Position, int]]) -> None:
    engine = _engine()
    for name, position, seat in positions:
        view = engine.view(position, seat)
        move, reason = advise(RULES, view, seat, SeededRng(b"rat"))
        assert move == decide(RULES, view, seat, "strong", SeededRng(b"rat")), name
        assert reason["key"].startswith("speedspore.rat.") and reason["text"].endswith("."), name
        assert reason["params"]["zug"] == move


def test_advice_never_depends_on_another_seats_hidden_cards() -> None:
    main = _main_phase(b"geheim")
    seat = main.state.current
    other = (seat + 1) % 4
    engine = _engine()
    reasons = []
    for hand in (_hand(moos=3, humus=1), _hand(totholz=4)):
        hands = tuple(hand if s == other else main.state.hands[s] for s in range(4))
        position = _with(main, hands=hands)
        view = engine.view(position, seat)
        reasons.append(advise(RULES, view, seat, SeededRng(b"rat")))
    assert reasons[0] == reasons[1]


@pytest.mark.parametrize("level", LEVELS)
def test_a_decision_is_reproducible_from_its_rng(level: str, positions: list[tuple[str, Position, int]]) -> None:
    engine = _engine()
    for _name, position, seat in positions:
        view = engine.view(position, seat)
        assert decide(RULES, view, seat, level, SeededRng(b"r")) == decide(RULES, view, seat, level, SeededRng(b"r"))


def test_bots_finish_a_three_player_game_with_legal_moves() -> None:
    engine = _engine()
    position = engine.start(engine.normalize_config({"siegpunkte": 8}, 3), 3, b"ganz")
    levels = ("easy", "normal", "strong")
    number = 0
    while not engine.is_over(position) and number < 3000:
        seat = engine.must_act(position)[-1]
        move = decide(RULES, engine.view(position, seat), seat, levels[seat], SeededRng(f"g{number}".encode()))
        assert _accepted(engine, position, seat, move)
        position = engine.apply(position, seat, move).position
        number += 1
    assert engine.is_over(position)



def _short_of_a_mineral() -> Position:
    """The current seat holds 3 Humus, 2 Regenwasser and 2 Mineralien: a tower lacks 1 Mineralien, and 3 Humus
    pay no supply trade (4:1 without gullys)."""
    main = _main_phase(b"bieten")
    seat = main.state.current
    hands = tuple(_hand(humus=3, regenwasser=2, mineralien=2) if s == seat else _hand(mineralien=1, moos=1)
                  for s in range(4))
    return _with(main, hands=hands)


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_a_bot_offers_a_spare_card_for_the_one_it_lacks(level: str) -> None:
    position = _short_of_a_mineral()
    seat = position.state.current
    if min(rates(position.state, seat)) < 4:
        pytest.skip("the seat has a gully on this island")
    move = decide(RULES, _engine().view(position, seat), seat, level, SeededRng(b"bieten"))
    assert move == {"angebot": {"gib": {"humus": 1}, "nimm": {"mineralien": 1}}}


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_the_offering_bot_trades_with_the_partner_whose_answer_helps_it_most(level: str) -> None:
    position = _short_of_a_mineral()
    engine = _engine()
    seat = position.state.current
    position = engine.apply(position, seat, {"angebot": {"gib": {"humus": 1}, "nimm": {"mineralien": 1}}}).position
    first, second, third = ((seat + step) % 4 for step in (1, 2, 3))
    position = engine.apply(position, first, {"antwort": "nein"}).position
    # a counter-offer that asks two Humus for the Mineralien, and a plain "ja" (one Humus)
    position = engine.apply(position, second, {"gegenangebot": {"gib": {"mineralien": 1},
                                                               "nimm": {"humus": 2}}}).position
    position = engine.apply(position, third, {"antwort": "ja"}).position
    move = decide(RULES, engine.view(position, seat), seat, level, SeededRng(b"partner"))
    assert move == {"handeln": third}
