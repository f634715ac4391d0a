"""Usk: ten columns building down in alternate colour; runs move as a unit."""

from ..building import BuildRule, FillRule
from ..dealing import (
    DealPattern,
    Redeal,
    deal_in_shrinking_rows,
    gather_last_pile_first,
    passes,
    shrinking_rows,
)
from ..piles import Layout, aces_up
from ..variant import Variant

VARIANT = Variant(
    id="usk",
    name="Usk",
    summary=(
        "One pack dealt in rows of 10, 9, ... 3 cards into ten columns. Build the aces up "
        "in suit on the foundations. Columns build down in alternate colour; any run down "
        "in alternate colour at the top of a column moves as a unit. An empty column takes "
        "only a king or a run headed by a king. One redeal: the columns are gathered from "
        "the last to the first and dealt again in the same rows, without shuffling."
    ),
    packs=1,
    tableau=10,
    tableau_layout=Layout.COLUMN,
    build=BuildRule.DOWN_ALTERNATE_COLOUR,
    fill=FillRule.KING_ONLY,
    runs_move=True,
    foundations=aces_up(1),
    deal_pattern=DealPattern(passes("t", *shrinking_rows(10, 52))),
    redeals=1,
    redeal=Redeal(
        gather=gather_last_pile_first,
        deal=deal_in_shrinking_rows,
        description="columns t10..t1 gathered, dealt again in rows of 10, 9, ..., no shuffle",
    ),
)
