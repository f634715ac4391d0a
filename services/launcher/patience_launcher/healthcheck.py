"""Container health probes that need nothing but the project's own install.

    python -m patience_launcher.healthcheck grpc 127.0.0.1:50051
    python -m patience_launcher.healthcheck http http://127.0.0.1:8000/readyz
    python -m patience_launcher.healthcheck redis redis://127.0.0.1:6379/0

Exit status 0 when the service answers healthy, 1 otherwise (what Docker's
HEALTHCHECK expects). The slim Python image has no curl or grpc_health_probe.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from patience_launcher import probes

_PROBES: dict[str, Callable[[str, float], bool]] = {
    "grpc": probes.grpc_serving,
    "http": probes.http_ok,
    "redis": probes.redis_pong,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m patience_launcher.healthcheck", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("kind", choices=sorted(_PROBES), help="what to ask")
    parser.add_argument("target", help="gRPC host:port, HTTP URL or Redis URL")
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds (default 3)")
    args = parser.parse_args(argv)
    healthy = _PROBES[args.kind](args.target, args.timeout)
    if not healthy:
        print(f"{args.kind} {args.target}: not healthy", file=sys.stderr)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
