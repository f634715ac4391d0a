"""Little Billee: Cody with the reserve dealt at the start and two redeals."""

from ..building import BuildRule, FillRule
from ..dealing import DealPattern, Redeal, deal_in_fours, gather_last_pile_first, passes
from ..piles import Layout, aces_and_kings
from ..variant import Variant

VARIANT = Variant(
    id="little-billee",
    name="Little Billee",
    summary=(
        "Two packs: eight cards to the reserve cells, the rest in 24 fans of four. Found "
        "an ace and a king of each suit and build them up and down in suit. A fan's top "
        "card may go to a foundation or to an empty reserve cell; reserve cards go only "
        "to foundations. Fans never take cards. Two redeals: the fans are gathered from "
        "the last to the first and dealt again in fours, without shuffling."
    ),
    packs=2,
    tableau=24,
    tableau_layout=Layout.FAN,
    build=BuildRule.NONE,
    fill=FillRule.NEVER,
    foundations=aces_and_kings(),
    deal_pattern=DealPattern(passes("r", 8) + passes("t", 24, 24, 24, 24)),
    cells=8,
    redeals=2,
    redeal=Redeal(
        gather=gather_last_pile_first,
        deal=deal_in_fours,
        description="fans t24..t1 gathered, dealt again in fours from t1, no shuffle",
    ),
)
