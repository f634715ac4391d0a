"""How the launcher chooses the keys that sign players' tokens: a key file made once in
the data folder, or the operator's keys checked before anything starts; `patience key
--player` makes and rotates such files."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from patience_contract.key_files import KeyProblem
from patience_launcher import cli, player_keys
from patience_launcher.player_keys import KEY_FILE_NAME, choose, key_id, read_key_file


def test_the_data_folder_gets_a_key_file_made_once(tmp_path: Path) -> None:
    first = choose({}, tmp_path)
    path = tmp_path / KEY_FILE_NAME
    assert first.env == {"PLAYER_TOKEN_KEY_FILE": str(path)}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().startswith("# patience-engine player token keys")
    (key,) = read_key_file(path)
    assert len(key) == 64 and int(key, 16) >= 0
    assert first.key_ids == (key_id(key),)
    assert choose({}, tmp_path) == first, "the next start signs with the same key"
    assert first.banner == f"tokens signed with key {first.key_ids[0]} (key file {path})"


def test_a_key_id_is_the_start_of_the_public_keys_sha256() -> None:
    seed = bytes(range(32))
    public = Ed25519PrivateKey.from_private_bytes(seed).public_key()
    raw = public.public_bytes(Encoding.Raw, PublicFormat.Raw)
    assert key_id(seed.hex()) == hashlib.sha256(raw).hexdigest()[:16]
    assert key_id(seed.hex().upper()) == key_id(seed.hex())


def test_configured_keys_are_taken_as_they_are_and_checked(tmp_path: Path) -> None:
    current, older = player_keys.new_key(), player_keys.new_key()
    inline = choose({"PLAYER_TOKEN_KEYS": f"{current}, {older}"}, tmp_path)
    assert inline.env == {} and inline.key_ids == (key_id(current), key_id(older))
    assert inline.banner.endswith(", 1 old key (PLAYER_TOKEN_KEYS)")
    given = tmp_path / "given.key"
    given.write_text(f"# ours\n{current}\n\n{older}\n")
    from_file = choose({"PLAYER_TOKEN_KEY_FILE": str(given)}, tmp_path)
    assert from_file.env == {} and from_file.key_ids == inline.key_ids
    assert not (tmp_path / KEY_FILE_NAME).exists(), "no key file of its own"

    with pytest.raises(KeyProblem, match="not both"):
        choose({"PLAYER_TOKEN_KEY_FILE": str(given), "PLAYER_TOKEN_KEYS": current}, tmp_path)
    secret = "correct horse battery staple"
    with pytest.raises(KeyProblem, match="key 2 is not 64 hex digits") as refused:
        choose({"PLAYER_TOKEN_KEYS": f"{current},{secret}"}, tmp_path)
    assert secret not in str(refused.value), "a misplaced secret is not printed"
    with pytest.raises(KeyProblem, match="cannot read"):
        choose({"PLAYER_TOKEN_KEY_FILE": str(tmp_path / "missing")}, tmp_path)
    (tmp_path / "empty.key").write_text("# nothing yet\n")
    with pytest.raises(KeyProblem, match="holds no key"):
        choose({"PLAYER_TOKEN_KEY_FILE": str(tmp_path / "empty.key")}, tmp_path)

    none = choose({"PLAYER_TOKEN_KEYS": ""}, tmp_path)
    assert none.key_ids == () and none.env == {}
    assert (
        none.banner == "no token key: the players' routes answer 503 (PLAYER_TOKEN_KEYS is empty)"
    )


def test_rotating_keeps_the_old_keys_to_verify_tokens_out_there(tmp_path: Path) -> None:
    path = player_keys.ensure_key_file(tmp_path / KEY_FILE_NAME)
    (old,) = read_key_file(path)
    new_id = player_keys.rotate_key_file(path)
    keys = read_key_file(path)
    assert keys[1:] == [old] and key_id(keys[0]) == new_id
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert choose({}, tmp_path).key_ids == (new_id, key_id(old))


def test_the_key_command_with_player(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["key", "new", "--player"]) == 0
    printed = capsys.readouterr().out.strip()
    assert len(printed) == 64 and key_id(printed)
    path = tmp_path / "keys" / KEY_FILE_NAME
    path.parent.mkdir()
    assert cli.main(["key", "ensure", "--player", str(path)]) == 0
    assert "made with a new key" in capsys.readouterr().out
    (first,) = read_key_file(path)
    assert cli.main(["key", "ensure", "--player", str(path)]) == 0
    assert "kept as it was" in capsys.readouterr().out
    # rotate without a file: the data folder's
    monkeypatch.setenv("PATIENCE_DATA_DIR", str(path.parent))
    assert cli.main(["key", "rotate", "--player"]) == 0
    keys = read_key_file(path)
    assert keys[1:] == [first]
    printed = capsys.readouterr().out
    assert f"new signing key {key_id(keys[0])}" in printed and "restart the gateways" in printed
    path.write_text("not a key\n")
    assert cli.main(["key", "rotate", "--player", str(path)]) == 2
    assert "not 64 hex digits" in capsys.readouterr().err
    assert path.read_text() == "not a key\n", "a file it cannot read is left as it is"
