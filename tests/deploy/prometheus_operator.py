"""The shapes of the Prometheus Operator's resources that deploy/kubernetes/monitoring
uses (monitoring.coreos.com/v1), as JSON Schemas: the field names and types of the
operator's API reference for ServiceMonitor and PrometheusRule, closed to unknown
fields, so that a misspelt or misplaced field fails here as it would fail (or, worse,
be dropped) on a cluster. Only the fields the project may use are listed."""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

DURATION = {"type": "string", "pattern": r"^(0|(([0-9]+)(ms|s|m|h|d|w|y))+)$"}
LABELS = {"type": "object", "additionalProperties": {"type": "string"}}
METADATA: Schema = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
        "namespace": {"type": "string"},
        "labels": LABELS,
        "annotations": LABELS,
    },
    "additionalProperties": False,
}
LABEL_SELECTOR: Schema = {
    "type": "object",
    "properties": {
        "matchLabels": LABELS,
        "matchExpressions": {"type": "array", "items": {"type": "object"}},
    },
    "additionalProperties": False,
}
ENDPOINT: Schema = {
    "type": "object",
    "properties": {
        "port": {"type": "string"},
        "targetPort": {"type": ["string", "integer"]},
        "path": {"type": "string", "pattern": "^/"},
        "scheme": {"enum": ["http", "https"]},
        "interval": DURATION,
        "scrapeTimeout": DURATION,
        "honorLabels": {"type": "boolean"},
        "relabelings": {"type": "array", "items": {"type": "object"}},
        "metricRelabelings": {"type": "array", "items": {"type": "object"}},
    },
    "additionalProperties": False,
}
SERVICE_MONITOR: Schema = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "ServiceMonitor"},
        "metadata": METADATA,
        "spec": {
            "type": "object",
            "required": ["selector", "endpoints"],
            "properties": {
                "selector": LABEL_SELECTOR,
                "endpoints": {"type": "array", "minItems": 1, "items": ENDPOINT},
                "jobLabel": {"type": "string"},
                "namespaceSelector": {"type": "object"},
                "targetLabels": {"type": "array", "items": {"type": "string"}},
                "podTargetLabels": {"type": "array", "items": {"type": "string"}},
                "sampleLimit": {"type": "integer"},
            },
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}
RULE: Schema = {
    "type": "object",
    "required": ["expr"],
    "oneOf": [{"required": ["alert"]}, {"required": ["record"]}],
    "properties": {
        "alert": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
        "record": {"type": "string"},
        "expr": {"type": ["string", "integer"]},
        "for": DURATION,
        "keep_firing_for": DURATION,
        "labels": LABELS,
        "annotations": LABELS,
    },
    "additionalProperties": False,
}
PROMETHEUS_RULE: Schema = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "PrometheusRule"},
        "metadata": METADATA,
        "spec": {
            "type": "object",
            "required": ["groups"],
            "properties": {
                "groups": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["name", "rules"],
                        "properties": {
                            "name": {"type": "string"},
                            "interval": DURATION,
                            "limit": {"type": "integer"},
                            "rules": {"type": "array", "items": RULE},
                        },
                        "additionalProperties": False,
                    },
                }
            },
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}
SCHEMAS = {"ServiceMonitor": SERVICE_MONITOR, "PrometheusRule": PROMETHEUS_RULE}
