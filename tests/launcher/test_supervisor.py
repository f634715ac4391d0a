"""The supervisor's decisions, on stand-in children (no process is started): a crashed
service is restarted; one that keeps crashing, and one that once restarted never
answers again, make it give up and say why; one that answers again is counted afresh."""

from __future__ import annotations

import io
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from patience_launcher.supervisor import (
    RestartPolicy,
    ServiceFailed,
    StopRequested,
    Supervisor,
    describe_exit,
)

from tests.launcher.launcher_run import launcher_lines, said

# Seconds scaled down: restarts a hundredth of a second apart, a crash window far
# shorter than the time the restarts take (as 60 s is beside a minute-long timeout).
FAST = RestartPolicy(window_seconds=0.05, first_delay=0.01, max_delay=0.02)
STARTUP = 0.05


class StandIn:
    """What the supervisor asks of a child process, with nothing behind it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.starts = 0
        self.stops = 0
        self.code: int | None = None
        self.stop_timeouts: list[float] = []

    def start(self) -> None:
        self.starts += 1
        self.code = None

    def exit_code(self) -> int | None:
        return self.code

    def stop(self, timeout: float = 10.0) -> int | None:
        self.stops += 1
        self.stop_timeouts.append(timeout)
        if self.code is None:
            self.code = -15
        return self.code

    def kill(self) -> None:
        self.code = -9

    def last_output(self) -> str:
        return "listening"


@contextmanager
def watched(policy: RestartPolicy = FAST) -> Iterator[tuple[Supervisor, io.StringIO]]:
    """A supervisor that is stopped after 20 s if it has not given up by then."""
    log = io.StringIO()
    supervisor = Supervisor(log=log, policy=policy)
    timer = threading.Timer(20.0, supervisor.stop_requested.set)
    timer.start()
    try:
        yield supervisor, log
    finally:
        timer.cancel()


def add(supervisor: Supervisor, child: StandIn, back: Callable[[], bool]) -> None:
    supervisor.add_child(child, lambda: True, STARTUP, 1.0, back=back)  # type: ignore[arg-type]


def test_a_restarted_service_that_never_answers_is_given_up_on() -> None:
    """Each try is stopped after the startup timeout and the service restarted; after
    max_unanswered tries in a row the supervisor gives up, saying so, however far apart
    the tries were (here, much further than the crash window)."""
    child = StandIn("engine")
    with watched() as (supervisor, log):
        add(supervisor, child, back=lambda: False)
        child.code = 1  # it crashes once it has answered
        with pytest.raises(ServiceFailed) as failed:
            supervisor.wait()
    assert not supervisor.stop_requested.is_set(), "it did not give up"
    message = str(failed.value)
    assert "did not answer within 0.05 s" in message
    assert f"did not answer after {FAST.max_unanswered} restarts in a row: giving up" in message
    assert child.starts == 1 + FAST.max_unanswered
    # each try stopped (what it forked with it) within the service's own stop timeout
    assert child.stop_timeouts and set(child.stop_timeouts) == {1.0}
    restarting = [message for message in said(log.getvalue()) if "restarting the engine" in message]
    assert len(restarting) == FAST.max_unanswered


def test_a_service_that_keeps_crashing_is_given_up_on() -> None:
    child = StandIn("gateway")
    policy = RestartPolicy(window_seconds=60.0, first_delay=0.01, max_delay=0.02)
    answers = iter(range(100))

    def back() -> bool:  # answers after each restart, then crashes again
        next(answers)
        child.code = 1
        return True

    with watched(policy) as (supervisor, log):
        add(supervisor, child, back)
        child.code = 1
        with pytest.raises(ServiceFailed, match="crashed 5 times within 60 s: giving up"):
            supervisor.wait()
    assert "the gateway is back" in said(log.getvalue())
    assert child.starts == 5


def test_answering_again_counts_the_unanswered_restarts_afresh() -> None:
    """Two restarts that never answer, one that answers (and crashes later), two more
    that never answer: never max_unanswered in a row, so the supervisor keeps going."""
    child = StandIn("redis")

    def back() -> bool:
        if child.starts == 4:  # the third restart answers, then crashes
            child.code = 1
            return True
        return False

    def stop_at_the_sixth_restart() -> None:
        while child.starts < 7 and not supervisor.stop_requested.is_set():
            supervisor.stop_requested.wait(0.01)
        supervisor.stop_requested.set()

    with watched() as (supervisor, log):
        add(supervisor, child, back)
        child.code = 1
        stopper = threading.Thread(target=stop_at_the_sixth_restart)
        stopper.start()
        supervisor.wait()  # returns when stopped: it did not give up
        stopper.join()
    assert child.starts == 7
    assert "the redis is back" in said(log.getvalue())
    assert not [message for message in said(log.getvalue()) if "giving up" in message]


def test_a_restart_that_dies_before_answering_is_the_crash_windows_to_count() -> None:
    """Killed at once after every restart (never answering, never timing out): not the
    unanswered rule's case, which is for restarts too slow for the crash window; the
    crash window gives up after max_crashes, saying so."""
    child = StandIn("engine")
    policy = RestartPolicy(window_seconds=60.0, first_delay=0.01, max_delay=0.02)

    def back() -> bool:  # dead again before it could answer
        child.code = -9
        return False

    with watched(policy) as (supervisor, log):
        # a startup timeout far longer than the polls: each death is seen before it
        supervisor.add_child(child, lambda: True, 30.0, 1.0, back=back)  # type: ignore[arg-type]
        child.code = -9
        with pytest.raises(ServiceFailed) as failed:
            supervisor.wait()
    assert "the engine crashed 5 times within 60 s: giving up" in str(failed.value)
    assert "restarts in a row" not in str(failed.value)
    assert child.starts == 5
    assert any("the engine was killed by SIGKILL" in message for message in said(log.getvalue()))


@pytest.mark.parametrize(
    ("crashes", "seconds"), [(0, 0.2), (1, 0.2), (2, 0.4), (3, 0.8), (6, 6.4), (7, 8.0), (30, 8.0)]
)
def test_the_backoff_doubles_from_the_first_delay_up_to_the_most(
    crashes: int, seconds: float
) -> None:
    assert RestartPolicy().delay(crashes) == pytest.approx(seconds)


def test_restarts_wait_the_backoff_and_say_so() -> None:
    child = StandIn("gateway")
    policy = RestartPolicy(window_seconds=60.0, first_delay=0.01, max_delay=0.03)

    def back() -> bool:
        child.code = 3
        return True

    with watched(policy) as (supervisor, log):
        add(supervisor, child, back)
        child.code = 3
        with pytest.raises(ServiceFailed):
            supervisor.wait()
    restarts = [line for line in launcher_lines(log.getvalue()) if "restarting" in line["message"]]
    assert [line["message"].splitlines() for line in restarts] == [
        [
            "the gateway exited with status 3; its last output:",
            "    listening",
            f"restarting the gateway in {delay} s",
        ]
        for delay in ("0.01", "0.02", "0.03", "0.03")
    ]
    assert {line["level"] for line in restarts} == {"warning"}


def test_an_exit_is_described_with_the_last_ten_lines_of_output() -> None:
    output = "\n".join(f"line {n}" for n in range(1, 13)) + "\n\n   \n"
    text = describe_exit("engine", 2, output)
    assert text.splitlines() == [
        "the engine exited with status 2; its last output:",
        *(f"    line {n}" for n in range(3, 13)),
    ]
    assert describe_exit("redis", -signal.SIGKILL, "") == "the redis was killed by SIGKILL"
    assert describe_exit("gateway", 0, " \n") == "the gateway exited with status 0"


def test_a_child_is_added_once_it_answers() -> None:
    child = StandIn("redis")
    answers = iter([False, False, True])
    with watched() as (supervisor, _log):
        supervisor.add_child(child, lambda: next(answers), 5.0, 1.0)  # type: ignore[arg-type]
    assert child.starts == 1
    assert [service.child for service in supervisor.running] == [child]
    [service] = supervisor.running
    assert (service.startup_timeout, service.stop_timeout) == (5.0, 1.0)
    assert service.back is service.ready  # after a restart, the same question by default


def test_a_child_that_dies_while_starting_fails_with_its_exit() -> None:
    child = StandIn("engine")

    def ready() -> bool:
        child.code = 2
        return False

    with watched() as (supervisor, _log), pytest.raises(ServiceFailed) as failed:
        supervisor.add_child(child, ready, 5.0, 1.0)  # type: ignore[arg-type]
    assert str(failed.value) == "the engine exited with status 2; its last output:\n    listening"


def test_a_child_that_never_answers_fails_at_its_timeout() -> None:
    child = StandIn("postgres")
    with watched() as (supervisor, _log), pytest.raises(ServiceFailed) as failed:
        supervisor.add_child(child, lambda: False, 0.05, 1.0)  # type: ignore[arg-type]
    assert str(failed.value) == "the postgres did not answer within 0.05 s"


def test_children_started_without_waiting_are_waited_for_in_their_order() -> None:
    engine, gateway = StandIn("engine"), StandIn("gateway")
    asked: list[str] = []

    def answers(name: str, after: int) -> Callable[[], bool]:
        calls = 0

        def ready() -> bool:
            nonlocal calls
            calls += 1
            asked.append(name)
            return calls > after

        return ready

    with watched() as (supervisor, _log):
        supervisor.add_child(engine, answers("engine", 2), 5.0, 1.0, wait=False)  # type: ignore[arg-type]
        supervisor.add_child(gateway, answers("gateway", 1), 5.0, 1.0, wait=False)  # type: ignore[arg-type]
        assert (engine.starts, gateway.starts, asked) == (1, 1, [])  # both started, none asked
        supervisor.until_ready()
    assert asked == ["engine"] * 3 + ["gateway"] * 2


def test_a_child_started_without_waiting_that_never_answers_is_named_at_its_timeout() -> None:
    engine, gateway = StandIn("engine"), StandIn("gateway")
    with watched() as (supervisor, _log):
        supervisor.add_child(engine, lambda: False, 0.05, 1.0, wait=False)  # type: ignore[arg-type]
        supervisor.add_child(gateway, lambda: True, 5.0, 1.0, wait=False)  # type: ignore[arg-type]
        with pytest.raises(ServiceFailed) as failed:
            supervisor.until_ready()
    assert str(failed.value) == "the engine did not answer within 0.05 s"


def test_a_childs_startup_timeout_counts_from_its_start_not_from_the_wait() -> None:
    engine = StandIn("engine")
    began = time.monotonic()
    with watched() as (supervisor, _log):
        # answers 0.4 s after its start; allowed 0.2 s
        supervisor.add_child(
            engine,  # type: ignore[arg-type]
            lambda: time.monotonic() - began > 0.4,
            0.2,
            1.0,
            wait=False,
        )
        time.sleep(0.3)  # the other services starting meanwhile
        with pytest.raises(ServiceFailed, match=r"^the engine did not answer within 0\.2 s$"):
            supervisor.until_ready()


def test_a_child_that_dies_while_another_is_waited_for_fails_the_start() -> None:
    engine, gateway = StandIn("engine"), StandIn("gateway")

    def gateway_ready() -> bool:
        engine.code = 3  # the engine, started without waiting, dies meanwhile
        return False

    with watched() as (supervisor, _log):
        supervisor.add_child(engine, lambda: True, 5.0, 1.0, wait=False)  # type: ignore[arg-type]
        with pytest.raises(ServiceFailed, match=r"^the engine exited with status 3"):
            supervisor.add_child(gateway, gateway_ready, 5.0, 1.0)  # type: ignore[arg-type]


def test_a_signal_while_a_child_starts_stops_the_start() -> None:
    child = StandIn("gateway")
    with watched() as (supervisor, _log):
        supervisor.stop_requested.set()
        with pytest.raises(StopRequested):
            supervisor.add_child(child, lambda: False, 5.0, 1.0)  # type: ignore[arg-type]


def test_check_running_names_the_child_that_stopped() -> None:
    first, second = StandIn("redis"), StandIn("engine")
    with watched() as (supervisor, _log):
        for child in (first, second):
            supervisor.add_child(child, lambda: True, 5.0, 1.0)  # type: ignore[arg-type]
        supervisor.check_running()  # both running: nothing raised
        second.code = -signal.SIGTERM
        with pytest.raises(ServiceFailed, match=r"^the engine was killed by SIGTERM"):
            supervisor.check_running()


def test_stop_all_stops_the_last_started_first_and_names_those_running() -> None:
    order: list[str] = []
    children = [StandIn(name) for name in ("redis", "engine", "gateway")]
    for child in children:
        child.stop = lambda timeout=10.0, child=child: order.append(f"{child.name} {timeout:g}")  # type: ignore[method-assign]
    with watched() as (supervisor, log):
        for child in children:
            supervisor.add_child(child, lambda: True, 5.0, 1.0)  # type: ignore[arg-type]
        children[1].code = 1  # the engine is already gone
        supervisor.stop_all()
    assert order == ["gateway 1", "engine 1", "redis 1"]  # each with its stop timeout
    assert supervisor.running == []
    assert said(log.getvalue()) == ["stopping the gateway", "stopping the redis"]


def test_the_first_signal_asks_to_stop_and_the_second_kills() -> None:
    children = [StandIn("redis"), StandIn("engine")]
    with watched() as (supervisor, log):
        for child in children:
            supervisor.add_child(child, lambda: True, 5.0, 1.0)  # type: ignore[arg-type]
        supervisor._on_signal(signal.SIGTERM, None)
        assert supervisor.stop_requested.is_set()
        assert [child.code for child in children] == [None, None]
        assert said(log.getvalue()) == ["SIGTERM received: stopping (again to force)"]
        supervisor._on_signal(signal.SIGINT, None)
    assert [child.code for child in children] == [-9, -9]
    assert said(log.getvalue())[-1] == "stopping now"


def test_the_handlers_cover_ctrl_c_sigterm_and_sighup() -> None:
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    before = {signum: signal.getsignal(signum) for signum in signals}
    supervisor = Supervisor(log=io.StringIO())
    try:
        supervisor.install_signal_handlers()
        assert all(signal.getsignal(signum) == supervisor._on_signal for signum in signals)
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def test_saying_goes_on_when_the_terminal_is_gone() -> None:
    log = io.StringIO()
    supervisor = Supervisor(log=log)
    supervisor.say("hello")
    [line] = launcher_lines(log.getvalue())
    assert (line["level"], line["message"]) == ("info", "hello")
    log.close()
    supervisor.say("nobody hears this")  # no exception

    class BrokenPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    Supervisor(log=BrokenPipe()).say("the terminal closed")  # no exception


def test_a_supervisor_starts_with_nothing_running_and_the_default_policy() -> None:
    supervisor = Supervisor()
    assert supervisor.running == []
    assert supervisor.policy == RestartPolicy()
    assert not supervisor.stop_requested.is_set()
    assert supervisor.log is sys.stderr


def test_a_restart_comes_no_sooner_than_its_backoff_and_is_back_once() -> None:
    """The crash is seen, the child stopped with its own stop timeout (what it forked
    goes too), and started again only once the backoff has passed; answering again is
    said once."""
    child = StandIn("engine")
    timeouts: list[float | None] = []
    started_at: list[float] = []
    stop, start = child.stop, child.start

    def stopping(timeout: float | None = 10.0) -> int | None:
        timeouts.append(timeout)
        return stop()

    def starting() -> None:
        started_at.append(time.monotonic())
        start()

    child.stop = stopping  # type: ignore[method-assign,assignment]
    child.start = starting  # type: ignore[method-assign]
    policy = RestartPolicy(first_delay=0.3, max_delay=0.3)
    with watched(policy) as (supervisor, log):
        supervisor.add_child(child, lambda: True, 30.0, 7.0)  # type: ignore[arg-type]
        child.code = 1
        crashed_at = time.monotonic()
        stopper = threading.Timer(1.0, supervisor.stop_requested.set)
        stopper.start()
        supervisor.wait()
        stopper.join()
    assert timeouts == [7.0]
    assert len(started_at) == 2
    assert started_at[1] - crashed_at >= 0.3
    assert said(log.getvalue()).count("the engine is back") == 1
