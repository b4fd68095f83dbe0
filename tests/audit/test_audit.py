"""Export and audit of finished games (issue 13, points 2 and 3): every module's export passes `speed audit`,
a player's export hides the other seats' parts and still passes, and every kind of forgery is caught."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.audit import audit
from libs.platform.auth import Identity
from libs.platform.envelope import EventType
from libs.platform.private import PRIVATE
from libs.platform.settings import Settings
from services.table.app import create_app
from tests.audit.forgery import rehash
from tests.audit.games import KINDS, FixedSeeds, bearer, play, play_daily, player, start
from tests.clocks import ShiftedClock
from tests.conftest import TEST_AUTH_SECRET, running_app
from tests.http_served import served
from tools.speed.cli import main as speed

REPO = Path(__file__).resolve().parents[2]
SPEED = REPO / ".venv" / "bin" / "speed"
DAY_SEED = bytes(range(100, 132))


@dataclass
class Played:
    """One finished game: its id, its human, and its exports as operator and as that human."""

    game_id: str
    human: Identity
    whole: dict[str, Any]
    own: dict[str, Any]


@dataclass
class Fixture:
    games: dict[str, Played]
    refusals: dict[str, int]
    running_reason: str
    daily_reason: str
    daily: dict[str, Any]
    table_url: str
    daily_started_seed: tuple[Any, Any] = (None, None)
    """GameStarted's seed in an operator's whole replay step 1 of the daily game: before and after the reveal."""


@pytest.fixture(scope="module")
async def played(settings: Settings, nc: NatsClient) -> AsyncIterator[Fixture]:
    """Play one game of each module (concurrently) and export each as operator and as its human; ask for
    the exports nobody may have."""
    from services.bot.app import create_app as bot_app

    clock = ShiftedClock()
    async with served(create_app(settings, seeds=FixedSeeds(), clock=clock)) as url, \
            httpx.AsyncClient(base_url=url, timeout=30) as table, running_app(bot_app(settings)):
        humans = {name: player("Anna") for name in KINDS}
        daily_player = player("Dora")
        ids = await asyncio.gather(*(play(table, nc, settings, kind, humans[name]) for name, kind in KINDS.items()),
                                   play_daily(table, nc, settings, daily_player, DAY_SEED))
        daily_id = ids.pop()
        games = {}
        for (name, _), game_id in zip(KINDS.items(), ids, strict=True):
            whole = await table.get(f"/games/{game_id}/export", headers=bearer(settings))
            own = await table.get(f"/games/{game_id}/export", headers=bearer(settings, humans[name]))
            assert whole.status_code == 200 and own.status_code == 200, (whole.text, own.text)
            games[name] = Played(game_id, humans[name], whole.json(), own.json())
        some = games["speedmosaik"].game_id
        running = await start(nc, KINDS["speedmosaik"], player("Bert"))
        refused = await table.get(f"/games/{running}/export", headers=bearer(settings))
        carla = bearer(settings, player("Carla"))
        refusals = {
            "stranger": (await table.get(f"/games/{some}/export", headers=carla)).status_code,
            "anonymous": (await table.get(f"/games/{some}/export")).status_code,
            "no token": (await table.get(f"/games/{some}/export", headers={"Authorization": "Bearer x"})).status_code,
            "running": refused.status_code,
            "unknown": (await table.get("/games/nichtda/export", headers=bearer(settings))).status_code,
        }
        daily_refused = await table.get(f"/games/{daily_id}/export", headers=bearer(settings, daily_player))
        refusals["daily"] = daily_refused.status_code
        step_one = f"/games/{daily_id}/replay?n=1&seat=all"
        seed_before = (await table.get(step_one, headers=bearer(settings))).json()["event"]["data"]["seed"]
        clock.advance(days=2)  # the day is over: its seed is revealed
        seed_after = (await table.get(step_one, headers=bearer(settings))).json()["event"]["data"]["seed"]
        daily = await table.get(f"/games/{daily_id}/export", headers=bearer(settings, daily_player))
        assert daily.status_code == 200, daily.text
        yield Fixture(games, refusals, refused.json()["detail"], daily_refused.json()["detail"], daily.json(), url,
                      (seed_before, seed_after))


def test_every_modules_export_passes_the_audit(played: Fixture) -> None:
    for name, game in played.games.items():
        for document in (game.whole, game.own):
            report = audit(document)
            assert report.passed, (name, document["scope"], report.lines())
            assert report.verdict().startswith("Prüfung bestanden")
            assert report.moves == sum(1 for event in document["events"] if event["type"] == EventType.MOVE_MADE)


def sealed_parts(value: Any) -> list[dict[str, Any]]:
    """Every private part in ``value`` (whole or as a digest)."""
    if isinstance(value, dict):
        if len(value) == 1 and PRIVATE in value:
            return [value[PRIVATE]]
        return [part for item in value.values() for part in sealed_parts(item)]
    if isinstance(value, list):
        return [part for item in value for part in sealed_parts(item)]
    return []


def test_a_players_export_carries_the_other_seats_hidden_parts_only_as_digests(played: Fixture) -> None:
    hidden_moves = 0
    for name, game in played.games.items():
        assert game.own["scope"] == "seat" and game.own["viewer_seat"] == 0
        assert game.whole["scope"] == "operator" and game.whole["viewer_seat"] is None
        whole_parts, own_parts = sealed_parts(game.whole["events"]), sealed_parts(game.own["events"])
        assert len(whole_parts) == len(own_parts)
        assert all("value" in part for part in whole_parts)  # the operator's copy is whole
        own_text = json.dumps(game.own)
        for whole_part, own_part in zip(whole_parts, own_parts, strict=True):
            assert own_part["digest"] == whole_part["digest"]
            if 0 in whole_part["to"]:
                assert own_part == whole_part
            else:  # the known hidden value (and its salt) of another seat is nowhere in clear
                assert set(own_part) == {"to", "digest"}
                assert whole_part["salt"] not in own_text
                if whole_part["to"] and isinstance(whole_part["value"], dict) and "signal" in whole_part["value"]:
                    hidden_moves += 1
        if name in ("speedkoi", "speednova"):
            assert any(part["to"] and 0 not in part["to"] for part in whole_parts), name
    assert hidden_moves > 0  # the other team's signals: the audit found each behind its digest


def test_the_export_names_rules_seed_and_seats(played: Fixture) -> None:
    for name, game in played.games.items():
        document = game.whole
        assert document["format"] == "speed-game-export/1" and document["game_id"] == game.game_id
        assert document["game"] == name and document["rules"] == {"id": f"{name}@1", "game": name, "version": 1}
        assert document["seed"] == bytes(range(32)).hex() == document["events"][-1]["data"]["seed"]
        assert document["seed_commitment"] == document["events"][0]["data"]["seed_commitment"]
        assert document["seats"][0]["player_id"] == game.human.player_id
        assert [event["n"] for event in document["events"]] == list(range(1, len(document["events"]) + 1))
        assert all(set(event) >= {"n", "prev", "hash", "data"} for event in document["events"])


def test_only_players_and_operators_may_export_and_only_finished_games(played: Fixture) -> None:
    assert played.refusals == {"stranger": 403, "anonymous": 403, "no token": 401,
                                "running": 409, "unknown": 404, "daily": 409}
    assert "läuft noch" in played.running_reason
    assert "Saat dieser Tagespartie wird erst" in played.daily_reason


def test_a_daily_game_exports_with_the_days_seed_once_it_is_revealed(played: Fixture) -> None:
    document = played.daily
    assert document["events"][-1]["data"]["seed"] == ""  # GameEnded keeps the day's seed out of the log
    assert document["seed"] == DAY_SEED.hex()
    report = audit(document)
    assert report.passed, report.lines()
    forged = copy.deepcopy(document)
    forged["seed"] = bytes(range(32)).hex()
    report = audit(forged)
    assert report.difference is not None and report.difference.field == "data.seed_commitment"


def test_even_an_operators_whole_replay_keeps_a_daily_seed_sealed_until_its_reveal(played: Fixture) -> None:
    before, after = played.daily_started_seed
    assert DAY_SEED.hex() not in json.dumps(before)
    assert DAY_SEED.hex() in json.dumps(after)


def test_a_step_taken_back_stays_in_the_log_and_replays_as_undone(played: Fixture) -> None:
    document = played.games["speedspore"].own
    back = [event["n"] for event in document["events"]
            if event["type"] == EventType.MOVE_MADE and event["data"]["move"] == {"zurueck": True}]
    assert back
    report = audit(document)
    assert report.passed and report.undone == back
    before = document["events"][back[0] - 2]
    assert before["data"]["seat"] == 0 and before["type"] == EventType.MOVE_MADE  # the build taken back


def test_speed_audit_passes_a_file_as_an_installed_command(played: Fixture, tmp_path: Path) -> None:
    path = tmp_path / "spore.json"
    path.write_text(json.dumps(played.games["speedspore"].own), encoding="utf-8")
    result = subprocess.run([str(SPEED), "audit", str(path), "--progress"], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Prüfung bestanden") and "Computerzüge nach Zeitüberschreitung: 0" in result.stdout
    total = len(played.games["speedspore"].own["events"])
    assert f"Ereignis {total}/{total}" in result.stderr


async def test_speed_audit_fetches_a_game_by_id_from_the_table(played: Fixture, tmp_path: Path) -> None:
    game = played.games["speednova"]

    async def speed_audit_id(*extra: str) -> tuple[int, str, str]:
        process = await asyncio.create_subprocess_exec(
            str(SPEED), "audit", game.game_id, "--table-url", played.table_url, *extra,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), timeout=60)
        return process.returncode or 0, out.decode(), err.decode()

    # No --token: an operator token minted from AUTH_SECRET (the test environment's), the whole log.
    status, out, err = await speed_audit_id("--save", str(tmp_path / "nova.json"), "--json")
    assert status == 0, out + err
    report = json.loads(out)
    assert report["passed"] and report["scope"] == "operator" and report["game_id"] == game.game_id
    assert json.loads((tmp_path / "nova.json").read_text(encoding="utf-8"))["events"] == game.whole["events"]
    stranger = bearer(Settings(auth_secret=TEST_AUTH_SECRET), player("Carla"))["Authorization"].split()[1]
    status, out, err = await speed_audit_id("--token", stranger)
    assert status == 2 and "Der Tisch verweigert den Export (403)" in err, out + err


# ---- forgeries --------------------------------------------------------------------------------------------
def speed_audit(document: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run `speed audit FILE` (in-process, the installed command's own entry point); return (status, output)."""
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    capsys.readouterr()
    status = speed(["audit", str(path)])
    return status, capsys.readouterr().out


def first_move(document: dict[str, Any], seat: int | None = None) -> dict[str, Any]:
    return next(event for event in document["events"] if event["type"] == EventType.MOVE_MADE
                and (seat is None or event["data"]["seat"] == seat) and event["n"] > 5)


def test_a_changed_event_with_its_old_hash_breaks_the_chain(played: Fixture, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    document = copy.deepcopy(played.games["speedmosaik"].whole)
    document["events"][6]["actor"] = "bot:strong"
    status, out = speed_audit(document, tmp_path, capsys)
    assert status == 1 and out.startswith("Prüfung fehlgeschlagen: Hash-Kette: Ereignis 7, Feld hash:"), out


def test_a_removed_event_leaves_a_gap(played: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = copy.deepcopy(played.games["speedkoi"].own)
    del document["events"][9]
    status, out = speed_audit(document, tmp_path, capsys)
    assert status == 1 and "Hash-Kette: Ereignis 10, Feld n: Ereignis 10 fehlt" in out, out
    report = audit(document)
    assert report.difference is not None and (report.difference.expected, report.difference.found) == (10, 11)


def test_a_swapped_seed_does_not_match_its_commitment(played: Fixture, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    document = copy.deepcopy(played.games["speedspore"].whole)
    other = bytes(range(1, 33)).hex()
    document["events"][-1]["data"]["seed"] = document["seed"] = other
    rehash(document, len(document["events"]))
    status, out = speed_audit(document, tmp_path, capsys)
    assert status == 1 and "Saat: Ereignis 1, Feld data.seed_commitment" in out, out


def test_a_rehashed_changed_score_differs_from_the_recomputed_outcome(played: Fixture, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    document = copy.deepcopy(played.games["speednova"].own)
    ended = document["events"][-1]
    ended["data"]["outcome"]["scores"][1] += 5
    rehash(document, ended["n"])
    status, out = speed_audit(document, tmp_path, capsys)
    assert status == 1 and f"Ergebnis: Ereignis {ended['n']}, Feld data.outcome.scores[1]" in out, out
    report = audit(document)
    assert report.difference is not None and report.difference.found == report.difference.expected + 5


def test_a_rehashed_changed_move_fails_the_replay_where_it_was_changed(played: Fixture, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("speedmosaik", "speedkoi"):
        document = copy.deepcopy(played.games[name].whole)
        move = first_move(document)
        move["data"]["effects"][0]["text"] += " (und noch mehr Punkte)"
        rehash(document, move["n"])
        status, out = speed_audit(document, tmp_path, capsys)
        assert status == 1 and f"Nachspielen: Ereignis {move['n']}, Feld data.effects[0].text" in out, out
    document = copy.deepcopy(played.games["speedmosaik"].whole)
    move = first_move(document)
    move["data"]["move"] = {"source": "schale", "schale": 99, "farbe": "blau", "reihe": 1}
    rehash(document, move["n"])
    status, out = speed_audit(document, tmp_path, capsys)
    assert status == 1 and f"Nachspielen: Ereignis {move['n']}, Feld data.move: Der Zug ist nach den Regeln" in out


def test_timeout_moves_are_listed_and_one_no_clock_allowed_is_caught(played: Fixture, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    document = copy.deepcopy(played.games["speedkoi"].whole)
    move = first_move(document, seat=1)  # a computer's seat: it has no think time to run out
    move["data"]["chosen_by"], move["actor"] = "timeout", "system"
    rehash(document, move["n"])
    status, out = speed_audit(document, tmp_path, capsys)
    assert status == 1 and f"Zeitüberschreitung: Ereignis {move['n']}, Feld data.chosen_by" in out, out
    assert "Computerplatz hat keine Bedenkzeit" in out


def test_unusable_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert speed(["audit", str(tmp_path / "fehlt.json")]) == 2
    (tmp_path / "kaputt.json").write_text("{nicht json", encoding="utf-8")
    assert speed(["audit", str(tmp_path / "kaputt.json")]) == 2
    (tmp_path / "fremd.json").write_text(json.dumps({"format": "anderes"}), encoding="utf-8")
    assert speed(["audit", str(tmp_path / "fremd.json")]) == 2
    assert "Prüfung nicht möglich" in capsys.readouterr().err


def test_a_timeout_move_is_listed_with_its_deadline(played: Fixture) -> None:
    document = copy.deepcopy(played.games["speedmosaik"].whole)
    document["events"][0]["data"]["platform"]["think_time"] = 30  # as if played with a clock
    move = first_move(document, seat=0)  # Anna left: the computer moves for her
    move["data"]["chosen_by"], move["actor"] = "timeout", "system"
    rehash(document, 1)
    report = audit(document)
    assert report.passed, report.lines()
    [listed] = report.timeouts
    assert (listed.n, listed.seat, listed.early) == (move["n"], 0, True)  # seconds, not 30 s, after it began
    assert f"Ereignis {move['n']}: Platz 1, Computerzug nach Zeitüberschreitung" in "\n".join(report.lines())
    assert any("vor Ablauf der Bedenkzeit" in warning for warning in report.warnings)
