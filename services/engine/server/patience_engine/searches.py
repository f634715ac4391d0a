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
the next search within milliseconds. A search no process has answered by its deadline
(it waited behind others, or its process was slow to look at the clock) is answered by
the server as a search with no time left answers (UNKNOWN; a hint: the first legal move,
best effort), and is stopped. A process that dies (killed, out of memory) fails
its search (the engine takes the search up once more, then answers
RESOURCE_EXHAUSTED, reason SEARCH_FAILED) and is replaced.

A search process writes its replies' moves with the writer its server runs
(`speed_paths`: the speed path, or the reference; patience_engine.encoding).

What the pool does is told to a `SearchObserver` (the engine's metrics): the queue's
length, how long each search waited and ran, processes replaced. A search carries the
trace context of its call (`SearchJob.trace`), and where tracing is on its process
records the search as a span of that trace (patience_contract.tracing); it carries the
call's request id too, which the search process's log lines carry while it runs.
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
from dataclasses import replace
from math import inf
from typing import Any, Protocol

from opentelemetry import trace
from patience_contract import logs, tracing
from patience_contract.errors import Reason, Rejected

from patience_engine.config import DEFAULT_SEARCH_NICENESS
from patience_engine.encoding import writer_for
from patience_engine.search_jobs import SearchJob
from patience_engine.search_replies import answer

log = logging.getLogger("patience_engine")

_SPAWN = multiprocessing.get_context("spawn")
# How much lower a search process's CPU priority is than the server's (``nice``), unless
# ENGINE_SEARCH_NICENESS says otherwise.
SEARCH_NICENESS = DEFAULT_SEARCH_NICENESS
# The least share of its time a hint keeps when other hints wait behind it.
LEAST_HINT_SHARE = 0.25


def hint_seconds(seconds: float, hints_waiting: int, processes: int) -> float:
    """A hint's time when a search process takes it up while `hints_waiting` other hints
    wait for one of `processes`: divided by one more than the hints waiting per process,
    never below LEAST_HINT_SHARE of it. Every player in the queue is waiting on a hint:
    a search that takes its whole time holds each of them up by as much, so under load
    the time is shared (a position decided sooner is answered sooner either way)."""
    share = 1.0 / (1.0 + hints_waiting / processes)
    return seconds * max(share, LEAST_HINT_SHARE)


class SearchObserver(Protocol):
    """Told what the pool does (`metrics.EngineMetrics` is one)."""

    def searches_started(self, processes: int, queue_limit: int) -> None: ...
    def queue_changed(self, waiting: int, running: int) -> None: ...
    def search_waited(self, kind: str, seconds: float) -> None: ...
    def search_ran(self, kind: str, seconds: float) -> None: ...
    def search_process_replaced(self) -> None: ...


class _Unobserved:
    """The observer of a pool nobody watches."""

    def searches_started(self, processes: int, queue_limit: int) -> None:
        pass

    def queue_changed(self, waiting: int, running: int) -> None:
        pass

    def search_waited(self, kind: str, seconds: float) -> None:
        pass

    def search_ran(self, kind: str, seconds: float) -> None:
        pass

    def search_process_replaced(self) -> None:
        pass


class SearchFailed(Exception):
    """The search raised an error in its process."""


class SearchProcessDied(SearchFailed):
    """The search process died during the search (killed, out of memory)."""


class _Worker:
    """One search process and the search it runs, if any."""

    def __init__(self, index: int, speed_paths: bool, niceness: int) -> None:
        self.index = index
        self.stop_flag = _SPAWN.RawValue("b", 0)
        self.connection, child = _SPAWN.Pipe()
        self.process = _SPAWN.Process(
            target=_search_process,
            args=(child, self.stop_flag, speed_paths, niceness),
            name=f"engine-search-{index}",
            daemon=True,
        )
        self.process.start()
        child.close()
        self.job: asyncio.Future[bytes] | None = None
        # the running search's kind and when it was handed over
        self.kind = ""
        self.started = 0.0

    def close(self) -> None:
        self.connection.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)


class SearchPool:
    """``processes`` search processes and a queue of at most ``queue_limit`` searches
    waiting for one, writing their replies with the speed path or not (``speed_paths``),
    telling ``observer`` what it does, running ``niceness`` below this process's CPU
    priority. Used from one event loop; :meth:`close` ends the processes."""

    def __init__(
        self,
        processes: int,
        queue_limit: int,
        *,
        speed_paths: bool = True,
        observer: SearchObserver | None = None,
        niceness: int = SEARCH_NICENESS,
    ) -> None:
        if processes < 1:
            raise ValueError(f"a search pool needs at least one process, not {processes}")
        if queue_limit < 0:
            raise ValueError(f"the search queue limit cannot be negative, not {queue_limit}")
        self.processes = processes
        self.queue_limit = queue_limit
        self.speed_paths = speed_paths
        self.niceness = niceness
        self.observer: SearchObserver = observer or _Unobserved()
        self._workers: list[_Worker] = []
        self._idle: list[_Worker] = []
        # each search waiting, with the time it was queued
        self._waiting: collections.deque[tuple[SearchJob, asyncio.Future[bytes], float]] = (
            collections.deque()
        )
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Starts the processes (they get ready in the background)."""
        self._loop = loop
        self.observer.searches_started(self.processes, self.queue_limit)
        for index in range(self.processes):
            self._add_worker(_Worker(index, self.speed_paths, self.niceness))

    def close(self) -> None:
        """Fails every search waiting or running with CANCELLED and ends the processes."""
        for _, future, _ in self._waiting:
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
        now = time.monotonic()
        if self._idle:
            worker = self._idle.pop()
            self._dispatch(worker, job, future, now)
        else:
            self._waiting.insert(self._place_in_queue(job), (job, future, now))
        self._changed()
        try:
            # (asyncio.timeout, not wait_for: on Python 3.11 wait_for can lose the call's
            # cancellation when the search ends at the same moment)
            async with asyncio.timeout(
                None if job.deadline == inf else job.deadline - time.monotonic()
            ):
                return await asyncio.shield(future)
        except TimeoutError:
            if future.done():
                return future.result()
            # No process answered by the deadline (every one busy, or slow to look at the
            # clock on a crowded machine): the answer a search with no time left gives,
            # made here without searching, rather than the call failing.
            self._abandon(future)
            future.cancel()
            return answer(job, _stopped, time.monotonic, writer_for(self.speed_paths))
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
        return sum(1 for waiting, _, _ in self._waiting if waiting.kind == "hint")

    def _add_worker(self, worker: _Worker) -> None:
        assert self._loop is not None
        self._workers.append(worker)
        self._loop.add_reader(worker.connection.fileno(), self._on_reply, worker)
        self._next(worker)

    def _dispatch(
        self, worker: _Worker, job: SearchJob, future: asyncio.Future[bytes], queued: float
    ) -> None:
        worker.stop_flag.value = 0  # the process is idle: no search reads the flag now
        if job.kind == "hint":
            waiting = sum(1 for other, _, _ in self._waiting if other.kind == "hint")
            if waiting:
                job = replace(job, seconds=hint_seconds(job.seconds, waiting, self.processes))
        worker.job = future
        worker.kind = job.kind
        worker.started = time.monotonic()
        self.observer.search_waited(job.kind, worker.started - queued)
        worker.connection.send(job)

    def _changed(self) -> None:
        self.observer.queue_changed(len(self._waiting), self.running)

    def _next(self, worker: _Worker) -> None:
        """Gives an idle worker the next waiting search, or marks it idle."""
        try:
            while self._waiting:
                job, future, queued = self._waiting.popleft()
                if not future.done():
                    self._dispatch(worker, job, future, queued)
                    return
            self._idle.append(worker)
        finally:
            self._changed()

    def _abandon(self, future: asyncio.Future[bytes]) -> None:
        """The caller is gone: drop its search from the queue, or stop it running."""
        for entry in self._waiting:
            if entry[1] is future:
                self._waiting.remove(entry)
                self._changed()
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
        self.observer.search_ran(worker.kind, time.monotonic() - worker.started)
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
            dead.job.set_exception(SearchProcessDied(f"search process {dead.index} died"))
        dead.close()
        self.observer.search_process_replaced()
        self._add_worker(_Worker(dead.index, self.speed_paths, self.niceness))


def _stopped() -> bool:
    return True


# --------------------------------------------------------------------------- the process


def _search_process(
    connection: multiprocessing.connection.Connection,
    stop_flag: Any,
    speed_paths: bool,
    niceness: int,
) -> None:
    """A search process: runs the searches its pipe brings until the pipe closes."""
    # Ctrl-C reaches the whole process group: the server decides when this one ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Below the processes that apply moves in the kernel's eyes: where cores are short, a
    # move takes the CPU from a search, never the other way round.
    os.nice(niceness)
    writer = writer_for(speed_paths)
    logs.configure_logging(os.environ.get("LOG_LEVEL", "info"))
    traced = tracing.start_tracing("patience-engine")

    def stopped() -> bool:
        return bool(stop_flag.value)

    while True:
        try:
            job: SearchJob = connection.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        reply: bytes | None
        request_id = logs.request_id.set(job.request_id)
        try:
            if traced:
                reply = _traced_answer(job, stopped, writer)
            else:
                reply = answer(job, stopped, time.monotonic, writer)
        except Exception as error:  # the server is told; this process lives on
            log.error("search failed: %s", type(error).__name__)
            reply = None
        finally:
            logs.request_id.reset(request_id)
        try:
            connection.send(reply)
        except (BrokenPipeError, OSError):
            return
        if traced and job.trace:
            # the process may be killed with its server: the span leaves at once
            tracing.flush()


def _traced_answer(job: SearchJob, stopped: Any, writer: Any) -> bytes:
    """`search_replies.answer`, recorded as a span of the call's trace."""
    with tracing.continued(dict(job.trace)):
        tracer = trace.get_tracer("patience_engine.searches")
        with tracer.start_as_current_span(
            f"search {job.kind}",
            attributes={
                "patience.search.kind": job.kind,
                "patience.search.max_positions": job.positions,
                "patience.search.max_seconds": job.seconds,
            },
        ):
            return answer(job, stopped, time.monotonic, writer)
