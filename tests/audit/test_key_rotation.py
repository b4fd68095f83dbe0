"""Key history and rotation (issue 36, point 1): a Speedkoi game whose table rotates its key mid-game (the table
restarted with a key file rotated by `speed signing-keys add`, `activate`, `retire`, as docs/operations.md says)
verifies with every pin; `GET /keys` lists the rotated key with its period; a key used outside its period is a
difference; the key tools never drop a key or change its history.

Apart from tests/audit/test_pinned_keys.py so that no other table (with the session's keys) runs beside this one.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.audit import audit
from libs.audit.pins import keys_answer_pins
from libs.platform.settings import Settings
from libs.platform.signing import (
    Keyring,
    UnusableKey,
    activated,
    kept_history,
    new_key_file,
    parse_time,
    retired,
    with_new_key,
)
from services.table.app import create_app
from tests.audit.forgery import resign, sign_team_logs
from tests.audit.games import KINDS, FixedSeeds, bearer, player, start
from tests.audit.test_pinned_keys import Played, _audit, _finish, _move
from tests.conftest import Infrastructure, running_app
from tests.http_served import served
from tools.speed.cli import main as speed


@dataclass
class Rotated:
    played: Played
    old: str
    new: str
    before: dict[str, Any]
    """GET /keys before the rotation (the old key only)."""
    old_keyring: Keyring
    """The first key file's keys (the old key with its private half: a leak)."""


def _keys_cli(tmp: Path, action: str, file: Path, *rest: str) -> dict[str, Any]:
    """Run `speed signing-keys ACTION FILE ...` as an operator does and return the key file it prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = speed(["signing-keys", action, str(file), *rest])
    assert status == 0
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


@pytest.fixture(scope="module")
async def rotated(infra: Infrastructure, nc: NatsClient, tmp_path_factory: pytest.TempPathFactory
                  ) -> AsyncIterator[Rotated]:
    """A Speedkoi game whose table rotates its key mid-game: Anna moves on a table signing with key 1; that table
    stops, its key file is rotated (add key 2, activate it, retire key 1: `speed signing-keys`), a table with the
    new file starts, Anna moves again (her turn's second part; answer kept), leaves, the computer plays on under
    key 2."""
    from services.bot.app import create_app as bot_app

    folder = tmp_path_factory.mktemp("rotation")
    first = new_key_file()
    (folder / "keys-1.json").write_text(json.dumps(first), encoding="utf-8")

    def table_settings(file: dict[str, Any]) -> Settings:
        return infra.settings(table_signing_keys=json.dumps(file), table_signing_keys_file="")

    anna = player("Anna")
    settings = table_settings(first)
    async with running_app(bot_app(settings)):
        async with served(create_app(settings, seeds=FixedSeeds())) as url, \
                httpx.AsyncClient(base_url=url, timeout=30) as table:
            game_id = await start(nc, KINDS["speedkoi"], anna)
            answers = [await _move(table, game_id, bearer(settings, anna))]  # Speedkoi: placed, the draw is next
            before = (await table.get("/keys")).json()
        added = _keys_cli(folder, "add", folder / "keys-1.json")
        new = added["keys"][-1]["kid"]
        (folder / "keys-2.json").write_text(json.dumps(added), encoding="utf-8")
        active = _keys_cli(folder, "activate", folder / "keys-2.json", new)
        (folder / "keys-3.json").write_text(json.dumps(active), encoding="utf-8")
        done = _keys_cli(folder, "retire", folder / "keys-3.json", first["active"])
        async with served(create_app(table_settings(done), seeds=FixedSeeds())) as url, \
                httpx.AsyncClient(base_url=url, timeout=30) as table:
            answers.append(await _move(table, game_id, bearer(settings, anna)))
            result = await _finish(table, settings, game_id, anna, answers)
    yield Rotated(result, first["active"], new, before, Keyring.from_json(first))



# ---- rotation and key history ---------------------------------------------------------------------------------
def test_get_keys_publishes_the_key_history_a_rotated_key_stays_listed(rotated: Rotated) -> None:
    keys = {key["kid"]: key for key in rotated.played.keys["keys"]}
    assert rotated.played.keys["active"] == rotated.new and set(keys) == {rotated.old, rotated.new}
    old, new = keys[rotated.old], keys[rotated.new]
    assert old["active"] is False and old["activated"] and old["retired"]
    assert new["active"] is True and new["activated"] and new["retired"] is None
    # The periods overlap while the rollout runs: the new key is activated first, the old one retired after.
    assert parse_time(old["activated"]) <= parse_time(new["activated"]) <= parse_time(old["retired"])  # type: ignore[operator]
    [before] = rotated.before["keys"]
    assert before["kid"] == rotated.old and before["retired"] is None
    assert before["activated"] == old["activated"] and before["public_key"] == old["public_key"]


def test_a_game_across_a_rotation_verifies_with_every_pin(rotated: Rotated, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    export = rotated.played.export
    kids = {event["sig"]["kid"] for event in export["events"]}
    assert kids == {rotated.old, rotated.new}, "the game must have events of both keys"
    assert {answer["receipt"]["kid"] for answer in rotated.played.answers} == {rotated.old, rotated.new}
    pinned: list[tuple[dict[str, Any], tuple[str, ...]]] = [
        ({"keys": rotated.played.keys}, ()), ({}, ("--key-id", rotated.old, "--key-id", rotated.new)),
        ({"receipts": rotated.played.answers}, ())]
    for options, extra in pinned:
        status, out = _audit(tmp_path, capsys, export, *extra, **options)
        assert status == 0, out
        assert f"Ereignisse vom Tisch signiert (Schlüssel {rotated.old}, {rotated.new}; festgelegt durch:" in out, out
    # An old GET /keys answer (before the periods were published) still reads: keys of unknown period.
    undated = {"keys": [{name: value for name, value in key.items() if name not in ("created", "activated",
                                                                                     "retired")}
                        for key in rotated.played.keys["keys"]]}
    status, out = _audit(tmp_path, capsys, export, keys=undated)
    assert status == 0 and "vom Tisch signiert" in out, out
    # The answer saved before the rotation does not know the new key: its events are not proven the table's.
    status, out = _audit(tmp_path, capsys, export, keys=rotated.before)
    assert status == 1 and f"ist mit dem Schlüssel {rotated.new} signiert, der nicht unter den festgelegten" in out


def test_a_key_used_outside_its_period_is_a_difference(rotated: Rotated, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    export = copy.deepcopy(rotated.played.export)
    first_new = next(event["n"] for event in export["events"] if event["sig"]["kid"] == rotated.new)
    resign(export, rotated.old_keyring)  # the old key (leaked) signs the events after its retirement too
    assert export["signing_keys"] == rotated.old_keyring.published_for([rotated.old])
    status, out = _audit(tmp_path, capsys, export, keys=rotated.played.keys)
    assert status == 1, out
    assert out.startswith(f"Prüfung fehlgeschlagen: Signaturen: Ereignis {first_new}, Feld at: Ereignis {first_new} "
                          f"(Zeitpunkt {export['events'][first_new - 1]['at']}) ist mit dem Schlüssel {rotated.old} "
                          "signiert, der nur von "), out
    assert "außerhalb seines Zeitraums signiert der Tisch mit ihm nicht" in out


def test_the_key_tools_keep_every_key_and_its_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "keys.json"
    file.write_text(json.dumps(new_key_file()), encoding="utf-8")
    first = json.loads(file.read_text(encoding="utf-8"))
    old = first["active"]
    added = _keys_cli(tmp_path, "add", file)
    new = added["keys"][-1]["kid"]
    assert added["keys"][0] == first["keys"][0] and "activated" not in added["keys"][-1]
    file.write_text(json.dumps(added), encoding="utf-8")
    active = _keys_cli(tmp_path, "activate", file, new)
    assert active["keys"][0]["activated"] == first["keys"][0]["activated"] and active["keys"][1]["activated"]
    assert active["keys"][0]["public_key"] == first["keys"][0]["public_key"]
    file.write_text(json.dumps(active), encoding="utf-8")
    done = _keys_cli(tmp_path, "retire", file, old)
    assert done["keys"][0]["retired"] and "private_key" not in done["keys"][0]
    file.write_text(json.dumps(done), encoding="utf-8")
    public = _keys_cli(tmp_path, "public", file)
    assert [(key["kid"], key["activated"] is not None, key["retired"] is not None) for key in public["keys"]] == [
        (old, True, True), (new, True, False)]
    capsys.readouterr()
    # A retired key is never active again, the active key is never retired, a recorded end never moves.
    assert speed(["signing-keys", "activate", str(file), old]) == 2
    assert speed(["signing-keys", "retire", str(file), new]) == 2
    assert speed(["signing-keys", "retire", str(file), old]) == 2
    err = capsys.readouterr().err
    assert "ausgemustert" in err and "ist der aktive" in err


def test_a_key_file_that_drops_or_rewrites_history_is_refused() -> None:
    first = new_key_file()
    added = with_new_key(first)
    new = added["keys"][-1]["kid"]
    done = retired(activated(added, new), first["active"])
    kept_history(first, done)  # the tools' own results keep everything
    dropped = {**done, "keys": done["keys"][1:]}
    with pytest.raises(UnusableKey, match="nur ergänzt"):
        kept_history(done, dropped)
    moved = copy.deepcopy(done)
    moved["keys"][0]["retired"] = "2099-01-01T00:00:00.000Z"
    with pytest.raises(UnusableKey, match="retired"):
        kept_history(done, moved)
    # The table refuses a file whose active key is retired, and a key retired before it was activated.
    back = {**copy.deepcopy(done), "active": first["active"]}
    back["keys"][0]["private_key"] = first["keys"][0]["private_key"]
    with pytest.raises(UnusableKey, match="ausgemustert"):
        Keyring.from_json(back)
    early = copy.deepcopy(done)
    early["keys"][0]["retired"] = "2000-01-01T00:00:00.000Z"
    with pytest.raises(UnusableKey, match="vor seiner Aktivierung"):
        Keyring.from_json(early)


def test_a_team_log_entry_signed_outside_its_keys_period_is_a_difference() -> None:
    """The golden Speednova team game (side moves in team logs): game events signed by a key valid throughout, team
    entries by a key retired before the game began; pinned to that history, the first team entry fails (field at)."""
    document = json.loads((Path(__file__).parent / "golden" / "speednova_v2.json").read_text(encoding="utf-8"))
    begun = parse_time(document["events"][0]["at"])
    assert begun is not None
    old_file = new_key_file(begun - timedelta(days=30))
    added = with_new_key(old_file, begun - timedelta(days=2))
    new = added["keys"][-1]["kid"]
    history = retired(activated(added, new, now=begun - timedelta(days=1)), old_file["active"],
                      now=begun - timedelta(hours=1))
    game_key = Keyring.from_json(history)
    team_key = Keyring.from_json(old_file)
    for event in document["events"]:
        event["sig"] = game_key.sign(event["game_id"], event["n"], event["hash"])
    sign_team_logs(document, team_key)
    document["signing_keys"] = game_key.published_for([new]) + team_key.published_for([old_file["active"]])
    assert audit(document).passed  # by the export's own keys: consistent
    report = audit(document, pins=keys_answer_pins({"keys": game_key.published()}))
    assert report.difference is not None, report.lines()
    assert (report.difference.check, report.difference.field) == ("signature", "team_logs[0].events[1].at")
    assert f"ist mit dem Schlüssel {old_file['active']} signiert, der nur von " in report.difference.reason
