"""The settings tables of README.md and docs/api.md say the defaults the services take: a
default written there as a literal (the first `code` of its cell) is what the gateway or
the engine reads from an environment that sets nothing. A default changed in code and not
in the docs fails here; words ("number of cores", "none") are not checked."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from patience_contract.settings import variables_of
from patience_engine.config import EngineConfig
from patience_gateway.settings import Settings
from pydantic import TypeAdapter

REPO_ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"`([A-Z][A-Z0-9_]+)`")
LITERAL = re.compile(r"`([^`]+)`")


def _says(text: str, value: Any) -> bool:
    """Whether the documented `text` is `value`: a switch read as the services read one
    (on/off, true/false)."""
    if isinstance(value, bool):
        return TypeAdapter(bool).validate_python(text) is value
    return text == str(value)


def _defaults() -> dict[str, Any]:
    """Each variable's default, as read from an empty environment."""
    found: dict[str, Any] = {}
    for settings in (Settings.from_env({}), EngineConfig.from_env({})):
        for field, (_, declaration) in variables_of(type(settings)).items():
            found[declaration.name] = getattr(settings, field)
    return found


def _documented(path: str, default_column: int) -> list[tuple[str, str]]:
    """(variable, default) of each table row that names variables in its first cell and
    starts its default cell with literals: `A` / `B` rows pair their names and literals."""
    rows: list[tuple[str, str]] = []
    for line in (REPO_ROOT / path).read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| `") or len(cells) <= default_column:
            continue
        names = NAME.findall(cells[0])
        default = cells[default_column]
        literals = [LITERAL.match(part.strip()) for part in default.split(" / ")]
        if len(literals) != len(names) or not all(literals):
            continue  # words, not literals, or not one literal per name
        rows += [
            (name, match.group(1)) for name, match in zip(names, literals, strict=True) if match
        ]
    return rows


@pytest.mark.parametrize(("path", "column"), [("docs/api.md", 1), ("README.md", 2)])
def test_every_literal_default_in_the_settings_tables_is_the_services_own(
    path: str, column: int
) -> None:
    defaults = _defaults()
    rows = [(name, text) for name, text in _documented(path, column) if name in defaults]
    assert len(rows) >= 10, f"{path}: the settings table was not found"
    wrong = [
        f"{name}: documented {text!r}, the default is {defaults[name]!r}"
        for name, text in rows
        if not _says(text, defaults[name])
    ]
    assert not wrong, f"{path}: " + "; ".join(wrong)
