"""Every command with a data directory it cannot use, a port in use, a bad URL or a service that does
not answer: one line naming the problem and what to do, exit status 2, no traceback, no hang.

Real processes throughout. The index is held by this test process through the same claim a running
``wayfarer serve`` takes, so no service has to load a model for the command to find it taken.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.store.claim import claim_index

pytestmark = [pytest.mark.timeout(300)]

SEED_FILE = Path(__file__).resolve().parent.parent / "seed_data" / "guides" / "paris.md"


def wayfarer(*args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it; a hang fails the test by its timeout, not the suite's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAYFARER_")}
    return subprocess.run(
        [sys.executable, "-m", "rag.cli", *args],
        cwd=cwd,
        env={**env, "WAYFARER_LOG_LEVEL": "WARNING", **extra},
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_one_line_error(run: subprocess.CompletedProcess[str], code: str, *words: str) -> None:
    lines = [line for line in run.stderr.splitlines() if line.startswith("wayfarer: ")]
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert len(lines) == 1 and lines[0].startswith(f"wayfarer: {code}: "), run.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture
def listener() -> Iterator[int]:
    """A port that accepts connections and never answers, as a hung service does."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["serve", "--port", "99999"], ["--port", "99999", "from 0 to 65535"]),
        (["serve", "--port", "eighty"], ["--port", "'eighty'"]),
        (["sandbox", "--port", "70000"], ["--port", "70000"]),
        (["sandbox", "--port", "-1"], ["--port", "-1"]),
        (["reindex", "--job", "nope"], ["--job", "'nope'", "seed-sync"]),
        (["search", "Lisbon", "--top-k", "0"], ["--top-k", "1 to 50"]),
        (["search", "Lisbon", "--lines", "-2"], ["--lines"]),
        (["seed", "--batch", "0"], ["--batch"]),
        (["tools", "nope"], ["'nope'", "list"]),
        (["nosuch"], ["'nosuch'", "serve"]),
        (["serve", "--nosuch"], ["--nosuch"]),
    ],
)
def test_bad_arguments_are_one_line_before_anything_loads(
    tmp_path: Path, args: list[str], words: list[str]
) -> None:
    run = wayfarer(*args, cwd=tmp_path)
    assert_one_line_error(run, "invalid_arguments", *words)
    assert not (tmp_path / "data").exists()  # nothing was opened, let alone seeded


def test_a_sandbox_port_in_use_is_refused(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        port = str(sock.getsockname()[1])
        run = wayfarer("sandbox", "--port", port, cwd=tmp_path)
    assert_one_line_error(run, "port_in_use", port, "wayfarer sandbox", "--port")


@pytest.mark.parametrize(
    "args",
    [
        ["seed", str(SEED_FILE)],
        ["seed"],
        ["reindex", "--job", "purge-expired"],
        ["search", "food in Paris"],
        ["serve", "--port", "0"],
    ],
    ids=["seed-path", "seed-corpus", "reindex", "search", "serve"],
)
def test_an_index_in_use_is_said_at_once(tmp_path: Path, args: list[str]) -> None:
    data = tmp_path / "data"
    with claim_index(data / "index", "wayfarer serve"):
        # The search looks for the running service at the configured address: none answers there.
        run = wayfarer(*args, "--data-dir", str(data), cwd=tmp_path, WAYFARER_SERVER__PORT="9")
    assert_one_line_error(run, "index_locked", "wayfarer serve, pid", str(data / "index"))


def test_a_claim_ends_with_its_process(tmp_path: Path) -> None:
    index = tmp_path / "data" / "index"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from rag.store.claim import claim_index\n"
            f"with claim_index(__import__('pathlib').Path({str(index)!r}), 'holder'):\n"
            "    print('held', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        from rag.store.claim import index_claimed

        assert index_claimed(index)
        holder.kill()  # as kill -9 would: nothing is cleaned up
        holder.wait(timeout=30)
        assert not index_claimed(index)
        with claim_index(index, "next"):
            assert (index / "owner.lock").read_text().startswith("next, pid ")
    finally:
        if holder.poll() is None:
            holder.kill()


@pytest.mark.parametrize("args", [["seed", str(SEED_FILE)], ["serve", "--port", "0"]], ids=["seed", "serve"])
def test_a_data_directory_that_is_a_file_is_refused(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "data").write_text("not a folder")
    run = wayfarer(*args, "--data-dir", str(tmp_path / "data"), cwd=tmp_path)
    assert_one_line_error(run, "data_dir_unusable", "--data-dir")


def test_a_search_of_a_missing_index_is_said_before_anything_loads(tmp_path: Path) -> None:
    """(``reindex --job seed-sync`` and ``seed`` make an index; a search only reads one.)"""
    run = wayfarer(
        "search", "food", "--data-dir", str(tmp_path / "nowhere"), cwd=tmp_path, WAYFARER_SERVER__PORT="9"
    )
    assert_one_line_error(run, "index_unavailable", "no index", "wayfarer serve")
    assert not (tmp_path / "nowhere").exists()  # nothing was made on the way


def test_a_corrupt_key_value_store_is_one_line_and_the_process_exits(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "index").mkdir(parents=True)
    (data / "kv.sqlite3").write_bytes(bytes(range(256)) * 40)  # not a database
    run = wayfarer("reindex", "--job", "purge-expired", "--data-dir", str(data), cwd=tmp_path)
    assert_one_line_error(run, "kv_unavailable", "kv.sqlite3", "--data-dir")


@pytest.mark.slow
def test_a_corrupt_index_is_one_line_and_the_process_exits(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "index" / "wayfarer").mkdir(parents=True)
    (data / "index" / "wayfarer" / "edge_config.json").write_text("{ half a file")
    run = wayfarer("reindex", "--job", "purge-expired", "--data-dir", str(data), cwd=tmp_path)
    assert_one_line_error(run, "index_unavailable", "cannot open the index")


def test_a_port_another_process_listens_on_is_refused(tmp_path: Path) -> None:
    """Whether the other process bound with SO_REUSEPORT (as the service does) or not."""
    for reuse_port in (False, True):
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if reuse_port:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind(("127.0.0.1", 0))
            sock.listen(8)
            port = str(sock.getsockname()[1])
            run = wayfarer(
                "serve", "--port", port, "--data-dir", str(tmp_path / f"d{reuse_port}"), cwd=tmp_path
            )
        assert_one_line_error(run, "port_in_use", port, "--port")


@pytest.mark.parametrize(
    "args",
    [
        ["seed", str(SEED_FILE), "--url", "not a url"],
        ["reindex", "--url", "ftp://127.0.0.1:21"],
        ["search", "food", "--url", "http://127.0.0.1:99999"],
    ],
    ids=["seed", "reindex", "search"],
)
def test_a_bad_url_is_refused(tmp_path: Path, args: list[str]) -> None:
    run = wayfarer(*args, cwd=tmp_path, WAYFARER_ADMIN_TOKEN="tok")
    assert_one_line_error(run, "config_error", "--url", "http://127.0.0.1:8080")


@pytest.mark.parametrize(
    "args", [["seed", str(SEED_FILE)], ["reindex"], ["search", "food"]], ids=["seed", "reindex", "search"]
)
def test_a_service_that_does_not_answer_is_said_within_the_probe(
    tmp_path: Path, listener: int, args: list[str]
) -> None:
    url = f"http://127.0.0.1:{listener}"
    run = wayfarer(*args, "--url", url, cwd=tmp_path, WAYFARER_ADMIN_TOKEN="tok")
    assert_one_line_error(run, "backend_unavailable", url, "wayfarer serve")


def test_nothing_listening_is_said_at_once(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    run = wayfarer("reindex", "--url", f"http://127.0.0.1:{port}", cwd=tmp_path, WAYFARER_ADMIN_TOKEN="tok")
    assert_one_line_error(run, "backend_unavailable", f"127.0.0.1:{port}")
