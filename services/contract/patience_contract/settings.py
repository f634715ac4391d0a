"""How every service reads its settings from environment variables, the one way.

A service's settings are a frozen dataclass. A field read from the environment says so in
its annotation, beside its type and default: the variable's name, what it sets, and the
bounds of its value,

    game_ttl_seconds: Annotated[int, variable("GAME_TTL_SECONDS", "...", ge=1)] = 604800

and `read_settings` reads every such field of a class with pydantic-settings
(`patience_contract.environment`); the other fields are set in code only. A variable
that two services read is declared once, here (PATIENCE_SPEED_PATHS, LOG_LEVEL), or by
the service that owns it, whose declaration the launcher reads it with (`declared`).

The same grammar for every variable of every service:

- empty, or only spaces: unset, and the field keeps its default;
- a whole number: digits (a sign allowed), within the declared bounds;
- on or off: `on`, `true`, `yes`, `1` (also `t`, `y`) or `off`, `false`, `no`, `0`
  (`f`, `n`), in any case (pydantic's words for a boolean);
- a list: comma-separated, blank entries skipped.

Any other value stops the service at start with SettingsError, which names the variable
and says what is wrong.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from patience_contract.environment import Variables

__all__ = [
    "LOG_LEVEL",
    "SPEED_PATHS",
    "SettingsError",
    "Variable",
    "check_settings",
    "comma_list",
    "declared",
    "is_set",
    "read_settings",
    "variable",
]

SettingsT = TypeVar("SettingsT")


class SettingsError(ValueError):
    """A setting holds a value the service cannot use; the message names it."""


@dataclasses.dataclass(frozen=True, slots=True)
class Variable:
    """Where a settings field comes from: the environment variable `name`, what it sets,
    the bounds of a number (`ge`, `le`), and `parse`, which turns the variable's text
    into the field's value where that is not one of pydantic's types (a list)."""

    name: str
    description: str
    ge: int | None = None
    le: int | None = None
    parse: Callable[[str], Any] | None = None


def variable(
    name: str,
    description: str,
    *,
    ge: int | None = None,
    le: int | None = None,
    parse: Callable[[str], Any] | None = None,
) -> Variable:
    """The declaration of a field read from the variable `name` (see the module's doc)."""
    return Variable(name, description, ge, le, parse)


def comma_list(text: str) -> tuple[str, ...]:
    """The entries of a comma-separated list, each stripped, blank ones skipped."""
    return tuple(entry.strip() for entry in text.split(",") if entry.strip())


SPEED_PATHS = variable(
    "PATIENCE_SPEED_PATHS",
    "on: the hand-written speed paths; off: the reference code they must equal, for a "
    "diagnosis (docs/operations.md, Speed paths)",
)
LOG_LEVEL = variable(
    "LOG_LEVEL",
    "the level logged from (debug, info, warning, error; patience_contract.logs)",
    parse=str.lower,
)


@functools.cache
def variables_of(settings_cls: type) -> dict[str, tuple[Any, Variable]]:
    """The fields of a settings dataclass read from the environment: for each, its type
    (the annotation less the declaration) and its declaration."""
    hints = typing.get_type_hints(settings_cls, include_extras=True)
    found: dict[str, tuple[Any, Variable]] = {}
    for field in dataclasses.fields(settings_cls):
        hint = hints[field.name]
        declarations = [d for d in getattr(hint, "__metadata__", ()) if isinstance(d, Variable)]
        if declarations:
            found[field.name] = (hint.__origin__, declarations[0])
    return found


def declared(settings_cls: type, field: str) -> Variable:
    """The declaration of `settings_cls`'s `field`: to read the same variable elsewhere
    with the same grammar (the launcher reads a few of the services' variables)."""
    return variables_of(settings_cls)[field][1]


def _blank_dropped(environ: Mapping[str, str] | None) -> dict[str, str]:
    given = os.environ if environ is None else environ
    return {name: value.strip() for name, value in given.items() if value.strip()}


def is_set(settings_cls: type, field: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the variable of `settings_cls`'s `field` holds a value (is not unset or
    blank) in `environ` (default: this process's environment)."""
    return declared(settings_cls, field).name in _blank_dropped(environ)


def read_settings(
    settings_cls: type[SettingsT], environ: Mapping[str, str] | None = None, **defaults: Any
) -> SettingsT:
    """`settings_cls` (a dataclass) with each field its variable sets read from `environ`
    (default: this process's environment), and `defaults` in place of the class's own
    for the fields whose variable is unset. SettingsError names every variable whose
    value cannot be used."""
    from patience_contract import environment  # late, as in `_model_of`

    try:
        values = environment.validated(_model_of(settings_cls), _blank_dropped(environ))
    except ValueError as error:
        raise SettingsError(str(error)) from None
    return settings_cls(**{**defaults, **values})


def check_settings(settings: object) -> None:
    """Refuses (SettingsError, naming each field) settings made in code whose declared
    fields hold what their variables could not."""
    from patience_contract import environment  # late, as in `_model_of`

    model = _model_of(type(settings))
    try:
        environment.check(model, {name: getattr(settings, name) for name in model.model_fields})
    except ValueError as error:
        raise SettingsError(str(error)) from None


_models: dict[type, type[Variables]] = {}


def _model_of(settings_cls: type) -> type[Variables]:
    """The pydantic-settings model of a settings class's declared fields, made once. Its
    maker imports pydantic: the engine's search processes import the settings modules
    for their constants, and never read the environment."""
    from patience_contract import environment

    if settings_cls not in _models:
        name = f"{settings_cls.__name__}Variables"
        _models[settings_cls] = environment.model_of(name, variables_of(settings_cls))
    return _models[settings_cls]
