"""Writes deploy/kubernetes/monitoring/prometheusrule.yaml from deploy/prometheus/alerts.yml:
the same alert groups, for the Prometheus Operator. `--check` only says whether the file
is up to date (tests/deploy runs it so).

    .venv/bin/python scripts/sync_alert_rules.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "deploy" / "prometheus" / "alerts.yml"
TARGET = ROOT / "deploy" / "kubernetes" / "monitoring" / "prometheusrule.yaml"
HEADER = """\
# Written by scripts/sync_alert_rules.py from deploy/prometheus/alerts.yml: edit that file
# (and its unit tests, alerts_test.yml), then run the script. What each alert means:
# docs/operations.md, "Observing it".
"""


class _Dumper(yaml.SafeDumper):
    """Expressions of several lines as literal blocks, as they are written in alerts.yml."""


def _text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    return dumper.represent_scalar(
        "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None
    )


_Dumper.add_representer(str, _text)


def rendered() -> str:
    groups = yaml.safe_load(RULES.read_text())["groups"]
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
