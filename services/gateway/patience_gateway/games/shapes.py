"""The bodies of the game API's answers, written once.

Each class is both the static type of the dicts `answers` builds (mypy checks every key
they write) and the schema the OpenAPI document gives for the answer (FastAPI has
pydantic write JSON Schema from these TypedDicts). Enum fields are plain strings
whose values come from the engine's contract (`enums`). No answer is validated
against them when sent: `answers` builds them field by field, from the engine's
PlayerView only.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from patience_gateway.games.enums import (
    DIRECTION,
    GAME_STATUS,
    HINT_KIND,
    LAYOUT,
    MOVE_KIND,
    OUTLOOK,
    PILE_KIND,
    SUIT,
    VERDICT,
)
from patience_gateway.players.shapes import PlayerShape
from patience_gateway.records.shapes import RecordShape

# defer_build: FastAPI makes a pydantic TypeAdapter for every response of every route as
# the routes are declared, and a TypedDict's schema is built again for each one (some 170
# builds, half a second of each gateway process's start). Deferred, a schema is built
# when it is first used: for the OpenAPI document, on its first request. No answer is
# validated against these shapes.
_EXACT = ConfigDict(extra="forbid", defer_build=True)


@with_config(_EXACT)
class Move(TypedDict):
    notation: Annotated[str, Field(examples=["t3-f1"])]
    kind: Annotated[str, MOVE_KIND]
    source: Annotated[str, Field(description="Transfer: from pile (empty otherwise).")]
    target: Annotated[str, Field(description="Transfer: to pile (empty otherwise).")]
    count: Annotated[int, Field(description="Transfer: number of cards (0 otherwise).")]
    columns: Annotated[list[str], Field(description="Withdraw: the columns named.")]


@with_config(_EXACT)
class Pile(TypedDict):
    id: Annotated[str, Field(examples=["t1"])]
    kind: Annotated[str, PILE_KIND]
    cards: Annotated[
        list[str],
        Field(
            description="Visible cards, bottom to top (`JD`, `TH`). Always empty for the stock.",
            examples=[["JD", "KS", "4S"]],
        ),
    ]
    size: Annotated[
        int, Field(description="Cards in the pile; for the stock its only visible property.")
    ]


@with_config(_EXACT)
class Counters(TypedDict):
    position: Annotated[
        int,
        Field(
            description="The moves from the deal to the table as it is (an undone move is "
            "not counted; the game's `record.moves` counts every move made)."
        ),
    ]
    foundation_cards: int
    redeals_left: int
    stock_size: int
    total_cards: int


@with_config(_EXACT)
class CardMoved(TypedDict):
    card: str
    source: str
    source_index: int
    target: str
    target_index: int


@with_config(_EXACT)
class Game(TypedDict):
    """The player's view of a game: what a person at the table sees."""

    id: Annotated[str, Field(description="Game id (unguessable, url-safe).")]
    version: Annotated[
        int, Field(description="Bumped by every change; the ETag is its quoted value.")
    ]
    variant: str
    options: list[str]
    status: Annotated[str, GAME_STATUS]
    deal: Annotated[
        str | None,
        Field(
            description="Deal number; null while a random deal is hidden (until the game is "
            "over, and shown from then on, also once the end is taken back: see `replayed`)."
        ),
    ]
    replayed: Annotated[
        bool,
        Field(
            default=False,
            description="True once the end of a random deal (won or stuck, when its number "
            "is shown) was taken back with undo: the game goes on as an open one, its deal "
            "known, so a score, streak or leaderboard can leave it out. False for every other "
            "game.",
        ),
    ]
    piles: list[Pile]
    counters: Counters
    legal_moves: Annotated[
        list[str],
        Field(
            description="Every legal move, in notation, in the engine's stable order "
            "(GET .../legal-moves lists them structured).",
            examples=[["t3-f1", "t4-t7", "deal"]],
        ),
    ]
    outlook: Annotated[
        str,
        OUTLOOK,
        Field(
            description="What can still come of the game: tells a game that can no longer be "
            "won (`cycling`, `lost`) from one that may be (`open`)."
        ),
    ]
    autoplay: Annotated[
        bool, Field(description="The game plays every safe move to a foundation after each move.")
    ]
    record: RecordShape


@with_config(_EXACT)
class CreatedGame(Game):
    token: Annotated[
        str | None,
        Field(
            description="Bearer token that owns an anonymous game. Shown only in this "
            "response: keep it and send it as `Authorization: Bearer <token>`. Null for a "
            "player's game (created with the player's access token, which opens it)."
        ),
    ]


@with_config(_EXACT)
class MoveResult(Game):
    move: Annotated[Move, Field(description="The move applied, normalised.")]
    autoplayed: Annotated[
        list[Move],
        Field(
            description="The safe moves to the foundations played with it, in the same change "
            "(the game's `autoplay` setting), in order; undo takes them back with the move."
        ),
    ]
    events: Annotated[
        list[CardMoved],
        Field(
            description="Cards moved, in order (the move's, then the safe moves'), for animation."
        ),
    ]


@with_config(_EXACT)
class AutoplayResult(Game):
    moves: Annotated[
        list[Move],
        Field(
            description="The safe moves played, in order; empty when there were none (the "
            "game is then unchanged: the same version)."
        ),
    ]
    events: Annotated[list[CardMoved], Field(description="Cards moved, in order, for animation.")]


@with_config(_EXACT)
class Hint(TypedDict):
    """The move to play next, as the solver sees it (GET /v1/games/{id}/hint)."""

    id: str
    version: Annotated[int, Field(description="The version the hint is for.")]
    kind: Annotated[str, HINT_KIND]
    move: Annotated[
        Move | None,
        Field(
            description="The move to play (every kind but `lost` and `none`), with the "
            "same fields the move route takes; null for `lost` and `none`."
        ),
    ]
    verdict: Annotated[str, VERDICT]
    positions: Annotated[
        int,
        Field(
            description="Positions the search went through: 0 when the hint is the next "
            "move of the line of the game's last hint (no search), or the game is over."
        ),
    ]
    milliseconds: Annotated[int, Field(description="Time the search took.")]
    arrangements: Annotated[
        int,
        Field(
            description="Where cards are hidden: the guesses at them searched (0: nothing "
            "is hidden, or a line that turns up no hidden card wins, and the hint is exact)."
        ),
    ]
    winning_arrangements: Annotated[
        int, Field(description="Of those guesses, the ones the move was found to win.")
    ]
    lost_arrangements: Annotated[
        int, Field(description="Of those guesses, the ones proven lost whatever is played.")
    ]
    every_arrangement: Annotated[
        bool,
        Field(
            description="The guesses were every way the hidden cards can lie (a stock of a "
            "few cards), not a sample."
        ),
    ]


@with_config(_EXACT)
class LegalMoves(TypedDict):
    id: str
    version: int
    moves: list[Move]


@with_config(_EXACT)
class History(TypedDict):
    """Enough to replay the game from its deal, and where undo has taken it."""

    id: str
    version: int
    variant: str
    options: list[str]
    deal: Annotated[str | None, Field(description="Deal number, or null while it is hidden.")]
    replayed: Annotated[
        bool,
        Field(
            default=False,
            description="True once the end of a random deal was taken back (see Game.replayed).",
        ),
    ]
    moves: Annotated[
        list[str],
        Field(description="Every move in notation, including undone moves that can be redone."),
    ]
    position: Annotated[
        int,
        Field(
            description="Moves currently applied: `moves[:position]` gives the current state; "
            "`moves[position:]` are waiting for redo."
        ),
    ]


@with_config(_EXACT)
class StreamTicket(TypedDict):
    """A ticket that opens the game's event stream once, within `expires_in` seconds."""

    ticket: Annotated[str, Field(description="Opaque; send it as `?ticket=` of GET .../events.")]
    expires_in: Annotated[int, Field(description="Seconds the ticket stays usable.")]
    events: Annotated[str, Field(description="The stream's path with the ticket, ready to open.")]


@with_config(_EXACT)
class PileSpec(TypedDict):
    id: str
    kind: Annotated[str, PILE_KIND]
    layout: Annotated[str, LAYOUT]
    suit: Annotated[Annotated[str, SUIT] | None, Field(description="Foundations only.")]
    direction: Annotated[Annotated[str, DIRECTION] | None, Field(description="Foundations only.")]


@with_config(_EXACT)
class OptionSpec(TypedDict):
    name: str
    description: str


@with_config(_EXACT)
class VariantSummary(TypedDict):
    id: Annotated[str, Field(examples=["bisley"])]
    name: Annotated[str, Field(examples=["Bisley"])]
    packs: int
    redeals: int
    options: list[OptionSpec]


@with_config(_EXACT)
class VariantList(TypedDict):
    variants: list[VariantSummary]


@with_config(_EXACT)
class Variant(VariantSummary):
    summary: Annotated[str, Field(description="The rules in plain language.")]
    piles: Annotated[list[PileSpec], Field(description="The table: every pile, in pile order.")]


@with_config(_EXACT)
class ResultClaims(TypedDict):
    """What a signed result says (the JWS's claims, also given decoded)."""

    iss: str
    sub: Annotated[str | None, Field(description="The player; null for an anonymous game.")]
    iat: Annotated[int, Field(description="When it was signed (seconds since the epoch).")]
    game: str
    variant: str
    options: list[str]
    deal: Annotated[str | None, Field(description="The deal number, when the player may know it.")]
    outcome: str
    moves: int
    active_seconds: float
    clean: bool | None
    category: str
    daily: Annotated[str | None, Field(description="A daily deal's day; null otherwise.")]
    finished: Annotated[int, Field(description="When the game ended (seconds since the epoch).")]


@with_config(_EXACT)
class SignedResult(TypedDict):
    result: Annotated[
        str,
        Field(
            description="A JWS (compact, EdDSA over Ed25519, `typ` patience-result+jwt, `kid` "
            "naming the key): check it with the keys at /.well-known/jwks.json."
        ),
    ]
    claims: ResultClaims


@with_config(_EXACT)
class JsonWebKey(TypedDict):
    kty: str
    crv: str
    x: str
    kid: str
    alg: str
    use: str


@with_config(_EXACT)
class JsonWebKeySet(TypedDict):
    keys: list[JsonWebKey]


@with_config(_EXACT)
class ReplayStep(Game):
    """The table after `position` moves of the game's history."""

    position: Annotated[int, Field(description="The moves played to reach this table.")]
    length: Annotated[int, Field(description="The moves in the game's history.")]
    last_move: Annotated[
        str | None, Field(description="The move that led here (`restart` too); null at 0.")
    ]


@with_config(_EXACT)
class Share(TypedDict):
    token: Annotated[
        str,
        Field(
            description="Read-only: sent as `Authorization: Bearer <token>`, it opens the "
            "game's view, legal moves, history, replay, event stream and result, and "
            "nothing else."
        ),
    ]
    view: str
    replay: str
    stream_tickets: str


@with_config(_EXACT)
class ChallengeOffer(TypedDict):
    code: Annotated[
        str,
        Field(
            description="One use: give it to the friend to take (case, dashes and spaces "
            "do not matter when it is typed).",
            examples=["7K3M-Q9XD"],
        ),
    ]
    variant: str
    expires: Annotated[str, Field(description="When the code stops dealing (RFC 3339).")]
    take: Annotated[str, Field(description="Where the friend takes it (POST).")]


@with_config(_EXACT)
class ChallengeSide(TypedDict):
    player: PlayerShape | None
    game: Annotated[str, Field(description="The player's game of the deal.")]
    finished: Annotated[bool, Field(description="Whether the game's record has closed.")]
    record: Annotated[
        RecordShape | None,
        Field(description="The game's record, once both games are over (null until then)."),
    ]


@with_config(_EXACT)
class Challenge(TypedDict):
    code: str
    variant: str
    expires: str
    open: Annotated[bool, Field(description="Not taken yet, and not expired.")]
    challenger: ChallengeSide
    taker: Annotated[ChallengeSide | None, Field(description="Null until it is taken.")]
