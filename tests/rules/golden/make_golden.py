"""Write tests/rules/golden/first_deals.json: the opening position of the first deals
of every game, so that a deal never silently changes between releases.

Run once (and only again on purpose): ``.venv/bin/python tests/rules/golden/make_golden.py``
"""

from __future__ import annotations

import json
from pathlib import Path

import patience

FIRST_DEALS = Path(__file__).with_name("first_deals.json")
DEAL_NUMBERS = (0, 1, 2, 3, 31999, 32000, 123456789012, 10**20)


def main() -> None:
    golden = {
        variant_id: {str(deal): str(variant.new_game(deal)) for deal in DEAL_NUMBERS}
        for variant_id, variant in patience.VARIANTS.items()
    }
    FIRST_DEALS.write_text(json.dumps(golden, indent=1) + "\n")


if __name__ == "__main__":
    main()
