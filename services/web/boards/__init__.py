"""Board renderers: one package per game (`services/web/boards/<game>/`), the generic one for every other game.

The contract (docs/services/web.md, "Board renderers"): a renderer is a module with

- `render(view: dict) -> markupsafe.Markup`: the board part of the game page, drawn from the table's view
  JSON for one seat (`GET /games/{id}/view`: `board`, `seats`, `you`, `to_move`, `may_act`, ...) and nothing
  else: no I/O, no other seat's data, deterministic (so it is unit-tested without servers and a live update
  costs one call);
- `move_label(move: dict, view: dict) -> str`: the German words on a legal move's button.

A game without its own package is drawn by `generic`. Adding a board adds `boards/<game>/__init__.py` and
touches nothing else: `renderer_for` finds it by the view's `game`.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from types import ModuleType

from services.web.boards import generic

_GAME_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


@lru_cache(maxsize=64)
def renderer_for(game: str) -> ModuleType:
    """The board renderer of `game` (a view's `game`), or the generic renderer when it has none."""
    if not _GAME_NAME.match(game) or game == "generic":
        return generic
    try:
        module = importlib.import_module(f"{__name__}.{game}")
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.{game}":
            raise  # a board that exists but fails to import must fail loudly, not fall back silently
        return generic
    return module
