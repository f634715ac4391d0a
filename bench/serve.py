"""Serving the bare app with the same uvicorn settings as the gateway
(patience_gateway.main: `uvicorn.run(app, host, port, log_level)`, access log off,
uvicorn's default loop and HTTP parser, i.e. uvloop and httptools when installed),
so that the two differ only in what their endpoints do."""

from __future__ import annotations

import os

import uvicorn
from fastapi import FastAPI


def serve_like_gateway(app: FastAPI, *, host: str, port: int) -> None:
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=os.environ.get("LOG_LEVEL", "warning").lower(),
        access_log=False,
    )
