"""Speedspore's refusals of a wrong choice of cards say the rule in German, never "unbekanntes Format": a discard
with the wrong count (all zeros, as a board sends an untouched choice), an offer or counter-offer that gives or
asks for nothing. Refusals are never logged, so only their words changed; what is legal stays as it was."""

from __future__ import annotations

from typing import Any

from libs.rules.speedspore.state import ABWERFEN, HAUPT, WURF, Answer, Offer
from tests.rules.helpers import assert_refused_without_change
from tests.rules.speedspore_builders import ENGINE, board, dice_deck, hand, play, position


def _discarding() -> Any:
    """Seats 0 and 1 must each discard 4 cards after a rolled seven."""
    state = board(phase=WURF, rolled=False, config={"wuerfel": "ausgeglichen"},
                  hands={0: hand(2, 2, 2, 2, 0), 1: hand(3, 3, 3, 0, 0), 2: hand(1, 1, 1, 1, 3)},
                  buildings={12: (1, 1), 30: (2, 1)}, dice_deck=dice_deck((3, 4)))
    pos = play(position(state), 0, {"wuerfeln": True})
    assert pos.state.phase == ABWERFEN and pos.state.discard == (4, 4, 0)
    return pos


def test_a_discard_of_nothing_says_how_many_cards_to_discard() -> None:
    pos = _discarding()
    for move in ({"abwerfen": {}}, {}, {"abwerfen": {"humus": 0, "moos": 0}}):
        refused = assert_refused_without_change(ENGINE, pos, 0, move)
        assert refused.reason.startswith("Wirf genau 4 Karten ab"), (move, refused.reason)
        assert "Format" not in refused.reason and refused.code == "wrong_count"


def test_a_discard_of_too_few_or_too_many_names_the_count_chosen() -> None:
    pos = _discarding()
    short = assert_refused_without_change(ENGINE, pos, 1, {"abwerfen": {"totholz": 3}})
    assert short.reason == "Wirf genau 4 Karten ab (gewählt: 3)."
    over = assert_refused_without_change(ENGINE, pos, 1, {"abwerfen": {"totholz": 3, "humus": 2}})
    assert over.reason == "Wirf genau 4 Karten ab (gewählt: 5)."
    # the right count still works, the legal moves are as before
    assert {"abwerfen": {"totholz": 3, "humus": 1}} in ENGINE.legal_moves(pos, 1)
    assert play(pos, 1, {"abwerfen": {"totholz": 3, "humus": 1}}).state.discard == (4, 0, 0)


def test_an_offer_that_gives_or_asks_nothing_says_so() -> None:
    pos = position(board(hands={0: hand(2, 2, 0, 0, 0)}))
    gives_nothing = assert_refused_without_change(ENGINE, pos, 0, {"angebot": {"gib": {}, "nimm": {"moos": 1}}})
    assert gives_nothing.reason == "Wähle mindestens 1 Karte, die du gibst."
    asks_nothing = assert_refused_without_change(ENGINE, pos, 0, {"angebot": {"gib": {"humus": 1}, "nimm": {}}})
    assert asks_nothing.reason == "Wähle mindestens 1 Karte, die du dafür willst."
    half = assert_refused_without_change(ENGINE, pos, 0, {"angebot": {"gib": {"humus": 1}}})
    assert half.reason == "Wähle mindestens 1 Karte, die du dafür willst."
    shapeless = assert_refused_without_change(ENGINE, pos, 0, {"angebot": "humus"})
    assert shapeless.reason == "Ein Angebot nennt, was du gibst und was du dafür willst."
    assert play(pos, 0, {"angebot": {"gib": {"humus": 2}, "nimm": {"moos": 1}}}).state.offer is not None


def test_a_counter_offer_of_nothing_says_so() -> None:
    offer = Offer(1, hand(0, 1, 0, 0, 0), hand(0, 0, 1, 0, 0),
                  (Answer("-", None, None), Answer("", None, None), Answer("", None, None)))
    pos = position(board(phase=HAUPT, hands={0: hand(0, 2, 0, 0, 0), 1: hand(0, 0, 2, 0, 0)}, offer=offer,
                         offers_made=1))
    refused = assert_refused_without_change(ENGINE, pos, 1, {"gegenangebot": {"gib": {"moos": 0}, "nimm": {}}})
    assert refused.reason == "Wähle mindestens 1 Karte, die du gibst."
