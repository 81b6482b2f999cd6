"""`wayfarer serve` binds its port at once and says what it is loading: a real process, a real port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(tmp_path: Path, seed: Path, port: int) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAYFARER_")}
    env |= {"WAYFARER_INDEX__SEED_DIR": str(seed), "WAYFARER_LOG_LEVEL": "INFO"}
    return subprocess.Popen(
        [sys.executable, "-m", "rag.cli", "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")],
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def get(url: str, **kwargs: Any) -> requests.Response | None:
    try:
        return requests.get(url, timeout=5, **kwargs)
    except requests.ConnectionError:
        return None


def stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert proc.returncode == 0, err
    return err


def test_the_port_answers_while_loading_and_readyz_says_what_is_left(
    tmp_path: Path, small_seed: Path
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start(tmp_path, small_seed, port)
    seen: list[dict[str, Any]] = []
    try:
        first = None
        for _ in range(6000):  # until it is ready: every answer before then is a 503 saying what loads
            resp = get(base + "/readyz")
            if resp is not None:
                first = resp if first is None else first
                if resp.status_code == 200:
                    break
                body = resp.json()
                assert resp.status_code == 503 and body["status"] == "starting" and body["loading"], body
                seen.append(body)
                if len(seen) == 1:  # the API and the page answer too, and say why they cannot serve yet
                    api = requests.post(base + "/v1/chat", json={"user_id": "a", "message": "hi"}, timeout=5)
                    assert api.status_code == 503 and api.headers["Retry-After"]
                    assert api.json()["error"]["code"] == "starting"
                    page = get(base + "/")
                    assert page is not None and page.status_code == 503 and "is starting" in page.text
                    assert get(base + "/healthz").status_code == 200  # type: ignore[union-attr]
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        assert first is not None and first.status_code == 503, "the port opened only once ready"
        assert {b["loading"] for b in seen} >= {"embedding model", "seed corpus"}
        seeding = [b["seeding"] for b in seen if "seeding" in b]
        assert seeding and all(s["total"] == 4 and 0 <= s["done"] <= 4 for s in seeding), seeding
        assert set(seeding[-1]) == {"done", "total", "skipped", "chunks_embedded", "seconds_left"}
        assert seen[-1]["done"][:2] == ["key-value store", "travel tools"]
        ready = get(base + "/readyz")
        assert ready is not None and ready.json()["status"] == "ready"
        assert get(base + "/v1/tools").status_code == 200  # type: ignore[union-attr]
    finally:
        log = stop(proc)
    assert "listening on http://127.0.0.1" in log and "ready on" in log
    assert "seed corpus: 4 documents added, 0 updated, 0 unchanged" in log
    assert log.count("scheduler: seed-sync every 60 min, purge-expired every 10 min") == 1


def test_a_second_start_says_in_one_line_that_nothing_changed(tmp_path: Path, small_seed: Path) -> None:
    """The documents a start skips are one line, not one a document; the scheduler is one line."""
    for _ in range(2):
        port = free_port()
        proc = start(tmp_path, small_seed, port)
        try:
            for _ in range(6000):
                resp = get(f"http://127.0.0.1:{port}/readyz")
                if resp is not None and resp.status_code == 200:
                    break
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.05)
        finally:
            log = stop(proc)
    seeding = [line for line in log.splitlines() if "seed corpus:" in line]
    assert len(seeding) == 1 and "0 documents added, 0 updated, 4 unchanged" in seeding[0], log
    assert log.count("scheduler:") == 1 and "apscheduler" not in log, log


def test_ctrl_c_while_loading_stops_cleanly(tmp_path: Path, small_seed: Path) -> None:
    port = free_port()
    proc = start(tmp_path, small_seed, port)
    for _ in range(2000):
        resp = get(f"http://127.0.0.1:{port}/readyz")
        if resp is not None:
            assert resp.status_code == 503  # still loading
            break
        time.sleep(0.05)
    log = stop(proc)
    assert "stopping before the service was ready" in log and "Traceback" not in log
