"""Write the test vectors of docs/audit.md's specification (tests/audit/vectors/): a short real export and every
intermediate value of its hashes, digests and commitment; and, derived from it and from the golden exports, the
signed copies (``DERIVED``: an operator's, a player's, a daily game's player copy, a team's copy with the receipts
its player holds) with ``index.json``, the verdict the audit gives each.

Run with ``.venv/bin/python -m tests.audit.make_vectors``. The played export (``speednova_rekordjagd.json``) is
written once, only when missing; the derived vectors are pure functions of committed files (the exports, the test
key tests/audit/signing_test_key.json; Ed25519 signs deterministically), so the script writes them byte for byte the
same every time, and ``test_vectors.py`` checks that it does. None of them is ever regenerated to make a failing
test pass. The game: Speednova's solo Rekordjagd (one seat, about
40 moves, each draw a private part for seat 0), its human "Jörg Größe" (non-ASCII in GameStarted) plays five
moves, then leaves and the computer plays on; German effect texts with umlauts and „quotes“ throughout.
``digests.json`` is computed with the project's code (``libs.platform``); ``test_vectors.py`` checks it
against that code and against an independent reimplementation that follows only the specification.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
import nats

from libs.audit import audit
from libs.audit.document import UnusableDocument, read_json
from libs.audit.receipts import check_receipts, read_receipts
from libs.audit.seeds import commitment
from libs.devservers.servers import start_servers
from libs.platform.auth import Identity, PlayerKind
from libs.platform.canonical import canonical_json, sha256_hex
from libs.platform.contracts.commands import START_GAME, StartGame, StartSeat
from libs.platform.envelope import GENESIS, Event, compute_hash
from libs.platform.private import PRIVATE, digest_of, is_sealed, redact, reveal_for, salt_for
from libs.platform.rpc import call
from libs.platform.settings import get_settings
from libs.platform.signing import Keyring, public_keys
from services.bot.app import create_app as bot_app
from services.table.app import create_app
from tests.audit.games import FixedSeeds, bearer, wait_ended
from tests.audit.make_golden import DAILY_SOURCE, TEST_KEY_FILE, export_text, golden_path, write_export
from tests.conftest import Infrastructure, running_app

VECTORS = Path(__file__).resolve().parent / "vectors"
GAME_ID = "vektor-speednova-rekordjagd"
HUMAN = Identity(player_id="joerg-groesse", name="Jörg Größe", kind=PlayerKind.GUEST)
OWN_MOVES = 5
CANONICAL_SHOWN = (1, 2, 3)
"""Events whose hashed bytes digests.json spells out whole (besides PlayerLeft and GameEnded)."""

ENCODING_CASES: list[tuple[str, Any]] = [
    ("keys sorted by code point: U+FFFF before U+1F600 (UTF-16 order would put the emoji first)",
     {"\uffff": 1, "\U0001f600": 2, "z": 3, "é": 4, "Z": 5, "": 6}),
    ("escaped: quote, backslash, the short escapes, other controls as lowercase \\u00xx",
     "\"\\\b\t\n\f\r\x00\x1f\x1b"),
    ("raw UTF-8: slash, DEL, C1 controls, U+2028/U+2029, BOM, umlauts, an emoji",
     "/\x7f\x80\x9f\u2028\u2029\ufeffäöüß„“😀"),
    ("integers: plain decimal, no plus, no leading zeros, no exponent; the safe-integer limits",
     [0, -1, 7, -42, 9007199254740991, -9007199254740991]),
    ("literals and nesting, no whitespace", {"b": [True, False, None, [], {}], "a": {"y": [1, {"x": ""}]}}),
]


async def play(infra: Infrastructure) -> dict[str, Any]:
    """Play the vector game on an in-process table and return its operator export."""
    settings = infra.settings()
    nc = await nats.connect(infra.nats_url)
    try:
        async with running_app(create_app(settings, seeds=FixedSeeds())) as table, running_app(bot_app(settings)):
            command = StartGame(game="speednova", game_id=GAME_ID, settings={"solo": "rekordjagd"},
                                seats=[StartSeat(kind="human", player_id=HUMAN.player_id, name=HUMAN.name,
                                                 account="guest")])
            await call(nc, START_GAME, command)
            auth = bearer(settings, HUMAN)
            for _ in range(OWN_MOVES):
                await _move(table, auth)
            assert (await table.post(f"/games/{GAME_ID}/leave", headers=auth)).status_code == 200
            await wait_ended(table, GAME_ID)
            answer = await table.get(f"/games/{GAME_ID}/export", headers=bearer(settings))
            answer.raise_for_status()
            document: dict[str, Any] = answer.json()
            return document
    finally:
        await nc.drain()


async def _move(table: httpx.AsyncClient, auth: dict[str, str]) -> None:
    view = (await table.get(f"/games/{GAME_ID}/view", headers=auth)).json()
    made = await table.post(f"/games/{GAME_ID}/moves", json={"move": view["legal_moves"][0]}, headers=auth)
    assert made.status_code == 200, made.text


def numbered_parts(event: Event) -> list[tuple[str, int, dict[str, Any]]]:
    """The event's sealed parts with their path and salt index: GameStarted's seed is index 0; a MoveMade
    numbers its move (if sealed) and then its sealed effects in list order from 1."""
    data = event.data
    if event.n == 1:
        seed: Any = data.get("seed")
        return [("data.seed", 0, seed[PRIVATE])] if is_sealed(seed) else []
    candidates: list[tuple[str, Any]] = [("data.move", data.get("move"))]
    candidates += [(f"data.effects[{index}]", effect) for index, effect in enumerate(data.get("effects") or [])]
    sealed = [(path, part[PRIVATE]) for path, part in candidates if is_sealed(part)]
    return [(path, index, part) for index, (path, part) in enumerate(sealed, start=1)]


def hashed_body(event: Event) -> dict[str, Any]:
    """The object an event's hash covers: every field but ``hash``, private parts redacted."""
    body = event.to_json()
    del body["hash"]
    body["data"] = redact(event.data)
    return body


def digests(document: dict[str, Any]) -> dict[str, Any]:
    """Every intermediate value of the export's hashes, digests and commitment (computed with the project's code)."""
    seed = bytes.fromhex(document["seed"])
    game_id = document["game_id"]
    events = [Event(**raw) for raw in document["events"]]
    shown = {*CANONICAL_SHOWN, *(event.n for event in events if event.type in ("PlayerLeft", "GameEnded"))}
    rows = []
    for event in events:
        row: dict[str, Any] = {"n": event.n, "type": event.type, "prev": event.prev, "hash": compute_hash(event)}
        if event.n in shown:
            raw = canonical_json(hashed_body(event))
            row.update(canonical=raw.decode("utf-8"), canonical_hex=raw.hex(), canonical_sha256=sha256_hex(raw))
        parts = []
        for path, index, part in numbered_parts(event):
            salt = salt_for(seed, game_id, event.n, index)
            digest_input = canonical_json({"salt": salt, "value": part["value"]})
            parts.append({"path": path, "index": index, "to": part["to"],
                          "salt_message": f"{game_id}:{event.n}:{index}", "salt": salt,
                          "digest_input": digest_input.decode("utf-8"),
                          "digest": digest_of(part["value"], salt)})
        if parts:
            row["sealed"] = parts
        rows.append(row)
    return {
        "about": "Intermediate values of docs/audit.md's specification for speednova_rekordjagd.json "
                 "(written by tests/audit/make_vectors.py; checked by tests/audit/test_vectors.py).",
        "game_id": game_id, "seed": document["seed"], "seed_commitment": commitment(seed),
        "encoding": [{"about": about, "value": value, "canonical": canonical_json(value).decode("utf-8"),
                      "canonical_hex": canonical_json(value).hex()} for about, value in ENCODING_CASES],
        "events": rows,
    }


def signed_copy(document: dict[str, Any], keyring: Keyring) -> dict[str, Any]:
    """``document`` as a table holding ``keyring`` would have exported it: every event and team-log entry signed,
    ``signing_keys`` naming the active key (the hashes are unchanged: ``sig`` is not hashed)."""
    signed: dict[str, Any] = json.loads(json.dumps(document))
    for event in signed["events"]:
        event["sig"] = keyring.sign(event["game_id"], event["n"], event["hash"])
    for log in signed.get("team_logs") or []:
        for entry in log["events"]:
            entry["sig"] = keyring.sign(entry["game_id"], entry["n"], entry["hash"], log["team"])
    signed["signing_keys"] = keyring.published_for([keyring.active])
    return signed


def player_copy(document: dict[str, Any], seat: int) -> dict[str, Any]:
    """The export the player at ``seat`` gets of an operator's ``document`` (services/table/export_routes.py): every
    private part not for ``seat`` redacted (the seed's, sealed for nobody, too), only the team log of the seat's
    team, ``scope: "seat"`` and ``viewer_seat``; hashes and signatures unchanged."""
    copy_: dict[str, Any] = json.loads(json.dumps(document))
    copy_["scope"], copy_["viewer_seat"] = "seat", seat
    for event in copy_["events"]:
        event["data"] = reveal_for(event["data"], seat)
    if "team_logs" in copy_:
        copy_["team_logs"] = [log for log in copy_["team_logs"] if seat in log["seats"]]
    return copy_


def receipt_of(event: dict[str, Any], team: int | None = None) -> dict[str, Any]:
    """The receipt a table hands out for ``event`` (a game event, or an entry of team ``team``'s log)."""
    receipt = {"game_id": event["game_id"], "n": event["n"], "hash": event["hash"], "kid": event["sig"]["kid"],
               "sig": event["sig"]["sig"]}
    return receipt if team is None else {**receipt, "team": team}


def kept_receipts(document: dict[str, Any], seat: int) -> list[Any]:
    """The receipts the player at ``seat`` kept, in the forms a receipts file may hold them: the answers to their own
    moves (saved whole: ``{"receipt": …}``), the live updates after each entry of their team's log and the last one,
    of the game's end (a bare receipt, and one carrying ``"team": null``, which reads as a game event's)."""
    player = document["seats"][seat]["player_id"]
    own = [{"receipt": receipt_of(event)} for event in document["events"]
           if event["type"] == "MoveMade" and event["actor"] == player]
    team = [{"receipt": receipt_of(entry, log["team"])} for log in document.get("team_logs") or []
            if seat in log["seats"] for entry in log["events"]]
    last = receipt_of(document["events"][-1])
    return [*own, *team, receipt_of(document["events"][-2]), {**last, "team": None}]


def _load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


DERIVED: dict[str, tuple[str, str]] = {
    "speednova_rekordjagd_signed.json":
        ("speednova_rekordjagd.json signed with the test key: a signed operator copy",
         "vectors/speednova_rekordjagd.json"),
    "speedkoi_seat0_signed.json":
        ("the player's copy (seat 0) of a signed Speedkoi game: the computer's private parts and the seed redacted",
         "golden/speedkoi_v1_signed.json"),
    "daily_speedmosaik_seat0.json":
        ("the player's copy (seat 0) of a daily game after the day's end: the seed from the header, GameEnded's "
         "seed \"\", the seed sealed for nobody redacted", "vectors/daily_speedmosaik.json"),
    "speednova_v2_team0_signed.json":
        ("the copy of team 0's player (seat 0) of a signed speednova@2 game: team 0's log only",
         "golden/speednova_v2_signed.json"),
    "speedkoi_two_humans_signed.json":
        ("a signed Speedkoi game with two humans: seat 0 leaves while seat 1's plays on (with_other_humans true, "
         "left_with_other_humans [0]); seat 1 relabelled a human, re-hashed and re-signed",
         "golden/speedkoi_v1_signed.json"),
}
"""Each derived vector: what it is and the committed file it is derived from (relative to tests/audit/)."""
RECEIPTS = "speednova_v2_team0_receipts.json"
"""The receipts seat 0 of the team vector kept (``kept_receipts``), proved against it."""


def rehashed(document: dict[str, Any], start: int, keyring: Keyring) -> None:
    """Re-hash the chain from event ``start`` on and sign each event anew with ``keyring``, as a forger holding the
    key would (here the test key: deterministic)."""
    events = document["events"]
    for index in range(start - 1, len(events)):
        event = events[index]
        event["prev"] = events[index - 1]["hash"] if index else GENESIS
        event["hash"] = compute_hash(Event(**{key: value for key, value in event.items() if key != "sig"}))
        event["sig"] = keyring.sign(event["game_id"], event["n"], event["hash"])


def _first_private_effect(document: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The first MoveMade with a private effect, and that effect's index."""
    for event in document["events"]:
        if event["type"] == "MoveMade":
            for index, effect in enumerate(event["data"]["effects"]):
                if is_sealed(effect):
                    return event, index
    raise AssertionError("no private effect")


def two_humans(document: dict[str, Any], keyring: Keyring, with_other_humans: bool = True,
               same_player: bool = False) -> dict[str, Any]:
    """A two-player game of ``document`` (seat 0 a human who leaves, seat 1 a computer) with seat 1 made a human,
    "Bert", who plays every one of that seat's moves himself: the log a table writes when seat 0's human leaves while
    another human plays on (PlayerLeft's ``with_other_humans`` true, GameEnded's ``left_with_other_humans`` [0]);
    re-hashed and re-signed with ``keyring``. ``with_other_humans`` False writes PlayerLeft wrong, ``same_player``
    seats seat 0's player at seat 1 too (refusals)."""
    changed: dict[str, Any] = json.loads(json.dumps(document))
    bert = {"account": None, "kind": "human", "level": None, "name": "Bert", "player_id": "bert-7a1c0e55"}
    if same_player:
        bert = {key: changed["events"][0]["data"]["seats"][0][key] for key in bert}
    changed["events"][0]["data"]["seats"][1] = bert
    changed["seats"][1] = {"seat": 1, **bert}
    for event in changed["events"]:
        if event["type"] == "MoveMade" and event["data"]["seat"] == 1:
            event["data"]["chosen_by"], event["actor"] = "player", bert["player_id"]
        elif event["type"] == "PlayerLeft":
            event["data"]["with_other_humans"] = with_other_humans
    ended = changed["events"][-1]["data"]
    ended["seats"][1] = {"seat": 1, **bert}
    ended["left_with_other_humans"] = [0]
    rehashed(changed, 1, keyring)
    return changed


def refused_vectors(operator: dict[str, Any], daily: dict[str, Any], team: dict[str, Any],
                    keyring: Keyring) -> dict[str, tuple[str, str, str]]:
    """The refusals of "Reading an export" and "Private parts": file name -> (what, derived from, text). Each is a
    derived vector changed as a careless tool or a forger would change it (re-hashed and re-signed with the test key
    where the change touches a hash)."""
    cases: dict[str, tuple[str, str, str]] = {}
    base, base_name = "speednova_rekordjagd_signed.json", "vectors/speednova_rekordjagd_signed.json"

    def changed() -> dict[str, Any]:
        copied: dict[str, Any] = json.loads(json.dumps(operator))
        return copied

    text = export_text(operator)
    assert text.count('"scope": "operator"') == 1
    cases["refused_duplicate_key.json"] = (
        "the header names scope twice (first \"seat\", then \"operator\"): unusable",
        base_name, text.replace('"scope": "operator"', '"scope": "seat", "scope": "operator"'))
    document = changed()
    document["events"][1]["data"]["chosen_by"] = "ZAHL"
    cases["refused_nan.json"] = ("event 2's data.chosen_by written NaN, which is no JSON: unusable", base_name,
                                 export_text(document).replace('"ZAHL"', "NaN"))
    document = changed()
    document["events"][0]["data"]["seats"][0]["name"] = "ZAHL"
    cases["refused_lone_surrogate.json"] = ("a seat's name holding the escaped lone surrogate \\ud800: unusable",
                                            base_name, export_text(document).replace('"ZAHL"', '"J\\ud800rg"'))
    cases["refused_bom.json"] = ("the operator copy with a byte order mark before it: unusable", base_name,
                                 "\ufeff" + text)
    document = changed()
    document["events"][1]["data"]["seat"] = "ZAHL"
    cases["refused_float.json"] = (
        "event 2's data.seat written 0.0: no integer, so no canonical data (not re-hashed: it has no canonical hash)",
        base_name, export_text(document).replace('"ZAHL"', "0.0"))
    document = changed()
    document["events"][3]["bemerkung"] = "vom Tisch geprüft"
    cases["refused_unknown_member.json"] = ("event 4 has a member outside the envelope: unusable", base_name,
                                            export_text(document))
    document = changed()
    document["events"][0]["sig"] = None
    cases["refused_sig_null.json"] = ('event 1 has "sig": null instead of no sig: unusable', base_name,
                                      export_text(document))
    document = changed()
    event, index = _first_private_effect(document)
    event["data"]["effects"][index] = {"teil": event["data"]["effects"][index], "text": "verdeckt"}
    rehashed(document, event["n"], keyring)
    cases["refused_nested_private.json"] = (
        f"event {event['n']}'s private effect {index} moved one level down into an effect (re-hashed, re-signed): "
        "a private part where the table writes none", base_name, export_text(document))
    document = changed()
    event, index = _first_private_effect(document)
    event["data"]["effects"][index]["$private"]["hinweis"] = "Stein 7"
    cases["refused_private_member.json"] = (
        f"event {event['n']}'s private effect {index} carries a member beside to, digest, salt, value (which the "
        "hash does not cover: same hash, same signature)", base_name, export_text(document))
    document = changed()
    document["events"][0]["data"]["seed"]["$private"]["to"] = [0]
    rehashed(document, 1, keyring)
    cases["refused_seed_for_a_seat.json"] = (
        "the seed sealed for seat 0 instead of for nobody (re-hashed, re-signed)", base_name, export_text(document))
    document = json.loads(json.dumps(daily))
    del document["seed"]
    cases["refused_daily_without_seed.json"] = (
        "the daily game's copy without the header's seed: GameEnded's is \"\", so no seed is revealed",
        "vectors/daily_speedmosaik_seat0.json", export_text(document))
    document = json.loads(json.dumps(team))
    document["team_logs"][0]["events"][0]["bemerkung"] = "vom Tisch geprüft"
    cases["refused_team_entry_member.json"] = ("entry 1 of team 0's log has a member outside the envelope: unusable",
                                               "vectors/speednova_v2_team0_signed.json", export_text(document))
    cases["refused_with_other_humans.json"] = (
        "speedkoi_two_humans_signed.json with PlayerLeft's with_other_humans false although Bert plays on "
        "(re-hashed, re-signed)", "golden/speedkoi_v1_signed.json",
        export_text(two_humans(_load(golden_path("speedkoi", 1, signed=True)), keyring, with_other_humans=False)))
    cases["refused_two_seats_one_player.json"] = (
        "speedkoi_two_humans_signed.json with seat 0's player seated at seat 1 too, playing both (re-hashed, "
        "re-signed): one human in two seats", "golden/speedkoi_v1_signed.json",
        export_text(two_humans(_load(golden_path("speedkoi", 1, signed=True)), keyring, same_player=True)))
    document = changed()
    human = next(seat for seat in document["events"][0]["data"]["seats"] if seat["kind"] == "human")
    event = next(event for event in document["events"] if event["type"] == "MoveMade"
                 and event["actor"] == human["player_id"] and event["data"]["chosen_by"] == "player")
    event["data"]["chosen_by"] = "operator"
    rehashed(document, event["n"], keyring)
    cases["refused_operator_move.json"] = (
        f"event {event['n']}, the human's move, written as the operator's tools' (table.cmd.play: chosen_by "
        "\"operator\"; re-hashed, re-signed): nobody but the player moves for the player", base_name,
        export_text(document))
    assert base in DERIVED
    return cases


def derived_vectors() -> dict[str, str]:
    """Every derived vector file's text (``DERIVED``, the refusals, the receipts file and ``index.json``), by name."""
    keyring = Keyring.load(TEST_KEY_FILE)
    documents = {
        "speednova_rekordjagd_signed.json": signed_copy(_load(VECTORS / "speednova_rekordjagd.json"), keyring),
        "speedkoi_seat0_signed.json": player_copy(_load(golden_path("speedkoi", 1, signed=True)), 0),
        "daily_speedmosaik_seat0.json": player_copy(_load(DAILY_SOURCE), 0),
        "speednova_v2_team0_signed.json": player_copy(_load(golden_path("speednova", 2, signed=True)), 0),
        "speedkoi_two_humans_signed.json": two_humans(_load(golden_path("speedkoi", 1, signed=True)), keyring),
    }
    receipts = kept_receipts(documents["speednova_v2_team0_signed.json"], 0)
    texts = {name: export_text(document) for name, document in documents.items()}
    texts[RECEIPTS] = json.dumps(receipts, ensure_ascii=False, indent=1) + "\n"
    refused = refused_vectors(documents["speednova_rekordjagd_signed.json"], documents["daily_speedmosaik_seat0.json"],
                              documents["speednova_v2_team0_signed.json"], keyring)
    texts.update({name: text for name, (_what, _source, text) in refused.items()})
    trusted = public_keys(keyring.published_for([keyring.active]))
    index = []
    described = {**DERIVED, **{name: (what, source) for name, (what, source, _text) in refused.items()}}
    for name in ("speednova_rekordjagd.json", "daily_speedmosaik.json", *described):
        text = texts.get(name) or (VECTORS / name).read_text(encoding="utf-8")
        what, source = described.get(name, ("written once from a game played on a table", ""))
        entry: dict[str, Any] = {"file": name, "what": what, **({"from": source} if source else {}),
                                 "verdict": verdict_of(text, trusted)}
        if name == "speednova_v2_team0_signed.json":
            proved = check_receipts(documents[name], read_receipts(receipts), trusted).to_json()
            entry["receipts"] = {"file": RECEIPTS, **{key: proved[key] for key in
                                                      ("passed", "proven", "team_proven", "other_games")}}
        index.append(entry)
    texts["index.json"] = json.dumps({
        "about": "The verdict docs/audit.md's audit gives each export vector, with the signatures checked against the "
                 "test key tests/audit/signing_test_key.json: exit 0 passed, 1 a difference, 2 unusable (written by "
                 "tests/audit/make_vectors.py; checked by tests/audit/test_vectors.py).",
        "test_key": keyring.published_for([keyring.active])[0], "vectors": index}, ensure_ascii=False, indent=1) + "\n"
    return texts


def verdict_of(text: str, trusted: Any) -> dict[str, Any]:
    """The verdict ``speed audit FILE`` gives an export's text with ``trusted`` keys pinned: exit 2 and the reason
    when it is unusable, else the report's stable fields (``verdict``) with exit 0 or 1."""
    try:
        report = audit(read_json(text.encode("utf-8")), trusted_keys=trusted)
    except UnusableDocument as error:
        return {"exit": 2, "unusable": str(error)}
    return {"exit": 0 if report.passed else 1, **verdict(report.to_json())}


def verdict(report: dict[str, Any]) -> dict[str, Any]:
    """What of an audit report a vector pins: passed or the difference, the checks, events, moves, signatures."""
    signatures = report.get("signatures") or {}
    team = signatures.get("team_logs")
    return {"passed": report["passed"], "difference": report["difference"], "checks": report["checks"],
            "events": report["events"], "moves": report["moves"],
            "signatures": {"signed_by": signatures.get("signed_by"), "unsigned": signatures.get("unsigned"),
                           **({"team_signed_by": team.get("signed_by"), "team_unsigned": team.get("unsigned")}
                              if team else {})}}


def main() -> int:
    played = VECTORS / "speednova_rekordjagd.json"
    if not played.exists():
        write_played()
    for name, text in derived_vectors().items():
        (VECTORS / name).write_text(text, encoding="utf-8")
        print(f"{name} geschrieben")
    return 0


def write_played() -> None:
    """Play the vector game and write it with its digests (only when it is missing: it is written once)."""
    with tempfile.TemporaryDirectory(prefix="vectors-") as root:
        servers = start_servers(Path(root), throwaway=True)
        try:
            infra = Infrastructure(nats_url=servers.nats_url, database_url=servers.database_url,
                                   nats_credentials=servers.nats_credentials)
            os.environ.update(infra.env())
            get_settings.cache_clear()
            document = asyncio.run(play(infra))
        finally:
            servers.stop()
    report = audit(document)
    assert report.passed, report.lines()
    VECTORS.mkdir(exist_ok=True)
    write_export(VECTORS / "speednova_rekordjagd.json", document)
    (VECTORS / "digests.json").write_text(json.dumps(digests(document), ensure_ascii=False, indent=1) + "\n",
                                          encoding="utf-8")
    print(f"{len(document['events'])} Ereignisse, {report.verdict()}")


if __name__ == "__main__":
    sys.exit(main())
