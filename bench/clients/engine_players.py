"""Players of the engine over real gRPC for closed-loop measurements: forward play (random
legal moves from fresh deals, as a client of the engine plays) and the older cycle
workload (a card moved back and forth in one endless game), with the channels they
call through."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence

import grpc
import patience
from grpc_health.v1 import health_pb2, health_pb2_grpc
from solitaire.v1 import engine_pb2, engine_pb2_grpc, game_pb2

from bench.clients.endless_games import EndlessGame

# a deadline on every call (the same for every RPC), so a stalled server cannot hang
CALL_TIMEOUT = 30.0
# Forward play: the same games on every run, and a cap on a game's length (random play
# can move a card to and fro for thousands of moves in some variants; a player would
# give up long before).
FORWARD_SEED = 20_240_601
MAX_MOVES_PER_GAME = 200
FORWARD_VARIANTS: tuple[str, ...] = tuple(patience.VARIANTS)


def open_channels(targets: Sequence[str], count: int) -> list[grpc.aio.Channel]:
    # a local subchannel pool gives every channel its own TCP connection, so that
    # SO_REUSEPORT can spread the connections over the engine's worker processes;
    # with several targets, channel i goes to target i % len(targets)
    options = [("grpc.use_local_subchannel_pool", 1)]
    return [
        grpc.aio.insecure_channel(targets[i % len(targets)], options=options) for i in range(count)
    ]


async def wait_serving(channels: list[grpc.aio.Channel], timeout: float = 30.0) -> None:
    async def one(channel: grpc.aio.Channel) -> None:
        stub = health_pb2_grpc.HealthStub(channel)
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=2.0)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                if asyncio.get_running_loop().time() > deadline:
                    raise
            await asyncio.sleep(0.1)

    await asyncio.gather(*(one(c) for c in channels))


class ForwardPlayers:
    """Each concurrent caller plays random legal moves, one fresh deal after another."""

    def __init__(self, stubs: list[engine_pb2_grpc.EngineServiceStub]) -> None:
        self.stubs = stubs
        self.states: list[game_pb2.SealedState] = []
        self.legal: list[Sequence[game_pb2.Move]] = []
        self.moves_in_game: list[int] = []
        self.games: list[int] = []
        self.calls: list[int] = []
        self.randoms: list[random.Random] = []
        self.new_games = 0
        self.applied = 0

    async def prepare(self, callers: int) -> None:
        self.randoms = [random.Random(FORWARD_SEED * 1000 + caller) for caller in range(callers)]
        self.states = [game_pb2.SealedState() for _ in range(callers)]
        self.legal = [() for _ in range(callers)]
        self.moves_in_game = [0] * callers
        self.games = [0] * callers
        self.calls = [0] * callers
        await asyncio.gather(*(self._new_game(caller) for caller in range(callers)))
        self.new_games = self.applied = 0

    def _stub(self, caller: int) -> engine_pb2_grpc.EngineServiceStub:
        self.calls[caller] += 1
        return self.stubs[(caller + self.calls[caller]) % len(self.stubs)]

    async def _new_game(self, caller: int) -> None:
        """A fresh deal of the caller's next variant (skipping deals over from the start)."""
        chooser = self.randoms[caller]
        while True:
            variant = FORWARD_VARIANTS[(caller + self.games[caller]) % len(FORWARD_VARIANTS)]
            self.games[caller] += 1
            request = engine_pb2.NewGameRequest(
                variant=variant, deal=str(chooser.randrange(1, 10**12))
            )
            reply = await self._stub(caller).NewGame(request, timeout=CALL_TIMEOUT)
            self.new_games += 1
            if reply.view.legal_moves:
                break
        self.states[caller] = reply.state
        self.legal[caller] = reply.view.legal_moves
        self.moves_in_game[caller] = 0

    async def apply(self, caller: int) -> None:
        if not self.legal[caller] or self.moves_in_game[caller] >= MAX_MOVES_PER_GAME:
            await self._new_game(caller)
        legal = self.legal[caller]
        move = legal[self.randoms[caller].randrange(len(legal))]
        request = engine_pb2.ApplyMoveRequest(
            state=self.states[caller], move=game_pb2.Move(notation=move.notation)
        )
        reply = await self._stub(caller).ApplyMove(request, timeout=CALL_TIMEOUT)
        self.states[caller] = reply.state
        self.legal[caller] = reply.view.legal_moves
        self.moves_in_game[caller] += 1
        self.applied += 1


class CyclePlayers:
    """One endless game per concurrent caller, a card moved back and forth."""

    def __init__(self, stubs: list[engine_pb2_grpc.EngineServiceStub], plan: EndlessGame) -> None:
        self.stubs = stubs
        self.plan = plan
        self.cycle = [game_pb2.Move(notation=notation) for notation in plan.cycle]
        self.states: list[game_pb2.SealedState] = []
        self.steps: list[int] = []
        self.calls: list[int] = []

    async def prepare(self, callers: int) -> None:
        request = engine_pb2.NewGameRequest(
            variant=self.plan.variant,
            deal=str(self.plan.deal),
            moves=[game_pb2.Move(notation=notation) for notation in self.plan.prefix],
        )
        games = await asyncio.gather(
            *(self.stubs[0].NewGame(request, timeout=CALL_TIMEOUT) for _ in range(callers))
        )
        self.states = [game.state for game in games]
        self.steps = [0] * callers
        self.calls = [0] * callers

    async def apply(self, caller: int) -> None:
        self.calls[caller] += 1
        stub = self.stubs[(caller + self.calls[caller]) % len(self.stubs)]
        request = engine_pb2.ApplyMoveRequest(
            state=self.states[caller], move=self.cycle[self.steps[caller]]
        )
        reply = await stub.ApplyMove(request, timeout=CALL_TIMEOUT)
        self.states[caller] = reply.state
        self.steps[caller] ^= 1
