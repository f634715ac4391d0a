"""Reading a game: its view (GET /v1/games/{id}), its legal moves, its history, and a
hint. Nothing is written, except that a hint proving the game lost is kept for the
version it was given for."""

from __future__ import annotations

import json

from solitaire.v1 import game_pb2

from patience_gateway.games import views
from patience_gateway.games.deps import Games, authorise, known_id, unknown_game
from patience_gateway.games.entries import entry_moves
from patience_gateway.games.preconditions import check_tags, etag, none_match
from patience_gateway.games.replies import Reply, json_bytes
from patience_gateway.games.shapes import History
from patience_gateway.games.shares import is_share_token
from patience_gateway.records.record import GIVEN_UP, PROVEN_LOST


async def get(games: Games, game_id: str, token: str, if_none_match: str | None) -> Reply:
    """The player's view; 304 when If-None-Match names the current version."""
    check_tags(if_none_match, "If-None-Match")
    game = await games.owned(game_id, token, read_only=True)
    loaded = game.loaded
    tag = etag(loaded.version)
    if none_match(if_none_match, loaded.version):
        return Reply(304, b"", {"ETag": tag})
    view = await games.ask(games.engine.player_view(game.state))
    body = game.view_json(view)
    return Reply(200, json_bytes(body), {"ETag": tag})


async def legal_moves(games: Games, game_id: str, token: str) -> Reply:
    game = await games.owned(game_id, token, read_only=True)
    moves = await games.ask(games.engine.legal_moves(game.state))
    body = views.legal_moves_json(game_id, game.version, moves)
    return Reply(200, json_bytes(body), {"ETag": etag(game.version)})


async def hint(games: Games, game_id: str, token: str) -> Reply:
    """The engine's hint for the game as it is, continuing the line of the game's last
    hint while the game is on it (its plan, kept with the game). A proof that the game
    is lost is kept for this version, so that the view's outlook says so until the game
    changes; the hint counts in the game's record (while it is open: a hint makes a win
    not clean). A game given up (resigned, proven lost, abandoned) takes no more moves:
    its hint is `none`, without a search."""
    game = await games.owned(game_id, token, games.store.load_for_hint)
    headers = {"ETag": etag(game.version), "Cache-Control": "no-store"}
    if game.record.outcome in GIVEN_UP:
        body = views.no_hint_json(game_id, game.version, game.record.outcome == PROVEN_LOST)
        return Reply(200, json_bytes(body), headers)
    answer = await games.ask(
        games.engine.hint(game.state, plan=game.loaded.hint_plan), games.search_problem
    )
    body = views.hint_json(game_id, game.version, answer)
    prove = body["kind"] == views.HINT_LOST and not game.loaded.proven_lost
    count = not game.record.finished
    if prove or count or answer.plan != game.loaded.hint_plan:
        await games.store.after_hint(
            game_id, game.version, lost=prove, count=count, plan=answer.plan
        )
    return Reply(200, json_bytes(body), headers)


async def history(games: Games, game_id: str, token: str) -> Reply:
    """Everything needed to replay the game, and where undo has taken it."""
    known_id(game_id)
    shared = is_share_token(token)
    if shared:
        games.check_share(game_id, token, read_only=True)
    player = None if shared else games.player_of(token)
    record = await games.store.load_history(game_id)
    if record is None:
        raise unknown_game(game_id)
    if not shared:
        authorise(token, player, record.owner, record.token_digest)
    deal: str | None = record.open_deal or record.deal or None
    if record.deal_secret and deal is None and record.status in views.OVER:
        # over before the store kept a shown deal number: the engine shows it
        deal = await shown_deal(games, game_id)
    deal = views.visible_deal(deal, record.daily or None)
    body: History = {
        "id": game_id,
        "version": record.version,
        "variant": record.variant,
        "options": json.loads(record.options_json),
        "deal": deal,
        "replayed": bool(record.open_deal),
        "moves": entry_moves(record.moves + record.redo),
        "position": len(entry_moves(record.moves)),
    }
    return Reply(200, json_bytes(body), {"ETag": etag(record.version)})


async def shown_deal(games: Games, game_id: str) -> str | None:
    """The deal number the engine shows in the game's current view: a random deal's
    once the game is over (the store cannot read it inside the sealed state)."""
    loaded = await games.store.load(game_id)
    if loaded is None:
        raise unknown_game(game_id)
    state = game_pb2.SealedState.FromString(loaded.state)
    view = await games.ask(games.engine.player_view(state))
    return view.deal or None
