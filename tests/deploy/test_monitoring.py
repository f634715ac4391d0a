"""deploy/kubernetes/monitoring: the Prometheus Operator's resources, rendered offline
like the other manifests, of the shape the operator's API gives them
(tests/deploy/prometheus_operator.py), scraping what the production overlay serves
(Services and named ports that exist), and alerting with exactly the rules of
deploy/prometheus/alerts.yml (written from it by scripts/sync_alert_rules.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from tests.deploy.kustomize import Doc, find, pod_spec, render
from tests.deploy.prometheus_operator import SCHEMAS

ROOT = Path(__file__).resolve().parents[2]
MONITORING = ROOT / "deploy" / "kubernetes" / "monitoring"
PRODUCTION = ROOT / "deploy" / "kubernetes" / "overlays" / "production"


@pytest.fixture(scope="module")
def monitoring() -> list[Doc]:
    return render(MONITORING)


@pytest.fixture(scope="module")
def production() -> list[Doc]:
    return render(PRODUCTION)


def test_each_resource_has_the_operators_shape(monitoring: list[Doc]) -> None:
    assert sorted(doc["kind"] for doc in monitoring) == [
        "PrometheusRule",
        "ServiceMonitor",
        "ServiceMonitor",
    ]
    for doc in monitoring:
        errors = [e.message for e in Draft202012Validator(SCHEMAS[doc["kind"]]).iter_errors(doc)]
        assert not errors, (doc["kind"], doc["metadata"]["name"], errors)


def test_the_schemas_refuse_what_the_operator_would(monitoring: list[Doc]) -> None:
    """The schemas are closed: a field the operator does not have fails."""
    monitor = next(doc for doc in monitoring if doc["kind"] == "ServiceMonitor")
    wrong = {**monitor, "spec": {**monitor["spec"], "endpoint": monitor["spec"]["endpoints"]}}
    assert not Draft202012Validator(SCHEMAS["ServiceMonitor"]).is_valid(wrong)


def test_they_live_beside_the_production_overlay(
    monitoring: list[Doc], production: list[Doc]
) -> None:
    namespace = find(production, "Deployment", "patience-gateway")["metadata"]["namespace"]
    assert {doc["metadata"]["namespace"] for doc in monitoring} == {namespace}


def test_the_service_monitors_scrape_the_gateway_and_every_engine(
    monitoring: list[Doc], production: list[Doc]
) -> None:
    """Each selects one Service by its labels, through a port the Service names, which
    reaches a container port of the pods where the service serves /metrics; the job is
    the Service's name, as the alert rules expect."""
    services = [doc for doc in production if doc["kind"] == "Service"]
    scraped = set()
    for monitor in (doc for doc in monitoring if doc["kind"] == "ServiceMonitor"):
        selector = monitor["spec"]["selector"]["matchLabels"]
        [service] = [s for s in services if selector.items() <= s["metadata"]["labels"].items()]
        assert "jobLabel" not in monitor["spec"]  # the job: the Service's name
        scraped.add(service["metadata"]["name"])
        [workload] = [
            w
            for w in production
            if pod_spec(w) is not None
            and service["spec"]["selector"].items()
            <= w["spec"]["template"]["metadata"]["labels"].items()
        ]
        [container] = pod_spec(workload)["containers"]  # type: ignore[index]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        for endpoint in monitor["spec"]["endpoints"]:
            [port] = [p for p in service["spec"]["ports"] if p["name"] == endpoint["port"]]
            assert port["targetPort"] in ports
            assert endpoint["path"] == "/metrics"
            if workload["metadata"]["name"] == "patience-engine":
                env = {v["name"]: v.get("value") for v in container["env"]}
                assert env["ENGINE_METRICS_PORT"] == str(ports[port["targetPort"]])
    assert scraped == {"patience-gateway", "patience-engine"}


def test_the_prometheus_rule_holds_the_alert_rules(monitoring: list[Doc]) -> None:
    [rule] = [doc for doc in monitoring if doc["kind"] == "PrometheusRule"]
    groups = [
        group
        for name in ("alerts.yml", "kubernetes-alerts.yml")
        for group in yaml.safe_load((ROOT / "deploy" / "prometheus" / name).read_text())["groups"]
    ]
    assert rule["spec"]["groups"] == groups
    checked = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "sync_alert_rules.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout
