"""The gateway's documented bodies, for tests to check answers against: `models.X`
validates a body as the OpenAPI document describes it (extra keys refused) and gives
its fields as attributes.

The answers' shapes are TypedDicts (`games.shapes`, `http.shapes`, `problems`); the
requests' are pydantic models (`games.requests`), given as they are.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from patience_gateway import problems
from patience_gateway.games import requests, shapes
from patience_gateway.http import shapes as operation_shapes
from pydantic import BaseModel, TypeAdapter


class Body(SimpleNamespace):
    """A validated object: its members as attributes, and as a dict again."""

    def model_dump(self) -> dict[str, Any]:
        return {key: _plain(item) for key, item in vars(self).items()}


def _attributes(value: Any) -> Any:
    if isinstance(value, dict):
        return Body(**{key: _attributes(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_attributes(item) for item in value]
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, Body):
        return value.model_dump()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


class DocumentedBody:
    """One body's validator."""

    def __init__(self, shape: Any) -> None:
        self._adapter: TypeAdapter[Any] = TypeAdapter(shape)

    def model_validate(self, data: Any) -> Any:
        return _attributes(self._adapter.validate_python(data))


class DocumentedModels:
    """Every documented body by its schema's name."""

    def __getattr__(self, name: str) -> Any:
        request = getattr(requests, name, None)
        if isinstance(request, type) and issubclass(request, BaseModel):
            return request
        for module in (shapes, operation_shapes, problems):
            shape = getattr(module, name, None)
            if shape is not None:
                return DocumentedBody(shape)
        raise AttributeError(name)


models = DocumentedModels()
