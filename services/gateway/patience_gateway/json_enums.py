"""Enums of the JSON API, each written once.

A `JsonEnum` is the set of values a field takes. It gives the field its one named
schema in the OpenAPI document (a `$ref`), it is what pydantic validates the field
with, and for an enum of the engine it is read from the generated protobuf descriptor
and names each protobuf number (`by_number`, for the answers).

A field is typed `Annotated[str, <JsonEnum>]`: the code that builds a body writes the
plain strings that are sent, mypy checks the body's keys, and the document lists the
values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, TypeVar

from google.protobuf.descriptor import EnumDescriptor
from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema

Unspecified = TypeVar("Unspecified")


def _prefix(enum_name: str) -> str:
    """The prefix of an enum's value names in protobuf style: `GameStatus` ->
    `GAME_STATUS_`."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum_name).upper() + "_"


class JsonEnum:
    """A named enum of the JSON API (see the module's doc)."""

    def __init__(
        self,
        name: str,
        values: Iterable[str],
        doc: str | None = None,
        numbers: Mapping[str, int] | None = None,
    ) -> None:
        self.name = name
        self.values = tuple(values)
        self.numbers: Mapping[str, int] = numbers or {}
        # the schema pydantic writes: `enum`, `title` and the description
        self.enum = StrEnum(name, {value: value for value in self.values})  # type: ignore[misc]
        self.enum.__doc__ = doc

    @classmethod
    def from_proto(
        cls,
        descriptor: EnumDescriptor,
        doc: str | None = None,
        *,
        renamed: Mapping[str, str] | None = None,
    ) -> JsonEnum:
        """The JSON values of a protobuf enum: each value's name without the enum's
        prefix, in lower case (`GAME_STATUS_PLAYING`: `playing`), unless `renamed`
        names it otherwise. The unspecified value (0) is none of them: the engine
        always fills its enums in."""
        prefix = _prefix(descriptor.name)
        numbers: dict[str, int] = {}
        for value in descriptor.values:
            if value.number == 0:
                continue
            text = (renamed or {}).get(value.name) or value.name.removeprefix(prefix).lower()
            numbers[text] = value.number
        return cls(descriptor.name, numbers, doc, numbers)

    def by_number(self, unspecified: Unspecified) -> tuple[str | Unspecified, ...]:
        """The JSON value of each protobuf number, index 0 (unspecified) being
        `unspecified`: a table the answers index with the engine's numbers."""
        names: list[str | Unspecified] = [unspecified] * (max(self.numbers.values()) + 1)
        for text, number in self.numbers.items():
            names[number] = text
        return tuple(names)

    def number(self, text: str) -> int:
        """The protobuf number of a JSON value."""
        return self.numbers[text]

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return handler.generate_schema(self.enum)
