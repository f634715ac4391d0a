"""The services the examples play against: the gateway tests' real engine (sealing states,
as deployed) on a free loopback port."""

from __future__ import annotations

from tests.gateway.conftest import engine

__all__ = ["engine"]
