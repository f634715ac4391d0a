"""Every rules test plays with rules compiled within it.

The library compiles a variant's rules once per process, when it is first played, and
keeps them: without this, a test would meet the compilation (the routes between pile
kinds, the build, fill and foundation tables, the counts read off the declaration) only
if it happened to be the first in its process to play that variant, and a mistake there
could pass every refusal and message test that came later. Compiling all nine games
takes some 20 ms.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from patience import variant


@pytest.fixture(autouse=True)
def rules_compiled_afresh() -> Iterator[None]:
    saved = dict(variant._RULESETS)
    variant._RULESETS.clear()
    try:
        yield
    finally:
        variant._RULESETS.clear()
        variant._RULESETS.update(saved)
