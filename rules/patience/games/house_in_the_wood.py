"""The House in the Wood: La Belle Lucie with two packs."""

from ..building import BuildRule, FillRule
from ..dealing import DealPattern, passes, thirds
from ..piles import Layout, aces_up
from ..variant import Variant
from .lucie_family import SHUFFLED_REDEAL

VARIANT = Variant(
    id="house-in-the-wood",
    name="The House in the Wood",
    summary=(
        "La Belle Lucie with two packs: 34 fans of three and one of two. Build the eight "
        "aces up in suit on the foundations. Only a fan's top card moves; fans build down "
        "in suit and an emptied fan stays empty. Two redeals: the fans are gathered, "
        "shuffled and dealt again in threes."
    ),
    packs=2,
    tableau=35,
    tableau_layout=Layout.FAN,
    build=BuildRule.DOWN_IN_SUIT,
    fill=FillRule.NEVER,
    foundations=aces_up(2),
    deal_pattern=DealPattern(passes("t", *thirds(104))),
    redeals=2,
    redeal=SHUFFLED_REDEAL,
)
