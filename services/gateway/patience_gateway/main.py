"""`patience-gateway`: serve the gateway with uvicorn, configured from the environment."""

from __future__ import annotations

import logging

import uvicorn

from patience_gateway.app import create_app
from patience_gateway.settings import Settings


def main() -> None:
    settings = Settings.from_env()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        # Health probes and metrics scrapes are logged by the metrics instead.
        access_log=settings.log_level == "debug",
    )


if __name__ == "__main__":
    main()
