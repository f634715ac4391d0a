"""The served API holds to its OpenAPI document: Schemathesis generates requests from
the document (its examples, the edges of every schema, random data, and chains of calls
that follow the responses' links) against a real `patience serve`, and every check is on:
no 5xx, every status and header documented, every answer of its documented schema and
media type, every schema-valid request accepted and every invalid one refused, auth
enforced. tests/contract/schemathesis.toml says what a schema cannot (refusals that
depend on a game's state).

`make schemathesis` runs the same with more examples (docs/testing.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from patience_launcher.addresses import free_port

from tests.launcher.launcher_run import LauncherRun, clean_env, serve_args

CONFIG = Path(__file__).with_name("schemathesis.toml")
# Examples per operation and phase: about 1,700 requests in all; SCHEMATHESIS_EXAMPLES
# raises it (make schemathesis).
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "10"))
SEED = os.environ.get("SCHEMATHESIS_SEED", "20261125")
# The served stack: searches kept short (a winnable create and the daily deal's proof
# answer within a request's time), one daily variant, no pools filling in the background.
SERVED_ENV = {
    "WINNABLE_POOL_SIZE": "0",
    "WINNABLE_SOLVE_MILLISECONDS": "300",
    "WINNABLE_SEARCH_SECONDS": "2",
    "DAILY_VARIANTS": "bisley",
}


def _daily_ready(base: str) -> bool:
    """Whether GET /v1/daily says today's deal is ready; a busy machine may take longer
    than httpx's default 5 s to answer while the deal is searched, which is no answer."""
    try:
        return '"ready":true' in httpx.get(f"{base}/v1/daily", timeout=30).text
    except httpx.TimeoutException:
        return False


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`patience serve` on free ports; its base URL once today's deal is ready."""
    folder = tmp_path_factory.mktemp("contract")
    env = clean_env(**SERVED_ENV)
    run = LauncherRun(serve_args(free_port(), free_port(), "--ephemeral"), folder, env)
    try:
        run.wait_ready()
        base = run.banner_value("REST API").removesuffix("/v1")
        deadline = time.monotonic() + 120
        while not _daily_ready(base):
            assert time.monotonic() < deadline, "today's deal was not ready\n" + run.output()
            time.sleep(0.2)
        yield base
    finally:
        if run.process.poll() is None:
            run.interrupt()
        run.cleanup()


@pytest.mark.timeout(1500)  # make schemathesis runs many more examples than make test
def test_the_served_api_holds_to_its_document(served: str, tmp_path: Path) -> None:
    player = httpx.post(f"{served}/v1/players", json={}).json()
    report = tmp_path / "report"
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "--config-file",
        str(CONFIG),
        "run",
        f"{served}/openapi.json",
        "--max-examples",
        str(EXAMPLES),
        "--seed",
        SEED,
        "--header",
        f"Authorization: Bearer {player['access_token']}",
        "--report",
        "junit",
        "--report-dir",
        str(report),
        "--no-color",
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=1200, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-4000:]
    summary = done.stdout[done.stdout.find("SUMMARY") :]
    # every phase ran and passed, and reached every operation of the document
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in summary, summary
    selected = re.search(r"Selected: (\d+)/(\d+)", summary)
    tested = re.search(r"Tested: (\d+)", summary)
    assert selected and tested, summary
    assert selected.group(1) == selected.group(2) == tested.group(1), summary
    print(summary)  # shown by `make schemathesis` (pytest -s): the counts of the run
