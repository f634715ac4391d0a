"""The bodies of the operations routes (health, readiness, problem types), written once:
the static type of the dicts the routes build and their schemas in the OpenAPI
document (see `games.shapes`)."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from patience_gateway.json_enums import JsonEnum
from patience_gateway.problems import PROBLEM_CODE

CHECK_STATUS = JsonEnum("CheckStatus", ("ok", "failing"))
STATE_PROTECTION = JsonEnum("StateProtection", ("sealed", "plain"))

# schemas built on first use, not at import (games/shapes.py says why)
_EXACT = ConfigDict(extra="forbid", defer_build=True)


@with_config(_EXACT)
class Health(TypedDict):
    status: Literal["ok"]
    checks: NotRequired[dict[str, Annotated[str, CHECK_STATUS]]]
    engine_states: NotRequired[
        Annotated[
            Annotated[str, STATE_PROTECTION] | None,
            Field(
                description="Readiness only: `sealed` when the engine encrypts and "
                "authenticates game states with its key; `plain` when it runs without a "
                "key, an unsafe development mode (then `warnings` says so).",
            ),
        ]
    ]
    warnings: NotRequired[
        Annotated[
            list[str],
            Field(description="What an operator should know and fix."),
        ]
    ]


@with_config(_EXACT)
class ProblemType(TypedDict):
    code: Annotated[str, PROBLEM_CODE]
    status: int
    title: str
    description: str
