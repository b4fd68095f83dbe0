"""Speedspore's computer players on the shared skeleton (pure: libs.rules only).

- easy: the normal values plus much noise ("spielt grob"): it mostly builds what it can, trades when it
  sees a build, and sometimes wastes a card; a move that wins now is still taken, a trade that hands a seat
  close to winning its last card is still refused (the noise is far smaller than those values);
- normal: every legal move valued by what it changes for the seat (``options``): points, production
  (scarce kinds and kinds new to it weighted up), places within reach, Weitestes Geflecht and Größte
  Sporenwolke, and the hand's plan (how close it is to paying a Fruchtkörper, a tower, a thread or a
  mutation; the risk of a 7 above 7 cards); offers of one card for one card it needs, answers by the trade's
  value, never helping a seat within 2 points of the target; the mold on the leader's best field;
- strong: the normal values with production weighed higher and kept to the end, and points worth more near
  the target (``values.PIP_BY_LEVEL``, ``PIP_FADE``, ``VP_GROWTH``: measured on the ladder); founding looks
  ahead to the second Fruchtkörper (the best corner still free after the others' picks); where hidden hands
  matter (Netzsog, the mold and its victim, a Sporenwolke) it averages over ``STRONG_SAMPLES``
  determinizations; in its main phase the ``STRONG_CANDIDATES`` best moves are played on to the end of its
  turn (the module's own ``apply``, the normal level choosing the rest) and valued by the position then.

Trivial decisions (one legal move, the roll) are answered at once. Every decision is reproducible from its
``SeededRng``; ties go to the first legal move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from libs.rules.protocol import Json
from libs.rules.speedspore.material import KINDS
from libs.rules.speedspore.state import HAUPT, OPEN, SporeState
from services.bot.policies.contract import Candidate, DeterminizedPolicy, Situation
from services.bot.policies.speedspore_bots import reasons
from services.bot.policies.speedspore_bots.options import (
    Option,
    answer_value,
    bundle,
    options_for,
)
from services.bot.policies.speedspore_bots.search import play_out_turn, strong_founding
from services.bot.policies.speedspore_bots.values import WIN, table_of

__all__ = ["EASY_NOISE", "POLICY", "STRONG_CANDIDATES", "STRONG_SAMPLES", "SpeedsporePolicy", "counter_offer"]

EASY_NOISE = 5.0
"""Spread of the easy level's noise, in cards: it often takes a clearly worse move, never a losing one."""
STRONG_SAMPLES = 4
"""Determinizations the strong level averages over where hidden hands matter (Netzsog, robbing, answers)."""
STRONG_CANDIDATES = 4
"""Main phase: how many of the best normal moves the strong level plays on to the end of its turn."""
WAIT_PENALTY = 0.01
"""While the seat's own offer waits for answers, ending the turn or withdrawing counts this much less: a build
or trade worth something comes first, but nothing worth less than nothing (the offer is kept alive only while
there is something useful to do; a seat that only may act then simply waits)."""
HIDDEN_FAMILIES = frozenset({"netzsog", "schimmel", "wolke"})


def _state(situation: Situation, index: int = 0) -> SporeState:
    state = situation.positions[index].state
    if type(state) is not SporeState:
        raise TypeError("not a Speedspore state")
    return state


def counter_offer(state: SporeState, seat: int, level: str) -> Json | None:
    """Return a counter-offer to the open offer worth making (one card the offerer wants, of a kind the seat
    can spare, for one card the seat needs most), or None.

    The answering seat gives ``gib`` and wants ``nimm``; the offerer must still be able to pay it.
    """
    offer = state.offer
    if offer is None or level == "easy":
        return None
    table = table_of(state, seat, level)
    hand = state.hands[seat]
    best: tuple[float, Json] | None = None
    for give in range(5):
        if not offer.take[give] or not hand[give]:
            continue
        for take in range(5):
            if take == give:
                continue
            giving = tuple(1 if k == give else 0 for k in range(5))
            taking = tuple(1 if k == take else 0 for k in range(5))
            value = answer_value(table, giving, taking, state.current)
            if value > 0.3 and (best is None or value > best[0]):
                best = (value, {"gegenangebot": {"gib": {KINDS[give]: 1}, "nimm": {KINDS[take]: 1}}})
    return None if best is None else best[1]


class SpeedsporePolicy(DeterminizedPolicy):
    """Speedspore's three levels and advice with a German reason."""

    NOISE: ClassVar[Mapping[str, float]] = {"easy": EASY_NOISE, "normal": 0.0, "strong": 0.0}
    DETERMINIZATIONS: ClassVar[Mapping[str, int]] = {"easy": 1, "normal": 1, "strong": 1}

    def evaluate(self, situation: Situation) -> list[Candidate]:
        """Return the candidates of the seat's open decision with the level's values."""
        state = _state(situation)
        seat, level = situation.seat, situation.level
        moves = situation.engine.legal_moves(situation.position, seat)
        if len(moves) == 1 and situation.must:
            return [Candidate(moves[0], 0.0, Option(moves[0], 0.0, "einzig"))]
        if state.phase == "wurf" and len(moves) >= 1 and not any("ausspielen" in m for m in moves):
            return [Candidate(moves[0], 0.0, Option(moves[0], 0.0, "wuerfeln"))]
        table = table_of(state, seat, level)
        options = options_for(table, moves)
        if level == "strong":
            options = self._strong(situation, state, options)
        if seat != state.current and state.offer is not None and state.phase == HAUPT:
            counter = counter_offer(state, seat, level)
            if counter is not None:
                give, take = bundle(counter["gegenangebot"]["gib"]), bundle(counter["gegenangebot"]["nimm"])
                value = answer_value(table, give, take, state.current) * 0.5
                options.append(Option(counter, value, "gegenangebot"))
        if state.current == seat and state.offer is not None and any(
                answer.kind == OPEN for answer in state.offer.answers):
            # The seat's own offer waits for answers: do not drop it for nothing.
            options = [o if o.what not in ("zug_beenden", "zurueckziehen") else Option(o.move, o.value - WAIT_PENALTY,
                                                                                        o.what, o.info)
                       for o in options]
        result = [Candidate(o.move, o.value, o) for o in options]
        if not situation.must:
            result.append(Candidate(None, 0.0, Option(None, 0.0, "nichts")))
        if level == "easy":
            # the noise must never turn a win or a refusal to help a near-winner around
            result = [Candidate(c.move, c.value * (1.0 if abs(c.value) < WIN / 2 else 10.0), c.detail) for c in result]
        return result

    def _strong(self, situation: Situation, state: SporeState, options: list[Option]) -> list[Option]:
        """Return the strong level's values: founding look-ahead, hidden hands averaged, the turn played on."""
        seat = situation.seat
        if state.phase == "gruendung":
            return strong_founding(state, seat, options)
        families = {o.what for o in options}
        if families & HIDDEN_FAMILIES:
            options = self._averaged(situation, options)
        if state.phase == HAUPT and state.current == seat and len(options) > 2:
            options = play_out_turn(situation.engine.module, state, seat, options, STRONG_CANDIDATES)
        return options

    def _averaged(self, situation: Situation, options: list[Option]) -> list[Option]:
        """Return the options valued as the mean over several samples of the hidden hands."""
        engine, view, seat = situation.engine, situation.view, situation.seat
        totals = [o.value for o in options]
        samples = 1
        for index in range(1, STRONG_SAMPLES):
            sample = engine.determinize(view, seat, situation.rng.derive(f"determinize-{index}"))
            table = table_of(sample, seat, situation.level)
            for number, option in enumerate(options_for(table, [o.move for o in options if o.move is not None])):
                totals[number] += option.value
            samples += 1
        return [Option(o.move, total / samples, o.what, o.info) for o, total in zip(options, totals, strict=True)]

    def reason(self, situation: Situation, chosen: Candidate) -> Json:
        """Return the German reason for the advised decision (built from what the seat can see)."""
        option = chosen.detail if isinstance(chosen.detail, Option) else Option(chosen.move, chosen.value, "")
        return reasons.reason(_state(situation), situation.seat, option)


POLICY = SpeedsporePolicy()
"""Speedspore's computer player (every seat count and setting)."""

