"""What a Speedkoi move would bring, from the seat's own knowledge (never the deck's next lantern)."""

from __future__ import annotations

from libs.rules.protocol import Json
from libs.rules.speedkoi import scoring
from libs.rules.speedkoi.material import COLOURS, MASTER, STONE_VALUES, lantern, lantern_json
from libs.rules.speedkoi.moves import DISCARD, DRAW, KOI, PLAY, STEP, parse
from libs.rules.speedkoi.rules import apply_move, check, warning
from libs.rules.speedkoi.state import KoiState
from libs.rules.speedkoi.view import _users, play_info, step_info


def preview(state: KoiState, seat: int, move: Json) -> Json:
    """Return the move's consequences; raise IllegalMove as ``apply`` would (a warning is shown, not raised).

    ``{"zug", "aktion", "endet", "warnung", "punkte_danach", "phase_danach", ...}`` plus per action:
    ``anlegen``: ``laterne``, ``bringt`` (as the view's hint) and ``schritt`` (the step this very move makes,
    or null); ``abwerfen``: ``laterne``, ``gegner`` (seats that could use it); ``schritt``: ``schritt``;
    ``koi``: ``laterne``; ``ziehen``: ``laterne`` (a pile's top, null for the hidden deck), ``stapel_danach``.
    """
    parsed = parse(move)
    check(state, seat, parsed)
    warned = warning(state, seat, parsed)
    body: Json = {"zug": dict(move), "aktion": parsed.action, "endet": warned is not None,
                  "warnung": None if warned is None else warned.to_json()}
    action = parsed.action
    if action == DRAW:
        top = None if parsed.colour == -1 else lantern_json(lantern(parsed.colour, state.piles[parsed.colour][-1]))
        body.update(laterne=top, stapel_danach=len(state.deck) - (1 if parsed.colour == -1 else 0),
                    punkte_danach=list(scoring.scores(state)), phase_danach="ende" if warned else "legen")
        return body
    after, _ = apply_move(state, seat, parsed)  # nothing hidden decides a move other than a draw
    body.update(punkte_danach=list(scoring.scores(after)), phase_danach=after.phase)
    if action in (PLAY, DISCARD):
        code = lantern(parsed.colour, parsed.value)
        body["laterne"] = lantern_json(code)
        if action == DISCARD:
            body["gegner"] = _users(state, seat, code)
            return body
        body["bringt"] = play_info(state, seat, code)
        stone = state.stones[seat][parsed.colour]
        if stone == 0:
            art = after.masters[seat] == parsed.colour
            body["schritt"] = {"pfad": COLOURS[parsed.colour], "figur": MASTER if art else "pilger", "von": 0,
                               "nach": 1, "punkte": STONE_VALUES[1] * (2 if art else 1), "plaettchen": None,
                               "teehaus": 0, "ins_ziel": False}
        elif stone < 9:
            body["schritt"] = step_info(state, seat, parsed.colour)
        else:
            body["schritt"] = None if parsed.onward == -1 else step_info(state, seat, parsed.onward)
    elif action == STEP:
        body["schritt"] = step_info(state, seat, parsed.colour)
    elif action == KOI:
        body["laterne"] = lantern_json(lantern(parsed.colour, state.piles[parsed.colour][-1]))
    return body
