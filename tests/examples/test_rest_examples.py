"""examples/typescript-rest: types generated from the running gateway's OpenAPI document,
the example compiled against them with tsc (a contract change that breaks it fails
here), then its scripted game played over HTTP."""

from __future__ import annotations

import json

import pytest

from tests.examples.conftest import Service
from tests.examples.test_grpc_examples import OPENING_MOVES, run
from tests.tools import node

# One `patience serve` for all the examples: on one worker.
pytestmark = pytest.mark.xdist_group("examples")


def test_typescript_client_generated_from_openapi_plays(service: Service) -> None:
    node_path = node()
    run(["bash", "examples/typescript-rest/build.sh", service.rest])
    out = run([node_path, "examples/typescript-rest/dist/main.mjs", service.rest])
    steps = {line["step"]: line for line in map(json.loads, out.splitlines())}
    assert steps["variants"]["count"] == 9
    assert steps["new-game"] == {
        "step": "new-game",
        "status": "playing",
        "legal_moves": OPENING_MOVES,
    }
    assert steps["move"] == {"step": "move", "kind": "transfer", "f1": ["AC"], "version": 2}
    assert steps["illegal-move"] == {
        "step": "illegal-move",
        "status": 422,
        "code": "illegal-move",
        "rule": "wrong_suit",
    }
    assert steps["undo"] == {"step": "undo", "f1": [], "version": 3}
