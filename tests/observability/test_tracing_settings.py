"""When the OTEL_* variables turn tracing on (patience_contract.tracing), and the settings
it refuses rather than guess at."""

from __future__ import annotations

import pytest
from patience_contract import tracing

ENDPOINT = "http://127.0.0.1:4318"


@pytest.mark.parametrize(
    ("environ", "on"),
    [
        ({}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": ENDPOINT + "/v1/traces"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "  "}, False),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, True),
        ({"OTEL_TRACES_EXPORTER": "console"}, True),
        ({"OTEL_TRACES_EXPORTER": "none"}, False),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}, False),
        ({"OTEL_TRACES_EXPORTER": "none,console"}, True),
        ({"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}, False),
        ({"OTEL_SDK_DISABLED": "false", "OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}, True),
        # the sampler alone names no receiver
        ({"OTEL_TRACES_SAMPLER": "always_on"}, False),
    ],
)
def test_when_tracing_is_on(environ: dict[str, str], on: bool) -> None:
    assert tracing.tracing_requested(environ) is on


@pytest.mark.parametrize(
    "environ",
    [
        {"OTEL_TRACES_EXPORTER": "zipkin"},
        {"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
    ],
)
def test_what_it_cannot_do_is_refused(environ: dict[str, str]) -> None:
    with pytest.raises(tracing.TracingError):
        tracing.start_tracing("patience-test", environ)
    assert not tracing.tracing_started()


def test_off_it_starts_nothing_and_carries_no_context() -> None:
    assert tracing.start_tracing("patience-test", {}) is False
    assert not tracing.tracing_started()
    assert tracing.carrier() == {}
    with tracing.continued({}):
        pass
