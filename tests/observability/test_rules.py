"""The alert rules, the scrape configuration and the dashboard of deploy/, checked with
Prometheus's own promtool: the rules are valid (`check rules`) and pass their unit tests
(`test rules`, deploy/prometheus/*_test.yml), every alert the operators are promised
exists, is tested firing and not firing, and says what it means and where its runbook
is (docs/runbooks.md), the Compose scrape configuration is valid (`check config`), and
every query of the Grafana dashboard is valid PromQL about series the services and the
exporters publish, for the jobs and instances its variables choose."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.observability.conftest import PROMETHEUS_FOLDER, ROOT

# alerts.yml: for every deployment; kubernetes-alerts.yml: the exporters and the backup of
# deploy/kubernetes (Compose loads the first alone)
RULE_FILES = (PROMETHEUS_FOLDER / "alerts.yml", PROMETHEUS_FOLDER / "kubernetes-alerts.yml")
RULE_TESTS = ("alerts_test.yml", "kubernetes-alerts_test.yml")
DASHBOARD = ROOT / "deploy" / "grafana" / "patience-engine.json"
RUNBOOKS = ROOT / "docs" / "runbooks.md"
RUNBOOKS_URL = "https://github.com/patience-engine/patience-engine/blob/main/docs/runbooks.md"
# what docs/operations.md, "Alerts", promises an alert for
PROMISED = {
    "PatienceGatewayErrors",  # the 5xx rate
    "PatienceMovesSlow",  # moves' p99 above 50 ms
    "PatienceGatewayDown",
    "PatienceEngineDown",
    "PatienceScrapeJobMissing",  # a job with no target left
    "PatienceEngineRestarting",  # an engine that keeps failing
    "PatienceSearchProcessesFailing",  # a search process that keeps failing
    "PatienceRedisDown",
    "PatiencePostgresDown",
    "PatienceSearchQueueFull",
    "PatienceOutboxLagging",
    "PatienceRecordsLate",  # records reaching PostgreSQL minutes after the game's end
    "PatienceStatesKeyUnknown",
    "PatienceFileDescriptorsRunningOut",
    # the SLOs' error budgets, paging and ticket
    "PatienceAvailabilityBudgetBurnFast",
    "PatienceAvailabilityBudgetBurnSlow",
    "PatienceMovesLatencyBudgetBurnFast",
    "PatienceMovesLatencyBudgetBurnSlow",
    # the exporters' jobs and the backup
    "PatienceRedisNodeDown",
    "PatiencePostgresExporterDown",
    "PatienceExporterMissing",
    "PatiencePostgresBackupMissing",
}
# the scrape jobs: each has an `up == 0` alert and is watched for vanishing altogether
SCRAPE_JOBS = (
    "patience-gateway",
    "patience-engine",
    "patience-redis",
    "patience-postgres-exporter",
)


def run(*args: str, cwd: Path = PROMETHEUS_FOLDER) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd)


def rules() -> list[dict[str, Any]]:
    return [
        rule
        for path in RULE_FILES
        for group in yaml.safe_load(path.read_text())["groups"]
        for rule in group["rules"]
    ]


def alerts() -> list[dict[str, Any]]:
    return [rule for rule in rules() if "alert" in rule]


def test_the_alert_rules_are_valid(promtool: str) -> None:
    checked = run(promtool, "check", "rules", *map(str, RULE_FILES))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_alert_rules_pass_their_unit_tests(promtool: str) -> None:
    tested = run(promtool, "test", "rules", *RULE_TESTS)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_promised_alert_exists_and_is_tested_firing_and_silent() -> None:
    names = [rule["alert"] for rule in alerts()]
    assert len(names) == len(set(names)), names
    assert set(names) == PROMISED
    cases = [
        case
        for tests in RULE_TESTS
        for test in yaml.safe_load((PROMETHEUS_FOLDER / tests).read_text())["tests"]
        for case in test.get("alert_rule_test", [])
    ]
    fired = {case["alertname"] for case in cases if case.get("exp_alerts")}
    silent = {case["alertname"] for case in cases if not case.get("exp_alerts")}
    assert fired == set(names), set(names) ^ fired
    assert silent == set(names), set(names) ^ silent


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_alert_says_what_it_means_and_links_its_runbook() -> None:
    anchors = {
        github_anchor(line.lstrip("#"))
        for line in RUNBOOKS.read_text().splitlines()
        if line.startswith("## ")
    }
    for rule in alerts():
        name = rule["alert"]
        assert rule["labels"]["severity"] in ("critical", "warning"), name
        annotations = rule["annotations"]
        assert set(annotations) == {"summary", "description", "runbook_url"}, name
        assert annotations["summary"] and len(annotations["description"]) > 40, name
        page, _, anchor = annotations["runbook_url"].partition("#")
        assert page == RUNBOOKS_URL, name
        assert anchor == name.lower() and anchor in anchors, name


def test_every_scrape_job_is_watched_for_failing_and_for_vanishing() -> None:
    exprs = " ".join(rule["expr"] for rule in alerts())
    for job in SCRAPE_JOBS:
        assert f'up{{job="{job}"}} == 0' in exprs, job
        assert f'absent(up{{job="{job}"}})' in exprs, job


PROBES_AND_SCRAPES = 'route!~"/livez|/readyz|/metrics|unmatched"'


def test_probes_and_scrapes_are_left_out_of_every_ratio_of_answers() -> None:
    """Every selection of the requests counter (5xx and all) leaves them out: a failing
    readiness probe, answered every few seconds, is no error of the API."""
    for rule in rules():
        for selector in re.findall(r"patience_gateway_requests_total\{([^}]*)\}", rule["expr"]):
            assert PROBES_AND_SCRAPES in selector, rule.get("alert", rule.get("record"))


def test_the_burn_rate_alerts_follow_the_multi_window_pattern() -> None:
    """Each burn-rate alert pairs a long window with a short one at the same factor:
    14.4 (1h, 5m) and 6 (6h, 30m) page; 3 (1d, 2h) and 1 (3d, 6h) open tickets."""
    pairs = {
        "critical": [("1h", "5m", "14.4"), ("6h", "30m", "6")],
        "warning": [("1d", "2h", "3"), ("3d", "6h", "1")],
    }
    budgets = {"availability": "0.001", "moves-latency": "0.01"}
    recorded = {rule["record"] for rule in rules() if "record" in rule}
    burning = [rule for rule in alerts() if "slo" in rule["labels"]]
    assert len(burning) == 4
    for rule in burning:
        budget = budgets[rule["labels"]["slo"]]
        expr = re.sub(r"\s+", " ", rule["expr"])
        for long, short, factor in pairs[rule["labels"]["severity"]]:
            threshold = budget if factor == "1" else f"({factor} * {budget})"
            found = re.search(
                rf"(\S+):ratio_rate{long} > {re.escape(threshold)} and "
                rf"\1:ratio_rate{short} > {re.escape(threshold)}",
                expr,
            )
            assert found, (rule["alert"], long, short)
            assert {f"{found.group(1)}:ratio_rate{w}" for w in (long, short)} <= recorded


def test_the_compose_scrape_configuration_is_valid(promtool: str) -> None:
    checked = run(promtool, "check", "config", "prometheus.yml")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def dashboard() -> dict[str, Any]:
    board: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return board


def dashboard_queries() -> list[tuple[str, str]]:
    found = []
    for panel in dashboard()["panels"]:
        for target in panel.get("targets", []):
            found.append((panel["title"], target["expr"]))
    return found


# the series the services publish (docs/operations.md lists them; tests/observability
# sees each on a running service), the processes' own (process_*), Prometheus's, and the
# Redis and PostgreSQL exporters'
PUBLISHED = re.compile(r"(patience_gateway|patience_engine|process|redis|pg)_[a-z_]+|up")


def test_every_dashboard_query_is_valid_promql_about_published_series(
    promtool: str, tmp_path: Path
) -> None:
    """Each query becomes a recording rule (Grafana's $__rate_interval as 5m, the
    variables as the regular expressions they stand for), which promtool parses; the
    names it reads are the services' and the exporters' own."""
    queries = dashboard_queries()
    assert len(queries) >= 20
    rules = [
        {
            "record": f"dashboard:query_{index}",
            "expr": expr.replace("$__rate_interval", "5m")
            .replace("$job", "patience-.*")
            .replace("$instance", ".*"),
        }
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
        names -= labels | {"le", "job", "instance", "datname"}
        for name in names:
            base = re.sub(r"_(bucket|count|sum)$", "", name)
            assert PUBLISHED.fullmatch(base), (title, name)


def test_every_dashboard_query_follows_the_job_and_instance_variables() -> None:
    """Each series a panel selects is narrowed to the jobs and instances chosen at the
    top of the dashboard, so that one gateway, one engine pod or one Redis node can be
    looked at alone, and renamed jobs chosen."""
    variables = {v["name"]: v for v in dashboard()["templating"]["list"]}
    assert {"datasource", "job", "instance"} <= set(variables)
    for name in ("job", "instance"):
        assert variables[name]["type"] == "query"
        assert variables[name]["multi"] and variables[name]["includeAll"], name
    assert "$job" in variables["instance"]["query"]["query"]  # the instances of those jobs
    for title, expr in dashboard_queries():
        for selector in re.findall(r"\b[a-z_]+\{([^}]*)\}", expr):
            assert 'job=~"$job"' in selector and 'instance=~"$instance"' in selector, (
                title,
                expr,
            )
        # and no series is selected without a selector
        bare = re.sub(r'"[^"]*"', "", expr)
        for name in re.finditer(r"\b[a-z_]+\b", bare):
            if PUBLISHED.fullmatch(re.sub(r"_(bucket|count|sum)$", "", name.group())):
                assert bare[name.end() : name.end() + 1] == "{", (title, name.group())


def test_the_dashboard_covers_routes_rpcs_searches_pools_the_outbox_and_resources() -> None:
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
        # the processes: CPU, memory, files
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_open_fds",
        "process_max_fds",
    ):
        assert needle in text, needle
