"""Napoleon at St Helena (Forty Thieves): ten columns, a stock turned one at a time."""

from ..building import BuildRule, FillRule
from ..dealing import DealPattern, passes
from ..piles import Layout, aces_up
from ..variant import Variant

VARIANT = Variant(
    id="napoleon-at-st-helena",
    name="Napoleon at St Helena",
    summary=(
        "Two packs: ten columns of four, the rest is the stock. Build the eight aces up in "
        "suit on the foundations. Only a column's top card moves; columns build down in "
        "suit. Deal turns the stock's top card onto the waste, whose top card may go to a "
        "foundation or a column. An empty column takes any available card. No redeal."
    ),
    packs=2,
    tableau=10,
    tableau_layout=Layout.COLUMN,
    build=BuildRule.DOWN_IN_SUIT,
    fill=FillRule.ANY_CARD,
    foundations=aces_up(2),
    deal_pattern=DealPattern(passes("t", 10, 10, 10, 10)),
    stock=True,
    options={
        "fill_from_waste_only": "an empty column may be filled only from the waste",
    },
    option_changes={"fill_from_waste_only": {"fill": FillRule.WASTE_ONLY}},
)
