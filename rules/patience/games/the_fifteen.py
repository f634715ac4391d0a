"""The Fifteen: fifteen columns building up or down in suit, with the opening withdraw."""

from ..building import BuildRule, FillRule
from ..dealing import DealPattern, passes
from ..piles import Layout, aces_and_kings
from ..variant import Variant

VARIANT = Variant(
    id="the-fifteen",
    name="The Fifteen",
    summary=(
        "Two packs in fifteen columns of seven (the last has six). Found an ace and a king "
        "of each suit and build them up and down in suit. Only a column's top card moves; "
        "columns build up or down in suit from the deal on, and an empty column takes any "
        "available card. Once, before any foundation is started and while no ace or king "
        "is available, an ace, a king, or one of each may be withdrawn from the sixth row "
        "to the foundations. No redeal."
    ),
    packs=2,
    tableau=15,
    tableau_layout=Layout.COLUMN,
    build=BuildRule.UP_OR_DOWN_IN_SUIT,
    fill=FillRule.ANY_CARD,
    foundations=aces_and_kings(),
    deal_pattern=DealPattern(passes("t", 15, 15, 15, 15, 15, 15, 14)),
    withdraw_row=6,
)
