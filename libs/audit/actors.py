"""Who did what: every field the replay does not recompute, checked against what the log itself proves.

The replay (``replay.py``) recomputes moves, effects and the outcome. This module checks the rest of every
event (docs/audit.md, "Who did what: every field and what it is checked against"):

- GameStarted: written by the table (``actor`` "system"), seats well-formed (a human by player id, a
  computer by one of the platform's levels and names; no human in two seats), settings normalised by the rules,
  table settings the platform offers, a solo mode the game declares. GameStarted is the premise every later
  check rests on.
- MoveMade: ``actor`` and ``chosen_by`` are what the table writes for that seat at that moment (its human,
  the computer of the seat's level, the computer for a seat whose human left, or the table after a think
  time ran out), and a timeout move is possible at all: a clock ran for that decision, the player had not
  left before it began, the log's timestamps put it after the deadline, and it is the game's own timeout
  move where the rules name one. A move the operator's tools made in a human's seat (``chosen_by:
  "operator"``) is always a difference: nobody but the player moves for the player.
- PlayerLeft: left by the human of that seat, in their own name.
- GameEnded: the seats, variant, game, rules, table, mode, reveal time, list keys and badges are those the
  log proves (GameStarted's and the rules' from the replayed game); no field the table does not write.

Each function returns the first difference, or None. Pure: the rules and the log only (no service code;
where the table's rule is needed, e.g. what computers are called, it is restated here).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from libs.audit.compare import first_difference, plain
from libs.audit.report import Difference, TimeoutMove
from libs.platform import table_options as options
from libs.platform.envelope import Event
from libs.rules.engine import Engine, Position
from libs.rules.home import Finished, list_key

TABLE_ACTOR = "system"
"""The actor of every event the table writes on its own: GameStarted, GameEnded, a move after a timeout."""
DEPARTED_LEVEL = "normal"
"""The level of the computer that plays on for a seat whose human left (the table asks for this level)."""
BOT_NAMES = frozenset({"Computer", *(f"Computer {number}" for number in range(1, 17))})
"""What the table lets a computer seat be called (restated from the table: no computer passes for a person)."""
NAME_LENGTH = 40
"""The table cuts a seat's name to this many characters."""

STARTED_FIELDS = frozenset({"game", "rules", "settings", "seats", "platform", "table_id", "seed", "seed_commitment",
                            "mode", "seed_reveal_at"})
MOVE_FIELDS = frozenset({"seat", "move", "chosen_by", "effects"})
LEFT_FIELDS = frozenset({"seat", "player_id", "with_other_humans"})
ENDED_FIELDS = frozenset({"game", "variant", "rules", "table_id", "seats", "outcome", "seed", "left",
                          "left_with_other_humans", "mode", "seed_reveal_at", "list_keys", "badges", "teams"})
SEAT_FIELDS = ("name", "kind", "player_id", "level", "account")
MODE_FIELDS = frozenset({"key", "day", "attempt", "stage"})
PLATFORM_FIELDS = frozenset({"think_time", "tempo", "turbo", "stake"})


def bot_actor(level: str) -> str:
    """Return the actor the table writes on a computer's move of ``level`` (the bot service's name for it)."""
    return f"bot:{level}"


def _fields(event: Event, allowed: frozenset[str]) -> Difference | None:
    """The event's data holds no field the table does not write for its type (a reader would ignore it)."""
    unknown = sorted(set(event.data) - allowed)
    if unknown:
        return Difference("actors", event.n, f"data.{unknown[0]}", "kein solches Feld", event.data[unknown[0]],
                          f"{event.type} hat kein Feld „{unknown[0]}“: der Tisch schreibt es nicht.")
    return None


# ---- GameStarted ------------------------------------------------------------------------------------------
def started_difference(started: Event, engine: Engine) -> Difference | None:
    """Return the first thing GameStarted holds that the table never writes, None if it is well-formed.

    GameStarted is the premise: nothing earlier proves its seats or settings. What the audit can check is
    that it is what the table writes: by the table, seats it accepts, settings the rules normalised (a
    fixed point of ``normalize_config``), table settings the platform offers, a solo mode the game declares.
    """
    data = started.data
    if started.actor != TABLE_ACTOR:
        return Difference("actors", 1, "actor", TABLE_ACTOR, started.actor,
                          "GameStarted schreibt der Tisch selbst (actor system), kein Spieler.")
    difference = _fields(started, STARTED_FIELDS)
    if difference is not None:
        return difference
    for index, seat in enumerate(data["seats"]):
        difference = _seat_difference(seat, index)
        if difference is not None:
            return difference
    difference = _twice_seated(data["seats"])
    if difference is not None:
        return difference
    settings = data.get("settings")
    try:
        normalised = plain(engine.normalize_config(settings, len(data["seats"])))
    except Exception as error:  # refused settings: reported with the rules' own reason
        return Difference("actors", 1, "data.settings", "gültige Einstellungen", settings,
                          f"Die Regeln lehnen die Einstellungen ab ({error}).")
    where = first_difference(normalised, settings, "data.settings")
    if where is not None:
        return Difference("actors", 1, *where,
                          reason="Die Einstellungen sind nicht die von den Regeln vervollständigten (normalisierten).")
    difference = _platform_difference(data.get("platform"))
    if difference is not None:
        return difference
    return _mode_difference(started, engine)


def _seat_difference(seat: Any, index: int) -> Difference | None:
    """A seat as the table writes it: a human with player id and no level, or a computer of a known level."""
    where = f"data.seats[{index}]"
    if not isinstance(seat, dict) or set(seat) != set(SEAT_FIELDS):
        return Difference("actors", 1, where, list(SEAT_FIELDS), sorted(seat) if isinstance(seat, dict) else seat,
                          f"Platz {index + 1} ist nicht beschrieben, wie der Tisch Plätze schreibt.")
    name = seat["name"]
    if not isinstance(name, str) or not name or len(name) > NAME_LENGTH:
        return Difference("actors", 1, f"{where}.name", f"ein Name (1 bis {NAME_LENGTH} Zeichen)", name,
                          f"Platz {index + 1} hat keinen gültigen Namen.")
    if seat["kind"] == "human":
        if not isinstance(seat["player_id"], str) or not seat["player_id"]:
            return Difference("actors", 1, f"{where}.player_id", "die Kennung des Spielers", seat["player_id"],
                              f"Auf Platz {index + 1} sitzt ein Mensch ohne Spielerkennung.")
        if seat["level"] is not None:
            return Difference("actors", 1, f"{where}.level", None, seat["level"],
                              f"Auf Platz {index + 1} sitzt ein Mensch; eine Computerstufe hat er nicht.")
        return None
    if seat["kind"] != "bot":
        return Difference("actors", 1, f"{where}.kind", ["human", "bot"], seat["kind"],
                          f"Platz {index + 1} ist weder Mensch noch Computer.")
    if seat["level"] not in options.BOT_LEVELS:
        return Difference("actors", 1, f"{where}.level", list(options.BOT_LEVELS), seat["level"],
                          f"Platz {index + 1}: Computergegner gibt es nur als easy, normal oder strong.")
    for key in ("player_id", "account"):
        if seat[key] is not None:
            return Difference("actors", 1, f"{where}.{key}", None, seat[key],
                              f"Auf Platz {index + 1} sitzt ein Computer; ein Spielerkonto hat er nicht.")
    if name not in BOT_NAMES:
        return Difference("actors", 1, f"{where}.name", "Computer, Computer 1, Computer 2, …", name,
                          f"Platz {index + 1} ist ein Computer und heißt doch nicht „Computer“.")
    return None


def _twice_seated(seats: list[dict[str, Any]]) -> Difference | None:
    """No human holds two seats of one game (the lobby and the table refuse it); computers, without a player id,
    may hold any number. The difference names the later seat's player id and both seats."""
    first_seat: dict[str, int] = {}
    for index, seat in enumerate(seats):
        if seat["kind"] != "human":
            continue
        earlier = first_seat.setdefault(seat["player_id"], index)
        if earlier != index:
            return Difference("actors", 1, f"data.seats[{index}].player_id",
                              f"ein anderer Spieler als auf Platz {earlier + 1}", seat["player_id"],
                              f"Platz {earlier + 1} und Platz {index + 1} nennen denselben Spieler "
                              f"({seat['player_id']}): jeder Mensch spielt auf genau einem Platz einer Partie.")
    return None


def _platform_difference(platform: Any) -> Difference | None:
    """The table settings are ones the platform offers (absent in logs before think times: the defaults)."""
    if platform is None:
        return None
    if not isinstance(platform, dict) or not set(platform) <= PLATFORM_FIELDS:
        return Difference("actors", 1, "data.platform", sorted(PLATFORM_FIELDS), platform,
                          "Die Tischeinstellungen sind nicht die, die der Tisch schreibt.")
    checks = (("think_time", options.think_time), ("tempo", options.tempo), ("turbo", options.turbo),
              ("stake", options.stake))
    for key, check in checks:
        if key not in platform:
            continue
        try:
            accepted = check(platform[key])
        except options.InvalidTableOption as refused:
            return Difference("actors", 1, f"data.platform.{key}", "ein angebotener Wert", platform[key],
                              refused.reason)
        if accepted != platform[key]:
            return Difference("actors", 1, f"data.platform.{key}", accepted, platform[key],
                              "Die Tischeinstellung ist nicht so verzeichnet, wie der Tisch sie speichert.")
    return None


def _mode_difference(started: Event, engine: Engine) -> Difference | None:
    """A solo mode the game declares; a reveal time exactly for a daily mode's game."""
    data = started.data
    mode, reveal = data.get("mode"), data.get("seed_reveal_at")
    if mode is None:
        if "mode" in data:
            return Difference("actors", 1, "data.mode", "kein Feld", None, "Ein Spielmodus null ist kein Modus.")
        if reveal is not None:
            return Difference("actors", 1, "data.seed_reveal_at", None, reveal,
                              "Nur eine Tagespartie deckt ihre Saat zu einer festen Zeit auf.")
        return None
    if not isinstance(mode, dict) or not set(mode) <= MODE_FIELDS or not isinstance(mode.get("key"), str):
        return Difference("actors", 1, "data.mode", sorted(MODE_FIELDS), mode, "Der Spielmodus ist unlesbar.")
    solo = engine.spec.home.mode(mode["key"])
    if solo is None:
        return Difference("actors", 1, "data.mode.key", [known.key for known in engine.spec.home.modes],
                          mode["key"], "Diesen Spielmodus kennt das Spiel nicht.")
    if solo.daily != isinstance(reveal, str):
        return Difference("actors", 1, "data.seed_reveal_at", "eine Zeit" if solo.daily else None, reveal,
                          "Genau eine Tagespartie deckt ihre Saat zu einer festen Zeit auf.")
    return None


# ---- MoveMade ---------------------------------------------------------------------------------------------
def mover_difference(seats: list[dict[str, Any]], left_at: Mapping[int, int], event: Event, seat: int,
                     chosen_by: str) -> Difference | None:
    """Return how the move's ``actor`` and ``chosen_by`` differ from what the table writes for ``seat`` now.

    The table writes: a computer's seat ``chosen_by: "bot"``, actor ``bot:<the seat's level>``; a human's
    own move ``"player"``, actor their player id; the computer for a seat whose human left ``"departed"``,
    actor ``bot:normal``; a think time that ran out ``"timeout"``, actor ``system`` (never a computer's seat).
    """
    difference = _fields(event, MOVE_FIELDS)
    if difference is not None:
        return difference
    return _mover(seats, left_at, event, seat, chosen_by)


def side_mover_difference(seats: list[dict[str, Any]], left_at: Mapping[int, int], event: Event, seat: int,
                          chosen_by: str) -> Difference | None:
    """Return how a team log's side move's ``actor`` and ``chosen_by`` differ from what the table writes for
    ``seat`` at that point: as for a move, except that no think time ever chooses a side move (a signal is
    never anyone's must-decision)."""
    if chosen_by == "timeout":
        return Difference("actors", event.n, "data.chosen_by", ["player", "bot", "departed"], chosen_by,
                          f"Einen Nebenzug von Platz {seat + 1} wählt keine abgelaufene Bedenkzeit: "
                          "er ist nie eine Entscheidung, die fällig ist.")
    return _mover(seats, left_at, event, seat, chosen_by)


def _mover(seats: list[dict[str, Any]], left_at: Mapping[int, int], event: Event, seat: int,
           chosen_by: str) -> Difference | None:
    """The actor rules shared by the game log's moves and the team logs' side moves."""
    sitting, number = seats[seat], seat + 1
    if sitting.get("kind") == "bot":
        if chosen_by == "timeout":
            return None  # the timeout check says why a computer's seat has no think time
        if chosen_by != "bot":
            return Difference("actors", event.n, "data.chosen_by", "bot", chosen_by,
                              f"Auf Platz {number} sitzt ein Computer; seine Züge wählt der Computer (bot).")
        expected = bot_actor(str(sitting.get("level")))
        if event.actor != expected:
            return Difference("actors", event.n, "actor", expected, event.actor,
                              f"Auf Platz {number} spielt der Computer der Stufe „{sitting.get('level')}“ "
                              "(laut GameStarted), kein anderer.")
        return None
    if seat in left_at:
        if chosen_by == "departed" and event.actor != bot_actor(DEPARTED_LEVEL):
            return Difference("actors", event.n, "actor", bot_actor(DEPARTED_LEVEL), event.actor,
                              f"Für Platz {number} spielt seit Ereignis {left_at[seat]} der Computer "
                              f"der Stufe „{DEPARTED_LEVEL}“ weiter, kein anderer.")
        return None  # chosen_by "player"/"bot" on a left seat: the replay's departed check says why
    if chosen_by == "operator":
        return Difference("actors", event.n, "data.chosen_by", ["player", "timeout"], chosen_by,
                          f"Den Zug auf Platz {number} hat der Betrieb gesetzt (table.cmd.play), nicht der Mensch, "
                          "der dort sitzt: einen Zug im Namen eines Spielers darf der Betrieb in keiner Partie "
                          "machen.")
    if chosen_by == "player":
        if event.actor != sitting.get("player_id"):
            return Difference("actors", event.n, "actor", sitting.get("player_id"), event.actor,
                              f"Den Zug auf Platz {number} hat nicht gemacht, wer dort laut GameStarted sitzt.")
        return None
    if chosen_by in ("bot", "departed"):
        reason = (f"Auf Platz {number} sitzt laut GameStarted ein Mensch; ein Computer zieht dort nicht."
                  if chosen_by == "bot" else
                  f"Platz {number} hat niemand verlassen (kein PlayerLeft davor); der Computer zieht dort nicht.")
        return Difference("actors", event.n, "data.chosen_by", ["player", "timeout"], chosen_by, reason)
    return None  # "timeout": timeout_difference


def timeout_difference(engine: Engine, position: Position, left_at: Mapping[int, int], event: Event, seat: int,
                       move: Any, clock: tuple[int, str] | None) -> Difference | None:
    """For a ``chosen_by: "timeout"`` move, what the log proves besides a running clock (checked in
    ``replay._timeout``): the decision began before the seat's human left (the table sets no deadline for a
    seat the computer already plays), and where the rules name the move a timeout makes, it is that move."""
    if clock is not None and seat in left_at and clock[0] > left_at[seat]:
        return Difference("timeout", event.n, "data.chosen_by", "departed", "timeout",
                          f"Die Entscheidung von Platz {seat + 1} begann in Ereignis {clock[0]}, nach dem "
                          f"Verlassen in Ereignis {left_at[seat]}: für sie lief keine Bedenkzeit.")
    expected = engine.timeout_move(position, seat)
    if expected is not None:
        difference = first_difference(plain(expected), plain(move), "data.move")
        if difference is not None:
            return Difference("timeout", event.n, *difference,
                              reason="Bei abgelaufener Bedenkzeit macht das Spiel einen festen Zug; "
                                     "verzeichnet ist ein anderer.")
    return None


def unreadable_stamps(event: Event, began: datetime | None, moved: datetime | None) -> Difference | None:
    """A timeout move's timestamp, and that of the event its decision began with, must be readable times."""
    if began is None or moved is None:
        return Difference("timeout", event.n, "at", "ein Zeitpunkt (ISO 8601)", event.at,
                          "Der Zeitpunkt des Zuges oder des Beginns der Entscheidung ist unlesbar.")
    return None


def premature_difference(timeouts: list[TimeoutMove], think_time: int | None) -> Difference | None:
    """The first timeout move the log's own timestamps place before its think time ran out, None if none.

    The table moves for a late player only after the think time plus ``GRACE_SECONDS`` (its clock, rounded up
    to the second); the grace absorbs clocks of different table processes. Before the bare think time a
    timeout cannot be: such a move is a player's (or the computer's) move relabelled.
    """
    for move in timeouts:
        if move.premature:
            return Difference("timeout", move.n, "at", f"frühestens {move.deadline}", move.at,
                              f"Als Zeitüberschreitung markiert, aber laut Zeitstempel lief die Bedenkzeit von "
                              f"Platz {move.seat + 1} ({think_time} s seit Ereignis {move.decision_began}) noch.")
    return None


# ---- PlayerLeft ---------------------------------------------------------------------------------------------
def left_difference(seats: list[dict[str, Any]], event: Event, seat: int) -> Difference | None:
    """A human left, in their own name (the actor of PlayerLeft is the leaving player)."""
    difference = _fields(event, LEFT_FIELDS)
    if difference is not None:
        return difference
    sitting = seats[seat]
    if sitting.get("kind") != "human":
        return Difference("actors", event.n, "data.seat", "ein Platz eines Menschen", seat,
                          f"Auf Platz {seat + 1} sitzt ein Computer; verlassen kann ihn niemand.")
    if event.actor != sitting.get("player_id"):
        return Difference("actors", event.n, "actor", sitting.get("player_id"), event.actor,
                          f"Platz {seat + 1} kann nur verlassen, wer dort sitzt, in eigenem Namen.")
    return None


# ---- GameEnded ----------------------------------------------------------------------------------------------
def ended_difference(started: Event, engine: Engine, position: Position, left: set[int],
                     event: Event) -> Difference | None:
    """Return the first field of GameEnded that is not what the log proves (outcome and who left are checked
    before, by the replay).

    Seats, game, rules, table and mode are GameStarted's; the variant is the rules' ``variant`` of
    GameStarted's settings; the seed is "" exactly for a daily game; list keys and badges are recomputed
    from the replayed game with the rules' own functions (``libs.rules.home``), as the table computes them.
    """
    data, begun = event.data, started.data
    if event.actor != TABLE_ACTOR:
        return Difference("actors", event.n, "actor", TABLE_ACTOR, event.actor,
                          "GameEnded schreibt der Tisch selbst (actor system), kein Spieler.")
    difference = _fields(event, ENDED_FIELDS)
    if difference is not None:
        return difference
    seats = [{**seat, "seat": index} for index, seat in enumerate(begun["seats"])]
    where = first_difference(seats, data.get("seats"), "data.seats")
    if where is not None:
        return Difference("actors", event.n, *where,
                          reason="Die Plätze in GameEnded sind nicht die aus GameStarted: die Bestenliste "
                                 "schriebe das Ergebnis anderen gut.")
    variant = engine.variant(begun.get("settings") or {})
    if data.get("variant") != variant:
        return Difference("actors", event.n, "data.variant", variant, data.get("variant"),
                          "Die Variante (Liste der Bestenliste) folgt aus den Einstellungen in GameStarted.")
    for key, expected in (("game", begun.get("game")), ("rules", started.rules), ("table_id", begun.get("table_id"))):
        if data.get(key) != expected or key not in data:
            return Difference("actors", event.n, f"data.{key}", expected, data.get(key),
                              f"GameEnded nennt ein anderes „{key}“ als GameStarted.")
    for key in ("mode", "seed_reveal_at"):
        if (key in data) != (key in begun) or data.get(key) != begun.get(key):
            return Difference("actors", event.n, f"data.{key}", begun.get(key), data.get(key),
                              f"GameEnded übernimmt „{key}“ aus GameStarted; hier steht etwas anderes.")
    if "teams" in data:  # absent in logs written before the field; when present, the rules' teams
        teams = [list(team) for team in engine.teams(begun.get("settings") or {}, len(begun["seats"]))]
        if data["teams"] != teams or not teams:
            return Difference("actors", event.n, "data.teams", teams or None, data["teams"],
                              "Die Teams folgen aus den Einstellungen in GameStarted; verzeichnet sind andere.")
    daily = "seed_reveal_at" in begun
    if daily != (data.get("seed") == ""):
        return Difference("actors", event.n, "data.seed", "" if daily else "die Saat (Hex)", data.get("seed"),
                          "Nur eine Tagespartie lässt die Saat in GameEnded leer (sie gehört dem ganzen Tag).")
    return _home_difference(begun, engine, position, left, event)


def _home_difference(begun: dict[str, Any], engine: Engine, position: Position, left: set[int],
                     event: Event) -> Difference | None:
    """List keys (a solo mode's game) and badges (a game that has badges) as the table computes them."""
    data, home = event.data, engine.spec.home
    outcome = engine.outcome(position)
    mode = begun.get("mode")
    solo = home.mode(mode["key"]) if isinstance(mode, dict) else None
    seats = begun["seats"]
    expected: dict[str, Any] = {}
    if solo is not None:
        expected["list_keys"] = [list(list_key(outcome, index, solo.list_order)) for index in range(len(seats))]
    if any(badge.earned is not None for badge in home.badges):
        expected["badges"] = [
            [] if seat.get("kind") == "bot" or index in left else list(home.earned(Finished(
                config=begun.get("settings") or {}, state=position.state, outcome=outcome, seat=index,
                seats=tuple(seats), mode=mode["key"] if isinstance(mode, dict) else None)))
            for index, seat in enumerate(seats)]
    for key in ("list_keys", "badges"):
        if (key in expected) != (key in data):
            return Difference("actors", event.n, f"data.{key}", expected.get(key), data.get(key),
                              f"„{key}“ steht genau dann in GameEnded, wenn Spielmodus und Spiel es verlangen.")
        where = first_difference(plain(expected.get(key)), data.get(key), f"data.{key}")
        if where is not None:
            reason = ("Die Listenschlüssel folgen aus dem Ergebnis und dem Spielmodus; verzeichnet sind andere."
                      if key == "list_keys" else
                      "Die Abzeichen folgen aus der nachgespielten Partie; verzeichnet sind andere.")
            return Difference("actors", event.n, *where, reason=reason)
    return None


# ---- the export's header ------------------------------------------------------------------------------------
def header_difference(header: Mapping[str, Any], started: Event) -> Difference | None:
    """The header's seats and table settings are GameStarted's (the header is a convenience; the log decides)."""
    begun = started.data
    if "seats" in header:
        seats = [{**seat, "seat": index} for index, seat in enumerate(begun.get("seats") or [])]
        difference = first_difference(seats, header["seats"], "seats")
        if difference is not None:
            return Difference("document", None, *difference,
                              reason="Der Kopf des Dokuments nennt andere Plätze als GameStarted.")
    if "platform" in header and "platform" in begun and header["platform"] != begun["platform"]:
        return Difference("document", None, "platform", begun["platform"], header["platform"],
                          "Der Kopf des Dokuments nennt andere Tischeinstellungen als GameStarted.")
    return None
