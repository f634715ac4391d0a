"""Temporary folders that are removed even when their owner was killed outright.

A process that is killed with SIGKILL (or by the out-of-memory killer) cannot remove
its temporary folders. So each folder made here holds a lock file that its owner keeps
locked (`flock`) while it lives; the kernel drops the lock when the owner dies,
however it dies. The next launcher, test run or embedded Redis sweeps the folders of
its kind whose lock nobody holds any more.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOCK_NAME = ".owner.lock"


def lock_exclusively(path: Path) -> int | None:
    """Opens `path` (created if missing) and locks it; the open descriptor, or None
    when another process holds the lock. The lock lasts until the descriptor is closed
    or this process ends. The descriptor is not inherited by child processes."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


class OwnedTempDir:
    """A temporary folder named PREFIX..., locked by this process until `cleanup()`."""

    def __init__(self, prefix: str, parent: str | Path | None = None) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
        # Locked under another name first, then renamed: a sweeper never sees the lock
        # file unlocked (the lock belongs to the file, whatever its name).
        fresh = self.path / f"{LOCK_NAME}.new"
        fd = lock_exclusively(fresh)
        assert fd is not None, "a folder just made cannot be locked by anyone else"
        fresh.rename(self.path / LOCK_NAME)
        self._lock_fd: int | None = fd

    def cleanup(self) -> None:
        """Removes the folder and everything in it (once; later calls do nothing)."""
        if self._lock_fd is None:
            return
        shutil.rmtree(self.path, ignore_errors=True)
        os.close(self._lock_fd)
        self._lock_fd = None


def sweep_abandoned(prefix: str, parent: str | Path | None = None) -> list[Path]:
    """Removes the folders named PREFIX... in `parent` (default: the temporary
    directory) whose owner has died; returns them."""
    base = Path(parent) if parent is not None else Path(tempfile.gettempdir())
    removed: list[Path] = []
    with contextlib.suppress(OSError):
        candidates = [entry for entry in base.iterdir() if entry.name.startswith(prefix)]
        for folder in candidates:
            if _abandoned(folder):
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
    return removed


def _abandoned(folder: Path) -> bool:
    if folder.is_symlink() or not folder.is_dir():
        return False
    lock = folder / LOCK_NAME
    if not lock.exists():
        return False  # not made here (another program's, or one still being made)
    try:
        fd = lock_exclusively(lock)
    except OSError:
        return False  # not ours to judge (another user's, or unreadable)
    if fd is None:
        return False  # its owner is alive
    os.close(fd)
    return True


@contextlib.contextmanager
def temp_dir_for(prefix: str) -> Iterator[Path]:
    """A temporary folder PREFIX... for the duration of the block, made after removing
    the ones of its kind that owners killed outright left behind."""
    sweep_abandoned(prefix)
    folder = OwnedTempDir(prefix)
    try:
        yield folder.path
    finally:
        folder.cleanup()
