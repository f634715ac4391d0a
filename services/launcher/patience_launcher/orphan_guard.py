"""`python -m patience_launcher.orphan_guard [--as UID:GID] PARENT_PID PROGRAM [ARG...]`
becomes PROGRAM (exec, same process id) after asking Linux to send it SIGTERM if
PARENT_PID dies; with `--as`, it first becomes that user (no supplementary groups).

So a service started by the launcher stops even when the launcher is killed outright
(SIGKILL, out of memory) and has no chance to stop it. The request is made in this
small program rather than in a `preexec_fn` hook: such a hook forces a plain fork()
and runs Python code in the child, where the gRPC library's fork handlers break.

The user is switched here rather than by `subprocess` for two reasons: the Python that
runs this program may live where that user cannot read (a root's home), and Linux
forgets the parent-death request when a process changes its user, so the request must
come after the switch.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from collections.abc import Sequence

from patience_launcher import run_as
from patience_launcher.run_as import become

_PR_SET_PDEATHSIG = 1
_AS_FLAG = "--as"


def guarded(argv: Sequence[str], user: tuple[int, int] | None = None) -> list[str]:
    """`argv` wrapped so that it dies with this process (Linux), run as `user` (uid, gid)
    when given; unchanged elsewhere (where the caller switches the user itself)."""
    if sys.platform != "linux":
        return list(argv)
    switch = [_AS_FLAG, f"{user[0]}:{user[1]}"] if user is not None else []
    return [
        sys.executable,
        "-m",
        "patience_launcher.orphan_guard",
        *switch,
        str(os.getpid()),
        *argv,
    ]


def guarded_from_here(argv: Sequence[str], user: tuple[int, int] | None = None) -> list[str]:
    """`guarded(argv, user)` when called from the main thread; from any other thread,
    `argv` as `user` without the guard. Linux sends the signal when the *thread* that
    started the child ends, not the process: a server started from a worker thread
    would be stopped with that thread. The main thread ends with the process."""
    if threading.current_thread() is threading.main_thread():
        return guarded(argv, user)
    return run_as.command(argv, user) if user is not None else list(argv)


def main(args: Sequence[str]) -> int:
    args = list(args)
    try:
        if args[:1] == [_AS_FLAG] and len(args) > 1:
            become(args[1])
            args = args[2:]
    except (ValueError, OSError) as error:
        print(f"orphan_guard: cannot switch the user: {error}", file=sys.stderr)
        return 1
    if len(args) < 2 or not args[0].isdigit():
        print(__doc__, file=sys.stderr)
        return 2
    parent, program = int(args[0]), list(args[1:])
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM) != 0:
        print(f"orphan_guard: prctl failed: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 1
    if os.getppid() != parent:
        return 1  # the parent died before the request took effect: nobody wants us
    os.execvp(program[0], program)
    return 1  # not reached: execvp replaces this process or raises


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
