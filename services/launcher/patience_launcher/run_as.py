"""`python -m patience_launcher.run_as UID:GID PROGRAM [ARG...]` becomes that user (with
no supplementary groups), then PROGRAM (exec, same process id).

For the programs a process started as root runs as another user (PostgreSQL's initdb and
server, which refuse root). subprocess's own `user`, `group` and `extra_groups` are not
used for that: with any of them CPython starts the child with a plain fork() instead of
vfork(), and a plain fork() of a process that has gRPC's threads running (a test, a
bench part, the launcher beside its engine client) runs the gRPC library's fork
handlers in the child, where they fail (initdb was seen to exit with nothing but
"epoll_wait error: Bad file descriptor" on its standard error). Started through this
program, the child is spawned without those arguments, and the switch is made here, in
a fresh interpreter that has no thread to break.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

USAGE = __doc__.split("\n", 1)[0]


def command(argv: Sequence[str], user: tuple[int, int]) -> list[str]:
    """`argv` run as `user` (uid, gid) through this program."""
    return [sys.executable, "-m", __name__, f"{user[0]}:{user[1]}", *argv]


def become(user: str) -> None:
    """Becomes UID:GID, with no supplementary groups; raises ValueError or OSError."""
    uid, _, gid = user.partition(":")
    os.setgroups([])
    os.setgid(int(gid))
    os.setuid(int(uid))


def main(args: Sequence[str]) -> int:
    if len(args) < 2:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        become(args[0])
    except (ValueError, OSError) as error:
        print(f"run_as: cannot switch the user: {error}", file=sys.stderr)
        return 1
    os.execvp(args[1], list(args[1:]))
    return 1  # not reached: execvp replaces this process or raises


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
