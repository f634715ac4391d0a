"""Cody: Little Billee without redeals, with empty reserve cells."""

from ..building import BuildRule, FillRule
from ..dealing import DealPattern, passes
from ..piles import Layout, aces_and_kings
from ..variant import Variant

VARIANT = Variant(
    id="cody",
    name="Cody",
    summary=(
        "Two packs dealt in 26 fans of four. Found an ace and a king of each suit and "
        "build them up and down in suit. A fan's top card may go to a foundation or to "
        "one of eight reserve cells; a reserve card may only go to a foundation. Fans "
        "never take cards and an emptied fan stays empty. No redeal."
    ),
    packs=2,
    tableau=26,
    tableau_layout=Layout.FAN,
    build=BuildRule.NONE,
    fill=FillRule.NEVER,
    foundations=aces_and_kings(),
    deal_pattern=DealPattern(passes("t", 26, 26, 26, 26)),
    cells=8,
)
