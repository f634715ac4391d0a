"""The distributions (rules/ and those under services/), as their pyproject.toml files
declare them."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pyprojects() -> list[Path]:
    """Every distribution's pyproject.toml: the rules library's and those under services/."""
    return sorted([ROOT / "rules" / "pyproject.toml", *(ROOT / "services").rglob("pyproject.toml")])


def declared_scripts() -> set[str]:
    """The console scripts that installing the distributions puts on PATH."""
    scripts: set[str] = set()
    for path in pyprojects():
        scripts.update(tomllib.loads(path.read_text())["project"].get("scripts", {}))
    return scripts
