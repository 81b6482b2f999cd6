"""One request costs what it should: bodies are refused past what their route takes (before they are
read), string values past their length (and never repeated whole), route requests and tool calls past a
rate, a body that is not what it claims to be (its Content-Encoding, a byte order mark) is one 400 and
one log line, and one in a coding the service does not decode is a 415. Against the real app, on a real
port."""

from __future__ import annotations

import asyncio
import datetime as dt
import gzip
import json
import logging
import uuid
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient
from multidict import CIMultiDict

from rag.errors import RateLimitedError
from rag.limits.window import RateLimit
from rag.web.middleware import CONTENT_CODINGS
from tests.conftest import copy_seed, env_settings, redis_url, serve

pytestmark = pytest.mark.asyncio(loop_scope="module")
ADMIN = {"Authorization": "Bearer s3cret"}
RATE = 3  # route requests, and tool calls, one caller may make in this module's app


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def app(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TestClient]:
    """The service as it ships (64 MiB uploads), with small rate limits: one app for the module. Tests
    that must not count against another's limit call as users of their own."""
    tmp = tmp_path_factory.mktemp("limits")
    settings = env_settings(
        tmp,
        WAYFARER_ADMIN_TOKEN="s3cret",
        WAYFARER_INDEX__SEED_ON_START="false",
        WAYFARER_INDEX__SEED_DIR=str(copy_seed(tmp / "seed")),
        WAYFARER_SCHEDULER__ENABLED="false",
        WAYFARER_SERVER__ROUTE_RATE_LIMIT=str(RATE),
        WAYFARER_SERVER__ROUTE_RATE_WINDOW_SECONDS="3600",
        WAYFARER_SERVER__TOOL_RATE_LIMIT=str(RATE),
        WAYFARER_SERVER__TOOL_RATE_WINDOW_SECONDS="3600",
    )
    async with serve(settings) as client:
        yield client


def user() -> str:
    return f"u-{uuid.uuid4().hex[:12]}"


def ahead(days: int) -> str:
    return (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)).isoformat()


async def error(resp: Any, status: int, code: str) -> dict[str, str]:
    text = await resp.text()
    assert resp.status == status, text[:500]
    body = json.loads(text)
    assert body["error"]["code"] == code, body
    return dict(body["error"])


async def raw_exchange(client: TestClient, head: bytes, body: Iterator[bytes]) -> tuple[int, bytes]:
    """Send a request head and what ``body`` yields (not necessarily all of its body), then read the
    response: its status and body. Fails if no response comes within 10 s."""
    assert client.server.port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
    try:
        writer.write(head)
        for piece in body:
            writer.write(piece)
            await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), 10)
        headers = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        length = next(
            int(line.split(b":", 1)[1])
            for line in headers.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        return int(status_line.split()[1]), await asyncio.wait_for(reader.readexactly(length), 10)
    finally:
        writer.close()


@pytest.mark.parametrize(
    "path", ["/v1/route", "/v1/chat", "/v1/search", "/v1/tools/hotel_search?user_id=raw-sender"]
)
async def test_a_body_larger_than_its_route_takes_is_refused_before_it_is_read(
    app: TestClient, path: str
) -> None:
    """A Content-Length of 50 MiB on a route whose largest body is some KiB: 413 at once, without the
    50 MiB ever being sent (the service used to wait for and buffer up to 64 MiB)."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {50 * 1024 * 1024}\r\n\r\n"
    ).encode()
    status, body = await raw_exchange(app, head, iter([b'{"message": "' + b"x" * 1024]))
    assert status == 413, body[:300]
    assert json.loads(body)["error"]["code"] == "payload_too_large"


async def test_a_chunked_body_is_refused_once_it_passes_the_limit(app: TestClient) -> None:
    head = b"POST /v1/route HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    piece = b"x" * 16384
    chunks = (b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(16))  # 256 KiB, never finished
    status, body = await raw_exchange(app, head, chunks)
    assert status == 413 and json.loads(body)["error"]["code"] == "payload_too_large"


async def test_the_largest_valid_body_still_fits(app: TestClient) -> None:
    """The limit is the schema's largest body: 2,000 characters each written as a \\u escape pair."""
    body = json.dumps({"message": "\U0001f600" * 2000, "user_id": user()}, ensure_ascii=True)
    assert len(body) > 24_000
    resp = await app.post("/v1/route", data=body, headers={"Content-Type": "application/json"})
    assert resp.status == 200, await resp.text()
    over = json.dumps({"message": "\U0001f600" * 2001, "user_id": user()}, ensure_ascii=True)
    await error(await app.post("/v1/route", data=over), 422, "validation_error")


async def test_uploads_keep_their_own_large_limit(app: TestClient) -> None:
    doc = {"id": "big", "text": "word " * 60_000, "metadata": {"source": "live"}}  # 300 KB, refused metadata
    resp = await app.post("/v1/documents", json={"documents": [doc]}, headers=ADMIN)
    await error(resp, 422, "validation_error")  # read and validated, not refused by its size


async def test_over_long_values_are_refused_without_being_repeated(app: TestClient) -> None:
    long = "Lisbon" + "x" * 4994
    resp = await app.post(
        "/v1/tools/hotel_search", params={"user_id": user()}, json={"city": long, "check_in": ahead(30)}
    )
    err = await error(resp, 422, "invalid_tool_params")
    assert "city" in err["message"] and "x" * 101 not in err["message"] and len(await resp.text()) < 1000
    huge = {"city": "x" * (10 * 1024 * 1024), "check_in": ahead(30)}
    resp = await app.post("/v1/tools/hotel_search", params={"user_id": user()}, json=huge)
    await error(resp, 413, "payload_too_large")
    assert len(await resp.text()) < 1000
    resp = await app.post("/v1/route", json={"message": "y" * (10 * 1024 * 1024)})
    await error(resp, 413, "payload_too_large")
    # Unknown values and keys are quoted 100 characters at most.
    resp = await app.post("/v1/search", json={"query": "museums", "filters": {"country": "Q" * 150}})
    err = await error(resp, 422, "unknown_filter_value")
    assert "Q" * 100 + "…" in err["message"] and "Q" * 101 not in err["message"]
    resp = await app.post("/v1/chat", json={"user_id": user(), "message": "hi", "k" * 5000: 1})
    err = await error(resp, 422, "validation_error")
    assert "k" * 101 not in err["message"]
    resp = await app.post(
        "/v1/tools/location_search", params={"user_id": user()}, json={"keyword": "Lisbon", "q" * 3000: 1}
    )
    err = await error(resp, 422, "invalid_tool_params")
    assert "q" * 101 not in err["message"]
    resp = await app.post(f"/v1/tools/{'t' * 3000}", json={})
    err = await error(resp, 404, "unknown_tool")
    assert "t" * 101 not in err["message"]


async def refusals(app: TestClient) -> float:
    """``wayfarer_rate_limited_total`` as /metrics says it now."""
    text = await (await app.get("/metrics")).text()
    return float(
        next(line for line in text.splitlines() if line.startswith("wayfarer_rate_limited_total ")).split()[1]
    )


async def test_route_requests_are_rate_limited_per_caller(app: TestClient) -> None:
    before = await refusals(app)
    for _ in range(RATE):
        resp = await app.post("/v1/route", json={"message": "hotels in Lisbon"})
        assert resp.status == 200, await resp.text()
    err = await error(await app.post("/v1/route", json={"message": "hotels in Lisbon"}), 429, "rate_limited")
    assert f"at most {RATE} route requests per 3600 s" in err["message"]
    assert await refusals(app) == before + 1
    # A user has a count of their own; a refused request is not routed at all.
    resp = await app.post("/v1/route", json={"message": "hotels in Lisbon", "user_id": user()})
    assert resp.status == 200, await resp.text()


async def test_tool_calls_are_rate_limited_per_caller(app: TestClient) -> None:
    before = await refusals(app)
    for _ in range(RATE):
        resp = await app.post("/v1/tools/location_search", json={"keyword": "Lisbon"})
        assert resp.status == 200, await resp.text()
    resp = await app.post("/v1/tools/location_search", json={"keyword": "Lisbon"})
    err = await error(resp, 429, "rate_limited")
    assert f"at most {RATE} tool calls per 3600 s" in err["message"]
    who = user()
    for _ in range(RATE):
        resp = await app.post("/v1/tools/location_search", params={"user_id": who}, json={"keyword": "Porto"})
        assert resp.status == 200, await resp.text()
    resp = await app.post("/v1/tools/location_search", params={"user_id": who}, json={"keyword": "Porto"})
    await error(resp, 429, "rate_limited")
    assert await refusals(app) == before + 2


@pytest.mark.redis
async def test_rate_limits_are_counted_in_the_shared_kv_store() -> None:
    """Two replicas (two connections to one Redis) share one count; each kind of call has its own."""
    url = redis_url()
    if not url:
        pytest.skip("no Redis: set WAYFARER_TEST_REDIS_URL")
    from rag.kv.redis import RedisKV

    namespace = f"test-{uuid.uuid4().hex}"
    one, two = RedisKV(url, namespace), RedisKV(url, namespace)
    await one.open()
    await two.open()
    try:
        first = RateLimit(one, 2, 3600, scope="route", what="route requests")
        second = RateLimit(two, 2, 3600, scope="route", what="route requests")
        await first.check("addr:10.0.0.1")
        await second.check("addr:10.0.0.1")
        with pytest.raises(RateLimitedError, match="at most 2 route requests per 3600 s"):
            await first.check("addr:10.0.0.1")
        await RateLimit(two, 2, 3600, scope="tools").check("addr:10.0.0.1")  # another count
        await first.check("addr:10.0.0.2")  # another caller
    finally:
        await one.close()
        await two.close()


async def test_a_bad_content_encoding_is_one_warning_and_a_4xx(
    app: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    for encoding in ("gzip", "deflate"):  # corrupt
        headers = {"Content-Encoding": encoding, "Content-Type": "application/json"}
        resp = await app.post("/v1/search", data=b"this is not compressed" * 100, headers=headers)
        await error(resp, 400, "invalid_json")
    # Not decodable here at all (no Brotli package): aiohttp refuses it before any middleware.
    assert "br" not in CONTENT_CODINGS
    headers = {"Content-Encoding": "br", "Content-Type": "application/json"}
    resp = await app.post("/v1/search", data=b"this is not compressed" * 100, headers=headers)
    await error(resp, 415, "unsupported_content_encoding")
    # Refused before the body is read (no admin token, no such route): the body is not read by a
    # handler, and draining it must not log a traceback either.
    corrupt = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
    await error(
        await app.post("/v1/admin/reindex", data=b"not gzip" * 100, headers=corrupt), 401, "unauthorized"
    )
    await error(await app.post("/v1/nowhere", data=b"not gzip" * 100, headers=corrupt), 404, "not_found")
    await asyncio.sleep(0.5)  # aiohttp logs what it finds after the response, if anything
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR], [
        (r.name, r.getMessage()) for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR
    ]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 5, [r.getMessage() for r in warnings]
    assert all("decod" in r.getMessage() for r in warnings)
    assert (await app.post("/v1/search", json={"query": "Lisbon trams"})).status == 200


@pytest.mark.parametrize(
    "encoding",
    ["x-nonsense", "gzip, gzip", "gzip,deflate", "identity, gzip", "gzip,", "x-gzip", "compress", "gzïp"],
)
async def test_a_content_encoding_the_service_does_not_decode_is_a_415(
    app: TestClient, encoding: str
) -> None:
    """aiohttp decodes one gzip, deflate (or br, zstd with their packages) and reads anything else as
    if it were plain: an unknown or doubled coding was answered 200 from bytes it never decoded."""
    body = json.dumps({"query": "Lisbon trams"}).encode()
    if encoding.startswith("gzip"):
        body = gzip.compress(gzip.compress(body))
    headers = {"Content-Encoding": encoding, "Content-Type": "application/json"}
    err = await error(
        await app.post("/v1/search", data=body, headers=headers), 415, "unsupported_content_encoding"
    )
    assert "gzip" in err["message"] and "deflate" in err["message"]  # what it takes instead
    # Refused before anything is read or counted, on every route; the next request is served.
    resp = await app.post("/v1/route", data=body, headers=headers)
    await error(resp, 415, "unsupported_content_encoding")
    assert (await app.post("/v1/search", json={"query": "Lisbon trams"})).status == 200


async def test_a_coding_said_twice_is_refused_and_the_ones_decoded_are_taken(app: TestClient) -> None:
    body = json.dumps({"query": "Lisbon trams"}).encode()
    twice = [("Content-Encoding", "gzip"), ("Content-Encoding", "gzip"), ("Content-Type", "application/json")]
    resp = await app.post("/v1/search", data=gzip.compress(gzip.compress(body)), headers=CIMultiDict(twice))
    await error(resp, 415, "unsupported_content_encoding")
    for encoding, data in (
        ("gzip", gzip.compress(body)),
        ("GZIP", gzip.compress(body)),
        ("deflate", zlib.compress(body)),
        ("identity", body),
        ("", body),
    ):
        headers = {"Content-Encoding": encoding, "Content-Type": "application/json"}
        resp = await app.post("/v1/search", data=data, headers=headers)
        assert resp.status == 200, (encoding, await resp.text())
        assert "results" in await resp.json()


async def test_a_byte_order_mark_is_not_json_and_runs_no_job(app: TestClient) -> None:
    """The reindex body is {"job"?}: {} runs every scheduled job; a body that only looks like {} (a
    UTF-8 byte order mark first) or says "job": null runs none."""
    for body in (b"\xef\xbb\xbf{}", "{}".encode("utf-16"), b'\xef\xbb\xbf{"job": "seed-sync"}'):
        resp = await app.post("/v1/admin/reindex", data=body, headers=ADMIN)
        err = await error(resp, 400, "invalid_json")
        assert "byte order mark" in err["message"] or "UTF-8" in err["message"]
    await error(
        await app.post("/v1/admin/reindex", json={"job": None}, headers=ADMIN), 422, "validation_error"
    )
    jobs = (await (await app.get("/v1/admin/jobs", headers=ADMIN)).json())["jobs"]
    assert all(job["last"] is None for job in jobs), jobs
    resp = await app.post("/v1/route", data=b'\xef\xbb\xbf{"message": "hotels in Rome"}')
    await error(resp, 400, "invalid_json")


def _string_paths(
    schema: dict[str, Any], doc: dict[str, Any], path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], int]]:
    """(path, maxLength) of every string a body schema holds, through objects and arrays."""
    if "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    for option in schema.get("anyOf", []):
        yield from _string_paths(option, doc, path)
    if schema.get("type") == "string" and "maxLength" in schema:
        yield path, schema["maxLength"]
    for name, sub in schema.get("properties", {}).items():
        yield from _string_paths(sub, doc, (*path, name))
    if schema.get("type") == "array":
        yield from _string_paths(schema["items"], doc, (*path, "[]"))


def _nested(path: tuple[str, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    return [_nested(rest, value)] if head == "[]" else {head: _nested(rest, value)}


async def test_every_max_length_the_description_states_is_the_server_s(app: TestClient) -> None:
    """For every operation with a JSON body, each string one character over its maxLength is refused
    with a 4xx naming it (not a 413: the body limit leaves room for every valid value), and at its
    maxLength it is not refused for its length."""
    doc = await (await app.get("/openapi.json")).json()
    checked = 0
    for path, item in doc["paths"].items():
        for method, op in item.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body is None or "{" in path:
                continue
            for where, most in _string_paths(body, doc):
                field = where[-1]
                for length, refused in ((most + 1, True), (most, False)):
                    value = _nested(where, "z" * length)
                    resp = await app.request(
                        method,
                        path,
                        json=value,
                        headers=ADMIN,
                        params={"user_id": user()} if "/tools/" in path else None,
                    )
                    text = await resp.text()
                    said = (path, where, length, resp.status, text[:300])
                    assert resp.status < 500 and resp.status != 413, said
                    assert (f"at most {most} character" in text) == refused, said
                    assert not refused or (400 <= resp.status < 500 and field in text), said
                    checked += 1
    assert checked >= 40, checked
