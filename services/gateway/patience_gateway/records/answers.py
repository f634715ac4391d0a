"""Records as JSON: the record of a game view, a player's list, its statistics."""

from __future__ import annotations

from datetime import UTC, datetime

from patience_gateway.records import days
from patience_gateway.records.record import GameRecord
from patience_gateway.records.repository import GameRow, StatisticsRow
from patience_gateway.records.shapes import FiguresShape, GameSummary, RecordShape


def iso_ms(ms: int) -> str:
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _maybe(ms: int | None) -> str | None:
    return None if ms is None else iso_ms(ms)


def record_json(record: GameRecord, category: str, player: str, daily: str = "") -> RecordShape:
    return {
        "created": iso_ms(record.created_ms),
        "first_move": _maybe(record.first_move_ms),
        "last_change": iso_ms(record.last_change_ms),
        "finished": _maybe(record.finished_ms),
        "active_seconds": record.active_ms / 1000,
        "moves": record.moves,
        "undos": record.undos,
        "redos": record.redos,
        "hints": record.hints,
        "autoplays": record.autoplays,
        "restarts": record.restarts,
        "redeals": record.redeals,
        "deals": record.deals,
        "outcome": record.outcome,
        "clean": record.clean,
        "winnable": record.winnable,
        "category": category,
        "player": player or None,
        "daily": daily or None,
    }


def summary_json(row: GameRow, player: str, record: GameRecord | None = None) -> GameSummary:
    """A game of the player's list; `record`: fresher than PostgreSQL's (read from
    Redis for a game in play)."""
    return {
        "id": row.game_id,
        "variant": row.variant,
        "options": row.options,
        "deal": None if row.daily and not days.over(row.daily) else row.deal,
        "replayed": row.replayed,
        "record": record_json(record or row.record, row.category, player, row.daily),
    }


def figures_json(row: StatisticsRow) -> FiguresShape:
    figures = row.figures
    return {
        "variant": row.variant,
        "category": row.category,
        "played": figures.played,
        "won": figures.won,
        "lost": figures.lost,
        "resigned": figures.resigned,
        "abandoned": figures.abandoned,
        "win_rate": figures.win_rate,
        "clean_wins": figures.clean_wins,
        "current_streak": figures.current_streak,
        "best_streak": figures.best_streak,
        "best_time_seconds": (
            None if figures.best_time_ms is None else figures.best_time_ms / 1000
        ),
        "fewest_moves": figures.fewest_moves,
    }
