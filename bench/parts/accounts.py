"""`python -m bench` part "accounts": what signing a player in on a new device costs,
with an outside identity (POST /v1/sessions/identity: an OpenID Connect ID token
verified under the issuer's cached keys) and with a link code (POST /v1/sessions/link,
the way in there was before), side by side.

The gateway's app runs in this process (httpx through ASGI, no sockets) on the shared
stack's Redis, PostgreSQL and engine, with a loopback issuer (bench/harness/identity_issuer.py)
whose key set is fetched once and cached: each request's time and this process's CPU
time are the gateway's work for it plus the client's, the same client for both ways
in. Each request comes from an address of its own (the ASGI scope's client), as from
many devices, so that the per-address limits on tries do not refuse them. Link codes
are kept in Redis beforehand, as POST /v1/players/me/link-codes keeps them (that
request is not the sign-in's); the ID tokens are signed beforehand, as the issuer does.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field

import httpx
from patience_gateway.app import create_app
from patience_gateway.players.codes import new_code, shown_code
from patience_gateway.settings import IdentityIssuer
from patience_gateway.settings import Settings as GatewaySettings
from patience_gateway.storage.link_codes import LinkCodes
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from bench.harness.event_loop import run_fast
from bench.harness.identity_issuer import AUDIENCE, LoopbackIssuer, SigningKey
from bench.harness.report import Column, Report
from bench.harness.settings import Settings
from bench.harness.stack import Stack
from bench.harness.stats import percentile_ms

WAYS = {
    "link": "link code (`POST /v1/sessions/link`)",
    "identity_rs256": "outside identity, RS256 (`POST /v1/sessions/identity`)",
    "identity_es256": "outside identity, ES256 (`POST /v1/sessions/identity`)",
}


@dataclass
class Timed:
    """Sign-ins of one way in: each request's seconds, and this process's CPU seconds."""

    seconds: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0
    refused: int = 0


class SignIns:
    def __init__(self, stack: Stack, issuer: LoopbackIssuer, count: int) -> None:
        assert stack.engine is not None
        self.settings = GatewaySettings(
            redis_url=stack.redis_url,
            engine_addr=stack.engine.target,
            database_url=stack.database_url,
            player_token_keys=(stack.token_key,),
            new_players_per_minute=10**9,
            identity_issuers=(IdentityIssuer(issuer.url, AUDIENCE, issuer.jwks_url),),
        )
        self.issuer = issuer
        self.count = count
        self.address = 0

    async def run(self) -> tuple[dict[str, Timed], int]:
        app = create_app(self.settings)
        async with app.router.lifespan_context(app):
            self.transport = httpx.ASGITransport(app=app, client=("10.0.0.1", 1000))
            async with httpx.AsyncClient(transport=self.transport, base_url="http://bench") as http:
                self.http = http
                bodies = await self.prepare(app.state.services.redis)
                fetched = self.issuer.fetches
                timed = {way: Timed() for way in WAYS}
                for index in range(self.count):  # the ways taking turns
                    for way, body in bodies.items():
                        await self.time(timed[way], way, body[index])
                return timed, self.issuer.fetches - fetched

    def next_client(self) -> None:
        self.address += 1
        self.transport.client = (f"10.{self.address >> 16 & 255}.{self.address >> 8 & 255}."
                                 f"{self.address & 255}", 1000)  # fmt: skip

    def sign_in(self, way: str, body: dict[str, str]) -> Awaitable[httpx.Response]:
        path = "/v1/sessions/link" if way == "link" else "/v1/sessions/identity"
        return self.http.post(path, json=body)

    async def prepare(self, redis: Redis | RedisCluster) -> dict[str, list[dict[str, str]]]:
        """A player with an identity of each key's; the bodies of every sign-in each way
        (a link code, an ID token); warm-up sign-ins of each way (the key set fetched
        then)."""
        self.next_client()
        made = await self.http.post("/v1/players", json={})
        made.raise_for_status()
        player = made.json()
        headers = {"Authorization": f"Bearer {player['access_token']}"}
        subject = f"bench-{secrets.token_hex(8)}"
        keys = {"identity_rs256": SigningKey.rsa(), "identity_es256": SigningKey.ec()}
        for key in keys.values():
            self.issuer.rotate(key)
        linked = await self.http.post(
            "/v1/players/me/identities",
            json={"id_token": self.issuer.token(subject, key=keys["identity_rs256"])},
            headers=headers,
        )
        linked.raise_for_status()
        links = LinkCodes(redis)
        bodies: dict[str, list[dict[str, str]]] = {"link": []}
        for _ in range(self.count + 1):
            code = new_code()
            await links.keep(code, player["player"]["id"])
            bodies["link"].append({"code": shown_code(code)})
        for way, key in keys.items():
            tokens = (self.issuer.token(subject, key=key) for _ in range(self.count + 1))
            bodies[way] = [{"id_token": token} for token in tokens]
        for way, body in bodies.items():  # warm-up: the last code and tokens
            self.next_client()
            (await self.sign_in(way, body[self.count])).raise_for_status()
        return bodies

    async def time(self, timed: Timed, way: str, body: dict[str, str]) -> None:
        self.next_client()
        cpu, start = time.process_time(), time.perf_counter()
        answer = await self.sign_in(way, body)
        timed.seconds.append(time.perf_counter() - start)
        timed.cpu_seconds += time.process_time() - cpu
        if answer.status_code != 201:
            timed.refused += 1


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    assert stack is not None, "the accounts part runs on the shared stack's stores and engine"
    count = settings.accounts_sign_ins
    issuer = LoopbackIssuer().start()
    try:
        timed, fetches = run_fast(SignIns(stack, issuer, count).run)
    finally:
        issuer.stop()
    section = report.section("Signing in on a new device: an outside identity and a link code")
    section.note(
        f"{count:,} sign-ins each way, one at a time, the ways taking turns, each from an"
        " address of its own; the gateway's app in the bench process (httpx over ASGI) on"
        " the shared stack's Redis, PostgreSQL and engine. CPU: the bench process's (the"
        " gateway's work and the client's, the same client for each way). The identities' key"
        f" set was fetched once before the clock started; fetched while measured: {fetches}."
    )
    table = section.table(
        "way in", "sign-ins", "refused", Column("p50 ms", 2), Column("p95 ms", 2),
        Column("p99 ms", 2), Column("CPU ms per sign-in", 3),
    )  # fmt: skip
    for way, words in WAYS.items():
        result = timed[way]
        p50, p95, p99 = (percentile_ms(result.seconds, f) for f in (0.50, 0.95, 0.99))
        cpu_ms = result.cpu_seconds * 1000 / max(len(result.seconds), 1)
        table.add(words, len(result.seconds), result.refused, p50, p95, p99, cpu_ms)
        figures = {"p50_ms": p50, "p95_ms": p95, "p99_ms": p99, "cpu_ms": cpu_ms}
        section.record(f"accounts.{way}", **figures, refused=float(result.refused))
    section.figure("accounts.jwks_fetches", float(fetches))
