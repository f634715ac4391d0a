"""docker-compose.yml and docker/Dockerfile keep the promises the README makes about
them (no Docker engine is needed: the files are read, and the health-check commands
they run are run here)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from patience_launcher.addresses import free_port
from patience_launcher.healthcheck import main as healthcheck

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert set(compose["services"]) == {"redis", "engine", "gateway"}
    return dict(compose["services"])


def test_redis_persists_and_is_checked(services: dict[str, Any]) -> None:
    redis = services["redis"]
    assert redis["image"].startswith("redis:7")
    assert "--appendonly" in redis["command"]
    assert any(volume.endswith(":/data") for volume in redis["volumes"])
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


def test_engine_can_be_scaled(services: dict[str, Any]) -> None:
    engine = services["engine"]
    assert "container_name" not in engine
    assert "ports" not in engine  # a fixed host port would clash between replicas
    assert engine["environment"]["ENGINE_LISTEN"] == "0.0.0.0:50051"


def test_gateway_balances_over_every_engine_and_waits_for_health(
    services: dict[str, Any],
) -> None:
    gateway = services["gateway"]
    environment = gateway["environment"]
    assert environment["ENGINE_ADDR"] == "dns:///engine:50051"
    assert environment["REDIS_URL"] == "redis://redis:6379/0"
    assert environment["GATEWAY_HOST"] == "0.0.0.0"
    # as many processes as asked for, else the gateway's own default (the cores)
    assert environment["GATEWAY_WORKERS"] == "${GATEWAY_WORKERS:-}"
    assert gateway["depends_on"] == {
        "redis": {"condition": "service_healthy"},
        "engine": {"condition": "service_healthy"},
    }
    assert any(str(port).endswith(":8000") for port in gateway["ports"])


def test_the_seal_key_is_shared_and_comes_from_the_environment(services: dict[str, Any]) -> None:
    key = services["engine"]["environment"]["ENGINE_SEAL_KEY"]
    assert re.fullmatch(r"\$\{ENGINE_SEAL_KEY:-[^}]+\}", key)


@pytest.mark.parametrize("name", ["engine", "gateway"])
def test_health_checks_are_commands_this_project_runs(services: dict[str, Any], name: str) -> None:
    command = services[name]["healthcheck"]["test"]
    assert command[:4] == ["CMD", "python", "-m", "patience_launcher.healthcheck"]
    kind, target = command[4:]
    closed = free_port()
    # Same command against a closed port: a clean "unhealthy" (1), not a usage error (2).
    moved = re.sub(r":\d+", f":{closed}", target)
    assert healthcheck([kind, moved, "--timeout", "0.5"]) == 1


@pytest.mark.parametrize("name", ["engine", "gateway"])
def test_each_service_runs_a_declared_entry_point(services: dict[str, Any], name: str) -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert services[name]["command"][0] in scripts
    assert services[name]["build"]["dockerfile"] == "docker/Dockerfile"


def test_the_image_runs_as_a_user_without_privileges() -> None:
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim\s*$", dockerfile, re.MULTILINE)
    users = re.findall(r"^USER\s+(\S+)", dockerfile, re.MULTILINE)
    assert users and users[-1].split(":")[0] not in ("root", "0")
