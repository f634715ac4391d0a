"""Bisley: aces start on the foundations, kings build down to meet them."""

from ..building import BuildRule, FillRule
from ..dealing import DealPattern, passes, pile_span
from ..piles import Layout, aces_and_kings
from ..variant import Variant

VARIANT = Variant(
    id="bisley",
    name="Bisley",
    summary=(
        "One pack. The four aces start on their foundations; the other cards are dealt in "
        "thirteen columns (four of three, nine of four). Build the aces up and the kings "
        "down in suit, each king founded once it is available; the two of a suit may meet "
        "anywhere. Only a column's top card moves; columns build up or down in suit, and "
        "an emptied column stays empty. No redeal."
    ),
    packs=1,
    tableau=13,
    tableau_layout=Layout.COLUMN,
    build=BuildRule.UP_OR_DOWN_IN_SUIT,
    fill=FillRule.NEVER,
    foundations=aces_and_kings(),
    deal_pattern=DealPattern(
        (*passes("t", 13, 13, 13), pile_span("t", 5, 13)), aces_to_foundations=True
    ),
)
