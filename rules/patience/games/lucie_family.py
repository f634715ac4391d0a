"""What the La Belle Lucie family shares: its shuffled redeal."""

from ..dealing import Redeal, deal_in_thirds, gather_first_pile_first

SHUFFLED_REDEAL = Redeal(
    gather=gather_first_pile_first,
    deal=deal_in_thirds,
    shuffle=True,
    description="fans t1.. gathered, shuffled with the game's generator, dealt again in threes",
)
