"""Every knob of a run in one place: the full run's defaults, and --quick's."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


def knob(full: Any, *, quick: Any) -> Any:
    """A knob whose --quick value differs from the full run's."""
    return field(default=full, metadata={"quick": quick})


@dataclass
class Settings:
    mode: str = "full"
    # how long each measured window lasts, and the unmeasured warm-up before it
    seconds: float = knob(8.0, quick=1.0)
    warmup: float = knob(1.0, quick=0.3)
    # interleaved rounds per side-by-side comparison (A B A B): fair on a busy machine
    rounds: int = knob(2, quick=1)
    # rules library: positions sampled per variant, play-out time per variant
    rules_states: int = knob(100, quick=20)
    rules_seconds: float = knob(1.0, quick=0.3)
    # solver: deals per variant, CPU seconds per deal
    solver_deals: int = knob(5, quick=2)
    solver_seconds: float = knob(5.0, quick=1.0)
    # solver: positions per rate sample (long enough for a steady figure)
    solver_rate_nodes: int = 20_000
    # engine over gRPC
    engine_concurrency: int = 16
    engine_workers: tuple[int, ...] = (1, 2)
    engine_seal: tuple[bool, ...] = (False, True)
    engine_variant: str = "house-on-the-hill"
    # gateway over HTTP
    gateway_concurrency: int = 16
    gateway_engine_workers: int = 1
    # a variant whose tableau builds up and down in suit, so a card can go back and forth
    gateway_variant: str = "house-on-the-hill"
    sweep: tuple[int, ...] = knob((1, 2, 4, 8, 16, 32), quick=(1, 4, 16))
    sweep_seconds: float = knob(4.0, quick=1.0)
    games_per_client: int = 4
    # cost as a game grows: timed moves from move `early` and from move `late`
    growth_early: int = 10
    growth_late: int = 1000
    growth_window: int = knob(50, quick=20)
    memory_after: tuple[int, ...] = (10, 200)
    # Locust load test
    load_users: int = 20
    load_spawn_rate: float = 5.0
    load_run_time: str = knob("60s", quick="15s")
    # Locust worker processes under one master (1: a single process)
    load_processes: int = 1
    # scaling: gateway + engine processes per level (empty: 1, 2, 4, ... up to the cores)
    # and load-generator processes (0: one per four cores, one at least)
    scaling_levels: tuple[int, ...] = ()
    scaling_client_processes: int = 0
    # HTTP probes: the gateway's header and body timeouts (its defaults), the sizes of
    # the oversized headers, the slow connections held, and the ordinary requests timed
    probe_timeout_seconds: int = knob(10, quick=1)
    probe_gateway_workers: int = 2
    probe_header_mib: float = knob(16.0, quick=1.0)
    probe_concurrent_headers: int = knob(8, quick=2)
    probe_concurrent_mib: float = knob(64.0, quick=1.0)
    probe_slow_clients: int = knob(2000, quick=50)
    probe_slow_ramp_seconds: float = knob(10.0, quick=0.5)
    probe_slow_seconds: float = knob(20.0, quick=2.0)
    probe_ordinary_per_second: float = 20.0
    # accounts: sign-ins on a new device, each way in (outside identity, link code)
    accounts_sign_ins: int = knob(1000, quick=100)
    # searches beside moves: clients, measured seconds per window, rounds of the three
    # conditions, hints asked per second in the last
    crowding_clients: int = 16
    crowding_seconds: float = knob(15.0, quick=2.0)
    crowding_rounds: int = knob(2, quick=1)
    crowding_hints_per_second: float = 2.0
    # leaderboards: the players on the one board read
    leaderboard_players: int = 100_000
    # which parts to run (bench/parts/__init__.py names them; the command line chooses)
    parts: tuple[str, ...] = ()

    @classmethod
    def quick(cls) -> Settings:
        """About a minute in all: the same figures, from short windows."""
        shorter = {f.name: f.metadata["quick"] for f in fields(cls) if "quick" in f.metadata}
        return cls(mode="quick", **shorter)
