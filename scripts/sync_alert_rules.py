"""Writes deploy/kubernetes/monitoring/prometheusrule.yaml from deploy/prometheus/alerts.yml
and kubernetes-alerts.yml: the same groups, for the Prometheus Operator (Compose's
Prometheus loads alerts.yml alone: it runs no exporter and no backup). `--check` only says
whether the file is up to date (tests/deploy runs it so).

    .venv/bin/python scripts/sync_alert_rules.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
PROMETHEUS = ROOT / "deploy" / "prometheus"
RULES = (PROMETHEUS / "alerts.yml", PROMETHEUS / "kubernetes-alerts.yml")
TARGET = ROOT / "deploy" / "kubernetes" / "monitoring" / "prometheusrule.yaml"
HEADER = """\
# Written by scripts/sync_alert_rules.py from deploy/prometheus/alerts.yml and
# kubernetes-alerts.yml: edit those files (and their unit tests, *_test.yml), then run the
# script. What each alert means and what to do: docs/runbooks.md.
"""


class _Dumper(yaml.SafeDumper):
    """Expressions of several lines as literal blocks, as they are written in alerts.yml."""


def _text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    return dumper.represent_scalar(
        "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None
    )


_Dumper.add_representer(str, _text)


def rendered() -> str:
    groups = [group for rules in RULES for group in yaml.safe_load(rules.read_text())["groups"]]
    manifest = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": "patience"},
        "spec": {"groups": groups},
    }
    return HEADER + yaml.dump(manifest, Dumper=_Dumper, sort_keys=False, width=100)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that it is up to date")
    args = parser.parse_args()
    text = rendered()
    if args.check:
        if not TARGET.is_file() or TARGET.read_text() != text:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run scripts/sync_alert_rules.py")
            return 1
        return 0
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
