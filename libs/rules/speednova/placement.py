"""One placement judged and scored: parsing a move, its points per half and colour, Supernova, Kassiopeia.

``parse`` refuses what the rules refuse (German reasons, the same for ``apply`` and ``preview``);
``evaluate`` scores a legal placement without changing anything, so a preview and the move's effects show
the same lines and points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from libs.rules.protocol import IllegalMove, Json
from libs.rules.speednova.board import FREE, board
from libs.rules.speednova.scoring import analysis, capped, line_cells, start_pairs
from libs.rules.speednova.state import PHASE_SWAP, NovaState
from libs.rules.speednova.texts import points_text, sum_text
from libs.rules.speednova.tiles import COLOUR_INDEX, COLOUR_NAMES, COLOURS, tile_code

PLACE_KEYS = frozenset({"stein", "feld", "richtung"})
KASSIOPEIA_RUN = 5
"""A line of six equal stars, the placed half included: five stars behind the half (README)."""


def is_int(value: Any) -> bool:
    """True for a JSON integer (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Placement:
    """A legal placement in canonical form: ``first`` on ``cell``, ``second`` on ``partner``."""

    cell: int
    direction: int
    partner: int
    first: int
    second: int

    @property
    def code(self) -> int:
        """The double star's code."""
        return tile_code(self.first, self.second)

    def move(self) -> Json:
        """Return the placement as its legal move (canonical direction 0–2)."""
        return {"stein": [COLOURS[self.first], COLOURS[self.second]], "feld": self.cell, "richtung": self.direction}


def open_leitsterne(state: NovaState) -> tuple[int, ...]:
    """Return the colours of the Leitsterne nobody has started at."""
    return tuple(colour for colour in range(6) if colour not in state.started)


def allowed_pairs(state: NovaState, seat: int) -> list[tuple[int, int, int]]:
    """Return the pairs of free cells ``seat`` may place on now (its first double star: beside an open Leitstern)."""
    if state.started[seat] < 0:
        return start_pairs(state.cells, state.radius, open_leitsterne(state))
    pairs = board(state.radius).pairs
    cells = state.cells
    return [pair for pair in pairs if cells[pair[0]] == FREE and cells[pair[2]] == FREE]


def parse(state: NovaState, seat: int, move: Json) -> Placement:
    """Return the canonical placement of a placement move; raise IllegalMove (German reason) if refused."""
    if set(move) != PLACE_KEYS:
        raise IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")
    if state.phase == PHASE_SWAP:
        raise IllegalMove("Entscheide zuerst, ob du deine Bank tauschst.", "decide_swap")
    stone, cell, direction = move["stein"], move["feld"], move["richtung"]
    if (not isinstance(stone, list) or len(stone) != 2
            or not all(isinstance(colour, str) and colour in COLOUR_INDEX for colour in stone)):
        raise IllegalMove("Einen solchen Doppelstern gibt es nicht.", "unknown_tile")
    the_board = board(state.radius)
    if not is_int(cell) or not 0 <= cell < the_board.size:
        raise IllegalMove("Dieses Feld gibt es auf der Sternkarte nicht.", "unknown_cell")
    if not is_int(direction) or not 0 <= direction < 6:
        raise IllegalMove("Es gibt nur die Richtungen 0 bis 5.", "unknown_direction")
    partner = the_board.neighbours[cell][direction]
    if partner < 0:
        raise IllegalMove("Dort ragt der Doppelstern über den Rand der Karte.", "off_board")
    if state.cells[cell] != FREE or state.cells[partner] != FREE:
        raise IllegalMove("Der Doppelstern braucht zwei freie Felder.", "occupied")
    first, second = COLOUR_INDEX[stone[0]], COLOUR_INDEX[stone[1]]
    if tile_code(first, second) not in state.racks[seat]:
        if state.solo == "rekordjagd":
            raise IllegalMove("Du legst den Doppelstern, der gerade aus dem Beutel kam.", "not_in_rack")
        raise IllegalMove("Diesen Doppelstern hast du nicht in deiner Bank.", "not_in_rack")
    if direction >= 3:  # the same placement named from the partner's cell: one canonical form
        cell, partner, first, second, direction = partner, cell, second, first, direction - 3
    placement = Placement(cell=cell, direction=direction, partner=partner, first=first, second=second)
    if state.started[seat] < 0 and (cell, direction, partner) not in allowed_pairs(state, seat):
        raise IllegalMove("Dein erster Doppelstern muss neben einem Leitstern liegen, an dem noch niemand "
                          "begonnen hat.", "first_tile")
    return placement


@dataclass(frozen=True, slots=True)
class Evaluation:
    """What a placement brings: per half its lines, per colour the raw and the capped points, new Supernovas."""

    placement: Placement
    halves: tuple[Json, Json]
    raw: dict[int, int]
    gained: dict[int, int]
    parts: dict[int, list[int]]
    """Per colour the lines' points in order (the computation "Komet 2 + 1 = 3")."""
    track_after: tuple[int, ...]
    novas: tuple[tuple[int, int], ...]
    """(colour, threshold) of every Supernova this placement ignites."""
    six_line: bool

    def points_json(self) -> dict[str, int]:
        """Return the capped points per colour keyed by colour."""
        return {COLOURS[colour]: value for colour, value in self.gained.items()}

    def points_text(self) -> str:
        """Return "Komet +3 · Nebel +1"."""
        return points_text(self.gained)

    def computation_text(self, top: int) -> str:
        """Return the log's computation: "Komet 2 + 1 = 3 · Nebel 1", with a capped colour's lost points."""
        texts = []
        for colour, parts in self.parts.items():
            text = sum_text(COLOUR_NAMES[colour], parts)
            lost = self.raw[colour] - self.gained[colour]
            if lost > 0:
                text += f" (nur +{self.gained[colour]} bis {top}, {lost} verfallen)"
            texts.append(text)
        return " · ".join(texts)


def _half(state: NovaState, lines: tuple[tuple[int, int, int], ...], cell: int, colour: int) -> tuple[Json, list[int]]:
    scored = [(direction, run) for direction, line_colour, run in lines if line_colour == colour]
    half = {
        "feld": cell, "farbe": COLOURS[colour], "punkte": sum(run for _d, run in scored),
        "linien": [{"richtung": direction, "felder": line_cells(state.radius, cell, direction, run), "punkte": run}
                   for direction, run in scored],
    }
    return half, [run for _d, run in scored]


def evaluate(state: NovaState, seat: int, placement: Placement) -> Evaluation:
    """Return what ``placement`` brings ``seat`` now (nothing changes)."""
    scan = analysis(state.radius, state.cells)
    first_lines, second_lines = scan.lines[placement.cell], scan.lines[placement.partner]
    first_half, first_parts = _half(state, first_lines, placement.cell, placement.first)
    second_half, second_parts = _half(state, second_lines, placement.partner, placement.second)
    track = state.tracks[state.track_of(seat)]
    raw_first, raw_second = first_half["punkte"], second_half["punkte"]
    gained = capped(track, state.top, placement.first, raw_first, placement.second, raw_second)
    if placement.first == placement.second:
        raw = {placement.first: raw_first + raw_second}
        parts = {placement.first: first_parts + second_parts}
    else:
        raw = {placement.first: raw_first, placement.second: raw_second}
        parts = {placement.first: first_parts, placement.second: second_parts}
    # Colours in colour order (Komet first), whichever way round the tile lies: one text per placement.
    gained, raw, parts = (dict(sorted(gained.items())), dict(sorted(raw.items())), dict(sorted(parts.items())))
    after = list(track)
    for colour, value in gained.items():
        after[colour] += value
    novas = tuple((colour, threshold) for colour in gained for threshold in state.thresholds
                  if track[colour] < threshold <= after[colour])
    six = any(run >= KASSIOPEIA_RUN for run in first_parts + second_parts)
    return Evaluation(placement=placement, halves=(first_half, second_half), raw=raw, gained=gained, parts=parts,
                      track_after=tuple(after), novas=novas, six_line=six)
