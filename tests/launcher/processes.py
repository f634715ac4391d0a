"""Linux process-table helpers for the launcher's tests (read from /proc)."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    start_ticks: int  # with the pid, names one process even if the pid is reused
    state: str
    cmdline: str


def read_proc(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/cmdline", "rb") as cmd:
            cmdline = cmd.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except (OSError, IndexError):
        return None
    return Proc(pid, int(fields[1]), int(fields[19]), fields[0], cmdline)


def all_procs() -> list[Proc]:
    found = (read_proc(int(entry)) for entry in os.listdir("/proc") if entry.isdigit())
    return [proc for proc in found if proc is not None]


def descendants(root: int) -> list[Proc]:
    """Every live process below `root` in the process tree."""
    procs = all_procs()
    children: dict[int, list[Proc]] = {}
    for proc in procs:
        children.setdefault(proc.ppid, []).append(proc)
    found: list[Proc] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child.pid)
    return found


def still_running(proc: Proc) -> bool:
    """True while that very process exists and is not a zombie."""
    now = read_proc(proc.pid)
    return now is not None and now.start_ticks == proc.start_ticks and now.state not in "ZX"


def where_waiting(proc: Proc) -> str:
    """What a live process is doing, for a failure's message: its state, the kernel
    function each of its threads sleeps in, and its threads' names."""
    try:
        threads = sorted(os.listdir(f"/proc/{proc.pid}/task"))
    except OSError:
        return f"{proc.pid}: gone"
    seen = []
    for tid in threads:
        try:
            with open(f"/proc/{proc.pid}/task/{tid}/comm", encoding="utf-8") as comm:
                name = comm.read().strip()
            with open(f"/proc/{proc.pid}/task/{tid}/wchan", encoding="utf-8") as wchan:
                waits = wchan.read().strip() or "-"
        except OSError:
            continue
        seen.append(f"{name}:{waits}")
    return f"{proc.pid} ({proc.cmdline}, parent {proc.ppid}, {proc.state}): " + ", ".join(seen)
