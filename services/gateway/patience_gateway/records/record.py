"""A game's record: when it was played, how, and how it ended (docs/api.md, "The
game's record").

The record lives beside the game in Redis (the meta hash's `record` field, one compact
JSON value, plus `hints`, counted apart by the hint route) and is updated with every
change in the change's own write, so it costs the move path no round trip. It closes
at the game's first end (won, stuck, resigned, abandoned): later changes (an undo after
the end, say) leave it as it was, and a player's game reaches PostgreSQL with it then
(`records.outbox`).

- times: created, first move, last change, finished (milliseconds since the epoch);
- active time: the sum of the gaps between changes, each gap capped at ACTIVE_GAP_CAP_MS,
  so a game left open overnight does not count the night;
- counts: moves (every move the player made, undone ones included; a redeal or a deal
  from the stock is a move and is also counted as such), undos, redos, hints, autoplays
  (changes that played safe moves: the autoplay route, or the moves played after a
  move with the game's autoplay setting), restarts;
- outcome: won, stuck, proven-lost, resigned or abandoned;
- clean: won without undo, redo, restart or hint. Each of those shows the player
  something a player at the table could not know or take back (where a card leads,
  what the solver sees); autoplay does not (it plays only moves that cannot lose a
  win, which the player could make alike). PySolFC counts a win with hints or a demo as
  a loss; here such a win counts as a win that is not clean.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

ACTIVE_GAP_CAP_MS: Final = 300_000

WON: Final = "won"
STUCK: Final = "stuck"
PROVEN_LOST: Final = "proven-lost"
RESIGNED: Final = "resigned"
ABANDONED: Final = "abandoned"
OUTCOMES: Final = (WON, STUCK, PROVEN_LOST, RESIGNED, ABANDONED)
# the ends that are not the table's: the game takes no more changes after them
GIVEN_UP: Final = frozenset({RESIGNED, PROVEN_LOST, ABANDONED})

# How a game counts in its player's statistics (docs/api.md, "Statistics"): a random
# deal whose number the player never saw; a random deal proven winnable; or practice: a
# deal number the player chose, or a game claimed after it was begun anonymously (the
# player could choose which games to claim). Fixed when the game begins (or is claimed):
# a random deal whose end was taken back (`replayed`) ended before, with its category.
RANDOM: Final = "random"
WINNABLE: Final = "winnable"
PRACTICE: Final = "practice"
# a player's first attempt at a day's deal (games.daily): later attempts are practice
DAILY: Final = "daily"
CATEGORIES: Final = (RANDOM, WINNABLE, PRACTICE, DAILY)
# The categories a leaderboard counts: the deals the player could not have known.
RANKED: Final = (RANDOM, WINNABLE, DAILY)

# The kinds of change a record counts.
MOVE: Final = "move"
AUTOPLAY: Final = "autoplay"
UNDO: Final = "undo"
REDO: Final = "redo"
RESTART: Final = "restart"


def category_of(*, deal_chosen: bool, winnable: bool, claimed: bool) -> str:
    if deal_chosen or claimed:
        return PRACTICE
    return WINNABLE if winnable else RANDOM


@dataclass(frozen=True, slots=True)
class GameRecord:
    created_ms: int
    last_change_ms: int
    first_move_ms: int | None = None
    finished_ms: int | None = None
    active_ms: int = 0
    moves: int = 0
    undos: int = 0
    redos: int = 0
    autoplays: int = 0
    restarts: int = 0
    redeals: int = 0
    deals: int = 0
    outcome: str | None = None
    winnable: bool = False
    # counted apart (the meta hash's `hints`), merged in when read
    hints: int = 0

    @classmethod
    def new(cls, now_ms: int, *, winnable: bool = False) -> GameRecord:
        return cls(created_ms=now_ms, last_change_ms=now_ms, winnable=winnable)

    @classmethod
    def read(cls, raw: bytes | None, hints: bytes | None, created_s: bytes | None) -> GameRecord:
        """The record as the meta hash keeps it; a game made before records were kept
        gets one that starts from its creation (its `created` field, in seconds)."""
        count = int(hints) if hints else 0
        if not raw:
            created = int(created_s) * 1000 if created_s else 0
            return cls(created_ms=created, last_change_ms=created, hints=count)
        fields = raw.decode().split(",")
        created = int(fields[0])
        last, first, finished = (created + int(f) if f else None for f in fields[1:4])
        assert last is not None
        active, moves, undos, redos, autoplays, restarts, redeals, deals = (
            int(f) for f in fields[4:12]
        )
        return cls(
            created,
            last,
            first,
            finished,
            active,
            moves,
            undos,
            redos,
            autoplays,
            restarts,
            redeals,
            deals,
            outcome=fields[12] or None,
            winnable=fields[13] == "1",
            hints=count,
        )

    def encode(self) -> bytes:
        """The meta hash's `record` field (hints are kept apart): comma-separated whole
        numbers, the times after the first as offsets from the creation, an empty field
        for none. Short: a game keeps it for days, on every move."""
        created = self.created_ms

        def offset(ms: int | None) -> str:
            return "" if ms is None else str(ms - created)

        return ",".join(
            [
                str(created),
                offset(self.last_change_ms),
                offset(self.first_move_ms),
                offset(self.finished_ms),
                str(self.active_ms),
                str(self.moves),
                str(self.undos),
                str(self.redos),
                str(self.autoplays),
                str(self.restarts),
                str(self.redeals),
                str(self.deals),
                self.outcome or "",
                "1" if self.winnable else "0",
            ]
        ).encode()

    @property
    def finished(self) -> bool:
        return self.finished_ms is not None

    @property
    def clean(self) -> bool | None:
        """Won without undo, redo, restart or hint; None while the game is not won."""
        if self.outcome != WON:
            return None
        return not (self.undos or self.redos or self.restarts or self.hints)

    def changed(
        self,
        kind: str,
        now_ms: int,
        *,
        moves: int = 0,
        redeals: int = 0,
        deals: int = 0,
        autoplayed: bool = False,
    ) -> GameRecord:
        """The record after a change of `kind` at `now_ms` (a closed record stays as it
        is). `moves`: the moves the player made in it; `redeals`, `deals`: how many of
        them were redeals and deals from the stock; `autoplayed`: safe moves were
        played with it."""
        if self.finished:
            return self
        gap = min(max(now_ms - self.last_change_ms, 0), ACTIVE_GAP_CAP_MS)
        first = self.first_move_ms
        if first is None and kind == MOVE:
            first = now_ms
        return replace(
            self,
            last_change_ms=max(now_ms, self.last_change_ms),
            first_move_ms=first,
            active_ms=self.active_ms + gap,
            moves=self.moves + moves,
            undos=self.undos + (kind == UNDO),
            redos=self.redos + (kind == REDO),
            restarts=self.restarts + (kind == RESTART),
            autoplays=self.autoplays + (kind == AUTOPLAY or autoplayed),
            redeals=self.redeals + redeals,
            deals=self.deals + deals,
        )

    def ended(self, outcome: str, now_ms: int) -> GameRecord:
        """The record closed with `outcome` at `now_ms` (a closed one stays as it is)."""
        if self.finished:
            return self
        return replace(self, finished_ms=max(now_ms, self.last_change_ms), outcome=outcome)
