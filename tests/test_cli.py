"""The `wayfarer` command as a user runs it: real processes, real ports, real files."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from rag.store.edge import EdgeStore, current_directory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def interruptible() -> None:
    """In the child: Ctrl-C interrupts, even when this run was started in the background.

    A shell starts background jobs with SIGINT ignored, and children inherit that; the tests that
    interrupt a process would then watch it run to the end.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("WAYFARER_")}
    return {**base, "WAYFARER_LOG_LEVEL": "WARNING", **extra}


def wayfarer(*args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rag.cli", *args],
        cwd=cwd,
        env=env(**extra),
        capture_output=True,
        text=True,
        timeout=240,
    )


async def point_count(data: Path) -> int:
    store = EdgeStore(data / "index", current_directory(data / "index", "wayfarer"), 384, 60, 40)
    await store.open()
    try:
        return await store.count()
    finally:
        await store.close()


def test_seed_command_counts_and_is_idempotent(tmp_path: Path, small_seed: Path) -> None:
    data = tmp_path / "data"
    first = wayfarer("seed", str(small_seed), "--data-dir", str(data), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    counts = json.loads(first.stdout.strip().splitlines()[-1])
    assert counts["added"] == 4 and counts["chunks"] > 4
    second = wayfarer("seed", str(small_seed), "--data-dir", str(data), cwd=tmp_path)
    assert json.loads(second.stdout.strip().splitlines()[-1])["skipped"] == 4
    assert asyncio.run(point_count(data)) == counts["chunks"]


def test_seed_reports_bad_input_clearly(tmp_path: Path) -> None:
    (tmp_path / "bad.jsonl").write_text('{"id": "a", "text": "ok"}\n{oops\n')
    result = wayfarer("seed", str(tmp_path / "bad.jsonl"), "--data-dir", str(tmp_path / "d"), cwd=tmp_path)
    assert result.returncode == 2 and "bad.jsonl:2" in result.stderr and "Traceback" not in result.stderr
    missing = wayfarer("seed", str(tmp_path / "nope"), "--data-dir", str(tmp_path / "d"), cwd=tmp_path)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad_env = wayfarer("seed", "--data-dir", str(tmp_path / "d"), cwd=tmp_path, WAYFARER_KV__URL="http://x")
    assert bad_env.returncode == 2 and "WAYFARER_KV__URL" in bad_env.stderr


def test_seed_sync_keeps_the_documents_seeded_from_a_users_folder(tmp_path: Path, small_seed: Path) -> None:
    data, notes = tmp_path / "data", tmp_path / "notes"
    notes.mkdir()
    for i in range(3):
        (notes / f"ferry-{i}.md").write_text(f"The Quoxalind ferry number {i} leaves Setubal at dawn.")
    extra = {"WAYFARER_INDEX__SEED_DIR": str(small_seed)}
    seeded = wayfarer("seed", str(notes), "--data-dir", str(data), cwd=tmp_path, **extra)
    assert seeded.returncode == 0, seeded.stderr
    assert json.loads(seeded.stdout.strip().splitlines()[-1])["added"] == 3
    # What `wayfarer serve` runs at start-up and every hour.
    synced = wayfarer("reindex", "--job", "seed-sync", "--data-dir", str(data), cwd=tmp_path, **extra)
    assert synced.returncode == 0, synced.stderr
    [run] = json.loads(synced.stdout)["runs"]
    assert run["counts"]["added"] == 4 and run["counts"]["deleted"] == 0
    found = wayfarer("search", "Quoxalind ferry", "--data-dir", str(data), cwd=tmp_path, **extra)
    assert found.returncode == 0, found.stderr
    assert {f"ferry-{i}" for i in range(3)} <= {word.rsplit("/", 1)[-1] for word in found.stdout.split()}


def write_corpus(root: Path, n: int) -> None:
    """``n`` one-chunk documents that embed quickly, each recorded as soon as its point is written."""
    for i in range(n):
        (root / f"note-{i:03}.md").parent.mkdir(parents=True, exist_ok=True)
        (root / f"note-{i:03}.md").write_text(
            f"---\ntitle: Note {i}\n---\nTravel note {i}: the ferry {i} crosses the bay at {i % 24}:15, "
            f"and the tram {i} climbs to the castle past the market hall."
        )


def test_interrupted_seed_resumes_without_duplicates(tmp_path: Path) -> None:
    corpus, data = tmp_path / "corpus", tmp_path / "data"
    write_corpus(corpus, 400)  # recorded one by one: the test holds the records back after the first
    extra = {"WAYFARER_INDEX__SEED_DIR": str(corpus)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rag.cli", "seed", "--data-dir", str(data)],
        preexec_fn=interruptible,
        cwd=tmp_path,
        env=env(**extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    kv_path = data / "kv.sqlite3"
    deadline = time.monotonic() + 240
    while documents_recorded(kv_path) == 0:
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.02)
    # The test sets the pace: holding the KV file's write lock, no further document can be recorded,
    # so the interrupt lands after the first document and before the last, however busy the machine.
    gate = sqlite3.connect(kv_path, timeout=60, isolation_level=None)
    gate.execute("BEGIN IMMEDIATE")
    recorded = int(gate.execute("SELECT count(*) FROM kv WHERE key LIKE 'doc:%'").fetchone()[0])
    try:
        assert 0 < recorded < 399, recorded
        proc.send_signal(signal.SIGINT)
    finally:
        gate.execute("ROLLBACK")  # a record write waiting on the lock may finish: its points are written
        gate.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    result = wayfarer("seed", "--data-dir", str(data), cwd=tmp_path, **extra)
    counts = json.loads(result.stdout.strip().splitlines()[-1])
    assert recorded <= counts["skipped"] < 400 and counts["added"] + counts["skipped"] == 400
    again = wayfarer("seed", "--data-dir", str(data), cwd=tmp_path, **extra)
    assert json.loads(again.stdout.strip().splitlines()[-1]) == {
        "added": 0,
        "updated": 0,
        "skipped": 400,
        "deleted": 0,
        "chunks": 0,
    }
    # Every chunk of every document exactly once: the point count is the sum of the recorded chunk counts.
    with sqlite3.connect(kv_path) as db:
        rows = db.execute("SELECT value FROM kv WHERE key LIKE 'doc:%'").fetchall()
    assert len(rows) == 400
    assert asyncio.run(point_count(data)) == sum(json.loads(v)["chunks"] for (v,) in rows)


def documents_recorded(kv_path: Path) -> int:
    """Documents the seeder has finished, read from its KV file while it runs (SQLite WAL allows it)."""
    if not kv_path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{kv_path}?mode=ro", uri=True, timeout=1) as db:
            return int(db.execute("SELECT count(*) FROM kv WHERE key LIKE 'doc:%'").fetchone()[0])
    except sqlite3.Error:
        return 0  # the table is not there yet


@pytest.fixture
def server(tmp_path: Path, small_seed: Path) -> Iterator[tuple[str, Path]]:
    port = free_port()
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [sys.executable, "-m", "rag.cli", "serve", "--port", str(port), "--data-dir", str(data)],
        preexec_fn=interruptible,
        cwd=tmp_path,
        env=env(WAYFARER_INDEX__SEED_DIR=str(small_seed), WAYFARER_ADMIN_TOKEN="tok"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        asyncio.run(wait_ready(url))
        yield url, data
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""


async def wait_ready(url: str) -> None:
    async with aiohttp.ClientSession() as session:
        for _ in range(600):
            try:
                async with session.get(url + "/readyz") as resp:
                    if resp.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    raise AssertionError("service never became ready")


async def wait_answering(url: str) -> None:
    """Until the service answers /readyz at all: ready, or still starting (503 with what is loading)."""
    async with aiohttp.ClientSession() as session:
        for _ in range(600):
            try:
                async with session.get(url + "/readyz") as resp:
                    await resp.read()
                    return
            except aiohttp.ClientError:
                await asyncio.sleep(0.2)
    raise AssertionError("service never answered")


async def search(url: str, query: str) -> list[dict[str, object]]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(url + "/v1/search", json={"query": query}) as r,
    ):
        assert r.status == 200
        return list((await r.json())["results"])


def test_serve_seeds_and_searches_and_guards_its_index(server: tuple[str, Path], tmp_path: Path) -> None:
    url, data = server
    results = asyncio.run(search(url, "what to pack for a humid tropical trip"))
    assert results[0]["metadata"]["document_id"] == "topics/packing-by-climate"  # type: ignore[index]
    # The running service owns the embedded index: a second writer gets a clear error, not corruption.
    locked = wayfarer("seed", "--data-dir", str(data), cwd=tmp_path)
    assert locked.returncode == 2 and "index_locked" in locked.stderr
    # ... and is told to send documents to the service instead, which works.
    (tmp_path / "extra").mkdir()
    (tmp_path / "extra" / "note.md").write_text(
        "---\ntitle: Hakone day trip\n---\nTake the Romancecar to Hakone."
    )
    sent = wayfarer("seed", str(tmp_path / "extra"), "--url", url, cwd=tmp_path, WAYFARER_ADMIN_TOKEN="tok")
    assert sent.returncode == 0, sent.stderr
    assert json.loads(sent.stdout.strip().splitlines()[-1])["added"] == 1
    assert asyncio.run(search(url, "Romancecar to Hakone"))[0]["metadata"]["title"] == "Hakone day trip"  # type: ignore[index]


def test_data_survives_a_restart(tmp_path: Path, small_seed: Path) -> None:
    port = free_port()
    data = tmp_path / "data"
    cmd = [sys.executable, "-m", "rag.cli", "serve", "--port", str(port), "--data-dir", str(data)]
    for _ in range(2):
        proc = subprocess.Popen(
            cmd,
            preexec_fn=interruptible,
            cwd=tmp_path,
            env=env(WAYFARER_INDEX__SEED_DIR=str(small_seed)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            asyncio.run(wait_ready(f"http://127.0.0.1:{port}"))
            results = asyncio.run(search(f"http://127.0.0.1:{port}", "tram 28 Alfama"))
            assert results[0]["metadata"]["document_id"] == "guides/lisbon"  # type: ignore[index]
        finally:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=30) == 0


def test_tools_call_by_hand(tmp_path: Path) -> None:
    day = datetime.date.today() + datetime.timedelta(days=60)
    params = json.dumps({"origin": "LON", "destination": "Rome", "departure_date": day.isoformat()})
    result = wayfarer("tools", "call", "flight_search", params, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["sandbox"] is True and out["results"] and out["params"]["destination"] == "ROM"
    listed = json.loads(wayfarer("tools", "list", "--json", cwd=tmp_path).stdout)
    assert len(listed) == 7 and {t["provider"] for t in listed} >= {"catalogue"}
    table = wayfarer("tools", "list", cwd=tmp_path).stdout
    assert "flight_search: duffel (offline sandbox, synthetic data)" in table
    assert "set WAYFARER_CONNECTORS__DUFFEL_TOKEN" in table
    bad = wayfarer(
        "tools", "call", "hotel_search", '{"city": "Zzyzxville", "check_in": "2099-01-01"}', cwd=tmp_path
    )
    assert bad.returncode == 2 and "unknown_location" in bad.stderr and "Traceback" not in bad.stderr
    broken = wayfarer("tools", "call", "hotel_search", "{city", cwd=tmp_path)
    assert broken.returncode == 2 and "invalid_json" in broken.stderr


def test_sandbox_runs_on_its_own(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rag.cli", "sandbox", "--port", str(port)],
        preexec_fn=interruptible,
        cwd=tmp_path,
        env=env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    async def geocode() -> dict[str, object]:
        async with aiohttp.ClientSession() as session:
            for _ in range(100):
                try:
                    async with session.get(
                        f"http://127.0.0.1:{port}/v1/search", params={"name": "Lisbon"}
                    ) as r:
                        return dict(await r.json())
                except aiohttp.ClientError:
                    await asyncio.sleep(0.1)
        raise AssertionError("sandbox never answered")

    try:
        body = asyncio.run(geocode())
        assert body["results"][0]["name"] == "Lisbon"  # type: ignore[index]
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0


def test_user_token_matches_what_the_service_accepts(tmp_path: Path) -> None:
    from rag.web.auth import user_token

    missing = wayfarer("user-token", "ann", cwd=tmp_path)
    assert missing.returncode == 2 and "WAYFARER_CHAT_SECRET" in missing.stderr
    done = wayfarer("user-token", "ann", cwd=tmp_path, WAYFARER_CHAT_SECRET="s")
    assert done.returncode == 0 and done.stdout.strip() == user_token("s", "ann") != user_token("s", "bob")


def test_reindex_jobs_and_a_rebuild_from_the_shell(tmp_path: Path, small_seed: Path) -> None:
    data = tmp_path / "data"
    extra = {"WAYFARER_INDEX__SEED_DIR": str(small_seed)}
    seeded = wayfarer("reindex", "--job", "seed-sync", "--data-dir", str(data), cwd=tmp_path, **extra)
    assert seeded.returncode == 0, seeded.stderr
    [run] = json.loads(seeded.stdout)["runs"]
    assert run["job"] == "seed-sync" and run["counts"]["added"] == 4
    chunks = asyncio.run(point_count(data))
    rebuilt = wayfarer("reindex", "--rebuild", "--data-dir", str(data), cwd=tmp_path, **extra)
    assert rebuilt.returncode == 0, rebuilt.stderr
    [run] = json.loads(rebuilt.stdout)["runs"]
    assert run["counts"]["points"] == chunks and run["counts"]["to"].startswith("wayfarer@")
    assert asyncio.run(point_count(data)) == chunks  # the pointer file survives the process
    found = wayfarer("search", "getting around Lisbon", "--data-dir", str(data), cwd=tmp_path)
    assert found.returncode == 0 and "lisbon" in found.stdout.lower()
    both = wayfarer("reindex", "--data-dir", str(data), cwd=tmp_path, **extra)  # every scheduled job
    assert [r["job"] for r in json.loads(both.stdout)["runs"]] == ["seed-sync", "purge-expired"]
    unknown = wayfarer("reindex", "--job", "nope", "--data-dir", str(data), cwd=tmp_path)
    assert unknown.returncode == 2 and "invalid_arguments" in unknown.stderr and "'nope'" in unknown.stderr


def test_search_reads_like_the_service_and_goes_through_it_while_it_runs(
    tmp_path: Path, small_seed: Path
) -> None:
    data, port = tmp_path / "data", free_port()
    extra = {"WAYFARER_INDEX__SEED_DIR": str(small_seed)}
    seeded = wayfarer("reindex", "--job", "seed-sync", "--data-dir", str(data), cwd=tmp_path, **extra)
    assert seeded.returncode == 0, seeded.stderr
    query = "tram 28 Alfama"
    local = wayfarer("search", query, "--json", "--data-dir", str(data), cwd=tmp_path, **extra)
    assert local.returncode == 0, local.stderr
    proc = subprocess.Popen(
        [sys.executable, "-m", "rag.cli", "serve", "--port", str(port), "--data-dir", str(data)],
        preexec_fn=interruptible,
        cwd=tmp_path,
        env=env(**extra),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        asyncio.run(wait_answering(url))  # perhaps still loading: the search waits for it
        # No --url: the index is the service's, so the search goes through the service at the configured
        # address (as a user's .env would set it for both), says so, and prints passages to read.
        found = wayfarer(
            "search", query, "--data-dir", str(data), cwd=tmp_path, WAYFARER_SERVER__PORT=str(port)
        )
        assert found.returncode == 0, found.stderr
        assert f"the service at {url}" in found.stderr
        first = found.stdout.split("\n\n")[0].splitlines()
        assert first[0].startswith("1. Lisbon City Guide — Getting around  (score ")
        assert "Tram 28 rattles through" in " ".join(first[1:])  # the passage, its Markdown gone
        assert first[-1].split()[0] == "guides/lisbon"
        # The same search as POST /v1/search: the local one before the service ran, and one through --url.
        service = asyncio.run(search(url, query))
        assert json.loads(local.stdout)["results"] == service
        remote = wayfarer("search", query, "--url", url, "--json", cwd=tmp_path)
        assert remote.returncode == 0 and json.loads(remote.stdout)["results"] == service
        # Nothing answers at the configured address: a clear error that says what to pass.
        lost = wayfarer(
            "search", query, "--data-dir", str(data), cwd=tmp_path, WAYFARER_SERVER__PORT=str(free_port())
        )
        assert lost.returncode == 2 and "index_locked" in lost.stderr and "--url" in lost.stderr
        assert "Traceback" not in lost.stderr
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0


@pytest.mark.parametrize("args", [["tools", "list"], ["tools", "list", "--json"], ["user-token", "ann"]])
def test_output_into_a_closed_pipe_ends_quietly(tmp_path: Path, args: list[str]) -> None:
    """`wayfarer tools list | head`: the reader has gone, and no traceback follows."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "rag.cli", *args],
        cwd=tmp_path,
        env=env(WAYFARER_CHAT_SECRET="s"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the command writes: every write finds the pipe closed
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1
    assert "BrokenPipeError" not in err and "Traceback" not in err, err


def test_every_argument_says_what_it_is_for(tmp_path: Path) -> None:
    from rag.cli import build_parser

    def walk(parser: argparse.ArgumentParser, path: str) -> Iterator[str]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    if not choice.help:
                        yield f"{path} {choice.dest}"
                for name, sub in action.choices.items():
                    yield from walk(sub, f"{path} {name}")
            elif not action.help or action.help == argparse.SUPPRESS:
                yield f"{path} {'/'.join(action.option_strings) or action.dest}"

    assert list(walk(build_parser(), "wayfarer")) == []
    shown = wayfarer("search", "--help", cwd=tmp_path)
    assert shown.returncode == 0 and "--url URL" in shown.stdout and "WAYFARER_SERVER__HOST" in shown.stdout
