"""`python -m bench` part "probes": the gateway's HTTP limits as a hostile or broken
client meets them (bench/clients/http_probes.py), against the real gateway (Granian, its
worker processes) in front of a real Redis and engine, with the header and body
timeouts it is given (the defaults in a full run, short ones with --quick).

Each probe says what the server did and how long it took, and the memory of the
gateway's processes before and at the peak of the probe. The slow-client probe times
ordinary requests twice in the same run: without slow connections (the baseline),
then while the slow connections are held.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field

from bench.clients import http_probes as http
from bench.clients.http_probes import Outcome, SlowClientsResult
from bench.harness.event_loop import run_fast
from bench.harness.meters import MIB, MemoryWatch
from bench.harness.report import Column, Report, Section
from bench.harness.servers import LOOPBACK
from bench.harness.settings import Settings
from bench.harness.stack import Stack

# The header counts probed: above the server's limit of 100, and far above.
HEADER_COUNTS = (200, 5000)
LONG_LINE_BYTES = 100_000
SLOW_BYTE_EVERY_PART = 0.5  # a slow client sends a byte every half header timeout


@dataclass
class Probe:
    """One probe's outcomes and the gateway's memory (MiB) before and at its peak."""

    name: str
    key: str  # of its figures: probes.<key>.status, ...
    outcomes: list[Outcome]
    before_mib: float
    peak_mib: float


@dataclass
class ProbeRun:
    probes: list[Probe] = field(default_factory=list)
    idle_closed_after: float | None = None  # None: still open at the end of the wait
    slow: list[SlowClientsResult] = field(default_factory=list)


class GatewayProber:
    def __init__(self, port: int, pid: int, settings: Settings) -> None:
        self.at, self.pid = (LOOPBACK, port), pid
        self.settings = settings
        timeout = settings.probe_timeout_seconds
        self.wait = 3 * timeout + 10  # far past what the server should take

    async def _watched(
        self, name: str, key: str, head: bytes, filler: int = 0, tail: bytes = b"", times: int = 1
    ) -> Probe:
        """`times` requests at once (http.exchange: `head`, `filler` bytes, `tail`), the
        gateway's memory watched meanwhile."""
        watch = MemoryWatch(self.pid)
        with watch.watching():
            sends = [http.exchange(*self.at, head, filler, tail, self.wait) for _ in range(times)]
            outcomes = await asyncio.gather(*sends)
        return Probe(name, key, list(outcomes), watch.before_mib, watch.peak_mib)

    async def run(self) -> ProbeRun:
        s, at, wait, watched = self.settings, self.at, self.wait, self._watched
        header, end = http.LIVEZ + b"X-Big: ", b"\r\n\r\n"
        concurrent = s.probe_concurrent_headers
        run = ProbeRun()
        run.probes += [
            await watched(f"one {s.probe_header_mib:g} MiB header", "huge_header", header,
                          int(s.probe_header_mib * MIB), end),
            await watched(f"{concurrent} concurrent {s.probe_concurrent_mib:g} MiB headers",
                          "concurrent_headers", header, int(s.probe_concurrent_mib * MIB), end,
                          concurrent),
        ]  # fmt: skip
        # the three that wait for a timeout run side by side
        idle = asyncio.ensure_future(http.idle_after_request(*at, wait))
        run.probes += await asyncio.gather(
            watched("body declaring 50 bytes, sending 1", "short_body", http.SHORT_BODY),
            watched("connection that sends nothing", "silent", b""),
        )
        run.idle_closed_after = await idle
        for count in HEADER_COUNTS:
            headers = b"".join(b"X-H%d: v\r\n" % index for index in range(count))
            many = http.LIVEZ + headers + b"\r\n"
            run.probes.append(await watched(f"{count:,} headers", f"headers_{count}", many))
        name = f"{LONG_LINE_BYTES // 1000} kB request line"
        tail = b" HTTP/1.1\r\nHost: probe\r\n\r\n"
        run.probes.append(await watched(name, "long_line", b"GET /livez?q=", LONG_LINE_BYTES, tail))
        for target in (0, s.probe_slow_clients):
            slow = http.slow_clients(
                *at,
                target,
                byte_every=s.probe_timeout_seconds * SLOW_BYTE_EVERY_PART,
                ramp_seconds=s.probe_slow_ramp_seconds if target else 0.0,
                measure_seconds=s.probe_slow_seconds,
                ordinary_per_second=s.probe_ordinary_per_second,
                server_pid=self.pid,
            )
            run.slow.append(await slow)
        return run


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    timeout = str(settings.probe_timeout_seconds)
    workers = settings.probe_gateway_workers
    timeouts = {"GATEWAY_HEADER_TIMEOUT_SECONDS": timeout, "GATEWAY_BODY_TIMEOUT_SECONDS": timeout}
    with Stack(players=False, gateway_workers=workers, gateway_env=timeouts) as probed_stack:
        assert probed_stack.gateway is not None
        gateway = probed_stack.gateway
        probed = run_fast(GatewayProber(gateway.port, gateway.pid, settings).run)
    section = report.section("HTTP limits: probes of the gateway")
    section.note(
        f"The real gateway (`python -m patience_gateway`, Granian, {workers} worker"
        f" processes, header and body timeouts {timeout} s, the other limits at their"
        f' defaults: docs/operations.md "HTTP limits") in front of a real Redis and'
        f" engine. Each probe is raw HTTP/1.1 over asyncio sockets"
        f" (bench/clients/http_probes.py);"
        f" memory = resident set of the gateway's processes (main and workers), before"
        f" the probe and its peak during it."
    )
    write_probes(section, probed, settings)


def _what(outcomes: list[Outcome]) -> str:
    """What the server did, the same outcomes counted together."""
    seen = Counter(
        f"`{o.status}`" if o.status is not None else ("closed, " if o.closed else "") + "no answer"
        for o in outcomes
    )
    return ", ".join(key if n == 1 else f"{key} x{n}" for key, n in seen.items())


def write_probes(section: Section, run: ProbeRun, settings: Settings) -> None:
    table = section.table(
        "probe", "what the server did", Column("after s", 2), Column("KiB sent by then", 0),
        Column("memory MiB (before, peak)", joiner=", "),
    )  # fmt: skip
    for probe in run.probes:
        slowest = max(outcome.seconds for outcome in probe.outcomes)
        sent_kib = max(outcome.sent_bytes for outcome in probe.outcomes) / 1024
        table.add(
            probe.name, _what(probe.outcomes), slowest, sent_kib, (probe.before_mib, probe.peak_mib)
        )
        key = f"probes.{probe.key}"
        statuses = [o.status for o in probe.outcomes if o.status is not None]
        status = statuses[0] if len(set(statuses)) == 1 else None
        # refused: a 4xx, or the connection closed (a refusal whose answer a reset cut off)
        refused = sum(
            1 for o in probe.outcomes if (o.status or 0) >= 400 or (o.status is None and o.closed)
        )
        section.record(
            key, answered=len(statuses), refused=refused, status=status, seconds=slowest,
            memory_growth_mib=probe.peak_mib - probe.before_mib,
        )  # fmt: skip
    idle = run.idle_closed_after
    closed = "closed" if idle is not None else "still open"
    table.add("kept-alive connection, idle after an answer", closed, idle, None, None)
    section.figure("probes.idle.seconds", idle)

    section.note(
        f"Slow clients: connections that send a request line, then one header byte every"
        f" {settings.probe_timeout_seconds * SLOW_BYTE_EVERY_PART:g} s, reconnecting when"
        f" dropped, held by a process of their own; meanwhile ordinary `GET /livez` requests"
        f" on fresh connections, {settings.probe_ordinary_per_second:g} per second for"
        f" {settings.probe_slow_seconds:g} s (failed: no `200` within 5 s). The first row"
        f" is the baseline, without slow clients, in the same run."
    )
    slow = section.table(
        "slow connections asked", Column("held (mean)", 0), "held (min)", "dropped by the server",
        "ordinary requests", "failed", "p50 ms", "p99 ms", "gateway CPU s",
    )  # fmt: skip
    for result in run.slow:
        slow.add(
            result.target, result.held_mean, result.held_min, result.dropped_by_server,
            len(result.latencies) + result.failures, result.failures, result.p(0.5),
            result.p(0.99), result.server_cpu_seconds,
        )  # fmt: skip
        key = "probes.slow." + ("loaded" if result.target else "baseline")
        section.record(
            key, asked=result.target, held_mean=result.held_mean,
            dropped=result.dropped_by_server, failures=result.failures,
            p50_ms=result.p(0.5), p99_ms=result.p(0.99),
        )  # fmt: skip
        if result.first_failure:
            section.note(
                f"First failure with {result.target:,} slow clients: {result.first_failure}"
            )
