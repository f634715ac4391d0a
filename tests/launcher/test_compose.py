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
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    assert set(compose["services"]) == {"redis", "seal-key", "engine", "gateway"}
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


def test_the_seal_key_is_made_once_in_a_volume_every_engine_reads(
    services: dict[str, Any], compose: dict[str, Any]
) -> None:
    """One key per data store, none in the file: made by `patience key ensure` in a named
    volume the engines mount read-only, before any engine starts."""
    maker, engine = services["seal-key"], services["engine"]
    command = maker["command"]
    assert command[:3] == ["patience", "key", "ensure"]
    key_file = command[3]
    volume, folder = maker["volumes"][0].split(":")
    assert key_file.startswith(folder + "/") and volume in compose["volumes"]
    assert engine["environment"]["ENGINE_SEAL_KEY_FILE"] == key_file
    assert f"{volume}:{folder}:ro" in engine["volumes"]
    assert engine["depends_on"]["seal-key"] == {"condition": "service_completed_successfully"}
    assert "ENGINE_SEAL_KEY" not in engine["environment"]
    assert "patience" in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


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
