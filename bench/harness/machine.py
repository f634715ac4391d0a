"""What machine a run happened on, for the report's heading."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from pathlib import Path


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def describe() -> str:
    """One Markdown paragraph: CPU, cores, Python, OS, time, load at start."""
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"Machine: {cpu_model()}, {os.cpu_count()} cores; Python {platform.python_version()}"
        f" ({platform.python_implementation()}); {platform.system()} {platform.release()}."
        f" Run at {now}; load average at start {load_average()}."
    )
