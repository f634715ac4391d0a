"""La Belle Lucie: fans of three building down in suit, two shuffled redeals."""

from ..building import BuildRule, FillRule
from ..dealing import DealPattern, passes, thirds
from ..piles import Layout, aces_up
from ..variant import Variant
from .lucie_family import SHUFFLED_REDEAL

VARIANT = Variant(
    id="la-belle-lucie",
    name="La Belle Lucie",
    summary=(
        "One pack in 17 fans of three and one single card. Build the aces up in suit on "
        "the foundations. Only a fan's top card moves; fans build down in suit and an "
        "emptied fan stays empty. Two redeals: the fans are gathered, shuffled and dealt "
        "again in threes."
    ),
    packs=1,
    tableau=18,
    tableau_layout=Layout.FAN,
    build=BuildRule.DOWN_IN_SUIT,
    fill=FillRule.NEVER,
    foundations=aces_up(1),
    deal_pattern=DealPattern(passes("t", *thirds(52))),
    redeals=2,
    redeal=SHUFFLED_REDEAL,
)
