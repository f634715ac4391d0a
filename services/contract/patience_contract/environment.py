"""pydantic-settings under `patience_contract.settings`: the declared fields of a settings
dataclass as a pydantic-settings model, read from the environment (or a mapping given in
its place), and pydantic's refusals as one message that names each variable."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Protocol

from pydantic import BeforeValidator, Field, ValidationError, create_model
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, SettingsConfigDict


class Variable(Protocol):
    """A field's declaration (patience_contract.settings.Variable, which imports this
    module on its first read)."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def ge(self) -> int | None: ...
    @property
    def le(self) -> int | None: ...
    @property
    def parse(self) -> Callable[[str], Any] | None: ...


class Variables(BaseSettings):
    """The declared fields of one settings class, each None until its variable is read."""

    model_config = SettingsConfigDict(
        case_sensitive=True,
        extra="ignore",
        frozen=True,
        validate_by_name=True,
        validate_default=False,
    )


class _GivenEnvironment(EnvSettingsSource):
    """pydantic-settings' environment source over the variables given (blank ones
    already left out), instead of this process's own environment."""

    def __init__(self, settings_cls: type[BaseSettings], variables: Mapping[str, str]) -> None:
        super().__init__(settings_cls)
        self.env_vars = dict(variables)


def _text_parsed(declaration: Variable) -> BeforeValidator:
    parse = declaration.parse
    assert parse is not None
    return BeforeValidator(lambda value: parse(value) if isinstance(value, str) else value)


def _field(kind: Any, declaration: Variable) -> Any:
    info = Field(
        validation_alias=declaration.name,
        description=declaration.description,
        ge=declaration.ge,
        le=declaration.le,
    )
    if declaration.parse is None:
        return Annotated[kind, info]
    # NoDecode: the text goes to `parse` as it is, not decoded as JSON first.
    return Annotated[kind, info, NoDecode, _text_parsed(declaration)]


def model_of(name: str, fields: Mapping[str, tuple[Any, Variable]]) -> type[Variables]:
    """A model of the declared `fields` (name: their type and declaration)."""
    model_fields: dict[str, Any] = {
        field: (_field(kind, declaration), None) for field, (kind, declaration) in fields.items()
    }
    return create_model(name, __base__=Variables, **model_fields)


def validated(model: type[Variables], variables: Mapping[str, str]) -> dict[str, Any]:
    """The fields of `model` that `variables` set, each validated; ValueError (naming
    each variable) for values that cannot be used."""
    try:
        # pydantic-settings' own way to read from sources made by the caller
        read = model(_build_sources=((_GivenEnvironment(model, variables),), {}))  # type: ignore[call-arg]
    except ValidationError as error:
        raise ValueError(described(error)) from None
    return {name: getattr(read, name) for name in read.model_fields_set}


def check(model: type[Variables], values: Mapping[str, Any]) -> None:
    """ValueError (naming each field) unless `values`, by field name, fit `model`."""
    try:
        model.model_validate(values)
    except ValidationError as error:
        raise ValueError(described(error)) from None


# What each of pydantic's refusals says, after the variable's name.
_PHRASES = {
    "bool_parsing": "must be on or off",
    "bool_type": "must be on or off",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "int_type": "must be a whole number",
    "float_parsing": "must be a number",
    "float_type": "must be a number",
    "greater_than_equal": "must be at least {ge}",
    "less_than_equal": "must be at most {le}",
}


def described(error: ValidationError) -> str:
    """One line per refused value: `NAME must be at least 1, not '0'`, or, for a value
    its own parser refused, `NAME: why`."""
    lines = []
    for problem in error.errors(include_url=False):
        name = ".".join(str(part) for part in problem["loc"])
        context = problem.get("ctx", {})
        if problem["type"] == "value_error":
            lines.append(f"{name}: {context['error']}")
            continue
        phrase = _PHRASES.get(problem["type"])
        what = phrase.format(**context) if phrase else problem["msg"].lower()
        lines.append(f"{name} {what}, not {problem['input']!r}")
    return "; ".join(lines)
