"""Challenges between players (docs/api.md, "Challenges"): from a game, a one-use code
that deals the same deal to another player, its number hidden from the taker, and both
results side by side once both games are over.

The challenger's deal is dealt again for the taker with its number hidden (NewGame
hide_deal) when the challenger could see it; a deal hidden already (a random or a
proven-winnable deal) is given as it was sealed. The taker's game is practice: the deal
was chosen by another player, who may know it well, so it counts on no leaderboard.
A daily deal cannot be offered before its day is over (every player has it already).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Final

import orjson
from psycopg import AsyncConnection

from patience_gateway.games.answers import Reply
from patience_gateway.games.create import start_dealt
from patience_gateway.games.service import Games
from patience_gateway.games.shapes import Challenge, ChallengeOffer, ChallengeSide
from patience_gateway.players import repository as players
from patience_gateway.players.codes import (
    CODE_ALPHABET,
    CODE_LENGTH,
    new_code,
    normal_code,
    shown_code,
)
from patience_gateway.players.service import Players, player_json
from patience_gateway.problems import ProblemError
from patience_gateway.records import challenges, days
from patience_gateway.records import repository as records
from patience_gateway.records.answers import iso_ms, record_json
from patience_gateway.records.record import PRACTICE, GameRecord
from patience_gateway.storage.database import Database, DatabaseUnavailable
from patience_gateway.storage.rates import Rate

# per player: challenges offered
OFFERS: Final = Rate("challenge", 20, 3600)
# per client address: codes read or taken (a live code is not found by guessing)
TRIES: Final = Rate("challenge-code", 30, 60)


def _well_formed(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code)


def _iso(when: datetime) -> str:
    return iso_ms(int(when.timestamp() * 1000))


def unknown_code() -> ProblemError:
    return ProblemError(
        "bad-challenge-code", "no open challenge has this code: it expired or is mistyped"
    )


class Challenges:
    def __init__(
        self, games: Games, database: Database | None, schema_ready: Callable[[], Awaitable[None]]
    ) -> None:
        self.games = games
        self.database = database
        self.schema_ready = schema_ready

    def _ready(self) -> tuple[Database, Players]:
        if self.database is None or self.games.players is None:
            raise DatabaseUnavailable("this gateway keeps no players (DATABASE_URL)")
        return self.database, self.games.players

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.games.clock() / 1000, UTC)

    async def offer(self, game_id: str, access_token: str) -> bytes:
        """A new challenge code for the deal of the player's game."""
        database, players_ = self._ready()
        games = self.games
        game = await games.opened(game_id, access_token, games.store.load_dealt)
        if not game.owner:
            raise ProblemError("bad-token", "only a player's game can be offered as a challenge")
        await players_.limit(OFFERS, game.owner)
        daily = game.meta.daily
        if daily and not days.over(daily):
            raise ProblemError(
                "not-challengeable",
                "a daily deal is everyone's already: offer it once its day is over",
            )
        dealt = game.state
        view = await games.ask(games.engine.player_view(dealt))
        daily_over = bool(daily) and days.over(daily)
        if not view.deal and not game.record.finished and not daily_over:
            # the friend's game would show the number at its end, to be passed back
            raise ProblemError(
                "not-challengeable",
                "this game's deal number is hidden from its player: offer it once the game is over",
            )
        if view.deal:  # the challenger sees the number: deal it again, hidden
            again = await games.ask(
                games.engine.new_game(
                    view.variant, options=list(view.options), deal=view.deal, hide_deal=True
                )
            )
            dealt = again.state
        code = new_code()
        now = self._now()
        await self.schema_ready()
        async with database.transaction() as connection:
            await challenges.offer(
                connection,
                code,
                game_id,
                game.owner,
                view.variant,
                dealt.SerializeToString(),
                now,
            )
        expires = now + challenges.LIFETIME
        offered: ChallengeOffer = {
            "code": shown_code(code),
            "variant": view.variant,
            "expires": _iso(expires),
            "take": f"/v1/challenges/{shown_code(code)}/games",
        }
        return orjson.dumps(offered)

    async def _open(self, code: str, client: str) -> str:
        _, players_ = self._ready()
        await players_.limit(TRIES, client)
        normal = normal_code(code)
        if not _well_formed(normal):
            raise unknown_code()
        await self.schema_ready()
        return normal

    async def take(self, code: str, player_id: str, client: str) -> tuple[str, Reply]:
        """The taker's game of the challenge's deal (practice)."""
        _, players_ = self._ready()
        await players_.refuse_deleted(player_id)
        normal = await self._open(code, client)
        database, _ = self._ready()
        now = self._now()
        async with database.transaction() as connection:
            found = await challenges.find(connection, normal, lock=True)
            if found is None or found.expires_at <= now:
                raise unknown_code()
            if found.player_id == player_id:
                raise ProblemError("own-challenge", "a player cannot take their own challenge")
            if found.taken_by is not None:
                raise ProblemError(
                    "challenge-taken",
                    "this challenge was taken already: a challenge deals one game",
                )
            # the game is dealt before the code is spent: if Redis fails, the code is kept
            record = GameRecord.new(self.games.clock())
            game_id, reply = await start_dealt(self.games, found.dealt, player_id, PRACTICE, record)
            await challenges.take(connection, normal, player_id, game_id, now)
        return game_id, reply

    async def show(self, code: str, client: str) -> bytes:
        """Both sides of the challenge; the results once both games are over."""
        normal = await self._open(code, client)
        database, _ = self._ready()
        async with database.transaction() as connection:
            found = await challenges.find(connection, normal)
            if found is None:
                raise unknown_code()
            sides = [await _side(connection, found.player_id, found.game_id)]
            if found.taken_by is not None and found.taken_game_id is not None:
                sides.append(await _side(connection, found.taken_by, found.taken_game_id))
        both_over = len(sides) == 2 and all(side["finished"] for side in sides)
        if not both_over:
            for side in sides:
                side["record"] = None
        shown: Challenge = {
            "code": shown_code(normal),
            "variant": found.variant,
            "expires": _iso(found.expires_at),
            "open": found.taken_by is None and found.expires_at > self._now(),
            "challenger": sides[0],
            "taker": sides[1] if len(sides) == 2 else None,
        }
        return orjson.dumps(shown)


async def _side(connection: AsyncConnection, player_id: str, game_id: str) -> ChallengeSide:
    """One player's side: who, which game, whether it is over, and its record (as
    PostgreSQL has it: a moment behind Redis, while the outbox carries it)."""
    player = await players.find(connection, player_id)
    kept = await records.game_of(connection, game_id)
    row = kept[1] if kept is not None else None
    return {
        "player": player_json(player) if player is not None else None,
        "game": game_id,
        "finished": row is not None and row.finished,
        "record": (
            record_json(row.record, row.category, player_id, row.daily) if row is not None else None
        ),
    }
