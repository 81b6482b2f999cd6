"""How long `wayfarer serve` takes to answer and to be ready: a first start on an empty data directory
(it seeds the travel guides) and a second start on the same directory.

    python scripts/bench_startup.py [--runs 1] [--port 8765]

Each start is a real `wayfarer serve` process on the embedded defaults; the clock runs from spawning it
to its first HTTP answer (the port is bound early: /readyz answers 503 while loading) and to /readyz 200.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def readyz(port: int) -> tuple[int, dict[str, object]] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")
    except OSError:
        return None


def start(data_dir: Path, port: int, timeout: float) -> dict[str, float]:
    """Spawn the service, poll /readyz every 50 ms; seconds to the first answer and to ready."""
    env = {**os.environ, "WAYFARER_SERVER__DATA_DIR": str(data_dir), "WAYFARER_SERVER__PORT": str(port)}
    began = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rag.cli", "serve"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = ready = None
    steps: list[str] = []
    try:
        while time.monotonic() - began < timeout:
            got = readyz(port)
            now = time.monotonic() - began
            if got is not None:
                first = first if first is not None else now
                status, body = got
                step = body.get("loading")
                if isinstance(step, str) and (not steps or steps[-1] != step):
                    steps.append(step)
                if status == 200:
                    ready = now
                    break
            if proc.poll() is not None:
                raise SystemExit(f"wayfarer serve exited: {proc.stderr.read() if proc.stderr else ''}")
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    if ready is None or first is None:
        raise SystemExit(f"not ready within {timeout} s")
    print(f"  steps seen while loading: {', '.join(steps) or '-'}", file=sys.stderr)
    return {"first_answer_s": first, "ready_s": ready}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=1, help="first/second start pairs to measure (default 1)")
    parser.add_argument("--port", type=int, default=0, help="port to serve on (default: a free one)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for ready (default 600)")
    args = parser.parse_args()
    rows = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            port = args.port or free_port()
            rows.append(("first start (seeds the guides)", start(Path(tmp) / "data", port, args.timeout)))
            rows.append(("second start (same data)", start(Path(tmp) / "data", port, args.timeout)))
    print("| start | first HTTP answer | ready (/readyz 200) |")
    print("| --- | --- | --- |")
    for name, r in rows:
        print(f"| {name} | {r['first_answer_s']:.1f} s | {r['ready_s']:.1f} s |")
    print(f"\n{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
