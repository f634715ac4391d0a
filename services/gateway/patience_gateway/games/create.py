"""Dealing a new game: POST /v1/games, and a player's game from a state dealt before.

The engine deals (or a winnable deal is taken or searched), the store keeps the game at
version 1 with the SHA-256 of a new owner token, and the answer is the view with the
token. A player's game (created with the player's access token) has no token of its
own: the player's opens it, and its outbox tells the player's records in PostgreSQL that
it began. With an Idempotency-Key the game's id follows from the key, and the first
answer is kept beside the game (`create_once`): a retry gets that answer again.

`start_dealt` makes a player's game from a state the engine dealt before (today's daily
deal, a friend's challenge): stored as it was sealed, so a hidden deal number stays
hidden (the engine shows it once the game is over).
"""

from __future__ import annotations

import logging

from solitaire.v1 import engine_pb2, game_pb2

from patience_gateway.games import answers, ranked
from patience_gateway.games.answers import Reply, created_headers, json_bytes
from patience_gateway.games.change import facts_of, started_entry
from patience_gateway.games.create_once import (
    CREATED_ANSWER_SECONDS,
    CreateOnce,
    UnreadableAnswer,
    create_fingerprint,
)
from patience_gateway.games.preconditions import check_idempotency_key
from patience_gateway.games.requests import NewGameRequest
from patience_gateway.games.service import Games, OwnedGame
from patience_gateway.games.tokens import new_game_id, new_token, token_digest
from patience_gateway.problems import ProblemError
from patience_gateway.records.record import GameRecord, category_of
from patience_gateway.storage.reads import Loaded
from patience_gateway.storage.writes import NewGame, Outcome

log = logging.getLogger("patience_gateway")

MAX_DEAL = 10**20


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


def _new_game(
    game: OwnedGame[Loaded],
    view: game_pb2.PlayerView,
    state: bytes,
    token: str | None,
    *,
    deal_secret: bool,
    autoplay: bool = False,
) -> tuple[bytes, NewGame]:
    """The new game's answer (its view, and its token) and what the store keeps of it."""
    body = answers.game_json(game.id, 1, view, record=game.record_json(), autoplay=autoplay)
    payload = json_bytes(answers.created_json(body, token))
    entry = started_entry(facts_of(game, view, ""), game.record) if game.owner else b""
    stored = NewGame(
        state,
        token_digest(token) if token is not None else b"",
        view.variant,
        view.options,
        view.deal,
        deal_secret,
        answers.status_name(view.status),
        game.record.encode(),
        game.owner,
        game.meta.category,
        game.meta.daily,
        autoplay,
        entry,
    )
    return payload, stored


async def create(
    games: Games,
    request: NewGameRequest,
    idempotency_key: str | None = None,
    access_token: str | None = None,
) -> tuple[str, Reply]:
    """The new game's id, and the answer to send; with `access_token`, a player's game."""
    games.spare.served.set()
    deal = deal_text(request.deal)
    key = check_idempotency_key(idempotency_key)
    player = _player_of(games, access_token)
    if player is not None and games.players is not None:
        await games.players.refuse_deleted(player)
    once = CreateOnce.of(key, create_fingerprint(request, deal, player)) if key else None
    if once is not None and (kept := await games.store.created_answer(once.game_id)):
        return once.game_id, await _created_again(games, once, kept)
    if request.winnable:
        reply = await _winnable_deal(games, request, deal)
    else:
        reply = await games.ask(
            games.engine.new_game(request.variant, deal=deal, options=request.options),
            games.client_problem,
        )
    # The state is opaque (encrypted when the engine has a key): what the store keeps
    # beside it comes from the view, and a deal the client did not choose is secret.
    token = None if player is not None else new_token()
    category = category_of(deal_chosen=deal is not None, winnable=request.winnable, claimed=False)
    record = GameRecord.new(games.clock(), winnable=request.winnable)
    state = reply.state.SerializeToString()
    while True:  # a collision of 144-bit ids is not expected; draw again if it happens
        game_id = once.game_id if once is not None else new_game_id()
        game = OwnedGame.dealt(game_id, player or "", category, record)
        payload, stored = _new_game(
            game, reply.view, state, token, deal_secret=deal is None, autoplay=request.autoplay
        )
        created = await games.store.create(
            game_id,
            stored,
            answer=once.keep(payload) if once is not None else b"",
            answer_ttl_seconds=CREATED_ANSWER_SECONDS,
        )
        if created.outcome is Outcome.OK:
            if stored.outbox_entry:
                await games.announce(game_id)
            await ranked.end_earlier(games, player or "", category, reply.view.variant, game_id)
            return game_id, Reply(201, payload, created_headers())
        if once is None:
            continue
        if created.answer is not None:  # a create with the same key won the race
            return game_id, await _created_again(games, once, created.answer)
        raise ProblemError(
            "idempotency-key-reused",
            "this Idempotency-Key created a game earlier; its answer is no longer kept",
        )


async def start_dealt(
    games: Games,
    dealt: bytes,
    player_id: str,
    category: str,
    record: GameRecord,
    *,
    game_id: str | None = None,
    daily: str = "",
) -> tuple[str, Reply]:
    """The player's new game (`game_id`, or a new id) at the sealed state `dealt`: its
    id and the 201 answer (without its Location)."""
    view = await games.ask(games.engine.player_view(game_pb2.SealedState.FromString(dealt)))
    game_id = game_id or new_game_id()
    game = OwnedGame.dealt(game_id, player_id, category, record, daily=daily)
    payload, stored = _new_game(game, view, dealt, None, deal_secret=not view.deal)
    created = await games.store.create(game_id, stored)
    if created.outcome is not Outcome.OK:  # a 144-bit id drawn twice
        raise ProblemError("internal", "the server failed to deal the game")
    await games.announce(game_id)
    await ranked.end_earlier(games, player_id, category, view.variant, game_id)
    return game_id, Reply(201, payload, created_headers())


async def _winnable_deal(
    games: Games, request: NewGameRequest, deal: str | None
) -> engine_pb2.NewGameResponse:
    if deal is not None:
        raise ProblemError("winnable-with-deal", "winnable deals are random: leave out `deal`")
    if games.winnable is None:  # games made without them (tools)
        raise ProblemError(
            "no-winnable-deal",
            "this gateway does not deal winnable games",
            headers={"Retry-After": str(games.retry_after)},
        )
    return await games.winnable.deal(request.variant, request.options)


async def _created_again(games: Games, once: CreateOnce, kept: bytes) -> Reply:
    """The first answer to a create with this key, or idempotency-key-reused."""
    if not once.same_request(kept):
        raise ProblemError(
            "idempotency-key-reused",
            "this Idempotency-Key was used to create a game with a different request",
        )
    try:
        answer = once.answer(kept)
    except UnreadableAnswer:
        log.error("the kept answer of game %s does not open with its key", once.game_id)
        raise ProblemError("internal", "the server failed to process the game") from None
    await games.store.confirm_replicated(once.game_id)
    return Reply(201, answer, {**created_headers(), "Idempotent-Replayed": "true"})


def _player_of(games: Games, access_token: str | None) -> str | None:
    """The player a create is for: none without a token; a player's access token, or
    invalid-token for any other token (a create takes no game's token)."""
    if access_token is None:
        return None
    player = games.player_of(access_token)
    if player is None:
        raise ProblemError(
            "invalid-token",
            "a new game takes a player's access token, or no Authorization at all",
        )
    return player
