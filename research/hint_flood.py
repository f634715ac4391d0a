"""`python -m research.hint_flood`: many players asking for a hint at once, over REST,
on the default setup (one engine process with one search process and a queue of four,
as `make run` starts on two cores).

Each flood is 8 players, each with a game of their own at the same deal (as players of
the day's deal are), who press Hint at the same moment: the position is one, the games
eight; then 8 such players who press Hint one after another (the day's players do not
all come at once); and beside them, 8 players at 8 different deals who press Hint at once
(positions that can share nothing). Per variant, `--floods` floods on deal numbers of
their own; the table gives the latency of the hints (p50, p99, max), how many were
refused (`503 solver-busy`), and what the engine says it did
(`patience_engine_hints_total`: searched, remembered, shared) over the variant's floods.

    nice -n 5 .venv/bin/python -m research.hint_flood --floods 3
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
from collections.abc import Sequence

import httpx
from patience_launcher.addresses import free_port

from bench.harness.report import Column, Table, table
from bench.harness.stack import Stack
from bench.harness.stats import percentile

PLAYERS = 8
# the games whose hints search the longest (the whole 0.8 s where undecided), and one open
VARIANTS = ("napoleon-at-st-helena", "house-in-the-wood", "usk", "bisley")


async def _flood(
    http: httpx.AsyncClient, variant: str, deals: Sequence[int], at_once: bool
) -> list[tuple[float, int]]:
    games = []
    for deal in deals:
        created = await http.post("/v1/games", json={"variant": variant, "deal": deal})
        created.raise_for_status()
        body = created.json()
        games.append((body["id"], {"Authorization": f"Bearer {body['token']}"}))

    async def ask(game_id: str, auth: dict[str, str]) -> tuple[float, int]:
        started = time.perf_counter()
        response = await http.get(f"/v1/games/{game_id}/hint", headers=auth)
        return time.perf_counter() - started, response.status_code

    if at_once:
        return list(await asyncio.gather(*(ask(game_id, auth) for game_id, auth in games)))
    return [await ask(game_id, auth) for game_id, auth in games]


def _hints_counted(metrics: str) -> dict[str, float]:
    counted: dict[str, float] = {}
    for how, value in re.findall(
        r'patience_engine_hints_total\{answer="(\w+)"\} ([0-9.e+]+)', metrics
    ):
        counted[how] = float(value)
    return counted


async def run(floods: int, variants: Sequence[str]) -> Table:
    answered = table(
        "variant", "positions", *(Column(f"{name} ms", 0) for name in ("p50", "p99", "max")),
        "refused", "engine's hints",
    )  # fmt: skip
    metrics_port = free_port()
    engine_settings = {"ENGINE_METRICS_PORT": str(metrics_port)}
    with Stack(players=False, engine_settings=engine_settings) as stack:
        async with (
            httpx.AsyncClient(base_url=stack.base_url, timeout=60) as http,
            httpx.AsyncClient(timeout=10) as scrape,
        ):
            metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
            base = 1000
            for variant in variants:
                for label, same, at_once in (
                    ("one, at once", True, True),
                    ("one, one after another", True, False),
                    ("each its own, at once", False, True),
                ):
                    before = _hints_counted((await scrape.get(metrics_url)).text)
                    answers: list[tuple[float, int]] = []
                    for _ in range(floods):
                        base += PLAYERS
                        deals = [base] * PLAYERS if same else list(range(base, base + PLAYERS))
                        answers += await _flood(http, variant, deals, at_once)
                    after = _hints_counted((await scrape.get(metrics_url)).text)
                    spent = {how: int(after.get(how, 0) - before.get(how, 0)) for how in after}
                    times = sorted(seconds * 1000 for seconds, status in answers if status == 200)
                    shares = [
                        percentile(times, 0.5),
                        percentile(times, 0.99),
                        max(times, default=None),
                    ]
                    refused = sum(1 for _, status in answers if status == 503)
                    counted = ", ".join(f"{how} {n}" for how, n in sorted(spent.items()) if n)
                    answered.add(variant, label, *shares, refused, counted)
                    print(answered.rows[-1], file=sys.stderr, flush=True)
    return answered


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.hint_flood", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--floods", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated variant ids")
    args = parser.parse_args(argv)
    variants = [v for v in args.only.split(",") if v] or list(VARIANTS)
    print(asyncio.run(run(args.floods, variants)).markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
