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
