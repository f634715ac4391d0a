"""docker-compose.yml and docker/Dockerfile keep the promises the README makes about
them (no Docker engine is needed: the files are read, and the health-check commands
they run are run here)."""

from __future__ import annotations

import re
import subprocess
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
import yaml
from patience_launcher.addresses import free_port
from patience_launcher.healthcheck import main as healthcheck
from patience_launcher.postgres_server import EmbeddedPostgres, find_postgres_bin

from tests.distributions import declared_scripts

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    assert set(compose["services"]) == {
        "redis",
        "postgres",
        "seal-key",
        "player-token-key",
        "engine",
        "gateway",
        "prometheus",
    }
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
    # empty unless set: the gateway's default stays under GAME_TTL_SECONDS, as it must
    assert environment["ABANDON_AFTER_SECONDS"] == "${ABANDON_AFTER_SECONDS:-}"
    assert gateway["depends_on"] == {
        "redis": {"condition": "service_healthy"},
        "postgres": {"condition": "service_healthy"},
        "player-token-key": {"condition": "service_completed_successfully"},
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
    assert "patience" in declared_scripts()


def expand(value: str) -> str:
    """A Compose value with each ${NAME:-default} replaced by its default."""
    return re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", value)


def test_postgres_persists_and_the_gateway_reaches_its_database(
    services: dict[str, Any], compose: dict[str, Any]
) -> None:
    postgres = services["postgres"]
    assert postgres["image"].startswith("postgres:16")
    volume, folder = postgres["volumes"][0].split(":")
    assert folder == "/var/lib/postgresql/data" and volume in compose["volumes"]
    environment = postgres["environment"]
    # a password the operator sets, with a default for trying it out only
    assert re.fullmatch(r"\$\{POSTGRES_PASSWORD:-[\w-]+\}", environment["POSTGRES_PASSWORD"])
    url = urllib.parse.urlsplit(expand(services["gateway"]["environment"]["DATABASE_URL"]))
    assert url.scheme == "postgresql" and (url.hostname, url.port) == ("postgres", 5432)
    assert url.username == environment["POSTGRES_USER"]
    assert url.password == expand(environment["POSTGRES_PASSWORD"])
    assert url.path == "/" + environment["POSTGRES_DB"]


def pg_isready() -> Path:
    """The pg_isready beside the postgres that the tests run."""
    folder = Path(find_postgres_bin())
    beside = folder / "pg_isready"
    return beside if beside.exists() else (folder / "postgres").resolve().parent / "pg_isready"


def test_postgres_health_check_asks_the_server_over_tcp(
    services: dict[str, Any], postgres_server: EmbeddedPostgres
) -> None:
    """pg_isready over TCP: the temporary server the image runs while it sets the
    database up listens on the Unix socket only. Run here against the suite's server
    (on its port) and against a closed port."""
    command = services["postgres"]["healthcheck"]["test"]
    assert command[:2] == ["CMD", "pg_isready"]
    args = command[2:]
    assert args[args.index("--host") + 1] == "127.0.0.1"
    user = services["postgres"]["environment"]["POSTGRES_USER"]
    assert args[args.index("--username") + 1] == user
    here = [str(pg_isready()), *args, "--timeout", "5"]
    answered = subprocess.run([*here, "--port", str(postgres_server.port)], capture_output=True)
    assert answered.returncode == 0, answered
    closed = subprocess.run([*here, "--port", str(free_port())], capture_output=True)
    assert closed.returncode == 2, closed  # "no response": unhealthy


@pytest.mark.parametrize("name", ["engine", "gateway"])
def test_health_checks_are_commands_this_project_runs(services: dict[str, Any], name: str) -> None:
    command = services[name]["healthcheck"]["test"]
    assert command[:4] == ["CMD", "python", "-m", "patience_launcher.healthcheck"]
    kind, target = command[4:]
    closed = free_port()
    # Same command against a closed port: a clean "unhealthy" (1), not a usage error (2).
    moved = re.sub(r":\d+", f":{closed}", target)
    assert healthcheck([kind, moved, "--timeout", "0.5"]) == 1


def test_the_player_token_key_is_made_once_in_a_volume_every_gateway_reads(
    services: dict[str, Any], compose: dict[str, Any]
) -> None:
    """Made by `patience key ensure --player` in a named volume the gateways mount
    read-only, before any gateway starts; the engines never see it."""
    maker, gateway = services["player-token-key"], services["gateway"]
    command = maker["command"]
    assert command[:4] == ["patience", "key", "ensure", "--player"]
    key_file = command[4]
    volume, folder = maker["volumes"][0].split(":")
    assert key_file.startswith(folder + "/") and volume in compose["volumes"]
    assert gateway["environment"]["PLAYER_TOKEN_KEY_FILE"] == key_file
    assert f"{volume}:{folder}:ro" in gateway["volumes"]
    assert gateway["depends_on"]["player-token-key"] == {
        "condition": "service_completed_successfully"
    }
    assert "PLAYER_TOKEN_KEYS" not in gateway["environment"]
    assert not any(mount.startswith(f"{volume}:") for mount in services["engine"]["volumes"])
    # the image makes the folder for the non-root user, so that a new volume is writable
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert re.search(rf"chown 10001:10001 .*{folder}\b", dockerfile)


@pytest.mark.parametrize("name", ["engine", "gateway"])
def test_each_service_runs_a_declared_entry_point(services: dict[str, Any], name: str) -> None:
    scripts = declared_scripts()
    assert services[name]["command"][0] in scripts
    assert services[name]["build"]["dockerfile"] == "docker/Dockerfile"


def test_the_image_runs_as_a_user_without_privileges() -> None:
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim\s*$", dockerfile, re.MULTILINE)
    users = re.findall(r"^USER\s+(\S+)", dockerfile, re.MULTILINE)
    assert users and users[-1].split(":")[0] not in ("root", "0")


def test_prometheus_scrapes_the_gateway_and_every_engine_with_the_alert_rules(
    services: dict[str, Any],
) -> None:
    """The mounted folder holds the configuration Prometheus is started with; it scrapes
    the gateway's port and every engine replica's metrics port (by the service's DNS
    name), and loads the alert rules beside it (tests/observability checks both with
    promtool)."""
    prometheus = services["prometheus"]
    [mount] = [v for v in prometheus["volumes"] if v.endswith(":/etc/prometheus:ro")]
    folder = ROOT / mount.split(":")[0]
    config_path = next(
        arg.split("=", 1)[1] for arg in prometheus["command"] if arg.startswith("--config.file=")
    )
    config = yaml.safe_load((folder / Path(config_path).relative_to("/etc/prometheus")).read_text())
    for rules in config["rule_files"]:
        assert (folder / rules).is_file(), rules
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    [gateway_target] = jobs["patience-gateway"]["static_configs"][0]["targets"]
    host, port = gateway_target.split(":")
    assert host == "gateway"
    assert services["gateway"]["environment"]["GATEWAY_PORT"] == port
    [engines] = jobs["patience-engine"]["dns_sd_configs"]
    assert engines["names"] == ["engine"] and engines["type"] == "A"
    engine = services["engine"]
    assert engine["environment"]["ENGINE_METRICS_PORT"] == str(engines["port"])
    assert str(engines["port"]) in engine["expose"]


@pytest.mark.parametrize("name", ["engine", "gateway"])
def test_tracing_is_off_unless_a_receiver_is_named(services: dict[str, Any], name: str) -> None:
    environment = services[name]["environment"]
    assert environment["OTEL_EXPORTER_OTLP_ENDPOINT"] == "${OTEL_EXPORTER_OTLP_ENDPOINT:-}"
