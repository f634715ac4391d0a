"""A player's statistics for one variant and category, computed from finished games.

Pure functions over plain values: `add` folds one finished game into the figures,
`recount` folds a whole record in the order the games finished. The store applies
`add` as each game's end arrives (once: see `records.outbox`), and `recount` when an
end arrives out of order, so the stored figures always equal a recount from the
records (a test holds them to it).

What counts (docs/api.md, Statistics):
- played: every finished game that counts. A ranked game (a random, winnable or daily
  deal: `record.RANKED`) counts from the moment it is dealt, so a deal seen and then
  deleted or left is played and not won, and ends a streak (else a player could pass
  on every deal that looks hard, and the boards would rank the deals chosen); a
  practice game abandoned without a single move does not count (nothing was played,
  and nothing ranks it), as in PySolFC;
- won, and the losses by kind: lost (the game ended stuck, or was resigned after the
  service had proven that no line wins it), resigned, abandoned;
- clean wins: won without undo, redo, restart or hint (`record.GameRecord.clean`);
- streaks: consecutive wins in the order the games finished; any loss ends one;
- best time: the least active time of a win; fewest moves: the fewest moves made in a
  win (every move applied, undone ones included).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from patience_gateway.records.record import ABANDONED, PROVEN_LOST, RESIGNED, STUCK, WON


@dataclass(frozen=True)
class Finished:
    """What the statistics read of one finished game."""

    game_id: str
    finished_at: datetime
    outcome: str
    clean: bool
    active_ms: int
    moves: int
    # a random, winnable or daily deal (record.RANKED): it counts from its deal
    ranked: bool = False

    @property
    def counts(self) -> bool:
        return self.ranked or not (self.outcome == ABANDONED and self.moves == 0)


@dataclass(frozen=True)
class Figures:
    played: int = 0
    won: int = 0
    lost: int = 0
    resigned: int = 0
    abandoned: int = 0
    clean_wins: int = 0
    current_streak: int = 0
    best_streak: int = 0
    best_time_ms: int | None = None
    fewest_moves: int | None = None
    # the end of the last game folded in, and its id (ties broken by id)
    last_finished_at: datetime | None = None
    last_game_id: str = ""

    @property
    def win_rate(self) -> float | None:
        return self.won / self.played if self.played else None

    def comes_after(self, game: Finished) -> bool:
        """Whether `game` ends after every game folded in so far (so `add` may fold it
        without a recount)."""
        if self.last_finished_at is None:
            return True
        return (game.finished_at, game.game_id) > (self.last_finished_at, self.last_game_id)


def _least(current: int | None, value: int) -> int:
    return value if current is None else min(current, value)


def add(figures: Figures, game: Finished) -> Figures:
    """The figures with one more finished game, which ends after the others."""
    if not game.counts:
        return figures
    moved = replace(
        figures,
        played=figures.played + 1,
        last_finished_at=game.finished_at,
        last_game_id=game.game_id,
    )
    if game.outcome != WON:
        return replace(
            moved,
            lost=moved.lost + (game.outcome in (STUCK, PROVEN_LOST)),
            resigned=moved.resigned + (game.outcome == RESIGNED),
            abandoned=moved.abandoned + (game.outcome == ABANDONED),
            current_streak=0,
        )
    streak = moved.current_streak + 1
    return replace(
        moved,
        won=moved.won + 1,
        clean_wins=moved.clean_wins + game.clean,
        current_streak=streak,
        best_streak=max(moved.best_streak, streak),
        best_time_ms=_least(moved.best_time_ms, game.active_ms),
        fewest_moves=_least(moved.fewest_moves, game.moves),
    )


def recount(games: Iterable[Finished]) -> Figures:
    """The figures of these games, folded in the order they finished."""
    figures = Figures()
    for game in sorted(games, key=lambda g: (g.finished_at, g.game_id)):
        figures = add(figures, game)
    return figures
