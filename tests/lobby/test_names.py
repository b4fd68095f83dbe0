"""Names: look-alikes of a registered name are taken, invisible and control characters change nothing or
are refused, computer names are the platform's; `/me` tells what the lobby's database knows."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import delete, update

from libs.platform.auth import Identity, PlayerKind, issue_token
from libs.platform.rpc import CommandRefused
from services.lobby.database import sessions_of
from services.lobby.models import Player
from services.lobby.names import check_name, skeleton
from tests.conftest import TEST_AUTH_SECRET
from tests.lobby.conftest import Lobby, bearer, unique_name

CYRILLIC_A = "\u0410"
FULL_WIDTH = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(33, 127)})


@pytest.mark.parametrize(("original", "look_alike"), [
    ("Anna Weber", "\u0410nna Weber"),        # Cyrillic А
    ("Anna Weber", "Anna W\u0435ber"),        # Cyrillic е
    ("ANNA WEBER", "\u0391NNA WEBER"),        # Greek Α
    ("Anna Weber", "Ａｎｎａ Ｗｅｂｅｒ"),       # full width
    ("Anna Weber", "An\u200bna We\u200dber"),  # zero-width space and joiner
    ("Anna Weber", "\u202eAnna Weber"),       # right-to-left override
    ("Bill Kramer", "BiII Kramer"),           # capital I for l
    ("Marta", "rnarta"),                      # "rn" for "m"
    ("Otto 2000", "Otto 2OOO"),               # O for 0
    ("Straße", "STRASSE"),                    # case folding
])
def test_look_alike_names_have_the_same_skeleton(original: str, look_alike: str) -> None:
    assert look_alike != original and skeleton(look_alike) == skeleton(original)


@pytest.mark.parametrize("different", ["Anna Webel", "Anne Weber", "Anna", "Ana Weber"])
def test_different_names_keep_different_skeletons(different: str) -> None:
    assert skeleton(different) != skeleton("Anna Weber")


@pytest.mark.parametrize(("name", "code"), [
    ("\u0410nna", "name_mixed_scripts"),      # Latin with one Cyrillic letter
    ("Ann\u03b1", "name_mixed_scripts"),      # Latin with one Greek letter
    ("An\u0000na", "name_invalid"),           # NUL
    ("Anna\tBerg", "name_invalid"),           # tab
    ("Anna\u0085", "name_invalid"),           # C1 control
    ("Anna\u2028Berg", "name_invalid"),       # line separator: no letter, no space
    ("Anna\ue000", "name_invalid"),           # private use
    ("\u200b\u200bAl", "name_too_short"),    # invisible characters do not count
    ("Computer", "name_reserved"),
    ("Computer 2", "name_reserved"),
    ("computer3", "name_reserved"),
    ("Ｃｏｍｐｕｔｅｒ 1", "name_reserved"),
    ("C\u043emputer 1", "name_mixed_scripts"),
])
def test_names_with_mixed_scripts_controls_or_computer_names_are_refused(name: str, code: str) -> None:
    with pytest.raises(CommandRefused) as refused:
        check_name(name)
    assert (refused.value.status, refused.value.code) == (422, code)


@pytest.mark.parametrize(("raw", "kept"), [
    ("Jörg Müller", "Jörg Müller"), ("Анна", "Анна"), ("Ελένη", "Ελένη"), ("李小龍", "李小龍"),
    ("Ａｎｎａ", "Anna"), ("An\u200bna", "Anna"), ("Computerfreak", "Computerfreak"), ("  Zoë  ", "Zoë"),
])
def test_honest_names_in_one_script_are_kept_in_their_plain_form(raw: str, kept: str) -> None:
    assert check_name(raw) == kept


@pytest.mark.parametrize("forge", [
    lambda name: name.translate(FULL_WIDTH),
    lambda name: name[:2] + "\u200b" + name[2:] + "\u202c",
    lambda name: name.upper(),
    lambda name: name.replace("l", "I"),
], ids=["full-width", "invisible", "upper-case", "capital-I-for-l"])
async def test_a_look_alike_of_a_registered_name_is_taken_for_players_and_guests(
        lobby: Lobby, forge: Callable[[str], str]) -> None:
    name = unique_name("Lola")
    assert (await lobby.http.post("/players", json={"name": name, "password": "geheim-123"})).status_code == 201
    look_alike = forge(name)
    assert look_alike != name

    as_player = await lobby.http.post("/players", json={"name": look_alike, "password": "anderes-123"})
    as_guest = await lobby.http.post("/guests", json={"name": look_alike})

    for answer in (as_player, as_guest):
        assert answer.status_code == 409, answer.text
        assert answer.json() == {"detail": "Dieser Name ist schon vergeben. Bitte wähle einen anderen.",
                                 "code": "name_taken"}


async def test_a_name_in_another_script_that_looks_like_a_registered_one_is_taken(lobby: Lobby) -> None:
    # "ВОРОНА" in Cyrillic capitals (a crow) reads as the Latin "BOPOHA": one script, and still a look-alike.
    latin, cyrillic = "BOPOHA", "\u0412\u041e\u0420\u041e\u041d\u0410"
    async with sessions_of(lobby.runtime).begin() as session:  # a fixed name: drop it from earlier runs
        await session.execute(delete(Player).where(Player.name == latin))
    assert (await lobby.http.post("/players", json={"name": latin, "password": "geheim-123"})).status_code == 201
    taken = await lobby.http.post("/guests", json={"name": cyrillic})
    assert taken.status_code == 409 and taken.json()["code"] == "name_taken"


async def test_mixed_scripts_are_refused_with_a_german_reason(lobby: Lobby) -> None:
    answer = await lobby.http.post("/players", json={"name": CYRILLIC_A + "nna " + unique_name()[8:],
                                                     "password": "geheim-123"})
    assert answer.status_code == 422 and answer.json()["code"] == "name_mixed_scripts"
    assert "Schriften" in answer.json()["detail"]


async def test_full_width_and_invisible_characters_sign_up_under_the_plain_name(lobby: Lobby) -> None:
    plain = unique_name("Gast")
    forged = plain[:2] + "\u200b" + plain[2:].translate(FULL_WIDTH)
    answer = await lobby.http.post("/guests", json={"name": forged})
    assert answer.status_code == 201 and answer.json()["name"] == plain


async def test_logging_in_with_a_look_alike_of_the_name_finds_the_same_player(lobby: Lobby) -> None:
    name = unique_name("Rita")
    registered = (await lobby.http.post("/players", json={"name": name, "password": "geheim-123"})).json()
    login = await lobby.http.post("/sessions", json={"name": name.translate(FULL_WIDTH), "password": "geheim-123"})
    assert login.status_code == 200 and login.json()["player_id"] == registered["player_id"]


async def test_me_reports_the_name_and_kind_the_lobby_knows_not_the_tokens(lobby: Lobby) -> None:
    guest = (await lobby.http.post("/guests", json={"name": unique_name("Gast")})).json()
    # A token (signed with the platform's secret) that claims another name and kind for this very player.
    claimed = Identity(player_id=guest["player_id"], name="Admin", kind=PlayerKind.REGISTERED)
    me = await lobby.http.get("/me", headers=bearer(issue_token(TEST_AUTH_SECRET, claimed)))
    assert me.status_code == 200
    assert me.json() == {"player_id": guest["player_id"], "name": guest["name"], "kind": "guest"}

    renamed = unique_name("Neu")
    async with sessions_of(lobby.runtime).begin() as session:
        await session.execute(update(Player).where(Player.player_id == guest["player_id"]).values(name=renamed))
    assert (await lobby.http.get("/me", headers=bearer(guest["token"]))).json()["name"] == renamed


async def test_me_refuses_a_token_of_a_player_the_lobby_does_not_know(lobby: Lobby) -> None:
    guest = (await lobby.http.post("/guests", json={"name": unique_name("Gast")})).json()
    async with sessions_of(lobby.runtime).begin() as session:
        await session.execute(delete(Player).where(Player.player_id == guest["player_id"]))
    gone = await lobby.http.get("/me", headers=bearer(guest["token"]))
    never = await lobby.http.get("/me", headers=bearer(issue_token(TEST_AUTH_SECRET, Identity(
        player_id="f" * 32, name="Niemand", kind=PlayerKind.GUEST))))
    for answer in (gone, never):
        assert answer.status_code == 401
        assert answer.json() == {"detail": "Diesen Spieler gibt es nicht (mehr). Bitte melde dich neu an.",
                                 "code": "unknown_player"}
