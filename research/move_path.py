"""The path of one move through the project's code: `python -m research.move_path`.

One POST /v1/games/{id}/moves is sent to the gateway app in this process (httpx's ASGI
transport, with the app's lifespan run) on a real Redis of its own and a real engine
server in a thread of this process, as tests/gateway drives it. While the move is
answered, `sys.setprofile` records, in each of the two threads, the project's source
files that calls enter (a call, not a coroutine resumed after an await), repeats in a
row collapsed into one. It reports, for the gateway and for the engine's ApplyMove:

- files: the distinct files on the path;
- steps: the moves from one file to another;
- returns: the steps into a file the path had already been in.

A move is made untimed first (with its own If-Match), so that what is done once per
process (reading the variants, loading a script into Redis) is not counted. The project's
files are those of its packages (PACKAGES), named from the package down, wherever they
are imported from: PYTHONPATH=<an older checkout>/services/gateway measures that
checkout's gateway beside this engine. The Lua scripts are not Python and are not
seen. `--speed-paths off` sends the move through the reference paths
(PATIENCE_SPEED_PATHS=off); `--sequence` prints each path in order.
"""

from __future__ import annotations

import argparse
import asyncio
import dis
import importlib.util
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
from patience_engine.config import EngineConfig
from patience_engine.server import RunningEngine, start_server
from patience_gateway.app import create_app
from patience_gateway.settings import Settings
from patience_launcher.redis_server import EmbeddedRedis

VARIANT, DEAL = "house-on-the-hill", 1
# a card to another fan and back, forever (bench/clients/endless_games.py finds such)
MOVES = ("t2-t31", "t31-t2")


# The project's packages, wherever they are imported from (this checkout, or an older
# one put first on PYTHONPATH to compare with).
PACKAGES = ("patience_gateway", "patience_engine", "patience_contract", "patience", "solitaire")
_RESUME = dis.opmap["RESUME"]


def _resumed(frame: FrameType) -> bool:
    """Whether a "call" event is a generator or coroutine resumed (RESUME with a
    nonzero argument: after a yield or an await), not the start of a call."""
    code, at = frame.f_code.co_code, frame.f_lasti
    return code[at] == _RESUME and code[at + 1] != 0


@dataclass
class Trail:
    """The project's files entered, in order, repeats in a row collapsed."""

    files: list[str] = field(default_factory=list)

    def enter(self, filename: str) -> None:
        if not self.files or self.files[-1] != filename:
            self.files.append(filename)

    @property
    def steps(self) -> int:
        return max(len(self.files) - 1, 0)

    @property
    def returns(self) -> int:
        seen: set[str] = set()
        back = 0
        for name in self.files:
            back += name in seen
            seen.add(name)
        return back

    @property
    def distinct(self) -> list[str]:
        return list(dict.fromkeys(self.files))


def _package_dirs() -> list[Path]:
    found = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found += [Path(location).resolve() for location in spec.submodule_search_locations]
    return found


_PACKAGE_DIRS = _package_dirs()


class Recorder:
    """A profile function that adds each project file a call enters to `path`."""

    def __init__(self) -> None:
        self.path = Trail()
        self._known: dict[str, str | None] = {}

    def _project_file(self, filename: str) -> str | None:
        known = self._known.get(filename, "")
        if known != "":
            return known
        name: str | None = None
        if filename.startswith("/"):  # not "<string>", "<frozen os>"
            resolved = Path(filename).resolve()
            for package in _PACKAGE_DIRS:
                if resolved.is_relative_to(package):
                    name = str(resolved.relative_to(package.parent))
        self._known[filename] = name
        return name

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or _resumed(frame):
            return
        name = self._project_file(frame.f_code.co_filename)
        if name is not None:
            self.path.enter(name)


class EngineThread:
    """The engine server in a thread of its own, with its own event loop."""

    def __init__(self, speed_paths: bool) -> None:
        self.loop = asyncio.new_event_loop()
        self.speed_paths = speed_paths
        self.running: RunningEngine | None = None
        self._thread = threading.Thread(target=self._run, name="engine", daemon=True)
        self._started = threading.Event()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        config = EngineConfig(listen="127.0.0.1:0", workers=1, speed_paths=self.speed_paths)
        self.running = self.loop.run_until_complete(start_server(config))
        self._started.set()
        self.loop.run_forever()

    def __enter__(self) -> EngineThread:
        self._thread.start()
        if not self._started.wait(60) or self.running is None:
            raise RuntimeError("the engine did not start")
        return self

    def __exit__(self, *_: object) -> None:
        assert self.running is not None
        asyncio.run_coroutine_threadsafe(self.running.stop(0), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(30)

    @property
    def target(self) -> str:
        assert self.running is not None
        return f"127.0.0.1:{self.running.port}"

    def profile(self, function: Recorder | None) -> None:
        """Sets the engine thread's profile function (None: none), once it is set."""
        done = threading.Event()

        def install() -> None:
            sys.setprofile(function)
            done.set()

        self.loop.call_soon_threadsafe(install)
        done.wait(30)


async def one_move(redis_url: str, engine: EngineThread, speed_paths: bool) -> tuple[Trail, Trail]:
    """(the gateway's path, the engine's path) of one move."""
    settings = Settings.from_env(
        {
            "REDIS_URL": redis_url,
            "ENGINE_ADDR": engine.target,
            "WINNABLE_POOL_SIZE": "0",
            "PATIENCE_SPEED_PATHS": "on" if speed_paths else "off",
        }
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
            created = await http.post("/v1/games", json={"variant": VARIANT, "deal": DEAL})
            assert created.status_code == 201, created.text
            game = created.json()
            headers = {"Authorization": f"Bearer {game['token']}", "If-Match": '"1"'}
            url = f"/v1/games/{game['id']}/moves"
            first = await http.post(url, json={"move": MOVES[0]}, headers=headers)
            assert first.status_code == 200, first.text
            headers["If-Match"] = first.headers["etag"]
            gateway, engine_side = Recorder(), Recorder()
            engine.profile(engine_side)
            sys.setprofile(gateway)
            try:
                moved = await http.post(url, json={"move": MOVES[1]}, headers=headers)
            finally:
                sys.setprofile(None)
                engine.profile(None)
            assert moved.status_code == 200, moved.text
    return gateway.path, engine_side.path


def report(name: str, path: Trail, sequence: bool) -> Iterator[str]:
    yield f"{name}: {len(path.distinct)} files, {path.steps} steps, {path.returns} returns"
    if sequence:
        yield from (f"    {file}" for file in path.files)
    else:
        yield from (f"    {file}" for file in path.distinct)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m research.move_path", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--speed-paths", choices=("on", "off"), default="on")
    parser.add_argument("--sequence", action="store_true", help="every file in order")
    args = parser.parse_args(argv)
    speed_paths = args.speed_paths == "on"
    with EmbeddedRedis() as redis, EngineThread(speed_paths) as engine:
        gateway, engine_path = asyncio.run(one_move(redis.url, engine, speed_paths))
    lines = [
        *report("gateway", gateway, args.sequence),
        *report("engine (ApplyMove)", engine_path, args.sequence),
        f"together: {len(gateway.distinct) + len(engine_path.distinct)} files,"
        f" {gateway.steps + engine_path.steps} steps,"
        f" {gateway.returns + engine_path.returns} returns",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
