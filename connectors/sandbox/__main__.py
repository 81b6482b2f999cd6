"""Run the sandbox on its own: ``python -m connectors.sandbox --port 8765 [--latency-ms 200 --error-rate 0.1]``."""

from __future__ import annotations

import argparse
import logging

from aiohttp import web

from connectors.sandbox.app import create_sandbox_app
from connectors.sandbox.faults import SandboxFaults


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m connectors.sandbox", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency-ms", type=int, default=0)
    parser.add_argument("--error-rate", type=float, default=0.0)
    parser.add_argument("--malformed-rate", type=float, default=0.0)
    parser.add_argument("--token-ttl-seconds", type=int, default=1799)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    faults = SandboxFaults(
        latency_ms=args.latency_ms,
        error_rate=args.error_rate,
        malformed_rate=args.malformed_rate,
        token_ttl_seconds=args.token_ttl_seconds,
        seed=args.seed,
    )
    web.run_app(create_sandbox_app(faults), host=args.host, port=args.port)


if __name__ == "__main__":
    main()
