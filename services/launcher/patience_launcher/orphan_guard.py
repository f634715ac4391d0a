"""`python -m patience_launcher.orphan_guard PARENT_PID PROGRAM [ARG...]` becomes PROGRAM
(exec, same process id) after asking Linux to send it SIGTERM if PARENT_PID dies.

So a service started by the launcher stops even when the launcher is killed outright
(SIGKILL, out of memory) and has no chance to stop it. The request is made in this
small program rather than in a `preexec_fn` hook: such a hook forces a plain fork()
and runs Python code in the child, where the gRPC library's fork handlers break.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from collections.abc import Sequence

_PR_SET_PDEATHSIG = 1


def guarded(argv: Sequence[str]) -> list[str]:
    """`argv` wrapped so that it dies with this process (Linux); unchanged elsewhere."""
    if sys.platform != "linux":
        return list(argv)
    return [sys.executable, "-m", "patience_launcher.orphan_guard", str(os.getpid()), *argv]


def main(args: Sequence[str]) -> int:
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
