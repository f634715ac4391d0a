"""Searches (Solve and Hint) in processes of their own, apart from those that apply moves.

A search can take seconds of CPU; run in the server's event loop it would hold up every
move behind it. So each engine server process keeps a small pool of search processes
(ENGINE_SOLVER_PROCESSES) and hands each search to an idle one over a pipe; the event
loop only waits on the pipes. Searches that find no idle process wait in a bounded queue
(ENGINE_SOLVER_QUEUE), hints ahead of solves; past it a call is refused with
RESOURCE_EXHAUSTED (reason SOLVER_BUSY) at once, rather than waiting behind searches that
would spend its deadline.

Each search carries an absolute deadline (the call's, less a margin for the answer's way
back) and a stop flag in shared memory. The search looks at both every few hundred
positions: a search that reaches the deadline answers UNKNOWN, and one whose call was
cancelled (the client gone, or its deadline passed) stops, so its process is free for
the next search within milliseconds. A process that dies (killed, out of memory) fails
its search with INTERNAL and is replaced.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import multiprocessing
import multiprocessing.connection
import multiprocessing.sharedctypes
import os
import signal
import time
from dataclasses import dataclass
from typing import Any

from patience_engine.errors import Reason, Rejected

log = logging.getLogger("patience_engine")

_SPAWN = multiprocessing.get_context("spawn")
# How much lower a search process's CPU priority is than the server's (``nice``).
SEARCH_NICENESS = 10


@dataclass(frozen=True, slots=True)
class SearchJob:
    """One search: ``kind`` "solve" or "hint", a serialized GameState already validated
    by the engine, the budget in positions and seconds (counted from when a search
    process takes the job up), and the absolute time by which the answer must be on its
    way (``time.monotonic()``, the same clock in every process of the machine; infinite
    for a call without a deadline)."""

    kind: str
    state: bytes
    positions: int
    seconds: float
    deadline: float


class SearchFailed(Exception):
    """The search process died during the search."""


class _Worker:
    """One search process and the search it runs, if any."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.stop_flag = _SPAWN.RawValue("b", 0)
        self.connection, child = _SPAWN.Pipe()
        self.process = _SPAWN.Process(
            target=_search_process,
            args=(child, self.stop_flag),
            name=f"engine-search-{index}",
            daemon=True,
        )
        self.process.start()
        child.close()
        self.job: asyncio.Future[bytes] | None = None

    def close(self) -> None:
        self.connection.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)


class SearchPool:
    """``processes`` search processes and a queue of at most ``queue_limit`` searches
    waiting for one. Used from one event loop; :meth:`close` ends the processes."""

    def __init__(self, processes: int, queue_limit: int) -> None:
        if processes < 1:
            raise ValueError(f"a search pool needs at least one process, not {processes}")
        if queue_limit < 0:
            raise ValueError(f"the search queue limit cannot be negative, not {queue_limit}")
        self.processes = processes
        self.queue_limit = queue_limit
        self._workers: list[_Worker] = []
        self._idle: list[_Worker] = []
        self._waiting: collections.deque[tuple[SearchJob, asyncio.Future[bytes]]] = (
            collections.deque()
        )
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Starts the processes (they get ready in the background)."""
        self._loop = loop
        for index in range(self.processes):
            self._add_worker(_Worker(index))

    def close(self) -> None:
        """Fails every search waiting or running with CANCELLED and ends the processes."""
        for _, future in self._waiting:
            future.cancel()
        self._waiting.clear()
        for worker in self._workers:
            if self._loop is not None:
                self._loop.remove_reader(worker.connection.fileno())
            if worker.job is not None and not worker.job.done():
                worker.job.cancel()
            worker.close()
        self._workers.clear()
        self._idle.clear()

    @property
    def running(self) -> int:
        """Searches running now."""
        return len(self._workers) - len(self._idle)

    @property
    def process_ids(self) -> list[int]:
        """The search processes' ids."""
        return [worker.process.pid for worker in self._workers if worker.process.pid]

    @property
    def waiting(self) -> int:
        """Searches waiting for a process."""
        return len(self._waiting)

    async def run(self, job: SearchJob) -> bytes:
        """The search's reply, serialized. Raises Rejected (SOLVER_BUSY) when every
        process is busy and the queue is full; cancelling the caller stops the search."""
        loop = self._loop
        assert loop is not None, "the search pool was not started"
        if not self._idle and len(self._waiting) >= self.queue_limit:
            raise Rejected(
                Reason.SOLVER_BUSY,
                f"every search process is busy and {len(self._waiting)} searches wait: "
                "try again later",
                processes=str(self.processes),
                queue_limit=str(self.queue_limit),
            )
        future: asyncio.Future[bytes] = loop.create_future()
        worker: _Worker | None = None
        if self._idle:
            worker = self._idle.pop()
            self._dispatch(worker, job, future)
        else:
            self._waiting.insert(self._place_in_queue(job), (job, future))
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            self._abandon(future)
            raise

    # ----------------------------------------------------------------- internals

    def _place_in_queue(self, job: SearchJob) -> int:
        """Hints wait ahead of solves (in the order they came): a player is waiting on a
        hint, while a solve is typically background work, such as filling a pool of
        winnable deals, that would otherwise hold hints up for its whole budget."""
        if job.kind != "hint":
            return len(self._waiting)
        return sum(1 for waiting, _ in self._waiting if waiting.kind == "hint")

    def _add_worker(self, worker: _Worker) -> None:
        assert self._loop is not None
        self._workers.append(worker)
        self._loop.add_reader(worker.connection.fileno(), self._on_reply, worker)
        self._next(worker)

    def _dispatch(self, worker: _Worker, job: SearchJob, future: asyncio.Future[bytes]) -> None:
        worker.stop_flag.value = 0  # the process is idle: no search reads the flag now
        worker.job = future
        worker.connection.send(job)

    def _next(self, worker: _Worker) -> None:
        """Gives an idle worker the next waiting search, or marks it idle."""
        while self._waiting:
            job, future = self._waiting.popleft()
            if not future.done():
                self._dispatch(worker, job, future)
                return
        self._idle.append(worker)

    def _abandon(self, future: asyncio.Future[bytes]) -> None:
        """The caller is gone: drop its search from the queue, or stop it running."""
        for entry in self._waiting:
            if entry[1] is future:
                self._waiting.remove(entry)
                return
        for worker in self._workers:
            if worker.job is future:
                worker.stop_flag.value = 1
                return

    def _on_reply(self, worker: _Worker) -> None:
        try:
            reply: bytes | None = worker.connection.recv()
        except (EOFError, OSError):
            self._replace(worker)
            return
        future, worker.job = worker.job, None
        if future is not None and not future.done():
            if reply is None:
                future.set_exception(SearchFailed("the search raised an error"))
            else:
                future.set_result(reply)
        self._next(worker)

    def _replace(self, dead: _Worker) -> None:
        assert self._loop is not None
        log.error(
            "search process %d died (exit code %s); starting another",
            dead.index,
            dead.process.exitcode,
        )
        self._loop.remove_reader(dead.connection.fileno())
        self._workers.remove(dead)
        with contextlib.suppress(ValueError):
            self._idle.remove(dead)
        if dead.job is not None and not dead.job.done():
            dead.job.set_exception(SearchFailed(f"search process {dead.index} died"))
        dead.close()
        self._add_worker(_Worker(dead.index))


# --------------------------------------------------------------------------- the process


def _search_process(connection: multiprocessing.connection.Connection, stop_flag: Any) -> None:
    """A search process: runs the searches its pipe brings until the pipe closes."""
    # Ctrl-C reaches the whole process group: the server decides when this one ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Below the processes that apply moves in the kernel's eyes: where cores are short, a
    # move takes the CPU from a search, never the other way round.
    os.nice(SEARCH_NICENESS)
    from patience_engine.search_replies import answer

    def stopped() -> bool:
        return bool(stop_flag.value)

    while True:
        try:
            job: SearchJob = connection.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        reply: bytes | None
        try:
            reply = answer(job, stopped, time.monotonic)
        except Exception as error:  # the server is told; this process lives on
            log.error("search failed: %s", type(error).__name__)
            reply = None
        try:
            connection.send(reply)
        except (BrokenPipeError, OSError):
            return
