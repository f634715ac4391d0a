"""How the launcher chooses the engine's seal key: one key per data store, never a
throwaway key for games that outlive the run, and a Redis that remembers its key."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import redis
from patience_contract import key_files
from patience_engine.sealing import key_id_of
from patience_launcher import cli, seal_keys
from patience_launcher.seal_keys import KEY_FILE_NAME, STORE_RECORD, KeyProblem, choose


def test_the_embedded_redis_gets_a_key_file_made_once(tmp_path: Path) -> None:
    first = choose({}, tmp_path, redis_url_given=False)
    path = tmp_path / KEY_FILE_NAME
    assert first.env == {"ENGINE_SEAL_KEY_FILE": str(path)}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    (key,) = key_files.read(path, "seal")
    assert len(key) == 64 and first.key_ids == (key_id_of(key.encode()),)
    # The next start finds the same key: the games kept beside it still open.
    assert choose({}, tmp_path, redis_url_given=False) == first
    assert "sealed, key " + first.key_ids[0] in first.banner


def test_redis_url_without_a_key_is_refused(tmp_path: Path) -> None:
    """Finding: `patience serve` with a persistent REDIS_URL drew a new key at each start,
    and every stored game answered 500 after a restart."""
    with pytest.raises(KeyProblem, match="REDIS_URL is set but no seal key is"):
        choose({}, None, redis_url_given=True)
    assert not (tmp_path / KEY_FILE_NAME).exists()


def test_configured_keys_are_taken_as_they_are(tmp_path: Path) -> None:
    choice = choose(
        {"ENGINE_SEAL_KEY": "current", "ENGINE_OLD_SEAL_KEYS": "older"},
        tmp_path,
        redis_url_given=True,
    )
    assert choice.env == {}
    assert choice.key_ids == (key_id_of(b"current"), key_id_of(b"older"))
    assert "1 old key" in choice.banner and "ENGINE_SEAL_KEY" in choice.banner
    plain = choose({"ENGINE_SEAL_KEY": ""}, tmp_path, redis_url_given=True)
    assert plain.key_ids == () and "unsafe development mode" in plain.banner
    assert not (tmp_path / KEY_FILE_NAME).exists()
    with pytest.raises(KeyProblem, match="cannot read"):
        choose({"ENGINE_SEAL_KEY_FILE": str(tmp_path / "missing")}, None, redis_url_given=True)


def test_rotating_the_key_file_keeps_the_old_keys(tmp_path: Path) -> None:
    path = seal_keys.ensure_key_file(tmp_path / KEY_FILE_NAME)
    (old,) = key_files.read(path, "seal")
    new_id = seal_keys.rotate_key_file(path)
    keys = key_files.read(path, "seal")
    assert keys[1:] == [old] and key_id_of(keys[0].encode()) == new_id
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert choose({}, tmp_path, redis_url_given=False).key_ids == (
        new_id,
        key_id_of(old.encode()),
    )


def test_a_redis_remembers_its_key_and_refuses_another(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    client.delete(STORE_RECORD)
    try:
        first, second = key_id_of(b"first"), key_id_of(b"second")
        seal_keys.check_store(redis_url, (first,))
        assert client.get(STORE_RECORD) == first.encode()
        seal_keys.check_store(redis_url, (first,))  # the same key again: fine
        with pytest.raises(KeyProblem, match=f"sealed with key {first}"):
            seal_keys.check_store(redis_url, (second,))
        with pytest.raises(KeyProblem, match="ENGINE_SEAL_KEY is empty"):
            seal_keys.check_store(redis_url, ())
        # A rotation: the recorded key is an old key now, and the record follows.
        seal_keys.check_store(redis_url, (second, first))
        assert client.get(STORE_RECORD) == second.encode()
    finally:
        client.delete(STORE_RECORD)
        client.close()


def test_the_key_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["key", "new"]) == 0
    printed = capsys.readouterr().out.strip()
    assert len(printed) == 64 and int(printed, 16) >= 0
    path = tmp_path / "keys" / KEY_FILE_NAME
    path.parent.mkdir()
    assert cli.main(["key", "ensure", str(path)]) == 0
    assert "made with a new key" in capsys.readouterr().out
    (first,) = key_files.read(path, "seal")
    assert cli.main(["key", "ensure", str(path)]) == 0
    assert "kept as it was" in capsys.readouterr().out
    assert cli.main(["key", "rotate", str(path)]) == 0
    keys = key_files.read(path, "seal")
    assert keys[1:] == [first]
    assert f"new current key {key_id_of(keys[0].encode())}" in capsys.readouterr().out
    assert cli.main(["key", "ensure", str(tmp_path / "missing" / "x.key")]) == 2
