"""Canonical JSON stays the bytes every log was hashed with."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from libs.platform.canonical import canonical_json

LEAVES = st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.text()
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=40)


# 500 random documents (the assertion is unchanged): 2,000 took ~25 s of the 15-minute test budget, and the
# encoder has few branches (kinds of leaves, nesting, key order, escapes) that far fewer examples already reach.
@settings(max_examples=500, deadline=None)
@given(VALUES)
def test_canonical_json_writes_the_same_bytes_as_the_json_module_did(value: object) -> None:
    former = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert canonical_json(value) == former


def test_umlauts_and_control_characters_are_written_as_before() -> None:
    value = {"ä": "Überlauf\n\u2028\x00", "b": [1, None, True]}
    assert canonical_json(value) == json.dumps(value, sort_keys=True, separators=(",", ":"),
                                               ensure_ascii=False).encode()
