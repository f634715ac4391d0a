"""Where the engine's seal keys come from: ENGINE_SEAL_KEY, a key file, old keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from patience_engine.config import EngineConfig


def config_of(**env: str) -> EngineConfig:
    return EngineConfig.from_env(env)


def test_no_key_means_plain_states() -> None:
    config = config_of()
    assert config.seal_key is None and config.old_seal_keys == ()
    assert config_of(ENGINE_SEAL_KEY="  ").seal_key is None


def test_the_key_from_the_environment_and_old_keys_beside_it() -> None:
    config = config_of(ENGINE_SEAL_KEY="current", ENGINE_OLD_SEAL_KEYS="older, oldest,,current")
    assert config.seal_key == b"current"
    assert config.old_seal_keys == (b"older", b"oldest")
    assert "current" not in repr(config)


def test_a_key_file_holds_the_current_key_first_then_old_keys(tmp_path: Path) -> None:
    key_file = tmp_path / "engine-seal.key"
    key_file.write_text("# made by patience serve\n\n  newest  \nolder\n# a comment\nold\n")
    config = config_of(ENGINE_SEAL_KEY_FILE=str(key_file), ENGINE_OLD_SEAL_KEYS="extra")
    assert config.seal_key == b"newest"
    assert config.old_seal_keys == (b"older", b"old", b"extra")


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ENGINE_SEAL_KEY": "a", "ENGINE_SEAL_KEY_FILE": "/x"}, "not both"),
        ({"ENGINE_OLD_SEAL_KEYS": "older"}, "needs a current key"),
        ({"ENGINE_SEAL_KEY_FILE": "/nonexistent/engine-seal.key"}, "cannot read"),
    ],
)
def test_key_settings_that_cannot_work_are_refused(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EngineConfig.from_env(env)


def test_an_empty_key_file_is_refused(tmp_path: Path) -> None:
    key_file = tmp_path / "empty.key"
    key_file.write_text("# nothing but a comment\n\n")
    with pytest.raises(ValueError, match="holds no key"):
        config_of(ENGINE_SEAL_KEY_FILE=str(key_file))
    with pytest.raises(ValueError, match="old seal keys need a current key"):
        EngineConfig(seal_key=None, old_seal_keys=(b"old",))
