"""Where `patience serve` keeps what must outlive a run: the embedded Redis's
append-only file, and the engine's key file beside it.

The folder is `$PATIENCE_DATA_DIR` when set, otherwise `.patience` in the current
directory. The working directory rather than the user's data directory because
`make run` always starts from the checkout: each checkout keeps its own games, they go
away with it, and two checkouts never run one Redis data folder twice. `.patience/` is
in `.gitignore`.

`patience serve` resolves the folder once and hands it to every service it starts as
`PATIENCE_DATA_DIR` (with `--ephemeral`, a temporary folder deleted on exit), so
`data_dir()` names the same folder in the launcher and in its children.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from patience_contract.settings import declared, read_settings

from patience_launcher.scratch import OwnedTempDir, lock_exclusively, sweep_abandoned
from patience_launcher.settings import LauncherSettings

DATA_DIR_VARIABLE = declared(LauncherSettings, "data_dir").name


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The data folder, as an absolute path (not created: see `prepare`)."""
    return read_settings(LauncherSettings, environ).data_dir.expanduser().absolute()


def prepare(folder: Path) -> Path:
    """Creates `folder` (and its parents) if missing, readable by its owner only: it
    holds the games and the key that opens them. Raises OSError with the reason."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # FileExistsError if a file
    return folder


EPHEMERAL_PREFIX = "patience-data-"
LOCK_NAME = "launcher.lock"


class FolderInUse(Exception):
    """Another launcher runs on this data folder."""


class RunData:
    """The data folder of one run, held (locked) until `release()`: two Redis servers
    writing one append-only file would corrupt it."""

    def __init__(self, folder: Path | None = None, *, ephemeral: bool = False) -> None:
        """`folder` (default `data_dir()`), created if missing; with `ephemeral`, a
        temporary folder instead, removed on release. Raises FolderInUse or OSError."""
        self.ephemeral = ephemeral
        self._tmp: OwnedTempDir | None = None
        self._lock_fd: int | None = None
        if ephemeral:
            sweep_abandoned(EPHEMERAL_PREFIX)
            self._tmp = OwnedTempDir(EPHEMERAL_PREFIX)
            self.path = self._tmp.path
            return
        self.path = prepare(folder.absolute() if folder is not None else data_dir())
        self._lock_fd = lock_exclusively(self.path / LOCK_NAME)
        if self._lock_fd is None:
            raise FolderInUse(f"{self.path} is in use by another `patience serve`")

    def release(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
