"""Kirchenfenster scoring: windows, the end scoring (panes left, breakage, palace) and the ranking."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from libs.rules.evolve import evolve
from libs.rules.protocol import ComputationLine, Outcome
from libs.rules.speedmosaik.kirchenfenster.material import (
    BREAKAGE_TRACK,
    COLOURS,
    PANES_PER_END_POINT,
    PILLAR_POINTS,
    PILLAR_WINDOWS,
    WINDOW_CAPACITY,
    WINDOW_VALUES,
    WRAP_LOSS,
    breakage_loss,
    colour_name,
)
from libs.rules.speedmosaik.kirchenfenster.state import Board
from libs.rules.speedmosaik.outcome import ranked_outcome
from libs.rules.speedmosaik.texts import signed

Windows = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class WindowScore:
    """Points of a pane put into window ``window``: its value plus every started window to its right."""

    window: int
    right: tuple[int, ...]
    """0-based windows to the right that were already started (gaps or not)."""

    @property
    def points(self) -> int:
        """Return the window's value plus the values of the started windows to its right."""
        return WINDOW_VALUES[self.window] + sum(WINDOW_VALUES[index] for index in self.right)

    def explanation(self) -> str:
        """Return the German sum: "Fenster 3 (3) + Fenster 5 (4) + Fenster 8 (5)"."""
        parts = [f"Fenster {index + 1} ({WINDOW_VALUES[index]})" for index in (self.window, *self.right)]
        return " + ".join(parts)

    def to_json(self) -> dict[str, object]:
        """Return ``{"fenster", "wert", "rechts", "punkte"}`` (1-based windows)."""
        return {
            "fenster": self.window + 1,
            "wert": WINDOW_VALUES[self.window],
            "rechts": [index + 1 for index in self.right],
            "punkte": self.points,
        }


def window_score(windows: Windows, window: int) -> WindowScore:
    """Return what a pane put into ``window`` scores on these windows."""
    right = tuple(index for index in range(window + 1, len(windows)) if windows[index])
    return WindowScore(window, right)


def panes_on_strips(board: Board) -> int:
    """Return how many panes still lie on the player's strips."""
    return sum(strip.pane_count() for strip in board.strips)


def pillar_fields(windows: Windows, pillar: int) -> int:
    """Return how many of a pillar's 4 frame fields (the panes of its two windows) are filled."""
    left, right = PILLAR_WINDOWS[pillar]
    return len(windows[left]) + len(windows[right])


def pillar_points(windows: Windows, pillar: int) -> int:
    """Return a pillar's points on the side "Säulen": 10 / 6 / 3 for 4 / 3 / 2 frame fields."""
    return PILLAR_POINTS.get(pillar_fields(windows, pillar), 0)


def full_windows(windows: Windows) -> int:
    """Return how many windows hold both panes."""
    return sum(1 for window in windows if len(window) >= WINDOW_CAPACITY)


def most_frequent_colour(windows: Windows) -> tuple[str | None, int]:
    """Return the colour found most often in the windows (first in colour order on a tie) and its count."""
    counts = Counter(pane for window in windows for pane in window)
    if not counts:
        return None, 0
    best = max(COLOURS, key=lambda colour: (counts[colour], -COLOURS.index(colour)))
    return best, counts[best]


def palace_lines(windows: Windows, palace: str) -> tuple[ComputationLine, ...]:
    """Return the palace scoring lines of the chosen side ("saeulen": one per pillar; "fensterfarbe": one)."""
    if palace == "saeulen":
        lines = []
        for pillar, (left, right) in enumerate(PILLAR_WINDOWS):
            fields = pillar_fields(windows, pillar)
            lines.append(
                ComputationLine(
                    label=f"Säule {pillar + 1} (Fenster {left + 1} und {right + 1}): {fields} von 4 Rahmenfeldern",
                    points=pillar_points(windows, pillar),
                    key="kirchenfenster.ergebnis.saeule",
                    params={"saeule": pillar + 1, "fenster": [left + 1, right + 1], "rahmenfelder": fields},
                )
            )
        return tuple(lines)
    full = full_windows(windows)
    colour, count = most_frequent_colour(windows)
    name = colour_name(colour) if colour is not None else "keine Farbe"
    return (
        ComputationLine(
            label=f"Fensterfarbe: {full} volle Fenster × {count} {name}",
            points=full * count,
            key="kirchenfenster.ergebnis.fensterfarbe",
            params={"volle_fenster": full, "farbe": colour, "anzahl": count},
        ),
    )


def end_lines(board: Board, palace: str) -> tuple[ComputationLine, ...]:
    """Return the end scoring lines: panes left on strips ÷ 3, the whole breakage, the palace."""
    panes = panes_on_strips(board)
    loss = breakage_loss(board.breakage_field, board.breakage_wraps)
    return (
        ComputationLine(
            label=f"Scheiben auf den Streifen: {panes} ÷ {PANES_PER_END_POINT}",
            points=panes // PANES_PER_END_POINT,
            key="kirchenfenster.ergebnis.scheiben",
            params={"anzahl": panes, "je": PANES_PER_END_POINT},
        ),
        ComputationLine(
            label=f"Glasbruch: {board.breakage_wraps} × ganz unten (−{WRAP_LOSS}), Leiste "
            f"{signed(BREAKAGE_TRACK[board.breakage_field])}",
            points=-loss,
            key="kirchenfenster.ergebnis.glasbruch",
            params={
                "umlaeufe": board.breakage_wraps,
                "feld": board.breakage_field,
                "leiste": BREAKAGE_TRACK[board.breakage_field],
                "verloren": loss,
            },
        ),
        *palace_lines(board.windows, palace),
    )


def apply_end_scoring(board: Board, palace: str) -> Board:
    """Return the board with its end scoring added."""
    return evolve(board, end_lines=end_lines(board, palace))


def outcome_lines(board: Board) -> tuple[ComputationLine, ...]:
    """Return the final Rechenweg of a board; its points add up to the score."""
    return (
        ComputationLine(
            label="Bonusfarben auf vollen Streifen",
            points=board.bonus_points,
            key="kirchenfenster.ergebnis.bonusfarben",
            params={},
        ),
        ComputationLine(
            label="Fensterpunkte",
            points=board.window_points,
            key="kirchenfenster.ergebnis.fenster",
            params={},
        ),
        *board.end_lines,
    )


def running_lines(board: Board) -> tuple[ComputationLine, ...]:
    """Return the Rechenweg of the score during the game (the track's value is subtracted only at the end)."""
    lines = outcome_lines(evolve(board, end_lines=()))
    if board.breakage_wraps:
        lines += (
            ComputationLine(
                label=f"Glasbruch: {board.breakage_wraps} × ganz unten (−{WRAP_LOSS})",
                points=-WRAP_LOSS * board.breakage_wraps,
                key="kirchenfenster.ergebnis.glasbruch_umlaeufe",
                params={"umlaeufe": board.breakage_wraps},
            ),
        )
    return lines


def tie_break(board: Board) -> int:
    """Return the tie-break key (higher is better): minus every point lost to breakage."""
    return -breakage_loss(board.breakage_field, board.breakage_wraps)


def final_outcome(boards: tuple[Board, ...]) -> Outcome:
    """Rank the boards: score, then fewer points lost to breakage; equal seats share the better place."""
    breaks = tuple(tie_break(board) for board in boards)
    return ranked_outcome(
        "kirchenfenster", tuple(board.score for board in boards), breaks,
        tuple(outcome_lines(board) for board in boards),
        lambda seat: (f"{-breaks[seat]} Punkten Glasbruch", {"glasbruch": -breaks[seat]}),
    )


def suggest_window_pane(windows: Windows, choices: tuple[str, ...]) -> str:
    """Return the suggested pane for a window: the choice already most frequent in the windows.

    Window points do not depend on the colour; only the palace side "Fensterfarbe" does, and it counts
    the most frequent colour, so the suggestion feeds that colour (first in colour order on a tie).
    """
    counts = Counter(pane for window in windows for pane in window)
    return max(choices, key=lambda colour: (counts[colour], -COLOURS.index(colour)))
