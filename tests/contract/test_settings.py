"""The services' settings read one way (patience_contract.settings): every variable of
every service with the same grammar, refused with its name, and written down in the
documentation."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from patience_contract.settings import SettingsError, Variable, read_settings, variables_of
from patience_engine.config import EngineConfig, SealKeySettings
from patience_gateway.settings import Settings, TokenKeySettings
from patience_launcher.settings import LauncherSettings, ServerBinaries

ROOT = Path(__file__).resolve().parents[2]
SERVICES = [EngineConfig, SealKeySettings, Settings, TokenKeySettings]
EVERY = [*SERVICES, LauncherSettings, ServerBinaries]


def declarations(kind: Any) -> list[tuple[type, str, Variable]]:
    """(settings class, field, declaration) of every variable read as `kind`."""
    return [
        (settings, field, declaration)
        for settings in EVERY
        for field, (declared_kind, declaration) in variables_of(settings).items()
        if declared_kind == kind or declared_kind == kind | None
    ]


ON = ["on", "ON", "true", "True", "yes", "1", " on "]
OFF = ["off", "Off", "false", "FALSE", "no", "0"]


@pytest.mark.parametrize(("settings", "field", "declaration"), declarations(bool))
def test_every_switch_takes_the_same_words(
    settings: type, field: str, declaration: Variable
) -> None:
    for word in ON:
        assert getattr(read_settings(settings, {declaration.name: word}), field) is True
    for word in OFF:
        assert getattr(read_settings(settings, {declaration.name: word}), field) is False
    with pytest.raises(SettingsError, match=f"^{declaration.name} must be on or off, not 'fast'$"):
        read_settings(settings, {declaration.name: "fast"})


def test_the_engine_and_the_gateway_read_the_speed_paths_alike() -> None:
    for word in [*ON, *OFF, "", "  "]:
        env = {"PATIENCE_SPEED_PATHS": word}
        assert EngineConfig.from_env(env).speed_paths is Settings.from_env(env).speed_paths


@pytest.mark.parametrize(("settings", "field", "declaration"), declarations(int))
def test_every_number_is_refused_by_name(settings: type, field: str, declaration: Variable) -> None:
    with pytest.raises(SettingsError, match=f"^{declaration.name} must be a whole number"):
        read_settings(settings, {declaration.name: "ten"})
    if declaration.ge is not None:
        below = str(declaration.ge - 1)
        with pytest.raises(SettingsError, match=f"^{declaration.name} must be at least"):
            read_settings(settings, {declaration.name: below})
    if declaration.le is not None:
        above = str(declaration.le + 1)
        with pytest.raises(SettingsError, match=f"^{declaration.name} must be at most"):
            read_settings(settings, {declaration.name: above})


def test_a_blank_value_is_an_unset_one() -> None:
    assert EngineConfig.from_env({"ENGINE_WORKERS": "  "}) == EngineConfig.from_env({})
    assert Settings.from_env({"GAME_TTL_SECONDS": ""}) == Settings.from_env({})


def test_every_bad_value_is_named_at_once() -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({"GATEWAY_PORT": "http", "REDIS_CLUSTER": "maybe"})
    assert "GATEWAY_PORT" in str(refused.value) and "REDIS_CLUSTER" in str(refused.value)


def test_every_variable_is_documented() -> None:
    """Named in README.md's Configuration or in docs/, where an operator looks."""
    text = "\n".join(
        path.read_text() for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    )
    named = set(re.findall(r"`\$?([A-Z][A-Z0-9_]+)[`=]", text))
    variables = {
        declaration.name for settings in EVERY for _, declaration in variables_of(settings).values()
    }
    assert sorted(variables - named) == []


# The settings tables: a variable named in the first cell, its default in another; a
# row for two variables writes `A` / `B` in both.
_NAME = re.compile(r"`([A-Z][A-Z0-9_]+)`")
_LITERAL = re.compile(r"`([^`]+)`")


def _documented_defaults(path: str, column: int) -> list[tuple[str, str]]:
    """(variable, default) of each table row whose default cell starts with literals,
    one per variable it names; words ("number of cores", "none") are left out."""
    rows: list[tuple[str, str]] = []
    for line in (ROOT / path).read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| `") or len(cells) <= column:
            continue
        names = _NAME.findall(cells[0])
        literals = [_LITERAL.match(part.strip()) for part in cells[column].split(" / ")]
        if len(literals) == len(names) and all(literals):
            rows += [(n, m.group(1)) for n, m in zip(names, literals, strict=True) if m]
    return rows


@pytest.mark.parametrize(("path", "column"), [("docs/api.md", 1), ("README.md", 2)])
def test_every_literal_default_in_the_settings_tables_is_the_services_own(
    path: str, column: int
) -> None:
    """A default written as a literal is what the gateway or the engine takes from an
    environment that sets nothing, the literal read with the service's own grammar (so
    `false` is off): a default changed in code and not in the docs fails here."""
    defaults = {
        declaration.name: (type(settings), field, getattr(settings, field))
        for settings in (Settings.from_env({}), EngineConfig.from_env({}))
        for field, (_, declaration) in variables_of(type(settings)).items()
    }
    rows = [(name, text) for name, text in _documented_defaults(path, column) if name in defaults]
    assert len(rows) >= 10, f"{path}: the settings table was not found"
    wrong = []
    for name, text in rows:
        settings, field, default = defaults[name]
        try:
            documented = getattr(read_settings(settings, {name: text}), field)
        except SettingsError as error:
            documented = f"unreadable: {error}"
        if documented != default:
            wrong.append(f"{name}: documented {text!r}, the default is {default!r}")
    assert not wrong, f"{path}: " + "; ".join(wrong)
