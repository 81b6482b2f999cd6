"""Re-indexing jobs driven directly (no waiting for the schedule), on the real app and its real parts."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from rag.errors import JobRunningError
from rag.jobs import definitions
from rag.settings import SchedulerSettings
from rag.store.base import Filter
from rag.store.factory import create_store
from rag.web import keys
from rag.web.app import create_app
from tests.conftest import redis_url

ADMIN = {"Authorization": "Bearer s3cret"}


def ahead(days: int) -> str:
    return (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)).isoformat()


async def doc_points(app: web.Application, doc_id: str) -> list[dict[str, Any]]:
    hits, _ = await app[keys.STORE].scroll(Filter(equals={"document_id": doc_id}), 200)
    return [h.payload for h in hits]


async def test_seed_sync_reingests_an_edited_file_and_drops_its_old_chunks(client, small_seed: Path) -> None:  # type: ignore[no-untyped-def]
    app = client.app
    before = await doc_points(app, "guides/paris")
    assert len(before) > 3
    (small_seed / "guides/paris.md").write_text(
        "---\ntitle: Paris City Guide\ncity: Paris\ncountry: France\n---\n# Paris\n\n"
        "Ride the Zanzibarqux funicular to Montmartre at dawn.\n"
    )
    (small_seed / "topics/packing-by-climate.md").unlink()
    run = await app[keys.JOBS].run("seed-sync")
    assert run["outcome"] == "ok"
    assert run["counts"] == {"added": 0, "updated": 1, "skipped": 2, "deleted": 1, "chunks": 1}
    after = await doc_points(app, "guides/paris")
    assert len(after) == 1 and "Zanzibarqux" in after[0]["text"]
    assert await doc_points(app, "topics/packing-by-climate") == []
    found = await client.post("/v1/search", json={"query": "Zanzibarqux funicular"})
    assert (await found.json())["results"][0]["metadata"]["document_id"] == "guides/paris"
    again = await app[keys.JOBS].run("seed-sync")
    assert again["counts"] == {
        "added": 0,
        "updated": 0,
        "skipped": 3,
        "deleted": 0,
        "chunks": 0,
    }  # no embedding


async def test_purge_deletes_expired_live_points_and_their_kv_entries_in_batches(client) -> None:  # type: ignore[no-untyped-def]
    app = client.app
    resp = await client.post(
        "/v1/tools/hotel_search?user_id=ivy", json={"city": "Lisbon", "check_in": ahead(20), "nights": 2}
    )
    assert resp.status == 200
    await app[keys.TASKS].drain()
    store, kv = app[keys.STORE], app[keys.KV]
    live = Filter(equals={"source": "live"})
    assert await store.count(live) == 5 and len(await kv.scan_prefix("live:ivy:")) == 5
    documents = await store.count(Filter(equals={"source": "seed"}))

    assert (await app[keys.JOBS].run("purge-expired"))["counts"]["deleted"] == 0  # nothing expired yet
    later = time.time() + 30 * 86400  # past every freshness window
    small = SchedulerSettings(purge_batch=2, purge_max_batches=2)
    first = await definitions.purge_expired(store, kv, small, now=later)
    assert first == {"deleted": 4, "batches": 2, "remaining": 1}
    second = await definitions.purge_expired(store, kv, small, now=later)
    assert second == {"deleted": 1, "batches": 1, "remaining": 0}
    assert await store.count(live) == 0 and await kv.scan_prefix("live:ivy:") == {}
    assert await store.count(Filter(equals={"source": "seed"})) == documents  # documents never expire


async def test_two_schedulers_sharing_one_redis_run_a_job_once(make_settings, small_seed: Path) -> None:  # type: ignore[no-untyped-def]
    url = redis_url()
    if not url:
        pytest.skip("no Redis: set WAYFARER_TEST_REDIS_URL")
    namespace = f"test-{uuid.uuid4().hex}"
    runners, apps = [], []
    for replica in ("a", "b"):
        settings = make_settings(
            WAYFARER_KV__URL=url,
            WAYFARER_KV__NAMESPACE=namespace,
            WAYFARER_INDEX__SEED_DIR=str(small_seed),
            WAYFARER_INDEX__SEED_ON_START="false",
            WAYFARER_SERVER__DATA_DIR=str(small_seed.parent / f"replica-{replica}"),
        )
        app = create_app(settings)
        runner = web.AppRunner(app)
        await runner.setup()
        runners.append(runner)
        apps.append(app)
    try:
        outcomes = await asyncio.gather(
            *(app[keys.JOBS].run("seed-sync") for app in apps), return_exceptions=True
        )
        ran = [o for o in outcomes if isinstance(o, dict)]
        skipped = [o for o in outcomes if isinstance(o, JobRunningError)]
        assert len(ran) == 1 and len(skipped) == 1 and ran[0]["counts"]["added"] == 4
        # The lock was released at the end: the next run goes ahead (and finds nothing to do).
        again = await apps[1][keys.JOBS].run("seed-sync")
        assert again["counts"]["added"] == 0 and again["counts"]["skipped"] == 4
        status = {j["name"]: j for j in await apps[1][keys.JOBS].status()}
        assert status["seed-sync"]["last"]["outcome"] == "ok"  # shared: any replica sees the last run
        assert status["seed-sync"]["next_run"] is not None  # each replica schedules; the lock picks one
    finally:
        for runner in runners:
            await runner.cleanup()


async def test_rebuild_while_searching_never_fails_a_search(
    aiohttp_client, make_settings, small_seed: Path
) -> None:  # type: ignore[no-untyped-def]
    settings = make_settings(
        WAYFARER_ADMIN_TOKEN="s3cret",
        WAYFARER_INDEX__SEED_DIR=str(small_seed),
        WAYFARER_SCHEDULER__REBUILD_BATCH="4",  # a copy of many small steps: the write lands amid them
    )
    client = await aiohttp_client(create_app(settings))
    app = client.app
    store = app[keys.STORE]
    await client.post(
        "/v1/tools/hotel_search?user_id=zoe", json={"city": "Tokyo", "check_in": ahead(15), "nights": 2}
    )
    await app[keys.TASKS].drain()
    total, old_name = await store.count(), store.physical_name
    stop = asyncio.Event()
    searches: list[tuple[int, int]] = []

    async def search_forever() -> None:
        while not stop.is_set():
            resp = await client.post("/v1/search", json={"query": "getting around Tokyo", "top_k": 3})
            searches.append((resp.status, len((await resp.json()).get("results", []))))

    async def write_during() -> None:  # written while the copy runs: must be in the new index too
        while store.shadow is None:  # noqa: ASYNC110 (the copy has begun)
            await asyncio.sleep(0)
        resp = await client.post(
            "/v1/tools/hotel_search?user_id=zoe", json={"city": "Lisbon", "check_in": ahead(16), "nights": 2}
        )
        assert resp.status == 200
        await app[keys.TASKS].drain()

    searchers = [asyncio.create_task(search_forever()) for _ in range(3)]
    writer = asyncio.create_task(write_during())
    resp = await client.post("/v1/admin/reindex", json={"job": "rebuild"}, headers=ADMIN)
    await writer
    stop.set()
    await asyncio.gather(*searchers)
    assert resp.status == 200, await resp.text()
    [run] = (await resp.json())["runs"]
    assert run["outcome"] == "ok" and run["counts"]["from"] == old_name
    assert len(searches) > 10 and all(s == (200, 3) for s in searches)
    assert store.physical_name != old_name and store.physical_name == run["counts"]["to"]
    assert await store.count() == total + 5 == run["counts"]["points"]  # the write during the copy is there
    index_dir = app[keys.SETTINGS].index_path
    assert (
        not (index_dir / old_name).exists()
        and (index_dir / "wayfarer.current").read_text() == store.physical_name
    )
    recall = await client.post("/v1/recall", json={"user_id": "zoe", "message": "what hotels did you find?"})
    assert len((await recall.json())["results"]) == 5


async def test_a_killed_job_rerun_leaves_a_correct_index(
    aiohttp_client, make_settings, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    # 200 one-chunk documents: two write groups (128 chunks each) that embed quickly, so the kill
    # lands between documents with many still to do, and the rebuilds below copy little.
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(200):
        (corpus / f"note-{i:03}.md").write_text(
            f"Travel note {i}: the ferry {i} crosses the bay at {i % 24}:15."
        )
    settings = make_settings(WAYFARER_INDEX__SEED_ON_START="false", WAYFARER_INDEX__SEED_DIR=str(corpus))
    client = await aiohttp_client(create_app(settings))
    app = client.app
    jobs, kv, store = app[keys.JOBS], app[keys.KV], app[keys.STORE]

    # seed-sync killed after its first document is recorded: the poll runs between the seeder's own
    # awaits on this loop, so it sees the first record within a document or two of it.
    task = asyncio.create_task(jobs.run("seed-sync"))
    while not await kv.scan_prefix("doc:"):  # noqa: ASYNC110 (polls the real KV store)
        assert not task.done()
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert {j["name"]: j for j in await jobs.status()}["seed-sync"]["last"]["outcome"] == "interrupted"
    rerun = await jobs.run("seed-sync")  # the lock was released, and the rest is done now
    records = {k: json.loads(v) for k, v in (await kv.scan_prefix("doc:")).items()}
    assert (
        0 < rerun["counts"]["skipped"] < len(records) == rerun["counts"]["added"] + rerun["counts"]["skipped"]
    )
    assert await store.count() == sum(r["chunks"] for r in records.values())  # no duplicates, none lost

    # a rebuild killed while it copies: the old index keeps serving, the partial one is gone
    total, serving = await store.count(), store.physical_name
    task = asyncio.create_task(jobs.run("rebuild"))
    while store.shadow is None:  # noqa: ASYNC110
        assert not task.done()
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert store.shadow is None and store.physical_name == serving and await store.count() == total
    assert [p.name for p in settings.index_path.iterdir() if p.is_dir()] == [serving]

    # a process killed mid-rebuild leaves its generation behind: the next rebuild deletes it first
    leftover = create_store(settings, app[keys.EMBEDDER].dimension, "wayfarer@1", generation=True)
    await leftover.open()
    await leftover.close()
    done = await jobs.run("rebuild")
    assert done["counts"]["stale_dropped"] == 1 and done["counts"]["points"] == total
    assert sorted(p.name for p in settings.index_path.iterdir() if p.is_dir()) == [store.physical_name]


async def test_jobs_endpoint_and_refresh_popular(aiohttp_client, make_settings, small_seed: Path) -> None:  # type: ignore[no-untyped-def]
    settings = make_settings(
        WAYFARER_INDEX__SEED_DIR=str(small_seed),
        WAYFARER_ADMIN_TOKEN="s3cret",
        WAYFARER_SCHEDULER__REFRESH_POPULAR="true",
        WAYFARER_SCHEDULER__REFRESH_AHEAD_MINUTES="600",  # hotel offers live 6 h: due at once
    )
    client = await aiohttp_client(create_app(settings))
    assert (await client.get("/v1/admin/jobs")).status == 401
    hotel = {"city": "Rome", "check_in": ahead(30), "nights": 2}
    for user in ("ada", "ada", "bo"):
        assert (await client.post(f"/v1/tools/hotel_search?user_id={user}", json=hotel)).status == 200
    await client.app[keys.TASKS].drain()
    kv = client.app[keys.KV]
    [index_key] = [k for k in await kv.scan_prefix("req:ada:")]
    before = json.loads(await kv.get(index_key) or "{}")["valid_until"]

    resp = await client.post("/v1/admin/reindex", json={"job": "refresh-popular"}, headers=ADMIN)
    [run] = (await resp.json())["runs"]
    assert run["counts"]["calls"] == 1 and run["counts"]["refreshed"] == 1 and run["counts"]["written"] == 10
    assert json.loads(await kv.get(index_key) or "{}")["valid_until"] > before  # renewed before expiry

    listing = await (await client.get("/v1/admin/jobs", headers=ADMIN)).json()
    jobs = {j["name"]: j for j in listing["jobs"]}
    assert set(jobs) == {"seed-sync", "purge-expired", "refresh-popular", "rebuild"}
    assert jobs["refresh-popular"]["last"]["outcome"] == "ok" and jobs["refresh-popular"]["next_run"]
    assert jobs["rebuild"]["next_run"] is None and jobs["rebuild"]["last"] is None
    unknown = await client.post("/v1/admin/reindex", json={"job": "nope"}, headers=ADMIN)
    assert unknown.status == 404 and (await unknown.json())["error"]["code"] == "not_found"
