"""The House on the Hill: The House in the Wood with ace and king foundations."""

from ..building import BuildRule, FillRule
from ..dealing import DealPattern, passes, thirds
from ..piles import Layout, aces_and_kings
from ..variant import Variant
from .lucie_family import SHUFFLED_REDEAL

VARIANT = Variant(
    id="house-on-the-hill",
    name="The House on the Hill",
    summary=(
        "Two packs in 34 fans of three and one of two. Found an ace and a king of each "
        "suit and build them up and down in suit. Only a fan's top card moves; fans build "
        "up or down in suit and an emptied fan stays empty. Two redeals: the fans are "
        "gathered, shuffled and dealt again in threes."
    ),
    packs=2,
    tableau=35,
    tableau_layout=Layout.FAN,
    build=BuildRule.UP_OR_DOWN_IN_SUIT,
    fill=FillRule.NEVER,
    foundations=aces_and_kings(),
    deal_pattern=DealPattern(passes("t", *thirds(104))),
    redeals=2,
    redeal=SHUFFLED_REDEAL,
)
