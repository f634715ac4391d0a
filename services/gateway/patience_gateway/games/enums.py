"""The enums of the game API, taken from the engine's contract (the generated protobuf
descriptors): a value's JSON name is its protobuf name without the enum's prefix, in
lower case (GAME_STATUS_PLAYING: `playing`, HINT_KIND_BEST_EFFORT: `best_effort`), with
no exception; what stands for the unspecified value 0 where a view meets it is in
`answers`.

Each is one named schema in the OpenAPI document; the descriptions say what the values
mean to a client.
"""

from __future__ import annotations

from solitaire.v1 import engine_pb2, game_pb2

from patience_gateway.json_enums import JsonEnum

GAME_STATUS = JsonEnum.from_proto(
    game_pb2.GameStatus.DESCRIPTOR,
    """`playing`: moves are possible; `won`: every card is on a foundation; `stuck`: no move
    is legal.""",
)

OUTLOOK = JsonEnum.from_proto(
    game_pb2.Outlook.DESCRIPTOR,
    """What can still come of the game. `open`: not known to be lost; `won`: every card is
    on a foundation; `stuck`: no legal move; `cycling`: legal moves remain, but only ones
    that go round in circles (no card can reach a foundation again), so the game can no
    longer be won; `lost`: the solver proved that no line wins from here (a hint answered
    `lost` at this version).""",
)

HINT_KIND = JsonEnum.from_proto(
    engine_pb2.HintKind.DESCRIPTOR,
    """What the hint is worth (docs/api.md, "Hints"). Where nothing is hidden: `winning`:
    the first move of a line proven to win; `best_effort`: no win was found within the
    search's budget, so the first move of the line that brought the most cards home;
    `lost`: proven, no line wins (no move). Where the stock or a shuffle to come hides
    cards, the hint searches several guesses at them (`arrangements`), never the real
    ones: `wins_all`, `wins_most`, `wins_some`: the move starts a win in every guess, in
    more than half of them, in some (`winning_arrangements` of `arrangements`);
    `no_win_found`: every guess searched was lost; `best_effort`: no guess was decided
    in time; `lost`: every way the hidden cards can lie was searched, and each loses.
    `none`: the game is over (won, stuck, or given up), nothing to hint.""",
)

VERDICT = JsonEnum.from_proto(
    engine_pb2.Verdict.DESCRIPTOR,
    """The search's answer: `won` (a winning line exists), `lost` (proven: none does) or
    `unknown` (the budget ran out first).""",
)

PILE_KIND = JsonEnum.from_proto(game_pb2.PileKind.DESCRIPTOR)

MOVE_KIND = JsonEnum.from_proto(
    game_pb2.MoveKind.DESCRIPTOR,
    """`transfer`: cards from `source` to `target`; `deal`: the stock's top card to the
    waste; `redeal`: gather and deal the tableau again; `withdraw`: The Fifteen's opening
    exception, taking from the named `columns`.""",
)

LAYOUT = JsonEnum.from_proto(game_pb2.Layout.DESCRIPTOR)

DIRECTION = JsonEnum.from_proto(game_pb2.Direction.DESCRIPTOR)

# A foundation's suit: the contract sends it as a string (PileSpec.suit), not an enum.
SUIT = JsonEnum("Suit", ("C", "S", "H", "D"))
