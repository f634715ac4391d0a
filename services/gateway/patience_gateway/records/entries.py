"""The entries of a game's outbox: what a player's records in PostgreSQL learn of a
game, made by the change that reports it (the games layer) and read by the drain
(`records.outbox`). An entry is JSON; the game's history and its state as dealt travel
beside it in the stream (storage.outbox.OutboxEntry).

- `started`: a player's game began (or an anonymous one was claimed): its row in
  `games`, which the player's list shows from then on;
- `ended`: its record closed (won, stuck, proven lost, resigned, abandoned): the row
  completed with the record, the history and the deal, and the statistics counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import orjson

from patience_gateway.records.record import GameRecord

STARTED: Final = "started"
ENDED: Final = "ended"


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What an entry says of the game, besides its record."""

    game_id: str
    player_id: str
    variant: str
    options: list[str]
    category: str
    # the deal number when the player may know it (chosen, or shown at the end)
    deal: str | None
    claimed: bool = False
    replayed: bool = False
    # a daily deal's day
    daily: str | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    kind: str
    facts: GameFacts
    record: GameRecord

    def encode(self) -> bytes:
        facts = self.facts
        return orjson.dumps(
            {
                "kind": self.kind,
                "game": facts.game_id,
                "player": facts.player_id,
                "variant": facts.variant,
                "options": facts.options,
                "category": facts.category,
                "deal": facts.deal,
                "claimed": facts.claimed,
                "replayed": facts.replayed,
                "daily": facts.daily,
                "record": self.record.encode().decode(),
                "hints": self.record.hints,
            }
        )

    @classmethod
    def decode(cls, raw: bytes) -> Entry:
        data = orjson.loads(raw)
        facts = GameFacts(
            data["game"],
            data["player"],
            data["variant"],
            list(data["options"]),
            data["category"],
            data["deal"],
            bool(data["claimed"]),
            bool(data["replayed"]),
            data.get("daily"),
        )
        record = GameRecord.read(data["record"].encode(), str(data["hints"]).encode(), None)
        return cls(data["kind"], facts, record)
