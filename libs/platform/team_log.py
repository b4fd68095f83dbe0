"""Team logs: a game's side moves, kept beside its log so that nobody outside the team learns of them.

A *side move* (a rule module's ``side_channel`` names the team that may read it: Speednova's team signals from
``speednova@2``) is not appended to the game's log ``game.<id>.events``; the table appends it to the team's own
log ``game.<id>.team.<k>`` (k: the team's index in the module's ``side_teams``). Each team log is a hash chain of
its own (the envelope and hash of ``libs.platform.envelope``, ``n`` from 1, ``prev`` from 64 zeros) and binds
every entry to the game's log: ``data.after`` is the number of the game's event it follows, ``data.after_hash``
that event's hash. The fold of a game with team logs is deterministic: game event n, then every team's entries
with ``after == n`` (team 0's first, each team's in its order), then game event n + 1.

Nothing of the game's log depends on a side move (the module's promise), so a copy of the game without the
other team's log (an opponent's, a spectator's) folds, views and audits exactly as if no side move was made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from libs.platform.envelope import GENESIS, Event, compute_hash, new_event

SIDE_MOVE_MADE = "SideMoveMade"
"""The one event type of a team log: a side move of one of the team's seats."""


@dataclass(frozen=True, slots=True)
class SideMove:
    """The data of a SideMoveMade: which team's log, where it follows the game's log, and the move."""

    team: int
    seats: tuple[int, ...]
    after: int
    after_hash: str
    seat: int
    move: dict[str, Any]
    chosen_by: str
    effects: list[dict[str, Any]]

    def to_data(self) -> dict[str, Any]:
        """Return the event's ``data`` (plain JSON: a team log is read whole by its team and operators only)."""
        return {"team": self.team, "seats": list(self.seats), "after": self.after, "after_hash": self.after_hash,
                "seat": self.seat, "move": self.move, "chosen_by": self.chosen_by, "effects": self.effects}


def side_event(*, game_id: str, n: int, prev: str, actor: str, rules: str, side: SideMove) -> Event:
    """Build team-log entry ``n`` (chained onto ``prev``, the team log's previous hash or 64 zeros)."""
    return new_event(game_id=game_id, n=n, type=SIDE_MOVE_MADE, actor=actor, rules=rules, data=side.to_data(),
                     prev=prev)


def team_msg_id(game_id: str, team: int, n: int) -> str:
    """The JetStream de-duplication id of team-log entry ``n`` (distinct from the game log's ``<game>:<n>``)."""
    return f"{game_id}:team{team}:{n}"


def team_chain_problem(events: list[Event], game_id: str, team: int) -> tuple[int, str, str] | None:
    """Return (n, field, German reason) where a team log's own chain breaks, None when it holds: numbered 1..k,
    each ``prev`` the previous entry's hash (64 zeros first), each hash recomputing, every entry a SideMoveMade of
    this game and team, ``after`` never going back."""
    prev, after = GENESIS, 0
    for expected_n, event in enumerate(events, start=1):
        if event.n != expected_n:
            return expected_n, "n", f"Eintrag {expected_n} des Teamprotokolls fehlt oder ist doppelt."
        if event.game_id != game_id:
            return event.n, "game_id", "Der Eintrag gehört zu einer anderen Partie."
        if event.type != SIDE_MOVE_MADE:
            return event.n, "type", "Im Teamprotokoll stehen nur Nebenzüge (SideMoveMade)."
        if event.data.get("team") != team:
            return event.n, "data.team", "Der Eintrag gehört zum Protokoll eines anderen Teams."
        if event.prev != prev:
            return event.n, "prev", f"Der Eintrag verweist nicht auf den Hash von Eintrag {event.n - 1}."
        if compute_hash(event) != event.hash:
            return event.n, "hash", ("Der Inhalt des Eintrags passt nicht zu seinem Hash: er wurde nachträglich "
                                     "geändert.")
        following = event.data.get("after")
        if not isinstance(following, int) or isinstance(following, bool) or following < after:
            return event.n, "data.after", "Die Einträge folgen dem Spielprotokoll nicht in seiner Reihenfolge."
        prev, after = event.hash, following
    return None
