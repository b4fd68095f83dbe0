"""A small picture of a Speedmosaik board for the start page, drawn with the renderer's own tiles and classes:
two displays, the pattern lines and the fixed wall with a few tiles hung."""

from __future__ import annotations

from functools import lru_cache

from markupsafe import Markup

from services.web.boards.speedmosaik import common as c

WALL = ["blau", "gelb", "rot", "schwarz", "tuerkis"]
HUNG = {(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 3), (3, 0), (3, 4), (4, 2)}
"""The wall's cells (row, column) the picture shows hung; the others are the faded pattern."""
LINES = [["gelb"], ["rot", "rot"], [], ["blau", "blau", "blau"], ["tuerkis"]]
DISPLAYS = [["blau", "blau", "rot", "schwarz"], ["gelb", "tuerkis", "tuerkis", "rot"]]


def _tile(item: str, x: float, y: float, size: int) -> str:
    """A tile as the board draws it, without its letter (too small to read here); "." an empty space."""
    if item == ".":
        return f'<rect class="mz-slot" x="{x}" y="{y}" width="{size}" height="{size}" rx="3"/>'
    return f'<rect class="mz-tile {c.css(item)}" x="{x}" y="{y}" width="{size}" height="{size}" rx="3"/>'


@lru_cache(maxsize=1)
def thumbnail() -> Markup:
    """The picture (inline SVG, about 4 KB)."""
    size, step = 16, 18
    parts: list[str] = []
    for index, tiles in enumerate(DISPLAYS):
        cx, cy = 36 + index * 66, 30
        parts.append(f'<circle class="mz-thumb-display" cx="{cx}" cy="{cy}" r="27"/>')
        for k, tile in enumerate(tiles):
            parts.append(_tile(tile, cx - step + (k % 2) * step + 1, cy - step + (k // 2) * step + 1, size))
    top = 70
    for row in range(5):
        for k in range(row + 1):
            x = 96 - k * step
            tiles = LINES[row]
            item = tiles[k] if k < len(tiles) else "."
            parts.append(_tile(item, x, top + row * step, size))
        for column in range(5):
            colour = WALL[(column - row) % 5]
            hung = (row, column) in HUNG
            parts.append(f'<g class="{"mz-on" if hung else "mz-off"}">'
                         f'{_tile(colour, 122 + column * step, top + row * step, size)}</g>')
    return Markup('<svg class="mz-thumb" viewBox="0 0 214 166" width="214" height="166" role="img" '
                  'aria-label="Speedmosaik: Schalen, Musterreihen und Wand">' + "".join(parts) + "</svg>")
