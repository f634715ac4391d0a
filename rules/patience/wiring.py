"""How the layers meet: the lower layers' hooks, filled with the upper layers' functions.

A lower layer offers what a higher one carries out: ``variant.ruleset()`` and
``variant.new_game()`` (declarations) are the compiled layer's work; ``State.from_parts``
and ``from_trusted_parts`` are validation's, ``str(state)`` the notation's, and
unpickling a state reads its notation back through the registry. Each lower module
declares a hook and imports nothing above it; ``patience/__init__`` calls
:func:`connect_layers` once every module is loaded, before any of it can be used.
"""

from __future__ import annotations

from . import compiled, notation, registry, state, validation, variant


def connect_layers() -> None:
    variant.provide_compiler(compiled.ruleset, compiled.new_game)
    state.provide_services(
        validated=validation.validated_state,
        trusted=validation.trusted_state,
        format_state=notation.format_state,
        parse_state=registry.parse_state,
    )
