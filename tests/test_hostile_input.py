"""Hostile and broken input against the real app: every answer is a 4xx JSON error, never a 500, a hang
or a dropped connection, and nothing a client sends can wedge the index or write into shared scopes."""

from __future__ import annotations

import asyncio
import gzip
import json
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer

from rag.settings import Settings
from rag.store.base import Point
from rag.web import keys
from rag.web.app import create_app
from tests.conftest import SMALL_SEED

pytestmark = pytest.mark.asyncio(loop_scope="module")
ADMIN = {"Authorization": "Bearer s3cret"}


def _settings(tmp: Path, **overrides: Any) -> Settings:
    seed = tmp / "seed"
    for rel in SMALL_SEED[:2]:
        (seed / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(Path(__file__).resolve().parent.parent / "seed_data" / rel, seed / rel)
    return Settings(
        _env_file=None,
        admin_token="s3cret",
        server={"data_dir": tmp / "data"},
        index={"seed_dir": seed},
        scheduler={"enabled": False},
        limits={"document_job_chars": 3000, "max_body_bytes": 4 * 1024 * 1024},
        **overrides,
    )


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TestClient]:
    """One real app for the module: nothing here changes what the others see, except as asserted."""
    app = create_app(_settings(tmp_path_factory.mktemp("hostile")))
    async with TestClient(TestServer(app)) as c:
        yield c


async def _error(resp: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert resp.status == status, await resp.text()
    assert resp.content_type == "application/json"
    body = await resp.json()
    if code is not None:
        assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    return dict(body["error"])


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


async def test_deep_or_huge_json_is_a_validation_error_everywhere(client: TestClient) -> None:
    # Within the tool's body limit (a few KiB: tests/test_request_limits.py), and past it on search.
    deep = '{"origin": "LON", "x": ' + _nested(100) + "}"
    huge = '{"origin": "LON", "adults": ' + "9" * 500 + "}"
    for body in (deep, huge):
        resp = await client.post("/v1/tools/flight_search", data=body)
        await _error(resp, 422, "validation_error")
    for body in ('{"query": "x", "x": ' + _nested(5000) + "}", '{"query": "x", "n": ' + "9" * 5000 + "}"):
        resp = await client.post("/v1/search", data=body)
        await _error(resp, 422, "validation_error")
    resp = await client.post("/v1/search", data='{"query": "x", "top_k": ' + "1" * 50 + "}")
    await _error(resp, 422, "validation_error")
    resp = await client.post("/v1/chat", data='{"user_id": "u", "message": "hi", "x": ' + _nested(100) + "}")
    await _error(resp, 422, "validation_error")
    for constant in ("NaN", "Infinity", "1e999"):
        resp = await client.post("/v1/search", data='{"query": "x", "top_k": ' + constant + "}")
        await _error(resp, 422, "validation_error")


async def test_a_body_that_does_not_match_its_content_encoding_is_refused(client: TestClient) -> None:
    headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
    for path in ("/v1/search", "/v1/chat", "/v1/tools/flight_search", "/v1/route"):
        resp = await client.post(path, data=b"this is not gzip", headers=headers)
        await _error(resp, 400, "invalid_json")
    good = gzip.compress(json.dumps({"query": "Tokyo trains", "top_k": 1}).encode())
    resp = await client.post("/v1/search", data=good, headers=headers)
    assert resp.status == 200, await resp.text()


async def test_far_relative_dates_are_not_dates(client: TestClient) -> None:
    for days in ("3000000", "99999999999999999999"):
        message = f"flights from London to Lisbon in {days} days"
        resp = await client.post("/v1/route", json={"message": message})
        assert resp.status == 200, await resp.text()
        resp = await client.post("/v1/chat", json={"user_id": "dates", "message": message})
        assert resp.status == 200, await resp.text()
        assert (await resp.json())["complete"]


async def test_lone_surrogates_are_refused_as_invalid_text(client: TestClient) -> None:
    resp = await client.post("/v1/chat", data='{"user_id": "u", "message": "hello \\ud800"}')
    error = await _error(resp, 422, "validation_error")
    assert "surrogate" in error["message"]
    resp = await client.post("/v1/search", data='{"query": "\\udfff"}')
    await _error(resp, 422, "validation_error")


async def test_websocket_frames_that_break_limits_get_error_frames(client: TestClient) -> None:
    async with client.ws_connect("/v1/ws?user_id=ws-hostile") as ws:
        frames = [
            '{"type": "message", "text": ' + _nested(30_000) + "}",
            '{"type": "message", "text": "hi", "n": ' + "7" * 5000 + "}",
            '{"type": "message", "text": "\\ud800"}',
            '{"type": "message", "text": NaN}',
            "[" * 200,
            '"just a string"',
        ]
        for frame in frames:
            await ws.send_str(frame)
            reply = await ws.receive_json()
            assert reply["type"] == "error", reply
            assert reply["error"]["code"] in ("validation_error", "invalid_json", "unknown_frame_type")
        await ws.send_json({"type": "message", "text": "hello"})
        while True:
            msg = await ws.receive()
            assert msg.type == WSMsgType.TEXT, msg
            event = json.loads(msg.data)
            assert event["type"] == "response", event
            if event.get("complete"):
                break
    async with client.ws_connect("/v1/ws?user_id=ws-hostile") as ws:
        await ws.send_str('{"type": "message", "text": "' + "x" * 100_000 + '"}')
        msg = await ws.receive()
        assert msg.type == WSMsgType.CLOSE and msg.data == 1009  # the protocol's "message too big"


async def test_the_shared_scope_is_no_user_id(client: TestClient) -> None:
    for path, body in (
        ("/v1/chat", {"user_id": "*", "message": "hotels in Paris"}),
        ("/v1/search", {"user_id": " * ", "query": "Paris"}),
        ("/v1/recall", {"user_id": "*", "message": "what hotels did you find?"}),
        ("/v1/route", {"user_id": "*", "message": "hi"}),
    ):
        resp = await client.post(path, json=body)
        error = await _error(resp, 422, "validation_error")
        assert "reserved" in error["message"]
    resp = await client.post("/v1/tools/location_search", params={"user_id": "*"}, json={"keyword": "Paris"})
    await _error(resp, 422, "validation_error")
    resp = await client.get("/v1/sessions/*")
    await _error(resp, 422, "validation_error")
    resp = await client.get("/v1/ws", params={"user_id": "*"})
    await _error(resp, 422, "validation_error")


async def test_admin_metadata_cannot_claim_the_service_s_own_fields(client: TestClient) -> None:
    refused: list[dict[str, Any]] = [
        {"source": "SEED"},
        {"source": " Seed "},
        {"source": "live"},
        {"kind": "hotel_offer"},
        {"user_scope": "someone"},
        {"valid_until": 0},
        {"Sandbox": True},
        {"n": 10**30},
        {"deep": json.loads(_nested(20))},
        {f"k{i}": i for i in range(100)},
        {"big": "x" * 20_000},
    ]
    for metadata in refused:
        doc = {"id": "meta-test", "text": "A short note about Porto trams.", "metadata": metadata}
        resp = await client.post("/v1/documents", json={"documents": [doc]}, headers=ADMIN)
        await _error(resp, 422, "validation_error")
    ok = {"id": "meta-ok", "text": "Porto's trams climb the Ribeira hills.", "metadata": {"tags": ["a"]}}
    resp = await client.post("/v1/documents", json={"documents": [ok]}, headers=ADMIN)
    assert resp.status == 200, await resp.text()
    assert (await resp.json())["added"] == 1


async def test_deeply_nested_metadata_cannot_wedge_the_index(client: TestClient) -> None:
    """Metadata nested past the index's own limit was once accepted and broke every search and write."""
    doc = {"id": "wedge", "text": "Lisbon trams and pastries.", "metadata": {"x": json.loads(_nested(130))}}
    resp = await client.post("/v1/documents", json={"documents": [doc]}, headers=ADMIN)
    await _error(resp, 422, "validation_error")
    resp = await client.post("/v1/search", json={"query": "Lisbon trams", "top_k": 3})
    assert resp.status == 200, await resp.text()
    resp = await client.delete("/v1/documents/wedge", headers=ADMIN)
    assert resp.status == 200
    assert (await client.get("/readyz")).status == 200


async def test_parser_level_errors_are_json_too(client: TestClient) -> None:
    assert client.server.port is not None
    requests = [
        b"GET /v1/search?q=" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n",
        b"BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n",
    ]
    for raw in requests:
        reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
        writer.write(raw)
        await writer.drain()
        response = await asyncio.wait_for(reader.read(), 30)
        writer.close()
        head, _, body = response.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        assert 400 <= status < 500, response[:200]
        assert b"application/json" in head, head
        error = json.loads(body)["error"]
        assert error["code"] and error["message"], error


async def test_wrong_query_values_are_validation_errors(client: TestClient) -> None:
    doc = {"id": "wait-test", "text": "Bergen's funicular climbs Mount Floyen."}
    resp = await client.post(
        "/v1/documents", params={"wait": "maybe"}, json={"documents": [doc]}, headers=ADMIN
    )
    await _error(resp, 422, "validation_error")


async def test_a_large_upload_is_a_job_to_poll(client: TestClient) -> None:
    paragraphs = [
        f"Section {i}. The funicular number {i} climbs to a viewpoint over Valparaiso." for i in range(80)
    ]
    doc = {"id": "big-upload", "text": "\n\n".join(paragraphs), "metadata": {"city": "Valparaiso"}}
    resp = await client.post("/v1/documents", json={"documents": [doc]}, headers=ADMIN)
    assert resp.status == 202, await resp.text()
    job = await resp.json()
    assert job["status"] == "running" and job["documents"] == 1
    assert resp.headers["Location"] == f"/v1/uploads/{job['id']}"
    status = job
    for _ in range(600):  # the job finishes on its own; this only bounds a broken one
        status = await (await client.get(resp.headers["Location"], headers=ADMIN)).json()
        if status["status"] != "running":
            break
        await asyncio.sleep(0.1)
    assert status["status"] == "done", status
    assert status["counts"]["added"] == 1 and status["done"] == 1
    resp = await client.post("/v1/search", json={"query": "funicular viewpoint Valparaiso", "top_k": 1})
    assert (await resp.json())["results"][0]["metadata"]["document_id"] == "big-upload"
    missing = await client.get("/v1/uploads/nope", headers=ADMIN)
    await _error(missing, 404, "not_found")


async def test_readyz_fails_while_the_index_refuses_writes(client: TestClient) -> None:
    store = client.server.app[keys.STORE]
    dimension = client.server.app[keys.EMBEDDER].dimension
    bad = Point("00000000-0000-0000-0000-000000000001", [0.1] * (dimension + 3), None, {"text": "x"})
    with pytest.raises(Exception):  # noqa: B017 - whatever the engine raises, the write fails
        await store.upsert([bad])
    resp = await client.get("/readyz")
    assert resp.status == 503
    assert (await resp.json())["checks"]["index"] is False
    good = Point("00000000-0000-0000-0000-000000000001", [0.1] * dimension, None, {"text": "x"})
    await store.upsert([good])
    await store.delete([good.id])
    assert (await client.get("/readyz")).status == 200


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.redis
async def test_readyz_fails_while_the_kv_store_refuses_writes(tmp_path: Path) -> None:
    """A Redis that reads but refuses writes (no replica to write to) is not ready."""
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is needed (scripts/test.sh installs it)")
    port = _free_port()
    server = await asyncio.create_subprocess_exec(
        *("redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"),
        stdout=subprocess.DEVNULL,
    )
    try:
        import redis.asyncio as aioredis

        r = aioredis.Redis(port=port)
        for _ in range(200):
            try:
                await r.ping()
                break
            except Exception:
                await asyncio.sleep(0.05)
        app = create_app(_settings(tmp_path, kv={"url": f"redis://127.0.0.1:{port}/0"}))
        async with TestClient(TestServer(app)) as c:
            assert (await c.get("/readyz")).status == 200
            await r.config_set("min-replicas-to-write", 1)
            resp = await c.get("/readyz")
            assert resp.status == 503
            assert (await resp.json())["checks"] == {"model": True, "index": True, "kv": False}
            await r.config_set("min-replicas-to-write", 0)
            assert (await c.get("/readyz")).status == 200
        await r.aclose()
    finally:
        server.terminate()
        await server.wait()
