"""Key files as the launcher writes them: a header of `#` comments, then one key a line,
the current key first and older keys after it. Made once with mode 0600 (they hold
secrets); a new key is added by replacing the file whole (written beside it, then
renamed), so that a reader never sees half a file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path


class KeyProblem(Exception):
    """The configured keys cannot be used; the message says why (never the keys)."""


def keys_in(text: str) -> list[str]:
    """The keys of a key file's text: its lines, less blank lines and `#` comments."""
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


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
