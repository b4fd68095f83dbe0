"""The seeded generator is specified (docs/rules/rng.md): these vectors pin it."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from libs.rules.rng import SeededRng


def test_words_are_sha256_counter_blocks_split_into_four_big_endian_words() -> None:
    digest = hashlib.sha256(b"speedmosaik" + (4).to_bytes(4, "big") + b"test" + (0).to_bytes(8, "big")).digest()
    rng = SeededRng(b"speedmosaik", "test")
    assert [rng.next_u64() for _ in range(4)] == [int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8)]


def test_known_output_vectors_never_change() -> None:
    rng = SeededRng(b"speedmosaik", "test")
    assert [rng.next_u64() for _ in range(5)] == [
        0xEC1AAF01E99C25F4,
        0xB1C39657CF6229C4,
        0x08096478495EA2A2,
        0x355A6F0E7A0B1E53,
        0x39D28B6FA363281A,
    ]
    zero = SeededRng(b"\x00" * 32)
    assert [zero.randbelow(100) for _ in range(8)] == [44, 90, 51, 4, 15, 78, 67, 97]
    assert SeededRng(b"abc").shuffle(list(range(10))) == [6, 9, 3, 5, 7, 1, 8, 2, 4, 0]
    assert SeededRng(b"abc").random() == 0.0279838923878426


def test_derive_appends_the_label_with_a_slash() -> None:
    assert SeededRng(b"abc", "a").derive("b").next_u64() == SeededRng(b"abc", "a/b").next_u64()
    assert SeededRng(b"abc").derive("b").next_u64() == SeededRng(b"abc", "b").next_u64()


def test_labels_give_independent_streams() -> None:
    assert SeededRng(b"abc", "x").next_u64() != SeededRng(b"abc", "y").next_u64()


@settings(max_examples=50, deadline=None)
@given(seed=st.binary(min_size=1, max_size=32), n=st.integers(min_value=1, max_value=10**12))
def test_randbelow_stays_in_range(seed: bytes, n: int) -> None:
    rng = SeededRng(seed)
    assert all(0 <= rng.randbelow(n) < n for _ in range(20))


def test_randbelow_is_roughly_uniform() -> None:
    rng = SeededRng(b"uniform")
    counts = Counter(rng.randbelow(6) for _ in range(6000))
    assert set(counts) == set(range(6))
    assert all(850 < count < 1150 for count in counts.values())


def test_randbelow_refuses_an_empty_range() -> None:
    with pytest.raises(ValueError):
        SeededRng(b"x").randbelow(0)


@settings(max_examples=50, deadline=None)
@given(seed=st.binary(max_size=16), items=st.lists(st.integers(), max_size=40))
def test_shuffle_is_a_permutation_and_leaves_the_input_alone(seed: bytes, items: list[int]) -> None:
    before = list(items)
    shuffled = SeededRng(seed).shuffle(items)
    assert items == before
    assert sorted(shuffled) == sorted(items)


@settings(max_examples=30, deadline=None)
@given(seed=st.binary(max_size=16), label=st.text(max_size=10))
def test_same_seed_and_label_give_the_same_output(seed: bytes, label: str) -> None:
    a, b = SeededRng(seed, label), SeededRng(seed, label)
    assert [a.random() for _ in range(5)] == [b.random() for _ in range(5)]
    assert a.shuffle(range(20)) == b.shuffle(range(20))
    assert a.choice("abcdef") == b.choice("abcdef")


def test_random_is_in_the_unit_interval() -> None:
    rng = SeededRng(b"float")
    values = [rng.random() for _ in range(1000)]
    assert all(0.0 <= v < 1.0 for v in values)


def test_choice_from_empty_sequence_raises() -> None:
    with pytest.raises(IndexError):
        SeededRng(b"x").choice([])


def test_repr_never_shows_the_seed() -> None:
    assert "secret" not in repr(SeededRng(b"secret", "lbl"))
