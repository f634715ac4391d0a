"""`patience-gateway`: the gateway served from the environment until SIGINT/SIGTERM.

Metrics are kept per worker process; `/metrics` adds up every worker's through
prometheus_client's multiprocess mode, in a folder of this run (PROMETHEUS_MULTIPROC_DIR),
on the API port, or on GATEWAY_METRICS_PORT where that is set (`http.metrics_port`,
served by this process).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from patience_contract import logs

from patience_gateway.http.server import granian_server
from patience_gateway.settings import Settings, SettingsError

log = logging.getLogger("patience_gateway")

APP_FACTORY = "patience_gateway.app:served_app"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


@contextlib.contextmanager
def metrics_folder() -> Iterator[Path]:
    """The folder where every worker writes its metrics, set as PROMETHEUS_MULTIPROC_DIR
    before any worker starts (prometheus_client reads it when it is first imported).
    A folder given in the environment is used (emptied of old metric files first, as
    prometheus_client requires); otherwise a temporary one, removed on exit."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        folder = Path(given)
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.db"):
            old.unlink()
        yield folder
        return
    folder = Path(tempfile.mkdtemp(prefix="patience-gateway-metrics-"))
    os.environ[MULTIPROC_ENV] = str(folder)
    try:
        yield folder
    finally:
        del os.environ[MULTIPROC_ENV]
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    """The `patience-gateway` command: serves until SIGINT/SIGTERM, then stops the
    workers gracefully and exits 0 (1 if workers kept dying)."""
    try:
        settings = Settings.from_env()
    except SettingsError as error:
        logs.configure_logging("info")
        log.error("bad configuration: %s", error)
        sys.exit(2)
    with metrics_folder() as folder:
        # The app's modules imported once, here, before the workers are forked, so that
        # a worker builds its app at once. Granian's worker misses a stop signal that
        # comes before it has set its event loop's handlers: a gateway stopped while its
        # workers imported the app (seconds) stood until its main process killed them,
        # STOP_SECONDS later. What is left of that window is the app's building.
        importlib.import_module(APP_FACTORY.partition(":")[0])
        if not settings.metrics_port:
            granian_server(APP_FACTORY, settings).serve()
            return
        # imported only now: prometheus_client, which it imports, takes its multiprocess
        # mode at its first import, from PROMETHEUS_MULTIPROC_DIR, and the workers are
        # forked from this process
        from patience_gateway.http.metrics_port import MetricsPort

        with MetricsPort(settings, str(folder)):
            granian_server(APP_FACTORY, settings).serve()
