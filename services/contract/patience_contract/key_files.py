"""Key files: a header of `#` comments, then one key a line, the current key first and
older keys after it. The launcher writes them (`make_once`, `replace`); the engine
(ENGINE_SEAL_KEY_FILE) and the gateway (PLAYER_TOKEN_KEY_FILE) read them (`read`).

A key file is made once with mode 0600 (it holds secrets); a new key is added by
replacing the file whole (written beside it, then renamed), so that a reader never sees
half a file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from patience_contract.settings import SettingsError


class KeyProblem(SettingsError):
    """The configured keys cannot be used; the message says why (never the keys)."""


def keys_in(text: str) -> list[str]:
    """The keys of a key file's text: its lines, less blank lines and `#` comments."""
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def read(path: Path, what: str) -> list[str]:
    """The keys in the key file `path` of `what` keys ("seal", "player token"), current
    first; KeyProblem when it cannot be read or holds no key."""
    try:
        keys = keys_in(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise KeyProblem(f"cannot read the {what} key file {path}: {error}") from None
    if not keys:
        raise KeyProblem(f"the {what} key file {path} holds no key")
    return keys


def given_keys(
    inline: Sequence[str], path: Path | None, *, names: tuple[str, str], what: str
) -> list[str]:
    """The keys set inline or in a key file, by the variables `names` (inline, file):
    one of them, not both."""
    if inline and path is not None:
        raise KeyProblem(f"set {names[0]} or {names[1]}, not both")
    return read(path, what) if path is not None else list(inline)


def make_once(path: Path, header: str, key: str) -> bool:
    """Makes `path` holding `key` (mode 0600) unless it exists; True when it made it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(header + key + "\n")
    return True


def replace(path: Path, header: str, keys: Sequence[str]) -> None:
    """Writes `keys` (the current key first) to `path`, replacing it whole."""
    spare = path.with_name(path.name + ".new")
    fd = os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(header + "\n".join(keys) + "\n")
    os.replace(spare, path)
