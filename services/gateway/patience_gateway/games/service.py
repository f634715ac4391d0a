"""What every game operation depends on, and the opening they share.

`Games` holds the dependencies: the engine client, the store, the winnable deals, the
players. Every operation on an existing game opens the same way:

    game = await games.owned(game_id, token)            # load, authorise
    view = await games.ask(games.engine.player_view(game.state))  # decode, ask, map

`owned` refuses an id that cannot name a game, loads the game in one round trip (the
store's plain load, or with `opened` the load the operation names: what it needs
read), and checks the bearer token: a player's access token for a player's game, the
game's own token for an anonymous one (`authorise`); `game.state` is the sealed
state, decoded, and `game.record` the game's record; `ask` awaits an engine call and
turns its errors into problems: by default as errors on data the gateway stored itself
(`stored_problem`), or as the client's own mistakes (`client_problem`), or as a
search's (`search_problem`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from patience_contract.client import EngineClient, EngineError, EngineUnavailable, GameReply
from solitaire.v1 import game_pb2

from patience_gateway.games import answers, engine_errors, shapes, tokens
from patience_gateway.games.spare_time import SpareTime
from patience_gateway.games.tokens import GAME_ID, authorise
from patience_gateway.games.winnable import WinnableDeals
from patience_gateway.players.access_tokens import looks_like_access_token
from patience_gateway.players.service import Players
from patience_gateway.problems import ProblemError
from patience_gateway.records.answers import record_json
from patience_gateway.records.record import RANDOM, GameRecord
from patience_gateway.records.shapes import RecordShape
from patience_gateway.storage.outbox import OutboxStore
from patience_gateway.storage.reads import GameMeta, Loaded
from patience_gateway.storage.store import GameStore

log = logging.getLogger("patience_gateway")

T = TypeVar("T")
L = TypeVar("L", bound=Loaded)

# The most moves the engine applies in one ApplyMoves call (docs/errors.md, TOO_MANY_MOVES).
ENGINE_BATCH_LIMIT = 10_000

# One of the store's loads: the game by its id, with the answer kept for an
# Idempotency-Key.
Load = Callable[[str, str], Awaitable[L | None]]
ProblemFor = Callable[[EngineError], ProblemError]


def _nothing(variant: str) -> None:
    return None


def unknown_game(game_id: str) -> ProblemError:
    return ProblemError("unknown-game", f"there is no game {game_id}")


def known_id(game_id: str) -> None:
    """Refuses text that cannot be a game id before anything is read."""
    if GAME_ID.match(game_id) is None:
        raise unknown_game(game_id)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class OwnedGame(Generic[L]):
    """A game loaded for its owner (as `loaded` by the operation's load): its meta and
    record, and `state`, the sealed state read (for undo, the checkpoint to replay
    from) as the engine takes it."""

    id: str
    loaded: L
    meta: GameMeta
    record: GameRecord
    state: game_pb2.SealedState
    version: int
    owner: str
    category: str

    @classmethod
    def of(cls, game_id: str, loaded: L) -> OwnedGame[L]:
        meta = loaded.meta
        return cls(
            game_id,
            loaded,
            meta,
            GameRecord.read(meta.record, meta.hints, meta.created),
            game_pb2.SealedState.FromString(loaded.state),
            meta.version,
            meta.owner,
            meta.category or RANDOM,
        )

    @staticmethod
    def dealt(
        game_id: str, owner: str, category: str, record: GameRecord, daily: str = ""
    ) -> OwnedGame[Loaded]:
        """A game being created: at version 1, nothing stored yet."""
        meta = GameMeta(1, b"", owner, category, daily, "", False, False, None, None, None)
        state = game_pb2.SealedState()
        return OwnedGame(game_id, Loaded(meta, b""), meta, record, state, 1, owner, category)

    def record_json(self, record: GameRecord | None = None) -> RecordShape:
        """The view's `record`: the game's as read, or `record` (what a change makes
        of it)."""
        meta = self.loaded.meta
        return record_json(record or self.record, self.category, meta.owner, meta.daily)

    def view_json(
        self,
        view: game_pb2.PlayerView,
        *,
        version: int | None = None,
        record: GameRecord | None = None,
        open_deal: str | None = None,
        proven_lost: bool | None = None,
        autoplay: bool | None = None,
    ) -> shapes.Game:
        """The game's JSON: at `version` (the loaded one by default), with `record`,
        `open_deal`, `proven_lost` (a proof of loss of this version) and the `autoplay`
        setting as given, else as loaded."""
        meta = self.loaded.meta
        return answers.game_json(
            self.id,
            meta.version if version is None else version,
            view,
            meta.open_deal if open_deal is None else open_deal,
            record=self.record_json(record),
            proven_lost=meta.proven_lost if proven_lost is None else proven_lost,
            autoplay=meta.autoplay if autoplay is None else autoplay,
        )


@dataclass(slots=True)
class Games:
    """The game operations' dependencies: one per app (`Services.games`)."""

    engine: EngineClient
    store: GameStore
    # How long clients are told to wait (Retry-After) when a dependency is down.
    retry_after: int
    winnable: WinnableDeals | None = None
    on_move_applied: Callable[[str], None] = _nothing
    # The most moves replayed in one engine call (undo replays from a checkpoint).
    replay_batch: int = ENGINE_BATCH_LIMIT
    # Players (their access tokens open their games) and the outbox that carries their
    # games to PostgreSQL; None where the gateway keeps no players.
    players: Players | None = None
    outbox: OutboxStore | None = None
    # The time of a change, in milliseconds since the epoch (the records' clock).
    clock: Callable[[], int] = now_ms
    # When the searches made ahead may run (every game served says it is not now).
    spare: SpareTime = field(default_factory=SpareTime)
    # The engine's variant ids, once asked (they do not change while the engine runs).
    _variant_ids: frozenset[str] = frozenset()

    async def known_variant(self, variant: str) -> None:
        """Refuses a variant the engine does not have: 404 unknown-variant."""
        if not self._variant_ids:
            listed = await self.ask(self.engine.list_variants(), self.client_problem)
            self._variant_ids = frozenset(v.id for v in listed)
        if variant not in self._variant_ids:
            raise ProblemError("unknown-variant", f"there is no variant {variant!r}")

    async def owned(
        self, game_id: str, token: str, *, read_only: bool = False
    ) -> OwnedGame[Loaded]:
        """The game with its current state for the owner of `token` (see `opened`)."""
        return await self.opened(game_id, token, self.store.load, read_only=read_only)

    async def opened(
        self,
        game_id: str,
        token: str,
        load: Load[L],
        idempotency_key: str = "",
        *,
        read_only: bool = False,
    ) -> OwnedGame[L]:
        """The game, read by `load` for the owner of `token`: invalid-token or
        expired-token (before anything is read), unknown-game, or bad-token.
        `read_only`: a read a share token may make too."""
        self.spare.served.set()
        known_id(game_id)
        shared = tokens.is_share_token(token)
        player = None
        if shared:
            self.check_share(game_id, token, read_only)
        elif looks_like_access_token(token):
            player = self.player_of(token)
        loaded = await load(game_id, idempotency_key)
        if loaded is None:
            raise unknown_game(game_id)
        if not shared:
            meta = loaded.meta
            authorise(token, player, meta.owner, meta.token_digest)
        return OwnedGame.of(game_id, loaded)

    def check_share(self, game_id: str, token: str, read_only: bool) -> None:
        """Refuses a share token that is not this game's, or that asks for a change."""
        if not read_only:
            raise ProblemError(
                "bad-token",
                "a share token reads the game only: it makes no change and asks no hint",
            )
        if self.players is None or not tokens.opens(self.players.signing_keys(), game_id, token):
            raise ProblemError("bad-token", "this share token is not this game's")

    def player_of(self, token: str) -> str | None:
        """The player whose access token `token` is (verified); None for a game's
        token."""
        if not looks_like_access_token(token):
            return None
        if self.players is None:
            raise ProblemError("invalid-token", "this gateway keeps no players")
        return self.players.verify(token).player_id

    async def replay(self, state: game_pb2.SealedState, moves: list[str]) -> GameReply:
        """The state after `moves` from `state` (a history the gateway stored): one
        engine call, or a few for a history longer than the engine takes in one batch."""
        batch = self.replay_batch
        reply = await self.ask(self.engine.apply_moves(state, moves[:batch]))
        for start in range(batch, len(moves), batch):
            reply = await self.ask(
                self.engine.apply_moves(reply.state, moves[start : start + batch])
            )
        return reply

    async def shown_deal(self, game_id: str) -> str | None:
        """The deal number the engine shows in the game's current view: a random deal's
        once the game is over (the store cannot read it inside the sealed state)."""
        loaded = await self.store.load(game_id)
        if loaded is None:
            raise unknown_game(game_id)
        state = game_pb2.SealedState.FromString(loaded.state)
        return (await self.ask(self.engine.player_view(state))).deal or None

    async def announce(self, game_id: str) -> None:
        """Names the game among those whose outbox waits (its script wrote an entry).
        A failure is only logged: the drain's sweep finds the outbox all the same, and
        the outbox's deadline keeps a Redis that stopped answering after the change from
        holding up the change's answer."""
        if self.outbox is None:
            return
        try:
            await self.outbox.announce(game_id)
        except Exception as error:
            log.warning("game %s's outbox entry waits for the sweep: %s", game_id, error)

    async def ask(self, call: Awaitable[T], problem: ProblemFor | None = None) -> T:
        """The engine's answer to `call`; its errors raised as the problems `problem`
        makes of them (`stored_problem` unless told)."""
        try:
            return await call
        except EngineError as error:
            raise (problem or self.stored_problem)(error) from None

    def client_problem(self, error: EngineError) -> ProblemError:
        """An engine error on what the client sent (a move, a variant, a deal)."""
        return engine_errors.engine_problem(error, self.retry_after)

    def stored_problem(self, error: EngineError) -> ProblemError:
        """An engine error on data the gateway stored (a state, a history) is the
        server's fault, unless the engine is just not there."""
        if isinstance(error, EngineUnavailable):
            return self.client_problem(error)
        return engine_errors.internal_engine_problem(error)

    def search_problem(self, error: EngineError) -> ProblemError:
        """An engine error met by a search (Hint) on a stored state."""
        return engine_errors.search_problem(error, self.retry_after)
