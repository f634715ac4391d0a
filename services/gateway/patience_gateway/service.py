"""What each game operation does: read from the store, ask the engine, write back.

The shape of every change (move, undo, redo) is the same: one read round trip
(state, version, token hash and the idempotency record), one engine call, one
compare-and-set write. Nothing else writes, so a failure anywhere leaves the game
as it was.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from patience_engine.client import EngineClient, EngineError, EngineUnavailable, GameReply
from solitaire.v1 import engine_pb2, game_pb2

from patience_gateway import views
from patience_gateway.create_records import (
    CREATE_RECORD_SECONDS,
    CreateOnce,
    UnreadableRecord,
    create_fingerprint,
)
from patience_gateway.failures import engine_problem, internal_engine_problem, search_problem
from patience_gateway.models import GamePatch, MoveRequest, NewGameRequest, NotationMove
from patience_gateway.preconditions import check_tags, etag, none_match, require_match
from patience_gateway.problems import ProblemError
from patience_gateway.security import (
    check_token,
    is_game_id,
    new_game_id,
    new_token,
    token_digest,
)
from patience_gateway.store import DealEnding, GameStore, Loaded, StoredAnswer, StreamStart
from patience_gateway.winnable import WinnableDeals

log = logging.getLogger("patience_gateway")

MAX_DEAL = 10**20
MAX_IDEMPOTENCY_KEY = 255
# How long a stream ticket may wait to be used (it opens one stream).
STREAM_TICKET_SECONDS = 60
# The most moves the engine applies in one ApplyMoves call (docs/errors.md, TOO_MANY_MOVES).
ENGINE_BATCH_LIMIT = 10_000
# One history entry is one change: a move, or the safe moves of an autoplay (after a
# move, or on their own), kept as their notations joined by this (no notation holds it),
# so that undo takes the whole change back and redo plays it again.
ENTRY_SEPARATOR = ","


def entry_moves(entries: Iterable[bytes | str]) -> list[str]:
    """The moves of history entries, in order."""
    moves: list[str] = []
    for entry in entries:
        text = entry.decode() if isinstance(entry, bytes) else entry
        moves += text.split(ENTRY_SEPARATOR)
    return moves


def history_entry(applied: Iterable[game_pb2.Move]) -> str:
    return ENTRY_SEPARATOR.join(move.notation for move in applied)


@dataclass(slots=True)
class Reply:
    """An answer ready to send: status, JSON body bytes and headers."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


def _json(body: dict[str, Any]) -> bytes:
    # orjson: a tenth of the stdlib's time on a game view. It refuses what the stdlib
    # writes escaped (a lone surrogate) or at all (an integer past 64 bits); the bodies
    # built here hold neither, but such a body would still be answered, not failed.
    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:
        return json.dumps(body, separators=(",", ":")).encode()


def _created_headers() -> dict[str, str]:
    return {"ETag": etag(1), "Cache-Control": "no-store"}


def _stored_reply(answer: StoredAnswer) -> Reply:
    return Reply(answer.status, answer.body, {"ETag": answer.etag, "Idempotent-Replayed": "true"})


def ticket_digest(ticket: str) -> str:
    """What Redis keeps of a stream ticket: its SHA-256, so a copy of the data holds
    no ticket that works."""
    return hashlib.sha256(ticket.encode()).hexdigest()


def deal_text(deal: int | str | None) -> str | None:
    """The deal number as the engine wants it (decimal text), or invalid-deal."""
    if deal is None:
        return None
    if isinstance(deal, str):
        if not (deal.isascii() and deal.isdigit()) or len(deal) > 21:
            raise ProblemError("invalid-deal", f"deal {deal!r} is not a whole number 0..10^20")
        deal = int(deal)
    if not 0 <= deal <= MAX_DEAL:
        raise ProblemError("invalid-deal", f"deal {deal} is outside 0..10^20")
    return str(deal)


def _ends_a_random_deal(ending: DealEnding | None) -> bool:
    """Whether an undo from here takes back the end of a random deal, whose number the
    engine showed when the game ended."""
    return ending is not None and ending.deal_secret and ending.status in views.OVER


def check_idempotency_key(key: str | None) -> str:
    if key is None:
        return ""
    if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii() or not key.isprintable():
        raise ProblemError(
            "malformed-header", "Idempotency-Key must be 1..255 printable ASCII characters"
        )
    return key


def fingerprint(operation: str, request: MoveRequest | None) -> str:
    """Identifies a request's meaning, so a reused Idempotency-Key can be told apart."""
    canonical = "" if request is None else request.model_dump_json(exclude_defaults=True)
    return hashlib.sha256(f"{operation}\n{canonical}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class _Begun:
    """A change's start: the loaded game, its Idempotency-Key and the request's
    fingerprint, or the stored answer to give again."""

    loaded: Loaded
    key: str
    fingerprint: str
    replayed: Reply | None


def _engine_move(request: MoveRequest) -> str | game_pb2.Move:
    """The engine's move for a request: its notation, or a Move message."""
    body = request.root
    if isinstance(body, NotationMove):
        return body.move
    return game_pb2.Move(
        kind=game_pb2.MoveKind.Value("MOVE_KIND_" + body.kind.upper()),
        source=body.source,
        target=body.target,
        count=body.count,
        columns=body.columns,
    )


class GameService:
    def __init__(
        self,
        engine: EngineClient,
        store: GameStore,
        *,
        retry_after: int,
        on_move_applied: Callable[[str], None] = lambda variant: None,
        winnable: WinnableDeals | None = None,
    ) -> None:
        self.engine = engine
        self.store = store
        self.winnable = winnable
        self.retry_after = retry_after
        self.on_move_applied = on_move_applied
        self.replay_batch = ENGINE_BATCH_LIMIT

    # ------------------------------------------------------------------ helpers

    def _engine_problem(self, error: EngineError) -> ProblemError:
        return engine_problem(error, self.retry_after)

    def _replay_problem(self, error: EngineError) -> ProblemError:
        """An engine error while replaying stored data is the server's fault."""
        if isinstance(error, EngineUnavailable):
            return self._engine_problem(error)
        return internal_engine_problem(error)

    @staticmethod
    def _authorised(game_id: str, loaded: Loaded | None, token: str) -> Loaded:
        if loaded is None:
            raise ProblemError("unknown-game", f"there is no game {game_id}")
        check_token(token, loaded.token_digest)
        return loaded

    @staticmethod
    def _known_id(game_id: str) -> None:
        if not is_game_id(game_id):
            raise ProblemError("unknown-game", f"there is no game {game_id}")

    async def _replayed(
        self, game_id: str, answer: StoredAnswer | None, print_: str
    ) -> Reply | None:
        """The stored answer when this Idempotency-Key was used before. Where changes
        wait for replicas, the answer is given again only once they have the change
        too (it may have been answered 503 the first time for want of them)."""
        if answer is None:
            return None
        if answer.fingerprint != print_:
            raise ProblemError(
                "idempotency-key-reused",
                "this Idempotency-Key was used on this game for a different request",
            )
        await self.store.confirm_replicated(game_id)
        return _stored_reply(answer)

    async def _begin(
        self,
        operation: str,
        game_id: str,
        token: str,
        if_match: str | None,
        idempotency_key: str | None,
        load: Callable[[str, str], Awaitable[Loaded | None]],
        request: MoveRequest | None = None,
    ) -> _Begun:
        """What every change of a game starts with: the Idempotency-Key and If-Match
        checked, the game loaded for its owner, then either the answer stored for a key
        used before, or the version matched against If-Match."""
        key = check_idempotency_key(idempotency_key)
        check_tags(if_match, "If-Match")
        self._known_id(game_id)
        loaded = self._authorised(game_id, await load(game_id, key), token)
        print_ = fingerprint(operation, request) if key else ""
        replayed = await self._replayed(game_id, loaded.answer, print_)
        if replayed is None:
            require_match(if_match, loaded.version)
        return _Begun(loaded, key, print_, replayed)

    # ------------------------------------------------------------------ operations

    async def create(
        self, request: NewGameRequest, idempotency_key: str | None = None
    ) -> tuple[str, Reply]:
        deal = deal_text(request.deal)
        key = check_idempotency_key(idempotency_key)
        # With a key the game's id follows from it, and the first answer is kept
        # beside the game (create_records): a retry gets that answer again.
        once = CreateOnce.of(key, create_fingerprint(request, deal)) if key else None
        if once is not None and (record := await self.store.create_record(once.game_id)):
            return once.game_id, await self._created_again(once, record)
        if request.winnable:
            reply = await self._winnable_deal(request, deal)
        else:
            try:
                reply = await self.engine.new_game(
                    request.variant, deal=deal, options=request.options
                )
            except EngineError as error:
                raise self._engine_problem(error) from None
        # The state is opaque (encrypted when the engine has a key): what the store keeps
        # beside it comes from the view, and a deal the client did not choose is secret.
        token = new_token()
        while True:  # a collision of 144-bit ids is not expected; draw again if it happens
            game_id = once.game_id if once is not None else new_game_id()
            body = views.game_json(game_id, 1, reply.view, autoplay=request.autoplay)
            body["token"] = token
            payload = _json(body)
            created = await self.store.create(
                game_id,
                state=reply.state.SerializeToString(),
                token_digest=token_digest(token),
                variant=reply.view.variant,
                options_json=json.dumps(list(reply.view.options)),
                deal=reply.view.deal,
                deal_secret=deal is None,
                status=views.status_name(reply.view.status),
                autoplay=request.autoplay,
                record=once.record(payload) if once is not None else b"",
                record_ttl_seconds=CREATE_RECORD_SECONDS,
            )
            if created.outcome == "ok":
                return game_id, Reply(201, payload, _created_headers())
            if once is None:
                continue
            if created.record is not None:  # a create with the same key won the race
                return game_id, await self._created_again(once, created.record)
            raise ProblemError(
                "idempotency-key-reused",
                "this Idempotency-Key created a game earlier; its answer is no longer kept",
            )

    async def _winnable_deal(
        self, request: NewGameRequest, deal: str | None
    ) -> engine_pb2.NewGameResponse:
        if deal is not None:
            raise ProblemError("winnable-with-deal", "winnable deals are random: leave out `deal`")
        if self.winnable is None:  # a service made without one (tools): search here
            raise ProblemError(
                "no-winnable-deal",
                "this gateway does not deal winnable games",
                headers={"Retry-After": str(self.retry_after)},
            )
        return await self.winnable.deal(request.variant, request.options)

    async def _created_again(self, once: CreateOnce, record: bytes) -> Reply:
        """The first answer to a create with this key, or idempotency-key-reused."""
        if not once.same_request(record):
            raise ProblemError(
                "idempotency-key-reused",
                "this Idempotency-Key was used to create a game with a different request",
            )
        try:
            answer = once.answer(record)
        except UnreadableRecord:
            log.error("the create record of game %s does not open with its key", once.game_id)
            raise ProblemError("internal", "the server failed to process the game") from None
        await self.store.confirm_replicated(once.game_id)
        return Reply(201, answer, {**_created_headers(), "Idempotent-Replayed": "true"})

    async def get(self, game_id: str, token: str, if_none_match: str | None) -> Reply:
        check_tags(if_none_match, "If-None-Match")
        self._known_id(game_id)
        loaded = self._authorised(game_id, await self.store.load(game_id), token)
        tag = etag(loaded.version)
        if none_match(if_none_match, loaded.version):
            return Reply(304, b"", {"ETag": tag})
        try:
            view = await self.engine.player_view(game_pb2.SealedState.FromString(loaded.state))
        except EngineError as error:
            raise self._replay_problem(error) from None
        body = views.game_json(
            game_id,
            loaded.version,
            view,
            loaded.open_deal,
            proven_lost=loaded.proven_lost,
            autoplay=loaded.autoplay,
        )
        return Reply(200, _json(body), {"ETag": tag})

    async def hint(self, game_id: str, token: str) -> Reply:
        """The engine's hint for the game as it is. A proof that the game is lost is
        kept for this version, so that the view's outlook says so until the game changes."""
        self._known_id(game_id)
        loaded = self._authorised(game_id, await self.store.load(game_id), token)
        try:
            hint = await self.engine.hint(game_pb2.SealedState.FromString(loaded.state))
        except EngineError as error:
            raise search_problem(error, self.retry_after) from None
        body = views.hint_json(game_id, loaded.version, hint)
        if body["kind"] == "lost" and not loaded.proven_lost:
            await self.store.remember_lost(game_id, loaded.version)
        return Reply(200, _json(body), {"ETag": etag(loaded.version), "Cache-Control": "no-store"})

    async def legal_moves(self, game_id: str, token: str) -> Reply:
        self._known_id(game_id)
        loaded = self._authorised(game_id, await self.store.load(game_id), token)
        try:
            moves = await self.engine.legal_moves(game_pb2.SealedState.FromString(loaded.state))
        except EngineError as error:
            raise self._replay_problem(error) from None
        body = {"id": game_id, "version": loaded.version, "moves": views.moves_json(moves)}
        return Reply(200, _json(body), {"ETag": etag(loaded.version)})

    async def move(
        self,
        game_id: str,
        token: str,
        request: MoveRequest,
        if_match: str | None,
        idempotency_key: str | None,
    ) -> Reply:
        begun = await self._begin(
            "move", game_id, token, if_match, idempotency_key, self.store.load, request
        )
        if begun.replayed is not None:
            return begun.replayed
        loaded, key, print_ = begun.loaded, begun.key, begun.fingerprint
        move = _engine_move(request)
        try:
            reply: GameReply = await self.engine.apply_move(
                game_pb2.SealedState.FromString(loaded.state), move
            )
        except EngineError as error:
            problem = self._engine_problem(error)
            if problem.status == 422:  # the game is as it was: its version, to retry from
                problem.headers["ETag"] = etag(loaded.version)
            raise problem from None
        if loaded.autoplay and reply.view.status == game_pb2.GAME_STATUS_PLAYING:
            reply = await self._with_safe_moves(reply)
        result = await self._commit(
            "move",
            game_id,
            loaded,
            reply,
            if_match,
            key,
            print_,
            views.move_result_json(
                game_id, loaded.version + 1, reply, loaded.open_deal, autoplay=loaded.autoplay
            ),
            move=history_entry(reply.applied),
        )
        if result.status == 200 and "Idempotent-Replayed" not in result.headers:
            self.on_move_applied(reply.view.variant)
        return result

    async def _with_safe_moves(self, reply: GameReply) -> GameReply:
        """The move's reply followed by the engine's autoplay: one change, the move's
        events first."""
        try:
            safe = await self.engine.autoplay(reply.state)
        except EngineError as error:
            raise self._replay_problem(error) from None
        if not safe.applied:
            return reply
        return engine_pb2.ApplyMovesResponse(
            state=safe.state,
            view=safe.view,
            applied=[*reply.applied, *safe.applied],
            events=[*reply.events, *safe.events],
        )

    async def autoplay(
        self, game_id: str, token: str, if_match: str | None, idempotency_key: str | None
    ) -> Reply:
        """Every card that can safely go to a foundation, as one change; with none, the
        game as it is (200, the same version, nothing stored or published)."""
        begun = await self._begin(
            "autoplay", game_id, token, if_match, idempotency_key, self.store.load
        )
        if begun.replayed is not None:
            return begun.replayed
        loaded, key, print_ = begun.loaded, begun.key, begun.fingerprint
        try:
            reply = await self.engine.autoplay(game_pb2.SealedState.FromString(loaded.state))
        except EngineError as error:
            raise self._replay_problem(error) from None
        changed = bool(reply.applied)
        body = views.autoplay_json(
            game_id,
            loaded.version + changed,
            reply,
            loaded.open_deal,
            proven_lost=loaded.proven_lost and not changed,  # a proof holds for its version
            autoplay=loaded.autoplay,
        )
        if not changed:
            return Reply(200, _json(body), {"ETag": etag(loaded.version)})
        return await self._commit(
            "autoplay",
            game_id,
            loaded,
            reply,
            if_match,
            key,
            print_,
            body,
            move=history_entry(reply.applied),
        )

    async def undo(
        self, game_id: str, token: str, if_match: str | None, idempotency_key: str | None
    ) -> Reply:
        begun = await self._begin(
            "undo", game_id, token, if_match, idempotency_key, self.store.load_for_undo
        )
        if begun.replayed is not None:
            return begun.replayed
        loaded, key, print_ = begun.loaded, begun.key, begun.fingerprint
        if loaded.position == 0:
            raise ProblemError("nothing-to-undo", "the game is at its deal")
        # Replaying from a stored state keeps the hidden stock exactly as it was dealt;
        # the store gives the checkpoint before the target and fewer than K moves.
        replay = entry_moves(loaded.moves)
        try:
            reply = await self._replay(game_pb2.SealedState.FromString(loaded.state), replay)
        except EngineError as error:
            raise self._replay_problem(error) from None
        open_deal, meta = loaded.open_deal, None
        if not open_deal and _ends_a_random_deal(loaded.ending):
            # Taking back the end of a random deal: its number has been shown, so the
            # player knows what comes next. The game stays an open one from now on:
            # the view keeps the number and says the game is replayed.
            assert loaded.ending is not None
            open_deal = loaded.ending.deal or await self._shown_deal(game_id) or ""
            meta = {"open": open_deal}
        body = views.game_json(
            game_id, loaded.version + 1, reply.view, open_deal, autoplay=loaded.autoplay
        )
        return await self._commit(
            "undo", game_id, loaded, reply, if_match, key, print_, body, meta=meta
        )

    async def _replay(self, state: game_pb2.SealedState, moves: list[str]) -> GameReply:
        """The state after `moves` from `state`: one engine call, or a few for a history
        longer than the engine takes in one batch."""
        reply = await self.engine.apply_moves(state, moves[: self.replay_batch])
        for start in range(self.replay_batch, len(moves), self.replay_batch):
            batch = moves[start : start + self.replay_batch]
            reply = await self.engine.apply_moves(reply.state, batch)
        return reply

    async def redo(
        self, game_id: str, token: str, if_match: str | None, idempotency_key: str | None
    ) -> Reply:
        begun = await self._begin(
            "redo", game_id, token, if_match, idempotency_key, self.store.load_for_redo
        )
        if begun.replayed is not None:
            return begun.replayed
        loaded, key, print_ = begun.loaded, begun.key, begun.fingerprint
        if loaded.next_redo is None:
            raise ProblemError("nothing-to-redo", "no undone move is waiting to be redone")
        try:
            reply = await self.engine.apply_moves(
                game_pb2.SealedState.FromString(loaded.state), entry_moves([loaded.next_redo])
            )
        except EngineError as error:
            raise self._replay_problem(error) from None
        body = views.move_result_json(
            game_id, loaded.version + 1, reply, loaded.open_deal, autoplay=loaded.autoplay
        )
        return await self._commit("redo", game_id, loaded, reply, if_match, key, print_, body)

    async def _commit(
        self,
        operation: str,
        game_id: str,
        loaded: Loaded,
        reply: GameReply | engine_pb2.AutoplayResponse,
        if_match: str | None,
        key: str,
        print_: str,
        body: dict[str, Any],
        move: str = "",
        meta: dict[str, str] | None = None,
    ) -> Reply:
        """Write the change if the game is still at the version read; else explain why not.
        `meta`: fields of the game's meta hash to set with it."""
        payload = _json(body)
        new_tag = etag(loaded.version + 1)
        answer = StoredAnswer(print_, 200, new_tag, payload) if key else None
        status = views.status_name(reply.view.status)
        if status in views.OVER and reply.view.deal:
            # The engine shows a random deal's number at its end: the store keeps it
            # (the sealed state does not let it read it) for the history and for undo.
            meta = {**(meta or {}), "deal": reply.view.deal}
        result = await self.store.commit(
            operation,
            game_id,
            expected_version=loaded.version,
            state=reply.state.SerializeToString(),
            status=status,
            move=move,
            idempotency_key=key,
            answer=answer,
            meta=meta,
            # every open stream of the game gets the same body as this answer
            event=(operation, payload),
        )
        if result.outcome == "ok":
            return Reply(200, payload, {"ETag": new_tag})
        if result.outcome == "idem":
            # A retry with the same key won the race: answer as it was answered.
            replayed = await self._replayed(game_id, result.answer, print_)
            assert replayed is not None
            return replayed
        if result.outcome == "gone":
            raise ProblemError("unknown-game", f"there is no game {game_id}")
        if result.outcome == "stale":
            raise self._lost_race(result.version, if_match)
        # 'empty': the lists changed although the version did not; cannot happen while
        # every write goes through these scripts.
        log.error(
            "%s on game %s found nothing to %s at version %s",
            operation,
            game_id,
            operation,
            loaded.version,
        )
        raise ProblemError("internal", "the server failed to process the game")

    async def history(self, game_id: str, token: str) -> Reply:
        self._known_id(game_id)
        record = await self.store.load_history(game_id)
        if record is None:
            raise ProblemError("unknown-game", f"there is no game {game_id}")
        check_token(token, record.token_digest)
        deal: str | None = record.open_deal or record.deal or None
        if record.deal_secret and deal is None and record.status in views.OVER:
            # over before the store kept a shown deal number: the engine shows it
            deal = await self._shown_deal(game_id)
        body = {
            "id": game_id,
            "version": record.version,
            "variant": record.variant,
            "options": json.loads(record.options_json),
            "deal": deal,
            "replayed": bool(record.open_deal),
            "moves": entry_moves(record.moves + record.redo),
            "position": len(entry_moves(record.moves)),
        }
        return Reply(200, _json(body), {"ETag": etag(record.version)})

    async def _shown_deal(self, game_id: str) -> str | None:
        """The deal number the engine shows in the game's current view: a random deal's
        once the game is over (the store cannot read it inside the sealed state)."""
        loaded = await self.store.load(game_id)
        if loaded is None:
            raise ProblemError("unknown-game", f"there is no game {game_id}")
        try:
            view = await self.engine.player_view(game_pb2.SealedState.FromString(loaded.state))
        except EngineError as error:
            raise self._replay_problem(error) from None
        return view.deal or None

    # ------------------------------------------------------------------ event streams

    async def stream_ticket(self, game_id: str, token: str) -> Reply:
        """A one-use ticket that opens the game's event stream within
        STREAM_TICKET_SECONDS: a browser's EventSource cannot send the owner token, and
        the token must not go into a URL (where logs and histories keep it)."""
        self._known_id(game_id)
        self._authorised(game_id, await self.store.load(game_id), token)
        ticket = secrets.token_urlsafe(24)
        ttl_ms = STREAM_TICKET_SECONDS * 1000
        if not await self.store.issue_ticket(game_id, ticket_digest(ticket), ttl_ms):
            raise ProblemError("unknown-game", f"there is no game {game_id}")
        body = {
            "ticket": ticket,
            "expires_in": STREAM_TICKET_SECONDS,
            "events": f"/v1/games/{game_id}/events?ticket={ticket}",
        }
        return Reply(201, _json(body), {"Cache-Control": "no-store"})

    async def open_stream(self, game_id: str, ticket: str | None) -> StreamStart:
        """Uses up the ticket; what the stream starts from."""
        if not ticket:
            raise ProblemError(
                "missing-ticket", "open the stream with ?ticket= from POST .../stream-tickets"
            )
        self._known_id(game_id)
        start = await self.store.open_stream(game_id, ticket_digest(ticket))
        if start == "ticket":
            raise ProblemError(
                "bad-ticket", "this stream ticket was used, expired, or is not this game's"
            )
        if not isinstance(start, StreamStart):
            raise ProblemError("unknown-game", f"there is no game {game_id}")
        return start

    async def view_body(self, game_id: str, version: int, state: bytes) -> bytes:
        """The player's view of a stored state, as GET /v1/games/{id} answers it."""
        try:
            view = await self.engine.player_view(game_pb2.SealedState.FromString(state))
        except EngineError as error:
            raise self._replay_problem(error) from None
        # the settings and a proof of loss live beside the state, in the game's meta hash
        loaded = await self.store.load(game_id)
        autoplay = loaded is not None and loaded.autoplay
        proven_lost = loaded is not None and loaded.proven_lost and loaded.version == version
        open_deal = loaded.open_deal if loaded is not None else ""
        body = views.game_json(
            game_id, version, view, open_deal, proven_lost=proven_lost, autoplay=autoplay
        )
        return _json(body)

    async def patch(
        self, game_id: str, token: str, patch: GamePatch, if_match: str | None
    ) -> Reply:
        """Changes the game's settings (a JSON merge patch: a field left out stays, null
        resets it) as a new version; the view answers, and goes to the game's streams."""
        check_tags(if_match, "If-Match")
        self._known_id(game_id)
        loaded = self._authorised(game_id, await self.store.load(game_id), token)
        require_match(if_match, loaded.version)
        autoplay = loaded.autoplay
        if "autoplay" in patch.model_fields_set:
            autoplay = bool(patch.autoplay)
        try:
            view = await self.engine.player_view(game_pb2.SealedState.FromString(loaded.state))
        except EngineError as error:
            raise self._replay_problem(error) from None
        version = loaded.version + 1
        payload = _json(
            views.game_json(
                game_id,
                version,
                view,
                loaded.open_deal,
                proven_lost=loaded.proven_lost,
                autoplay=autoplay,
            )
        )
        result = await self.store.set_settings(
            game_id, expected_version=loaded.version, autoplay=autoplay, event_body=payload
        )
        if result.outcome == "ok":
            return Reply(200, payload, {"ETag": etag(version)})
        if result.outcome == "gone":
            raise ProblemError("unknown-game", f"there is no game {game_id}")
        raise self._lost_race(result.version, if_match)

    @staticmethod
    def _lost_race(version: int, if_match: str | None) -> ProblemError:
        """The problem for a write that found the game at another version than it read."""
        current = etag(version)
        if if_match is not None:
            return ProblemError(
                "stale-version",
                f"the game changed to version {current} meanwhile; nothing was applied",
                headers={"ETag": current},
            )
        return ProblemError(
            "concurrent-update",
            "another request changed the game meanwhile; nothing was applied",
            headers={"ETag": current},
        )

    async def delete(self, game_id: str, token: str, if_match: str | None) -> Reply:
        check_tags(if_match, "If-Match")
        self._known_id(game_id)
        loaded = self._authorised(game_id, await self.store.load(game_id), token)
        require_match(if_match, loaded.version)
        result = await self.store.delete(game_id, loaded.version if if_match is not None else None)
        if result.outcome == "stale":
            raise ProblemError(
                "stale-version",
                f"the game changed to version {etag(result.version)} meanwhile; not deleted",
                headers={"ETag": etag(result.version)},
            )
        if result.outcome == "gone":
            raise ProblemError("unknown-game", f"there is no game {game_id}")
        return Reply(204, b"")
