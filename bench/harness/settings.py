"""Every knob of a run in one place: the full run's defaults, and --quick's."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Settings:
    mode: str = "full"
    # how long each measured window lasts, and the unmeasured warm-up before it
    seconds: float = 8.0
    warmup: float = 1.0
    # interleaved rounds per side-by-side comparison (A B A B): fair on a busy machine
    rounds: int = 2
    # rules library: positions sampled per variant, play-out time per variant
    rules_states: int = 100
    rules_seconds: float = 1.0
    # solver: deals per variant, CPU seconds per deal
    solver_deals: int = 5
    solver_seconds: float = 5.0
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
    sweep: tuple[int, ...] = (1, 2, 4, 8, 16, 32)
    sweep_seconds: float = 4.0
    games_per_client: int = 4
    # cost as a game grows: timed moves from move `early` and from move `late`
    growth_early: int = 10
    growth_late: int = 1000
    growth_window: int = 50
    memory_after: tuple[int, ...] = (10, 200)
    # Locust load test
    load_users: int = 20
    load_spawn_rate: float = 5.0
    load_run_time: str = "60s"
    # Locust worker processes under one master (1: a single process)
    load_processes: int = 1
    # scaling: gateway + engine processes per level (empty: 1, 2, 4, ... up to the cores)
    # and load-generator processes (0: one per four cores, one at least)
    scaling_levels: tuple[int, ...] = ()
    scaling_client_processes: int = 0
    # HTTP probes: the gateway's header and body timeouts (its defaults), the sizes of
    # the oversized headers, the slow connections held, and the ordinary requests timed
    probe_timeout_seconds: int = 10
    probe_gateway_workers: int = 2
    probe_header_mib: float = 16.0
    probe_concurrent_headers: int = 8
    probe_concurrent_mib: float = 64.0
    probe_slow_clients: int = 2000
    probe_slow_ramp_seconds: float = 10.0
    probe_slow_seconds: float = 20.0
    probe_ordinary_per_second: float = 20.0
    # searches beside moves: clients, measured seconds per window, rounds of the three
    # conditions, hints asked per second in the last
    crowding_clients: int = 16
    crowding_seconds: float = 15.0
    crowding_rounds: int = 2
    crowding_hints_per_second: float = 2.0
    # leaderboards: the players on the one board read
    leaderboard_players: int = 100_000
    # which parts to run (bench/parts/__init__.py names them; the command line chooses)
    parts: tuple[str, ...] = ()

    @classmethod
    def quick(cls) -> Settings:
        """About a minute in all: the same figures, from short windows."""
        return cls(
            mode="quick",
            seconds=1.0,
            warmup=0.3,
            rounds=1,
            rules_states=20,
            rules_seconds=0.3,
            solver_deals=2,
            solver_seconds=1.0,
            sweep=(1, 4, 16),
            sweep_seconds=1.0,
            growth_window=20,
            load_run_time="15s",
            probe_timeout_seconds=1,
            probe_header_mib=1.0,
            probe_concurrent_headers=2,
            probe_concurrent_mib=1.0,
            probe_slow_clients=50,
            probe_slow_ramp_seconds=0.5,
            probe_slow_seconds=2.0,
            crowding_seconds=2.0,
            crowding_rounds=1,
        )
