"""Keys a verifier can pin (issue 36, point 1): `speed audit` proves a game's origin only against keys pinned outside
the export — a saved `GET /keys` answer, a key id on the command line, the key ids of the player's own receipts —
checks each signature against its key's published period, refuses an unsigned export of a game the table signed,
and says, with no pin, that the signatures prove consistency only.

On a real game (tests/audit/games.py): Speedkoi on a table with the session's keys; every forgery of the issue is
tried through the CLI as a user runs it. Rotation and key history: tests/audit/test_key_rotation.py.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.auth import Identity
from libs.platform.settings import Settings
from libs.platform.signing import Keyring
from services.table.app import create_app
from tests.audit.forgery import resign
from tests.audit.games import KINDS, FixedSeeds, bearer, player, start, wait_ended
from tests.conftest import running_app
from tests.http_served import served
from tools.speed.cli import main as speed

HOW_TO_PIN = "Die Herkunft belegt erst ein festgelegter Schlüssel: --keys DATEI"


@dataclass
class Played:
    """A finished game: the operator's export, the player's kept move answers, GET /keys after it."""

    game_id: str
    export: dict[str, Any]
    answers: list[dict[str, Any]]
    keys: dict[str, Any]
    audit: dict[str, Any] | None = None
    """The table's own `GET /games/{id}/audit` answer."""


async def _my_turn(table: httpx.AsyncClient, game_id: str, auth: dict[str, str], after: int) -> dict[str, Any]:
    """Wait until the human may move at an event later than `after`; return the view."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while loop.time() < deadline:
        view: dict[str, Any] = (await table.get(f"/games/{game_id}/view", headers=auth)).json()
        if view["legal_moves"] and view["n"] > after:
            return view
        await asyncio.sleep(0.02)
    raise AssertionError("the human never got to move")


async def _move(table: httpx.AsyncClient, game_id: str, auth: dict[str, str], after: int = 0) -> dict[str, Any]:
    """Make the human's first legal move once it is their turn; return the answer (with its receipt)."""
    while True:
        view = await _my_turn(table, game_id, auth, after)
        answer = await table.post(f"/games/{game_id}/moves", json={"move": view["legal_moves"][0],
                                                                   "expected_n": view["n"]}, headers=auth)
        if answer.status_code == 200:
            body: dict[str, Any] = answer.json()
            return body
        assert answer.status_code in (409, 422), answer.text


async def _finish(table: httpx.AsyncClient, settings: Settings, game_id: str, human: Identity,
                  answers: list[dict[str, Any]]) -> Played:
    assert (await table.post(f"/games/{game_id}/leave", headers=bearer(settings, human))).status_code == 200
    await wait_ended(table, game_id)
    export = (await table.get(f"/games/{game_id}/export", headers=bearer(settings))).json()
    audited = (await table.get(f"/games/{game_id}/audit")).json()
    return Played(game_id, export, answers, (await table.get("/keys")).json(), audited)


@pytest.fixture(scope="module")
async def played(settings: Settings, nc: NatsClient) -> AsyncIterator[Played]:
    """A Speedkoi game on the session's table keys; Anna moves once (answer kept), leaves, the computer plays on."""
    from services.bot.app import create_app as bot_app

    async with served(create_app(settings, seeds=FixedSeeds())) as url, \
            httpx.AsyncClient(base_url=url, timeout=30) as table, running_app(bot_app(settings)):
        anna = player("Anna")
        game_id = await start(nc, KINDS["speedkoi"], anna)
        answer = await _move(table, game_id, bearer(settings, anna))
        yield await _finish(table, settings, game_id, anna, [answer])


def _audit(tmp_path: Path, capsys: pytest.CaptureFixture[str], document: dict[str, Any], *options: str,
           keys: dict[str, Any] | None = None, receipts: list[dict[str, Any]] | None = None) -> tuple[int, str]:
    """Run `speed audit FILE [options]` as a user does (files for --keys and --receipts); return status and output."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    argv = ["audit", str(path), *options]
    if keys is not None:
        (tmp_path / "keys.json").write_text(json.dumps(keys), encoding="utf-8")
        argv += ["--keys", str(tmp_path / "keys.json")]
    if receipts is not None:
        (tmp_path / "quittungen.json").write_text(json.dumps(receipts), encoding="utf-8")
        argv += ["--receipts", str(tmp_path / "quittungen.json")]
    capsys.readouterr()
    status = speed(argv)
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def _foreign(played: Played) -> tuple[dict[str, Any], str]:
    """The game re-signed by a key the table never had, `signing_keys` replaced by it."""
    forged = copy.deepcopy(played.export)
    forger = Keyring.generate()
    resign(forged, forger)
    assert forged["signing_keys"] == forger.published_for([forger.active])
    return forged, forger.active


# ---- one key, pinned three ways -----------------------------------------------------------------------------
def test_a_signed_export_without_a_pin_passes_as_consistent_only(played: Played, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    kid, events = played.keys["active"], len(played.export["events"])
    status, out = _audit(tmp_path, capsys, played.export)
    assert status == 0, out
    assert f"Signaturen: alle {events} Ereignisse stimmig signiert (Schlüssel {kid}, nur vom Export genannt: " \
           "Herkunft nicht belegt)." in out, out
    assert "vom Tisch signiert" not in out and HOW_TO_PIN in out
    status, out = _audit(tmp_path, capsys, played.export, "--json")
    report = json.loads(out)
    assert status == 0 and report["passed"] and report["signatures"]["pinned"] is None
    assert report["signatures"]["origin_proven"] is False


@pytest.mark.parametrize("pin", ["keys_file", "key_id", "receipts"])
def test_a_pinned_key_proves_the_table_signed(pin: str, played: Played, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    kid, events = played.keys["active"], len(played.export["events"])
    ways: dict[str, dict[str, Any]] = {"keys_file": {"keys": played.keys}, "key_id": {},
                                       "receipts": {"receipts": played.answers}}
    options = ways[pin]
    extra = ("--key-id", kid) if pin == "key_id" else ()
    status, out = _audit(tmp_path, capsys, played.export, *extra, **options)
    named = {"keys_file": "gespeicherte Schlüsselliste des Tisches", "key_id": "Schlüsselkennung auf der Befehlszeile",
             "receipts": "Quittungen des Spielers"}[pin]
    assert status == 0, out
    assert f"Signaturen: alle {events} Ereignisse vom Tisch signiert (Schlüssel {kid}; festgelegt durch: {named})." \
        in out, out
    assert HOW_TO_PIN not in out
    status, out = _audit(tmp_path, capsys, played.export, "--json", *extra, **options)
    report = json.loads(out)
    assert report["signatures"]["origin_proven"] is True and report["signatures"]["pinned"]["sources"] == [pin]


def test_the_tables_own_audit_pins_the_tables_keys(played: Played) -> None:
    assert played.audit is not None
    assert "vom Tisch signiert" in played.audit["verdict"], played.audit
    assert "festgelegt durch: die Schlüssel des Tisches selbst" in played.audit["verdict"]


# ---- forgeries ------------------------------------------------------------------------------------------------
def test_a_game_resigned_with_a_foreign_key_fails_against_any_pin(played: Played, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    forged, forger = _foreign(played)
    status, out = _audit(tmp_path, capsys, forged)
    assert status == 0, out  # consistent in itself: passes, but never as the table's
    assert "vom Tisch signiert" not in out and "Herkunft nicht belegt" in out and HOW_TO_PIN in out
    refusal = (f"Prüfung fehlgeschlagen: Signaturen: Ereignis 1, Feld sig.kid: Ereignis 1 ist mit dem Schlüssel "
               f"{forger} signiert, der nicht unter den festgelegten Schlüsseln des Tisches ist")
    pinned: list[tuple[dict[str, Any], tuple[str, ...]]] = [
        ({"keys": played.keys}, ()), ({}, ("--key-id", played.keys["active"])), ({"receipts": played.answers}, ())]
    for options, extra in pinned:
        status, out = _audit(tmp_path, capsys, forged, *extra, **options)
        assert status == 1, out
        assert out.startswith(refusal), out


def test_a_stripped_export_of_a_signed_game_fails(played: Played, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    stripped = copy.deepcopy(played.export)
    stripped["signing_keys"] = []
    for event in stripped["events"]:
        del event["sig"]
    choices: list[dict[str, Any]] = [{}, {"keys": played.keys}]
    for options in choices:
        status, out = _audit(tmp_path, capsys, stripped, **options)
        assert status == 1, out
        assert out.startswith("Prüfung fehlgeschlagen: Signaturen: Ereignis 1, Feld sig: Ereignis 1 ist nicht "
                              "signiert, aber der Tisch signiert jede Partie, die seit 2026-12-03T00:00:00Z "
                              "begann"), out


def test_an_old_unsigned_game_passes_and_says_it_began_before_signing(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    golden = json.loads((Path(__file__).parent / "golden" / "speedkoi_v1.json").read_text(encoding="utf-8"))
    status, out = _audit(tmp_path, capsys, golden)
    assert status == 0, out
    assert "Signaturen: keine (nicht signiert: die Partie begann, bevor der Tisch signierte)." in out, out


def test_a_key_id_that_is_not_its_keys_digest_is_refused_wherever_keys_are_read(
        played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kid = played.keys["active"]
    forged, forger = _foreign(played)
    # The forger publishes their key under the table's key id, to pass a pin by --key-id.
    forged["signing_keys"] = [{**forged["signing_keys"][0], "kid": kid}]
    for event in forged["events"]:
        event["sig"]["kid"] = kid
    status, out = _audit(tmp_path, capsys, forged, "--key-id", kid)
    assert status == 1, out
    assert out.startswith("Prüfung fehlgeschlagen: Exportdokument: Feld signing_keys: Ein Schlüssel des "
                          f"Exportdokuments ist unbrauchbar: Schlüssel '{kid}': die Kennung ist nicht {forger}"), out
    # A keys file whose key id is not its key's digest, and a --key-id that is no key id, are unusable input.
    wrong = copy.deepcopy(played.keys)
    wrong["keys"][0]["kid"] = forger
    status, out = _audit(tmp_path, capsys, played.export, keys=wrong)
    assert status == 2 and "Prüfung nicht möglich: Die Schlüsseldatei" in out and "die Kennung ist nicht" in out, out
    status, out = _audit(tmp_path, capsys, played.export, "--key-id", "ABC")
    assert status == 2 and "Prüfung nicht möglich: --key-id: 'ABC' ist keine Schlüsselkennung" in out, out
