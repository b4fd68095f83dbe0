"""Private parts of the log: others see only a salted digest, and the hash chain verifies on every copy."""

from __future__ import annotations

import copy

import pytest

from libs.platform.envelope import ChainBroken, EventType, new_event, verify_chain
from libs.platform.private import PRIVATE, digest_of, opened, redact, reveal_for, salt_for, seal

SEED = bytes(range(32))


def _log() -> list:
    """A three-event log: a start with a sealed seed, a move with a private effect for seat 1, a private move."""
    started = new_event(game_id="g1", n=1, type=EventType.GAME_STARTED, actor="system", rules="tinygame@1",
                        prev="0" * 64, data={"seed": seal(SEED.hex(), (), salt_for(SEED, "g1", 1, 0)), "seats": 2})
    drawn = {"key": "zieht", "params": {"karte": 7}, "text": "Du ziehst die 7.", "visible_to": [1]}
    public = {"key": "zieht_verdeckt", "params": {"platz": 2}, "text": "Platz 2 zieht eine Karte."}
    move = new_event(game_id="g1", n=2, type=EventType.MOVE_MADE, actor="p2", rules="tinygame@1", prev=started.hash,
                     data={"seat": 1, "move": {"ziehen": True}, "chosen_by": "player",
                           "effects": [public, seal(drawn, (1,), salt_for(SEED, "g1", 2, 1))]})
    signal = new_event(game_id="g1", n=3, type=EventType.MOVE_MADE, actor="p1", rules="tinygame@1", prev=move.hash,
                       data={"seat": 0, "move": seal({"signal": "hoch"}, (0,), salt_for(SEED, "g1", 3, 1)),
                             "chosen_by": "player", "effects": []})
    return [started, move, signal]


def _copy_for(events: list, viewer: int | None) -> list:
    return [type(event)(**{**event.to_json(), "data": reveal_for(event.data, viewer)}) for event in events]


def test_the_full_log_and_every_players_copy_verify_with_the_same_hashes() -> None:
    events = _log()
    verify_chain(events)
    for viewer in (None, 0, 1):
        mine = _copy_for(events, viewer)
        verify_chain(mine)
        assert [event.hash for event in mine] == [event.hash for event in events]


def test_a_copy_carries_other_seats_parts_only_as_digests() -> None:
    events = _log()
    seat0 = _copy_for(events, 0)
    text = repr([event.to_json() for event in seat0])
    assert "Du ziehst die 7" not in text and "'karte': 7" not in text
    assert SEED.hex() not in text
    assert opened(seat0[2].data["move"]) == {"signal": "hoch"}  # its own move stays readable
    hidden = seat0[1].data["effects"][1][PRIVATE]
    assert set(hidden) == {"to", "digest"} and hidden["to"] == [1]
    seat1 = _copy_for(events, 1)
    assert opened(seat1[1].data["effects"][1])["params"] == {"karte": 7}
    assert "signal" not in repr(seat1[2].to_json())


def test_a_changed_private_value_breaks_the_chain_even_with_its_digest_kept() -> None:
    events = _log()
    forged = copy.deepcopy(events[1].to_json())
    forged["data"]["effects"][1][PRIVATE]["value"]["params"]["karte"] = 9
    with pytest.raises(ChainBroken, match="private part"):
        verify_chain([events[0], type(events[1])(**forged), events[2]])


def test_digests_are_salted_with_a_secret_from_the_seed() -> None:
    value = {"karte": 7}
    assert digest_of(value, salt_for(SEED, "g1", 2, 1)) != digest_of(value, salt_for(SEED, "g1", 2, 2))
    assert digest_of(value, salt_for(SEED, "g1", 2, 1)) != digest_of(value, salt_for(bytes(32), "g1", 2, 1))
    sealed = seal(value, (0,), salt_for(SEED, "g1", 2, 1))
    assert redact(sealed) == {PRIVATE: {"to": [0], "digest": sealed[PRIVATE]["digest"]}}
    with pytest.raises(KeyError):
        opened(redact(sealed))
