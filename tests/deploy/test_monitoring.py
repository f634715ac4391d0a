"""deploy/kubernetes/monitoring: the Prometheus Operator's resources, rendered offline
like the other manifests, of the shape the operator's API gives them
(tests/deploy/prometheus_operator.py), scraping what the production overlay serves
(Services and named ports that exist: the gateway, the engines, the Redis nodes'
exporters and PostgreSQL's), letting Prometheus through the NetworkPolicies to exactly
those ports, and alerting with exactly the rules of deploy/prometheus/alerts.yml and
kubernetes-alerts.yml (written from them by scripts/sync_alert_rules.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from jsonschema import Draft202012Validator

from tests.deploy.kustomize import Doc, find, pod_labels, pod_spec, render
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
        "NetworkPolicy",
        "PrometheusRule",
        *["ServiceMonitor"] * 4,
    ]
    for doc in monitoring:
        if doc["kind"] in SCHEMAS:
            validator = Draft202012Validator(SCHEMAS[doc["kind"]])
            errors = [e.message for e in validator.iter_errors(doc)]
            assert not errors, (doc["kind"], doc["metadata"]["name"], errors)
        else:
            kubernetes_validate.validate(doc, "1.30.0", strict=True)


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


def scraped_pods(monitoring: list[Doc], production: list[Doc]) -> dict[str, tuple[Doc, Doc]]:
    """By ServiceMonitor: the workload whose pods it scrapes, and the container that
    answers on the port it scrapes."""
    services = [doc for doc in production if doc["kind"] == "Service"]
    found = {}
    for monitor in (doc for doc in monitoring if doc["kind"] == "ServiceMonitor"):
        selector = monitor["spec"]["selector"]["matchLabels"]
        [service] = [s for s in services if selector.items() <= s["metadata"]["labels"].items()]
        [workload] = [
            w
            for w in production
            if pod_spec(w) is not None
            and service["spec"]["selector"].items() <= pod_labels(w).items()
        ]
        [endpoint] = monitor["spec"]["endpoints"]
        [port] = [p for p in service["spec"]["ports"] if p["name"] == endpoint["port"]]
        [container] = [
            c
            for c in pod_spec(workload)["containers"]  # type: ignore[index]
            if port["targetPort"] in {p["name"] for p in c.get("ports", [])}
        ]
        found[monitor["metadata"]["name"]] = (workload, container)
    return found


def test_the_service_monitors_scrape_the_services_and_the_exporters(
    monitoring: list[Doc], production: list[Doc]
) -> None:
    """Each selects one Service by its labels, through a port the Service names, which
    reaches a container port of the pods where the service serves /metrics; the job is
    the Service's name, as the alert rules expect."""
    services = [doc for doc in production if doc["kind"] == "Service"]
    scraped = set()
    containers = scraped_pods(monitoring, production)
    for monitor in (doc for doc in monitoring if doc["kind"] == "ServiceMonitor"):
        selector = monitor["spec"]["selector"]["matchLabels"]
        [service] = [s for s in services if selector.items() <= s["metadata"]["labels"].items()]
        assert "jobLabel" not in monitor["spec"]  # the job: the Service's name
        assert monitor["metadata"]["name"] == service["metadata"]["name"]
        scraped.add(service["metadata"]["name"])
        workload, container = containers[monitor["metadata"]["name"]]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        for endpoint in monitor["spec"]["endpoints"]:
            [port] = [p for p in service["spec"]["ports"] if p["name"] == endpoint["port"]]
            assert port["targetPort"] in ports
            assert endpoint["path"] == "/metrics"
            # the services' own: served on the port their variable names, not on the API's
            variable = {
                "patience-engine": "ENGINE_METRICS_PORT",
                "patience-gateway": "GATEWAY_METRICS_PORT",
            }.get(workload["metadata"]["name"])
            if variable is not None:
                env = {v["name"]: v.get("value") for v in container["env"]}
                assert env[variable] == str(ports[port["targetPort"]])
                assert port["targetPort"] == "metrics"
    # the jobs the alert rules name (deploy/prometheus/*alerts.yml)
    assert scraped == {
        "patience-gateway",
        "patience-engine",
        "patience-redis",
        "patience-postgres-exporter",
    }
    exporters = scraped_pods(monitoring, production)
    workload, container = exporters["patience-redis"]
    assert workload["kind"] == "StatefulSet"  # one exporter beside each node
    assert container["image"].startswith("oliver006/redis_exporter:")
    workload, container = exporters["patience-postgres-exporter"]
    assert workload["kind"] == "Deployment"
    assert container["image"].startswith("quay.io/prometheuscommunity/postgres-exporter:")


def test_prometheus_may_reach_what_it_scrapes_and_nothing_else(
    monitoring: list[Doc], production: list[Doc]
) -> None:
    """The base admits no one but the services' callers; the monitoring's NetworkPolicy
    admits Prometheus's pods, from their namespace, to the scraped pods on the scraped
    ports."""
    [policy] = [doc for doc in monitoring if doc["kind"] == "NetworkPolicy"]
    [rule] = policy["spec"]["ingress"]
    [peer] = rule["from"]
    assert set(peer) == {"namespaceSelector", "podSelector"}  # both: Prometheus's pods only
    [expression] = policy["spec"]["podSelector"]["matchExpressions"]
    assert (expression["key"], expression["operator"]) == ("app.kubernetes.io/name", "In")
    scraped = scraped_pods(monitoring, production)
    names = {pod_labels(workload)["app.kubernetes.io/name"] for workload, _ in scraped.values()}
    assert set(expression["values"]) == names
    ports = {p["port"] for p in rule["ports"]}
    monitors = {m["metadata"]["name"]: m for m in monitoring if m["kind"] == "ServiceMonitor"}
    wanted = set()
    for name, (_, container) in scraped.items():
        services = [s for s in production if s["kind"] == "Service"]
        [endpoint] = monitors[name]["spec"]["endpoints"]
        [service] = [s for s in services if s["metadata"]["name"] == name]
        [port] = [p for p in service["spec"]["ports"] if p["name"] == endpoint["port"]]
        wanted.add(port["targetPort"])
        assert port["targetPort"] in {p["name"] for p in container["ports"]}
    assert ports == wanted


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
