"""Checks (c)-(e): replay every move with the named rule version and compare what the log recorded.

An independent fold of the log over ``libs.rules`` (it mirrors the table's semantics, documented in
docs/audit.md, but shares no code with the table): GameStarted sets the game up from its settings, seats
and the revealed seed; each MoveMade must be legal for its seat and its effects must be the recomputed
ones (private parts compared by their salted digest, so a player's copy verifies too); PlayerLeft hands
the seat to the computer; GameEnded's outcome must be the recomputed one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from libs.audit import actors
from libs.audit.compare import first_difference, plain
from libs.audit.report import AuditReport, Difference, TimeoutMove
from libs.audit.team_logs import SideReplay, TeamLog, TeamLogProblem, check_team_logs
from libs.platform.envelope import Event, EventType, parse_stamp, utc_stamp
from libs.platform.private import PRIVATE, digest_of, is_sealed, redact, salt_for, seal
from libs.platform.table_options import GRACE_SECONDS
from libs.rules import IllegalMove, registry
from libs.rules.engine import UNDO_MOVE, Engine, Position, Step, audience_of
from libs.rules.registry import UnknownRules

Progress = Callable[[int, int], None]
"""Called after each replayed event with (events replayed, events in all)."""

CHOSEN_BY = ("player", "bot", "timeout", "departed", "operator")
"""Who may have chosen a move, as the table writes it."""
CHOSEN_FOR_DEPARTED = ("departed", "timeout")
"""Who may still decide for a seat whose human left: the computer playing on, or a deadline set before."""
TIMEOUT_ACTOR = "system"
"""The actor the table writes on a move the computer made after a timeout."""


class Stop(Exception):
    """The replay found its first difference."""

    def __init__(self, difference: Difference) -> None:
        super().__init__(difference.reason)
        self.difference = difference


@dataclass
class Fold:
    """The game while the audit replays it."""

    game_id: str
    seed: bytes
    engine: Engine
    position: Position
    seats: list[dict[str, Any]]
    think_time: int | None
    clocks: list[tuple[int, str] | None]
    left: set[int] = field(default_factory=set)
    left_with_others: set[int] = field(default_factory=set)
    ended: bool = False
    started: Event | None = None
    """GameStarted: the seats, settings and mode every later event is checked against."""
    left_at: dict[int, int] = field(default_factory=dict)
    """Per seat whose human left: the PlayerLeft event's number."""


def replay_log(events: list[Event], seed: bytes, report: AuditReport, progress: Progress | None = None,
               team_logs: list[TeamLog] | None = None) -> None:
    """Replay ``events`` (the chain already holds); raise Stop at the first difference, fill ``report`` else.

    ``team_logs``: the export's team logs (side moves), checked and folded in at their places
    (``libs.audit.team_logs``)."""
    fold = _begin(events[0], seed)
    report.rules = fold.engine.rules_id
    sides = SideReplay.of(team_logs or [])
    sides.mover = lambda event, seat, chosen_by: actors.side_mover_difference(fold.seats, fold.left_at, event,
                                                                              seat, chosen_by)
    try:
        if team_logs:
            check_team_logs(team_logs, events, fold.engine, events[0].data.get("settings"), len(fold.seats))
        fold.position = sides.after(fold.engine, fold.position, 1)
    except TeamLogProblem as problem:
        raise Stop(problem.difference) from None
    total = len(events)
    for index, event in enumerate(events[1:], start=2):
        if fold.ended:
            raise Stop(Difference("replay", event.n, "type", "kein weiteres Ereignis", event.type,
                                  "Nach GameEnded darf nichts mehr folgen."))
        if event.rules != fold.engine.rules_id:
            raise Stop(Difference("replay", event.n, "rules", fold.engine.rules_id, event.rules,
                                  "Das Ereignis nennt eine andere Regelversion als GameStarted."))
        try:
            _fold(fold, event, report)
        except Stop:
            raise
        except Exception as error:  # a crafted event the rules cannot even read: a difference, not a crash
            raise Stop(Difference("replay", event.n, "data", "ein lesbares Ereignis", type(error).__name__,
                                  f"Das Ereignis lässt sich nicht nachspielen ({error}).")) from None
        try:
            fold.position = sides.after(fold.engine, fold.position, event.n)
        except TeamLogProblem as problem:
            raise Stop(problem.difference) from None
        if progress is not None:
            progress(index, total)
    if not fold.ended:
        last = events[-1]
        raise Stop(Difference("replay", last.n, "type", EventType.GAME_ENDED, last.type,
                              "Das Protokoll endet ohne GameEnded: die Partie ist nicht abgeschlossen."))


def _fold(fold: Fold, event: Event, report: AuditReport) -> None:
    """Replay one event after GameStarted."""
    if event.type == EventType.MOVE_MADE:
        _move(fold, event, report)
        report.moves += 1
    elif event.type == EventType.PLAYER_LEFT:
        _left(fold, event)
    elif event.type == EventType.GAME_ENDED:
        _ended(fold, event, report)
    else:
        raise Stop(Difference("replay", event.n, "type", "MoveMade, PlayerLeft oder GameEnded", event.type,
                              "Unbekannte Ereignisart."))


def _begin(started: Event, seed: bytes) -> Fold:
    """Set the game up from GameStarted and the revealed seed."""
    data = started.data
    if started.type != EventType.GAME_STARTED:
        raise Stop(Difference("replay", started.n, "type", EventType.GAME_STARTED, started.type,
                              "Das Protokoll beginnt nicht mit GameStarted."))
    rules_id = data.get("rules", started.rules)
    if rules_id != started.rules:
        raise Stop(Difference("replay", 1, "data.rules", started.rules, rules_id,
                              "GameStarted nennt zwei verschiedene Regelversionen."))
    try:
        engine = registry.engine(str(rules_id))
    except UnknownRules:
        raise Stop(Difference("replay", 1, "rules", "eine bekannte Regelversion", rules_id,
                              "Diese Regelversion ist unbekannt: die Partie lässt sich nicht nachspielen.")) from None
    if data.get("game") != engine.module.game:
        raise Stop(Difference("replay", 1, "data.game", engine.module.game, data.get("game"),
                              "Das Spiel passt nicht zur Regelversion."))
    seats = data.get("seats")
    if not isinstance(seats, list) or not seats or not all(isinstance(seat, dict) for seat in seats):
        raise Stop(Difference("replay", 1, "data.seats", "die Plätze", seats, "GameStarted nennt keine Plätze."))
    try:
        position = engine.start(data.get("settings") or {}, len(seats), seed)
    except Exception as error:  # the rules refuse the settings: nothing can be replayed
        raise Stop(Difference("replay", 1, "data.settings", "gültige Einstellungen", data.get("settings"),
                              f"Die Regeln lehnen die Einstellungen ab ({error}).")) from None
    _stop(actors.started_difference(started, engine))
    think_time = (data.get("platform") or {}).get("think_time")
    fold = Fold(game_id=started.game_id, seed=seed, engine=engine, position=position, seats=seats,
                think_time=think_time if isinstance(think_time, int) else None, clocks=[None] * len(seats),
                started=started)
    fold.clocks = _clocks_after(fold, started)
    return fold


def _clocks_after(fold: Fold, event: Event) -> list[tuple[int, str] | None]:
    """Per seat, the event (n, at) its must-act decision began with, once ``event`` led to ``fold.position``
    (the table's think time runs from it)."""
    position = fold.position
    result: list[tuple[int, str] | None] = []
    for seat, decision in enumerate(position.decisions):
        if decision is None or not decision.must:
            result.append(None)
        elif decision.began == position.ply:
            result.append((event.n, event.at))
        else:
            result.append(fold.clocks[seat] if seat < len(fold.clocks) else None)
    return result


def _move(fold: Fold, event: Event, report: AuditReport) -> None:
    """Replay one MoveMade and compare its move's seal and its effects with the recomputed ones."""
    data = event.data
    seat = _seat_of(fold, event)
    chosen_by = data.get("chosen_by")
    if chosen_by not in CHOSEN_BY:
        raise Stop(Difference("replay", event.n, "data.chosen_by", list(CHOSEN_BY), chosen_by,
                              "Unbekannte Herkunft des Zuges."))
    if seat in fold.left and (chosen_by not in CHOSEN_FOR_DEPARTED or event.actor == fold.seats[seat].get("player_id")):
        raise Stop(Difference("replay", event.n, "data.chosen_by", list(CHOSEN_FOR_DEPARTED), chosen_by,
                              f"Platz {seat + 1} hatte die Partie verlassen; nur der Computer zieht noch für ihn."))
    _stop(actors.mover_difference(fold.seats, fold.left_at, event, seat, chosen_by))
    clock_before, position_before = fold.clocks[seat], fold.position
    move = _move_of(fold, event, seat)
    if fold.engine.side_channel(fold.position, seat, move) is not None:
        raise Stop(Difference("replay", event.n, "data.move", "ein Zug des Spielprotokolls", move,
                              "Nach den Regeln ist dieser Zug ein Nebenzug seines Teams: im Spielprotokoll verrät "
                              "er den anderen, dass er gemacht wurde."))
    try:
        applied = fold.engine.apply(fold.position, seat, move)
    except IllegalMove as error:
        raise Stop(Difference("replay", event.n, "data.move", "ein nach den Regeln erlaubter Zug", move,
                              f"Der Zug ist nach den Regeln nicht erlaubt: {error.reason}")) from None
    except Exception as error:  # a move the rules cannot even read is no legal move either
        raise Stop(Difference("replay", event.n, "data.move", "ein nach den Regeln erlaubter Zug", move,
                              f"Der Zug ist nach den Regeln nicht lesbar ({type(error).__name__}).")) from None
    _compare_sealing(fold, event, move, applied)
    _compare_effects(fold, event, applied)
    if chosen_by == "timeout":
        report.timeouts.append(_timeout(fold, event, seat, clock_before))
        _stop(actors.timeout_difference(fold.engine, position_before, fold.left_at, event, seat, move, clock_before))
    if applied.undo:
        report.undone.append(event.n)
    fold.position = applied.position
    fold.clocks = _clocks_after(fold, event)


def _stop(difference: Difference | None) -> None:
    """Raise Stop with ``difference``, if there is one."""
    if difference is not None:
        raise Stop(difference)


def _seat_of(fold: Fold, event: Event) -> int:
    """Return the event's ``data.seat``; raise Stop unless it is a seat of the game."""
    seat = event.data.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(fold.seats):
        raise Stop(Difference("replay", event.n, "data.seat", f"0..{len(fold.seats) - 1}", seat,
                              "Diesen Platz gibt es in der Partie nicht."))
    return seat


def _salt(fold: Fold, n: int, index: int) -> str:
    return salt_for(fold.seed, fold.game_id, n, index)


def _move_of(fold: Fold, event: Event, seat: int) -> Any:
    """Return the move as made: the recorded one, or, behind a digest (another team's signal in a player's
    copy), the one legal move whose salted digest it is."""
    recorded: Any = event.data.get("move")
    if not is_sealed(recorded):
        return recorded
    inner = recorded[PRIVATE]
    if "value" in inner:
        return inner["value"]
    salt = _salt(fold, event.n, 1)
    candidates = fold.engine.legal_moves(fold.position, seat)
    if fold.engine.can_undo(fold.position, seat):
        candidates = [*candidates, UNDO_MOVE]
    for candidate in candidates:
        if digest_of(candidate, salt) == inner.get("digest"):
            return candidate
    raise Stop(Difference("replay", event.n, "data.move", "ein erlaubter Zug mit diesem Digest", recorded,
                          "Kein erlaubter Zug dieses Platzes passt zum Digest des verdeckten Zuges."))


def _compare_sealing(fold: Fold, event: Event, move: Any, applied: Step) -> None:
    """The move is sealed exactly when the rules say only some seats may read it, for those seats."""
    recorded = event.data.get("move")
    if applied.move_audience is None:
        expected: Any = plain(move)
    else:
        expected = redact(seal(move, applied.move_audience, _salt(fold, event.n, 1)))
    found = plain(redact(recorded))
    difference = first_difference(expected, found, "data.move")
    if difference is not None:
        raise Stop(Difference("replay", event.n, difference[0], difference[1], difference[2],
                              "Der Zug ist anders verzeichnet, als die Regeln ihn zeigen oder verdecken."))


def _compare_effects(fold: Fold, event: Event, applied: Step) -> None:
    """The recorded effects are the recomputed ones: public ones equal, private ones by audience and digest."""
    index = 1 if applied.move_audience is not None else 0
    expected: list[Any] = []
    for effect in applied.effects:
        audience = audience_of(effect)
        if audience is None:
            expected.append(plain(effect))
        else:
            index += 1
            expected.append(redact(seal(effect, audience, _salt(fold, event.n, index))))
    recorded = event.data.get("effects", [])
    found = plain(redact(recorded)) if isinstance(recorded, list) else recorded
    difference = first_difference(expected, found, "data.effects")
    if difference is not None:
        raise Stop(Difference("replay", event.n, difference[0], difference[1], difference[2],
                              "Die verzeichneten Folgen des Zuges weichen von den nachgerechneten ab."))


def _moment(stamp: str) -> datetime | None:
    try:
        return parse_stamp(stamp)
    except ValueError:
        return None


def _timeout(fold: Fold, event: Event, seat: int, clock: tuple[int, str] | None) -> TimeoutMove:
    """Return the timeout move as listed; raise Stop where no think time could have run out for it."""
    kind = fold.seats[seat].get("kind")
    impossible = (
        "Ein Computerplatz hat keine Bedenkzeit." if kind == "bot"
        else "Die Partie wurde ohne Bedenkzeit gespielt." if fold.think_time is None
        else "Der Platz hatte keine laufende Entscheidung, deren Bedenkzeit ablaufen konnte." if clock is None
        else "Nach einer Zeitüberschreitung zieht der Computer (actor system), kein Spieler."
        if event.actor != TIMEOUT_ACTOR else None)
    if impossible is not None:
        raise Stop(Difference("timeout", event.n, "data.chosen_by", "player, bot oder departed", "timeout",
                              f"Als Zeitüberschreitung markiert, aber: {impossible}"))
    assert clock is not None and fold.think_time is not None
    began, moved = _moment(clock[1]), _moment(event.at)
    _stop(actors.unreadable_stamps(event, began, moved))
    assert began is not None and moved is not None
    deadline = began + timedelta(seconds=fold.think_time)
    # Past the think time but within the table's grace: possible only with another table process's clock.
    # Before the think time ran out: a difference, reported once the replay is through (check.py).
    early = deadline <= moved < deadline + timedelta(seconds=GRACE_SECONDS)
    return TimeoutMove(n=event.n, seat=seat, at=event.at, decision_began=clock[0], deadline=utc_stamp(deadline),
                       early=early, premature=moved < deadline)


def _left(fold: Fold, event: Event) -> None:
    """A human left: the computer plays on for the seat (refused after the end, twice, or for a computer)."""
    data = event.data
    seat = _seat_of(fold, event)
    if fold.engine.is_over(fold.position):
        raise Stop(Difference("replay", event.n, "type", EventType.GAME_ENDED, event.type,
                              "Die Partie war schon zu Ende; verlassen ging nicht mehr."))
    if seat in fold.left:
        raise Stop(Difference("replay", event.n, "data.seat", "ein Platz, der noch spielt", seat,
                              f"Platz {seat + 1} hatte die Partie schon verlassen."))
    player = fold.seats[seat].get("player_id")
    if data.get("player_id") != player:
        raise Stop(Difference("replay", event.n, "data.player_id", player, data.get("player_id"),
                              "Verlassen hat nicht, wer an diesem Platz saß."))
    others = any(other.get("kind") == "human" and index != seat and index not in fold.left
                 for index, other in enumerate(fold.seats))
    if bool(data.get("with_other_humans", False)) != others:
        raise Stop(Difference("replay", event.n, "data.with_other_humans", others, data.get("with_other_humans"),
                              "Ob noch andere Menschen spielten, ist falsch verzeichnet."))
    _stop(actors.left_difference(fold.seats, event, seat))
    fold.left.add(seat)
    fold.left_at[seat] = event.n
    if others:
        fold.left_with_others.add(seat)


def _ended(fold: Fold, event: Event, report: AuditReport) -> None:
    """GameEnded: the game is over by the rules, its outcome and who left are the recomputed ones."""
    if not fold.engine.is_over(fold.position):
        raise Stop(Difference("outcome", event.n, "type", "weitere Züge", event.type,
                              "Nach den Regeln war die Partie hier noch nicht zu Ende."))
    expected = report.outcome = plain(fold.engine.outcome(fold.position).to_json())
    found = event.data.get("outcome")
    for key in ("places", "scores"):  # ranking and scores first: the difference that matters most
        difference = first_difference(expected.get(key), (found or {}).get(key) if isinstance(found, dict) else None,
                                      f"data.outcome.{key}")
        if difference is not None:
            raise Stop(Difference("outcome", event.n, *difference,
                                  reason="Das verzeichnete Ergebnis weicht vom nachgerechneten ab."))
    difference = first_difference(expected, found, "data.outcome")
    if difference is not None:
        raise Stop(Difference("outcome", event.n, *difference,
                              reason="Das verzeichnete Ergebnis weicht vom nachgerechneten ab."))
    for key, seats in (("left", fold.left), ("left_with_other_humans", fold.left_with_others)):
        recorded = event.data.get(key, [])
        if recorded != sorted(seats):
            raise Stop(Difference("outcome", event.n, f"data.{key}", sorted(seats), recorded,
                                  "Wer die Partie verließ, ist anders verzeichnet als im Protokoll."))
    assert fold.started is not None
    _stop(actors.ended_difference(fold.started, fold.engine, fold.position, fold.left, event))
    fold.ended = True
