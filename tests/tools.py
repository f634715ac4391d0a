"""The outside tools the examples run with: node and the npm packages of package-lock.json,
jq. Where one is missing the test is skipped, saying which and how to get it, except in CI
(CI=true), where a missing tool fails the test: the examples must run there."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NODE_BIN = REPO / "node_modules" / ".bin"


def require(found: bool, what: str) -> None:
    if found:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing, and CI runs every example")
    pytest.skip(f"{what} is missing")


def node() -> str:
    path = shutil.which("node")
    require(path is not None, "node (20 or newer) is not on PATH, so")
    assert path is not None
    require((NODE_BIN / "buf").exists(), "node_modules (run `make node`)")
    return path


def node_tool(name: str) -> str:
    node()
    return str(NODE_BIN / name)


def program(name: str) -> str:
    path = shutil.which(name)
    require(path is not None, f"{name} (not on PATH)")
    assert path is not None
    return path
