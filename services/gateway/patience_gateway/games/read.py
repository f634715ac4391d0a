"""Reading a game: its view (GET /v1/games/{id}), its legal moves, its history, a
hint, and its share token. Nothing is written, except that a hint is kept with the
game (its plan, a proof that the game is lost for the version it was given for)."""

from __future__ import annotations

import json

from patience_gateway.games import answers, tokens
from patience_gateway.games.answers import Reply, json_bytes
from patience_gateway.games.change import moves_of
from patience_gateway.games.preconditions import check_tags, etag, none_match
from patience_gateway.games.service import Games, known_id, unknown_game
from patience_gateway.games.shapes import History
from patience_gateway.games.tokens import authorise
from patience_gateway.problems import ProblemError
from patience_gateway.records.record import GIVEN_UP, PROVEN_LOST


async def get(games: Games, game_id: str, token: str, if_none_match: str | None) -> Reply:
    """The player's view; 304 when If-None-Match names the current version."""
    check_tags(if_none_match, "If-None-Match")
    game = await games.owned(game_id, token, read_only=True)
    tag = etag(game.version)
    if none_match(if_none_match, game.version):
        return Reply(304, b"", {"ETag": tag})
    view = await games.ask(games.engine.player_view(game.state))
    body = game.view_json(view)
    return Reply(200, json_bytes(body), {"ETag": tag})


async def legal_moves(games: Games, game_id: str, token: str) -> Reply:
    game = await games.owned(game_id, token, read_only=True)
    moves = await games.ask(games.engine.legal_moves(game.state))
    body = answers.legal_moves_json(game_id, game.version, moves)
    return Reply(200, json_bytes(body), {"ETag": etag(game.version)})


async def hint(games: Games, game_id: str, token: str) -> Reply:
    """The engine's hint for the game as it is, continuing the line of the game's last
    hint while the game is on it (its plan, kept with the game). A proof that the game
    is lost is kept for this version, so that the view's outlook says so until the game
    changes; the hint counts in the game's record (while it is open: a hint makes a win
    not clean). A game given up (resigned, proven lost, abandoned) takes no more moves:
    its hint is `none`, without a search."""
    game = await games.opened(game_id, token, games.store.load_for_hint)
    headers = {"ETag": etag(game.version), "Cache-Control": "no-store"}
    if game.record.outcome in GIVEN_UP:
        body = answers.no_hint_json(game_id, game.version, game.record.outcome == PROVEN_LOST)
        return Reply(200, json_bytes(body), headers)
    answer = await games.ask(
        games.engine.hint(game.state, plan=game.loaded.plan), games.search_problem
    )
    body = answers.hint_json(game_id, game.version, answer)
    prove = body["kind"] == answers.HINT_LOST and not game.meta.proven_lost
    count = not game.record.finished
    if prove or count or answer.plan != game.loaded.plan:
        await games.store.after_hint(
            game_id, game.version, lost=prove, count=count, plan=answer.plan
        )
    return Reply(200, json_bytes(body), headers)


async def history(games: Games, game_id: str, token: str) -> Reply:
    """Everything needed to replay the game, and where undo has taken it."""
    known_id(game_id)
    shared = tokens.is_share_token(token)
    if shared:
        games.check_share(game_id, token, read_only=True)
    player = None if shared else games.player_of(token)
    history = await games.store.load_history(game_id)
    if history is None:
        raise unknown_game(game_id)
    meta = history.meta
    if not shared:
        authorise(token, player, meta.owner, meta.token_digest)
    deal: str | None = meta.open_deal or history.deal or None
    if history.deal_secret and deal is None and history.status in answers.OVER:
        # over before the store kept a shown deal number: the engine shows it
        deal = await games.shown_deal(game_id)
    deal = answers.visible_deal(deal, meta.daily or None)
    body: History = {
        "id": game_id,
        "version": meta.version,
        "variant": history.variant,
        "options": json.loads(history.options_json),
        "deal": deal,
        "replayed": bool(meta.open_deal),
        "moves": moves_of(history.steps + history.undone),
        "position": len(moves_of(history.steps)),
    }
    return Reply(200, json_bytes(body), {"ETag": etag(meta.version)})


async def share(games: Games, game_id: str, token: str) -> Reply:
    """The game's share token, for its owner (not for whoever holds a share already)."""
    await games.owned(game_id, token)
    if games.players is None:
        raise ProblemError("records-unavailable", "this gateway has no key to share games with")
    shared = tokens.share_token(games.players.signing_keys(), game_id)
    return Reply(200, json_bytes(tokens.share_json(game_id, shared)), {"Cache-Control": "no-store"})
