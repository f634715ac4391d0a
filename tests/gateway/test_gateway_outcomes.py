"""A write script's outcome is read once, as `Outcome`: every word a script answers
with is one of its values, and every value is a word some script answers with."""

from __future__ import annotations

import re
from importlib import resources

import pytest
from patience_gateway.storage.writes import Outcome

LUA = resources.files("patience_gateway.storage") / "lua"


def answered_words() -> set[bytes]:
    """The first word of every table a script returns: `return {'stale', v}`."""
    words: set[bytes] = set()
    for script in LUA.iterdir():
        if script.name.endswith(".lua"):
            words.update(re.findall(rb"return \{'([a-z]+)'", script.read_bytes()))
    return words


def test_the_scripts_answer_with_the_outcomes() -> None:
    assert answered_words() == {outcome.value for outcome in Outcome}


def test_an_outcome_is_read_from_the_reply() -> None:
    assert Outcome([b"stale", b"7"][0]) is Outcome.STALE
    assert Outcome([b"idem", b"answer"][0]) is Outcome.IDEMPOTENT_REPLAY
    with pytest.raises(ValueError):
        Outcome([b"maybe"][0])
