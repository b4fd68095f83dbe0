"""Speedkoi's computer players on the shared skeleton (pure: libs.rules only).

- easy: the normal value of a move plus much noise ("spielt grob"); only a move that ends the game is
  judged exactly (it ends the game when that wins, never when it loses);
- normal: the seat's expected points at the end after the move (``values.worth``: rows that stay open,
  few paths far up, the master where many lanterns fit, pearls and tiles ahead), minus what a discard would
  bring an opponent; the top of a pile when it adds more than a hidden lantern ("solide");
- strong: the ``STRONG_CANDIDATES`` best normal moves played ``lookahead.ROUNDS`` rounds forward in
  ``STRONG_SAMPLES`` imagined games (the unseen lanterns dealt at random), every seat playing normal; it
  takes the move with the largest mean lead over the best opponent (its normal value counts a little too).

Every level handles every decision the game asks (lantern, pilgrim or master, the figure that steps instead
of one on the end stone, dragonfly, Steg, Koi, draw), and a move that would end the game is valued by the
standings after it, as its warning shows them: it ends the game when that wins. Decisions are reproducible
from the ``SeededRng`` (the imagined games come from it; ties go to the first legal move).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from libs.rules.protocol import Json
from libs.rules.speedkoi.rules import move_json
from libs.rules.speedkoi.state import KoiState
from services.bot.policies.contract import Candidate, DeterminizedPolicy, Situation
from services.bot.policies.speedkoi_bots import lookahead, reasons
from services.bot.policies.speedkoi_bots.options import Option, normal_options, sure_of_the_end

__all__ = ["EASY_NOISE", "POLICY", "STRONG_CANDIDATES", "STRONG_SAMPLES", "Detail", "SpeedkoiPolicy"]

EASY_NOISE = 10.0
"""Spread of the noise added to the easy level's values ("spielt grob"): about what a good move is worth more
than a poor one, so it often takes a clearly worse move."""
STRONG_CANDIDATES = 5
"""How many of the best normal moves the strong level plays forward."""
STRONG_SAMPLES = 14
"""How many imagined games (determinizations) the strong level plays each candidate in."""
PRIOR_WEIGHT = 0.5
"""How much the normal value still counts beside the mean lead: it settles moves whose order the few rounds
forward do not tell apart (both figures step in the imagined games, but only one takes the blossom now)."""


@dataclass(frozen=True)
class Detail:
    """What the advice is built from: the option and its mean lead in the imagined games (None: none played)."""

    option: Option
    lead: float | None = None
    games: int = 0


def _state(situation: Situation, index: int = 0) -> KoiState:
    state = situation.positions[index].state
    if type(state) is not KoiState:
        raise TypeError("not a Speedkoi state")
    return state


def _candidates(options: list[Option]) -> list[Candidate]:
    return [Candidate(move_json(option.move), option.value, Detail(option)) for option in options]


def strong_options(options: list[Option]) -> list[Option]:
    """Return the best ``STRONG_CANDIDATES`` options by normal value, in their legal order (ties: first)."""
    if len(options) <= STRONG_CANDIDATES:
        return options
    ranked = sorted(range(len(options)), key=lambda index: (-options[index].value, index))
    keep = sorted(ranked[:STRONG_CANDIDATES])
    return [options[index] for index in keep]


class SpeedkoiPolicy(DeterminizedPolicy):
    """Speedkoi on the shared skeleton: rough, solid, and looking ahead in imagined games."""

    DETERMINIZATIONS: ClassVar[Mapping[str, int]] = {"easy": 1, "normal": 1, "strong": STRONG_SAMPLES}
    NOISE: ClassVar[Mapping[str, float]] = {"easy": EASY_NOISE, "normal": 0.0, "strong": 0.0}

    def evaluate(self, situation: Situation) -> list[Candidate]:
        """Return the level's candidates with their values (strong: mean lead in the imagined games)."""
        state, seat = _state(situation), situation.seat
        options = normal_options(state, seat)
        if situation.level == "easy":
            return _candidates(sure_of_the_end(options))
        if situation.level != "strong" or len(options) == 1:
            return _candidates(options)
        chosen = strong_options(options)
        totals = [0.0] * len(chosen)
        for index in range(len(situation.positions)):
            imagined = _state(situation, index)
            for number, option in enumerate(chosen):
                totals[number] += lookahead.play_forward(imagined, seat, option.move)
        games = len(situation.positions)
        situation.notes["games"] = games
        top = max(option.value for option in chosen)
        return [Candidate(move_json(option.move), total / games + PRIOR_WEIGHT * (option.value - top),
                          Detail(option, total / games, games))
                for option, total in zip(chosen, totals, strict=True)]

    def evaluate_one(self, situation: Situation, position: object) -> list[Candidate]:
        """Not used: ``evaluate`` values all samples at once."""
        raise NotImplementedError

    def reason(self, situation: Situation, chosen: Candidate) -> Json:
        """Return the German reason: what the move does, its end warning, and the imagined games' verdict."""
        detail: Detail = chosen.detail
        return reasons.reason(_state(situation), situation.seat, detail.option.move, detail.lead, detail.games,
                              lookahead.ROUNDS)


POLICY = SpeedkoiPolicy()
"""The Speedkoi computer player (classic and Laternenfest)."""
