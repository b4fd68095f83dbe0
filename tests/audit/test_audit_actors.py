"""The audit checks who did what (issue 24, point 2): every forgery of a seat, an actor, a `chosen_by`, a timeout
or a GameEnded field the leaderboard trusts is caught, re-hashed or not, on every game, with its own German
verdict naming the event and the field."""

from __future__ import annotations

import copy
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from libs.audit import AuditReport, audit
from libs.platform.envelope import EventType, parse_stamp, utc_stamp
from libs.rules import registry
from tests.audit import test_audit
from tests.audit.forgery import rehash
from tests.audit.games import KINDS
from tests.audit.test_audit import Fixture, speed_audit

played = test_audit.played
"""The finished games of every module (played once for this module, as for test_audit's)."""
GAMES = list(KINDS)


def whole(played: Fixture, game: str) -> dict[str, Any]:
    """A fresh copy of the operator's export of ``game``."""
    return copy.deepcopy(played.games[game].whole)


def moves(document: dict[str, Any], chosen_by: str, seat: int | None = None) -> list[dict[str, Any]]:
    return [event for event in document["events"] if event["type"] == EventType.MOVE_MADE
            and event["data"]["chosen_by"] == chosen_by and (seat is None or event["data"]["seat"] == seat)]


def event_of(document: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(event for event in document["events"] if event["type"] == kind)


def caught(document: dict[str, Any], start: int) -> AuditReport:
    """Re-hash the forged export from event ``start`` on, audit it, and return the failed report."""
    rehash(document, start)
    report = audit(document)
    assert not report.passed, (start, report.lines())
    return report


def assert_verdict(report: AuditReport, check: str, n: int | None, field: str, reason: str) -> None:
    difference = report.difference
    assert difference is not None
    assert (difference.check, difference.n, difference.field) == (check, n, field), report.lines()
    assert reason in difference.reason, report.lines()


def test_every_game_has_a_move_of_its_human_a_computers_move_and_one_for_the_departed_human(played: Fixture) -> None:
    for game in GAMES:
        document = played.games[game].whole
        assert moves(document, "player", seat=0) and moves(document, "bot") and moves(document, "departed", seat=0)
        teams = ["team"] if document.get("team_logs") else []
        assert audit(document).checks == ["chain", "seed", "replay", "actors", "outcome", "timeout", *teams]


# ---- GameEnded: what the leaderboard credits -------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_swapped_seats_in_game_ended_are_caught(played: Fixture, game: str) -> None:
    document = whole(played, game)
    ended = document["events"][-1]
    first, second = ended["data"]["seats"][0], ended["data"]["seats"][1]
    for key in ("name", "player_id"):
        first[key], second[key] = second[key], first[key]
    report = caught(document, ended["n"])
    assert_verdict(report, "actors", ended["n"], "data.seats[0].name", "nicht die aus GameStarted")
    assert report.difference is not None and report.difference.found == "Computer"


def test_swapped_seats_in_the_daily_game_are_caught(played: Fixture) -> None:
    document = copy.deepcopy(played.daily)
    ended = document["events"][-1]
    seats = ended["data"]["seats"]
    seats[0]["player_id"], seats[1]["player_id"] = seats[1]["player_id"], seats[0]["player_id"]
    assert_verdict(caught(document, ended["n"]), "actors", ended["n"], "data.seats[0].player_id",
                   "die Bestenliste schriebe das Ergebnis anderen gut")


@pytest.mark.parametrize("game", GAMES)
def test_a_changed_variant_is_caught(played: Fixture, game: str) -> None:
    document = whole(played, game)
    ended = document["events"][-1]
    expected = ended["data"]["variant"]
    ended["data"]["variant"] = "sternpavillon" if expected != "sternpavillon" else "kachelwand"
    report = caught(document, ended["n"])
    assert_verdict(report, "actors", ended["n"], "data.variant", "folgt aus den Einstellungen")
    assert report.difference is not None and report.difference.expected == expected


def test_game_ended_copies_game_rules_table_mode_and_seed_from_the_log(played: Fixture) -> None:
    forgeries: list[tuple[str, Any, str, str]] = [
        ("table_id", "tisch-7", "data.table_id", "anderes „table_id“"),
        ("game", "speedkoi", "data.game", "anderes „game“"),
        ("mode", {"key": "solo"}, "data.mode", "übernimmt „mode“"),
        ("seed", "", "data.seed", "Nur eine Tagespartie"),
        ("bonus", 10, "data.bonus", "hat kein Feld „bonus“"),
    ]
    for key, value, field, reason in forgeries:
        document = whole(played, "speedmosaik")
        ended = document["events"][-1]
        ended["data"][key] = value
        if key == "seed":
            document["seed"] = document["seed"]  # the header still reveals it: the audit can replay
        assert_verdict(caught(document, ended["n"]), "actors", ended["n"], field, reason)


def test_changed_list_keys_and_badges_are_caught(played: Fixture) -> None:
    document = copy.deepcopy(played.daily)
    ended = document["events"][-1]
    assert "list_keys" in ended["data"]
    ended["data"]["list_keys"][0][0] += 1
    assert_verdict(caught(document, ended["n"]), "actors", ended["n"], "data.list_keys[0][0]",
                   "Listenschlüssel folgen aus dem Ergebnis")
    for game in GAMES:
        document = whole(played, game)
        ended = document["events"][-1]
        if "badges" not in ended["data"]:
            continue
        ended["data"]["badges"][1] = ["erste_partie"]  # a computer earns nothing
        assert_verdict(caught(document, ended["n"]), "actors", ended["n"], "data.badges[1].length",
                       "Abzeichen folgen aus der nachgespielten Partie")


def test_game_ended_names_the_rules_teams_and_a_changed_team_or_one_in_a_game_without_teams_is_caught(
        played: Fixture) -> None:
    document = whole(played, "speednova")  # four seats with teams
    ended = document["events"][-1]
    assert ended["data"]["teams"] == [[0, 2], [1, 3]]
    ended["data"]["teams"] = [[0, 1], [2, 3]]  # the rating would count the opponents as partners
    assert_verdict(caught(document, ended["n"]), "actors", ended["n"], "data.teams", "Die Teams folgen")
    document = whole(played, "speedmosaik")
    ended = document["events"][-1]
    assert "teams" not in ended["data"]
    ended["data"]["teams"] = [[0, 1]]
    assert_verdict(caught(document, ended["n"]), "actors", ended["n"], "data.teams", "Die Teams folgen")


# ---- MoveMade: actor and chosen_by -------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_a_humans_move_in_another_players_name_is_caught(played: Fixture, game: str) -> None:
    document = whole(played, game)
    move = moves(document, "player", seat=0)[0]
    move["actor"] = "bert-12345678"
    assert_verdict(caught(document, move["n"]), "actors", move["n"], "actor",
                   "nicht gemacht, wer dort laut GameStarted")


@pytest.mark.parametrize("game", GAMES)
def test_a_humans_move_relabelled_as_a_computers_is_caught(played: Fixture, game: str) -> None:
    for chosen_by, reason in (("bot", "sitzt laut GameStarted ein Mensch"), ("departed", "hat niemand verlassen")):
        document = whole(played, game)
        move = moves(document, "player", seat=0)[0]
        move["data"]["chosen_by"], move["actor"] = chosen_by, "bot:normal"
        assert_verdict(caught(document, move["n"]), "actors", move["n"], "data.chosen_by", reason)


@pytest.mark.parametrize("game", GAMES)
def test_a_humans_move_relabelled_as_a_timeout_is_caught(played: Fixture, game: str) -> None:
    # Without a think time there is nothing to run out.
    document = whole(played, game)
    move = moves(document, "player", seat=0)[0]
    move["data"]["chosen_by"], move["actor"] = "timeout", "system"
    assert_verdict(caught(document, move["n"]), "timeout", move["n"], "data.chosen_by", "ohne Bedenkzeit gespielt")
    # With one, the log's timestamps say it had not run out: the move came seconds after the decision began.
    # (Where the rules name the timeout move, the player's own move is not that one either: caught first.)
    document = whole(played, game)
    document["events"][0]["data"]["platform"]["think_time"] = document["platform"]["think_time"] = 30
    move = moves(document, "player", seat=0)[0]
    move["data"]["chosen_by"], move["actor"] = "timeout", "system"
    report = caught(document, 1)
    if registry.engine(f"{game}@1").spec.timeout.value == "game_chooses":
        assert report.difference is not None and report.difference.field.startswith("data.move"), report.lines()
        assert_verdict(report, "timeout", move["n"], report.difference.field, "Bei abgelaufener Bedenkzeit")
    else:
        assert_verdict(report, "timeout", move["n"], "at", "lief die Bedenkzeit von Platz 1 (30 s seit Ereignis 1)")
        assert report.checks == ["chain", "seed", "replay", "actors", "outcome"]  # the timeouts are checked last


@pytest.mark.parametrize("game", GAMES)
def test_a_computers_move_in_a_humans_name_or_at_another_level_is_caught(played: Fixture, game: str) -> None:
    document = whole(played, game)
    move = moves(document, "bot")[0]
    move["actor"] = played.games[game].human.player_id
    assert_verdict(caught(document, move["n"]), "actors", move["n"], "actor", "Computer der Stufe „easy“")
    document = whole(played, game)
    move = moves(document, "bot")[0]
    move["actor"] = "bot:strong"
    report = caught(document, move["n"])
    assert_verdict(report, "actors", move["n"], "actor", "(laut GameStarted)")
    assert report.difference is not None and report.difference.expected == "bot:easy"


@pytest.mark.parametrize("game", GAMES)
def test_a_stronger_computer_claimed_in_game_started_does_not_match_the_moves(played: Fixture, game: str) -> None:
    document = whole(played, game)
    document["events"][0]["data"]["seats"][1]["level"] = document["seats"][1]["level"] = "strong"
    first = next(event for event in moves(document, "bot") if event["data"]["seat"] == 1)
    report = caught(document, 1)
    # In a team game the computer may signal before its first placement: its first side move (in the one merged
    # order, before game event first.n) is then where the claimed level is first contradicted.
    signals = [(log["team"], entry) for log in document.get("team_logs") or [] for entry in log["events"]
               if entry["data"]["seat"] == 1 and entry["data"]["after"] < first["n"]]
    if signals:
        team, entry = min(signals, key=lambda found: (found[1]["data"]["after"], found[0], found[1]["n"]))
        assert_verdict(report, "team", None, f"team_logs[{team}].events[{entry['n']}].actor", "Stufe „strong“")
    else:
        assert_verdict(report, "actors", first["n"], "actor", "Stufe „strong“")
    assert report.difference is not None and report.difference.found == "bot:easy"


@pytest.mark.parametrize("game", GAMES)
def test_the_computer_playing_on_for_a_departed_human_is_the_normal_one(played: Fixture, game: str) -> None:
    document = whole(played, game)
    move = moves(document, "departed", seat=0)[0]
    assert move["actor"] == "bot:normal"
    move["actor"] = "bot:strong"
    assert_verdict(caught(document, move["n"]), "actors", move["n"], "actor", "spielt seit Ereignis")
    document = whole(played, game)
    move = moves(document, "departed", seat=0)[0]
    move["data"]["chosen_by"], move["actor"] = "player", played.games[game].human.player_id
    assert_verdict(caught(document, move["n"]), "replay", move["n"], "data.chosen_by", "hatte die Partie verlassen")


@pytest.mark.parametrize("game", GAMES)
def test_a_move_sent_over_nats_in_another_actors_name_is_caught(played: Fixture, game: str) -> None:
    """What the operator's (or the bot service's) user could once have had the table write over `table.cmd.move`
    (the table refuses it now): a computer's move named "system" or another level, the departed human's seat
    played in another human's or the table's name, a timeout there sent by a computer. Each is a difference."""
    forgeries: list[tuple[str, int | None, str, str, str, str]] = [
        ("bot", None, "bot", "system", "actors", "(laut GameStarted)"),
        ("bot", None, "bot", "bot:normal", "actors", "(laut GameStarted)"),
        ("departed", 0, "departed", "bert-12345678", "actors", "spielt seit Ereignis"),
        ("departed", 0, "departed", "system", "actors", "spielt seit Ereignis"),
        ("departed", 0, "timeout", "bot:normal", "timeout", ""),
    ]
    for chosen_by, seat, claimed, actor, check, reason in forgeries:
        document = whole(played, game)
        move = moves(document, chosen_by, seat)[0]
        move["data"]["chosen_by"], move["actor"] = claimed, actor
        report = caught(document, move["n"])
        assert report.difference is not None and report.difference.n == move["n"], (claimed, actor, report.lines())
        assert report.difference.check in (check, "replay"), (claimed, actor, report.lines())
        assert reason in report.difference.reason, (claimed, actor, report.lines())


def test_a_computers_seat_cannot_be_relabelled_as_departed(played: Fixture) -> None:
    document = whole(played, "speedkoi")
    move = moves(document, "bot")[0]
    move["data"]["chosen_by"] = "departed"
    assert_verdict(caught(document, move["n"]), "actors", move["n"], "data.chosen_by", "sitzt ein Computer")


def test_a_move_with_a_field_the_table_never_writes_is_caught(played: Fixture) -> None:
    document = whole(played, "speednova")
    move = moves(document, "bot")[0]
    move["data"]["bonus"] = 3
    assert_verdict(caught(document, move["n"]), "actors", move["n"], "data.bonus", "hat kein Feld „bonus“")


# ---- timeouts ------------------------------------------------------------------------------------------------
def with_think_time(document: dict[str, Any], seconds: int = 30) -> None:
    document["events"][0]["data"]["platform"]["think_time"] = document["platform"]["think_time"] = seconds


def test_a_timeout_after_the_deadline_is_listed_and_one_within_the_grace_warned(played: Fixture) -> None:
    for delay, early in ((45, False), (35, True)):
        document = whole(played, "speedmosaik")  # the computer decides for a late player: any legal move
        with_think_time(document)
        move = moves(document, "player", seat=0)[0]
        move["data"]["chosen_by"], move["actor"] = "timeout", "system"
        move["at"] = utc_stamp(parse_stamp(document["events"][0]["at"]) + timedelta(seconds=delay))
        rehash(document, 1)
        report = audit(document)
        assert report.passed, report.lines()
        [listed] = report.timeouts
        assert (listed.n, listed.seat, listed.decision_began, listed.early) == (move["n"], 0, 1, early)
        assert bool(report.warnings) == early


def test_a_timeout_of_a_decision_begun_after_the_human_left_is_caught(played: Fixture) -> None:
    document = whole(played, "speedmosaik")
    with_think_time(document)
    left = event_of(document, EventType.PLAYER_LEFT)["n"]
    move = next(event for event in moves(document, "departed", seat=0) if event["n"] > left + 2)
    move["data"]["chosen_by"], move["actor"] = "timeout", "system"
    move["at"] = utc_stamp(parse_stamp(move["at"]) + timedelta(minutes=5))
    assert_verdict(caught(document, 1), "timeout", move["n"], "data.chosen_by",
                   f"nach dem Verlassen in Ereignis {left}")


@pytest.mark.parametrize("game", ["speednova", "speedspore"])
def test_a_timeout_move_other_than_the_games_own_is_caught(played: Fixture, game: str) -> None:
    """Where the rules name the move a timeout makes (roll, end the turn, decline), a timeout is that move."""
    engine = registry.engine(f"{game}@1")
    assert engine.spec.timeout.value == "game_chooses"
    document = whole(played, game)
    with_think_time(document)
    rehash(document, 1)
    assert audit(document).passed
    # Find a human's or departed move that is not the game's timeout move at its position: relabel it.
    for candidate in moves(document, "player", seat=0) + moves(document, "departed", seat=0):
        forged = copy.deepcopy(document)
        move = next(event for event in forged["events"] if event["n"] == candidate["n"])
        move["data"]["chosen_by"], move["actor"] = "timeout", "system"
        move["at"] = utc_stamp(parse_stamp(move["at"]) + timedelta(minutes=5))
        rehash(forged, 1)
        report = audit(forged)
        if report.difference is not None and report.difference.reason.startswith("Bei abgelaufener Bedenkzeit"):
            assert report.difference.check == "timeout" and report.difference.n == move["n"]
            assert report.difference.field.startswith("data.move"), report.lines()
            return
    raise AssertionError(f"{game}: no move differing from the game's timeout move was found")


# ---- PlayerLeft and GameStarted ----------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_a_player_left_in_someone_elses_name_is_caught(played: Fixture, game: str) -> None:
    document = whole(played, game)
    left = event_of(document, EventType.PLAYER_LEFT)
    left["actor"] = "system"
    assert_verdict(caught(document, left["n"]), "actors", left["n"], "actor", "in eigenem Namen")


def test_game_started_is_the_tables_with_seats_and_settings_it_writes(played: Fixture) -> None:
    forgeries: list[tuple[str, Any, str, str]] = [
        ("actor", "anna", "actor", "schreibt der Tisch selbst"),
        ("level", "grandmaster", "data.seats[1].level", "nur als easy, normal oder strong"),
        ("name", "Magnus", "data.seats[1].name", "heißt doch nicht „Computer“"),
        ("settings", {"workshop": "kachelwand"}, "data.settings.jokers", "normalisierten"),
        ("think_time", 45, "data.platform.think_time", "30, 60, 90 oder 120 Sekunden"),
    ]
    for what, value, field, reason in forgeries:
        document = whole(played, "speedmosaik")
        started = document["events"][0]
        if what == "actor":
            started["actor"] = value
        elif what == "settings":
            started["data"]["settings"] = document["settings"] = value
        elif what == "think_time":
            started["data"]["platform"]["think_time"] = document["platform"]["think_time"] = value
        else:
            started["data"]["seats"][1][what] = document["seats"][1][what] = value
        assert_verdict(caught(document, 1), "actors", 1, field, reason)


def _set_at(value: Any, path: str, new: Any) -> None:
    """Set ``new`` at ``path`` ("data.badges[1]", "data.left_with_other_humans") inside ``value``."""
    keys: list[str | int] = [int(part) if part.isdigit() else part
                             for part in path.replace("[", ".").replace("]", "").split(".")]
    for key in keys[:-1]:
        value = value[key]
    value[keys[-1]] = new


@pytest.mark.parametrize("game", GAMES)
def test_one_human_in_two_seats_is_caught_naming_both_seats(played: Fixture, game: str) -> None:
    """A log where the human of seat 1 also holds seat 2, forged to the end: GameStarted, GameEnded and the header
    name them, seat 2's moves and signals are that human's own, and every field the audit recomputes from the seats
    (who left with other humans, badges) is mended to what it expects. The table never starts such a game, so the
    audit names both seats and the player, at GameStarted, before anything else."""
    document = whole(played, game)
    started, ended = document["events"][0], event_of(document, EventType.GAME_ENDED)
    anna = started["data"]["seats"][0]
    assert anna["kind"] == "human" and started["data"]["seats"][1]["kind"] == "bot"
    twin = {**anna, "name": anna["name"] + " 2"}
    started["data"]["seats"][1] = twin
    ended["data"]["seats"][1] = {**twin, "seat": 1}
    if "seats" in document:
        document["seats"][1] = {**twin, "seat": 1}
    seat_two = [*moves(document, "bot", seat=1),
                *(entry for log in document.get("team_logs") or [] for entry in log["events"]
                  if entry["data"]["seat"] == 1)]
    for move in seat_two:
        move["data"]["chosen_by"], move["actor"] = "player", anna["player_id"]

    report = caught(document, 1)
    for _ in range(10):  # the forger mends what the audit names, as long as it says what it expects
        difference = report.difference
        if difference is None or difference.n in (None, 1) or difference.field.startswith(("actor", "data.move")):
            break
        event = document["events"][difference.n - 1]
        _set_at(event, difference.field, difference.expected)
        report = caught(document, difference.n)

    assert_verdict(report, "actors", 1, "data.seats[1].player_id",
                   f"Platz 1 und Platz 2 nennen denselben Spieler ({anna['player_id']}): jeder Mensch spielt "
                   "auf genau einem Platz einer Partie.")


def test_the_headers_seats_must_be_game_starteds(played: Fixture) -> None:
    document = whole(played, "speedspore")
    document["seats"][0]["name"] = "Bert"
    report = audit(document)
    assert_verdict(report, "document", None, "seats[0].name", "andere Plätze als GameStarted")


def test_speed_audit_prints_the_verdict_with_event_and_field(played: Fixture, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    document = whole(played, "speedkoi")
    ended = document["events"][-1]
    seats = ended["data"]["seats"]
    seats[0]["name"], seats[1]["name"] = seats[1]["name"], seats[0]["name"]
    rehash(document, ended["n"])
    status, out = speed_audit(document, tmp_path, capsys)
    assert status == 1
    assert out.startswith(f"Prüfung fehlgeschlagen: Beteiligte: Ereignis {ended['n']}, Feld data.seats[0].name: "
                          "Die Plätze in GameEnded sind nicht die aus GameStarted"), out
    assert '  erwartet: "Anna"\n  gefunden: "Computer"' in out
