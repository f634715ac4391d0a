"""The alert rules, the scrape configuration and the dashboard of deploy/, checked with
Prometheus's own promtool: the rules are valid (`check rules`) and pass their unit tests
(`test rules`, deploy/prometheus/alerts_test.yml), every alert the operators are
promised exists and is tested firing, the Compose scrape configuration is valid
(`check config`), and every query of the Grafana dashboard is valid PromQL about series
the services publish."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.observability.conftest import PROMETHEUS_FOLDER, ROOT

ALERTS = PROMETHEUS_FOLDER / "alerts.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "patience-engine.json"
# what docs/operations.md, "Observing it", promises an alert for
PROMISED = {
    "PatienceGatewayErrors",  # the 5xx rate
    "PatienceMovesSlow",  # moves' p99 above 50 ms
    "PatienceEngineDown",
    "PatienceEngineRestarting",  # an engine that keeps failing
    "PatienceSearchProcessesFailing",  # a search process that keeps failing
    "PatienceRedisDown",
    "PatiencePostgresDown",
    "PatienceSearchQueueFull",
    "PatienceOutboxLagging",
}


def run(*args: str, cwd: Path = PROMETHEUS_FOLDER) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd)


def alerts() -> list[dict[str, Any]]:
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"] if "alert" in rule]


def test_the_alert_rules_are_valid(promtool: str) -> None:
    checked = run(promtool, "check", "rules", str(ALERTS))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_alert_rules_pass_their_unit_tests(promtool: str) -> None:
    tested = run(promtool, "test", "rules", "alerts_test.yml")
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_promised_alert_exists_and_is_tested_firing() -> None:
    names = {rule["alert"] for rule in alerts()}
    assert names >= PROMISED
    tests = yaml.safe_load((PROMETHEUS_FOLDER / "alerts_test.yml").read_text())["tests"]
    fired = {
        case["alertname"]
        for test in tests
        for case in test.get("alert_rule_test", [])
        if case.get("exp_alerts")
    }
    assert fired == names, names - fired
    for rule in alerts():
        assert rule["labels"]["severity"] in ("critical", "warning"), rule["alert"]
        assert rule["annotations"]["summary"], rule["alert"]


def test_the_compose_scrape_configuration_is_valid(promtool: str) -> None:
    checked = run(promtool, "check", "config", "prometheus.yml")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def dashboard_queries() -> list[tuple[str, str]]:
    board = json.loads(DASHBOARD.read_text())
    found = []
    for panel in board["panels"]:
        for target in panel.get("targets", []):
            found.append((panel["title"], target["expr"]))
    return found


# the series the services publish (docs/operations.md lists them; tests/observability
# sees each on a running service), and Prometheus's own
PUBLISHED = re.compile(r"(patience_gateway|patience_engine)_[a-z_]+|process_start_time_seconds|up")


def test_every_dashboard_query_is_valid_promql_about_published_series(
    promtool: str, tmp_path: Path
) -> None:
    """Each query becomes a recording rule (Grafana's $__rate_interval as 5m), which
    promtool parses; the names it reads are the services' own."""
    queries = dashboard_queries()
    assert len(queries) >= 15
    rules = [
        {"record": f"dashboard:query_{index}", "expr": expr.replace("$__rate_interval", "5m")}
        for index, (_, expr) in enumerate(queries)
    ]
    (tmp_path / "dashboard.yml").write_text(
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]})
    )
    checked = run(promtool, "check", "rules", str(tmp_path / "dashboard.yml"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    functions = {"sum", "rate", "histogram_quantile", "min", "max", "increase", "changes", "by"}
    for title, expr in queries:
        without_labels = re.sub(r"\{[^}]*\}", "", re.sub(r'"[^"]*"', "", expr))
        names = set(re.findall(r"[a-z_]+(?=[\[({ ]|\)|$)", without_labels)) - functions
        labels = {"route", "method", "code", "reason", "kind", "variant", "source", "state"}
        names -= labels | {"le", "job"}
        for name in names:
            base = re.sub(r"_(bucket|count|sum)$", "", name)
            assert PUBLISHED.fullmatch(base), (title, name)


def test_the_dashboard_covers_routes_rpcs_searches_pools_and_the_outbox() -> None:
    text = " ".join(expr for _, expr in dashboard_queries())
    for needle in (
        "patience_gateway_requests_total",
        "patience_gateway_request_duration_seconds_bucket",
        "patience_engine_rpc_duration_seconds_count",
        "patience_engine_rpc_duration_seconds_bucket",
        "patience_engine_search_queue_length",
        "patience_engine_search_wait_seconds_bucket",
        "patience_gateway_winnable_pool_deals",
        "patience_gateway_winnable_deals_added_total",
        "patience_gateway_outbox_oldest_age_seconds",
    ):
        assert needle in text, needle
