"""A player's new game from a state the engine dealt before: today's daily deal, a
friend's challenge. The state is stored as it was sealed, so a hidden deal number stays
hidden (the engine shows it once the game is over)."""

from __future__ import annotations

import json

from solitaire.v1 import game_pb2

from patience_gateway.games import views
from patience_gateway.games.deps import Games, OwnedGame
from patience_gateway.games.recording import facts_of, started_entry
from patience_gateway.games.replies import Reply, created_headers, json_bytes
from patience_gateway.games.security import new_game_id
from patience_gateway.problems import ProblemError
from patience_gateway.records.record import GameRecord
from patience_gateway.storage.outcomes import Outcome


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
    body = views.game_json(game_id, 1, view, record=game.record_json())
    payload = json_bytes(views.created_json(body, None))
    created = await games.store.create(
        game_id,
        state=dealt,
        token_digest=b"",
        variant=view.variant,
        options_json=json.dumps(list(view.options)),
        deal=view.deal,
        deal_secret=not view.deal,
        status=views.status_name(view.status),
        game_record=record.encode(),
        owner=player_id,
        category=category,
        outbox_entry=started_entry(facts_of(game, view, ""), record),
        daily=daily,
    )
    if created.outcome is not Outcome.OK:  # a 144-bit id drawn twice
        raise ProblemError("internal", "the server failed to deal the game")
    await games.announce(game_id)
    return game_id, Reply(201, payload, created_headers())
