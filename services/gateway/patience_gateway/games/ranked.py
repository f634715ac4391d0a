"""One open game per ranked category and variant: a player's new random, winnable or
daily game of a variant ends the player's earlier open game of the same category and
variant as abandoned (docs/fair-play.md, "A ranked deal counts from its deal").

Without it a player could leave a losing ranked game open (parked) while winning
others: the loss would come only when the game was abandoned, days later, after the
wins had grown a streak. With one open game per category and variant, every ranked
game ends, won or not, before the next of its kind begins, so the order in which
they end is the order in which they were dealt.

Called once the new game is stored (so that a start racing this one finds it); a
failure here is logged, not raised: the new game exists, and its answer is owed.
"""

from __future__ import annotations

import logging
from typing import Final

from patience_gateway.games import change
from patience_gateway.games.service import Games
from patience_gateway.problems import ProblemError
from patience_gateway.records.record import RANKED
from patience_gateway.storage.failures import STORAGE_DOWN
from patience_gateway.storage.open_games import swap_open_game

log = logging.getLogger("patience_gateway")

# How long the name of a player's open game is kept: longer than any game stays open.
OPEN_GAME_TTL_SECONDS: Final = 400 * 86400


async def end_earlier(
    games: Games, player_id: str, category: str, variant: str, game_id: str
) -> None:
    """`game_id` becomes the player's open game of its category and variant; the one
    before it, if still open, ends as abandoned."""
    if not player_id or category not in RANKED:
        return
    try:
        earlier = await swap_open_game(
            games.store.redis, player_id, category, variant, game_id, OPEN_GAME_TTL_SECONDS
        )
        if earlier is not None:
            await change.supersede(games, earlier, player_id)
    except (ProblemError, *STORAGE_DOWN) as error:  # type: ignore[misc]
        log.warning(
            "game %s: the player's earlier %s game was not ended: %s", game_id, category, error
        )
