"""A real engine server in a thread of its own (its own event loop), so that it can
be stopped and started again on the same port while a gateway uses it."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading

from patience_engine.config import speed_paths_from_env
from patience_engine.searches import SearchPool
from patience_engine.server import EngineConfig, RunningEngine, start_server

SEAL_KEY = b"gateway-tests-seal-key"


class EngineThread:
    def __init__(
        self,
        port: int = 0,
        seal_key: bytes | None = SEAL_KEY,
        old_seal_keys: tuple[bytes, ...] = (),
        hint_milliseconds: int | None = None,
    ) -> None:
        self.port = port
        self.seal_key = seal_key
        self.old_seal_keys = old_seal_keys
        self.hint_milliseconds = hint_milliseconds
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._running: RunningEngine | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def searches(self) -> SearchPool:
        """The running engine's search processes (read from the tests' thread)."""
        assert self._running is not None, "the engine is not running"
        return self._running.searches

    def start(self) -> EngineThread:
        loop = asyncio.new_event_loop()
        started = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            asyncio.set_event_loop(loop)
            config = EngineConfig(
                listen=f"127.0.0.1:{self.port}",
                workers=1,
                seal_key=self.seal_key,
                old_seal_keys=self.old_seal_keys,
                # PATIENCE_SPEED_PATHS=off runs the gateway tests on the reference paths
                speed_paths=speed_paths_from_env(os.environ),
            )
            if self.hint_milliseconds is not None:
                config = dataclasses.replace(config, hint_milliseconds=self.hint_milliseconds)
            try:
                self._running = loop.run_until_complete(start_server(config))
            except BaseException as error:  # handed to the starting thread
                failure.append(error)
                started.set()
                return
            self.port = self._running.port
            started.set()
            loop.run_forever()

        self._loop = loop
        self._thread = threading.Thread(target=run, name="engine", daemon=True)
        self._thread.start()
        started.wait(30)
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        loop, running, thread = self._loop, self._running, self._thread
        if loop is None or running is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(running.stop(0), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()
        self._loop = self._running = self._thread = None
