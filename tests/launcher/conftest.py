"""Fixtures of the launcher's tests."""

from __future__ import annotations

import pytest
from patience_launcher.addresses import free_port


@pytest.fixture
def ports() -> tuple[int, int]:
    """Two different free ports: REST and gRPC."""
    http_port = free_port()
    grpc_port = free_port()
    while grpc_port == http_port:
        grpc_port = free_port()
    return http_port, grpc_port
