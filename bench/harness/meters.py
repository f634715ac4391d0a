"""CPU time and memory of server processes, read with psutil over a process and all
its descendants (a server's workers are its children), so that what a server costs can
be read apart from what the load generator costs."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping

import psutil

MIB = 1024 * 1024


def process_tree(pid: int) -> list[psutil.Process]:
    """The process and all its descendants; empty once it has exited."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def spawned(pid: int) -> dict[int, int]:
    """The processes multiprocessing's spawn started below `pid` (its resource tracker
    left out), each with its parent's pid."""
    found: dict[int, int] = {}
    for proc in process_tree(pid)[1:]:
        with contextlib.suppress(psutil.Error):
            if "spawn_main" in " ".join(proc.cmdline()):
                found[proc.pid] = proc.ppid()
    return found


def cpu_seconds_by_pid(pid: int) -> dict[int, float]:
    """CPU seconds (user + system) of a process and of each of its descendants."""
    seconds: dict[int, float] = {}
    for proc in process_tree(pid):
        with contextlib.suppress(psutil.NoSuchProcess):
            times = proc.cpu_times()
            seconds[proc.pid] = times.user + times.system
    return seconds


def cpu_seconds(pid: int | None) -> float:
    """CPU seconds of a process tree (0 when there is no process to read)."""
    return sum(cpu_seconds_by_pid(pid).values()) if pid is not None else 0.0


class CpuMeter:
    """CPU seconds used by some process trees, each named, so that the cost of a call
    can also be split by process. A process in two trees counts once, in the first."""

    def __init__(self, pids: Mapping[str, int]) -> None:
        self.pids = dict(pids)

    def by_name(self) -> dict[str, float]:
        result: dict[str, float] = {}
        seen: set[int] = set()
        for name, pid in self.pids.items():
            tree = {p: s for p, s in cpu_seconds_by_pid(pid).items() if p not in seen}
            seen.update(tree)
            result[name] = sum(tree.values())
        return result


def resident_mib(pid: int | None) -> float:
    """Resident memory of a process tree, in MiB."""
    if pid is None:
        return 0.0
    total = 0
    for proc in process_tree(pid):
        with contextlib.suppress(psutil.NoSuchProcess):
            total += proc.memory_info().rss
    return total / MIB


class MemoryWatch:
    """The highest resident memory (MiB) of a process tree while something runs,
    sampled from a thread so that a short peak is seen too."""

    def __init__(self, pid: int | None, every: float = 0.05) -> None:
        self.pid = pid
        self.every = every
        self.before_mib = resident_mib(pid)
        self.peak_mib = self.before_mib
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(self.every):
            self.peak_mib = max(self.peak_mib, resident_mib(self.pid))

    @contextlib.contextmanager
    def watching(self) -> Iterator[MemoryWatch]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()
            self.peak_mib = max(self.peak_mib, resident_mib(self.pid))
