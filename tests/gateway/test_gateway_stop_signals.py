"""`stop_signals`: a served worker's callback runs on a stop signal, and the handler that
was there (Granian's, in a worker) still runs too; a signal with no Python handler is
left alone; the former handlers can be put back."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from types import FrameType

import pytest
from patience_gateway.http.stop_signals import call_on_stop_signal


@pytest.fixture
def signals_kept() -> Iterator[None]:
    """The process's SIGINT and SIGTERM handlers as they were, after the test."""
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in kept.items():
            signal.signal(sig, handler)


async def test_a_stop_signal_calls_back_and_the_former_handler_still_runs(
    signals_kept: None,
) -> None:
    seen: list[int] = []

    def former(signum: int, _frame: FrameType | None) -> None:
        seen.append(signum)

    signal.signal(signal.SIGTERM, former)
    called = asyncio.Event()
    restore = call_on_stop_signal(called.set)
    os.kill(os.getpid(), signal.SIGTERM)
    async with asyncio.timeout(10):
        await called.wait()
    assert seen == [signal.SIGTERM]
    restore()
    assert signal.getsignal(signal.SIGTERM) is former


async def test_a_signal_without_a_python_handler_is_left_alone(signals_kept: None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    restore = call_on_stop_signal(lambda: None)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    restore()
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
