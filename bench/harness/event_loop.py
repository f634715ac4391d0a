"""How the load generator runs its asyncio code."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_fast(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine on uvloop when it is installed (a dependency of the gateway's):
    the load generator then spends less of the shared CPU."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main())
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main())
