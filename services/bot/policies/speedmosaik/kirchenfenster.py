"""Kirchenfenster bot policy: values every legal decision for the bot's own palace (pure, no I/O).

Levels (on the shared skeleton, one determinization): ``easy`` = heuristic value + much noise; ``normal`` =
best heuristic value for its own board; ``strong`` = the normal value minus a share of the best value the
next player could take from what this move leaves in the factories and the centre (one ply deeper).
Advice = the strong choice + a German reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import ClassVar

from libs.rules.engine import Position
from libs.rules.protocol import Json
from libs.rules.speedmosaik.kirchenfenster.material import (
    PILLAR_WINDOWS,
    ROUNDS,
    STRIP_COUNT,
    STRIP_FIELDS,
    WINDOW_VALUES,
    colour_name,
)
from libs.rules.speedmosaik.kirchenfenster.rules import (
    ChoosePane,
    Move,
    Placement,
    ResetGlasermeister,
    Take,
    apply_move,
    legal_move_objects,
    placement,
)
from libs.rules.speedmosaik.kirchenfenster.scoring import (
    full_windows,
    most_frequent_colour,
    pillar_points,
    window_score,
)
from libs.rules.speedmosaik.kirchenfenster.state import Board, KirchenfensterState
from libs.rules.speedmosaik.texts import phrase, signed
from services.bot.policies.contract import Candidate, DeterminizedPolicy, Situation

EASY_NOISE = 12.0
"""Spread of the random noise added at level easy ("bewertet seine Züge mit viel Zufall")."""

Q_BASE = 0.45
"""How sure a strip's completion is with no pane on it yet (the potential of its panes is scaled by this)."""
Q_STEP = 0.1
"""How much surer a completion gets per pane already on the strip."""
BONUS_ESTIMATE = 1.0
"""Bonus-colour points a completion brings on average."""
LAST_ROUND_PANE = 1.0 / 3.0
"""In the last round an unfinished strip's pane is worth only its share of "1 Punkt je 3 Scheiben"."""
ACCESS = 0.9
"""Share of a strip's potential left when it lies left of the Glasermeister (it needs a reset first)."""
BREAK_EXTRA = 0.3
"""Extra cost per broken pane beyond the track's points (later breaks cost more)."""
START_TILE_VALUE = 0.8
"""Value of starting the next round (not in the last round)."""
RESET_COST = 2.0
"""What a turn without panes costs (the others get one more pick in the round)."""
FUTURE_SIDE_VALUE = 2.0
"""Value of turning a strip to its back side (it can be filled once more)."""
START_WINDOW_SHARE = 0.2
"""Share of a newly started window's value counted for every completion expected left of it later."""
COMPLETIONS_PER_ROUND = 1.7
"""How many strips a player completes per round, roughly (measured in bot games)."""
STRONG_SHARE = 0.5
"""Share of the next player's best value the strong level subtracts."""
STRONG_CANDIDATES = 8
"""How many of its best moves (by normal value) the strong level looks one ply deeper at."""


@dataclass(frozen=True)
class Valued:
    """A move with its value and the placement it was valued from (None for a reset or a window pane)."""

    move: Move
    value: float
    place: Placement | None = None


def _palace_gain(board: Board, strip: int, colour: str | None, palace: str) -> float:
    """Return the palace points a pane in the window below ``strip`` adds (best colour if None)."""
    windows = board.windows
    after = tuple((*w, colour or "") if i == strip else w for i, w in enumerate(windows))
    if palace == "saeulen":
        pillar = next(p for p, pair in enumerate(PILLAR_WINDOWS) if strip in pair)
        return float(pillar_points(after, pillar) - pillar_points(windows, pillar))
    if colour is None:
        return 0.0
    _, before_count = most_frequent_colour(windows)
    _, after_count = most_frequent_colour(after)
    return float(full_windows(after) * after_count - full_windows(windows) * before_count)


def _best_choice(board: Board, strip: int, choices: tuple[str, ...], palace: str) -> tuple[str, float]:
    """Return the best window pane among ``choices`` and its palace gain (ties: most frequent colour)."""
    counts = Counter(pane for window in board.windows for pane in window)
    best = max(
        choices,
        key=lambda c: (_palace_gain(board, strip, c, palace), counts[c], -choices.index(c)),
    )
    return best, _palace_gain(board, strip, best, palace)


def _completions_left_of(state: KirchenfensterState, board: Board, index: int) -> float:
    """Return how many strip completions left of ``index`` the bot may still expect this game."""
    rounds_left = ROUNDS - state.round
    sides = [0 if strip.is_done else 2 - strip.side for strip in board.strips]
    total = sum(sides)
    if total == 0:
        return 0.0
    expected = min(float(total), COMPLETIONS_PER_ROUND * (rounds_left + 0.5))
    return expected * sum(sides[:index]) / total


class BoardModel:
    """The bot's picture of one board: what the panes on each strip are worth (precomputed per decision)."""

    def __init__(self, state: KirchenfensterState, seat: int) -> None:
        self.state = state
        self.board = state.boards[seat]
        self.last_round = state.round >= ROUNDS
        self.worth = tuple(self._worth(index) for index in range(STRIP_COUNT))
        self.panes = tuple(strip.pane_count() for strip in self.board.strips)
        reachable = [self.potential(index, self.panes[index], True) for index in range(STRIP_COUNT)]
        behind = [self.potential(index, self.panes[index], False) for index in range(STRIP_COUNT)]
        # total[g] = potential of all strips with the Glasermeister above strip g.
        self.total = tuple(sum(behind[:g]) + sum(reachable[g:]) for g in range(STRIP_COUNT))
        self.reachable = tuple(reachable)

    def _worth(self, index: int) -> float:
        strip = self.board.strips[index]
        if strip.is_done:
            return 0.0
        worth = window_score(self.board.windows, index).points + BONUS_ESTIMATE
        if self.state.palace == "saeulen":
            worth += _palace_gain(self.board, index, None, self.state.palace)
        else:
            worth += 1.0
        return float(worth)

    def potential(self, index: int, panes: int, reachable: bool) -> float:
        """Return what ``panes`` panes on strip ``index`` are worth now (expected share of its completion)."""
        if panes == 0 or self.board.strips[index].is_done:
            return 0.0
        if self.last_round:
            return panes * LAST_ROUND_PANE
        sureness = Q_BASE + Q_STEP * panes
        access = 1.0 if reachable else ACCESS
        return max(panes * LAST_ROUND_PANE, panes / STRIP_FIELDS * self.worth[index] * sureness * access)

    def take_value(self, take: Take, place: Placement) -> float:
        """Return the heuristic value of a take (points now + change of the board's potential)."""
        board = self.board
        value = float(place.bonus_count + place.breakage_points) - BREAK_EXTRA * place.broken
        if place.takes_start_tile and not self.last_round:
            value += START_TILE_VALUE
        if take.strip is None:
            return value
        index = take.strip
        before = self.total[board.glasermeister]
        after = self.total[index] - self.reachable[index]
        if place.completes and place.window is not None:
            value += place.window.points
            _, palace = _best_choice(board, index, place.choices, self.state.palace)
            value += palace
            if not self.last_round:
                if board.strips[index].side == 0:
                    value += FUTURE_SIDE_VALUE
                if not board.windows[index]:
                    value += START_WINDOW_SHARE * WINDOW_VALUES[index] * _completions_left_of(self.state, board, index)
        else:
            after += self.potential(index, self.panes[index] + place.placed, True)
        return value + after - before

    def reset_gain(self) -> float:
        """Return how much the panes' potential grows when the Glasermeister goes back to the far left."""
        return self.total[0] - self.total[self.board.glasermeister]


def _valued_moves(state: KirchenfensterState, seat: int) -> list[Valued]:
    """Return every legal move with its normal value."""
    board = state.boards[seat]
    moves = legal_move_objects(state, seat)
    if state.pending is not None:
        strip = state.pending.strip
        counts = Counter(pane for window in board.windows for pane in window)
        return [
            Valued(move, _palace_gain(board, strip, move.colour, state.palace) + 0.01 * counts[move.colour])
            for move in moves
            if isinstance(move, ChoosePane)
        ]
    model = BoardModel(state, seat)
    valued: list[Valued] = []
    reset = False
    for move in moves:
        if isinstance(move, Take):
            place = placement(state, seat, move)
            valued.append(Valued(move, model.take_value(move, place), place))
        elif isinstance(move, ResetGlasermeister):
            reset = True
    if reset:
        best_now = max((item.value for item in valued), default=0.0)
        moved_board = replace(board, glasermeister=0)
        moved = replace(state, boards=tuple(moved_board if i == seat else b for i, b in enumerate(state.boards)))
        moved_model = BoardModel(moved, seat)
        after_reset = max(
            (
                moved_model.take_value(move, placement(moved, seat, move))
                for move in legal_move_objects(moved, seat)
                if isinstance(move, Take) and (move.strip is None or move.strip < board.glasermeister)
            ),
            default=best_now,
        )
        value = model.reset_gain() + max(0.0, after_reset - best_now) - RESET_COST
        valued.append(Valued(ResetGlasermeister(), value))
    return valued


def best_own_value(state: KirchenfensterState, seat: int) -> float:
    """Return the best normal value ``seat`` could reach with its next decision."""
    valued = _valued_moves(state, seat)
    return max(item.value for item in valued) if valued else 0.0


def _strong_values(state: KirchenfensterState, seat: int, valued: list[Valued]) -> list[Valued]:
    """Return the best candidates re-valued by what they leave for the next player."""
    if state.pending is not None or state.seats < 2:
        return valued
    candidates = sorted(valued, key=lambda item: -item.value)[:STRONG_CANDIDATES]
    results: list[tuple[Valued, float | None]] = []
    for item in candidates:
        after, _ = apply_move(state, seat, item.move)
        while after.pending is not None and not after.is_finished and after.current == seat:
            choice = max(_valued_moves(after, seat), key=lambda v: v.value).move
            after, _ = apply_move(after, seat, choice)
        if after.is_finished or after.round != state.round:
            results.append((item, None))
            continue
        results.append((item, best_own_value(after, after.current)))
    known = [threat for _, threat in results if threat is not None]
    fallback = sum(known) / len(known) if known else 0.0
    return [
        Valued(item.move, item.value - STRONG_SHARE * (fallback if threat is None else threat), item.place)
        for item, threat in results
    ]


def _state(position: Position) -> KirchenfensterState:
    if not isinstance(position.state, KirchenfensterState):
        raise TypeError("not a Kirchenfenster view")
    return position.state


def _reason(state: KirchenfensterState, seat: int, chosen: Valued) -> Json:
    """Return the German reason for the advised move ("Rat des Meisters")."""
    move = chosen.move
    board = state.boards[seat]
    if isinstance(move, ResetGlasermeister):
        return phrase(
            "kirchenfenster.rat.glasermeister",
            f"Hol den Glasermeister ganz nach links: Über Streifen {board.glasermeister + 1} passt kaum noch "
            "etwas, links warten Streifen auf dich.",
            von=board.glasermeister + 1,
        ).to_json()
    if isinstance(move, ChoosePane):
        assert state.pending is not None
        gain = _palace_gain(board, state.pending.strip, move.colour, state.palace)
        extra = f" (Palast {signed(int(gain))})" if gain else ""
        return phrase(
            "kirchenfenster.rat.fenster",
            f"Setz {colour_name(move.colour)} in Fenster {state.pending.strip + 1}{extra}: "
            "davon hast du in deinen Fenstern schon am meisten.",
            farbe=move.colour,
            fenster=state.pending.strip + 1,
        ).to_json()
    place = chosen.place
    assert place is not None
    source = "der Mitte" if move.factory is None else f"Schale {move.factory + 1}"
    head = f"Nimm {place.count} × {colour_name(move.colour)} aus {source}"
    parts: list[str] = []
    if move.strip is None:
        parts.append("kein erreichbarer Streifen hat Platz, das kostet am wenigsten")
    elif place.completes and place.window is not None:
        points = place.bonus_count + place.window.points
        parts.append(
            f"Streifen {move.strip + 1} wird voll ({signed(points)}: {place.window.explanation()}"
            + (f", Bonusfarbe {signed(place.bonus_count)}" if place.bonus_count else "")
            + ")"
        )
    else:
        missing = sum(1 for pane in place.panes_after if pane is None)
        parts.append(f"auf Streifen {move.strip + 1} fehlen danach nur noch {missing}")
    if place.broken:
        parts.append(f"{place.broken} {'zerbricht' if place.broken == 1 else 'zerbrechen'}")
    elif move.strip is not None:
        parts.append("nichts zerbricht")
    text = f"{head} auf Streifen {move.strip + 1}: " if move.strip is not None else f"{head}: "
    return phrase(
        "kirchenfenster.rat.nehmen",
        text + ", ".join(parts) + ".",
        zug=move.to_json(),
        punkte=place.bonus_count + (place.window.points if place.window is not None else 0),
        zerbricht=place.broken,
    ).to_json()


class KirchenfensterPolicy(DeterminizedPolicy):
    """Kirchenfenster on the shared skeleton: one determinization, the bot's own palace valued."""

    NOISE: ClassVar[Mapping[str, float]] = {"easy": EASY_NOISE, "normal": 0.0, "strong": 0.0}

    def evaluate_one(self, situation: Situation, position: Position) -> list[Candidate]:
        """Return every decision with its normal value; strong: the best ones re-valued one ply deeper."""
        state, seat = _state(position), situation.seat
        valued = _valued_moves(state, seat)
        if situation.level == "strong":
            valued = _strong_values(state, seat, valued)
        return [Candidate(item.move.to_json(), item.value, item) for item in valued]

    def reason(self, situation: Situation, chosen: Candidate) -> Json:
        """Return the German reason for the advised decision."""
        return _reason(_state(situation.position), situation.seat, chosen.detail)


POLICY = KirchenfensterPolicy()
"""The Kirchenfenster computer player (both palace sides)."""
